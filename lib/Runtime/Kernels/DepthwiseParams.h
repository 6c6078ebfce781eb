//===- DepthwiseParams.h - the depthwise kernels' argument -----------------===//
//
// Included by Kernels/Depthwise.cu (nvcc) and DepthwiseConv.cpp (g++): plain
// C++17, no CUDA types (under nvcc the shape functions are device functions
// too). Passed by value as each kernel's single argument.
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

/// NHWC: each thread computes kNhwcColumns consecutive outputs of a row (a
/// strip) for `vector` consecutive channels (4 where the tensors are aligned
/// to it, else 1); a block's threads are `channelGroups` groups of channels
/// (consecutive threads: consecutive channels, so a warp's accesses are
/// coalesced) times `strips` consecutive strips; at most kNhwcChannels
/// channels per block, whose filters it keeps in shared memory.
constexpr int kNhwcColumns = 4, kNhwcChannels = 128;

/// NHWC tiled (square 3x3, 5x5 and 7x7 windows at stride 1, no dilation, 4
/// channels per thread): a block computes a tile of kTiledRows x kTiledStrips
/// strips of kNhwcColumns outputs for at most kTiledChannels channels; its
/// input tile, halo included, goes to shared memory once (the input
/// activation applied once per element), then each of its workers (one strip
/// for one group of 4 channels) sums its strip from there. The tile's shape
/// is fixed so that the kernel's index arithmetic is by constants.
constexpr int kTiledChannels = 32, kTiledRows = 8, kTiledStrips = 4;

#ifdef __CUDACC__
#define TCC_DEPTHWISE_SHAPE_FN __host__ __device__ constexpr
#else
#define TCC_DEPTHWISE_SHAPE_FN constexpr
#endif

/// The tiled kernel's input tile for a K x K window at stride S.
TCC_DEPTHWISE_SHAPE_FN int tiledInputRows(int k, int s) { return (kTiledRows - 1) * s + k; }
TCC_DEPTHWISE_SHAPE_FN int tiledInputColumns(int k, int s) {
  return (kTiledStrips * kNhwcColumns - 1) * s + k;
}

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
  int32_t activation, inputActivation; ///< ConvActivation codes (CudnnConv.h)
  int32_t channelGroups, strips; ///< NHWC: a block's threads (groups of `vector` channels)
  int32_t columnStrips;          ///< NHWC: strips per output row
  int32_t n;                     ///< images
  int32_t tilesH, tilesW; ///< NHWC tiled: output tiles per image
};
static_assert(sizeof(DepthwiseParams) == 232, "DepthwiseParams: unexpected layout");

} // namespace tcc_depthwise

#endif // TCC_LIB_RUNTIME_KERNELS_DEPTHWISEPARAMS_H
