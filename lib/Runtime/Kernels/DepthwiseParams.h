//===- DepthwiseParams.h - the depthwise kernels' argument -----------------===//
//
// Included by Kernels/Depthwise.cu (nvcc) and DepthwiseConv.cpp (g++): plain
// C++17, no CUDA types. Passed by value as each kernel's single argument.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_RUNTIME_KERNELS_DEPTHWISEPARAMS_H
#define TCC_LIB_RUNTIME_KERNELS_DEPTHWISEPARAMS_H

#include <cstddef>
#include <cstdint>

namespace tcc_depthwise {

/// NCHW: output tile of one block: kTileW x kTileH outputs of one (image,
/// channel) plane; kThreads threads, each computing kTileH / (kThreads /
/// kTileW) outputs of a column (the halo is then a smaller share of the tile).
constexpr int kTileW = 32, kTileH = 32, kThreads = 256;

/// NHWC: a block is kNhwcChannels consecutive channels (a warp: one 128-byte
/// line of f32 per pixel) x kNhwcStrips strips of kNhwcColumns consecutive
/// output columns of one row; each thread computes one channel of one strip.
constexpr int kNhwcChannels = 32, kNhwcStrips = 8, kNhwcColumns = 4;
static_assert(kNhwcChannels * kNhwcStrips == kThreads, "one block size for both layouts");

/// The largest window (filter taps) the kernels take: 7x7.
constexpr int kMaxTaps = 49;

struct DepthwiseParams {
  const void *x;    ///< the input, of the element type the kernel is named for
  const void *w;    ///< [C, 1, R, S] (NCHW) or [C, R, S, 1] (NHWC): the same bytes
  const void *bias; ///< [C] or null
  const void *z;    ///< residual shaped like y, or null
  void *y;
  /// Element strides in batch, channel, row, column order. The NCHW kernel
  /// reads packed planes (only the batch stride free); the NHWC kernel
  /// packed channels (channel stride 1).
  int64_t xStrides[4], yStrides[4], zStrides[4];
  int32_t c, h, w_, oh, ow, r, s;
  int32_t padH, padW, strideH, strideW, dilationH, dilationW;
  int32_t tileInH, tileInW; ///< NCHW: the input tile a block reads (with its halo)
  int32_t relu;
};
static_assert(sizeof(DepthwiseParams) == 200, "DepthwiseParams: unexpected layout");

} // namespace tcc_depthwise

#endif // TCC_LIB_RUNTIME_KERNELS_DEPTHWISEPARAMS_H
