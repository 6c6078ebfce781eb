//===- Model.cpp - one instance of a compiled model -----------------------===//
//
// The packed calling convention (docs/ARTIFACT.md): for each entry argument,
// an MLIR strided memref descriptor flattened into 64-bit words,
//   allocated_ptr, aligned_ptr, offset = 0, sizes[rank], strides[rank]
// with row-major strides in elements.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/Model.h"

#include "tcc/Runtime/CudaDriver.h"
#include "tcc/Runtime/CudaGraphCache.h"
#include "tcc/Runtime/MlirGpuRuntime.h"
#include "tcc/Runtime/OneDnnConv.h"
#include "tcc/Runtime/Profile.h"
#include "tcc/Runtime/RuntimeError.h"
#include "tcc/Support/EntrySymbols.h"
#include "tcc/Support/Sha256.h"
#include "tcc/Support/WeightsFile.h"

#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <fstream>

namespace tcc {

namespace {

std::string shapeText(const int64_t *sizes, size_t rank) {
  std::string text = "[";
  for (size_t i = 0; i < rank; ++i)
    text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

/// Appends one memref descriptor for a dense row-major tensor.
/// `rank` is the entry's; a complex tensor's `sizes` hold one fewer, its
/// (re, im) pairs the last dim of 2 (`complexPairs`).
void appendDescriptor(std::vector<int64_t> &packed, const void *data,
                      const int64_t *sizes, size_t rank, bool complexPairs = false) {
  auto ptr = static_cast<int64_t>(reinterpret_cast<intptr_t>(data));
  packed.push_back(ptr); // allocated
  packed.push_back(ptr); // aligned
  packed.push_back(0);   // offset
  size_t sizesAt = packed.size();
  packed.insert(packed.end(), sizes, sizes + (complexPairs ? rank - 1 : rank));
  if (complexPairs)
    packed.push_back(2);
  size_t stridesAt = packed.size();
  packed.resize(stridesAt + rank);
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    packed[stridesAt + d] = stride;
    stride *= packed[sizesAt + d];
  }
}

int64_t elementCount(const int64_t *sizes, size_t rank) {
  int64_t n = 1;
  for (size_t d = 0; d < rank; ++d)
    n *= sizes[d];
  return n;
}

} // namespace

/// What a CUDA run needs on the device: the context the instance was first
/// run in, its arena, a copy of every weight, the kernels it resolved there
/// and the graphs it captured. Members are destroyed in reverse order: the
/// graphs go before the memory they point into.
struct cuda::DeviceState {
  explicit DeviceState(const cuda::Driver &driver) : graphs(driver) {}
  cuda::CUcontext context = nullptr;
  cuda::DeviceBuffer arena;
  cuda::DeviceBuffer weights;
  std::vector<const void *> weightPointers;
  cuda::DeviceBuffer state; ///< the instance's state on the device (stateHost_'s layout)
  KernelTable kernels;
  cuda::CudaGraphCache graphs;
};

void Model::FreeDeleter::operator()(void *p) const { std::free(p); }

Model::AlignedBuffer Model::allocateAligned(size_t bytes) {
  // aligned_alloc wants a multiple of the alignment, and a real pointer even
  // for an empty arena keeps descriptors uniform.
  size_t rounded = (bytes + kRuntimeAlignment - 1) / kRuntimeAlignment * kRuntimeAlignment;
  if (rounded == 0)
    rounded = kRuntimeAlignment;
  void *p = std::aligned_alloc(kRuntimeAlignment, rounded);
  if (!p)
    throw RuntimeError(TCC_ERROR_OUT_OF_MEMORY,
                       "cannot allocate " + std::to_string(bytes) + " bytes");
  return AlignedBuffer(static_cast<uint8_t *>(p));
}

Model::Model(std::string manifestJson, const uint8_t *weights, size_t weightsSize,
             ForwardFn forward, CudaForwardFn cudaForward)
    : Model(std::move(manifestJson), weights, weightsSize, {ModelEntry{forward, cudaForward}}) {}

Model::Model(std::string manifestJson, const uint8_t *weights, size_t weightsSize,
             std::vector<ModelEntry> entries)
    : manifestJson_(std::move(manifestJson)),
      manifest_(GuardManifest::parse(manifestJson_)), entries_(std::move(entries)) {
  if (entries_.empty() || (!entries_[0].forward && !entries_[0].cudaForward))
    throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT, "the model has no forward function");
  if (entries_.size() != manifest_.specializations.size())
    throw RuntimeError(TCC_ERROR_INVALID_MANIFEST,
                       "invalid guard manifest: it lists " +
                           std::to_string(manifest_.specializations.size()) +
                           " specialization(s), the model object has entries for " +
                           std::to_string(entries_.size()));
  // Every variant has the paths the generic one has: the inputs' device
  // picks the path before the sizes pick the variant.
  for (size_t i = 1; i < entries_.size(); ++i)
    if (!entries_[i].forward != !entries_[0].forward ||
        !entries_[i].cudaForward != !entries_[0].cudaForward)
      throw RuntimeError(TCC_ERROR_INVALID_MANIFEST,
                         "specialization '" + manifest_.specializations[i].name +
                             "' lacks a path the generic variant has");
  if (const char *env = std::getenv("TCC_SPECIALIZATION"))
    specializations_ = std::strcmp(env, kGenericSpecializationName) != 0;
  cpuIsaSupported_ = GuardManifest::hostSupportsCpuIsa(manifest_.cpuIsa);
  weights_.assign(manifest_.weights.size(), nullptr);
  size_t derivedBytes = 0;
  std::vector<size_t> derivedOffsets;
  for (size_t i = 0; i < manifest_.weights.size(); ++i) {
    const WeightSpec &w = manifest_.weights[i];
    if (w.isDerived()) {
      derivedOffsets.push_back(derivedBytes);
      derivedBytes += (static_cast<size_t>(w.bytes) + kRuntimeAlignment - 1) /
                      kRuntimeAlignment * kRuntimeAlignment;
      continue;
    }
    if (!w.embedded)
      continue;
    if (w.offset > weightsSize || w.bytes > weightsSize - w.offset)
      throw RuntimeError(TCC_ERROR_INVALID_MANIFEST,
                         "invalid guard manifest: embedded weight '" + w.name +
                             "' lies outside the " + std::to_string(weightsSize) +
                             "-byte weights image");
    weights_[i] = weights + w.offset;
  }
  if (!derivedOffsets.empty()) {
    derivedWeights_ = allocateAligned(derivedBytes);
    size_t next = 0;
    for (size_t i = 0; i < manifest_.weights.size(); ++i)
      if (manifest_.weights[i].isDerived()) {
        uint8_t *at = derivedWeights_.get() + derivedOffsets[next++];
        derivedSlots_.push_back({i, at});
        weights_[i] = at;
      }
  }
  // State: one host buffer for every state, each slot 64-byte aligned; the
  // initial values beside it, in the same layout.
  for (const WeightSpec &st : manifest_.states) {
    stateOffsets_.push_back(stateBytes_);
    stateBytes_ += (static_cast<size_t>(st.bytes) + kRuntimeAlignment - 1) / kRuntimeAlignment *
                   kRuntimeAlignment;
  }
  stateBindings_.resize(manifest_.states.size());
  if (!manifest_.states.empty()) {
    stateHost_ = allocateAligned(stateBytes_);
    stateInitial_ = allocateAligned(stateBytes_);
    setInitialState(weights, weightsSize, /*all=*/false);
  }
  // One arena at the largest variant's size, allocated once: a call may take
  // any variant, and the generic one (planned at the symbols' upper bounds)
  // is normally the largest anyway, so per-variant arenas would only add.
  arena_ = allocateAligned(arenaBytes());
  cudaGraphs_ = manifest_.cudaGraphs;
  if (const char *env = std::getenv("TCC_CUDA_GRAPHS"))
    if (std::strcmp(env, "0") == 0 || std::strcmp(env, "off") == 0)
      cudaGraphs_ = false;
  size_t words = 1; // the variant's index after the entry's words
  for (const EntryArg &a : manifest_.entryArgs)
    words += 3 + 2 * static_cast<size_t>(a.rank);
  packed_.reserve(words);
}

void Model::setSpecializations(bool enabled) {
  std::lock_guard<std::mutex> lock(mutex_);
  specializations_ = enabled;
}

Model::~Model() {
  if (profile_)
    profile_->destroyEvents();
}

//===----------------------------------------------------------------------===//
// Profiling (tcc compile --profile; Profile.h)
//===----------------------------------------------------------------------===//

void Model::setProfiling(bool enabled) {
  if (enabled && !manifest_.profile)
    throw RuntimeError(TCC_ERROR_UNSUPPORTED,
                       "model '" + manifest_.model +
                           "' was not compiled for profiling: its kernels carry no marks "
                           "(compile it with tcc compile --profile)");
  std::lock_guard<std::mutex> lock(mutex_);
  if (!profile_)
    profile_ = std::make_unique<profile::Accumulator>();
  if (enabled == profile_->enabled)
    return;
  if (enabled) {
    profile_->reset(manifest_.kernels.size());
    profile_->cudaGraphsBefore = cudaGraphs_;
  }
  profile_->enabled = enabled;
  // A replayed graph would not call the marks: CUDA runs launch directly
  // while profiling, and go back to what they did after.
  cudaGraphs_ = enabled ? false : profile_->cudaGraphsBefore;
  if (device_)
    device_->graphs.setEnabled(cudaGraphs_);
}

bool Model::profiling() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return profile_ && profile_->enabled;
}

uint64_t Model::profileRuns() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return profile_ ? profile_->runs : 0;
}

void Model::profileTimes(std::vector<double> &totalMs, std::vector<int64_t> &calls) const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t n = manifest_.kernels.size();
  totalMs.assign(n, 0.0);
  calls.assign(n, 0);
  if (profile_ && profile_->totalMs.size() == n) {
    totalMs = profile_->totalMs;
    calls = profile_->calls;
  }
}

void Model::resetProfile() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (profile_)
    profile_->reset(manifest_.kernels.size());
}

void Model::setCudaGraphs(bool enabled) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (profile_ && profile_->enabled) {
    profile_->cudaGraphsBefore = enabled; // taken up when profiling ends
    return;
  }
  cudaGraphs_ = enabled;
  if (device_)
    device_->graphs.setEnabled(enabled);
}

cuda::GraphCacheStats Model::cudaGraphStats() {
  std::lock_guard<std::mutex> lock(mutex_);
  return device_ ? device_->graphs.stats() : cuda::GraphCacheStats{};
}

//===----------------------------------------------------------------------===//
// Weights
//===----------------------------------------------------------------------===//

void Model::bindWeight(std::string_view name, const void *data, size_t bytes) {
  for (size_t i = 0; i < manifest_.weights.size(); ++i) {
    const WeightSpec &w = manifest_.weights[i];
    if (w.name != name)
      continue;
    if (w.isDerived()) {
      std::string sources;
      for (size_t k : w.derived->sources())
        sources += (sources.empty() ? "" : ", ") + manifest_.weights[k].name;
      throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                         "weight '" + w.name + "' is derived from other weights; bind its sources" +
                             (sources.empty() ? std::string() : " (" + sources + ")"));
    }
    if (!data && w.bytes)
      throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                         "weight '" + w.name + "': data is NULL");
    if (bytes != w.bytes)
      throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                         "weight '" + w.name + "': expected " + std::to_string(w.bytes) +
                             " bytes (" + dtypeName(w.dtype) + " " + w.shapeText() +
                             "), got " + std::to_string(bytes));
    std::lock_guard<std::mutex> lock(mutex_);
    weights_[i] = data;
    deviceWeightsStale_ = true;
    derivedWeightsStale_ = true;
    cpu::boundWeightsChanged(); // filters kept in oneDNN's layout are stale
    return;
  }
  throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                     "model '" + manifest_.model + "' has no weight named '" +
                         std::string(name) + "'");
}

void Model::loadWeightsFile(const std::string &path) {
  // A regular file only (a FIFO would block forever), checked against its
  // header and the manifest before a byte of the image is used.
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    throw RuntimeError(TCC_ERROR_IO, path + ": cannot open weights file");
  if (!S_ISREG(st.st_mode))
    throw RuntimeError(TCC_ERROR_IO, path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw RuntimeError(TCC_ERROR_IO, path + ": cannot open weights file");
  auto size = static_cast<uint64_t>(st.st_size);
  unsigned char headerBytes[weightsfile::kHeaderBytes];
  if (size < weightsfile::kHeaderBytes ||
      !in.read(reinterpret_cast<char *>(headerBytes), sizeof headerBytes))
    throw RuntimeError(TCC_ERROR_IO, path + ": not a tcc weights file (" + std::to_string(size) +
                                         " bytes, shorter than its header)");
  weightsfile::Header header;
  if (std::string why = weightsfile::decode(headerBytes, header); !why.empty())
    throw RuntimeError(TCC_ERROR_IO, path + ": " + why);
  if (size - weightsfile::kHeaderBytes != header.imageBytes)
    throw RuntimeError(TCC_ERROR_IO,
                       path + ": " + std::to_string(size - weightsfile::kHeaderBytes) +
                           " bytes follow its header, which says " +
                           std::to_string(header.imageBytes) + " (damaged, or bytes appended)");
  if (!manifest_.weightsImageSha256.empty() &&
      (header.sha256 != manifest_.weightsImageSha256 ||
       header.imageBytes != manifest_.weightsImageBytes))
    throw RuntimeError(TCC_ERROR_IO,
                       path + ": the weights of another model or compile (image " +
                           header.sha256.substr(0, 16) + "..., " +
                           std::to_string(header.imageBytes) + " bytes; model '" +
                           manifest_.model + "' was compiled with " +
                           manifest_.weightsImageSha256.substr(0, 16) + "..., " +
                           std::to_string(manifest_.weightsImageBytes) + " bytes)");
  uint64_t needed = 0;
  for (const WeightSpec &w : manifest_.weights)
    if (!w.isDerived())
      needed = std::max(needed, w.offset + w.bytes);
  for (const WeightSpec &st : manifest_.states)
    needed = std::max(needed, st.offset + st.bytes);
  if (header.imageBytes < needed)
    throw RuntimeError(TCC_ERROR_IO, path + ": weights file has " +
                                         std::to_string(header.imageBytes) +
                                         " bytes of weights, the manifest needs " +
                                         std::to_string(needed));
  needed = header.imageBytes;
  AlignedBuffer buffer = allocateAligned(static_cast<size_t>(needed));
  // Read once, hashed as it comes, and checked against the header.
  Sha256 hash;
  constexpr uint64_t kChunk = 1 << 20;
  for (uint64_t at = 0; at < needed; at += kChunk) {
    auto n = static_cast<std::streamsize>(std::min(kChunk, needed - at));
    char *into = reinterpret_cast<char *>(buffer.get()) + at;
    if (!in.read(into, n))
      throw RuntimeError(TCC_ERROR_IO, path + ": read error");
    hash.update(into, static_cast<size_t>(n));
  }
  if (Sha256::toHex(hash.finish()) != header.sha256)
    throw RuntimeError(TCC_ERROR_IO, path + ": damaged: its weights do not match the hash in "
                                            "its header");
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < manifest_.weights.size(); ++i)
    if (!manifest_.weights[i].isDerived())
      weights_[i] = buffer.get() + manifest_.weights[i].offset;
  // The file holds the states' initial values too: the state restarts there.
  if (!manifest_.states.empty())
    setInitialState(buffer.get(), static_cast<size_t>(needed), /*all=*/true);
  loadedWeights_ = std::move(buffer);
  deviceWeightsStale_ = true;
  derivedWeightsStale_ = true;
  cpu::boundWeightsChanged();
}

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//

void Model::setInitialState(const uint8_t *image, size_t imageSize, bool all) {
  for (size_t i = 0; i < manifest_.states.size(); ++i) {
    const WeightSpec &st = manifest_.states[i];
    uint8_t *initial = stateInitial_.get() + stateOffsets_[i];
    if (!(all || st.embedded) || !image) {
      std::memset(initial, 0, static_cast<size_t>(st.bytes));
      continue;
    }
    if (st.offset > imageSize || st.bytes > imageSize - st.offset)
      throw RuntimeError(TCC_ERROR_INVALID_MANIFEST,
                         "invalid guard manifest: state '" + st.name + "' lies outside the " +
                             std::to_string(imageSize) + "-byte weights image");
    std::memcpy(initial, image + st.offset, static_cast<size_t>(st.bytes));
  }
  restoreInitialState();
}

void Model::restoreInitialState() {
  // A CUDA run still writing the device's copy finishes first; that copy
  // is then stale, and the next CUDA run takes the host's.
  if (device_ && stateOnDevice_)
    cuda::Driver::get().check(
        cuda::Driver::get().cuStreamSynchronize(static_cast<cuda::CUstream>(stateStream_)),
        "waiting for model '" + manifest_.model + "' before resetting its state");
  std::memcpy(stateHost_.get(), stateInitial_.get(), stateBytes_);
  stateOnDevice_ = false;
}

void Model::stateToHost() {
  if (!stateOnDevice_)
    return;
  const cuda::Driver &d = cuda::Driver::get();
  d.check(d.cuStreamSynchronize(static_cast<cuda::CUstream>(stateStream_)),
          "waiting for model '" + manifest_.model + "' to write its state");
  d.check(d.cuMemcpyDtoH(stateHost_.get(), device_->state.get(), stateBytes_),
          "copying the state of model '" + manifest_.model + "' from the device");
  stateOnDevice_ = false;
}

void Model::checkStateCopy(size_t index, int32_t device, size_t bytes) const {
  if (index >= manifest_.states.size())
    throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                       "model '" + manifest_.model + "' has " +
                           std::to_string(manifest_.states.size()) + " state(s), no #" +
                           std::to_string(index));
  const WeightSpec &st = manifest_.states[index];
  if (bytes != st.bytes)
    throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                       "state '" + st.name + "': expected " + std::to_string(st.bytes) +
                           " bytes (" + dtypeName(st.dtype) + " " + st.shapeText() + "), got " +
                           std::to_string(bytes));
  if (device != TCC_DEVICE_CPU && device != TCC_DEVICE_CUDA)
    throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT, "unknown device code " + std::to_string(device));
}

namespace {
/// Copies `bytes` between host and device memory, either way.
void copyBytes(void *dst, int32_t dstDevice, const void *src, int32_t srcDevice, size_t bytes,
               const std::string &what) {
  if (dstDevice == TCC_DEVICE_CPU && srcDevice == TCC_DEVICE_CPU) {
    std::memcpy(dst, src, bytes);
    return;
  }
  const cuda::Driver &d = cuda::Driver::get();
  cuda::ensureContext();
  auto dptr = [](const void *p) {
    return static_cast<cuda::CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
  };
  if (dstDevice == TCC_DEVICE_CPU)
    d.check(d.cuMemcpyDtoH(dst, dptr(src), bytes), "copying " + what + " from the device");
  else if (srcDevice == TCC_DEVICE_CPU)
    d.check(d.cuMemcpyHtoD(dptr(dst), src, bytes), "copying " + what + " to the device");
  else
    d.check(d.cuMemcpyDtoD(dptr(dst), dptr(src), bytes), "copying " + what);
}
} // namespace

void Model::waitForStateWriters() {
  if (device_)
    cuda::Driver::get().check(
        cuda::Driver::get().cuStreamSynchronize(static_cast<cuda::CUstream>(stateStream_)),
        "waiting for model '" + manifest_.model + "' to write its state");
}

std::pair<void *, int32_t> Model::stateLocation(size_t index) {
  const StateBinding &bound = stateBindings_[index];
  if (bound.data)
    return {bound.data, bound.device};
  if (stateOnDevice_)
    return {static_cast<uint8_t *>(device_->state.data()) + stateOffsets_[index],
            TCC_DEVICE_CUDA};
  return {hostState(index), TCC_DEVICE_CPU};
}

void Model::readState(size_t index, void *dst, int32_t device, size_t bytes) {
  checkStateCopy(index, device, bytes);
  if (!dst && bytes)
    throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT, "state '" + manifest_.states[index].name +
                                                       "': the destination is NULL");
  std::lock_guard<std::mutex> lock(mutex_);
  waitForStateWriters();
  auto [at, where] = stateLocation(index);
  copyBytes(dst, device, at, where, bytes, "state '" + manifest_.states[index].name + "'");
}

void Model::writeState(size_t index, const void *src, int32_t device, size_t bytes) {
  checkStateCopy(index, device, bytes);
  if (!src && bytes)
    throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                       "state '" + manifest_.states[index].name + "': the source is NULL");
  std::lock_guard<std::mutex> lock(mutex_);
  // Written where the latest values lie, so the others stay current.
  waitForStateWriters();
  auto [at, where] = stateLocation(index);
  copyBytes(at, where, src, device, bytes, "state '" + manifest_.states[index].name + "'");
}

void Model::bindState(size_t index, void *data, int32_t device, size_t bytes) {
  checkStateCopy(index, device, bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  waitForStateWriters();
  const WeightSpec &st = manifest_.states[index];
  StateBinding &binding = stateBindings_[index];
  if (!data) {
    // Back to the instance's own memory, with the value the binding held.
    if (binding.data) {
      StateBinding was = binding;
      binding = StateBinding{};
      auto [at, where] = stateLocation(index);
      copyBytes(at, where, was.data, was.device, static_cast<size_t>(st.bytes),
                "state '" + st.name + "'");
    }
    return;
  }
  binding = StateBinding{data, device};
  device_ ? device_->graphs.clear() : void(); // they point at the old state
}

void Model::resetState() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (manifest_.states.empty())
    return;
  restoreInitialState();
  for (size_t i = 0; i < stateBindings_.size(); ++i)
    if (stateBindings_[i].data)
      copyBytes(stateBindings_[i].data, stateBindings_[i].device,
                stateInitial_.get() + stateOffsets_[i], TCC_DEVICE_CPU,
                static_cast<size_t>(manifest_.states[i].bytes),
                "state '" + manifest_.states[i].name + "'");
}

void Model::computeDerivedWeights() {
  for (const auto &[index, out] : derivedSlots_)
    manifest_.weights[index].derived->evaluate(weights_.data(), out);
  derivedWeightsStale_ = false;
  deviceWeightsStale_ = true; // the device holds the old values
  cpu::boundWeightsChanged();
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

std::vector<std::vector<int64_t>> Model::outputSizes(const tcc_tensor *inputs,
                                                     size_t numInputs) const {
  return manifest_.outputSizes(manifest_.bindInputs(inputs, numInputs));
}

void Model::checkOutputs(const tcc_tensor *outputs, size_t numOutputs,
                         const std::vector<std::vector<int64_t>> &expected,
                         int32_t device) const {
  if (numOutputs != manifest_.outputs.size())
    throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                       "expected " + std::to_string(manifest_.outputs.size()) +
                           " output(s), got " + std::to_string(numOutputs));
  if (numOutputs && !outputs)
    throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT, "outputs is NULL");
  for (size_t i = 0; i < numOutputs; ++i) {
    const TensorSpec &spec = manifest_.outputs[i];
    const tcc_tensor &t = outputs[i];
    auto fail = [&](const std::string &what) {
      throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                         "output '" + spec.name + "' (#" + std::to_string(i) + "): " + what);
    };
    if (t.dtype != static_cast<int32_t>(spec.dtype))
      fail(std::string("expected dtype ") + dtypeName(spec.dtype) + ", got " +
           tcc_dtype_name(t.dtype));
    if (t.device != device)
      fail(device == TCC_DEVICE_CUDA ? "expected device cuda, as the inputs"
                                     : "expected device cpu, as the inputs");
    const std::vector<int64_t> &sizes = expected[i];
    if (t.rank != static_cast<int32_t>(sizes.size()) || (t.rank && !t.sizes) ||
        !std::equal(sizes.begin(), sizes.end(), t.sizes))
      fail("expected sizes " + shapeText(sizes.data(), sizes.size()) + ", got " +
           (t.sizes || !t.rank ? shapeText(t.sizes, t.rank < 0 ? 0 : t.rank) : "NULL"));
    if (!t.data && elementCount(sizes.data(), sizes.size()) != 0)
      fail("data is NULL");
  }
}

void Model::packArguments(const tcc_tensor *inputs, const tcc_tensor *outputs, size_t variant,
                          const void *const *weights, uint8_t *state, const void *arena) {
  packed_.clear();
  for (const EntryArg &a : manifest_.entryArgs) {
    switch (a.role) {
    case EntryArgRole::Input: {
      const tcc_tensor &t = inputs[a.index];
      appendDescriptor(packed_, t.data, t.sizes, a.rank,
                       isComplex(manifest_.inputs[a.index].dtype));
      break;
    }
    case EntryArgRole::Output: {
      const tcc_tensor &t = outputs[a.index];
      appendDescriptor(packed_, t.data, t.sizes, a.rank,
                       isComplex(manifest_.outputs[a.index].dtype));
      break;
    }
    case EntryArgRole::Weight: {
      appendDescriptor(packed_, weights[a.index], manifest_.weightSizes[a.index].data(),
                       a.rank);
      break;
    }
    case EntryArgRole::State: {
      const StateBinding &bound = stateBindings_[a.index];
      appendDescriptor(packed_, bound.data ? bound.data : state + stateOffsets_[a.index],
                       manifest_.stateSizes[a.index].data(), a.rank);
      break;
    }
    case EntryArgRole::Arena: {
      int64_t bytes = manifest_.specializations[variant].arenaBytes;
      appendDescriptor(packed_, arena, &bytes, 1);
      break;
    }
    }
  }
  // Not read by the entry: it makes the words the CUDA graph cache keys on
  // differ between variants that would otherwise pack the same words.
  packed_.push_back(static_cast<int64_t>(variant));
}

void Model::run(const tcc_tensor *inputs, size_t numInputs, const tcc_tensor *outputs,
                size_t numOutputs) {
  runOnStream(inputs, numInputs, outputs, numOutputs, /*stream=*/nullptr,
              /*synchronize=*/true);
}

void Model::runOnStream(const tcc_tensor *inputs, size_t numInputs, const tcc_tensor *outputs,
                        size_t numOutputs, void *stream, bool synchronize) {
  SymbolBindings symbols = manifest_.bindInputs(inputs, numInputs);
  // The inputs pick the path (the guards checked each against the manifest);
  // a model without inputs runs where its outputs are.
  int32_t device = numInputs ? inputs[0].device
                   : numOutputs && outputs ? outputs[0].device
                                           : static_cast<int32_t>(TCC_DEVICE_CPU);
  for (size_t i = 0; i < numInputs; ++i) {
    const tcc_tensor &t = inputs[i];
    if (!t.data && elementCount(t.sizes, t.rank) != 0)
      throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                         "input '" + manifest_.inputs[i].name + "' (#" + std::to_string(i) +
                             "): data is NULL");
    if (t.device != device)
      throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                         "input '" + manifest_.inputs[i].name + "' (#" + std::to_string(i) +
                             "): all inputs must be on one device");
  }
  if (device == TCC_DEVICE_CUDA && !entries_[0].cudaForward)
    throw RuntimeError(TCC_ERROR_UNSUPPORTED,
                       "model '" + manifest_.model +
                           "' has no CUDA path (compile it with --target cuda)");
  if (device == TCC_DEVICE_CPU && !entries_[0].forward)
    throw RuntimeError(TCC_ERROR_UNSUPPORTED,
                       "model '" + manifest_.model +
                           "' has no CPU path (it was compiled with --target cuda)");
  if (device == TCC_DEVICE_CPU && !cpuIsaSupported_)
    throw RuntimeError(TCC_ERROR_UNSUPPORTED,
                       "model '" + manifest_.model + "': its CPU code was compiled for " +
                           manifest_.cpuIsa + ", which this processor does not support");
  if (device != TCC_DEVICE_CPU && device != TCC_DEVICE_CUDA)
    throw RuntimeError(TCC_ERROR_UNSUPPORTED,
                       "unknown device code " + std::to_string(device));
  if (manifest_.allStatic)
    checkOutputs(outputs, numOutputs, manifest_.staticOutputSizes, device);
  else
    checkOutputs(outputs, numOutputs, manifest_.outputSizes(symbols), device);

  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < stateBindings_.size(); ++i)
    if (stateBindings_[i].data && stateBindings_[i].device != device)
      throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                         "state '" + manifest_.states[i].name + "' is bound to " +
                             (stateBindings_[i].device == TCC_DEVICE_CUDA ? "device" : "host") +
                             " memory; a " + (device == TCC_DEVICE_CUDA ? "CUDA" : "CPU") +
                             " run needs it in " +
                             (device == TCC_DEVICE_CUDA ? "device" : "host") +
                             " memory (bind it there, or run on the other path)");
  size_t variant = specializations_ ? manifest_.selectSpecialization(symbols) : 0;
  lastSpecialization_.store(static_cast<int64_t>(variant), std::memory_order_relaxed);
  for (size_t i = 0; i < weights_.size(); ++i)
    if (!weights_[i] && manifest_.weights[i].bytes)
      throw RuntimeError(TCC_ERROR_MISSING_WEIGHT,
                         "weight '" + manifest_.weights[i].name + "' (#" + std::to_string(i) +
                             ") is not embedded and was never bound "
                             "(tcc_model_bind_weight or tcc_model_load_weights)");
  // Derived weights follow their sources: computed on the host before the
  // CPU path reads them or the CUDA path copies them to the device.
  if (derivedWeightsStale_ && !derivedSlots_.empty())
    computeDerivedWeights();
  if (device == TCC_DEVICE_CUDA)
    return runCuda(inputs, outputs, variant, stream, synchronize);
  stateToHost();
  packArguments(inputs, outputs, variant, weights_.data(), stateHost_.get(), arena_.get());
  // A failed run-time check (RuntimeChecks.h) is the first error of the run.
  (void)takeKernelLaunchError();
  if (profile_ && profile_->enabled) {
    profile::Session session(manifest_.kernels.size() + 1);
    {
      profile::ScopedSession scope(&session);
      entries_[variant].forward(packed_.data());
    }
    profile_->addCpu(session);
  } else {
    entries_[variant].forward(packed_.data());
  }
  if (std::string error = takeKernelLaunchError(); !error.empty())
    throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT, "model '" + manifest_.model + "': " + error);
}

void Model::runCuda(const tcc_tensor *inputs, const tcc_tensor *outputs, size_t variant,
                    void *stream, bool synchronize) {
  const cuda::Driver &d = cuda::Driver::get();
  cuda::CUcontext current = cuda::ensureContext();
  if (!device_) {
    auto state = std::make_unique<cuda::DeviceState>(d);
    state->context = current;
    state->arena = cuda::DeviceBuffer(arenaBytes());
    state->graphs.setEnabled(cudaGraphs_);
    device_ = std::move(state);
  } else if (current != device_->context) {
    throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                       "model '" + manifest_.model +
                           "': this instance holds device memory of another CUDA context; "
                           "create one instance per context");
  }
  if (deviceWeightsStale_) {
    // One allocation, each weight at a 256-byte aligned offset. Host-only
    // weights (read by derived weights alone) stay on the host; their
    // argument is a null pointer the compiled code never reads.
    std::vector<size_t> offsets;
    size_t total = 0;
    for (const WeightSpec &w : manifest_.weights) {
      offsets.push_back(total);
      if (!w.hostOnly)
        total += (static_cast<size_t>(w.bytes) + 255) / 256 * 256;
    }
    cuda::DeviceBuffer buffer(total);
    device_->weightPointers.assign(weights_.size(), nullptr);
    for (size_t i = 0; i < weights_.size(); ++i) {
      if (manifest_.weights[i].hostOnly)
        continue;
      cuda::CUdeviceptr at = buffer.get() + offsets[i];
      if (manifest_.weights[i].bytes)
        d.check(d.cuMemcpyHtoD(at, weights_[i], static_cast<size_t>(manifest_.weights[i].bytes)),
                "copying weight '" + manifest_.weights[i].name + "' to the device");
      device_->weightPointers[i] = reinterpret_cast<const void *>(static_cast<uintptr_t>(at));
    }
    device_->weights = std::move(buffer);
    device_->graphs.clear(); // they point at the old weights
    cuda::deviceWeightsCopied(); // packs of weights kept by their pointers are stale
    deviceWeightsStale_ = false;
  }
  if (stateBytes_ && !stateOnDevice_) {
    // The device's copy of the state: allocated once (its address stays in
    // the captured graphs), refreshed from the host where that is newer.
    if (!device_->state.bytes())
      device_->state = cuda::DeviceBuffer(stateBytes_);
    d.check(d.cuMemcpyHtoD(device_->state.get(), stateHost_.get(), stateBytes_),
            "copying the state of model '" + manifest_.model + "' to the device");
  }
  packArguments(inputs, outputs, variant, device_->weightPointers.data(),
                static_cast<uint8_t *>(device_->state.data()), device_->arena.data());
  // The packed words hold every pointer and size the launches depend on:
  // they are the graph cache's key.
  ScopedKernelTable kernels(&device_->kernels);
  CudaForwardFn forward = entries_[variant].cudaForward;
  // Profiling: an event per mark on the call's stream (CUDA graphs are off
  // meanwhile, so `launch` runs the entry itself); read after the call.
  std::unique_ptr<profile::Session> session;
  if (profile_ && profile_->enabled) {
    if (!d.hasEvents())
      throw RuntimeError(TCC_ERROR_UNSUPPORTED,
                         "profiling model '" + manifest_.model +
                             "' on CUDA needs the driver's event functions (cuEventRecord)");
    profile_->createEvents(manifest_.kernels.size() + 1);
    session = std::make_unique<profile::Session>(manifest_.kernels.size() + 1);
    session->events = profile_->events.data();
  }
  auto launch = [this, forward, &session](cuda::CUstream s) {
    (void)takeKernelLaunchError();
    if (session) {
      session->stream = s;
      profile::ScopedSession scope(session.get());
      forward(packed_.data(), s);
    } else {
      forward(packed_.data(), s);
    }
    std::string error = takeKernelLaunchError();
    if (!error.empty())
      throw RuntimeError(TCC_ERROR_INTERNAL, error);
  };
  stateStream_ = stream; // the stream whose runs write the state, owned or bound
  if (stateBytes_)
    stateOnDevice_ = true; // from here the device holds the latest owned state
  device_->graphs.run(packed_.data(), packed_.size(), static_cast<cuda::CUstream>(stream),
                      launch);
  if (session) {
    d.check(d.cuStreamSynchronize(static_cast<cuda::CUstream>(stream)),
            "running model '" + manifest_.model + "' (cuStreamSynchronize, profiling)");
    profile_->addCuda(*session);
    return;
  }
  if (synchronize)
    d.check(d.cuStreamSynchronize(static_cast<cuda::CUstream>(stream)),
            "running model '" + manifest_.model + "' (cuStreamSynchronize)");
}

} // namespace tcc
