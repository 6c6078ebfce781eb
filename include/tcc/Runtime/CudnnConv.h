//===- CudnnConv.h - 2-D convolutions of the CUDA path through cuDNN 9 ----===//
//
// convert-tcc-kernel-to-cuda (lib/Conversion/KernelCalls/ConvCalls.cpp)
// turns each tcc_kernel.conv of the CUDA path into a call of `tcc_conv2d`,
// implemented in lib/Runtime/CudnnConv.cpp on cuDNN 9's convolution API,
// opened with dlopen on the first convolution (model.so still loads, and
// runs its CPU path, without cuDNN). The enums below are the ABI between
// that pass and the runtime.
//
// Errors are reported as tcc_gemm's are (CublasLtGemm.h): recorded in the
// per-thread slot of kernel launch failures (MlirGpuRuntime.h), the rest of
// the call skipped, a RuntimeError when the CUDA entry returns.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_CUDNNCONV_H
#define TCC_RUNTIME_CUDNNCONV_H

#include <cstdint>

namespace tcc {

/// Arithmetic of the products: fp32 only (CUDNN_FMA_MATH), or TF32 allowed
/// (CUDNN_DEFAULT_MATH, `--precision tf32`). The ABI between pass and runtime.
enum ConvCompute : int32_t {
  kConvComputeF32 = 0,
  kConvComputeTf32 = 1,
};

/// The layout of tcc_conv2d's tensors: NCHW (filters FCRS) or NHWC (filters FRSC).
enum ConvLayout : int32_t {
  kConvLayoutNchw = 0,
  kConvLayoutNhwc = 1,
};

/// The activation of tcc_conv2d's epilogue.
/// relu6, silu and hardswish only where tcc's depthwise kernel computes the
/// convolution (DepthwiseKernel.h). tcc_conv2d's `activation` argument
/// carries two: the epilogue's in bits 0-7, the input's (applied to each
/// input element before the window sums; zero padding stays zero) in bits
/// 8-15 (convActivations).
enum ConvActivation : int32_t {
  kConvActivationNone = 0,
  kConvActivationRelu = 1,
  kConvActivationRelu6 = 2,
  kConvActivationSilu = 3,
  kConvActivationHardswish = 4,
};

/// tcc_conv2d's `activation` argument: the epilogue's and the input's.
constexpr int32_t convActivations(int32_t epilogue, int32_t input) {
  return epilogue | input << 8;
}
constexpr int32_t convEpilogueActivation(int32_t activations) { return activations & 0xff; }
constexpr int32_t convInputActivation(int32_t activations) { return activations >> 8 & 0xff; }

/// Bit 16 of the same argument: the filter is a bound weight (its values
/// change only when weights are bound), so the CPU path may keep its filter
/// in oneDNN's blocked layout until weights are bound again (OneDnnConv.h).
constexpr int32_t kConvFilterIsBoundWeight = 1 << 16;
constexpr int32_t convActivationBits(int32_t argument) { return argument & 0xffff; }
constexpr bool convFilterIsBoundWeight(int32_t argument) {
  return (argument & kConvFilterIsBoundWeight) != 0;
}

} // namespace tcc

extern "C" {

/// y = activation(conv2d(x, weight) + bias + z), PyTorch's conv2d (a
/// cross-correlation) with zero padding:
///
///   y[b, f, i, j] = sum_{ci, u, v} x[b, g·C/G + ci, i·sh − padH + u·dh, j·sw − padW + v·dw]
///                                  · weight[f, ci, u, v]  (+ bias[f] + z[b, f, i, j])
///
/// with g = f / (K/G) (PyTorch's grouped weight is group-major) and x read as
/// 0 outside the image. Each of x, y and z is given by its four strides in
/// elements, in batch, channel, row, column order whatever the layout (the
/// `*StrideN, *StrideC, *StrideH, *StrideW` arguments): packed NCHW is
/// (c·h·w, h·w, w, 1), packed NHWC (h·w·c, 1, w·c, c). So x, y and z may be
/// views of larger buffers, as memory planning leaves them: NCHW channel
/// slices of a concatenation's buffer (a batch stride); channels-last, cuDNN
/// takes packed images only (any batch stride), and views with strided pixels
/// or rows (channel slices, a padded buffer's interior) only where tcc's
/// depthwise kernel computes the convolution (DepthwiseKernel.h; otherwise
/// the error names the convolution). `layout` is the filter's: kConvLayoutNchw
/// k×(c/groups)×r×s, kConvLayoutNhwc k×r×s×(c/groups) (and the layout the
/// tensors' strides are expected to be near). bias ([k]) and z may be NULL
/// (z's strides are then ignored); z may be y itself with y's strides (a
/// residual updated in place).
///
/// oh, ow must be floor((h + 2·padH − dh·(r−1) − 1) / sh) + 1 (and likewise
/// for w). `dtype` is a KernelDType (KernelTypes.h) shared by all tensors;
/// products accumulate in f32. The algorithm is timed on the first call of
/// each shape outside stream capture (TCC_CUDNN_ALGO=heuristic: cuDNN's
/// heuristics instead). All pointers are device pointers; the work is
/// enqueued on `stream` (a CUstream, NULL for the legacy default stream);
/// nothing is synchronized after the first call of a shape.
typedef void TccConv2dFn(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r,
                         int64_t s, int64_t oh, int64_t ow, int64_t padH, int64_t padW,
                         int64_t strideH, int64_t strideW, int64_t dilationH,
                         int64_t dilationW, int64_t groups, int64_t xStrideN, int64_t xStrideC,
                         int64_t xStrideH, int64_t xStrideW, int64_t yStrideN, int64_t yStrideC,
                         int64_t yStrideH, int64_t yStrideW, int64_t zStrideN, int64_t zStrideC,
                         int64_t zStrideH, int64_t zStrideW, const void *x, const void *weight,
                         const void *bias, const void *z, void *y, int32_t dtype,
                         int32_t compute, int32_t activation, int32_t layout, void *stream);
/// The CUDA path's convolution; tcc_cpu_conv2d (CpuGemm.h) shares its
/// signature, so one call lowering (ConvCalls.cpp) emits both.
TccConv2dFn tcc_conv2d;

} // extern "C"

#endif // TCC_RUNTIME_CUDNNCONV_H
