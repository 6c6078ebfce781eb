//===- DepthwiseConv.h - tcc's own depthwise convolution kernel -----------===//
//
// Private to the runtime: tcc_conv2d (CudnnConv.cpp) times this kernel
// against cuDNN's algorithms for each depthwise convolution it applies to
// and keeps the faster (Kernels/Depthwise.cu).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_RUNTIME_DEPTHWISECONV_H
#define TCC_LIB_RUNTIME_DEPTHWISECONV_H

#include <cstdint>

namespace tcc {

/// The convolution's shape and types, as tcc_conv2d receives them.
struct DepthwiseShape {
  int64_t n, c, h, w, k, r, s, oh, ow, padH, padW, strideH, strideW, dilationH, dilationW, groups;
  int64_t xBatchStride, yBatchStride, zBatchStride;
  int32_t dtype, layout;
  bool packedImages; ///< x, y and z images packed NCHW (only their batch strides free)
};

/// Whether the kernel computes it: f32 NCHW with packed images, one filter per channel
/// (groups = C = K), windows up to 7x7, strides and dilations up to 4.
bool depthwiseKernelApplies(const DepthwiseShape &shape);

/// Enqueues y = act(depthwise(x, w) + bias + z) on `stream` (bias, z may be null).
void launchDepthwiseKernel(const DepthwiseShape &shape, const void *x, const void *w,
                           const void *bias, const void *z, void *y, bool relu, void *stream);

} // namespace tcc

#endif // TCC_LIB_RUNTIME_DEPTHWISECONV_H
