//===- RunCommand.cpp - `tcc run model.so --input x=x.npy ...` ------------===//
//
// Loads a compiled model through its C ABI, binds weights and inputs from
// .npy files, runs it, writes and summarizes the outputs, and optionally
// compares them with reference outputs (--expect) or times it (--bench).
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "ModelLibrary.h"
#include "tcc/Runtime/CudaDriver.h"

#include "tcc/Support/DType.h"
#include "tcc/Support/Npy.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

namespace tcc {

namespace {

/// A failure that ends the command with `code` after printing `message`.
struct RunFailure {
  int code;
  std::string message;
};

[[noreturn]] void userError(const std::string &message) {
  throw RunFailure{kExitUserError, message};
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

std::string listText(const std::vector<std::string> &items) {
  std::string text = "[";
  for (size_t i = 0; i < items.size(); ++i)
    text += (i ? ", " : "") + items[i];
  return text + "]";
}

/// Exit code for a failed C ABI call: the caller's fault or tcc's.
int exitCodeFor(tcc_status status) {
  switch (status) {
  case TCC_ERROR_INVALID_ARGUMENT:
  case TCC_ERROR_GUARD_VIOLATION:
  case TCC_ERROR_MISSING_WEIGHT:
  case TCC_ERROR_IO:
  case TCC_ERROR_INVALID_MANIFEST:
  case TCC_ERROR_UNSUPPORTED:
    return kExitUserError;
  default:
    return kExitInternal;
  }
}

void check(const ModelLibrary &lib, tcc_status status) {
  if (status != TCC_OK)
    throw RunFailure{exitCodeFor(status), lib.lastError()};
}

/// "specialization: s77=7 (#1 of 3)": the variant the run's input sizes
/// selected, for an artifact compiled with --specialize.
void printSpecialization(const ModelLibrary &lib) {
  nlohmann::json specs =
      nlohmann::json::parse(lib.manifestJson()).value("specializations", nlohmann::json::array());
  int64_t variant = -1;
  if (specs.size() < 2 || lib.api().getOption(lib.model(), "specialization", &variant) != TCC_OK ||
      variant < 0 || static_cast<size_t>(variant) >= specs.size())
    return;
  std::printf("specialization: %s (#%lld of %zu)\n",
              specs[variant].value("name", std::string()).c_str(),
              static_cast<long long>(variant), specs.size());
}

/// Splits "name=file" when `name` is one of `names`; otherwise nullopt.
std::optional<std::pair<std::string, std::string>>
splitNamed(const std::string &spec, const std::vector<std::string> &names) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos)
    return std::nullopt;
  std::string name = spec.substr(0, eq);
  if (std::find(names.begin(), names.end(), name) == names.end())
    return std::nullopt;
  return std::make_pair(name, spec.substr(eq + 1));
}

NpyArray loadNpy(const std::string &path) {
  try {
    return readNpy(path);
  } catch (const NpyError &e) {
    userError(e.what());
  }
}

/// One tensor description of the model (name, dtype, sizes).
struct TensorInfo {
  std::string name;
  DType dtype;
  std::vector<std::string> sizeExprs;
  int64_t bytes;
  bool derived = false; ///< weights: computed by the runtime, never bound
};

std::vector<TensorInfo> queryInfo(const ModelLibrary &lib, int32_t count,
                                  decltype(&tcc_model_input_info) query) {
  std::vector<TensorInfo> infos;
  for (int32_t i = 0; i < count; ++i) {
    tcc_tensor_info info;
    check(lib, query(lib.model(), i, &info));
    // `embedded` is 2 only for derived weights (0 for inputs and outputs).
    TensorInfo t{info.name, static_cast<DType>(info.dtype), {}, info.bytes, info.embedded == 2};
    for (int32_t d = 0; d < info.rank; ++d)
      t.sizeExprs.push_back(info.size_exprs[d]);
    infos.push_back(std::move(t));
  }
  return infos;
}

std::vector<std::string> namesOf(const std::vector<TensorInfo> &infos) {
  std::vector<std::string> names;
  for (const TensorInfo &t : infos)
    names.push_back(t.name);
  return names;
}

//===----------------------------------------------------------------------===//
// --profile
//===----------------------------------------------------------------------===//

/// Prints the kernels' times (most expensive first) and writes them as JSON
/// with --profile-json (the format tcc inspect --html --profile reads;
/// docs/EXPLAIN.md).
void reportProfile(const RunOptions &opts, const ModelLibrary &lib) {
  const ModelApi &api = lib.api();
  int32_t n = 0;
  int64_t runs = 0;
  check(lib, api.profile(lib.model(), nullptr, nullptr, 0, &n, &runs));
  std::vector<double> total(static_cast<size_t>(n));
  std::vector<int64_t> calls(static_cast<size_t>(n));
  check(lib, api.profile(lib.model(), total.data(), calls.data(), n, &n, &runs));
  nlohmann::json manifest = nlohmann::json::parse(lib.manifestJson());
  const nlohmann::json &kernels = manifest.contains("kernels") ? manifest["kernels"]
                                                               : nlohmann::json::array();
  double sum = 0;
  for (double t : total)
    sum += t;
  std::vector<size_t> order(static_cast<size_t>(n));
  for (size_t k = 0; k < order.size(); ++k)
    order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return total[a] > total[b]; });
  auto field = [&](size_t k, const char *name) {
    return k < kernels.size() ? kernels[k].value(name, std::string()) : std::string();
  };
  std::string device = opts.device == "cuda" ? "cuda" : "cpu";
  std::printf("profile: %lld runs on %s, %d kernels, %.1f us per run in kernels\n",
              static_cast<long long>(runs), device.c_str(), n,
              runs ? sum * 1000.0 / static_cast<double>(runs) : 0.0);
  std::printf("  %5s  %-10s %7s %11s %7s %9s %8s  %s\n", "index", "kind", "calls", "mean us",
              "share", "GFLOP/s", "GB/s", "detail");
  // A kernel's rate from the compiler's count (KernelCost.h) and its mean
  // time, "-" where the count is unknown.
  auto rate = [&](size_t k, const char *name, double mean) -> nlohmann::json {
    if (k >= kernels.size() || !kernels[k].contains(name) || !kernels[k][name].is_number() ||
        mean <= 0)
      return nullptr;
    return kernels[k][name].get<double>() / (mean * 1e-3) / 1e9;
  };
  auto rateText = [](const nlohmann::json &r) {
    if (r.is_null())
      return std::string("-");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", r.get<double>());
    return std::string(buf);
  };
  nlohmann::json list = nlohmann::json::array();
  for (size_t k : order) {
    double mean = calls[k] ? total[k] / static_cast<double>(calls[k]) : 0.0;
    nlohmann::json gflops = rate(k, "flops", mean), gbytes = rate(k, "bytes", mean);
    std::printf("  %5zu  %-10s %7lld %11.2f %6.1f%% %9s %8s  %s\n", k, field(k, "kind").c_str(),
                static_cast<long long>(calls[k]), mean * 1000.0,
                sum > 0 ? 100.0 * total[k] / sum : 0.0, rateText(gflops).c_str(),
                rateText(gbytes).c_str(), field(k, "detail").c_str());
    nlohmann::json entry = {{"index", k},         {"kind", field(k, "kind")},
                            {"detail", field(k, "detail")}, {"calls", calls[k]},
                            {"mean_ms", mean},    {"total_ms", total[k]}};
    if (!gflops.is_null())
      entry["gflop_per_s"] = gflops;
    if (!gbytes.is_null())
      entry["gbyte_per_s"] = gbytes;
    if (k < kernels.size()) {
      entry["sources"] = kernels[k].value("sources", nlohmann::json::array());
      entry["lines"] = kernels[k].value("lines", nlohmann::json::array());
    }
    list.push_back(std::move(entry));
  }
  if (opts.profileJson.empty())
    return;
  nlohmann::json out = {{"format", "tcc-profile"},
                        {"version", 1},
                        {"model", manifest.value("model", std::string())},
                        {"device", device},
                        {"calls", runs},
                        {"kernels", list}};
  std::ofstream os(opts.profileJson);
  os << out.dump(2) << "\n";
  if (!os)
    userError("cannot write " + opts.profileJson);
}

//===----------------------------------------------------------------------===//
// Weights and inputs
//===----------------------------------------------------------------------===//

void bindWeights(const RunOptions &opts, const ModelLibrary &lib,
                 const std::vector<TensorInfo> &weights, std::vector<NpyArray> &keepAlive) {
  if (!opts.weightsFile.empty()) {
    check(lib, lib.api().loadWeights(lib.model(), opts.weightsFile.c_str()));
  } else if (opts.weights.empty() && opts.weightsDir.empty()) {
    // `tcc compile --external-weights -o m.so` writes m.weights.bin beside it.
    std::filesystem::path beside = std::filesystem::path(opts.model).replace_extension(".weights.bin");
    if (std::filesystem::exists(beside))
      check(lib, lib.api().loadWeights(lib.model(), beside.string().c_str()));
  }

  std::map<std::string, std::string> files;
  if (!opts.weightsDir.empty()) {
    if (!std::filesystem::is_directory(opts.weightsDir))
      userError(opts.weightsDir + ": not a directory");
    for (const TensorInfo &w : weights) {
      // Names come from the model file: a name that is a path ("../x",
      // "/etc/x") would read outside the directory.
      if (w.name.empty() || w.name == "." || w.name == ".." ||
          w.name.find_first_of(std::string("/\0", 2)) != std::string::npos)
        userError("weight name '" + w.name + "' of model " + opts.model +
                  " is no plain file name; --weights-dir cannot bind it (use --weight "
                  "NAME=FILE.npy)");
      std::filesystem::path file = std::filesystem::path(opts.weightsDir) / (w.name + ".npy");
      if (std::filesystem::exists(file))
        files[w.name] = file.string();
    }
  }
  for (const std::string &spec : opts.weights) {
    auto named = splitNamed(spec, namesOf(weights));
    if (!named)
      userError("--weight '" + spec + "': expected NAME=FILE.npy with NAME one of the " +
                "model's weights");
    files[named->first] = named->second;
  }

  keepAlive.reserve(keepAlive.size() + files.size());
  for (const auto &[name, file] : files) {
    const TensorInfo &w = *std::find_if(weights.begin(), weights.end(),
                                        [&](const TensorInfo &t) { return t.name == name; });
    if (w.derived) // refused by the runtime, which names the sources to bind
      check(lib, lib.api().bindWeight(lib.model(), name.c_str(), nullptr, 0));
    NpyArray array = loadNpy(file);
    if (w.dtype == DType::BFloat16 && array.dtype == DType::Float32)
      array = roundToBFloat16(array); // NumPy has no bfloat16
    if (array.dtype != w.dtype)
      userError("weight '" + name + "' from " + file + ": expected dtype " +
                dtypeName(w.dtype) + ", got " + dtypeName(array.dtype));
    std::vector<std::string> shape;
    for (int64_t d : array.shape)
      shape.push_back(std::to_string(d));
    if (shape != w.sizeExprs)
      userError("weight '" + name + "' from " + file + ": expected shape " +
                listText(w.sizeExprs) + ", got " + listText(shape));
    keepAlive.push_back(std::move(array));
    const NpyArray &kept = keepAlive.back();
    check(lib, lib.api().bindWeight(lib.model(), name.c_str(), kept.data.data(),
                                    kept.data.size()));
  }
}

std::vector<NpyArray> readInputs(const RunOptions &opts, const std::vector<TensorInfo> &inputs) {
  std::vector<std::optional<NpyArray>> slots(inputs.size());
  std::vector<std::string> positional;
  for (const std::string &spec : opts.inputs) {
    if (auto named = splitNamed(spec, namesOf(inputs))) {
      size_t index = 0;
      while (inputs[index].name != named->first)
        ++index;
      if (slots[index])
        userError("input '" + named->first + "' given twice");
      slots[index] = loadNpy(named->second);
    } else {
      positional.push_back(spec);
    }
  }
  size_t next = 0;
  for (const std::string &file : positional) {
    while (next < slots.size() && slots[next])
      ++next;
    if (next == slots.size())
      userError("too many inputs: the model takes " + std::to_string(inputs.size()));
    slots[next] = loadNpy(file);
  }
  std::vector<NpyArray> arrays;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!slots[i])
      userError("missing input '" + inputs[i].name + "' (#" + std::to_string(i) +
                "): pass --input " + inputs[i].name + "=FILE.npy");
    // NumPy has no bfloat16: a bf16 input comes as float32 and is rounded.
    if (inputs[i].dtype == DType::BFloat16 && slots[i]->dtype == DType::Float32)
      slots[i] = roundToBFloat16(*slots[i]);
    arrays.push_back(std::move(*slots[i]));
  }
  return arrays;
}

//===----------------------------------------------------------------------===//
// Outputs
//===----------------------------------------------------------------------===//

struct Output {
  DType dtype;
  std::vector<int64_t> sizes;
  std::vector<uint8_t> data;
  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : sizes)
      n *= d;
    return n;
  }
};

void printOutput(const TensorInfo &info, const Output &out) {
  std::printf("%s: %s %s [", info.name.c_str(), shapeText(out.sizes).c_str(),
              dtypeName(out.dtype));
  int64_t n = out.numElements(), shown = std::min<int64_t>(n, 6);
  for (int64_t i = 0; i < shown; ++i)
    std::printf("%s%.6g", i ? ", " : "", elementAsDouble(out.dtype, out.data.data(), i));
  std::printf("%s]\n", n > shown ? ", ..." : "");
}

void writeOutput(const std::string &dir, const std::string &name, const Output &out) {
  std::filesystem::path file = std::filesystem::path(dir) / (name + ".npy");
  try {
    if (out.dtype == DType::BFloat16) {
      // NumPy has no bfloat16: write the exactly representable float32 values.
      std::vector<float> widened(static_cast<size_t>(out.numElements()));
      for (size_t i = 0; i < widened.size(); ++i)
        widened[i] = static_cast<float>(elementAsDouble(out.dtype, out.data.data(), i));
      writeNpy(file.string(), DType::Float32, out.sizes, widened.data());
    } else {
      writeNpy(file.string(), out.dtype, out.sizes, out.data.data());
    }
  } catch (const NpyError &e) {
    userError(e.what());
  }
}

/// Compares with a reference; prints one line; returns whether it passes.
bool compareOutput(const TensorInfo &info, const Output &out, const std::string &file,
                   double rtol, const std::string &prefix = "") {
  NpyArray ref = loadNpy(file);
  if (ref.shape != out.sizes) {
    std::printf("%s%s: FAIL shape %s, expected %s (%s)\n", prefix.c_str(), info.name.c_str(),
                shapeText(out.sizes).c_str(), shapeText(ref.shape).c_str(), file.c_str());
    return false;
  }
  double maxAbsErr = 0, maxAbsRef = 0;
  bool nanMismatch = false;
  if (ref.dtype != out.dtype && (isComplex(ref.dtype) || isComplex(out.dtype))) {
    std::printf("%s%s: FAIL dtype %s, expected %s (%s)\n", prefix.c_str(), info.name.c_str(),
                dtypeName(out.dtype),
                dtypeName(ref.dtype), file.c_str());
    return false;
  }
  // A complex tensor compares part by part (elementAsDouble's indices).
  int64_t parts = isComplex(out.dtype) ? 2 : 1;
  for (int64_t i = 0, n = out.numElements() * parts; i < n; ++i) {
    double o = elementAsDouble(out.dtype, out.data.data(), i), r = ref.elementAsDouble(i);
    if (std::isnan(o) || std::isnan(r)) {
      nanMismatch |= std::isnan(o) != std::isnan(r);
      continue;
    }
    if (std::isinf(o) || std::isinf(r)) {
      nanMismatch |= o != r;
      continue;
    }
    maxAbsErr = std::max(maxAbsErr, std::fabs(o - r));
    maxAbsRef = std::max(maxAbsRef, std::fabs(r));
  }
  double maxRelErr = maxAbsRef > 0 ? maxAbsErr / maxAbsRef : maxAbsErr;
  bool pass = !nanMismatch && maxRelErr <= rtol;
  std::printf("%s%s: max_abs_err %.3g max_rel_err %.3g %s%s\n", prefix.c_str(),
              info.name.c_str(), maxAbsErr,
              maxRelErr, pass ? "PASS" : "FAIL", nanMismatch ? " (NaN/Inf mismatch)" : "");
  return pass;
}

/// Maps --expect specs to output indices: "file.npy" in order, "i=file.npy"
/// or "name=file.npy".
std::map<size_t, std::string> expectedFiles(const RunOptions &opts,
                                            const std::vector<TensorInfo> &outputs) {
  std::map<size_t, std::string> files;
  size_t next = 0;
  for (const std::string &spec : opts.expect) {
    size_t eq = spec.find('=');
    std::optional<size_t> index;
    if (eq != std::string::npos) {
      std::string key = spec.substr(0, eq);
      if (!key.empty() && std::all_of(key.begin(), key.end(), ::isdigit)) {
        if (key.size() > 9)
          userError("--expect '" + spec + "': the model has " +
                    std::to_string(outputs.size()) + " output(s)");
        index = std::stoul(key);
      }
      for (size_t i = 0; i < outputs.size() && !index; ++i)
        if (outputs[i].name == key)
          index = i;
    }
    std::string file = index ? spec.substr(eq + 1) : spec;
    if (!index)
      index = next++;
    if (*index >= outputs.size())
      userError("--expect '" + spec + "': the model has " + std::to_string(outputs.size()) +
                " output(s)");
    files[*index] = file;
  }
  return files;
}

/// One set of inputs bound for calls: the output buffers their sizes need
/// and, with --device cuda, device copies of both, copied in before and out
/// after every call (through the CUDA driver, opened on demand).
class Call {
public:
  Call(const RunOptions &opts, const ModelLibrary &lib, const std::vector<TensorInfo> &outputs,
       std::vector<NpyArray> &inputArrays)
      : lib(lib), cuda(opts.device == "cuda") {
    const ModelApi &api = lib.api();
    for (NpyArray &a : inputArrays)
      inputTensors.push_back({a.data.data(), static_cast<int32_t>(a.dtype), TCC_DEVICE_CPU,
                              static_cast<int32_t>(a.shape.size()), a.shape.data()});
    results.resize(outputs.size());
    std::vector<int64_t *> sizePtrs;
    for (size_t i = 0; i < outputs.size(); ++i) {
      results[i].dtype = outputs[i].dtype;
      results[i].sizes.resize(outputs[i].sizeExprs.size());
      sizePtrs.push_back(results[i].sizes.data());
    }
    check(lib, api.outputSizes(lib.model(), inputTensors.data(),
                               static_cast<int32_t>(inputTensors.size()), sizePtrs.data(),
                               static_cast<int32_t>(sizePtrs.size())));
    for (Output &out : results) {
      out.data.resize(static_cast<size_t>(out.numElements()) * dtypeSize(out.dtype));
      outputTensors.push_back({out.data.data(), static_cast<int32_t>(out.dtype), TCC_DEVICE_CPU,
                               static_cast<int32_t>(out.sizes.size()), out.sizes.data()});
    }
    runInputs = inputTensors;
    runOutputs = outputTensors;
    if (!cuda)
      return;
    try {
      cuda::ensureContext();
      for (std::vector<tcc_tensor> *ts : {&runInputs, &runOutputs})
        for (tcc_tensor &t : *ts) {
          deviceBuffers.emplace_back(bytesOf(t));
          t.data = deviceBuffers.back().data();
          t.device = TCC_DEVICE_CUDA;
        }
    } catch (const std::exception &e) {
      throw RunFailure{kExitUserError, e.what()};
    }
  }

  void call() {
    const ModelApi &api = lib.api();
    const cuda::Driver *d = cuda ? &cuda::Driver::get() : nullptr;
    if (d)
      for (size_t i = 0; i < runInputs.size(); ++i)
        d->check(d->cuMemcpyHtoD(reinterpret_cast<uintptr_t>(runInputs[i].data),
                                 inputTensors[i].data, bytesOf(inputTensors[i])),
                 "copying input " + std::to_string(i) + " to the device");
    check(lib, api.run(lib.model(), runInputs.data(), static_cast<int32_t>(runInputs.size()),
                       runOutputs.data(), static_cast<int32_t>(runOutputs.size())));
    if (d)
      for (size_t i = 0; i < runOutputs.size(); ++i)
        d->check(d->cuMemcpyDtoH(outputTensors[i].data,
                                 reinterpret_cast<uintptr_t>(runOutputs[i].data),
                                 bytesOf(outputTensors[i])),
                 "copying output " + std::to_string(i) + " from the device");
  }

  std::vector<Output> results;

private:
  static size_t bytesOf(const tcc_tensor &t) {
    size_t n = dtypeSize(static_cast<DType>(t.dtype));
    for (int32_t d = 0; d < t.rank; ++d)
      n *= static_cast<size_t>(t.sizes[d]);
    return n;
  }
  const ModelLibrary &lib;
  bool cuda;
  std::vector<tcc_tensor> inputTensors, outputTensors, runInputs, runOutputs;
  std::vector<cuda::DeviceBuffer> deviceBuffers;
};

/// --state-out DIR: each state as DIR/<name>.npy ('/' in a name becomes '_').
void writeStates(const RunOptions &opts, const ModelLibrary &lib) {
  const ModelApi &api = lib.api();
  if (!api.numStates || !api.stateInfo || !api.readState)
    userError(opts.model + ": its runtime predates state (recompile it)");
  std::error_code ec;
  std::filesystem::create_directories(opts.stateOut, ec);
  if (ec)
    userError(opts.stateOut + ": " + ec.message());
  for (int32_t i = 0, n = api.numStates(lib.model()); i < n; ++i) {
    tcc_tensor_info info;
    check(lib, api.stateInfo(lib.model(), i, &info));
    Output out;
    out.dtype = static_cast<DType>(info.dtype);
    out.sizes.assign(info.sizes, info.sizes + info.rank);
    out.data.resize(static_cast<size_t>(info.bytes));
    check(lib, api.readState(lib.model(), i, out.data.data(), TCC_DEVICE_CPU, out.data.size()));
    std::string name = info.name;
    std::replace(name.begin(), name.end(), '/', '_');
    writeOutput(opts.stateOut, name, out);
  }
}

/// --steps DIR: one call per subdirectory of DIR (in name order) on this
/// instance, each compared with its expected_<i>.npy.
int runSteps(const RunOptions &opts, const ModelLibrary &lib,
             const std::vector<TensorInfo> &inputs, const std::vector<TensorInfo> &outputs) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(opts.steps, ec))
    userError("--steps " + opts.steps + ": not a directory");
  std::vector<fs::path> steps;
  for (const fs::directory_entry &e : fs::directory_iterator(opts.steps, ec))
    if (e.is_directory())
      steps.push_back(e.path());
  if (ec)
    userError("--steps " + opts.steps + ": " + ec.message());
  if (steps.empty())
    userError("--steps " + opts.steps + ": no step directories in it");
  std::sort(steps.begin(), steps.end());
  size_t failed = 0;
  for (const fs::path &step : steps) {
    RunOptions one = opts;
    one.inputs.clear();
    for (size_t i = 0; i < inputs.size(); ++i)
      one.inputs.push_back((step / ("input_" + std::to_string(i) + ".npy")).string());
    std::vector<NpyArray> arrays = readInputs(one, inputs);
    Call call(opts, lib, outputs, arrays);
    call.call();
    std::string prefix = "step " + step.filename().string() + " ";
    bool pass = true;
    for (size_t i = 0; i < outputs.size(); ++i) {
      fs::path expected = step / ("expected_" + std::to_string(i) + ".npy");
      if (!fs::exists(expected))
        userError(expected.string() + ": missing (each step holds expected_<i>.npy for every "
                                      "output)");
      pass &= compareOutput(outputs[i], call.results[i], expected.string(), opts.rtol, prefix);
    }
    failed += pass ? 0 : 1;
    if (!opts.outDir.empty()) {
      std::string dir = (fs::path(opts.outDir) / step.filename()).string();
      fs::create_directories(dir, ec);
      if (ec)
        userError(dir + ": " + ec.message());
      for (size_t i = 0; i < call.results.size(); ++i)
        writeOutput(dir, "output_" + std::to_string(i), call.results[i]);
    }
  }
  std::printf("steps: %zu run, %zu failed\n", steps.size(), failed);
  if (!opts.stateOut.empty())
    writeStates(opts, lib);
  return failed ? kExitUserError : kExitOk;
}

int run(const RunOptions &opts) {
  ModelLibrary lib(opts.model);
  const ModelApi &api = lib.api();
  std::vector<TensorInfo> inputs = queryInfo(lib, api.numInputs(lib.model()), api.inputInfo);
  std::vector<TensorInfo> outputs = queryInfo(lib, api.numOutputs(lib.model()), api.outputInfo);
  std::vector<TensorInfo> weights = queryInfo(lib, api.numWeights(lib.model()), api.weightInfo);

  std::vector<NpyArray> weightArrays;
  bindWeights(opts, lib, weights, weightArrays);

  if (!opts.steps.empty()) {
    if (!opts.inputs.empty() || !opts.expect.empty() || opts.bench > 0 || opts.profile)
      userError("--steps takes each call's inputs and expected outputs from its directories: "
                "it cannot be combined with --input, --expect, --bench or --profile");
    return runSteps(opts, lib, inputs, outputs);
  }

  std::vector<NpyArray> inputArrays = readInputs(opts, inputs);
  Call call(opts, lib, outputs, inputArrays);
  std::vector<Output> &results = call.results;
  auto runOnce = [&] { call.call(); };
  runOnce();
  printSpecialization(lib);
  // --profile: the runs after this first one (a warm-up) are timed per
  // kernel: --bench N of them, else 10.
  if (opts.profile) {
    if (!api.setProfiling || !api.profile)
      userError(opts.model + ": its runtime predates profiling (recompile it with tcc compile "
                             "--profile)");
    check(lib, api.setProfiling(lib.model(), 1));
  }

  if (opts.printOutputs)
    for (size_t i = 0; i < results.size(); ++i)
      printOutput(outputs[i], results[i]);
  if (!opts.outDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(opts.outDir, ec);
    if (ec)
      userError(opts.outDir + ": " + ec.message());
    for (size_t i = 0; i < results.size(); ++i)
      writeOutput(opts.outDir, "output_" + std::to_string(i), results[i]);
  }

  bool allPass = true;
  for (const auto &[index, file] : expectedFiles(opts, outputs))
    allPass &= compareOutput(outputs[index], results[index], file, opts.rtol);

  if (opts.bench > 0) {
    std::vector<double> micros;
    for (int i = 0; i < opts.bench; ++i) {
      auto start = std::chrono::steady_clock::now();
      runOnce();
      micros.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count());
    }
    std::sort(micros.begin(), micros.end());
    std::printf("bench: %d runs, median %.1f us, min %.1f us%s\n", opts.bench,
                micros[micros.size() / 2], micros.front(),
                opts.profile ? " (profiling: every kernel marked)" : "");
  }
  if (opts.profile) {
    if (opts.bench <= 0)
      for (int i = 0; i < 10; ++i)
        runOnce();
    reportProfile(opts, lib);
  }
  if (!opts.stateOut.empty())
    writeStates(opts, lib);
  return allPass ? kExitOk : kExitUserError;
}

} // namespace

int runRunCommand(const RunOptions &opts) {
  try {
    return run(opts);
  } catch (const RunFailure &f) {
    std::fprintf(stderr, "tcc run: error: %s\n", f.message.c_str());
    return f.code;
  } catch (const ModelLibraryError &e) {
    std::fprintf(stderr, "tcc run: error: %s\n", e.what());
    return kExitUserError;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tcc run: internal error: %s\n", e.what());
    return kExitInternal;
  }
}

} // namespace tcc
