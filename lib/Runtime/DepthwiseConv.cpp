//===- DepthwiseConv.cpp - launches Kernels/Depthwise.cu ------------------===//
#include "DepthwiseConv.h"

#include "Kernels/DepthwiseParams.h"

#include "tcc/Runtime/CudnnConv.h"
#include "tcc/Runtime/KernelLibrary.h"
#include "tcc/Runtime/KernelTypes.h"

#include <climits>

using namespace tcc;
using tcc_depthwise::DepthwiseParams;
using tcc_depthwise::kNhwcChannels;
using tcc_depthwise::kNhwcColumns;
using tcc_depthwise::kNhwcStrips;
using tcc_depthwise::kTileH;
using tcc_depthwise::kTileW;

namespace {

/// Images of `h x w` whose planes are packed NCHW (only the batch stride free).
bool packedPlanes(const std::array<int64_t, 4> &strides, int64_t h, int64_t w) {
  return strides[1] == h * w && strides[2] == w && strides[3] == 1;
}

/// Whether the window's input tile and filter fit the NCHW kernel's 48 KiB
/// of shared memory (the default without opting in).
bool nchwTileFits(const DepthwiseShape &d) {
  return ((kTileH - 1) * d.strideH + (d.r - 1) * d.dilationH + 1) *
                 ((kTileW - 1) * d.strideW + (d.s - 1) * d.dilationW + 1) +
             d.r * d.s <=
         12 * 1024;
}

bool nchwApplies(const DepthwiseShape &d) {
  return d.dtype == kKernelF32 && packedPlanes(d.xStrides, d.h, d.w) &&
         packedPlanes(d.yStrides, d.oh, d.ow) &&
         (d.zStrides[0] == 0 || packedPlanes(d.zStrides, d.oh, d.ow)) &&
         d.n * d.c <= 65535 && // gridDim.z
         nchwTileFits(d);
}

bool nhwcApplies(const DepthwiseShape &d) {
  int64_t columnBlocks = (d.ow + kNhwcStrips * kNhwcColumns - 1) / (kNhwcStrips * kNhwcColumns);
  return (d.dtype == kKernelF32 || d.dtype == kKernelF16 || d.dtype == kKernelBF16) &&
         d.xStrides[1] == 1 && d.yStrides[1] == 1 &&
         (d.zStrides[0] == 0 || d.zStrides[1] == 1) &&
         d.n * d.oh * columnBlocks <= INT_MAX &&                     // gridDim.x
         (d.c + kNhwcChannels - 1) / kNhwcChannels <= 65535;        // gridDim.y
}

const char *nhwcKernelName(const DepthwiseShape &d) {
  static const char *const names[3][7] = {
      {"tcc_depthwise_nhwc_f32_k3s1", "tcc_depthwise_nhwc_f32_k3s2", "tcc_depthwise_nhwc_f32_k5s1",
       "tcc_depthwise_nhwc_f32_k5s2", "tcc_depthwise_nhwc_f32_k7s1", "tcc_depthwise_nhwc_f32_k7s2",
       "tcc_depthwise_nhwc_f32_any"},
      {"tcc_depthwise_nhwc_f16_k3s1", "tcc_depthwise_nhwc_f16_k3s2", "tcc_depthwise_nhwc_f16_k5s1",
       "tcc_depthwise_nhwc_f16_k5s2", "tcc_depthwise_nhwc_f16_k7s1", "tcc_depthwise_nhwc_f16_k7s2",
       "tcc_depthwise_nhwc_f16_any"},
      {"tcc_depthwise_nhwc_bf16_k3s1", "tcc_depthwise_nhwc_bf16_k3s2",
       "tcc_depthwise_nhwc_bf16_k5s1", "tcc_depthwise_nhwc_bf16_k5s2",
       "tcc_depthwise_nhwc_bf16_k7s1", "tcc_depthwise_nhwc_bf16_k7s2",
       "tcc_depthwise_nhwc_bf16_any"}};
  int type = d.dtype == kKernelF16 ? 1 : d.dtype == kKernelBF16 ? 2 : 0;
  // Unrolled windows: square 3, 5 or 7, column stride 1 or 2, no column dilation.
  bool unrolled = d.r == d.s && (d.r == 3 || d.r == 5 || d.r == 7) && d.dilationW == 1 &&
                  (d.strideW == 1 || d.strideW == 2);
  int variant = unrolled ? static_cast<int>(d.r - 3) + static_cast<int>(d.strideW - 1) : 6;
  return names[type][variant];
}

const char *nchwKernelName(const DepthwiseShape &d) {
  return d.r == d.s && d.r == 3   ? "tcc_depthwise_f32_k3"
         : d.r == d.s && d.r == 5 ? "tcc_depthwise_f32_k5"
         : d.r == d.s && d.r == 7 ? "tcc_depthwise_f32_k7"
                                  : "tcc_depthwise_f32_any";
}

} // namespace

bool tcc::depthwiseKernelApplies(const DepthwiseShape &d) {
  auto small = [](int64_t v, int64_t most) { return v >= 1 && v <= most; };
  if (!(d.groups == d.c && d.k == d.c && small(d.r, 7) && small(d.s, 7) && small(d.strideH, 4) &&
        small(d.strideW, 4) && small(d.dilationH, 4) && small(d.dilationW, 4) &&
        d.h * d.w < INT_MAX && d.c < INT_MAX && d.oh * d.ow < INT_MAX))
    return false;
  return d.layout == kConvLayoutNchw ? nchwApplies(d) : nhwcApplies(d);
}

void tcc::launchDepthwiseKernel(const DepthwiseShape &d, const void *x, const void *w,
                                const void *bias, const void *z, void *y, bool relu,
                                void *stream) {
  DepthwiseParams p{};
  p.x = x;
  p.w = w;
  p.bias = bias;
  p.z = z;
  p.y = y;
  for (int i = 0; i < 4; ++i) {
    p.xStrides[i] = d.xStrides[i];
    p.yStrides[i] = d.yStrides[i];
    p.zStrides[i] = d.zStrides[i];
  }
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
  p.relu = relu ? 1 : 0;
  void *args[] = {&p};
  if (d.layout == kConvLayoutNhwc) {
    const char *name = nhwcKernelName(d);
    cuda::CUfunction function = kernelLibraryFunction(KernelImage::Depthwise, name);
    int64_t columnBlocks =
        (d.ow + kNhwcStrips * kNhwcColumns - 1) / (kNhwcStrips * kNhwcColumns);
    launchLibraryKernel(function, name, static_cast<unsigned>(d.n * d.oh * columnBlocks),
                        static_cast<unsigned>((d.c + kNhwcChannels - 1) / kNhwcChannels), 1,
                        tcc_depthwise::kThreads, 0, stream, args);
    return;
  }
  p.tileInH = (kTileH - 1) * p.strideH + (p.r - 1) * p.dilationH + 1;
  p.tileInW = (kTileW - 1) * p.strideW + (p.s - 1) * p.dilationW + 1;
  const char *name = nchwKernelName(d);
  // Function handles are cached by the kernel library per context.
  cuda::CUfunction function = kernelLibraryFunction(KernelImage::Depthwise, name);
  unsigned shared = static_cast<unsigned>((p.tileInH * p.tileInW + p.r * p.s) * sizeof(float));
  unsigned gridX = static_cast<unsigned>((d.ow + kTileW - 1) / kTileW);
  unsigned gridY = static_cast<unsigned>((d.oh + kTileH - 1) / kTileH);
  launchLibraryKernel(function, name, gridX, gridY, static_cast<unsigned>(d.n * d.c),
                      tcc_depthwise::kThreads, shared, stream, args);
}
