//===- DepthwiseConv.cpp - launches Kernels/Depthwise.cu ------------------===//
#include "DepthwiseConv.h"

#include "Kernels/DepthwiseParams.h"

#include "tcc/Runtime/CudnnConv.h"
#include "tcc/Runtime/DepthwiseKernel.h"
#include "tcc/Runtime/KernelLibrary.h"
#include "tcc/Runtime/KernelTypes.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

using namespace tcc;
using tcc_depthwise::DepthwiseParams;
using tcc_depthwise::kNhwcChannels;
using tcc_depthwise::kNhwcColumns;
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
         d.n * d.c < INT_MAX && nchwTileFits(d);
}

/// The NHWC kernel's launch: channels per thread, the block's threads, the grid.
struct NhwcLaunch {
  int vector, channelGroups, strips, columnStrips;
  int64_t gridX, gridY;
};

NhwcLaunch nhwcLaunch(const DepthwiseShape &d, const void *x, const void *bias, const void *z,
                      const void *y) {
  // Four channels per thread where every access of them is aligned to four
  // elements: the pointers, and each tensor's strides.
  int64_t bytes = kernelDTypeBytes(d.dtype), align = 4 * bytes;
  auto aligned = [&](const void *p) { return reinterpret_cast<uintptr_t>(p) % align == 0; };
  auto stridesAligned = [](const std::array<int64_t, 4> &st) {
    return st[0] % 4 == 0 && st[2] % 4 == 0 && st[3] % 4 == 0;
  };
  bool vector4 = d.c % 4 == 0 && aligned(x) && aligned(y) && (!bias || aligned(bias)) &&
                 (!z || aligned(z)) && stridesAligned(d.xStrides) &&
                 stridesAligned(d.yStrides) && (!z || stridesAligned(d.zStrides));
  NhwcLaunch l{};
  l.vector = vector4 ? 4 : 1;
  int64_t groups = (d.c + l.vector - 1) / l.vector;
  l.channelGroups = static_cast<int>(std::min<int64_t>(groups, kNhwcChannels / l.vector));
  l.strips = tcc_depthwise::kThreads / l.channelGroups;
  l.columnStrips = static_cast<int>((d.ow + kNhwcColumns - 1) / kNhwcColumns);
  int64_t strips = d.n * d.oh * l.columnStrips;
  l.gridX = (strips + l.strips - 1) / l.strips;
  l.gridY = (d.c + l.channelGroups * l.vector - 1) / (l.channelGroups * l.vector);
  return l;
}

bool nhwcApplies(const DepthwiseShape &d) {
  // The grid as the unaligned (one channel per thread) launch needs it.
  NhwcLaunch l = nhwcLaunch(d, nullptr, nullptr, nullptr, nullptr);
  return (d.dtype == kKernelF32 || d.dtype == kKernelF16 || d.dtype == kKernelBF16) &&
         d.xStrides[1] == 1 && d.yStrides[1] == 1 &&
         (d.zStrides[0] == 0 || d.zStrides[1] == 1) && d.n < INT_MAX &&
         l.gridX <= INT_MAX && l.gridY <= 65535;
}

/// The element type as the NHWC kernels' names spell it.
const char *typeName(const DepthwiseShape &d) {
  return d.dtype == kKernelF16 ? "f16" : d.dtype == kKernelBF16 ? "bf16" : "f32";
}

std::string nhwcKernelName(const DepthwiseShape &d, int vector) {
  const char *type = typeName(d);
  // Unrolled windows: square 3, 5 or 7, column stride 1 or 2, no column dilation.
  bool unrolled = d.r == d.s && (d.r == 3 || d.r == 5 || d.r == 7) && d.dilationW == 1 &&
                  (d.strideW == 1 || d.strideW == 2);
  std::string window =
      unrolled ? "k" + std::to_string(d.r) + "s" + std::to_string(d.strideW) : "any";
  return std::string("tcc_depthwise_nhwc_") + type + (vector == 4 ? "_v4_" : "_v1_") + window;
}

/// The tiled kernel's launch: its tiles, its grid and its shared memory.
struct TiledLaunch {
  int groups, tilesH, tilesW;
  int64_t gridX, gridY;
  unsigned threads, sharedBytes;
};

TiledLaunch tiledLaunch(const DepthwiseShape &d) {
  using namespace tcc_depthwise;
  TiledLaunch l{};
  l.groups = static_cast<int>(std::min<int64_t>((d.c + 3) / 4, kTiledChannels / 4));
  int tileW = kTiledStrips * kNhwcColumns;
  l.tilesH = static_cast<int>((d.oh + kTiledRows - 1) / kTiledRows);
  l.tilesW = static_cast<int>((d.ow + tileW - 1) / tileW);
  l.gridX = d.n * l.tilesH * l.tilesW;
  l.gridY = (d.c + 4 * l.groups - 1) / (4 * l.groups);
  l.threads = static_cast<unsigned>(kTiledRows * kTiledStrips * l.groups);
  int k = static_cast<int>(d.r), s = static_cast<int>(d.strideW);
  l.sharedBytes = static_cast<unsigned>((k * k + tiledInputRows(k, s) * tiledInputColumns(k, s)) *
                                        l.groups * 4 * sizeof(float));
  return l;
}

/// The tiled NHWC kernel's launch where it computes the convolution
/// (DepthwiseParams.h): a square 3x3, 5x5 or 7x7 window at stride 1, no
/// dilation, four channels per thread, a grid within CUDA's limits.
/// TCC_DEPTHWISE_TILED=0 leaves every shape to the strips kernel (to compare).
std::optional<TiledLaunch> tiledLaunchFor(const DepthwiseShape &d, int vector) {
  static const bool enabled = [] {
    const char *v = std::getenv("TCC_DEPTHWISE_TILED");
    return !(v && std::string(v) == "0");
  }();
  if (!enabled || vector != 4 || d.r != d.s || (d.r != 3 && d.r != 5 && d.r != 7) ||
      d.strideH != 1 || d.strideW != 1 || d.dilationH != 1 || d.dilationW != 1)
    return std::nullopt;
  TiledLaunch l = tiledLaunch(d);
  if (l.gridX > INT_MAX || l.gridY > 65535)
    return std::nullopt;
  return l;
}

const char *nchwKernelName(const DepthwiseShape &d) {
  return d.r == d.s && d.r == 3   ? "tcc_depthwise_f32_k3"
         : d.r == d.s && d.r == 5 ? "tcc_depthwise_f32_k5"
         : d.r == d.s && d.r == 7 ? "tcc_depthwise_f32_k7"
                                  : "tcc_depthwise_f32_any";
}

} // namespace

bool tcc::depthwiseKernelApplies(const DepthwiseShape &d) {
  if (!depthwiseKernelTakes(d.c, d.k, d.groups, d.r, d.s, d.strideH, d.strideW, d.dilationH,
                            d.dilationW) ||
      d.h * d.w >= INT_MAX || d.c >= INT_MAX || d.oh * d.ow >= INT_MAX)
    return false;
  return d.layout == kConvLayoutNchw ? nchwApplies(d) : nhwcApplies(d);
}

void tcc::launchDepthwiseKernel(const DepthwiseShape &d, const void *x, const void *w,
                                const void *bias, const void *z, void *y,
                                int32_t activations, void *stream) {
  DepthwiseParams p{};
  p.x = x;
  p.w = w;
  p.bias = bias;
  p.z = z;
  p.y = y;
  for (int i = 0; i < 4; ++i) {
    p.yStrides[i] = d.yStrides[i];
    p.zStrides[i] = d.zStrides[i];
  }
  setWindowGeometry(p, d);
  p.activation = convEpilogueActivation(activations);
  p.inputActivation = convInputActivation(activations);
  p.n = static_cast<int32_t>(d.n);
  void *args[] = {&p};
  if (d.layout == kConvLayoutNhwc) {
    NhwcLaunch l = nhwcLaunch(d, x, bias, z, y);
    if (std::optional<TiledLaunch> tiled = tiledLaunchFor(d, l.vector)) {
      const TiledLaunch &t = *tiled;
      p.channelGroups = t.groups;
      p.tilesH = t.tilesH;
      p.tilesW = t.tilesW;
      std::string name = std::string("tcc_depthwise_nhwc_") + typeName(d) + "_tiled_k" +
                         std::to_string(d.r) + "s" + std::to_string(d.strideW);
      cuda::CUfunction function = kernelLibraryFunction(KernelImage::Depthwise, name.c_str());
      launchLibraryKernel(function, name.c_str(), static_cast<unsigned>(t.gridX),
                          static_cast<unsigned>(t.gridY), 1, t.threads, t.sharedBytes, stream,
                          args);
      return;
    }
    p.channelGroups = l.channelGroups;
    p.strips = l.strips;
    p.columnStrips = l.columnStrips;
    std::string name = nhwcKernelName(d, l.vector);
    cuda::CUfunction function = kernelLibraryFunction(KernelImage::Depthwise, name.c_str());
    launchLibraryKernel(function, name.c_str(), static_cast<unsigned>(l.gridX),
                        static_cast<unsigned>(l.gridY), 1, tcc_depthwise::kThreads, 0, stream,
                        args);
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
  // Blocks loop over the (image, channel) planes beyond gridDim.z's limit.
  unsigned gridZ = static_cast<unsigned>(std::min<int64_t>(d.n * d.c, 65535));
  launchLibraryKernel(function, name, gridX, gridY, gridZ, tcc_depthwise::kThreads, shared,
                      stream, args);
}
