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

/// Whether `strides` (batch, channel, row, column) are channels-last with
/// packed pixels over images `w` wide with `c` channels: channels innermost,
/// then columns, then rows (any batch stride), as cuDNN's channels-last
/// convolutions and tcc's GEMM and Winograd ways take them.
inline bool packedChannelsLastPixels(const std::array<int64_t, 4> &strides, int64_t c,
                                     int64_t w) {
  return strides[1] == 1 && strides[3] == c && strides[2] == w * c;
}

/// The input's strides and the window's geometry of `s` into a kernel's
/// parameter block (DepthwiseParams, Im2colParams: the same int32 fields).
template <typename Params> void setWindowGeometry(Params &p, const DepthwiseShape &s) {
  for (int i = 0; i < 4; ++i)
    p.xStrides[i] = s.xStrides[i];
  p.c = static_cast<int32_t>(s.c);
  p.h = static_cast<int32_t>(s.h);
  p.w_ = static_cast<int32_t>(s.w);
  p.oh = static_cast<int32_t>(s.oh);
  p.ow = static_cast<int32_t>(s.ow);
  p.r = static_cast<int32_t>(s.r);
  p.s = static_cast<int32_t>(s.s);
  p.padH = static_cast<int32_t>(s.padH);
  p.padW = static_cast<int32_t>(s.padW);
  p.strideH = static_cast<int32_t>(s.strideH);
  p.strideW = static_cast<int32_t>(s.strideW);
  p.dilationH = static_cast<int32_t>(s.dilationH);
  p.dilationW = static_cast<int32_t>(s.dilationW);
}

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
