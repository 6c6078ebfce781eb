//===- Im2colParams.h - the im2col kernels' argument -----------------------===//
//
// Included by Kernels/Im2col.cu (nvcc) and ConvAsGemm.cpp (g++): plain C++17,
// no CUDA types. Passed by value as each kernel's single argument.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_RUNTIME_KERNELS_IM2COLPARAMS_H
#define TCC_LIB_RUNTIME_KERNELS_IM2COLPARAMS_H

#include <cstdint>

namespace tcc_im2col {

/// Threads per block; the longest row (window terms, rounded up to 8).
constexpr int kThreads = 256, kMaxRowLength = 256;

struct Im2colParams {
  const void *x;        ///< the input, channels-last (element strides below)
  void *cols;           ///< [images * oh * ow, rowLength]: one row per output pixel
  const void *w;        ///< [k, terms]: the filters, channels-last ([K, R, S, C])
  void *wPadded;        ///< [k, rowLength]: the same, zero-padded
  int64_t xStrides[4];  ///< batch, channel, row, column
  int32_t firstImage, images, c, h, w_, oh, ow, r, s;
  int32_t padH, padW, strideH, strideW, dilationH, dilationW;
  int32_t terms;     ///< r * s * c: a row's window, in (row, column, channel) order
  int32_t rowLength; ///< terms rounded up to a multiple of 8 (aligned GEMM rows)
  int32_t k;         ///< filters
};
static_assert(sizeof(Im2colParams) == 136, "Im2colParams: unexpected layout");

} // namespace tcc_im2col

#endif // TCC_LIB_RUNTIME_KERNELS_IM2COLPARAMS_H
