//===- Depthwise.cu - depthwise 2-D convolution, NCHW and NHWC ------------===//
//
// A depthwise layer is bound by memory: the kernels read each input element
// from global memory about once (plus the halo) instead of R·S times, and
// apply the epilogue (bias, residual, an activation: ReLU, ReLU6, SiLU or
// hardswish) before the one store; an activation of the input (the one
// before a MobileNet or EfficientNet depthwise layer) is applied as it is
// loaded, where it would otherwise be a kernel of its own.
//
// NCHW (f32): one block per 32 x 32 tile of output of one (image, channel)
// plane, each of its 256 threads computing 4 outputs of a column; the input
// tile with its halo and the channel's filter go to shared memory (coalesced
// loads, zeros for the padding), then each thread sums its window from there.
//
// NHWC (f32, f16, bf16; f32 arithmetic): each thread sums a strip of 4
// consecutive outputs of a row for 4 consecutive channels (one 16-byte load
// of f32 per pixel; 1 channel where the tensors are not aligned to 4),
// keeping a filter row's input columns in registers (the strip's outputs
// share them); consecutive threads take consecutive channels, so a warp's
// loads and stores are coalesced; the block's filters are transposed to
// [tap][channel] in shared memory. Strided pixels and rows (a channel slice
// of a concatenation, a padded buffer's interior) are read and written in
// place.
//
// NHWC tiled (square 3x3, 5x5 and 7x7 windows at stride 1, no dilation, 4
// channels per thread): the same strips, summed from a tile of input in
// shared memory that the block loads first, halo included. Each input element
// is then read from global memory and activated once, where the strips above
// re-read and re-activate it for every filter row and strip that covers it
// (4.5 times at 3x3, 10 at 5x5). At stride 2 the strips re-read less (each
// input column is in one or two strips) and a tile needs four times the
// shared memory per output: there the strips kernel was the faster.
//
// Instantiated for square 3x3, 5x5 and 7x7 filters (unrolled windows; NHWC
// also for column strides 1 and 2) and for any other window up to 7x7.
//
//===----------------------------------------------------------------------===//
#include "ConvActivations.h"
#include "DepthwiseParams.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

using tcc_activations::activate;
using tcc_activations::withActivation;
using tcc_depthwise::DepthwiseParams;
using tcc_depthwise::kMaxTaps;
using tcc_depthwise::kNhwcChannels;
using tcc_depthwise::kNhwcColumns;
using tcc_depthwise::kThreads;
using tcc_depthwise::kTileH;
using tcc_depthwise::kTileW;
using tcc_depthwise::kTiledRows;
using tcc_depthwise::kTiledStrips;
using tcc_depthwise::tiledInputColumns;
using tcc_depthwise::tiledInputRows;

namespace {

template <int K>
__device__ __forceinline__ void depthwiseNchw(const DepthwiseParams &p) {
  extern __shared__ float tile[]; // tileInH x tileInW, then the filter
  const int r = K ? K : p.r, s = K ? K : p.s;
  float *filter = tile + p.tileInH * p.tileInW;
  const int oh0 = blockIdx.y * kTileH, ow0 = blockIdx.x * kTileW;
  const int ih0 = oh0 * p.strideH - p.padH, iw0 = ow0 * p.strideW - p.padW;
  const float *w = static_cast<const float *>(p.w);
  const float *biases = static_cast<const float *>(p.bias);
  const float *z = static_cast<const float *>(p.z);
  float *y = static_cast<float *>(p.y);
  const int64_t planes = static_cast<int64_t>(p.n) * p.c;
  // One (image, channel) plane per step; more planes than gridDim.z allows
  // are taken in turns.
  for (int64_t plane = blockIdx.z; plane < planes; plane += gridDim.z) {
    const int n = static_cast<int>(plane / p.c), ch = static_cast<int>(plane % p.c);
    const float *x = static_cast<const float *>(p.x) + n * p.xStrides[0] +
                     static_cast<int64_t>(ch) * p.h * p.w_;
    // The input activation once per element; the zero padding stays zero.
    withActivation(p.inputActivation, [&](auto act) {
      for (int i = threadIdx.x; i < p.tileInH * p.tileInW; i += blockDim.x) {
        int ih = ih0 + i / p.tileInW, iw = iw0 + i % p.tileInW;
        tile[i] = ih >= 0 && ih < p.h && iw >= 0 && iw < p.w_ ? act(__ldg(x + ih * p.w_ + iw))
                                                              : 0.0f;
      }
    });
    for (int i = threadIdx.x; i < r * s; i += blockDim.x)
      filter[i] = __ldg(w + ch * r * s + i);
    __syncthreads();
    const int tx = threadIdx.x % kTileW;
    const int ow = ow0 + tx;
    const float bias = biases ? __ldg(biases + ch) : 0.0f;
    constexpr int kRowsApart = kThreads / kTileW;
    for (int ty = threadIdx.x / kTileW; ty < kTileH && ow < p.ow; ty += kRowsApart) {
      const int oh = oh0 + ty;
      if (oh >= p.oh)
        break;
      const float *in = tile + ty * p.strideH * p.tileInW + tx * p.strideW;
      float acc = 0.0f;
#pragma unroll
      for (int i = 0; i < (K ? K : 1); ++i) {
#pragma unroll
        for (int j = 0; j < (K ? K : 1); ++j)
          if (K)
            acc = fmaf(in[i * p.dilationH * p.tileInW + j * p.dilationW], filter[i * K + j], acc);
      }
      if (!K)
        for (int i = 0; i < r; ++i)
          for (int j = 0; j < s; ++j)
            acc = fmaf(in[i * p.dilationH * p.tileInW + j * p.dilationW], filter[i * s + j], acc);
      acc += bias;
      int64_t at = static_cast<int64_t>(ch) * p.oh * p.ow + oh * p.ow + ow;
      if (z)
        acc += z[n * p.zStrides[0] + at];
      y[n * p.yStrides[0] + at] = activate(p.activation, acc);
    }
    __syncthreads(); // the tile is refilled for the next plane
  }
}

__device__ __forceinline__ float toFloat(float v) { return v; }
__device__ __forceinline__ float toFloat(__half v) { return __half2float(v); }
__device__ __forceinline__ float toFloat(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T fromFloat(float v);
template <> __device__ __forceinline__ float fromFloat<float>(float v) { return v; }
template <> __device__ __forceinline__ __half fromFloat<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

/// V consecutive elements at p (aligned to V elements where V > 1) as floats.
template <typename T, int V> struct Lanes {
  float v[V];
  __device__ __forceinline__ static Lanes load(const T *p) {
    Lanes out;
    if constexpr (V == 4 && sizeof(T) == 4) {
      float4 q = __ldg(reinterpret_cast<const float4 *>(p));
      out.v[0] = q.x, out.v[1] = q.y, out.v[2] = q.z, out.v[3] = q.w;
    } else if constexpr (V == 4 && sizeof(T) == 2) {
      uint2 q = __ldg(reinterpret_cast<const uint2 *>(p));
      const T *h = reinterpret_cast<const T *>(&q);
#pragma unroll
      for (int i = 0; i < 4; ++i)
        out.v[i] = toFloat(h[i]);
    } else {
#pragma unroll
      for (int i = 0; i < V; ++i)
        out.v[i] = toFloat(__ldg(p + i));
    }
    return out;
  }
  __device__ __forceinline__ static Lanes zero() {
    Lanes out;
#pragma unroll
    for (int i = 0; i < V; ++i)
      out.v[i] = 0.0f;
    return out;
  }
  __device__ __forceinline__ void store(T *p) const {
    if constexpr (V == 4 && sizeof(T) == 4) {
      *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
    } else if constexpr (V == 4 && sizeof(T) == 2) {
      uint2 q;
      T *h = reinterpret_cast<T *>(&q);
#pragma unroll
      for (int i = 0; i < 4; ++i)
        h[i] = fromFloat<T>(v[i]);
      *reinterpret_cast<uint2 *>(p) = q;
    } else {
#pragma unroll
      for (int i = 0; i < V; ++i)
        p[i] = fromFloat<T>(v[i]);
    }
  }
};

/// The block's filters (channels c0 .. c0 + blockChannels, `taps` each,
/// consecutive in memory: coalesced reads) into shared memory as
/// [tap][channel], zeros past the last channel.
template <typename T>
__device__ __forceinline__ void loadBlockFilters(const DepthwiseParams &p, float *filter, int c0,
                                                 int blockChannels, int taps) {
  const T *w = static_cast<const T *>(p.w) + static_cast<int64_t>(c0) * taps;
  for (int e = threadIdx.x; e < blockChannels * taps; e += blockDim.x) {
    int channel = e / taps, tap = e % taps;
    filter[tap * blockChannels + channel] = c0 + channel < p.c ? toFloat(__ldg(w + e)) : 0.0f;
  }
}

/// The epilogue of a strip of kNhwcColumns outputs of row `oh` of image `n`
/// from column `ow0`, V channels from `ch`: bias, residual, activation, one
/// store per output.
template <typename T, int V>
__device__ __forceinline__ void storeStrip(const DepthwiseParams &p, const Lanes<T, V> *acc, int n,
                                           int oh, int ow0, int ch) {
  Lanes<T, V> bias = p.bias ? Lanes<T, V>::load(static_cast<const T *>(p.bias) + ch)
                            : Lanes<T, V>::zero();
  const T *z = p.z ? static_cast<const T *>(p.z) + n * p.zStrides[0] + oh * p.zStrides[2] + ch
                   : nullptr;
  T *y = static_cast<T *>(p.y) + n * p.yStrides[0] + oh * p.yStrides[2] + ch;
  withActivation(p.activation, [&](auto act) {
#pragma unroll
    for (int q = 0; q < kNhwcColumns; ++q) {
      const int ow = ow0 + q;
      if (ow >= p.ow)
        break;
      // z may be y itself: read before the store.
      Lanes<T, V> residual =
          z ? Lanes<T, V>::load(z + ow * p.zStrides[3]) : Lanes<T, V>::zero();
      Lanes<T, V> out;
#pragma unroll
      for (int l = 0; l < V; ++l)
        out.v[l] = act(acc[q].v[l] + bias.v[l] + residual.v[l]);
      out.store(y + ow * p.yStrides[3]);
    }
  });
}

/// K: the square window (0: any, p.r x p.s); S: the column stride with a
/// column dilation of 1 (0: any); V: channels per thread. blockIdx.x: a run of
/// p.strips strips (image, output row, strip of the row); blockIdx.y: a run
/// of p.channelGroups * V channels.
template <typename T, int K, int S, int V>
__device__ __forceinline__ void depthwiseNhwc(const DepthwiseParams &p) {
  __shared__ float filter[kMaxTaps * kNhwcChannels]; // [tap][channel of the block]
  const int r = K ? K : p.r, s = K ? K : p.s, taps = r * s;
  const int blockChannels = p.channelGroups * V;
  const int c0 = blockIdx.y * blockChannels;
  loadBlockFilters<T>(p, filter, c0, blockChannels, taps);
  __syncthreads();
  const int group = threadIdx.x % p.channelGroups, inBlock = threadIdx.x / p.channelGroups;
  const int ch = c0 + group * V;
  const int64_t strip = static_cast<int64_t>(blockIdx.x) * p.strips + inBlock;
  const int rowStrip = static_cast<int>(strip % p.columnStrips);
  const int64_t image = strip / p.columnStrips;
  const int oh = static_cast<int>(image % p.oh), n = static_cast<int>(image / p.oh);
  if (inBlock >= p.strips || ch >= p.c || n >= p.n)
    return;
  const int ow0 = rowStrip * kNhwcColumns;
  const int sw = S ? S : p.strideW;
  const int iw0 = ow0 * sw - p.padW;
  const int64_t xColumn = p.xStrides[3];
  const T *x = static_cast<const T *>(p.x) + n * p.xStrides[0] + ch;
  const float *f = filter + group * V;
  Lanes<T, V> acc[kNhwcColumns];
#pragma unroll
  for (int q = 0; q < kNhwcColumns; ++q)
    acc[q] = Lanes<T, V>::zero();
#pragma unroll
  for (int i = 0; i < r; ++i) { // unrolled where K is known
    const int ih = oh * p.strideH - p.padH + i * p.dilationH;
    if (ih < 0 || ih >= p.h)
      continue;
    const T *row = x + ih * p.xStrides[2];
    if (K && S) {
      // The strip's input columns of this filter row, loaded once.
      constexpr int kSpan = (kNhwcColumns - 1) * (S ? S : 1) + (K ? K : 1);
      Lanes<T, V> in[kSpan];
      const T *at = row + iw0 * xColumn;
#pragma unroll
      for (int t = 0; t < kSpan; ++t, at += xColumn) {
        const int iw = iw0 + t;
        in[t] = iw >= 0 && iw < p.w_ ? Lanes<T, V>::load(at) : Lanes<T, V>::zero();
      }
      if (p.inputActivation) // the zero padding stays zero (act(0) = 0 for all of them)
        withActivation(p.inputActivation, [&](auto act) {
#pragma unroll
          for (int t = 0; t < kSpan; ++t)
#pragma unroll
            for (int l = 0; l < V; ++l)
              in[t].v[l] = act(in[t].v[l]);
        });
#pragma unroll
      for (int j = 0; j < (K ? K : 1); ++j) {
        const float *tap = f + (i * (K ? K : 1) + j) * blockChannels;
#pragma unroll
        for (int l = 0; l < V; ++l) {
          const float weight = tap[l];
#pragma unroll
          for (int q = 0; q < kNhwcColumns; ++q)
            acc[q].v[l] = fmaf(in[q * (S ? S : 1) + j].v[l], weight, acc[q].v[l]);
        }
      }
    } else {
      for (int j = 0; j < s; ++j) {
        const float *tap = f + (i * s + j) * blockChannels;
#pragma unroll
        for (int q = 0; q < kNhwcColumns; ++q) {
          const int iw = iw0 + q * sw + j * p.dilationW;
          if (iw < 0 || iw >= p.w_)
            continue;
          Lanes<T, V> in = Lanes<T, V>::load(row + iw * xColumn);
#pragma unroll
          for (int l = 0; l < V; ++l)
            acc[q].v[l] = fmaf(activate(p.inputActivation, in.v[l]), tap[l], acc[q].v[l]);
        }
      }
    }
  }
  storeStrip<T, V>(p, acc, n, oh, ow0, ch);
}

/// The tiled NHWC kernel (DepthwiseParams.h): a K x K window at stride S in
/// both dims, no dilation, 4 channels per thread (instantiated for stride 1).
/// blockIdx.x: an (image, tile row, tile column); blockIdx.y: a run of
/// p.channelGroups * 4 channels.
/// Dynamic shared memory: the block's filters as [tap][channel], then its
/// input tile as [pixel][group of 4 channels] (float4s).
template <typename T, int K, int S>
__device__ __forceinline__ void depthwiseNhwcTiled(const DepthwiseParams &p) {
  extern __shared__ float4 shared[];
  constexpr int V = 4, kTaps = K * K, kSpan = (kNhwcColumns - 1) * S + K;
  constexpr int kInH = tiledInputRows(K, S), kInW = tiledInputColumns(K, S);
  constexpr int kPixels = kInH * kInW, kWorkers = kTiledRows * kTiledStrips;
  const int groups = p.channelGroups, blockChannels = groups * V;
  const int c0 = blockIdx.y * blockChannels;
  float *filter = reinterpret_cast<float *>(shared);
  float4 *tile = shared + kTaps * groups;
  loadBlockFilters<T>(p, filter, c0, blockChannels, kTaps);
  // 32-bit index arithmetic: the launch keeps the grid within INT_MAX.
  unsigned block = blockIdx.x;
  const int tileX = static_cast<int>(block % static_cast<unsigned>(p.tilesW));
  block /= static_cast<unsigned>(p.tilesW);
  const int tileY = static_cast<int>(block % static_cast<unsigned>(p.tilesH));
  const int n = static_cast<int>(block / static_cast<unsigned>(p.tilesH));
  const int oh0 = tileY * kTiledRows, ow0 = tileX * (kTiledStrips * kNhwcColumns);
  const int ih0 = oh0 * S - p.padH, iw0 = ow0 * S - p.padW;
  const T *x = static_cast<const T *>(p.x) + n * p.xStrides[0];
  // The input tile, each element loaded and activated once; the zero padding
  // (and channels past the last) stays zero: act(0) = 0 for all of them. A
  // thread keeps its group of channels and takes every kWorkers-th pixel,
  // kLoadsInFlight loads at a time.
  constexpr int kLoadsInFlight = 4;
  const int group = threadIdx.x % groups, worker = threadIdx.x / groups;
  const int ch = c0 + group * V;
  withActivation(p.inputActivation, [&](auto act) {
    for (int first = 0; first < kPixels; first += kLoadsInFlight * kWorkers) {
      Lanes<T, V> v[kLoadsInFlight];
#pragma unroll
      for (int u = 0; u < kLoadsInFlight; ++u) {
        const int pixel = worker + first + u * kWorkers;
        const int ih = ih0 + pixel / kInW, iw = iw0 + pixel % kInW;
        v[u] = pixel < kPixels && ih >= 0 && ih < p.h && iw >= 0 && iw < p.w_ && ch < p.c
                   ? Lanes<T, V>::load(x + ih * p.xStrides[2] + iw * p.xStrides[3] + ch)
                   : Lanes<T, V>::zero();
      }
#pragma unroll
      for (int u = 0; u < kLoadsInFlight; ++u) {
        const int pixel = worker + first + u * kWorkers;
        if (pixel < kPixels)
          tile[pixel * groups + group] =
              make_float4(act(v[u].v[0]), act(v[u].v[1]), act(v[u].v[2]), act(v[u].v[3]));
      }
    }
  });
  __syncthreads();
  const int row = worker / kTiledStrips, strip = worker % kTiledStrips;
  const int oh = oh0 + row, owStart = ow0 + strip * kNhwcColumns;
  if (oh >= p.oh || owStart >= p.ow || ch >= p.c)
    return;
  Lanes<T, V> acc[kNhwcColumns];
#pragma unroll
  for (int q = 0; q < kNhwcColumns; ++q)
    acc[q] = Lanes<T, V>::zero();
#pragma unroll
  for (int i = 0; i < K; ++i) {
    // The strip's input columns of this filter row, read once.
    const float4 *in = tile + ((row * S + i) * kInW + strip * kNhwcColumns * S) * groups + group;
    float4 cols[kSpan];
#pragma unroll
    for (int t = 0; t < kSpan; ++t)
      cols[t] = in[t * groups];
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const float4 weight =
          *reinterpret_cast<const float4 *>(filter + (i * K + j) * blockChannels + group * V);
#pragma unroll
      for (int q = 0; q < kNhwcColumns; ++q) {
        const float4 v = cols[q * S + j];
        acc[q].v[0] = fmaf(v.x, weight.x, acc[q].v[0]);
        acc[q].v[1] = fmaf(v.y, weight.y, acc[q].v[1]);
        acc[q].v[2] = fmaf(v.z, weight.z, acc[q].v[2]);
        acc[q].v[3] = fmaf(v.w, weight.w, acc[q].v[3]);
      }
    }
  }
  storeStrip<T, V>(p, acc, n, oh, owStart, ch);
}

} // namespace

#define TCC_DEPTHWISE_NCHW(NAME, K)                                                              \
  __global__ void __launch_bounds__(kThreads) NAME(DepthwiseParams p) { depthwiseNchw<K>(p); }
#define TCC_DEPTHWISE_NHWC(NAME, T, K, S, V)                                                     \
  __global__ void __launch_bounds__(kThreads) NAME(DepthwiseParams p) {                         \
    depthwiseNhwc<T, K, S, V>(p);                                                                \
  }
#define TCC_DEPTHWISE_NHWC_VARIANTS(PREFIX, T, V)                                                \
  TCC_DEPTHWISE_NHWC(PREFIX##_k3s1, T, 3, 1, V)                                                  \
  TCC_DEPTHWISE_NHWC(PREFIX##_k3s2, T, 3, 2, V)                                                  \
  TCC_DEPTHWISE_NHWC(PREFIX##_k5s1, T, 5, 1, V)                                                  \
  TCC_DEPTHWISE_NHWC(PREFIX##_k5s2, T, 5, 2, V)                                                  \
  TCC_DEPTHWISE_NHWC(PREFIX##_k7s1, T, 7, 1, V)                                                  \
  TCC_DEPTHWISE_NHWC(PREFIX##_k7s2, T, 7, 2, V)                                                  \
  TCC_DEPTHWISE_NHWC(PREFIX##_any, T, 0, 0, V)
// At most 64 registers: four blocks of 256 threads per multiprocessor.
#define TCC_DEPTHWISE_NHWC_TILED(NAME, T, K, S)                                                  \
  __global__ void __launch_bounds__(kThreads, 4) NAME(DepthwiseParams p) {                      \
    depthwiseNhwcTiled<T, K, S>(p);                                                              \
  }
#define TCC_DEPTHWISE_NHWC_TYPE(TYPE, T)                                                         \
  TCC_DEPTHWISE_NHWC_VARIANTS(tcc_depthwise_nhwc_##TYPE##_v1, T, 1)                              \
  TCC_DEPTHWISE_NHWC_VARIANTS(tcc_depthwise_nhwc_##TYPE##_v4, T, 4)                              \
  TCC_DEPTHWISE_NHWC_TILED(tcc_depthwise_nhwc_##TYPE##_tiled_k3s1, T, 3, 1)                      \
  TCC_DEPTHWISE_NHWC_TILED(tcc_depthwise_nhwc_##TYPE##_tiled_k5s1, T, 5, 1)                      \
  TCC_DEPTHWISE_NHWC_TILED(tcc_depthwise_nhwc_##TYPE##_tiled_k7s1, T, 7, 1)

extern "C" {
TCC_DEPTHWISE_NCHW(tcc_depthwise_f32_k3, 3)
TCC_DEPTHWISE_NCHW(tcc_depthwise_f32_k5, 5)
TCC_DEPTHWISE_NCHW(tcc_depthwise_f32_k7, 7)
TCC_DEPTHWISE_NCHW(tcc_depthwise_f32_any, 0)
TCC_DEPTHWISE_NHWC_TYPE(f32, float)
TCC_DEPTHWISE_NHWC_TYPE(f16, __half)
TCC_DEPTHWISE_NHWC_TYPE(bf16, __nv_bfloat16)
}
