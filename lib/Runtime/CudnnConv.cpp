//===- CudnnConv.cpp - tcc_conv2d on cuDNN 9, opened with dlopen ----------===//
//
// The legacy convolution API, still in cuDNN 9 (deprecated, not removed):
// tensor/filter/convolution descriptors (NCHW or NHWC filters, tensors with
// any strides: channel slices of a concatenation's buffer, padded interiors);
// cudnnConvolutionBiasActivationForward for the epilogue (bias, residual,
// ReLU) where it fuses, else cudnnConvolutionForward and cudnnAddTensor. The
// algorithms cuDNN's heuristics offer are each timed once per shape, as they
// will run (epilogue included), into a scratch output, and the fastest kept;
// during stream capture, or with TCC_CUDNN_ALGO=heuristic, the heuristics'
// first choice. Timing the plain convolution (cudnnFind*) is not enough: on
// an H100 its winner for a bf16 1x1 NHWC convolution ran 225 us plain but
// 8 us as the fused call with another algorithm. The descriptors are
// declared in cudnn_ops.h / cudnn_cnn.h and live in libcudnn_ops.so.9 /
// libcudnn_cnn.so.9; cudnnCreate, cudnnSetStream and cudnnGetErrorString in
// libcudnn_graph.so.9. libcudnn.so.9, the one CudnnLibrary.cpp opens, is the shim that
// exports all of them and loads the sub-libraries on demand (CudnnLibrary.h).
//
// State: the library is loaded once per process, and a handle and a
// workspace are kept per (thread, CUDA context), as CudnnLibrary.h does for
// every user of cuDNN; the per-shape plans (descriptors, algorithm,
// workspace size) are this file's part of that state, made lazily, so a
// call after the first of its shape only sets the stream and enqueues
// cudnnConvolutionForward: nothing allocates or synchronizes, and it can be
// captured in a CUDA graph. The workspace grows (when a new shape needs
// more) only outside stream capture. Under capture a new shape takes an
// algorithm that fits the workspace there is.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/CudnnConv.h"
#include "ConvAsGemm.h"
#include "CudnnLibrary.h"
#include "DepthwiseConv.h"
#include "WinogradConv.h"
#include "tcc/Runtime/KernelTypes.h"

#include "tcc/Runtime/CudaDriver.h"
#include "tcc/Runtime/MlirGpuRuntime.h"
#include "tcc/Runtime/RuntimeError.h"

#include <cstdio>

#include <limits>

#include <algorithm>
#include <array>
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

using cudnn::cudnnHandle_t;
using cudnn::cudnnStatus_t;
using cudnn::ContextState;
using cudnn::CUDNN_STATUS_SUCCESS;
using cudnn::isCapturing;
using cudnn::kMaxWorkspaceBytes;
using cudnn::stateForCurrentContext;
using cudnnTensorDescriptor_t = struct cudnnTensorStruct *;
using cudnnFilterDescriptor_t = struct cudnnFilterStruct *;
using cudnnConvolutionDescriptor_t = struct cudnnConvolutionStruct *;
using cudnnActivationDescriptor_t = struct cudnnActivationStruct *;
struct cudnnConvolutionFwdAlgoPerf_t {
  int algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
};

constexpr int CUDNN_DATA_FLOAT = 0;
constexpr int CUDNN_DATA_HALF = 2;
constexpr int CUDNN_DATA_BFLOAT16 = 9;
constexpr int CUDNN_TENSOR_NCHW = 0;
constexpr int CUDNN_TENSOR_NHWC = 1;
constexpr int CUDNN_CROSS_CORRELATION = 1;
constexpr int CUDNN_DEFAULT_MATH = 0;
constexpr int CUDNN_TENSOR_OP_MATH = 1;
constexpr int CUDNN_FMA_MATH = 3;
constexpr int CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1;
constexpr int CUDNN_CONVOLUTION_FWD_ALGO_COUNT = 8;
constexpr int CUDNN_ACTIVATION_RELU = 1;
constexpr int CUDNN_ACTIVATION_IDENTITY = 5;
constexpr int CUDNN_NOT_PROPAGATE_NAN = 0;

/// The workspace an algorithm may keep without having to earn it: one that
/// needs more (FFT, Winograd-nonfused variants) is chosen only when it is
/// more than kWorkspaceWorthIt faster than the fastest within this, since the
/// workspace stays at its largest. (H100: ResNet-50 b32 fp32 took 8.37 ms with
/// any workspace allowed, 10.25 ms held to 32 MiB; MobileNetV2's and
/// DenseNet's big-workspace algorithms were barely faster and cost 400 MiB.)
constexpr size_t kPreferredWorkspaceBytes = size_t(32) << 20;
constexpr float kWorkspaceWorthIt = 1.10f;

/// A way whose single call takes more than this many times the fastest so
/// far, and more than kHopelessFloorUs (a call timed alone includes the
/// legacy API's host work), is not timed further (timePlan).
constexpr float kHopelessFactor = 8.0f, kHopelessFloorUs = 1000.0f;

//===----------------------------------------------------------------------===//
// The library
//===----------------------------------------------------------------------===//

/// The convolution API, beside what every user of cuDNN needs
/// (CudnnLibrary.h).
struct Cudnn : cudnn::Library {
  cudnnStatus_t (*createTensor)(cudnnTensorDescriptor_t *);
  cudnnStatus_t (*setTensor4dEx)(cudnnTensorDescriptor_t, int, int, int, int, int, int, int, int,
                                 int);
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
  cudnnStatus_t (*createActivation)(cudnnActivationDescriptor_t *);
  cudnnStatus_t (*setActivation)(cudnnActivationDescriptor_t, int, int, double);
  cudnnStatus_t (*destroyActivation)(cudnnActivationDescriptor_t);
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
  cudnnStatus_t (*biasActivationForward)(
      cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *, cudnnFilterDescriptor_t,
      const void *, cudnnConvolutionDescriptor_t, int, void *, size_t, const void *,
      cudnnTensorDescriptor_t, const void *, cudnnTensorDescriptor_t, const void *,
      cudnnActivationDescriptor_t, cudnnTensorDescriptor_t, void *);
  cudnnStatus_t (*addTensor)(cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *,
                             const void *, cudnnTensorDescriptor_t, void *);

  static const Cudnn &get();
};

struct LoadedCudnn {
  Cudnn lib{};
  std::string error; // empty when usable

  LoadedCudnn() {
    // Throws where cuDNN cannot be opened: the next call tries again.
    static_cast<cudnn::Library &>(lib) =
        cudnn::Library::get("the model's convolutions on the GPU");
    (void)(lib.resolve("cudnnCreateTensorDescriptor", lib.createTensor, error) &&
              lib.resolve("cudnnSetTensor4dDescriptorEx", lib.setTensor4dEx, error) &&
              lib.resolve("cudnnDestroyTensorDescriptor", lib.destroyTensor, error) &&
              lib.resolve("cudnnCreateFilterDescriptor", lib.createFilter, error) &&
              lib.resolve("cudnnSetFilter4dDescriptor", lib.setFilter4d, error) &&
              lib.resolve("cudnnDestroyFilterDescriptor", lib.destroyFilter, error) &&
              lib.resolve("cudnnCreateConvolutionDescriptor", lib.createConv, error) &&
              lib.resolve("cudnnSetConvolution2dDescriptor", lib.setConv2d, error) &&
              lib.resolve("cudnnSetConvolutionGroupCount", lib.setConvGroupCount, error) &&
              lib.resolve("cudnnSetConvolutionMathType", lib.setConvMathType, error) &&
              lib.resolve("cudnnDestroyConvolutionDescriptor", lib.destroyConv, error) &&
              lib.resolve("cudnnCreateActivationDescriptor", lib.createActivation, error) &&
              lib.resolve("cudnnSetActivationDescriptor", lib.setActivation, error) &&
              lib.resolve("cudnnDestroyActivationDescriptor", lib.destroyActivation, error) &&
              lib.resolve("cudnnGetConvolutionForwardAlgorithm_v7", lib.getForwardAlgorithm, error) &&
              lib.resolve("cudnnGetConvolutionForwardWorkspaceSize", lib.getForwardWorkspaceSize, error) &&
              lib.resolve("cudnnConvolutionForward", lib.forward, error) &&
              lib.resolve("cudnnConvolutionBiasActivationForward", lib.biasActivationForward, error) &&
              lib.resolve("cudnnAddTensor", lib.addTensor, error));
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

/// Everything a call's descriptors and algorithm depend on.
struct PlanKey {
  int64_t n, c, h, w, k, r, s, oh, ow, padH, padW, sh, sw, dh, dw, groups;
  /// Strides in batch, channel, row, column order (z's all 0 without a residual).
  std::array<int64_t, 4> xStrides, yStrides, zStrides;
  int32_t dtype, compute, activation, layout;
  bool bias, residual;
  auto tie() const {
    return std::tie(n, c, h, w, k, r, s, oh, ow, padH, padW, sh, sw, dh, dw, groups, xStrides,
                    yStrides, zStrides, dtype, compute, activation, layout, bias, residual);
  }
  bool operator<(const PlanKey &o) const { return tie() < o.tie(); }
  bool hasEpilogue() const { return bias || residual || activation != kConvActivationNone; }
};

std::string shapeText(const PlanKey &k) {
  auto s = [](int64_t v) { return std::to_string(v); };
  return std::string(k.layout == kConvLayoutNhwc ? "NHWC " : "") + "x " + s(k.n) + "x" + s(k.c) +
         "x" + s(k.h) + "x" + s(k.w) + ", w " + s(k.k) + "x" + s(k.c / k.groups) + "x" + s(k.r) +
         "x" + s(k.s) + ", padding " + s(k.padH) + "x" + s(k.padW) + ", stride " + s(k.sh) + "x" +
         s(k.sw) + ", dilation " + s(k.dh) + "x" + s(k.dw) + ", groups " + s(k.groups);
}

/// How a plan computes its epilogue.
enum class Epilogue {
  None,  ///< cudnnConvolutionForward alone
  Fused, ///< cudnnConvolutionBiasActivationForward
  Adds,  ///< cudnnConvolutionForward, then cudnnAddTensor for bias and residual
  Own,   ///< not cuDNN: tcc's depthwise kernel, epilogue included (DepthwiseConv.h)
  Gemm,  ///< not cuDNN: one cuBLASLt GEMM, epilogue included (ConvAsGemm.h)
  Im2colGemm, ///< not cuDNN: the windows as rows, then cuBLASLt GEMMs (ConvAsGemm.h)
  Winograd, ///< not cuDNN: F(4x4, 3x3), a cuBLASLt GEMM between two kernels (WinogradConv.h)
};

struct Plan {
  const Cudnn *lib = nullptr;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, z = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnActivationDescriptor_t act = nullptr;
  int algo = 0;
  size_t workspaceBytes = 0;
  Epilogue epilogue = Epilogue::None;
  cuda::DeviceBuffer zeroBias; ///< the fused call needs a bias; the op may have none

  Plan() = default;
  Plan(const Plan &) = delete;
  Plan &operator=(const Plan &) = delete;
  ~Plan() {
    if (!lib)
      return;
    if (act) (void)lib->destroyActivation(act);
    if (conv) (void)lib->destroyConv(conv);
    if (w) (void)lib->destroyFilter(w);
    for (cudnnTensorDescriptor_t t : {bias, z, y, x})
      if (t) (void)lib->destroyTensor(t);
  }
};

/// The plans of this (thread, context), its part of cuDNN's state.
struct ConvPlans : cudnn::StatePart {
  std::map<PlanKey, std::unique_ptr<Plan>> plans;
  explicit ConvPlans(ContextState &) {}
};

int toInt(int64_t v, const char *what) {
  if (v < 0 || v > INT_MAX)
    throw RuntimeError(TCC_ERROR_UNSUPPORTED, std::string("cudnn: convolution ") + what + " " +
                                                  std::to_string(v) +
                                                  " out of range for cuDNN");
  return static_cast<int>(v);
}

int cudnnType(int32_t dtype) {
  return dtype == kKernelF16 ? CUDNN_DATA_HALF
         : dtype == kKernelBF16 ? CUDNN_DATA_BFLOAT16
                                : CUDNN_DATA_FLOAT;
}

/// A tensor of `n x c x h x w` with `strides` (batch, channel, row, column).
void setImage(const Cudnn &lib, cudnnTensorDescriptor_t t, const PlanKey &key, int64_t c,
              int64_t h, int64_t w, const std::array<int64_t, 4> &strides,
              const std::string &what) {
  lib.check(lib.setTensor4dEx(t, cudnnType(key.dtype), toInt(key.n, "batch"), toInt(c, "channels"),
                              toInt(h, "height"), toInt(w, "width"), toInt(strides[0], "stride"),
                              toInt(strides[1], "stride"), toInt(strides[2], "stride"),
                              toInt(strides[3], "stride")),
            "cudnnSetTensor4dDescriptorEx(" + what + ") for " + shapeText(key));
}

/// The key as tcc's depthwise kernel reads it.
DepthwiseShape depthwiseShape(const PlanKey &k) {
  return {k.n,      k.c,  k.h,  k.w,  k.k,  k.r,      k.s,        k.oh,       k.ow,
          k.padH,   k.padW, k.sh, k.sw, k.dh, k.dw, k.groups, k.xStrides, k.yStrides,
          k.zStrides, k.dtype, k.layout};
}

/// Enqueues the convolution as `plan` computes it (algorithm, math type and
/// epilogue as last chosen).
void enqueue(const Cudnn &lib, ContextState &state, const Plan &plan, const PlanKey &key,
             const void *x, const void *w, const void *bias, const void *z, void *y,
             void *stream) {
  if (plan.epilogue == Epilogue::Own) {
    launchDepthwiseKernel(depthwiseShape(key), x, w, bias, z, y,
                          key.activation, stream);
    return;
  }
  if (plan.epilogue == Epilogue::Im2colGemm) {
    launchIm2colGemm(depthwiseShape(key), key.compute, x, w, bias, z, y, key.activation,
                     state.workspace.data(), stream);
    return;
  }
  if (plan.epilogue == Epilogue::Winograd) {
    launchWinogradConv(depthwiseShape(key), x, w, bias, z, y, key.activation,
                       state.workspace.data(), stream);
    return;
  }
  if (plan.epilogue == Epilogue::Gemm) {
    launchConvAsGemm(depthwiseShape(key), key.compute, x, w, bias, z, y, key.activation,
                     stream);
    return;
  }
  void *workspace = plan.workspaceBytes ? state.workspace.data() : nullptr;
  float one = 1.0f, zero = 0.0f;
  std::string what = " for " + shapeText(key);
  if (plan.epilogue == Epilogue::Fused) {
    // y = act(conv + alpha2·z + bias); without a residual z is y, scaled by 0.
    float alpha2 = z ? 1.0f : 0.0f;
    lib.check(lib.biasActivationForward(state.handle, &one, plan.x, x, plan.w, w, plan.conv,
                                        plan.algo, workspace, plan.workspaceBytes, &alpha2,
                                        z ? plan.z : plan.y, z ? z : y, plan.bias,
                                        bias ? bias : plan.zeroBias.data(), plan.act, plan.y, y),
              "cudnnConvolutionBiasActivationForward" + what);
    return;
  }
  // A residual in y's own buffer (planned in place) is accumulated onto:
  // y = conv + y; another is added after.
  bool inPlace = z == y && key.zStrides == key.yStrides;
  lib.check(lib.forward(state.handle, &one, plan.x, x, plan.w, w, plan.conv, plan.algo, workspace,
                        plan.workspaceBytes, inPlace ? &one : &zero, plan.y, y),
            "cudnnConvolutionForward" + what);
  if (bias)
    lib.check(lib.addTensor(state.handle, &one, plan.bias, bias, &one, plan.y, y),
              "cudnnAddTensor(bias)" + what);
  if (z && !inPlace)
    lib.check(lib.addTensor(state.handle, &one, plan.z, z, &one, plan.y, y),
              "cudnnAddTensor(residual)" + what);
}

/// One way to run the convolution: an algorithm in a math mode, its
/// workspace, and how the epilogue is computed.
struct Candidate {
  int algo, mathType;
  size_t workspaceBytes;
  Epilogue epilogue;
};

/// The ways cuDNN offers, in its heuristics' order: every algorithm that
/// suits the key's numerics and fits `limit` bytes of workspace. ReLU fuses
/// with any algorithm; an identity epilogue (bias or residual alone) only
/// with implicit-precomputed GEMM, else it is separate adds.
std::vector<Candidate> candidates(const Cudnn &lib, ContextState &state, Plan &plan,
                                  const PlanKey &key, size_t limit, bool zeroBiasAvailable) {
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT] = {};
  int found = 0;
  lib.check(lib.getForwardAlgorithm(state.handle, plan.x, plan.w, plan.conv, plan.y,
                                    CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf),
            "cudnnGetConvolutionForwardAlgorithm_v7 for " + shapeText(key));
  bool relu = key.activation == kConvActivationRelu;
  bool canFuse = key.bias || zeroBiasAvailable;
  // cuDNN's epilogue applies ReLU at most; other activations, and any on the
  // input, only tcc's depthwise kernel.
  bool cudnnActivation = key.activation == kConvActivationNone || relu;
  std::vector<Candidate> out;
  for (int i = 0; i < (cudnnActivation ? found : 0); ++i) {
    const cudnnConvolutionFwdAlgoPerf_t &p = perf[i];
    if (p.status != CUDNN_STATUS_SUCCESS)
      continue;
    // fp32 (compute 0) takes no tensor-op variant: that would be TF32.
    if (key.dtype == kKernelF32 && key.compute == kConvComputeF32 && p.mathType != CUDNN_FMA_MATH &&
        p.mathType != CUDNN_DEFAULT_MATH)
      continue;
    (void)lib.setConvMathType(plan.conv, p.mathType);
    size_t bytes = 0;
    if (lib.getForwardWorkspaceSize(state.handle, plan.x, plan.w, plan.conv, plan.y, p.algo,
                                    &bytes) != CUDNN_STATUS_SUCCESS ||
        bytes > limit)
      continue;
    Epilogue e = Epilogue::None;
    if (key.hasEpilogue()) {
      bool fusable = relu || p.algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
      if (fusable && canFuse)
        e = Epilogue::Fused;
      else if (!relu)
        e = Epilogue::Adds;
      else
        continue; // ReLU without a bias to fuse with (during capture)
    }
    out.push_back({p.algo, p.mathType, bytes, e});
  }
  // tcc's own depthwise kernel, a 1x1 convolution as one cuBLASLt GEMM and
  // a small window's product as GEMMs compete with cuDNN's (timed like them;
  // last, so that without timing cuDNN's first choice runs).
  if (depthwiseKernelApplies(depthwiseShape(key)))
    out.push_back({-1, CUDNN_DEFAULT_MATH, 0, Epilogue::Own});
  // TCC_CONV_AS_GEMM=0 leaves the GEMMs out (to compare).
  const char *asGemm = std::getenv("TCC_CONV_AS_GEMM");
  const bool gemms = !asGemm || std::string(asGemm) != "0";
  if (gemms && convAsGemmApplies(depthwiseShape(key), key.activation, key.residual))
    out.push_back({-2, CUDNN_DEFAULT_MATH, 0, Epilogue::Gemm});
  if (gemms && im2colGemmApplies(depthwiseShape(key), key.activation, key.residual)) {
    size_t bytes = im2colGemmWorkspaceBytes(depthwiseShape(key));
    if (bytes <= limit)
      out.push_back({-3, CUDNN_DEFAULT_MATH, bytes, Epilogue::Im2colGemm});
  }
  // TCC_CONV_WINOGRAD=0 leaves tcc's Winograd way out (to compare).
  const char *winograd = std::getenv("TCC_CONV_WINOGRAD");
  if ((!winograd || std::string(winograd) != "0") &&
      winogradConvApplies(depthwiseShape(key), key.compute, key.activation)) {
    size_t bytes = winogradConvWorkspaceBytes(depthwiseShape(key));
    if (bytes <= limit)
      out.push_back({-4, CUDNN_DEFAULT_MATH, bytes, Epilogue::Winograd});
  }
  return out;
}

/// TCC_CONV_TIMINGS=1: each shape's candidates, as timed on the first call,
/// and the choice, on stderr (read once).
bool reportTimings() {
  static const bool on = [] {
    const char *v = std::getenv("TCC_CONV_TIMINGS");
    return v && std::string(v) == "1";
  }();
  return on;
}

/// A candidate's name: cuDNN's algorithm (cudnnConvolutionFwdAlgo_t) or tcc's own way.
const char *wayName(int algo) {
  switch (algo) {
  case -4: return "tcc Winograd F(4x4,3x3)";
  case -3: return "tcc im2col GEMM";
  case -2: return "tcc 1x1 GEMM";
  case -1: return "tcc depthwise kernel";
  case 0: return "IMPLICIT_GEMM";
  case 1: return "IMPLICIT_PRECOMP_GEMM";
  case 2: return "GEMM";
  case 3: return "DIRECT";
  case 4: return "FFT";
  case 5: return "FFT_TILING";
  case 6: return "WINOGRAD";
  case 7: return "WINOGRAD_NONFUSED";
  default: return "unknown";
  }
}

/// A way timed alone at more than timePlan's limit.
struct HopelessWay {
  float us;
};

/// Device microseconds per enqueue of `plan`, or a negative value when the
/// driver cannot tell. A few calls are captured into a CUDA graph on a
/// private stream and the graph's replays timed with events: the legacy
/// API's host work per call (tens of microseconds, more than many of these
/// convolutions take on the GPU) would otherwise be what events measure.
/// One call is timed alone first: a way slower than `hopelessUs` there is
/// not worth a graph, and is reported at that time. (cuDNN runs its FFT and
/// non-fused Winograd algorithms one group at a time: for a depthwise layer
/// of 576 channels a call is thousands of kernels, 3-10 ms, and capturing
/// four of them into a graph took minutes: MobileNetV2 b1's first call.)
/// `kernels` receives the launches per call (kernels and memsets: the
/// graph's nodes; 0 when the driver cannot count them).
float timePlan(const Cudnn &lib, ContextState &state, const Plan &plan, const PlanKey &key,
               const void *x, const void *w, const void *bias, const void *z, void *y,
               void *stream, float hopelessUs, size_t &kernels) {
  kernels = 0;
  const cuda::Driver &d = cuda::Driver::get();
  if (!d.hasEvents() || !d.hasGraphs())
    return -1.0f;
  constexpr int kCallsPerGraph = 4, kReplays = 3;
  cuda::CUstream timing = nullptr;
  cuda::CUgraph graph = nullptr;
  cuda::CUgraphExec exec = nullptr;
  cuda::CUevent start = nullptr, stop = nullptr;
  float result = std::numeric_limits<float>::infinity(); // a way that fails is never chosen
  try {
    d.check(d.cuStreamCreate(&timing, /*CU_STREAM_NON_BLOCKING=*/1), "cuStreamCreate");
    lib.check(lib.setStream(state.handle, timing), "cudnnSetStream");
    enqueue(lib, state, plan, key, x, w, bias, z, y, timing); // loads its kernels
    d.check(d.cuStreamSynchronize(timing), "cuStreamSynchronize");
    d.check(d.cuEventCreate(&start, 0), "cuEventCreate");
    d.check(d.cuEventCreate(&stop, 0), "cuEventCreate");
    d.check(d.cuEventRecord(start, timing), "cuEventRecord");
    enqueue(lib, state, plan, key, x, w, bias, z, y, timing);
    d.check(d.cuEventRecord(stop, timing), "cuEventRecord");
    d.check(d.cuEventSynchronize(stop), "cuEventSynchronize");
    float alone = 0;
    d.check(d.cuEventElapsedTime(&alone, start, stop), "cuEventElapsedTime");
    if (alone * 1000.0f > hopelessUs)
      throw HopelessWay{alone * 1000.0f};
    d.check(d.cuStreamBeginCapture(timing, cuda::kCaptureModeThreadLocal), "cuStreamBeginCapture");
    try {
      for (int i = 0; i < kCallsPerGraph; ++i)
        enqueue(lib, state, plan, key, x, w, bias, z, y, timing);
    } catch (...) {
      (void)d.cuStreamEndCapture(timing, &graph);
      throw;
    }
    d.check(d.cuStreamEndCapture(timing, &graph), "cuStreamEndCapture");
    size_t nodes = 0;
    if (d.cuGraphGetNodes && d.cuGraphGetNodes(graph, nullptr, &nodes) == 0)
      kernels = nodes / kCallsPerGraph;
    d.check(d.cuGraphInstantiateWithFlags(&exec, graph, 0), "cuGraphInstantiateWithFlags");
    d.check(d.cuGraphLaunch(exec, timing), "cuGraphLaunch");
    std::vector<float> times;
    for (int i = 0; i < kReplays; ++i) {
      d.check(d.cuEventRecord(start, timing), "cuEventRecord");
      d.check(d.cuGraphLaunch(exec, timing), "cuGraphLaunch");
      d.check(d.cuEventRecord(stop, timing), "cuEventRecord");
      d.check(d.cuEventSynchronize(stop), "cuEventSynchronize");
      float ms = 0;
      d.check(d.cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
      times.push_back(ms * 1000.0f / kCallsPerGraph);
    }
    std::sort(times.begin(), times.end());
    result = times[times.size() / 2];
  } catch (const RuntimeError &) {
  } catch (const HopelessWay &slow) {
    result = slow.us;
  }
  if (start) (void)d.cuEventDestroy(start);
  if (stop) (void)d.cuEventDestroy(stop);
  if (exec) (void)d.cuGraphExecDestroy(exec);
  if (graph) (void)d.cuGraphDestroy(graph);
  if (timing) {
    (void)d.cuStreamSynchronize(timing);
    (void)d.cuStreamDestroy(timing);
  }
  (void)lib.setStream(state.handle, stream);
  return result;
}

std::unique_ptr<Plan> makePlan(const Cudnn &lib, ContextState &state, const PlanKey &key,
                               const void *x, const void *w, const void *bias, const void *z,
                               const void *y, void *stream) {
  auto plan = std::make_unique<Plan>();
  plan->lib = &lib;
  std::string shape = shapeText(key);
  for (cudnnTensorDescriptor_t *t : {&plan->x, &plan->y, &plan->z, &plan->bias})
    lib.check(lib.createTensor(t), "cudnnCreateTensorDescriptor");
  lib.check(lib.createFilter(&plan->w), "cudnnCreateFilterDescriptor");
  lib.check(lib.createConv(&plan->conv), "cudnnCreateConvolutionDescriptor");
  lib.check(lib.createActivation(&plan->act), "cudnnCreateActivationDescriptor");
  setImage(lib, plan->x, key, key.c, key.h, key.w, key.xStrides, "x");
  setImage(lib, plan->y, key, key.k, key.oh, key.ow, key.yStrides, "y");
  setImage(lib, plan->z, key, key.k, key.oh, key.ow, key.residual ? key.zStrides : key.yStrides,
           "z");
  lib.check(lib.setTensor4dEx(plan->bias, cudnnType(key.dtype), 1, toInt(key.k, "channels"), 1, 1,
                              toInt(key.k, "stride"), 1, 1, 1),
            "cudnnSetTensor4dDescriptorEx(bias) for " + shape);
  bool nhwc = key.layout == kConvLayoutNhwc;
  lib.check(lib.setFilter4d(plan->w, cudnnType(key.dtype), nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                            toInt(key.k, "filters"), toInt(key.c / key.groups, "channels"),
                            toInt(key.r, "kernel"), toInt(key.s, "kernel")),
            "cudnnSetFilter4dDescriptor for " + shape);
  lib.check(lib.setConv2d(plan->conv, toInt(key.padH, "padding"), toInt(key.padW, "padding"),
                          toInt(key.sh, "stride"), toInt(key.sw, "stride"),
                          toInt(key.dh, "dilation"), toInt(key.dw, "dilation"),
                          CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
            "cudnnSetConvolution2dDescriptor for " + shape);
  if (key.groups > 1)
    lib.check(lib.setConvGroupCount(plan->conv, toInt(key.groups, "groups")),
              "cudnnSetConvolutionGroupCount for " + shape);
  // fp32: FMA kernels only (CUDNN_DEFAULT_MATH would let Ampere+ use TF32
  // tensor cores for float); TF32 allowed: default math; halves: tensor ops.
  int math = key.dtype != kKernelF32 ? CUDNN_TENSOR_OP_MATH
             : key.compute == kConvComputeTf32 ? CUDNN_DEFAULT_MATH
                                              : CUDNN_FMA_MATH;
  lib.check(lib.setConvMathType(plan->conv, math), "cudnnSetConvolutionMathType for " + shape);
  bool relu = key.activation == kConvActivationRelu;
  lib.check(lib.setActivation(plan->act, relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY,
                              CUDNN_NOT_PROPAGATE_NAN, 0.0),
            "cudnnSetActivationDescriptor for " + shape);

  // Under capture nothing may allocate: the workspace cannot grow, a zero
  // bias cannot be made, and nothing is timed (cuDNN's first choice runs).
  bool capturing = isCapturing(stream);
  if (!capturing && key.hasEpilogue() && !key.bias) {
    std::vector<uint8_t> zeros(static_cast<size_t>(key.k) * kernelDTypeBytes(key.dtype), 0);
    plan->zeroBias = cuda::DeviceBuffer(zeros.size());
    cuda::Driver::get().check(
        cuda::Driver::get().cuMemcpyHtoD(plan->zeroBias.get(), zeros.data(), zeros.size()),
        "zero bias for a fused convolution");
  }
  // Outside capture every algorithm is a candidate (timed below); the ones
  // within `preferred` bytes of workspace are kept unless another is clearly
  // faster.
  size_t preferred = std::max(state.workspace.bytes(), kPreferredWorkspaceBytes);
  size_t limit = capturing ? state.workspace.bytes() : kMaxWorkspaceBytes;
  std::vector<Candidate> ways = candidates(lib, state, *plan, key, limit, plan->zeroBias.bytes() > 0);
  if (ways.empty()) {
    // cuDNN's channels-last convolutions take packed images only.
    bool stridedNhwc = key.layout == kConvLayoutNhwc &&
                       (!packedChannelsLastPixels(key.xStrides, key.c, key.w) ||
                        !packedChannelsLastPixels(key.yStrides, key.k, key.ow) ||
                        (key.residual && !packedChannelsLastPixels(key.zStrides, key.k, key.ow)));
    bool ownActivation = key.activation != kConvActivationNone &&
                         key.activation != kConvActivationRelu;
    throw RuntimeError(TCC_ERROR_UNSUPPORTED,
                       "cudnn: no forward algorithm for the convolution " + shape +
                           (ownActivation ? " (with activations only tcc's depthwise kernel "
                                            "applies)"
                            : stridedNhwc ? " (channels-last views with strided pixels or rows: "
                                            "only tcc's depthwise kernel takes them)"
                            : capturing ? " within the workspace there is (first seen during "
                                          "stream capture; run it once outside capture)"
                                        : ""));
  }
  auto take = [&](const Candidate &c) {
    (void)lib.setConvMathType(plan->conv, c.mathType);
    plan->algo = c.algo;
    plan->workspaceBytes = c.workspaceBytes;
    plan->epilogue = c.epilogue;
  };
  // TCC_CUDNN_ALGO=heuristic: cuDNN's first choice; =own: tcc's own kernel,
  // =gemm: the 1x1 cuBLASLt GEMM, =im2col: the windows' GEMM, =winograd:
  // tcc's Winograd, where they apply (for their tests); otherwise the
  // fastest, timed.
  const char *mode = std::getenv("TCC_CUDNN_ALGO");
  std::string chosenMode = mode ? mode : "";
  bool forcedMode = chosenMode == "own" || chosenMode == "gemm" || chosenMode == "im2col" ||
                    chosenMode == "winograd";
  bool measure = !capturing && ways.size() > 1 && chosenMode != "heuristic" && !forcedMode;
  const Candidate *best = &ways.front();
  const Epilogue forced = chosenMode == "own"        ? Epilogue::Own
                          : chosenMode == "gemm"     ? Epilogue::Gemm
                          : chosenMode == "winograd" ? Epilogue::Winograd
                                                     : Epilogue::Im2colGemm;
  bool forcedApplies = false;
  for (const Candidate &c : ways)
    if (forcedMode && c.epilogue == forced) {
      best = &c;
      forcedApplies = true;
    }
  if (measure) {
    // Each way timed as it will run (epilogue included) into a scratch
    // output: y may be the residual, and the caller's buffers must not
    // change. Synchronous, once per shape.
    size_t most = 0;
    for (const Candidate &c : ways)
      most = std::max(most, c.workspaceBytes);
    // The timing runs in a workspace of its own when the candidates need more
    // than there is: only the winner's need stays.
    cuda::DeviceBuffer timingWorkspace;
    if (most > state.workspace.bytes()) {
      timingWorkspace = cuda::DeviceBuffer(most);
      std::swap(state.workspace, timingWorkspace);
    }
    // As many elements as y's view spans in its buffer.
    int64_t elements = 1;
    for (auto [size, stride] : {std::pair{key.n, key.yStrides[0]}, {key.k, key.yStrides[1]},
                                {key.oh, key.yStrides[2]}, {key.ow, key.yStrides[3]}})
      elements += (size - 1) * stride;
    cuda::DeviceBuffer scratch(static_cast<size_t>(elements) * kernelDTypeBytes(key.dtype));
    const void *zIn = z == y ? scratch.data() : z;
    float fastest = std::numeric_limits<float>::infinity(), fastestSmall = fastest;
    const Candidate *small = nullptr;
    for (const Candidate &c : ways) {
      take(c);
      size_t kernels = 0;
      float us = timePlan(lib, state, *plan, key, x, w, bias, zIn, scratch.data(), stream,
                          std::max(kHopelessFactor * fastest, kHopelessFloorUs), kernels);
      if (reportTimings())
        std::fprintf(stderr, "tcc conv timing: %s: %s (math %d, workspace %zu bytes): %.1f us, "
                     "%zu kernels\n", shapeText(key).c_str(), wayName(c.algo), c.mathType,
                     c.workspaceBytes, us, kernels);
      if (us < 0)
        break; // no events: cuDNN's order
      if (us < fastest) {
        fastest = us;
        best = &c;
      }
      if (c.workspaceBytes <= preferred && us < fastestSmall) {
        fastestSmall = us;
        small = &c;
      }
    }
    if (timingWorkspace.bytes())
      std::swap(state.workspace, timingWorkspace);
    if (small && fastestSmall <= kWorkspaceWorthIt * fastest)
      best = small;
  } else if (!capturing && !forcedApplies) {
    // Untimed: cuDNN's first choice within the preferred workspace, if any.
    for (const Candidate &c : ways)
      if (c.workspaceBytes <= preferred) {
        best = &c;
        break;
      }
  }
  take(*best);
  if (measure && reportTimings())
    std::fprintf(stderr, "tcc conv timing: %s: chose %s\n", shapeText(key).c_str(),
                 wayName(best->algo));
  if (!capturing)
    state.reserveWorkspace(plan->workspaceBytes);
  return plan;
}

} // namespace

extern "C" void tcc_conv2d(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r,
                           int64_t s, int64_t oh, int64_t ow, int64_t padH, int64_t padW,
                           int64_t strideH, int64_t strideW, int64_t dilationH, int64_t dilationW,
                           int64_t groups, int64_t xStrideN, int64_t xStrideC,
                           int64_t xStrideH, int64_t xStrideW, int64_t yStrideN,
                           int64_t yStrideC, int64_t yStrideH, int64_t yStrideW,
                           int64_t zStrideN, int64_t zStrideC, int64_t zStrideH,
                           int64_t zStrideW, const void *x, const void *weight,
                           const void *bias, const void *z, void *y, int32_t dtype,
                           int32_t compute, int32_t activation, int32_t layout, void *stream) {
  if (hasKernelLaunchError())
    return;
  if (n <= 0 || k <= 0 || oh <= 0 || ow <= 0)
    return; // an empty result
  try {
    // Bits above the activations are hints for the CPU path (CudnnConv.h).
    const bool unknownBits = activation < 0 || activation >> 17;
    activation = convActivationBits(activation);
    std::array<int64_t, 4> zStrides{0, 0, 0, 0};
    if (z)
      zStrides = {zStrideN, zStrideC, zStrideH, zStrideW};
    PlanKey key{n,         c,       h,       w,       k,       r,       s,
                oh,        ow,      padH,    padW,    strideH, strideW, dilationH,
                dilationW, groups,  {xStrideN, xStrideC, xStrideH, xStrideW},
                {yStrideN, yStrideC, yStrideH, yStrideW}, zStrides,
                dtype,     compute, activation, layout, bias != nullptr, z != nullptr};
    if (c <= 0 || r <= 0 || s <= 0 || strideH <= 0 || strideW <= 0 || dilationH <= 0 ||
        dilationW <= 0 || padH < 0 || padW < 0 || groups <= 0 || c % groups || k % groups)
      throw RuntimeError(TCC_ERROR_UNSUPPORTED,
                         "cudnn: unsupported convolution " + shapeText(key));
    if (unknownBits || convEpilogueActivation(activation) > kConvActivationHardswish ||
        convInputActivation(activation) > kConvActivationHardswish)
      throw RuntimeError(TCC_ERROR_UNSUPPORTED, "cudnn: unknown activation code " +
                                                    std::to_string(activation) + " for " +
                                                    shapeText(key));
    // cuDNN derives the output size from the rest; it must be the one the
    // buffers have.
    int64_t expectH = (h + 2 * padH - dilationH * (r - 1) - 1) / strideH + 1;
    int64_t expectW = (w + 2 * padW - dilationW * (s - 1) - 1) / strideW + 1;
    if (expectH != oh || expectW != ow)
      throw RuntimeError(TCC_ERROR_INTERNAL,
                         "cudnn: convolution output " + std::to_string(oh) + "x" +
                             std::to_string(ow) + " does not match " + shapeText(key));
    const Cudnn &lib = Cudnn::get();
    ContextState &state = stateForCurrentContext(lib);
    lib.check(lib.setStream(state.handle, stream), "cudnnSetStream");
    auto &slot = state.part<ConvPlans>(cudnn::Part::Convolution).plans[key];
    if (!slot)
      slot = makePlan(lib, state, key, x, weight, bias, z, y, stream);
    enqueue(lib, state, *slot, key, x, weight, bias, z, y, stream);
  } catch (const std::exception &e) {
    recordKernelLaunchError(e.what());
  }
}
