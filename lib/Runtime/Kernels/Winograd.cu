//===- Winograd.cu - 3x3 convolutions as F(4x4, 3x3) ----------------------===//
//
// The two kernels around the batched product of a Winograd convolution
// (WinogradConv.cpp): tcc_winograd_transform writes Bᵀ d B of every 6x6 input
// tile and channel into the plane of each of its 36 elements and, in blocks
// of its own, G g Gᵀ of every filter and channel; cuBLASLt then multiplies
// the 36 planes of tiles x channels by the 36 of channels x filters;
// tcc_winograd_output turns each tile's 36 products into its 4x4 outputs
// (Aᵀ m A) and applies the epilogue (bias, residual, ReLU). A thread per
// (tile, channel) and per (tile, filter): channels innermost for
// channels-last tensors, tiles innermost for NCHW ones (channelMajor), so a
// warp's loads and stores of one element are consecutive in every plane and
// consecutive or 16 bytes apart in the tensors. The transforms:
// WinogradTransforms.h.
//
//===----------------------------------------------------------------------===//
#include "WinogradParams.h"
#include "WinogradTransforms.h"

#include <cstdint>

using namespace tcc_winograd;

namespace {

/// Where thread `e` of a plane is: its channel (an input channel or a
/// filter, of `channels`) and its tile's image, tile row and tile column.
/// `e` is tile * channels + channel, or channel * tiles + tile
/// (channelMajor): either is its place in each plane.
struct TilePlace {
  int ch, th, tw;
  int64_t image;
};

__device__ __forceinline__ TilePlace placeOf(const WinogradParams &p, int64_t e, int64_t tiles,
                                             int channels) {
  TilePlace at;
  at.ch = static_cast<int>(p.channelMajor ? e / tiles : e % channels);
  const int64_t tile = p.channelMajor ? e % tiles : e / channels;
  at.tw = static_cast<int>(tile % p.tilesW);
  const int64_t rest = tile / p.tilesW;
  at.th = static_cast<int>(rest % p.tilesH);
  at.image = rest / p.tilesH;
  return at;
}

/// Bᵀ d B of the tile and input channel of thread `e` (placeOf).
__device__ __forceinline__ void transformInput(const WinogradParams &p, int64_t e,
                                               int64_t tiles) {
  const auto [ch, th, tw, image] = placeOf(p, e, tiles, p.c);
  const int ih0 = th * kOut - p.padH, iw0 = tw * kOut - p.padW;
  const float *x = p.x + image * p.xStrides[0] + ch * p.xStrides[1];
  float d[kElements];
  if (p.vectorInput) {
    // Padding 1: the tile's columns are one before an aligned group of 4
    // (inside the image or wholly outside it, the width being a multiple of
    // 4), the group, and one after.
    const int iw = tw * kOut;
    const bool left = iw > 0, right = iw + kOut < p.w_;
#pragma unroll
    for (int i = 0; i < kTile; ++i) {
      const int ih = ih0 + i;
      float4 mid = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      float before = 0.0f, after = 0.0f;
      if (ih >= 0 && ih < p.h) {
        const float *row = x + ih * p.xStrides[2] + iw;
        mid = __ldg(reinterpret_cast<const float4 *>(row));
        before = left ? __ldg(row - 1) : 0.0f;
        after = right ? __ldg(row + kOut) : 0.0f;
      }
      d[kTile * i] = before;
      d[kTile * i + 1] = mid.x;
      d[kTile * i + 2] = mid.y;
      d[kTile * i + 3] = mid.z;
      d[kTile * i + 4] = mid.w;
      d[kTile * i + 5] = after;
    }
  } else {
#pragma unroll
    for (int i = 0; i < kTile; ++i) {
      const int ih = ih0 + i;
      const bool row = ih >= 0 && ih < p.h;
#pragma unroll
      for (int j = 0; j < kTile; ++j) {
        const int iw = iw0 + j;
        d[kTile * i + j] = row && iw >= 0 && iw < p.w_
                               ? __ldg(x + ih * p.xStrides[2] + iw * p.xStrides[3])
                               : 0.0f;
      }
    }
  }
  transformInputTile(d);
  const int64_t plane = tiles * p.c;
  float *v = p.v + e;
#pragma unroll
  for (int xi = 0; xi < kElements; ++xi)
    v[xi * plane] = d[xi];
}

/// G g Gᵀ of the filter and channel of thread `e` (filter * c + channel).
__device__ __forceinline__ void transformFilterAt(const WinogradParams &p, int64_t e) {
  const int ch = static_cast<int>(e % p.c);
  const int64_t f = e / p.c;
  float g[9], u[kElements];
#pragma unroll
  for (int t = 0; t < 9; ++t)
    g[t] = __ldg(p.filterNhwc ? p.w + (f * 9 + t) * p.c + ch : p.w + (f * p.c + ch) * 9 + t);
  transformFilter(g, u);
  const int64_t plane = static_cast<int64_t>(p.k) * p.c;
#pragma unroll
  for (int xi = 0; xi < kElements; ++xi)
    p.u[xi * plane + e] = u[xi];
}

/// Aᵀ m A of the tile and filter of thread `e` (placeOf), with the epilogue,
/// into y (the outputs of a tile past the image's edge dropped).
__device__ __forceinline__ void transformOutput(const WinogradParams &p, int64_t e,
                                                int64_t tiles) {
  const auto [f, th, tw, image] = placeOf(p, e, tiles, p.k);
  const int64_t plane = tiles * p.k;
  float m[kElements], out[kOut * kOut];
#pragma unroll
  for (int xi = 0; xi < kElements; ++xi)
    m[xi] = p.m[xi * plane + e];
  transformOutputTile(m, out);
  const float bias = p.bias ? __ldg(p.bias + f) : 0.0f;
  float *y = p.y + image * p.yStrides[0] + f * p.yStrides[1];
  const float *z = p.z ? p.z + image * p.zStrides[0] + f * p.zStrides[1] : nullptr;
  if (p.vectorOutput) {
    // Whole rows of 4 (the width a multiple of 4), aligned.
    const int ow = tw * kOut;
#pragma unroll
    for (int i = 0; i < kOut; ++i) {
      const int oh = th * kOut + i;
      if (oh >= p.oh)
        break;
      float4 v = make_float4(out[kOut * i] + bias, out[kOut * i + 1] + bias,
                             out[kOut * i + 2] + bias, out[kOut * i + 3] + bias);
      if (z) {
        const float4 r = *reinterpret_cast<const float4 *>(z + oh * p.zStrides[2] + ow);
        v.x += r.x;
        v.y += r.y;
        v.z += r.z;
        v.w += r.w;
      }
      if (p.relu) {
        v.x = fmaxf(v.x, 0.0f);
        v.y = fmaxf(v.y, 0.0f);
        v.z = fmaxf(v.z, 0.0f);
        v.w = fmaxf(v.w, 0.0f);
      }
      *reinterpret_cast<float4 *>(y + oh * p.yStrides[2] + ow) = v;
    }
    return;
  }
#pragma unroll
  for (int i = 0; i < kOut; ++i) {
    const int oh = th * kOut + i;
    if (oh >= p.oh)
      break;
#pragma unroll
    for (int j = 0; j < kOut; ++j) {
      const int ow = tw * kOut + j;
      if (ow >= p.ow)
        break;
      float v = out[kOut * i + j] + bias;
      // z may be y itself (a residual updated in place): read before the store.
      if (z)
        v += z[oh * p.zStrides[2] + ow * p.zStrides[3]];
      if (p.relu)
        v = fmaxf(v, 0.0f);
      y[oh * p.yStrides[2] + ow * p.yStrides[3]] = v;
    }
  }
}

} // namespace

extern "C" {

/// Blocks [0, inputBlocks) transform the input tiles, the rest the filters.
__global__ void __launch_bounds__(kThreads) tcc_winograd_transform_f32(WinogradParams p) {
  const int64_t block = blockIdx.x;
  if (block < p.inputBlocks) {
    const int64_t e = block * kThreads + threadIdx.x,
                  tiles = static_cast<int64_t>(p.n) * p.tilesH * p.tilesW;
    if (e < tiles * p.c)
      transformInput(p, e, tiles);
    return;
  }
  const int64_t e = (block - p.inputBlocks) * kThreads + threadIdx.x;
  if (e < static_cast<int64_t>(p.k) * p.c)
    transformFilterAt(p, e);
}

__global__ void __launch_bounds__(kThreads) tcc_winograd_output_f32(WinogradParams p) {
  const int64_t e = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x,
                tiles = static_cast<int64_t>(p.n) * p.tilesH * p.tilesW;
  if (e < tiles * p.k)
    transformOutput(p, e, tiles);
}

} // extern "C"
