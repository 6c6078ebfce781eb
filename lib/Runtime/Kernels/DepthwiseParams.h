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

/// Output tile of one block: kTileW x kTileH outputs of one (image, channel)
/// plane; kThreads threads, each computing kTileH / (kThreads / kTileW)
/// outputs of a column (the halo is then a smaller share of the tile).
constexpr int kTileW = 32, kTileH = 32, kThreads = 256;

struct DepthwiseParams {
  const float *x;     ///< NCHW, images xBatchStride apart
  const float *w;     ///< [C, 1, R, S]
  const float *bias;  ///< [C] or null
  const float *z;     ///< residual shaped like y, or null
  float *y;           ///< NCHW, images yBatchStride apart
  int64_t xBatchStride, yBatchStride, zBatchStride;
  int32_t c, h, w_, oh, ow, r, s;
  int32_t padH, padW, strideH, strideW, dilationH, dilationW;
  int32_t tileInH, tileInW; ///< the input tile a block reads (with its halo)
  int32_t relu;
};
static_assert(sizeof(DepthwiseParams) == 128, "DepthwiseParams: unexpected layout");

} // namespace tcc_depthwise

#endif // TCC_LIB_RUNTIME_KERNELS_DEPTHWISEPARAMS_H
