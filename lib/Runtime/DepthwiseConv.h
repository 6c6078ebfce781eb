//===- DepthwiseConv.h - tcc's own depthwise convolution kernel -----------===//
//
// Private to the runtime: tcc_conv2d (CudnnConv.cpp) times this kernel
// against cuDNN's algorithms for each depthwise convolution it applies to
// and keeps the faster (Kernels/Depthwise.cu).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_RUNTIME_DEPTHWISECONV_H
#define TCC_LIB_RUNTIME_DEPTHWISECONV_H

#include <array>
#include <cstdint>

namespace tcc {

/// The convolution's shape and types, as tcc_conv2d receives them.
struct DepthwiseShape {
  int64_t n, c, h, w, k, r, s, oh, ow, padH, padW, strideH, strideW, dilationH, dilationW, groups;
  /// Element strides in batch, channel, row, column order (z's all 0 without a residual).
  std::array<int64_t, 4> xStrides, yStrides, zStrides;
  int32_t dtype, layout;
};

/// Whether a kernel computes it: depthwiseKernelTakes (DepthwiseKernel.h), and
/// f32 NCHW with packed images (only the batch strides free), or f32/f16/bf16
/// NHWC with packed channels (pixels and rows may be strided: a channel slice,
/// a padded buffer's interior).
bool depthwiseKernelApplies(const DepthwiseShape &shape);

/// Enqueues y = act(depthwise(inputAct(x), w) + bias + z) on `stream` (bias, z
/// may be null); `activations` as tcc_conv2d's (convActivations, CudnnConv.h).
void launchDepthwiseKernel(const DepthwiseShape &shape, const void *x, const void *w,
                           const void *bias, const void *z, void *y, int32_t activations,
                           void *stream);

} // namespace tcc

#endif // TCC_LIB_RUNTIME_DEPTHWISECONV_H
