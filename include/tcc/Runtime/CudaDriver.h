//===- CudaDriver.h - the CUDA driver API, opened with dlopen -------------===//
//
// The runtime never links libcuda: it opens `libcuda.so.1` on first use, so
// model.so and the tcc tool load (and run the CPU path) on a machine without
// a GPU. Every failure is a RuntimeError with the driver's own error name and
// text, never an abort.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_CUDADRIVER_H
#define TCC_RUNTIME_CUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace tcc::cuda {

// The driver API's handle types, without cuda.h.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUgraph = struct CUgraph_st *;
using CUgraphExec = struct CUgraphExec_st *;
using CUevent = struct CUevent_st *;

/// CUdevice_attribute values used here.
constexpr int kAttrMultiprocessorCount = 16;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;

/// CUfunction_attribute values used here.
constexpr int kFuncAttrMaxDynamicSharedSizeBytes = 8;

/// CUlaunchAttributeID values used here.
constexpr int kLaunchAttrProgrammaticStreamSerialization = 6;

/// CUlaunchAttribute (cuda.h's layout: the id, padding to 8 bytes, a
/// 64-byte value union of which the launches here use one int).
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    int programmaticStreamSerializationAllowed;
    alignas(8) char bytes[64];
  } value;
};
static_assert(sizeof(LaunchAttribute) == 72, "cuda.h's CUlaunchAttribute");

/// CUlaunchConfig (cuda.h's layout).
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream stream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};
static_assert(sizeof(LaunchConfig) == 56, "cuda.h's CUlaunchConfig");

/// CUstreamCaptureMode / CUstreamCaptureStatus values used here.
constexpr int kCaptureModeThreadLocal = 1;
constexpr int kCaptureStatusNone = 0;

/// The resolved entry points of libcuda. Obtain with Driver::get().
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxGetDevice)(CUdevice *);
  CUresult (*cuDeviceGetAttribute)(int *, int attribute, CUdevice);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void **, void **);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);

  // Stream capture and graphs (CUDA 12+). Optional: when the driver lacks
  // one, they are all null and models run with direct launches.
  CUresult (*cuStreamBeginCapture)(CUstream, int mode);
  CUresult (*cuStreamEndCapture)(CUstream, CUgraph *);
  CUresult (*cuStreamIsCapturing)(CUstream, int *status);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph, unsigned long long);
  CUresult (*cuGraphExecUpdate)(CUgraphExec, CUgraph, void *resultInfo);
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec);
  CUresult (*cuGraphDestroy)(CUgraph);
  /// Optional apart from the others (counting a graph's nodes is only
  /// reported, never needed): null when the driver lacks it.
  CUresult (*cuGraphGetNodes)(CUgraph, void **nodes, size_t *count);

  // Optional: without it, kernels are launched with the grid they ask for.
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int blockSize,
                                                          size_t dynamicSmem);
  // Optional (CUDA 12+): launches that may begin before the previous
  // kernel of their stream ends (KernelLaunch.h); without them every launch
  // waits for the previous one.
  CUresult (*cuLaunchKernelEx)(const LaunchConfig *, CUfunction, void **params, void **extra);
  CUresult (*cuFuncGetModule)(CUmodule *, CUfunction);
  CUresult (*cuModuleGetGlobal)(CUdeviceptr *, size_t *, CUmodule, const char *);

  /// Sets a CUfunction_attribute (the kernel library raises the dynamic
  /// shared-memory limit of kernels that need more than 48 KiB).
  CUresult (*cuFuncSetAttribute)(CUfunction, int attribute, int value);

  // Events (optional): cuDNN's algorithms are timed with them.
  CUresult (*cuEventCreate)(CUevent *, unsigned flags);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *ms, CUevent start, CUevent end);
  CUresult (*cuEventDestroy)(CUevent);

  /// True when every event entry point is present.
  bool hasEvents() const {
    return cuEventCreate && cuEventRecord && cuEventSynchronize && cuEventElapsedTime &&
           cuEventDestroy;
  }

  /// True when every stream-capture and graph entry point is present.
  bool hasGraphs() const {
    return cuStreamBeginCapture && cuStreamEndCapture && cuStreamIsCapturing &&
           cuGraphInstantiateWithFlags && cuGraphExecUpdate && cuGraphLaunch &&
           cuGraphExecDestroy && cuGraphDestroy;
  }

  /// The driver, loaded and initialized (cuInit) once per process. Throws
  /// RuntimeError(TCC_ERROR_UNSUPPORTED) when libcuda cannot be opened, lacks
  /// a symbol, or cuInit fails (no device, driver too old).
  static const Driver &get();

  /// Throws RuntimeError naming `what` (e.g. "cuMemAlloc(4096 bytes)") and
  /// the driver's error if `result` is not CUDA_SUCCESS.
  void check(CUresult result, const std::string &what) const;

  /// "CUDA_ERROR_OUT_OF_MEMORY: out of memory" for `result`.
  std::string errorText(CUresult result) const;
};

/// The context current on this thread; if there is none, device 0's primary
/// context is retained and made current (what the CUDA runtime and PyTorch
/// use, so pointers from either are valid here). Throws RuntimeError.
CUcontext ensureContext();

/// A count that grows whenever a model copies its weights to the device (a
/// new copy, perhaps at the address of a freed one): what the runtime derives
/// from device weights and keeps, keyed on their pointers (CudnnRecurrent.cpp's
/// packed weight spaces), is derived again when it was made at another count.
uint64_t deviceWeightsEpoch();
/// Called by a model after it copied its weights to the device.
void deviceWeightsCopied();

/// Device memory owned by one object (cuMemAlloc / cuMemFree).
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  CUdeviceptr get() const { return ptr_; }
  void *data() const { return reinterpret_cast<void *>(static_cast<uintptr_t>(ptr_)); }
  size_t bytes() const { return bytes_; }

private:
  void reset();
  CUdeviceptr ptr_ = 0;
  size_t bytes_ = 0;
};

} // namespace tcc::cuda

#endif // TCC_RUNTIME_CUDADRIVER_H
