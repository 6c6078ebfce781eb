//===- DepthwiseConv.cpp - launches Kernels/Depthwise.cu ------------------===//
#include "DepthwiseConv.h"

#include "Kernels/DepthwiseParams.h"

#include "tcc/Runtime/CudnnConv.h"
#include "tcc/Runtime/KernelLibrary.h"
#include "tcc/Runtime/KernelTypes.h"

#include <climits>

using namespace tcc;
using tcc_depthwise::DepthwiseParams;
using tcc_depthwise::kTileH;
using tcc_depthwise::kTileW;

bool tcc::depthwiseKernelApplies(const DepthwiseShape &d) {
  auto small = [](int64_t v, int64_t most) { return v >= 1 && v <= most; };
  return d.dtype == kKernelF32 && d.layout == kConvLayoutNchw && d.packedImages &&
         d.groups == d.c && d.k == d.c && small(d.r, 7) && small(d.s, 7) && small(d.strideH, 4) &&
         small(d.strideW, 4) && small(d.dilationH, 4) && small(d.dilationW, 4) &&
         d.h * d.w < INT_MAX && d.n * d.c <= 65535 && // gridDim.z
         // The input tile and filter within the default 48 KiB of shared memory.
         ((kTileH - 1) * d.strideH + (d.r - 1) * d.dilationH + 1) *
                     ((kTileW - 1) * d.strideW + (d.s - 1) * d.dilationW + 1) +
                 d.r * d.s <= 12 * 1024;
}

void tcc::launchDepthwiseKernel(const DepthwiseShape &d, const void *x, const void *w,
                                const void *bias, const void *z, void *y, bool relu,
                                void *stream) {
  DepthwiseParams p{};
  p.x = static_cast<const float *>(x);
  p.w = static_cast<const float *>(w);
  p.bias = static_cast<const float *>(bias);
  p.z = static_cast<const float *>(z);
  p.y = static_cast<float *>(y);
  p.xBatchStride = d.xBatchStride;
  p.yBatchStride = d.yBatchStride;
  p.zBatchStride = d.zBatchStride;
  p.c = static_cast<int32_t>(d.c);
  p.h = static_cast<int32_t>(d.h);
  p.w_ = static_cast<int32_t>(d.w);
  p.oh = static_cast<int32_t>(d.oh);
  p.ow = static_cast<int32_t>(d.ow);
  p.r = static_cast<int32_t>(d.r);
  p.s = static_cast<int32_t>(d.s);
  p.padH = static_cast<int32_t>(d.padH);
  p.padW = static_cast<int32_t>(d.padW);
  p.strideH = static_cast<int32_t>(d.strideH);
  p.strideW = static_cast<int32_t>(d.strideW);
  p.dilationH = static_cast<int32_t>(d.dilationH);
  p.dilationW = static_cast<int32_t>(d.dilationW);
  p.tileInH = (kTileH - 1) * p.strideH + (p.r - 1) * p.dilationH + 1;
  p.tileInW = (kTileW - 1) * p.strideW + (p.s - 1) * p.dilationW + 1;
  p.relu = relu ? 1 : 0;
  const char *name = d.r == d.s && d.r == 3   ? "tcc_depthwise_f32_k3"
                     : d.r == d.s && d.r == 5 ? "tcc_depthwise_f32_k5"
                     : d.r == d.s && d.r == 7 ? "tcc_depthwise_f32_k7"
                                              : "tcc_depthwise_f32_any";
  // Function handles are cached by the kernel library per context.
  cuda::CUfunction function = kernelLibraryFunction(KernelImage::Depthwise, name);
  unsigned shared = static_cast<unsigned>((p.tileInH * p.tileInW + p.r * p.s) * sizeof(float));
  unsigned gridX = static_cast<unsigned>((d.ow + kTileW - 1) / kTileW);
  unsigned gridY = static_cast<unsigned>((d.oh + kTileH - 1) / kTileH);
  void *args[] = {&p};
  launchLibraryKernel(function, name, gridX, gridY, static_cast<unsigned>(d.n * d.c),
                      tcc_depthwise::kThreads, shared, stream, args);
}
