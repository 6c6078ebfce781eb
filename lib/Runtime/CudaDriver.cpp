//===- CudaDriver.cpp - the CUDA driver API, opened with dlopen -----------===//
#include "tcc/Runtime/CudaDriver.h"

#include "tcc/Runtime/RuntimeError.h"

#include <atomic>
#include <dlfcn.h>

#include <mutex>
#include <utility>

namespace tcc::cuda {

namespace {

constexpr CUresult kSuccess = 0;

[[noreturn]] void unsupported(const std::string &why) {
  throw RuntimeError(TCC_ERROR_UNSUPPORTED, "cuda: " + why);
}

/// Loads libcuda and resolves every entry point; on failure remembers why.
struct LoadedDriver {
  Driver driver{};
  std::string error; // empty when usable

  LoadedDriver() {
    void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *why = dlerror();
      error = std::string("cannot load the CUDA driver (libcuda.so.1): ") +
              (why ? why : "unknown error") +
              "; a machine with an NVIDIA GPU and its driver is needed for device inputs";
      return;
    }
    // The unversioned names of cuda.h map to these exported symbols.
    bool ok = resolve(handle, "cuInit", driver.cuInit) &&
              resolve(handle, "cuDeviceGet", driver.cuDeviceGet) &&
              resolve(handle, "cuDeviceGetCount", driver.cuDeviceGetCount) &&
              resolve(handle, "cuDevicePrimaryCtxRetain", driver.cuDevicePrimaryCtxRetain) &&
              resolve(handle, "cuCtxGetCurrent", driver.cuCtxGetCurrent) &&
              resolve(handle, "cuCtxSetCurrent", driver.cuCtxSetCurrent) &&
              resolve(handle, "cuCtxGetDevice", driver.cuCtxGetDevice) &&
              resolve(handle, "cuDeviceGetAttribute", driver.cuDeviceGetAttribute) &&
              resolve(handle, "cuModuleLoadDataEx", driver.cuModuleLoadDataEx) &&
              resolve(handle, "cuModuleUnload", driver.cuModuleUnload) &&
              resolve(handle, "cuModuleGetFunction", driver.cuModuleGetFunction) &&
              resolve(handle, "cuLaunchKernel", driver.cuLaunchKernel) &&
              resolve(handle, "cuStreamCreate", driver.cuStreamCreate) &&
              resolve(handle, "cuStreamDestroy_v2", driver.cuStreamDestroy) &&
              resolve(handle, "cuStreamSynchronize", driver.cuStreamSynchronize) &&
              resolve(handle, "cuMemAlloc_v2", driver.cuMemAlloc) &&
              resolve(handle, "cuMemFree_v2", driver.cuMemFree) &&
              resolve(handle, "cuMemcpyHtoD_v2", driver.cuMemcpyHtoD) &&
              resolve(handle, "cuMemcpyDtoH_v2", driver.cuMemcpyDtoH) &&
              resolve(handle, "cuMemcpyHtoDAsync_v2", driver.cuMemcpyHtoDAsync) &&
              resolve(handle, "cuMemcpyDtoD_v2", driver.cuMemcpyDtoD) &&
              resolve(handle, "cuMemcpyDtoDAsync_v2", driver.cuMemcpyDtoDAsync) &&
              resolve(handle, "cuMemsetD8Async", driver.cuMemsetD8Async) &&
              resolve(handle, "cuGetErrorName", driver.cuGetErrorName) &&
              resolve(handle, "cuGetErrorString", driver.cuGetErrorString);
    if (!ok)
      return; // the handle stays open: a partial driver is still mapped
    resolveGraphs(handle);
    bool events = optional(handle, "cuEventCreate", driver.cuEventCreate) &
                  optional(handle, "cuEventRecord", driver.cuEventRecord) &
                  optional(handle, "cuEventSynchronize", driver.cuEventSynchronize) &
                  optional(handle, "cuEventElapsedTime_v2", driver.cuEventElapsedTime) &
                  optional(handle, "cuEventDestroy_v2", driver.cuEventDestroy);
    (void)events; // hasEvents() tells the users
    optional(handle, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
             driver.cuOccupancyMaxActiveBlocksPerMultiprocessor);
    resolve(handle, "cuFuncSetAttribute", driver.cuFuncSetAttribute);
    // All three or none (KernelLaunch.cpp asks for cuLaunchKernelEx alone).
    if (!(optional(handle, "cuLaunchKernelEx", driver.cuLaunchKernelEx) &
          optional(handle, "cuFuncGetModule", driver.cuFuncGetModule) &
          optional(handle, "cuModuleGetGlobal_v2", driver.cuModuleGetGlobal)))
      driver.cuLaunchKernelEx = nullptr;
    CUresult r = driver.cuInit(0);
    if (r != kSuccess)
      error = "cuInit failed: " + driver.errorText(r) +
              " (no usable NVIDIA GPU, or the driver is too old)";
  }

  /// The capture and graph entry points, all or none (cuda.h maps the
  /// unversioned names to these symbols).
  void resolveGraphs(void *handle) {
    Driver &d = driver;
    bool ok = optional(handle, "cuStreamBeginCapture_v2", d.cuStreamBeginCapture) &
              optional(handle, "cuStreamEndCapture", d.cuStreamEndCapture) &
              optional(handle, "cuStreamIsCapturing", d.cuStreamIsCapturing) &
              optional(handle, "cuGraphInstantiateWithFlags", d.cuGraphInstantiateWithFlags) &
              optional(handle, "cuGraphExecUpdate_v2", d.cuGraphExecUpdate) &
              optional(handle, "cuGraphLaunch", d.cuGraphLaunch) &
              optional(handle, "cuGraphExecDestroy", d.cuGraphExecDestroy) &
              optional(handle, "cuGraphDestroy", d.cuGraphDestroy);
    if (!ok)
      d.cuStreamBeginCapture = nullptr; // hasGraphs() is false
    (void)optional(handle, "cuGraphGetNodes", d.cuGraphGetNodes);
  }

  template <typename Fn> bool optional(void *handle, const char *name, Fn &fn) {
    fn = reinterpret_cast<Fn>(dlsym(handle, name));
    return fn != nullptr;
  }

  template <typename Fn> bool resolve(void *handle, const char *name, Fn &fn) {
    fn = reinterpret_cast<Fn>(dlsym(handle, name));
    if (!fn)
      error = std::string("the CUDA driver lacks '") + name + "' (driver too old?)";
    return fn != nullptr;
  }
};

} // namespace

const Driver &Driver::get() {
  static LoadedDriver loaded; // thread-safe, once per process
  if (!loaded.error.empty())
    unsupported(loaded.error);
  return loaded.driver;
}

std::string Driver::errorText(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(result, &name);
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  std::string s = name ? name : "CUDA error " + std::to_string(result);
  if (text)
    s += std::string(": ") + text;
  return s;
}

void Driver::check(CUresult result, const std::string &what) const {
  if (result == kSuccess)
    return;
  // 2 is CUDA_ERROR_OUT_OF_MEMORY.
  throw RuntimeError(result == 2 ? TCC_ERROR_OUT_OF_MEMORY : TCC_ERROR_INTERNAL,
                     "cuda: " + what + " failed: " + errorText(result));
}

CUcontext ensureContext() {
  const Driver &d = Driver::get();
  CUcontext ctx = nullptr;
  d.check(d.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
  if (ctx)
    return ctx;
  int count = 0;
  d.check(d.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0)
    unsupported("no CUDA device");
  CUdevice device = 0;
  d.check(d.cuDeviceGet(&device, 0), "cuDeviceGet(0)");
  // Retained for the life of the process, as the CUDA runtime does.
  d.check(d.cuDevicePrimaryCtxRetain(&ctx, device), "cuDevicePrimaryCtxRetain");
  d.check(d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  return ctx;
}

namespace {
std::atomic<uint64_t> weightsEpoch{1};
} // namespace

uint64_t deviceWeightsEpoch() { return weightsEpoch.load(); }

void deviceWeightsCopied() { weightsEpoch.fetch_add(1); }

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  const Driver &d = Driver::get();
  // cuMemAlloc refuses 0 bytes; a real pointer keeps descriptors uniform.
  d.check(d.cuMemAlloc(&ptr_, bytes ? bytes : 256),
          "cuMemAlloc(" + std::to_string(bytes) + " bytes)");
}

DeviceBuffer::~DeviceBuffer() { reset(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : ptr_(std::exchange(other.ptr_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    reset();
    ptr_ = std::exchange(other.ptr_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::reset() {
  if (ptr_) {
    // Only reachable after a successful cuMemAlloc, so the driver is loaded.
    // A failure here (e.g. the process is exiting) is not worth an abort.
    const Driver &d = Driver::get();
    (void)d.cuMemFree(ptr_);
  }
  ptr_ = 0;
  bytes_ = 0;
}

} // namespace tcc::cuda
