//===- Gemv.cu - products of a few rows with a linear layer's weight ------===//
//
// The kernels behind tcc_gemm's few-row path (GemvKernels.cpp): a decode
// step multiplies 1 to 8 token rows by each weight, and the GEMM then reads
// the weight once and does almost no arithmetic per byte. cuBLASLt's
// kernels for that shape left an H100 at 46-61% of its copy bandwidth on a
// ~1B LLaMA's attention projections (2026-12-07: 6.1 us for 8 MB, 6.9 us
// for 12.6 MB). Here every warp owns one output column j at a time (a row of
// W) and walks it in 16-byte chunks, lane l taking chunks l, l+32, ...: a
// warp's load is 512 contiguous bytes, and each lane issues four chunks
// before using any, so that enough bytes are in flight to cover the
// memory's latency. The same chunk of each of the ROWS rows of A (a few KB,
// read by every warp) comes through L1. Sums are fp32; a warp's lanes
// combine them with xor shuffles, then lanes 0..ROWS-1 each finish one row:
// alpha, bias, activation (ReLU, or GELU's tanh form, as cuBLASLt's
// epilogue), residual, rounded once to the output type.
//
// One kernel per element type (bf16, f16) and row count (1..8): the row
// count is a template argument so that the sums stay in registers.
//
// Launched ahead of the previous kernel (GridDependency.h), a warp first
// asks L2 for its first column of W, the weight that no kernel writes,
// and only then waits for the previous kernel: a decode step's weights
// stream in while the small kernels before each product run.
//
//===----------------------------------------------------------------------===//
#include "GemvParams.h"
#include "GridDependency.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

using tcc_gemv::GemvParams;
using tcc_gemv::kGemvBlock;

namespace {

constexpr int kWarp = 32;
/// Chunks each lane loads before it uses them.
constexpr int kInFlight = 4;
/// The longest column (elements) a warp asks L2 for before it waits: its
/// first column, whole (64 KB of bf16 at most).
constexpr int kPrefetchLimit = 32768;

/// A 16-byte chunk of the weight: read once, so it skips L1.
__device__ __forceinline__ uint4 loadStreaming(const uint4 *p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

template <typename T> struct Pair;
template <> struct Pair<__nv_bfloat16> {
  /// The two bf16 halves of `u` as floats (exact: bf16 is f32's top half).
  static __device__ __forceinline__ float2 unpack(uint32_t u) {
    return make_float2(__uint_as_float(u << 16), __uint_as_float(u & 0xffff0000u));
  }
  static __device__ __forceinline__ float toFloat(__nv_bfloat16 x) { return __bfloat162float(x); }
  static __device__ __forceinline__ __nv_bfloat16 round(float x) { return __float2bfloat16_rn(x); }
};
template <> struct Pair<__half> {
  static __device__ __forceinline__ float2 unpack(uint32_t u) {
    __half2 h = *reinterpret_cast<__half2 *>(&u);
    return __half22float2(h);
  }
  static __device__ __forceinline__ float toFloat(__half x) { return __half2float(x); }
  static __device__ __forceinline__ __half round(float x) { return __float2half_rn(x); }
};

/// sum + the dot product of two chunks of 8 elements.
template <typename T>
__device__ __forceinline__ float dot8(float sum, uint4 w, uint4 x) {
  const uint32_t ws[4] = {w.x, w.y, w.z, w.w}, xs[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    float2 a = Pair<T>::unpack(ws[i]), b = Pair<T>::unpack(xs[i]);
    sum = fmaf(a.x, b.x, sum);
    sum = fmaf(a.y, b.y, sum);
  }
  return sum;
}

__device__ __forceinline__ float activate(float v, int activation) {
  if (activation == tcc_gemv::kGemvRelu)
    return fmaxf(v, 0.0f);
  if (activation == tcc_gemv::kGemvGeluTanh) {
    const float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
    return 0.5f * v * (1.0f + tanhf(inner));
  }
  return v;
}

template <typename T, int ROWS>
__device__ void gemv(const GemvParams &p) {
  const int lane = threadIdx.x % kWarp;
  const int64_t warpsPerBlock = kGemvBlock / kWarp;
  const int64_t stride = int64_t(gridDim.x) * warpsPerBlock;
  const int chunks = p.k / 8;
  const T *a = static_cast<const T *>(p.a);
  const int64_t first = int64_t(blockIdx.x) * warpsPerBlock + threadIdx.x / kWarp;
  if (lane == 0 && first < p.n && p.k <= kPrefetchLimit)
    tcc_grid::prefetchToL2(static_cast<const T *>(p.w) + first * p.ldw,
                           static_cast<uint32_t>(p.k) * sizeof(T));
  tcc_grid::awaitPreviousGrid();
  tcc_grid::allowNextGrid();
  for (int64_t j = int64_t(blockIdx.x) * warpsPerBlock + threadIdx.x / kWarp; j < p.n;
       j += stride) {
    const uint4 *w = reinterpret_cast<const uint4 *>(static_cast<const T *>(p.w) + j * p.ldw);
    float sum[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
      sum[r] = 0.0f;
    int c = lane;
    for (; c + (kInFlight - 1) * kWarp < chunks; c += kInFlight * kWarp) {
      uint4 wv[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
        wv[u] = loadStreaming(w + c + u * kWarp);
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
          const uint4 *x = reinterpret_cast<const uint4 *>(a + r * p.lda);
          sum[r] = dot8<T>(sum[r], wv[u], __ldg(x + c + u * kWarp));
        }
    }
    for (; c < chunks; c += kWarp) {
      uint4 wv = loadStreaming(w + c);
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        const uint4 *x = reinterpret_cast<const uint4 *>(a + r * p.lda);
        sum[r] = dot8<T>(sum[r], wv, __ldg(x + c));
      }
    }
    // Every lane ends with the whole sums (xor butterflies); lane r keeps
    // row r's, selected without indexing the array by a variable (which
    // would put it in local memory).
    float mine = 0.0f;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      float s = sum[r];
#pragma unroll
      for (int offset = kWarp / 2; offset > 0; offset /= 2)
        s += __shfl_xor_sync(0xffffffffu, s, offset);
      if (lane == r)
        mine = s;
    }
    if (lane < ROWS) {
      float v = p.alpha * mine;
      if (p.bias)
        v += Pair<T>::toFloat(static_cast<const T *>(p.bias)[j]);
      v = activate(v, p.activation);
      if (p.residual)
        v += Pair<T>::toFloat(static_cast<const T *>(p.residual)[lane * p.ldr + j]);
      static_cast<T *>(p.c)[lane * p.ldc + j] = Pair<T>::round(v);
    }
  }
}

} // namespace

#define TCC_GEMV_KERNEL(NAME, T, ROWS)                                                      \
  extern "C" __global__ void __launch_bounds__(kGemvBlock) NAME(GemvParams p) {              \
    gemv<T, ROWS>(p);                                                                       \
  }
#define TCC_GEMV_KERNELS(SUFFIX, T)                                                         \
  TCC_GEMV_KERNEL(tcc_gemv_##SUFFIX##_r1, T, 1)                                             \
  TCC_GEMV_KERNEL(tcc_gemv_##SUFFIX##_r2, T, 2)                                             \
  TCC_GEMV_KERNEL(tcc_gemv_##SUFFIX##_r3, T, 3)                                             \
  TCC_GEMV_KERNEL(tcc_gemv_##SUFFIX##_r4, T, 4)                                             \
  TCC_GEMV_KERNEL(tcc_gemv_##SUFFIX##_r5, T, 5)                                             \
  TCC_GEMV_KERNEL(tcc_gemv_##SUFFIX##_r6, T, 6)                                             \
  TCC_GEMV_KERNEL(tcc_gemv_##SUFFIX##_r7, T, 7)                                             \
  TCC_GEMV_KERNEL(tcc_gemv_##SUFFIX##_r8, T, 8)

TCC_GEMV_KERNELS(bf16, __nv_bfloat16)
TCC_GEMV_KERNELS(f16, __half)
