//===- Model.h - one instance of a compiled model -------------------------===//
//
// A Model owns its parsed manifest, a pointer per weight and one arena, and
// calls the compiled forward function with the packed memref descriptors of
// docs/ARTIFACT.md. The C ABI wraps it (tcc_model); tests construct it
// directly with a hand-written forward function.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_MODEL_H
#define TCC_RUNTIME_MODEL_H

#include "tcc/Runtime/GuardManifest.h"
#include "tcc/runtime.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tcc {

/// The compiled CPU entry point: one pointer to the packed descriptors.
using ForwardFn = void (*)(int64_t *packed);

/// The compiled CUDA entry point: the packed descriptors (device pointers)
/// and the stream its kernels are launched on.
using CudaForwardFn = void (*)(int64_t *packed, void *stream);

/// The entries of one compiled shape specialization; either may be null (a
/// model compiled for one target), not both.
struct ModelEntry {
  ForwardFn forward = nullptr;
  CudaForwardFn cudaForward = nullptr;
};

namespace profile {
struct Accumulator;
} // namespace profile

namespace cuda {
struct DeviceState;
struct GraphCacheStats;
} // namespace cuda

/// Alignment of the arena and of loaded weight files, in bytes.
constexpr size_t kRuntimeAlignment = 64;

class Model {
public:
  /// Parses `manifestJson`, points every embedded weight into `weights`
  /// (`weightsSize` bytes, not copied; it must outlive the model) and
  /// allocates the arena. Throws RuntimeError. Either entry may be null
  /// (a model compiled for one target), not both.
  Model(std::string manifestJson, const uint8_t *weights, size_t weightsSize,
        ForwardFn forward, CudaForwardFn cudaForward = nullptr);
  /// As above with one entry per manifest specialization, in its order
  /// (the generic one first): each call runs the one
  /// GuardManifest::selectSpecialization picks, unless TCC_SPECIALIZATION=generic
  /// (or setSpecializations(false)) keeps every call on the generic one.
  Model(std::string manifestJson, const uint8_t *weights, size_t weightsSize,
        std::vector<ModelEntry> entries);
  ~Model();
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  const GuardManifest &manifest() const { return manifest_; }
  const std::string &manifestJson() const { return manifestJson_; }

  /// Binds weight `name` to `data` (exactly `bytes` long; kept, not copied).
  /// A derived weight is refused: its sources are bound instead.
  void bindWeight(std::string_view name, const void *data, size_t bytes);

  /// Reads a weights file (the layout of the embedded image, see
  /// tcc_model_load_weights) into memory owned by the model and binds every
  /// weight into it.
  void loadWeightsFile(const std::string &path);

  /// Checks the inputs and evaluates the output sizes.
  std::vector<std::vector<int64_t>> outputSizes(const tcc_tensor *inputs,
                                                size_t numInputs) const;

  /// Checks inputs, outputs and weights, packs the descriptors and calls the
  /// forward function. Serialized per instance.
  /// Tensors on TCC_DEVICE_CUDA run the CUDA entry on the default stream and
  /// wait for it.
  void run(const tcc_tensor *inputs, size_t numInputs, const tcc_tensor *outputs,
           size_t numOutputs);

  /// As run(); CUDA tensors are enqueued on `stream` (a CUstream, null for
  /// the default stream) without waiting. CPU tensors run synchronously.
  void runOnStream(const tcc_tensor *inputs, size_t numInputs, const tcc_tensor *outputs,
                   size_t numOutputs, void *stream, bool synchronize = false);

  /// Whether CUDA runs replay captured graphs (CudaGraphCache). Starts as
  /// the manifest's "cuda_graphs", turned off by TCC_CUDA_GRAPHS=0 in the
  /// environment; turning it off frees the instance's graphs.
  void setCudaGraphs(bool enabled);
  bool cudaGraphs() const { return cudaGraphs_; }

  /// Whether calls may run static specializations (true unless
  /// TCC_SPECIALIZATION=generic); false runs every call on the generic one.
  void setSpecializations(bool enabled);
  bool specializations() const { return specializations_; }
  /// The index in the manifest's specializations of the variant the last
  /// run took; -1 before the first.
  int64_t lastSpecialization() const { return lastSpecialization_.load(std::memory_order_relaxed); }
  /// Per-kernel times (an artifact compiled with --profile; Profile.h).
  /// Turning profiling on refuses an artifact without the manifest's
  /// "profile", clears what was accumulated and turns CUDA graphs off (the
  /// marks must run on every call) until it is turned off again.
  void setProfiling(bool enabled);
  bool profiling() const;
  /// Runs profiled so far, and each kernel's total ms and calls
  /// (manifest().kernels.size() entries each).
  uint64_t profileRuns() const;
  void profileTimes(std::vector<double> &totalMs, std::vector<int64_t> &calls) const;
  void resetProfile();

  /// Counters of the instance's graph cache (zeros before the first CUDA run).
  cuda::GraphCacheStats cudaGraphStats();

  /// The arena the forward function receives: one for every specialization,
  /// as large as the largest needs.
  const uint8_t *arenaData() const { return arena_.get(); }
  size_t arenaBytes() const { return static_cast<size_t>(manifest_.maxArenaBytes()); }

  /// The pointer bound to weight `index` (null while unbound); for a derived
  /// weight, the model's own buffer (computed by the first run after a
  /// binding).
  const void *weightData(size_t index) const { return weights_[index]; }

  /// State (the manifest's "states"): the buffers the forward writes, which
  /// this instance keeps from one call to the next. Each starts at its
  /// initial value (the buffer's value in the export, zeros where the
  /// model was compiled without it) and lives where the last run left it:
  /// on the host after a CPU run, on the device after a CUDA run (read and
  /// written there in place by the kernels); a run on the other path moves
  /// it first.
  /// Copies state `index` (exactly its `bytes`) to `dst` on `device`
  /// (TCC_DEVICE_CPU or TCC_DEVICE_CUDA), waiting for the run that wrote it.
  void readState(size_t index, void *dst, int32_t device, size_t bytes);
  /// Replaces state `index` with `bytes` from `src` on `device`.
  void writeState(size_t index, const void *src, int32_t device, size_t bytes);
  /// Every state back to its initial value.
  void resetState();
  /// Keeps state `index` in the caller's memory (`data`, exactly its bytes,
  /// on `device`) instead of the instance's: runs on that device read and
  /// write it there in place (a PyTorch module's own buffer); runs on the
  /// other path are refused. NULL: back to the instance's memory, with the
  /// value the binding held.
  void bindState(size_t index, void *data, int32_t device, size_t bytes);

private:
  struct FreeDeleter {
    void operator()(void *p) const;
  };
  using AlignedBuffer = std::unique_ptr<uint8_t, FreeDeleter>;
  static AlignedBuffer allocateAligned(size_t bytes);

  void checkOutputs(const tcc_tensor *outputs, size_t numOutputs,
                    const std::vector<std::vector<int64_t>> &expected, int32_t device) const;
  void packArguments(const tcc_tensor *inputs, const tcc_tensor *outputs, size_t variant,
                     const void *const *weights, uint8_t *state, const void *arena);
  void runCuda(const tcc_tensor *inputs, const tcc_tensor *outputs, size_t variant,
               void *stream, bool synchronize);
  /// Recomputes every derived weight from the bound ones (caller holds mutex_).
  void computeDerivedWeights();
  /// Where state `index` lies in stateHost_ (and the device's copy).
  uint8_t *hostState(size_t index) { return stateHost_.get() + stateOffsets_[index]; }
  /// The state's latest values on the host: waits for the CUDA run that
  /// wrote them last and copies them back (caller holds mutex_).
  void stateToHost();
  /// Sets every state's initial values from `image` (the weights image or a
  /// loaded weights file; null: zeros where not embedded) and resets.
  void setInitialState(const uint8_t *image, size_t imageSize, bool all);
  /// Every state back to its initial value (caller holds mutex_).
  void restoreInitialState();
  void checkStateCopy(size_t index, int32_t device, size_t bytes) const;
  /// Waits for the CUDA runs that may be writing a state (caller holds mutex_).
  void waitForStateWriters();
  /// Where state `index`'s latest values are: a pointer and its device.
  std::pair<void *, int32_t> stateLocation(size_t index);
  struct StateBinding {
    void *data = nullptr;
    int32_t device = TCC_DEVICE_CPU;
  };
  std::vector<StateBinding> stateBindings_;

  std::string manifestJson_;
  GuardManifest manifest_;
  std::vector<ModelEntry> entries_;           ///< one per manifest specialization
  bool specializations_ = true;
  std::atomic<int64_t> lastSpecialization_{-1}; ///< read without the instance's lock
  std::unique_ptr<cuda::DeviceState> device_; ///< created by the first CUDA run
  bool deviceWeightsStale_ = true;            ///< host weights changed since upload
  bool cpuIsaSupported_ = true;               ///< this processor runs the CPU path's code
  bool derivedWeightsStale_ = true;           ///< a weight was bound since they were computed
  bool cudaGraphs_ = true;
  std::vector<const void *> weights_;
  AlignedBuffer arena_;
  AlignedBuffer loadedWeights_;
  AlignedBuffer derivedWeights_;              ///< every derived weight, 64-byte aligned
  /// Each derived weight's manifest index and place in derivedWeights_.
  std::vector<std::pair<size_t, uint8_t *>> derivedSlots_;
  AlignedBuffer stateHost_;                   ///< every state, 64-byte aligned slots
  AlignedBuffer stateInitial_;                ///< their initial values, same layout
  std::vector<size_t> stateOffsets_;
  size_t stateBytes_ = 0;
  bool stateOnDevice_ = false;                ///< the latest values are device_->state's
  void *stateStream_ = nullptr;               ///< the stream of the CUDA run that wrote them
  std::vector<int64_t> packed_;
  std::unique_ptr<profile::Accumulator> profile_; ///< set while or since profiling
  mutable std::mutex mutex_;
};

} // namespace tcc

/// The C ABI's handle: a Model plus the arrays tcc_tensor_info points into.
struct tcc_model {
  explicit tcc_model(std::unique_ptr<tcc::Model> model);

  struct TensorInfoStorage {
    std::vector<int64_t> sizes;
    std::vector<const char *> sizeExprs;
  };
  std::unique_ptr<tcc::Model> model;
  std::vector<TensorInfoStorage> inputInfo, outputInfo, weightInfo, stateInfo;
};

#endif // TCC_RUNTIME_MODEL_H
