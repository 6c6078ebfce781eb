//===- Depthwise.cu - depthwise 2-D convolution, NCHW f32 -----------------===//
//
// One block per 32 x 32 tile of output of one (image, channel) plane (each
// of its 256 threads computes 4 outputs of a column): the
// input tile with its halo and the channel's filter go to shared memory
// (coalesced loads, zeros for the padding), then each thread sums its
// window from there and applies the epilogue (bias, residual, ReLU). A
// depthwise layer is bound by memory: each input element is read from
// global memory about once (plus the halo) instead of R·S times.
// Instantiated for square 3x3, 5x5 and 7x7 filters (unrolled windows) and
// for any other size up to 7x7.
//
//===----------------------------------------------------------------------===//
#include "DepthwiseParams.h"

using tcc_depthwise::DepthwiseParams;
using tcc_depthwise::kTileH;
using tcc_depthwise::kTileW;
using tcc_depthwise::kThreads;

namespace {

template <int K>
__device__ __forceinline__ void depthwise(const DepthwiseParams &p) {
  extern __shared__ float tile[]; // tileInH x tileInW, then the filter
  const int r = K ? K : p.r, s = K ? K : p.s;
  float *filter = tile + p.tileInH * p.tileInW;
  const int plane = blockIdx.z; // image * C + channel
  const int n = plane / p.c, ch = plane % p.c;
  const int oh0 = blockIdx.y * kTileH, ow0 = blockIdx.x * kTileW;
  const int ih0 = oh0 * p.strideH - p.padH, iw0 = ow0 * p.strideW - p.padW;
  const float *x = p.x + n * p.xBatchStride + static_cast<int64_t>(ch) * p.h * p.w_;
  for (int i = threadIdx.x; i < p.tileInH * p.tileInW; i += blockDim.x) {
    int ih = ih0 + i / p.tileInW, iw = iw0 + i % p.tileInW;
    tile[i] = ih >= 0 && ih < p.h && iw >= 0 && iw < p.w_ ? __ldg(x + ih * p.w_ + iw) : 0.0f;
  }
  for (int i = threadIdx.x; i < r * s; i += blockDim.x)
    filter[i] = __ldg(p.w + ch * r * s + i);
  __syncthreads();
  const int tx = threadIdx.x % kTileW;
  const int ow = ow0 + tx;
  if (ow >= p.ow)
    return;
  const float bias = p.bias ? __ldg(p.bias + ch) : 0.0f;
  constexpr int kRowsApart = kThreads / kTileW;
  for (int ty = threadIdx.x / kTileW; ty < kTileH; ty += kRowsApart) {
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
    if (p.z)
      acc += p.z[n * p.zBatchStride + at];
    if (p.relu)
      acc = fmaxf(acc, 0.0f);
    p.y[n * p.yBatchStride + at] = acc;
  }
}

} // namespace

extern "C" {
__global__ void __launch_bounds__(tcc_depthwise::kThreads) tcc_depthwise_f32_k3(DepthwiseParams p) { depthwise<3>(p); }
__global__ void __launch_bounds__(tcc_depthwise::kThreads) tcc_depthwise_f32_k5(DepthwiseParams p) { depthwise<5>(p); }
__global__ void __launch_bounds__(tcc_depthwise::kThreads) tcc_depthwise_f32_k7(DepthwiseParams p) { depthwise<7>(p); }
__global__ void __launch_bounds__(tcc_depthwise::kThreads) tcc_depthwise_f32_any(DepthwiseParams p) { depthwise<0>(p); }
}
