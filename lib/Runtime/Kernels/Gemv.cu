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
// count is a template argument so that the sums stay in registers. For 2 to
// 8 rows a warp owns 8 or 4 columns at once (gemvColumnsPerWarp): each chunk
// of A's rows comes from L1 once for all of them, and the rows (padded to 4
// or 8) x columns = 32 sums are reduced by a transposing butterfly that
// leaves one finished sum in each lane.
//
// Launched ahead of the previous kernel (GridDependency.h), a warp first
// asks L2 for its first column of W, the weight that no kernel writes,
// and only then waits for the previous kernel: a decode step's weights
// stream in while the small kernels before each product run.
//
//===----------------------------------------------------------------------===//
#include "GemvParams.h"

// Defining TCC_GEMV_EMULATION as a header name replaces CUDA's types and
// primitives with host ones (test/unit/GemvEmulation.h): the kernels below
// then run on the host, a warp as 32 threads, for GemvEmulationTest.cpp.
#ifdef TCC_GEMV_EMULATION
#include TCC_GEMV_EMULATION
#else
#include "GridDependency.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

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
#ifdef TCC_GEMV_EMULATION
  return __ldg(p);
#else
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
#endif
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

/// C[r, j] from its finished dot product: alpha, bias, activation,
/// residual, rounded once.
template <typename T>
__device__ __forceinline__ void finish(const GemvParams &p, int r, int64_t j, float dot) {
  float v = p.alpha * dot;
  if (p.bias)
    v += Pair<T>::toFloat(static_cast<const T *>(p.bias)[j]);
  v = activate(v, p.activation);
  if (p.residual)
    v += Pair<T>::toFloat(static_cast<const T *>(p.residual)[r * p.ldr + j]);
  static_cast<T *>(p.c)[r * p.ldc + j] = Pair<T>::round(v);
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
    if (lane < ROWS)
      finish<T>(p, lane, j, mine);
  }
}

/// 2 to 8 rows: a warp owns COLS columns j0.. at once (gemvColumnsPerWarp).
/// Each lane keeps U chunks of every column in flight (U x COLS = 8 loads),
/// then reads each row's chunk of A once for all COLS columns.
template <typename T, int ROWS>
__device__ void gemvColumns(const GemvParams &p) {
  constexpr int COLS = tcc_gemv::gemvColumnsPerWarp(ROWS);
  constexpr int PADDED = kWarp / COLS;
  constexpr int U = 8 / COLS;
  static_assert(PADDED >= ROWS && PADDED * COLS == kWarp && U >= 1, "GEMV layout");
  const int lane = threadIdx.x % kWarp;
  const int64_t warpsPerBlock = kGemvBlock / kWarp;
  const int64_t stride = int64_t(gridDim.x) * warpsPerBlock * COLS;
  const int chunks = p.k / 8;
  const T *a = static_cast<const T *>(p.a);
  const T *weight = static_cast<const T *>(p.w);
  const int64_t first = (int64_t(blockIdx.x) * warpsPerBlock + threadIdx.x / kWarp) * COLS;
  if (lane < COLS && first + lane < p.n && p.k <= kPrefetchLimit)
    tcc_grid::prefetchToL2(weight + (first + lane) * p.ldw, static_cast<uint32_t>(p.k) * sizeof(T));
  tcc_grid::awaitPreviousGrid();
  tcc_grid::allowNextGrid();
  for (int64_t j0 = first; j0 < p.n; j0 += stride) {
    // Columns past n (the last group's) read column n - 1 and are not stored.
    const uint4 *w[COLS];
#pragma unroll
    for (int col = 0; col < COLS; ++col)
      w[col] = reinterpret_cast<const uint4 *>(weight + min(j0 + col, p.n - 1) * p.ldw);
    float sum[kWarp]; // [row][column], rows padded to PADDED
#pragma unroll
    for (int i = 0; i < kWarp; ++i)
      sum[i] = 0.0f;
    for (int c0 = lane; c0 < chunks; c0 += U * kWarp) {
      uint4 wv[U][COLS];
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int col = 0; col < COLS; ++col)
          wv[u][col] = c0 + u * kWarp < chunks ? loadStreaming(w[col] + c0 + u * kWarp)
                                               : make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int c = c0 + u * kWarp;
        if (c < chunks) {
          // Padded rows multiply zeros: the same code for every row count
          // keeps the sums in registers (ptxas put them on the stack for
          // 5-7 rows otherwise).
#pragma unroll
          for (int r = 0; r < PADDED; ++r) {
            const uint4 x = r < ROWS ? __ldg(reinterpret_cast<const uint4 *>(a + r * p.lda) + c)
                                     : make_uint4(0, 0, 0, 0);
#pragma unroll
            for (int col = 0; col < COLS; ++col)
              sum[r * COLS + col] = dot8<T>(sum[r * COLS + col], wv[u][col], x);
          }
        }
      }
    }
    // Transposing butterfly: at each step a lane keeps the half of its sums
    // its xor partner drops and adds the partner's copy of that half; after
    // five steps lane l holds the whole sum of entry l = row * COLS + column.
#pragma unroll
    for (int width = kWarp / 2; width >= 1; width /= 2) {
      const bool upper = (lane & width) != 0;
#pragma unroll
      for (int i = 0; i < width; ++i) {
        const float send = upper ? sum[i] : sum[i + width];
        const float keep = upper ? sum[i + width] : sum[i];
        sum[i] = keep + __shfl_xor_sync(0xffffffffu, send, width);
      }
    }
    const int r = lane / COLS;
    const int64_t j = j0 + lane % COLS;
    if (r < ROWS && j < p.n)
      finish<T>(p, r, j, sum[0]);
  }
}

} // namespace

#define TCC_GEMV_KERNEL(NAME, T, ROWS)                                                      \
  extern "C" __global__ void __launch_bounds__(kGemvBlock) NAME(GemvParams p) {              \
    if constexpr (ROWS == 1)                                                                \
      gemv<T, 1>(p);                                                                        \
    else                                                                                    \
      gemvColumns<T, ROWS>(p);                                                              \
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
