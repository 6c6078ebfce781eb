//===- CApi.cpp - the C ABI of include/tcc/runtime.h ----------------------===//
//
// Thin wrappers: validate handles, call into Model, turn exceptions into a
// status and tcc_last_error(). Nothing here may throw across the boundary.
// tcc_model_create itself is defined by each model.so's own object: it calls
// tcc_model_create_from with the model's descriptor (lib/Target).
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/CudaDriver.h"
#include "tcc/Runtime/CudaGraphCache.h"
#include "tcc/Runtime/Generate.h"
#include "tcc/Runtime/Model.h"
#include "tcc/Runtime/RuntimeError.h"
#include "tcc/runtime.h"

#include <cstring>

using namespace tcc;

namespace {

tcc_status invalidArgument(const std::string &message) {
  setLastError(message);
  return TCC_ERROR_INVALID_ARGUMENT;
}

tcc_model::TensorInfoStorage infoStorage(const TensorSpec &spec) {
  tcc_model::TensorInfoStorage storage;
  for (const SymbolicExpr &size : spec.sizes) {
    storage.sizes.push_back(size.asConstant().value_or(-1));
    storage.sizeExprs.push_back(size.text().c_str());
  }
  return storage;
}

void fillInfo(const TensorSpec &spec, const tcc_model::TensorInfoStorage &storage,
              tcc_tensor_info *info) {
  info->name = spec.name.c_str();
  info->dtype = static_cast<int32_t>(spec.dtype);
  info->device = spec.device;
  info->rank = spec.rank();
  info->sizes = storage.sizes.data();
  info->size_exprs = storage.sizeExprs.data();
  int64_t bytes = static_cast<int64_t>(dtypeSize(spec.dtype));
  for (int64_t size : storage.sizes)
    bytes = size < 0 || bytes < 0 ? -1 : bytes * size;
  info->bytes = bytes;
  info->embedded = 0;
}

template <typename Spec>
tcc_status tensorInfo(const tcc_model *model, int32_t index, tcc_tensor_info *info,
                      const std::vector<Spec> &specs,
                      const std::vector<tcc_model::TensorInfoStorage> &storage,
                      const char *what) {
  if (!info)
    return invalidArgument("info is NULL");
  if (index < 0 || static_cast<size_t>(index) >= specs.size())
    return invalidArgument(std::string(what) + " index " + std::to_string(index) +
                           " out of range (model '" + model->model->manifest().model +
                           "' has " + std::to_string(specs.size()) + ")");
  fillInfo(specs[index], storage[index], info);
  return TCC_OK;
}

} // namespace

tcc_model::tcc_model(std::unique_ptr<Model> m) : model(std::move(m)) {
  const GuardManifest &manifest = model->manifest();
  for (const TensorSpec &spec : manifest.inputs)
    inputInfo.push_back(infoStorage(spec));
  for (const TensorSpec &spec : manifest.outputs)
    outputInfo.push_back(infoStorage(spec));
  for (const TensorSpec &spec : manifest.weights)
    weightInfo.push_back(infoStorage(spec));
  for (const TensorSpec &spec : manifest.states)
    stateInfo.push_back(infoStorage(spec));
}

#define TCC_CHECK_MODEL(model, failure)                                        \
  do {                                                                         \
    if (!(model)) {                                                            \
      setLastError("model is NULL");                                           \
      return failure;                                                          \
    }                                                                          \
  } while (false)

extern "C" {

TCC_API const char *tcc_status_string(tcc_status status) {
  switch (status) {
  case TCC_OK: return "ok";
  case TCC_ERROR_INVALID_ARGUMENT: return "invalid argument";
  case TCC_ERROR_GUARD_VIOLATION: return "guard violation";
  case TCC_ERROR_MISSING_WEIGHT: return "missing weight";
  case TCC_ERROR_IO: return "I/O error";
  case TCC_ERROR_INVALID_MANIFEST: return "invalid manifest";
  case TCC_ERROR_UNSUPPORTED: return "unsupported";
  case TCC_ERROR_OUT_OF_MEMORY: return "out of memory";
  case TCC_ERROR_INTERNAL: return "internal error";
  }
  return "unknown status";
}

TCC_API const char *tcc_dtype_name(int32_t dtype) {
  if (dtype < 0 || dtype > static_cast<int32_t>(kLastDType))
    return "unknown";
  return dtypeName(static_cast<DType>(dtype));
}

TCC_API size_t tcc_dtype_size(int32_t dtype) {
  if (dtype < 0 || dtype > static_cast<int32_t>(kLastDType))
    return 0;
  return dtypeSize(static_cast<DType>(dtype));
}

TCC_API tcc_model *tcc_model_create_from(const tcc_model_descriptor *d) {
  if (!d) {
    setLastError("tcc_model_create_from: the descriptor is NULL");
    return nullptr;
  }
  // Version 1 (before --specialize) is version 2 without specializations.
  if (d->abi_version != TCC_MODEL_DESCRIPTOR_VERSION && d->abi_version != 1) {
    setLastError("tcc_model_create_from: the model object has descriptor version " +
                 std::to_string(d->abi_version) + ", this runtime reads version " +
                 std::to_string(TCC_MODEL_DESCRIPTOR_VERSION) +
                 "; compile the model and link the runtime of one tcc");
    return nullptr;
  }
  try {
    std::vector<ModelEntry> entries{{d->forward, d->forward_cuda}};
    if (d->abi_version >= 2)
      for (uint64_t i = 0; i < d->num_specializations; ++i)
        entries.push_back({d->specializations[i].forward, d->specializations[i].forward_cuda});
    auto model = std::make_unique<Model>(std::string(d->manifest_json, d->manifest_size),
                                         d->weights, d->weights_size, std::move(entries));
    return new tcc_model(std::move(model));
  } catch (...) {
    reportCurrentException();
    return nullptr;
  }
}

TCC_API void tcc_model_destroy(tcc_model *model) { delete model; }

TCC_API const char *tcc_model_manifest(const tcc_model *model, size_t *size) {
  TCC_CHECK_MODEL(model, nullptr);
  const std::string &json = model->model->manifestJson();
  if (size)
    *size = json.size();
  return json.c_str();
}

TCC_API const char *tcc_model_name(const tcc_model *model) {
  TCC_CHECK_MODEL(model, nullptr);
  return model->model->manifest().model.c_str();
}

TCC_API int32_t tcc_model_num_inputs(const tcc_model *model) {
  TCC_CHECK_MODEL(model, -1);
  return static_cast<int32_t>(model->model->manifest().inputs.size());
}

TCC_API int32_t tcc_model_num_outputs(const tcc_model *model) {
  TCC_CHECK_MODEL(model, -1);
  return static_cast<int32_t>(model->model->manifest().outputs.size());
}

TCC_API int32_t tcc_model_num_weights(const tcc_model *model) {
  TCC_CHECK_MODEL(model, -1);
  return static_cast<int32_t>(model->model->manifest().weights.size());
}

TCC_API int32_t tcc_model_num_symbols(const tcc_model *model) {
  TCC_CHECK_MODEL(model, -1);
  return static_cast<int32_t>(model->model->manifest().symbols.size());
}

TCC_API tcc_status tcc_model_input_info(const tcc_model *model, int32_t index,
                                        tcc_tensor_info *info) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  return tensorInfo(model, index, info, model->model->manifest().inputs, model->inputInfo,
                    "input");
}

TCC_API tcc_status tcc_model_output_info(const tcc_model *model, int32_t index,
                                         tcc_tensor_info *info) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  return tensorInfo(model, index, info, model->model->manifest().outputs,
                    model->outputInfo, "output");
}

TCC_API tcc_status tcc_model_weight_info(const tcc_model *model, int32_t index,
                                         tcc_tensor_info *info) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  const auto &weights = model->model->manifest().weights;
  tcc_status status = tensorInfo(model, index, info, weights, model->weightInfo, "weight");
  if (status == TCC_OK) {
    info->bytes = static_cast<int64_t>(weights[index].bytes);
    info->embedded = weights[index].isDerived() ? 2 : weights[index].embedded ? 1 : 0;
  }
  return status;
}

TCC_API int32_t tcc_model_num_states(const tcc_model *model) {
  TCC_CHECK_MODEL(model, -1);
  return static_cast<int32_t>(model->model->manifest().states.size());
}

TCC_API tcc_status tcc_model_state_info(const tcc_model *model, int32_t index,
                                        tcc_tensor_info *info) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  const auto &states = model->model->manifest().states;
  tcc_status status = tensorInfo(model, index, info, states, model->stateInfo, "state");
  if (status == TCC_OK)
    info->embedded = states[index].embedded ? 1 : 0;
  return status;
}

TCC_API tcc_status tcc_model_read_state(tcc_model *model, int32_t index, void *dst,
                                        int32_t dst_device, size_t bytes) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  if (index < 0)
    return invalidArgument("state index " + std::to_string(index) + " is negative");
  try {
    model->model->readState(static_cast<size_t>(index), dst, dst_device, bytes);
    return TCC_OK;
  } catch (...) {
    return reportCurrentException();
  }
}

TCC_API tcc_status tcc_model_write_state(tcc_model *model, int32_t index, const void *src,
                                         int32_t src_device, size_t bytes) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  if (index < 0)
    return invalidArgument("state index " + std::to_string(index) + " is negative");
  try {
    model->model->writeState(static_cast<size_t>(index), src, src_device, bytes);
    return TCC_OK;
  } catch (...) {
    return reportCurrentException();
  }
}

TCC_API tcc_status tcc_model_bind_state(tcc_model *model, int32_t index, void *data,
                                        int32_t device, size_t bytes) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  if (index < 0)
    return invalidArgument("state index " + std::to_string(index) + " is negative");
  try {
    model->model->bindState(static_cast<size_t>(index), data, device, bytes);
    return TCC_OK;
  } catch (...) {
    return reportCurrentException();
  }
}

TCC_API tcc_status tcc_model_reset_state(tcc_model *model) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  try {
    model->model->resetState();
    return TCC_OK;
  } catch (...) {
    return reportCurrentException();
  }
}

TCC_API tcc_status tcc_model_generate(tcc_model *model, const int64_t *prompt, int32_t batch,
                                      int32_t prompt_len, const tcc_generate_options *options,
                                      int64_t *tokens, int32_t *num_tokens,
                                      tcc_generate_stats *stats) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  if (!options)
    return invalidArgument("tcc_model_generate: options is NULL");
  try {
    generate(*model->model, prompt, batch, prompt_len, *options, tokens, num_tokens, stats);
    return TCC_OK;
  } catch (...) {
    return reportCurrentException();
  }
}

TCC_API tcc_status tcc_model_symbol_info(const tcc_model *model, int32_t index,
                                         const char **name, int64_t *min, int64_t *max) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  const auto &symbols = model->model->manifest().symbols;
  if (index < 0 || static_cast<size_t>(index) >= symbols.size())
    return invalidArgument("symbol index " + std::to_string(index) + " out of range");
  if (name)
    *name = symbols[index].name.c_str();
  if (min)
    *min = symbols[index].min;
  if (max)
    *max = symbols[index].max;
  return TCC_OK;
}

TCC_API int64_t tcc_model_arena_bytes(const tcc_model *model) {
  TCC_CHECK_MODEL(model, -1);
  return model->model->manifest().arena.bytes;
}

TCC_API tcc_status tcc_model_bind_weight(tcc_model *model, const char *name,
                                         const void *data, size_t bytes) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  if (!name)
    return invalidArgument("weight name is NULL");
  try {
    model->model->bindWeight(name, data, bytes);
    return TCC_OK;
  } catch (...) {
    return reportCurrentException();
  }
}

TCC_API tcc_status tcc_model_load_weights(tcc_model *model, const char *path) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  if (!path)
    return invalidArgument("path is NULL");
  try {
    model->model->loadWeightsFile(path);
    return TCC_OK;
  } catch (...) {
    return reportCurrentException();
  }
}

TCC_API tcc_status tcc_model_output_sizes(const tcc_model *model, const tcc_tensor *inputs,
                                          int32_t numInputs, int64_t *const *outputSizes,
                                          int32_t numOutputs) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  try {
    if (numInputs < 0)
      return invalidArgument("num_inputs is negative");
    std::vector<std::vector<int64_t>> sizes =
        model->model->outputSizes(inputs, static_cast<size_t>(numInputs));
    if (numOutputs < 0 || static_cast<size_t>(numOutputs) != sizes.size())
      return invalidArgument("expected " + std::to_string(sizes.size()) +
                             " output(s), got " + std::to_string(numOutputs));
    if (numOutputs && !outputSizes)
      return invalidArgument("output_sizes is NULL");
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (!outputSizes[i] && !sizes[i].empty())
        return invalidArgument("output_sizes[" + std::to_string(i) + "] is NULL");
      std::copy(sizes[i].begin(), sizes[i].end(), outputSizes[i]);
    }
    return TCC_OK;
  } catch (...) {
    return reportCurrentException();
  }
}

TCC_API tcc_status tcc_model_run(tcc_model *model, const tcc_tensor *inputs,
                                 int32_t numInputs, const tcc_tensor *outputs,
                                 int32_t numOutputs) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  if (numInputs < 0 || numOutputs < 0)
    return invalidArgument("negative tensor count");
  try {
    model->model->run(inputs, static_cast<size_t>(numInputs), outputs,
                      static_cast<size_t>(numOutputs));
    return TCC_OK;
  } catch (...) {
    return reportCurrentException();
  }
}

TCC_API tcc_status tcc_model_run_on_stream(tcc_model *model, const tcc_tensor *inputs,
                                           int32_t numInputs, const tcc_tensor *outputs,
                                           int32_t numOutputs, void *stream) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  if (numInputs < 0 || numOutputs < 0)
    return invalidArgument("negative tensor count");
  try {
    model->model->runOnStream(inputs, static_cast<size_t>(numInputs), outputs,
                              static_cast<size_t>(numOutputs), stream);
    return TCC_OK;
  } catch (...) {
    return reportCurrentException();
  }
}

TCC_API tcc_status tcc_model_set_option(tcc_model *model, const char *name, int64_t value) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  if (!name)
    return invalidArgument("option name is NULL");
  try {
    // The on/off options.
    const std::pair<const char *, void (Model::*)(bool)> switches[] = {
        {"cuda_graphs", &Model::setCudaGraphs}, {"specializations", &Model::setSpecializations}};
    for (const auto &[option, set] : switches)
      if (std::strcmp(name, option) == 0) {
        if (value != 0 && value != 1)
          return invalidArgument(std::string("option '") + option + "' takes 0 or 1, got " +
                                 std::to_string(value));
        (model->model.get()->*set)(value != 0);
        return TCC_OK;
      }
    return invalidArgument(std::string("unknown or read-only option '") + name + "'");
  } catch (...) {
    return reportCurrentException();
  }
}

TCC_API tcc_status tcc_model_set_profiling(tcc_model *model, int32_t enabled) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  try {
    model->model->setProfiling(enabled != 0);
    return TCC_OK;
  } catch (...) {
    return reportCurrentException();
  }
}

TCC_API tcc_status tcc_model_profile(const tcc_model *model, double *total_ms, int64_t *calls,
                                     int32_t capacity, int32_t *num_kernels, int64_t *runs) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  if (capacity < 0 || (capacity > 0 && (!total_ms || !calls)))
    return invalidArgument("tcc_model_profile: total_ms or calls is NULL");
  try {
    std::vector<double> ms;
    std::vector<int64_t> count;
    model->model->profileTimes(ms, count);
    for (size_t k = 0; k < ms.size() && k < static_cast<size_t>(capacity); ++k) {
      total_ms[k] = ms[k];
      calls[k] = count[k];
    }
    if (num_kernels)
      *num_kernels = static_cast<int32_t>(ms.size());
    if (runs)
      *runs = static_cast<int64_t>(model->model->profileRuns());
    return TCC_OK;
  } catch (...) {
    return reportCurrentException();
  }
}

TCC_API tcc_status tcc_model_reset_profile(tcc_model *model) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  try {
    model->model->resetProfile();
    return TCC_OK;
  } catch (...) {
    return reportCurrentException();
  }
}

TCC_API tcc_status tcc_model_get_option(tcc_model *model, const char *name, int64_t *value) {
  TCC_CHECK_MODEL(model, TCC_ERROR_INVALID_ARGUMENT);
  if (!name || !value)
    return invalidArgument("option name or value is NULL");
  try {
    if (std::strcmp(name, "cuda_graphs") == 0) {
      *value = model->model->cudaGraphs() ? 1 : 0;
      return TCC_OK;
    }
    if (std::strcmp(name, "specializations") == 0) {
      *value = model->model->specializations() ? 1 : 0;
      return TCC_OK;
    }
    if (std::strcmp(name, "specialization") == 0) {
      *value = model->model->lastSpecialization();
      return TCC_OK;
    }
    cuda::GraphCacheStats stats = model->model->cudaGraphStats();
    const std::pair<const char *, uint64_t> counters[] = {
        {"cuda_graph_replays", stats.replays},
        {"cuda_graph_captures", stats.captures},
        {"cuda_graph_updates", stats.updates},
        {"cuda_direct_runs", stats.direct},
        {"cuda_graph_capture_failures", stats.captureFailures}};
    for (const auto &[counter, count] : counters)
      if (std::strcmp(name, counter) == 0) {
        *value = static_cast<int64_t>(count);
        return TCC_OK;
      }
    return invalidArgument(std::string("unknown option '") + name + "'");
  } catch (...) {
    return reportCurrentException();
  }
}

//--- Device memory helpers -------------------------------------------------//

TCC_API tcc_status tcc_cuda_malloc(void **ptr, size_t bytes) {
  if (!ptr)
    return invalidArgument("ptr is NULL");
  *ptr = nullptr;
  try {
    const cuda::Driver &d = cuda::Driver::get();
    cuda::ensureContext();
    cuda::CUdeviceptr p = 0;
    d.check(d.cuMemAlloc(&p, bytes ? bytes : 1),
            "cuMemAlloc(" + std::to_string(bytes) + " bytes)");
    *ptr = reinterpret_cast<void *>(static_cast<uintptr_t>(p));
    return TCC_OK;
  } catch (...) {
    return reportCurrentException();
  }
}

TCC_API tcc_status tcc_cuda_free(void *ptr) {
  if (!ptr)
    return TCC_OK;
  try {
    const cuda::Driver &d = cuda::Driver::get();
    cuda::ensureContext();
    d.check(d.cuMemFree(static_cast<cuda::CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr))),
            "cuMemFree");
    return TCC_OK;
  } catch (...) {
    return reportCurrentException();
  }
}

TCC_API tcc_status tcc_cuda_memcpy(void *dst, int32_t dstDevice, const void *src,
                                   int32_t srcDevice, size_t bytes) {
  if (bytes && (!dst || !src))
    return invalidArgument("dst or src is NULL");
  auto isDevice = [](int32_t device) {
    return device == TCC_DEVICE_CPU || device == TCC_DEVICE_CUDA;
  };
  if (!isDevice(dstDevice) || !isDevice(srcDevice))
    return invalidArgument("unknown device code");
  if (!bytes)
    return TCC_OK;
  if (dstDevice == TCC_DEVICE_CPU && srcDevice == TCC_DEVICE_CPU) {
    std::memcpy(dst, src, bytes);
    return TCC_OK;
  }
  try {
    const cuda::Driver &d = cuda::Driver::get();
    cuda::ensureContext();
    auto dev = [](const void *p) {
      return static_cast<cuda::CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
    };
    if (dstDevice == TCC_DEVICE_CUDA && srcDevice == TCC_DEVICE_CPU)
      d.check(d.cuMemcpyHtoD(dev(dst), src, bytes), "cuMemcpyHtoD");
    else if (dstDevice == TCC_DEVICE_CPU)
      d.check(d.cuMemcpyDtoH(dst, dev(src), bytes), "cuMemcpyDtoH");
    else
      d.check(d.cuMemcpyDtoD(dev(dst), dev(src), bytes), "cuMemcpyDtoD");
    return TCC_OK;
  } catch (...) {
    return reportCurrentException();
  }
}

TCC_API tcc_status tcc_cuda_synchronize(void *stream) {
  try {
    const cuda::Driver &d = cuda::Driver::get();
    cuda::ensureContext();
    d.check(d.cuStreamSynchronize(static_cast<cuda::CUstream>(stream)), "cuStreamSynchronize");
    return TCC_OK;
  } catch (...) {
    return reportCurrentException();
  }
}

} // extern "C"
