//===- CudnnConv.cpp - tcc_conv2d_f32 on cuDNN 9, opened with dlopen ------===//
//
// The legacy convolution API, still in cuDNN 9 (deprecated, not removed):
// tensor/filter/convolution descriptors, cudnnGetConvolutionForwardAlgorithm_v7
// (heuristics, nothing is run), cudnnConvolutionForward. The descriptors are
// declared in cudnn_ops.h / cudnn_cnn.h and live in libcudnn_ops.so.9 /
// libcudnn_cnn.so.9; cudnnCreate, cudnnSetStream and cudnnGetErrorString in
// libcudnn_graph.so.9. libcudnn.so.9, the one opened here, is the shim that
// exports all of them and loads the sub-libraries on demand.
//
// State: the library is loaded once per process; a handle, a workspace and
// the per-shape plans (descriptors, algorithm, workspace size) are created
// lazily per (thread, CUDA context), so a call after the first of its shape
// only sets the stream and enqueues cudnnConvolutionForward: nothing
// allocates or synchronizes, and it can be captured in a CUDA graph. The
// workspace grows (when a new shape needs more) only outside stream capture;
// a replaced workspace is kept until the thread ends, since graphs captured
// earlier still use it. Under capture a new shape takes an algorithm that
// fits the workspace there is.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/CudnnConv.h"
#include "tcc/Runtime/CudaLibraryLoader.h"

#include "tcc/Runtime/CudaDriver.h"
#include "tcc/Runtime/MlirGpuRuntime.h"
#include "tcc/Runtime/RuntimeError.h"

#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

using namespace tcc;

namespace {

//===----------------------------------------------------------------------===//
// The subset of cudnn.h used here (cuDNN 9 values), without the header
//===----------------------------------------------------------------------===//

using cudnnStatus_t = int;
using cudnnHandle_t = struct cudnnContext *;
using cudnnTensorDescriptor_t = struct cudnnTensorStruct *;
using cudnnFilterDescriptor_t = struct cudnnFilterStruct *;
using cudnnConvolutionDescriptor_t = struct cudnnConvolutionStruct *;
struct cudnnConvolutionFwdAlgoPerf_t {
  int algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
};

constexpr cudnnStatus_t CUDNN_STATUS_SUCCESS = 0;
constexpr int CUDNN_DATA_FLOAT = 0;
constexpr int CUDNN_TENSOR_NCHW = 0;
constexpr int CUDNN_CROSS_CORRELATION = 1;
constexpr int CUDNN_DEFAULT_MATH = 0;
constexpr int CUDNN_FMA_MATH = 3;
constexpr int CUDNN_CONVOLUTION_FWD_ALGO_COUNT = 8;

/// The initial workspace, and the most any algorithm may ask for.
constexpr size_t kMinWorkspaceBytes = size_t(8) << 20;
constexpr size_t kMaxWorkspaceBytes = size_t(256) << 20;

//===----------------------------------------------------------------------===//
// The library
//===----------------------------------------------------------------------===//

struct Cudnn {
  size_t (*getVersion)();
  const char *(*getErrorString)(cudnnStatus_t);
  cudnnStatus_t (*create)(cudnnHandle_t *);
  cudnnStatus_t (*destroy)(cudnnHandle_t);
  cudnnStatus_t (*setStream)(cudnnHandle_t, void *);
  cudnnStatus_t (*createTensor)(cudnnTensorDescriptor_t *);
  cudnnStatus_t (*setTensor4d)(cudnnTensorDescriptor_t, int, int, int, int, int, int);
  cudnnStatus_t (*destroyTensor)(cudnnTensorDescriptor_t);
  cudnnStatus_t (*createFilter)(cudnnFilterDescriptor_t *);
  cudnnStatus_t (*setFilter4d)(cudnnFilterDescriptor_t, int, int, int, int, int, int);
  cudnnStatus_t (*destroyFilter)(cudnnFilterDescriptor_t);
  cudnnStatus_t (*createConv)(cudnnConvolutionDescriptor_t *);
  cudnnStatus_t (*setConv2d)(cudnnConvolutionDescriptor_t, int, int, int, int, int, int, int,
                             int);
  cudnnStatus_t (*setConvGroupCount)(cudnnConvolutionDescriptor_t, int);
  cudnnStatus_t (*setConvMathType)(cudnnConvolutionDescriptor_t, int);
  cudnnStatus_t (*destroyConv)(cudnnConvolutionDescriptor_t);
  cudnnStatus_t (*getForwardAlgorithm)(cudnnHandle_t, cudnnTensorDescriptor_t,
                                       cudnnFilterDescriptor_t, cudnnConvolutionDescriptor_t,
                                       cudnnTensorDescriptor_t, int, int *,
                                       cudnnConvolutionFwdAlgoPerf_t *);
  cudnnStatus_t (*getForwardWorkspaceSize)(cudnnHandle_t, cudnnTensorDescriptor_t,
                                           cudnnFilterDescriptor_t,
                                           cudnnConvolutionDescriptor_t,
                                           cudnnTensorDescriptor_t, int, size_t *);
  cudnnStatus_t (*forward)(cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *,
                           cudnnFilterDescriptor_t, const void *, cudnnConvolutionDescriptor_t,
                           int, void *, size_t, const void *, cudnnTensorDescriptor_t, void *);

  static const Cudnn &get();

  std::string statusText(cudnnStatus_t s) const {
    const char *name = getErrorString ? getErrorString(s) : nullptr;
    return name ? std::string(name) : "cuDNN status " + std::to_string(s);
  }

  void check(cudnnStatus_t s, const std::string &what) const {
    if (s == CUDNN_STATUS_SUCCESS)
      return;
    // 4003/4004: host/device allocation failed.
    throw RuntimeError(s == 4003 || s == 4004 ? TCC_ERROR_OUT_OF_MEMORY : TCC_ERROR_INTERNAL,
                       "cudnn: " + what + " failed: " + statusText(s));
  }
};

struct LoadedCudnn {
  Cudnn lib{};
  std::string error; // empty when usable

  LoadedCudnn() {
    // Search order: see CudaLibraryLoader.h.
    std::string tried;
    void *handle = openCudaLibrary("libcudnn.so.9", "cudnnConvolutionForward", tried);
    if (!handle) {
      error = "cuDNN not found (libcudnn.so.9, needed for the model's convolutions on the "
              "GPU; install cuDNN 9, add its lib directory to LD_LIBRARY_PATH, or import "
              "torch first). Tried:" +
              tried;
      return;
    }
    bool ok = resolve(handle, "cudnnGetVersion", lib.getVersion) &&
              resolve(handle, "cudnnGetErrorString", lib.getErrorString) &&
              resolve(handle, "cudnnCreate", lib.create) &&
              resolve(handle, "cudnnDestroy", lib.destroy) &&
              resolve(handle, "cudnnSetStream", lib.setStream) &&
              resolve(handle, "cudnnCreateTensorDescriptor", lib.createTensor) &&
              resolve(handle, "cudnnSetTensor4dDescriptor", lib.setTensor4d) &&
              resolve(handle, "cudnnDestroyTensorDescriptor", lib.destroyTensor) &&
              resolve(handle, "cudnnCreateFilterDescriptor", lib.createFilter) &&
              resolve(handle, "cudnnSetFilter4dDescriptor", lib.setFilter4d) &&
              resolve(handle, "cudnnDestroyFilterDescriptor", lib.destroyFilter) &&
              resolve(handle, "cudnnCreateConvolutionDescriptor", lib.createConv) &&
              resolve(handle, "cudnnSetConvolution2dDescriptor", lib.setConv2d) &&
              resolve(handle, "cudnnSetConvolutionGroupCount", lib.setConvGroupCount) &&
              resolve(handle, "cudnnSetConvolutionMathType", lib.setConvMathType) &&
              resolve(handle, "cudnnDestroyConvolutionDescriptor", lib.destroyConv) &&
              resolve(handle, "cudnnGetConvolutionForwardAlgorithm_v7",
                      lib.getForwardAlgorithm) &&
              resolve(handle, "cudnnGetConvolutionForwardWorkspaceSize",
                      lib.getForwardWorkspaceSize) &&
              resolve(handle, "cudnnConvolutionForward", lib.forward);
    if (!ok)
      return;
    size_t version = lib.getVersion();
    if (version < 90000 || version >= 100000)
      error = "cuDNN found, but it is version " + std::to_string(version) +
              " (tcc needs cuDNN 9)";
  }

  template <typename Fn> bool resolve(void *handle, const char *name, Fn &fn) {
    fn = reinterpret_cast<Fn>(dlsym(handle, name));
    if (!fn)
      error = std::string("cuDNN found, but it lacks '") + name + "' (not cuDNN 9?)";
    return fn != nullptr;
  }
};

const Cudnn &Cudnn::get() {
  static LoadedCudnn loaded; // thread-safe, once per process
  if (!loaded.error.empty())
    throw RuntimeError(TCC_ERROR_UNSUPPORTED, loaded.error);
  return loaded.lib;
}

//===----------------------------------------------------------------------===//
// Plans and per-(thread, context) state
//===----------------------------------------------------------------------===//

struct PlanKey {
  int64_t n, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw, groups;
  int32_t compute;
  auto tie() const {
    return std::tie(n, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw, groups, compute);
  }
  bool operator<(const PlanKey &o) const { return tie() < o.tie(); }
};

std::string shapeText(const PlanKey &k) {
  auto s = [](int64_t v) { return std::to_string(v); };
  return "x " + s(k.n) + "x" + s(k.c) + "x" + s(k.h) + "x" + s(k.w) + ", w " + s(k.f) + "x" +
         s(k.c / k.groups) + "x" + s(k.kh) + "x" + s(k.kw) + ", stride " + s(k.sh) + "x" +
         s(k.sw) + ", dilation " + s(k.dh) + "x" + s(k.dw) + ", groups " + s(k.groups);
}

struct Plan {
  const Cudnn *lib = nullptr;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  int algo = 0;
  size_t workspaceBytes = 0;

  Plan() = default;
  Plan(const Plan &) = delete;
  Plan &operator=(const Plan &) = delete;
  ~Plan() {
    if (!lib)
      return;
    if (conv) (void)lib->destroyConv(conv);
    if (w) (void)lib->destroyFilter(w);
    if (y) (void)lib->destroyTensor(y);
    if (x) (void)lib->destroyTensor(x);
  }
};

struct ContextState {
  const Cudnn *lib = nullptr;
  cuda::CUcontext context = nullptr;
  cudnnHandle_t handle = nullptr;
  cuda::DeviceBuffer workspace;
  std::vector<cuda::DeviceBuffer> retired; // earlier workspaces, maybe in graphs
  std::map<PlanKey, std::unique_ptr<Plan>> plans;

  ContextState(const Cudnn &l, cuda::CUcontext ctx) : lib(&l), context(ctx) {
    lib->check(lib->create(&handle), "cudnnCreate");
  }
  ContextState(const ContextState &) = delete;
  ContextState &operator=(const ContextState &) = delete;
  ~ContextState() {
    plans.clear();
    if (handle)
      (void)lib->destroy(handle);
  }
};

thread_local std::vector<std::unique_ptr<ContextState>> threadStates;

ContextState &stateForCurrentContext(const Cudnn &lib) {
  cuda::CUcontext ctx = cuda::ensureContext();
  for (auto &s : threadStates)
    if (s->context == ctx)
      return *s;
  threadStates.push_back(std::make_unique<ContextState>(lib, ctx));
  return *threadStates.back();
}

/// Whether work enqueued on `stream` is being captured into a graph (false
/// when the driver cannot tell).
bool isCapturing(void *stream) {
  const cuda::Driver &d = cuda::Driver::get();
  if (!d.cuStreamIsCapturing)
    return false;
  int status = 0;
  if (d.cuStreamIsCapturing(static_cast<cuda::CUstream>(stream), &status) != 0)
    return false;
  return status != 0; // CU_STREAM_CAPTURE_STATUS_NONE
}

int toInt(int64_t v, const char *what) {
  if (v <= 0 || v > INT_MAX)
    throw RuntimeError(TCC_ERROR_UNSUPPORTED, std::string("cudnn: convolution ") + what + " " +
                                                  std::to_string(v) +
                                                  " out of range for cuDNN");
  return static_cast<int>(v);
}

std::unique_ptr<Plan> makePlan(const Cudnn &lib, ContextState &state, const PlanKey &key,
                               void *stream) {
  auto plan = std::make_unique<Plan>();
  plan->lib = &lib;
  lib.check(lib.createTensor(&plan->x), "cudnnCreateTensorDescriptor");
  lib.check(lib.createTensor(&plan->y), "cudnnCreateTensorDescriptor");
  lib.check(lib.createFilter(&plan->w), "cudnnCreateFilterDescriptor");
  lib.check(lib.createConv(&plan->conv), "cudnnCreateConvolutionDescriptor");
  std::string shape = shapeText(key);
  lib.check(lib.setTensor4d(plan->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, toInt(key.n, "batch"),
                            toInt(key.c, "channels"), toInt(key.h, "height"),
                            toInt(key.w, "width")),
            "cudnnSetTensor4dDescriptor(x) for " + shape);
  lib.check(lib.setTensor4d(plan->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, toInt(key.n, "batch"),
                            toInt(key.f, "channels"), toInt(key.oh, "height"),
                            toInt(key.ow, "width")),
            "cudnnSetTensor4dDescriptor(y) for " + shape);
  lib.check(lib.setFilter4d(plan->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, toInt(key.f, "filters"),
                            toInt(key.c / key.groups, "channels"), toInt(key.kh, "kernel"),
                            toInt(key.kw, "kernel")),
            "cudnnSetFilter4dDescriptor for " + shape);
  lib.check(lib.setConv2d(plan->conv, 0, 0, toInt(key.sh, "stride"), toInt(key.sw, "stride"),
                          toInt(key.dh, "dilation"), toInt(key.dw, "dilation"),
                          CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
            "cudnnSetConvolution2dDescriptor for " + shape);
  if (key.groups > 1)
    lib.check(lib.setConvGroupCount(plan->conv, toInt(key.groups, "groups")),
              "cudnnSetConvolutionGroupCount for " + shape);
  // fp32: FMA kernels only (CUDNN_DEFAULT_MATH would let Ampere+ use TF32
  // tensor cores for float); --precision tf32 allows them.
  bool tf32 = key.compute == kConvComputeTf32;
  int math = tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
  lib.check(lib.setConvMathType(plan->conv, math), "cudnnSetConvolutionMathType for " + shape);

  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT] = {};
  int found = 0;
  lib.check(lib.getForwardAlgorithm(state.handle, plan->x, plan->w, plan->conv, plan->y,
                                    CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf),
            "cudnnGetConvolutionForwardAlgorithm_v7 for " + shape);
  // Under capture the workspace cannot grow: only algorithms that fit.
  size_t limit = isCapturing(stream) ? state.workspace.bytes() : kMaxWorkspaceBytes;
  for (int i = 0; i < found; ++i) {
    const cudnnConvolutionFwdAlgoPerf_t &p = perf[i];
    if (p.status != CUDNN_STATUS_SUCCESS)
      continue;
    if (!tf32 && p.mathType != CUDNN_FMA_MATH && p.mathType != CUDNN_DEFAULT_MATH)
      continue; // a tensor-op variant
    if (tf32)
      (void)lib.setConvMathType(plan->conv, p.mathType);
    size_t bytes = 0;
    if (lib.getForwardWorkspaceSize(state.handle, plan->x, plan->w, plan->conv, plan->y, p.algo,
                                    &bytes) != CUDNN_STATUS_SUCCESS ||
        bytes > limit)
      continue;
    plan->algo = p.algo;
    plan->workspaceBytes = bytes;
    if (bytes > state.workspace.bytes()) {
      size_t grown = std::max(bytes, std::max(kMinWorkspaceBytes, 2 * state.workspace.bytes()));
      grown = std::min(std::max(grown, bytes), std::max(bytes, kMaxWorkspaceBytes));
      cuda::DeviceBuffer next(grown);
      if (state.workspace.bytes())
        state.retired.push_back(std::move(state.workspace));
      state.workspace = std::move(next);
    }
    return plan;
  }
  throw RuntimeError(TCC_ERROR_UNSUPPORTED,
                     "cudnn: no forward algorithm for the convolution " + shape +
                         (limit < kMaxWorkspaceBytes
                              ? " within the workspace there is (first seen during stream "
                                "capture; run it once outside capture)"
                              : ""));
}

} // namespace

extern "C" void tcc_conv2d_f32(int64_t n, int64_t c, int64_t h, int64_t w, int64_t f,
                               int64_t kh, int64_t kw, int64_t oh, int64_t ow, int64_t strideH,
                               int64_t strideW, int64_t dilationH, int64_t dilationW,
                               int64_t groups, const float *x, const float *weight, float *y,
                               int32_t accumulate, int32_t compute, void *stream) {
  if (hasKernelLaunchError())
    return;
  if (n <= 0 || f <= 0 || oh <= 0 || ow <= 0)
    return; // an empty result
  try {
    PlanKey key{n, c, h, w, f, kh, kw, oh, ow, strideH, strideW, dilationH, dilationW, groups,
                compute};
    if (c <= 0 || kh <= 0 || kw <= 0 || strideH <= 0 || strideW <= 0 || dilationH <= 0 ||
        dilationW <= 0 || groups <= 0 || c % groups || f % groups)
      throw RuntimeError(TCC_ERROR_UNSUPPORTED,
                         "cudnn: unsupported convolution " + shapeText(key));
    // cuDNN derives the output size from the rest; it must be the one the
    // buffers have.
    int64_t expectH = (h - dilationH * (kh - 1) - 1) / strideH + 1;
    int64_t expectW = (w - dilationW * (kw - 1) - 1) / strideW + 1;
    if (h < dilationH * (kh - 1) + 1 || w < dilationW * (kw - 1) + 1 || expectH != oh ||
        expectW != ow)
      throw RuntimeError(TCC_ERROR_INTERNAL,
                         "cudnn: convolution output " + std::to_string(oh) + "x" +
                             std::to_string(ow) + " does not match " + shapeText(key));
    const Cudnn &lib = Cudnn::get();
    ContextState &state = stateForCurrentContext(lib);
    auto &slot = state.plans[key];
    if (!slot)
      slot = makePlan(lib, state, key, stream);
    Plan &plan = *slot;
    lib.check(lib.setStream(state.handle, stream), "cudnnSetStream");
    float alpha = 1.0f, beta = accumulate ? 1.0f : 0.0f;
    lib.check(lib.forward(state.handle, &alpha, plan.x, x, plan.w, weight, plan.conv, plan.algo,
                          plan.workspaceBytes ? state.workspace.data() : nullptr,
                          plan.workspaceBytes, &beta, plan.y, y),
              "cudnnConvolutionForward for " + shapeText(key));
  } catch (const std::exception &e) {
    recordKernelLaunchError(e.what());
  }
}
