//===- Rows.cu - softmax, log_softmax, layer_norm, rms_norm by rows -------===//
//
// The kernels behind tcc_row (RowKernels.h; RowKernels.cpp picks one and
// launches it). Every kernel computes, for each row,
//
//   h = round_in(x + residual)        (written to sumOut when asked)
//   out = kind(h)                     (fp32 arithmetic, rounded on store)
//
// reading each input row once and writing each output row once: the row
// stays in registers between its reductions and the write. Rows differ by
// orders of magnitude in length (a 64-wide attention score row, BERT's 768,
// LLaMA's 4096, a 50257-word vocabulary), so there are three shapes of work:
//
//   warp   n ≤ 1024: LANES (8, 16 or 32) lanes per row, 128-thread blocks
//          holding 128/LANES rows, one block per group of rows. A lane
//          holds S chunks (1, 2, 4, or 8 for fp32); reductions are xor
//          shuffles inside the lane group: no shared memory, no barrier.
//          Narrow groups keep short rows from idling lanes.
//   block  n ≤ 16384: one row per block of T ≤ 1024 threads (a multiple of
//          32 chosen at launch so that T·S chunks cover the row; S = 1..4
//          for 16-bit input, 2..8 for fp32, 32 values per thread at most 512
//          threads). A reduction is shuffles, one barrier and shuffles again.
//   long   longer rows (any length): a 1024-thread block walks its row in
//          tiles of 16 values per thread (8 for the scalar kernels). Pass 1
//          reduces (online softmax: running max and rescaled sum;
//          layer_norm: Chan's merge of per-tile count, mean and M2), pass 2
//          reads the row again and writes. The grid is one block per SM,
//          looping over rows, so that the rows in flight (132 × 201 KiB for
//          a 50257-float vocabulary) mostly stay in L2 for the second read.
//          Pass 2 reads h back from sumOut when it was written (one tensor
//          instead of two, and right when sumOut aliases x).
//
// A chunk is 16 bytes of input: V = 4 fp32 or 8 f16/bf16 elements. In the
// "vec" kernels (the launcher proved n a multiple of V, every base pointer
// and row stride 16-byte aligned, and out, weight and bias aligned to one
// chunk of their own type) a chunk is one 8- to 32-byte access, and thread r
// of a row's T threads holds chunks r, r+T, r+2T...: a warp's access is 512
// contiguous bytes. The "scalar" kernels (any element-aligned pointers) give
// thread r the elements r, r+T, r+2T...: each scalar access of a warp is
// still contiguous. Which elements of its tile a thread holds is one count
// (TileCount), not a predicate per element: ptxas spilled those. All loads
// of a tile are issued before any is used (see loadTile).
//
// Numerics. Arithmetic is fp32; h is rounded to the input type as PyTorch's
// add rounds it. The file is compiled with --use_fast_math: exponentials use
// __expf (ex2.approx: ~2 ulp plus the rounding of its argument, ~1e-6
// relative at worst), 1/sum is __fdividef (~2 ulp), rsqrtf is MUFU.RSQ
// (2^-22.9 relative), 1/n comes correctly rounded from the host, and log(sum)
// is log1pf(sum - 1), which fast math does not replace by __logf (sum ≥ 1:
// the max's own term). The correctly rounded __frcp_rn and __frsqrt_rn are
// avoided: their slow-path subroutine calls made ptxas save registers to
// local memory. layer_norm reduces sum(h) for a first mean m0, then
// sum(h - m0) and sum((h - m0)²) over the held values: the correction and
// the variance never subtract large sums, so rows far from zero (values in
// [100, 101]) keep their variance, and out = ((h - m0) - d)·rstd never
// rounds the mean itself to fp32. The long kernels shift by the row's first
// element instead and merge per-tile moments with Chan's formula.
//
// A reduction's result is bitwise the same in every thread of a row (xor
// butterflies of commutative operations; Chan's merge orders its operands),
// so all threads of a row agree on max, sum and rstd.
//
// The kernels are extern "C" so that RowKernels.cpp finds them by name:
//   tcc_row_<family>_<in type>_<variant>_<vec|scalar>
// family softmax (softmax, log_softmax) or norm (layer_norm, rms_norm); in
// type f32, f16, bf16; variant l8s1 l16s1 l32s1 l32s2 l32s4 l32s8 (warp),
// b1 b2 b4 b8 (block, S chunks per thread), long; the macros at the end say
// which exist. The output and parameter types are read from the parameters
// at run time, one switch per pass over a tile: templating the write loops
// on them multiplied the code ninefold, spilled, and took minutes to build.
//
//===----------------------------------------------------------------------===//

#include "GridDependency.cuh"
#include "RowParams.h"
#include "tcc/Runtime/RowKernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tcc_rows {

// The ABI's codes (KernelTypes.h and RowKernels.h), under short names.
enum : int32_t { kF32 = tcc::kKernelF32, kF16 = tcc::kKernelF16, kBF16 = tcc::kKernelBF16 };
enum : int32_t {
  kSoftmax = tcc::kRowSoftmax,
  kLogSoftmax = tcc::kRowLogSoftmax,
  kLayerNorm = tcc::kRowLayerNorm,
  kRmsNorm = tcc::kRowRmsNorm,
};

// RowParams (the kernels' single argument) is in RowParams.h, shared with
// RowKernels.cpp.

/// Threads of a block of the warp kernels.
constexpr int kWarpBlock = 128;
/// Threads of a block of the long kernels.
constexpr int kLongBlock = 1024;

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

__device__ __forceinline__ float toF32(float v) { return v; }
__device__ __forceinline__ float toF32(__half v) { return __half2float(v); }
__device__ __forceinline__ float toF32(__nv_bfloat16 v) { return __bfloat162float(v); }

/// Rounds to nearest even, as PyTorch's conversions do.
template <class T> __device__ __forceinline__ T fromF32(float v);
template <> __device__ __forceinline__ float fromF32<float>(float v) { return v; }
template <> __device__ __forceinline__ __half fromF32<__half>(float v) {
  return __float2half_rn(v);
}
template <> __device__ __forceinline__ __nv_bfloat16 fromF32<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

/// v rounded to T and back: what PyTorch's T arithmetic would have stored.
template <class T> __device__ __forceinline__ float roundTo(float v) {
  return toF32(fromF32<T>(v));
}

template <class To, class From> __device__ __forceinline__ To bitCast(From v) {
  static_assert(sizeof(To) == sizeof(From), "bitCast between sizes");
  To r;
  memcpy(&r, &v, sizeof(To));
  return r;
}

/// The 1 (fp32) or 2 (16-bit, low half first) elements of a 32-bit word.
template <class T> __device__ __forceinline__ void unpackWord(uint32_t w, float *dst);
template <> __device__ __forceinline__ void unpackWord<float>(uint32_t w, float *dst) {
  dst[0] = __uint_as_float(w);
}
template <> __device__ __forceinline__ void unpackWord<__nv_bfloat16>(uint32_t w, float *dst) {
  dst[0] = __uint_as_float(w << 16);
  dst[1] = __uint_as_float(w & 0xffff0000u);
}
template <> __device__ __forceinline__ void unpackWord<__half>(uint32_t w, float *dst) {
  float2 f = __half22float2(bitCast<__half2>(w));
  dst[0] = f.x;
  dst[1] = f.y;
}

template <class T> __device__ __forceinline__ uint32_t packWord(const float *src);
template <> __device__ __forceinline__ uint32_t packWord<float>(const float *src) {
  return __float_as_uint(src[0]);
}
template <> __device__ __forceinline__ uint32_t packWord<__nv_bfloat16>(const float *src) {
  return bitCast<uint32_t>(__floats2bfloat162_rn(src[0], src[1]));
}
template <> __device__ __forceinline__ uint32_t packWord<__half>(const float *src) {
  return bitCast<uint32_t>(__floats2half2_rn(src[0], src[1]));
}

/// Loads V elements of T (8, 16 or 32 bytes, aligned to min(16, that)).
template <class T, int V> __device__ __forceinline__ void loadVec(const T *p, float (&dst)[V]) {
  constexpr int kBytes = V * int(sizeof(T)), kPerWord = 4 / int(sizeof(T));
  static_assert(kBytes == 8 || kBytes == 16 || kBytes == 32, "unsupported chunk");
  uint32_t w[kBytes / 4];
  if constexpr (kBytes == 8) {
    uint2 u = *reinterpret_cast<const uint2 *>(p);
    w[0] = u.x;
    w[1] = u.y;
  } else {
#pragma unroll
    for (int q = 0; q < kBytes / 16; ++q) {
      uint4 u = reinterpret_cast<const uint4 *>(p)[q];
      w[4 * q] = u.x;
      w[4 * q + 1] = u.y;
      w[4 * q + 2] = u.z;
      w[4 * q + 3] = u.w;
    }
  }
#pragma unroll
  for (int i = 0; i < kBytes / 4; ++i)
    unpackWord<T>(w[i], dst + i * kPerWord);
}

/// Stores V elements as T, the counterpart of loadVec.
template <class T, int V> __device__ __forceinline__ void storeVec(T *p, const float (&src)[V]) {
  constexpr int kBytes = V * int(sizeof(T)), kPerWord = 4 / int(sizeof(T));
  static_assert(kBytes == 8 || kBytes == 16 || kBytes == 32, "unsupported chunk");
  uint32_t w[kBytes / 4];
#pragma unroll
  for (int i = 0; i < kBytes / 4; ++i)
    w[i] = packWord<T>(src + i * kPerWord);
  if constexpr (kBytes == 8) {
    *reinterpret_cast<uint2 *>(p) = make_uint2(w[0], w[1]);
  } else {
#pragma unroll
    for (int q = 0; q < kBytes / 16; ++q)
      reinterpret_cast<uint4 *>(p)[q] =
          make_uint4(w[4 * q], w[4 * q + 1], w[4 * q + 2], w[4 * q + 3]);
  }
}

//===----------------------------------------------------------------------===//
// Tiles: what one thread of a row holds
//===----------------------------------------------------------------------===//

/// The row element held at slot s, position j by thread r of the T threads
/// of a row, in a tile starting at element 0 (see the file comment).
template <int V, bool VEC> __device__ __forceinline__ int tileIndex(int s, int j, int r, int T) {
  return VEC ? (s * T + r) * V + j : (s * V + j) * T + r;
}

/// Which of a thread's S·V tile elements lie in the row: with VEC, slots
/// s < count (n is a multiple of V: the launcher checks, so a chunk is
/// wholly in or out); otherwise elements k = s·V + j < count. One integer
/// instead of a predicate per element, which ptxas would spill across the
/// reductions.
struct TileCount {
  int count;
  template <int V, bool VEC> __device__ __forceinline__ bool in(int s, int j) const {
    return (VEC ? s : s * V + j) < count;
  }
};
template <int V, bool VEC>
__device__ __forceinline__ TileCount tileCount(int base, int nb, int r, int nThreads) {
  // Units past this thread's first: chunks (VEC) or elements, T apart.
  const int left = VEC ? (nb - base) / V - r : nb - base - r;
  return {left > 0 ? (left + nThreads - 1) / nThreads : 0};
}

/// Loads h = round(a + b) (b may be null) of the tile at element `base` into
/// v, `fill` where the element is not in the row, and stores h to sumDst
/// when that is non-null.
///
/// The loads are unconditional, every one issued before any value is used:
/// a slot past the row reads the row's first chunk or element (which always
/// exists; an L1 hit) and is replaced by `fill` afterwards. Loads inside
/// `if (in the row)` with their use would wait for each slot's round trip
/// in turn.
template <class T, int S, int V, bool VEC>
__device__ __forceinline__ void loadTile(const T *a, const T *b, T *sumDst, int base, TileCount c,
                                         int r, int nThreads, float fill, float (&v)[S][V]) {
  auto at = [&](int s, int j) {
    return c.in<V, VEC>(s, j) ? base + tileIndex<V, VEC>(s, j, r, nThreads) : 0;
  };
#pragma unroll
  for (int s = 0; s < S; ++s) {
    if constexpr (VEC) {
      loadVec<T, V>(a + at(s, 0), v[s]);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j)
        v[s][j] = toF32(a[at(s, j)]);
    }
  }
  if (b) {
    float t[S][V];
#pragma unroll
    for (int s = 0; s < S; ++s) {
      if constexpr (VEC) {
        loadVec<T, V>(b + at(s, 0), t[s]);
      } else {
#pragma unroll
        for (int j = 0; j < V; ++j)
          t[s][j] = toF32(b[at(s, j)]);
      }
    }
#pragma unroll
    for (int s = 0; s < S; ++s)
#pragma unroll
      for (int j = 0; j < V; ++j)
        v[s][j] = roundTo<T>(v[s][j] + t[s][j]);
  }
#pragma unroll
  for (int s = 0; s < S; ++s) {
    if constexpr (VEC) {
      if (c.in<V, VEC>(s, 0)) {
        if (sumDst)
          storeVec<T, V>(sumDst + at(s, 0), v[s]);
      } else {
#pragma unroll
        for (int j = 0; j < V; ++j)
          v[s][j] = fill;
      }
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) {
        if (c.in<V, VEC>(s, j)) {
          if (sumDst)
            sumDst[at(s, j)] = fromF32<T>(v[s][j]);
        } else {
          v[s][j] = fill;
        }
      }
    }
  }
}

/// Stores the tile at element `base` of v as T where the element is in the row.
template <class T, int S, int V, bool VEC>
__device__ __forceinline__ void storeTile(T *o, int base, TileCount c, int r, int nThreads,
                                          const float (&v)[S][V]) {
#pragma unroll
  for (int s = 0; s < S; ++s) {
    if constexpr (VEC) {
      if (c.in<V, VEC>(s, 0))
        storeVec<T, V>(o + base + tileIndex<V, VEC>(s, 0, r, nThreads), v[s]);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j)
        if (c.in<V, VEC>(s, j))
          o[base + tileIndex<V, VEC>(s, j, r, nThreads)] = fromF32<T>(v[s][j]);
    }
  }
}

/// Multiplies (MUL) or offsets the tile by a parameter vector of T. As in
/// loadTile, every load is issued before any use (slots past the row read
/// element 0 and are never stored).
template <class T, bool MUL, int S, int V, bool VEC>
__device__ __forceinline__ void applyParam(const T *q, int base, TileCount c, int r,
                                           int nThreads, float (&v)[S][V]) {
  float w[S][V];
#pragma unroll
  for (int s = 0; s < S; ++s) {
    if constexpr (VEC) {
      loadVec<T, V>(q + (c.in<V, VEC>(s, 0) ? base + tileIndex<V, VEC>(s, 0, r, nThreads) : 0),
                    w[s]);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j)
        w[s][j] =
            toF32(q[c.in<V, VEC>(s, j) ? base + tileIndex<V, VEC>(s, j, r, nThreads) : 0]);
    }
  }
#pragma unroll
  for (int s = 0; s < S; ++s)
#pragma unroll
    for (int j = 0; j < V; ++j)
      v[s][j] = MUL ? v[s][j] * w[s][j] : v[s][j] + w[s][j];
}

/// Stores the tile as `dtype`.
template <int S, int V, bool VEC>
__device__ __forceinline__ void storeTileAs(int32_t dtype, void *o, int base, TileCount c, int r,
                                            int nThreads, const float (&v)[S][V]) {
  switch (dtype) {
  case kF32:
    storeTile<float, S, V, VEC>(static_cast<float *>(o), base, c, r, nThreads, v);
    break;
  case kF16:
    storeTile<__half, S, V, VEC>(static_cast<__half *>(o), base, c, r, nThreads, v);
    break;
  default:
    storeTile<__nv_bfloat16, S, V, VEC>(static_cast<__nv_bfloat16 *>(o), base, c, r, nThreads,
                                        v);
    break;
  }
}

/// applyParam for a parameter vector of type `dtype`.
template <bool MUL, int S, int V, bool VEC>
__device__ __forceinline__ void applyParamAs(int32_t dtype, const void *q, int base, TileCount c,
                                             int r, int nThreads, float (&v)[S][V]) {
  switch (dtype) {
  case kF32:
    applyParam<float, MUL, S, V, VEC>(static_cast<const float *>(q), base, c, r, nThreads, v);
    break;
  case kF16:
    applyParam<__half, MUL, S, V, VEC>(static_cast<const __half *>(q), base, c, r, nThreads, v);
    break;
  default:
    applyParam<__nv_bfloat16, MUL, S, V, VEC>(static_cast<const __nv_bfloat16 *>(q), base, c, r,
                                              nThreads, v);
    break;
  }
}

/// Writes a normalized tile: out = (v - shift)·rstd·w + b for layer_norm,
/// round_in(v·rstd)·w for rms_norm; weight and bias may each be null.
template <class TIn, int S, int V, bool VEC>
__device__ __forceinline__ void storeNormTileAs(const RowParams &p, void *o, int base,
                                                TileCount c, int r, int nThreads,
                                                float (&v)[S][V], float shift, float rstd,
                                                bool rms) {
#pragma unroll
  for (int s = 0; s < S; ++s)
#pragma unroll
    for (int j = 0; j < V; ++j)
      v[s][j] = rms ? roundTo<TIn>(v[s][j] * rstd) : (v[s][j] - shift) * rstd;
  if (p.weight)
    applyParamAs<true, S, V, VEC>(p.paramDType, p.weight, base, c, r, nThreads, v);
  if (p.bias)
    applyParamAs<false, S, V, VEC>(p.paramDType, p.bias, base, c, r, nThreads, v);
  storeTileAs<S, V, VEC>(p.outDType, o, base, c, r, nThreads, v);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

struct Pair {
  float a, b;
};
/// Online softmax state: max m and sum of exp(h - m).
struct MaxSum {
  float m, s;
};
/// Chan's variance state: count, mean, sum of squared deviations.
struct Moments {
  float n, mean, m2;
};

__device__ __forceinline__ float shflXor(float v, int o) {
  return __shfl_xor_sync(0xffffffffu, v, o);
}
__device__ __forceinline__ Pair shflXor(Pair v, int o) {
  return {shflXor(v.a, o), shflXor(v.b, o)};
}
__device__ __forceinline__ MaxSum shflXor(MaxSum v, int o) {
  return {shflXor(v.m, o), shflXor(v.s, o)};
}
__device__ __forceinline__ Moments shflXor(Moments v, int o) {
  return {shflXor(v.n, o), shflXor(v.mean, o), shflXor(v.m2, o)};
}

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct AddOp {
  __device__ float operator()(float a, float b) const { return a + b; }
  __device__ Pair operator()(Pair x, Pair y) const { return {x.a + y.a, x.b + y.b}; }
};
/// exp(m - M), except 1 when m is M: merging two all -inf states must not
/// make NaN from -inf - -inf (a row that is all -inf still ends in NaN, from
/// its elements' exp(h - max)).
__device__ __forceinline__ float rescale(float m, float top) {
  return m == top ? 1.0f : __expf(m - top);
}
struct MaxSumOp {
  __device__ MaxSum operator()(MaxSum x, MaxSum y) const {
    const float top = fmaxf(x.m, y.m);
    return {top, x.s * rescale(x.m, top) + y.s * rescale(y.m, top)};
  }
};
struct MomentsOp {
  __device__ Moments operator()(Moments x, Moments y) const {
    // Orders the operands so that merge(x, y) and merge(y, x) agree bitwise.
    if (y.n > x.n || (y.n == x.n && y.mean > x.mean)) {
      Moments t = x;
      x = y;
      y = t;
    }
    if (y.n == 0.0f)
      return x;
    const float n = x.n + y.n, d = y.mean - x.mean, f = y.n / n;
    return {n, x.mean + d * f, x.m2 + y.m2 + d * d * x.n * f};
  }
};

/// Xor butterfly over aligned groups of LANES lanes; every lane of the whole
/// warp must call it. Each lane ends with the same bits.
template <int LANES, class X, class Op> __device__ __forceinline__ X groupReduce(X v, Op op) {
#pragma unroll
  for (int o = LANES / 2; o > 0; o /= 2)
    v = op(v, shflXor(v, o));
  return v;
}

/// Reduces over the LANES lanes of a row in the warp kernels.
template <int LANES> struct WarpReducer {
  template <class X, class Op> __device__ __forceinline__ X operator()(X v, Op op, X) {
    return groupReduce<LANES>(v, op);
  }
};

/// Reduces over the block (blockDim.x a multiple of 32, at most 1024); every
/// thread must call it. Partials alternate between two buffers, so that one
/// barrier per reduction suffices: a buffer is written again only after the
/// barrier of the following reduction, which every reader of the previous
/// use has passed.
struct BlockReducer {
  int parity = 0;
  template <class X, class Op> __device__ __forceinline__ X operator()(X v, Op op, X identity) {
    __shared__ X partial[2][32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = groupReduce<32>(v, op);
    if (lane == 0)
      partial[parity][warp] = v;
    __syncthreads();
    v = lane < int(blockDim.x / 32) ? partial[parity][lane] : identity;
    parity ^= 1;
    return groupReduce<32>(v, op);
  }
};

//===----------------------------------------------------------------------===//
// One row held in registers (warp and block kernels)
//===----------------------------------------------------------------------===//

template <class T> __device__ __forceinline__ const T *rowOf(const void *base, int64_t row,
                                                            int64_t stride) {
  return base ? static_cast<const T *>(base) + row * stride : nullptr;
}
template <class T> __device__ __forceinline__ T *rowOf(void *base, int64_t row, int64_t stride) {
  return base ? static_cast<T *>(base) + row * stride : nullptr;
}
/// The output row (its element type is the launch's outDType).
__device__ __forceinline__ void *outRowOf(const RowParams &p, int64_t row) {
  const int64_t bytes = p.outDType == kF32 ? 4 : 2;
  return static_cast<char *>(p.out) + row * p.outStride * bytes;
}

/// Softmax or log_softmax of row `row` (its first nb elements: n, or 0 for
/// a warp group past the last row, which still takes part in the shuffles).
template <class TIn, int S, int V, bool VEC, class Red>
__device__ __forceinline__ void softmaxRow(const RowParams &p, int64_t row, int nb, int r,
                                           int nThreads, Red &reduce) {
  const TileCount c = tileCount<V, VEC>(0, nb, r, nThreads);
  float v[S][V];
  loadTile<TIn, S, V, VEC>(rowOf<TIn>(p.x, row, p.xStride),
                           rowOf<TIn>(p.residual, row, p.residualStride),
                           rowOf<TIn>(p.sumOut, row, p.sumStride), 0, c, r, nThreads, -INFINITY,
                           v);
  // Elements past the row hold -inf: they add nothing to the max, and
  // exp(-inf - max) = 0 to the sum.
  float top = -INFINITY;
#pragma unroll
  for (int s = 0; s < S; ++s)
#pragma unroll
    for (int j = 0; j < V; ++j)
      top = fmaxf(top, v[s][j]);
  top = reduce(top, MaxOp{}, -INFINITY);

  const bool logMode = p.kind == kLogSoftmax;
  float sum = 0.0f;
#pragma unroll
  for (int s = 0; s < S; ++s)
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const float d = v[s][j] - top, e = __expf(d);
      sum += e;
      v[s][j] = logMode ? d : e;
    }
  sum = reduce(sum, AddOp{}, 0.0f);

  if (logMode) {
    // sum ≥ 1 (the max's own term); log1pf is exact to ~1 ulp, unlike the
    // __logf that fast math makes of logf.
    const float logSum = log1pf(sum - 1.0f);
#pragma unroll
    for (int s = 0; s < S; ++s)
#pragma unroll
      for (int j = 0; j < V; ++j)
        v[s][j] -= logSum;
  } else {
    const float inv = __fdividef(1.0f, sum);
#pragma unroll
    for (int s = 0; s < S; ++s)
#pragma unroll
      for (int j = 0; j < V; ++j)
        v[s][j] *= inv;
  }
  storeTileAs<S, V, VEC>(p.outDType, outRowOf(p, row), 0, c, r, nThreads, v);
}

/// layer_norm or rms_norm of row `row` (see softmaxRow for nb).
template <class TIn, int S, int V, bool VEC, class Red>
__device__ __forceinline__ void normRow(const RowParams &p, int64_t row, int nb, int r,
                                        int nThreads, Red &reduce) {
  const TileCount c = tileCount<V, VEC>(0, nb, r, nThreads);
  float v[S][V];
  loadTile<TIn, S, V, VEC>(rowOf<TIn>(p.x, row, p.xStride),
                           rowOf<TIn>(p.residual, row, p.residualStride),
                           rowOf<TIn>(p.sumOut, row, p.sumStride), 0, c, r, nThreads, 0.0f, v);
  // Elements past the row hold 0 and add nothing to the sums below.
  const float invN = p.invN;
  const bool rms = p.kind == kRmsNorm;
  float shift = 0.0f, rstd;
  if (rms) {
    float squares = 0.0f;
#pragma unroll
    for (int s = 0; s < S; ++s)
#pragma unroll
      for (int j = 0; j < V; ++j)
        squares += v[s][j] * v[s][j];
    squares = reduce(squares, AddOp{}, 0.0f);
    rstd = rsqrtf(squares * invN + p.eps);
  } else {
    float sum = 0.0f;
#pragma unroll
    for (int s = 0; s < S; ++s)
#pragma unroll
      for (int j = 0; j < V; ++j)
        sum += v[s][j];
    const float mean0 = reduce(sum, AddOp{}, 0.0f) * invN;
    // Deviations from mean0 (exact for values near it): their sum corrects
    // mean0's rounding, their squares give the variance.
    Pair dev = {0.0f, 0.0f};
#pragma unroll
    for (int s = 0; s < S; ++s)
#pragma unroll
      for (int j = 0; j < V; ++j) {
        const float d = c.in<V, VEC>(s, j) ? v[s][j] - mean0 : 0.0f;
        v[s][j] = d;
        dev.a += d;
        dev.b += d * d;
      }
    dev = reduce(dev, AddOp{}, Pair{0.0f, 0.0f});
    shift = dev.a * invN;
    const float var = fmaxf(dev.b * invN - shift * shift, 0.0f);
    rstd = rsqrtf(var + p.eps);
  }
  storeNormTileAs<TIn, S, V, VEC>(p, outRowOf(p, row), 0, c, r, nThreads, v, shift, rstd, rms);
}

/// The warp kernels: LANES lanes per row, kWarpBlock / LANES rows per block,
/// one block per group of rows (no loop over rows: the compiler would hoist
/// the per-lane parameter addresses out of it and park them in local
/// memory). A group past the last row computes on nothing, so that the
/// lanes of a warp stay together for the shuffles.
template <class TIn, int LANES, int S, bool VEC, bool NORM>
__device__ __forceinline__ void warpKernel(const RowParams &p) {
  constexpr int V = 16 / int(sizeof(TIn)), kRows = kWarpBlock / LANES;
  const int64_t row = int64_t(blockIdx.x) * kRows + threadIdx.x / LANES;
  const bool valid = row < p.rows;
  WarpReducer<LANES> reduce;
  if constexpr (NORM)
    normRow<TIn, S, V, VEC>(p, valid ? row : 0, valid ? p.n : 0, threadIdx.x % LANES, LANES,
                            reduce);
  else
    softmaxRow<TIn, S, V, VEC>(p, valid ? row : 0, valid ? p.n : 0, threadIdx.x % LANES, LANES,
                               reduce);
}

/// The block kernels: one row per block of blockDim.x threads.
template <class TIn, int S, bool VEC, bool NORM>
__device__ __forceinline__ void blockKernel(const RowParams &p) {
  constexpr int V = 16 / int(sizeof(TIn));
  BlockReducer reduce;
  if constexpr (NORM)
    normRow<TIn, S, V, VEC>(p, blockIdx.x, p.n, threadIdx.x, blockDim.x, reduce);
  else
    softmaxRow<TIn, S, V, VEC>(p, blockIdx.x, p.n, threadIdx.x, blockDim.x, reduce);
}

//===----------------------------------------------------------------------===//
// Rows longer than registers hold: two passes over tiles
//===----------------------------------------------------------------------===//

/// Chunks per thread in a tile of the long kernels: 16 values, 8 for the
/// scalar kernels (an address each; 16 in flight spill at 64 registers).
template <class TIn, bool VEC>
constexpr int kLongSlots = (VEC ? 16 : 8) / (16 / int(sizeof(TIn)));

template <class TIn, bool VEC> __device__ __forceinline__ void softmaxLong(const RowParams &p) {
  constexpr int V = 16 / int(sizeof(TIn)), S = kLongSlots<TIn, VEC>;
  const int r = threadIdx.x, nThreads = blockDim.x, tile = nThreads * S * V, n = p.n;
  const bool logMode = p.kind == kLogSoftmax;
  BlockReducer reduce;
  for (int64_t row = blockIdx.x; row < p.rows; row += gridDim.x) {
    const TIn *x = rowOf<TIn>(p.x, row, p.xStride);
    const TIn *residual = rowOf<TIn>(p.residual, row, p.residualStride);
    TIn *sum = rowOf<TIn>(p.sumOut, row, p.sumStride);
    void *out = outRowOf(p, row);

    // Pass 1: this thread's running max and sum of exp(h - max).
    MaxSum acc = {-INFINITY, 0.0f};
    for (int base = 0; base < n; base += tile) {
      const TileCount c = tileCount<V, VEC>(base, n, r, nThreads);
      float v[S][V];
      loadTile<TIn, S, V, VEC>(x, residual, sum, base, c, r, nThreads, -INFINITY, v);
      float top = -INFINITY;
#pragma unroll
      for (int s = 0; s < S; ++s)
#pragma unroll
        for (int j = 0; j < V; ++j)
          top = fmaxf(top, v[s][j]);
      // A tile of -inf (or past the row) sums exp(-inf - 0) = 0; NaN stays.
      const float ref = top == -INFINITY ? 0.0f : top;
      float part = 0.0f;
#pragma unroll
      for (int s = 0; s < S; ++s)
#pragma unroll
        for (int j = 0; j < V; ++j)
          part += __expf(v[s][j] - ref);
      acc = MaxSumOp{}(acc, MaxSum{top, part});
    }
    acc = reduce(acc, MaxSumOp{}, MaxSum{-INFINITY, 0.0f});
    const float logSum = log1pf(acc.s - 1.0f), inv = __fdividef(1.0f, acc.s);

    // Pass 2: h again (this thread's own sumOut elements when written).
    const TIn *a = sum ? sum : x, *b = sum ? nullptr : residual;
    for (int base = 0; base < n; base += tile) {
      const TileCount c = tileCount<V, VEC>(base, n, r, nThreads);
      float v[S][V];
      loadTile<TIn, S, V, VEC>(a, b, nullptr, base, c, r, nThreads, -INFINITY, v);
#pragma unroll
      for (int s = 0; s < S; ++s)
#pragma unroll
        for (int j = 0; j < V; ++j) {
          const float d = v[s][j] - acc.m;
          v[s][j] = logMode ? d - logSum : __expf(d) * inv;
        }
      storeTileAs<S, V, VEC>(p.outDType, out, base, c, r, nThreads, v);
    }
  }
}

template <class TIn, bool VEC> __device__ __forceinline__ void normLong(const RowParams &p) {
  constexpr int V = 16 / int(sizeof(TIn)), S = kLongSlots<TIn, VEC>;
  const int r = threadIdx.x, nThreads = blockDim.x, tile = nThreads * S * V, n = p.n;
  const bool rms = p.kind == kRmsNorm;
  const float invN = p.invN;
  BlockReducer reduce;
  for (int64_t row = blockIdx.x; row < p.rows; row += gridDim.x) {
    const TIn *x = rowOf<TIn>(p.x, row, p.xStride);
    const TIn *residual = rowOf<TIn>(p.residual, row, p.residualStride);
    TIn *sum = rowOf<TIn>(p.sumOut, row, p.sumStride);
    void *out = outRowOf(p, row);

    // layer_norm works on h - h[0], which keeps a mean far from zero out of
    // the fp32 statistics. Every thread reads h[0] before any thread writes
    // (out or sumOut may alias x).
    float first = 0.0f;
    if (!rms) {
      first = toF32(x[0]);
      if (residual)
        first = roundTo<TIn>(first + toF32(residual[0]));
    }
    __syncthreads();

    // Pass 1: this thread's sum of squares, or its (count, mean, M2) of
    // h - first merged tile by tile.
    float squares = 0.0f;
    Moments acc = {0.0f, 0.0f, 0.0f};
    for (int base = 0; base < n; base += tile) {
      const TileCount c = tileCount<V, VEC>(base, n, r, nThreads);
      float v[S][V];
      loadTile<TIn, S, V, VEC>(x, residual, sum, base, c, r, nThreads, 0.0f, v);
      if (rms) {
#pragma unroll
        for (int s = 0; s < S; ++s)
#pragma unroll
          for (int j = 0; j < V; ++j)
            squares += v[s][j] * v[s][j];
        continue;
      }
      if (c.count == 0)
        continue;
      const float count = float(VEC ? min(c.count, S) * V : min(c.count, S * V));
      float tileSum = 0.0f;
#pragma unroll
      for (int s = 0; s < S; ++s)
#pragma unroll
        for (int j = 0; j < V; ++j) {
          v[s][j] = c.in<V, VEC>(s, j) ? v[s][j] - first : 0.0f;
          tileSum += v[s][j];
        }
      const float tileMean = tileSum / count;
      float m2 = 0.0f;
#pragma unroll
      for (int s = 0; s < S; ++s)
#pragma unroll
        for (int j = 0; j < V; ++j) {
          const float d = c.in<V, VEC>(s, j) ? v[s][j] - tileMean : 0.0f;
          m2 += d * d;
        }
      acc = MomentsOp{}(acc, Moments{count, tileMean, m2});
    }
    float shift, rstd;
    if (rms) {
      squares = reduce(squares, AddOp{}, 0.0f);
      shift = 0.0f;
      rstd = rsqrtf(squares * invN + p.eps);
    } else {
      acc = reduce(acc, MomentsOp{}, Moments{0.0f, 0.0f, 0.0f});
      shift = acc.mean;
      rstd = rsqrtf(fmaxf(acc.m2 * invN, 0.0f) + p.eps);
    }

    // Pass 2: h again (this thread's own sumOut elements when written).
    const TIn *a = sum ? sum : x, *b = sum ? nullptr : residual;
    for (int base = 0; base < n; base += tile) {
      const TileCount c = tileCount<V, VEC>(base, n, r, nThreads);
      float v[S][V];
      loadTile<TIn, S, V, VEC>(a, b, nullptr, base, c, r, nThreads, 0.0f, v);
      if (!rms) {
#pragma unroll
        for (int s = 0; s < S; ++s)
#pragma unroll
          for (int j = 0; j < V; ++j)
            v[s][j] -= first;
      }
      storeNormTileAs<TIn, S, V, VEC>(p, out, base, c, r, nThreads, v, shift, rstd, rms);
    }
  }
}

} // namespace tcc_rows

//===----------------------------------------------------------------------===//
// The kernels, by name
//===----------------------------------------------------------------------===//

#define TCC_ROWS_WARP(FAM, NORM, TN, T, LANES, S, VN, VEC)                                      \
  extern "C" __global__ void __launch_bounds__(tcc_rows::kWarpBlock)                             \
      tcc_row_##FAM##_##TN##_l##LANES##s##S##_##VN(tcc_rows::RowParams p) {                      \
    tcc_grid::awaitPreviousGrid();                                                               \
    tcc_grid::allowNextGrid();                                                                   \
    tcc_rows::warpKernel<T, LANES, S, VEC, NORM>(p);                                             \
  }
#define TCC_ROWS_BLOCK(FAM, NORM, TN, T, S, VN, VEC, MAXT)                                      \
  extern "C" __global__ void __launch_bounds__(MAXT, 1)                                          \
      tcc_row_##FAM##_##TN##_b##S##_##VN(tcc_rows::RowParams p) {                                \
    tcc_grid::awaitPreviousGrid();                                                               \
    tcc_grid::allowNextGrid();                                                                   \
    tcc_rows::blockKernel<T, S, VEC, NORM>(p);                                                   \
  }
#define TCC_ROWS_LONG(FAM, NORM, TN, T, VN, VEC)                                                \
  extern "C" __global__ void __launch_bounds__(tcc_rows::kLongBlock)                             \
      tcc_row_##FAM##_##TN##_long_##VN(tcc_rows::RowParams p) {                                  \
    tcc_grid::awaitPreviousGrid();                                                               \
    tcc_grid::allowNextGrid();                                                                   \
    if constexpr (NORM)                                                                          \
      tcc_rows::normLong<T, VEC>(p);                                                             \
    else                                                                                         \
      tcc_rows::softmaxLong<T, VEC>(p);                                                          \
  }

/// The variants of one family, input type and access width that every
/// input type has.
#define TCC_ROWS_COMMON(FAM, NORM, TN, T, VN, VEC)                                              \
  TCC_ROWS_WARP(FAM, NORM, TN, T, 8, 1, VN, VEC)                                                 \
  TCC_ROWS_WARP(FAM, NORM, TN, T, 16, 1, VN, VEC)                                                \
  TCC_ROWS_WARP(FAM, NORM, TN, T, 32, 1, VN, VEC)                                                \
  TCC_ROWS_WARP(FAM, NORM, TN, T, 32, 2, VN, VEC)                                                \
  TCC_ROWS_WARP(FAM, NORM, TN, T, 32, 4, VN, VEC)                                                \
  TCC_ROWS_BLOCK(FAM, NORM, TN, T, 2, VN, VEC, 1024)                                             \
  TCC_ROWS_LONG(FAM, NORM, TN, T, VN, VEC)
/// 16-bit inputs: warps up to 4 chunks (32 values) per lane; blocks of 1
/// chunk per thread (n of 1025..2048 at ≤ 256 threads) to 4. 32 values per
/// thread (all loads in flight, with a residual twice that) need more than
/// the 64 registers that 1024 threads leave: that kernel takes at most 512
/// threads, and only vectorized (the scalar one, an address per element,
/// spills even then).
#define TCC_ROWS_HALF(FAM, NORM, TN, T)                                                         \
  TCC_ROWS_COMMON(FAM, NORM, TN, T, vec, true)                                                   \
  TCC_ROWS_COMMON(FAM, NORM, TN, T, scalar, false)                                               \
  TCC_ROWS_BLOCK(FAM, NORM, TN, T, 1, vec, true, 1024)                                           \
  TCC_ROWS_BLOCK(FAM, NORM, TN, T, 1, scalar, false, 1024)                                       \
  TCC_ROWS_BLOCK(FAM, NORM, TN, T, 4, vec, true, 512)
/// fp32: warps up to 8 chunks (32 values) per lane; blocks of 2 chunks per
/// thread (1 would be picked only where 2 fit in ≤ 256 threads) to 8, the
/// last at most 512 threads and vectorized only, as for 16-bit input.
#define TCC_ROWS_F32(FAM, NORM)                                                                 \
  TCC_ROWS_COMMON(FAM, NORM, f32, float, vec, true)                                              \
  TCC_ROWS_COMMON(FAM, NORM, f32, float, scalar, false)                                          \
  TCC_ROWS_WARP(FAM, NORM, f32, float, 32, 8, vec, true)                                         \
  TCC_ROWS_WARP(FAM, NORM, f32, float, 32, 8, scalar, false)                                     \
  TCC_ROWS_BLOCK(FAM, NORM, f32, float, 4, vec, true, 1024)                                      \
  TCC_ROWS_BLOCK(FAM, NORM, f32, float, 4, scalar, false, 1024)                                  \
  TCC_ROWS_BLOCK(FAM, NORM, f32, float, 8, vec, true, 512)

#define TCC_ROWS_FAMILY(FAM, NORM)                                                              \
  TCC_ROWS_F32(FAM, NORM)                                                                        \
  TCC_ROWS_HALF(FAM, NORM, f16, __half)                                                          \
  TCC_ROWS_HALF(FAM, NORM, bf16, __nv_bfloat16)

TCC_ROWS_FAMILY(softmax, false)
TCC_ROWS_FAMILY(norm, true)
