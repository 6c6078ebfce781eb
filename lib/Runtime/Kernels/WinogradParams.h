//===- WinogradParams.h - the Winograd convolution kernels' argument -------===//
//
// Included by Kernels/Winograd.cu (nvcc) and WinogradConv.cpp (g++): plain
// C++17, no CUDA types. Passed by value as each kernel's single argument.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_RUNTIME_KERNELS_WINOGRADPARAMS_H
#define TCC_LIB_RUNTIME_KERNELS_WINOGRADPARAMS_H

#include <cstdint>

namespace tcc_winograd {

/// Threads per block of both kernels.
constexpr int kThreads = 256;

/// A 3x3, stride-1 convolution of f32 tensors as F(4x4, 3x3) (WinogradConv.h).
/// The transformed operands are 36 planes each, element ξ of every tile in
/// plane ξ: v [36][tiles][c] (inputs), u [36][k][c] (filters), m [36][tiles][k]
/// (their products, written by cuBLASLt); with channelMajor (NCHW tensors)
/// v [36][c][tiles] and m [36][k][tiles], so that a warp's threads, a tile
/// each, read and write along the images' rows. Tiles are numbered
/// image-major, then tile row, then tile column.
struct WinogradParams {
  const float *x;    ///< input, element strides xStrides (batch, channel, row, column)
  const float *w;    ///< filters [k][3][3][c] (filterNhwc) or [k][c][3][3]
  const float *bias; ///< [k] or null
  const float *z;    ///< residual, strides zStrides, or null
  float *y;          ///< output, strides yStrides
  float *v, *u, *m;  ///< the transformed planes (workspace)
  int64_t xStrides[4], yStrides[4], zStrides[4];
  int64_t inputBlocks; ///< tcc_winograd_transform's blocks before the filters'
  int32_t n, c, h, w_, k, oh, ow, padH, padW, tilesH, tilesW;
  int32_t filterNhwc;   ///< 1: w is [k][3][3][c]
  int32_t channelMajor; ///< 1: v and m channel-major, threads along tiles
  int32_t relu;         ///< 1: y = max(0, conv + bias + z)
  /// channelMajor only: 1 when the input's rows may be read 4 elements at a
  /// time (padding 1, width a multiple of 4, 16-byte aligned rows)...
  int32_t vectorInput;
  /// ...and the outputs' (and residual's) rows written (read) so.
  int32_t vectorOutput;
};
static_assert(sizeof(WinogradParams) == 232, "WinogradParams: unexpected layout");

} // namespace tcc_winograd

#endif // TCC_LIB_RUNTIME_KERNELS_WINOGRADPARAMS_H
