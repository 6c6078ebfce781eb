//===- Im2col.cu - a convolution's windows as the rows of a matrix --------===//
//
// For a convolution with few input channels (a network's first layer: 3
// channels, a 7x7 or 3x3 window) cuDNN's kernels are slow (ResNet-50's bf16
// stem: about 280 us on an H100, where its product is 7.6 GFLOP): as the
// product of a [pixels, R*S*C] matrix of windows by the [K, R*S*C] filters it
// runs on cuBLASLt's tensor-core GEMMs (ConvAsGemm.cpp). tcc_im2col writes
// the windows, a warp per output pixel: its lanes write consecutive terms of
// the pixel's row (zeros in the padding and the alignment tail), each term's
// place in the window looked up in a table the block builds once. tcc_pad_rows copies the
// filters into rows of the same length. Elements are copied as bits: one
// kernel per element size.
//
//===----------------------------------------------------------------------===//
#include "Im2colParams.h"

#include <cstdint>

using tcc_im2col::Im2colParams;
using tcc_im2col::kMaxRowLength;
using tcc_im2col::kThreads;

namespace {

template <typename Bits> __device__ __forceinline__ void im2col(const Im2colParams &p) {
  // Each term's place in the window, once per block: its input offset from
  // the window's origin and its row and column there (kPadTerm: the row's
  // zero tail). The row length is at most kMaxRowLength (ConvAsGemm.h).
  constexpr int kPadTerm = -(1 << 30), kPerLane = kMaxRowLength / 32;
  __shared__ int64_t offset[kMaxRowLength];
  __shared__ int dy[kMaxRowLength], dx[kMaxRowLength];
  for (int e = threadIdx.x; e < p.rowLength; e += blockDim.x) {
    if (e < p.terms) {
      const int ch = e % p.c, column = (e / p.c) % p.s, row = e / (p.c * p.s);
      dy[e] = row * p.dilationH;
      dx[e] = column * p.dilationW;
      offset[e] = dy[e] * p.xStrides[2] + dx[e] * p.xStrides[3] + ch * p.xStrides[1];
    } else {
      dy[e] = kPadTerm;
      dx[e] = 0;
      offset[e] = 0;
    }
  }
  __syncthreads();
  // A warp per output pixel at a time: its lanes write consecutive terms of
  // the pixel's row (coalesced) and read the window's consecutive channels
  // and columns.
  const int64_t pixels = static_cast<int64_t>(p.images) * p.oh * p.ow;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  const Bits *xs = static_cast<const Bits *>(p.x);
  for (int64_t pixel = static_cast<int64_t>(blockIdx.x) * warps + warp; pixel < pixels;
       pixel += static_cast<int64_t>(gridDim.x) * warps) {
    const int ow = static_cast<int>(pixel % p.ow);
    const int64_t rest = pixel / p.ow;
    const int oh = static_cast<int>(rest % p.oh);
    const int n = p.firstImage + static_cast<int>(rest / p.oh);
    const int ih0 = oh * p.strideH - p.padH, iw0 = ow * p.strideW - p.padW;
    const int64_t origin = n * p.xStrides[0] + ih0 * p.xStrides[2] + iw0 * p.xStrides[3];
    Bits *row = static_cast<Bits *>(p.cols) + pixel * p.rowLength;
    // Every load of the lane first, then the stores: the loads are in
    // flight together (one at a time, the warp waited out each one's
    // latency: 33 us for 6 images of ResNet's stem on an H200).
    Bits v[kPerLane];
#pragma unroll
    for (int u = 0; u < kPerLane; ++u) {
      const int e = lane + 32 * u;
      v[u] = Bits(0);
      if (e < p.rowLength) {
        const int ih = ih0 + dy[e], iw = iw0 + dx[e];
        if (ih >= 0 && ih < p.h && iw >= 0 && iw < p.w_)
          v[u] = xs[origin + offset[e]];
      }
    }
#pragma unroll
    for (int u = 0; u < kPerLane; ++u)
      if (lane + 32 * u < p.rowLength)
        row[lane + 32 * u] = v[u];
  }
}

template <typename Bits> __device__ __forceinline__ void padRows(const Im2colParams &p) {
  const int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= static_cast<int64_t>(p.k) * p.rowLength)
    return;
  const int64_t filter = e / p.rowLength;
  const int term = static_cast<int>(e % p.rowLength);
  static_cast<Bits *>(p.wPadded)[e] =
      term < p.terms ? static_cast<const Bits *>(p.w)[filter * p.terms + term] : Bits(0);
}

} // namespace

extern "C" {
__global__ void __launch_bounds__(kThreads) tcc_im2col_b2(Im2colParams p) { im2col<uint16_t>(p); }
__global__ void __launch_bounds__(kThreads) tcc_im2col_b4(Im2colParams p) { im2col<uint32_t>(p); }
__global__ void __launch_bounds__(kThreads) tcc_pad_rows_b2(Im2colParams p) { padRows<uint16_t>(p); }
__global__ void __launch_bounds__(kThreads) tcc_pad_rows_b4(Im2colParams p) { padRows<uint32_t>(p); }
}
