//===- Attention.cu - tcc's fused attention kernels (flash-style) ---------===//
//
// The kernels behind tcc_attention (AttentionKernels.h; the launcher is
// AttentionKernels.cpp). One design, flash-attention 2, for four arithmetics:
//
//   f16, bf16  mma.sync m16n8k16 on tensor cores, fp32 accumulators;
//   tf32       f32 tensors, mma.sync m16n8k8 TF32 (inputs rounded with
//              cvt.rna), fp32 accumulators (kAttentionMathTf32);
//   f32        f32 tensors in exact fp32: FFMA only (kAttentionMathF32).
//
// Work split. A block of 4 warps (128 threads) owns 64 query rows of one
// (batch, head); warp w owns rows 16w..16w+15 and keeps, for all of them,
// the running max m, the running sum l and the fp32 accumulator O (16 x D).
// The block walks the keys in tiles of Bc (64; 32 for f32/tf32 with D > 64,
// to stay at two blocks per SM) through shared memory, double-buffered:
// the tile after the current one is in flight (cp.async) while this one is
// computed. Per tile a warp computes S = Q K^T (16 x Bc, fp32), scales it,
// masks it, folds it into m/l/O with the online softmax, and adds P V.
// Nothing of size Lq x Lk reaches device memory; O is normalized by 1/l,
// rounded to the element type once, staged in shared memory and written
// with 16-byte stores.
//
// Why these shapes. 16 rows per warp is the M of one mma, so the softmax
// of a row lives in one quad of lanes (shuffles over 2 lane bits) and every
// thread holds S in the mma C-fragment layout: element e of 8-key tile n is
// row g + 8(e/2), key 8n + 2t + e%2 (g = lane/4, t = lane%4). All four
// arithmetics keep S in that layout, so masking and the softmax are shared:
//   - f16/bf16: the C fragments of two 8-key tiles are exactly the A
//     fragment of P for one k16 step of P V (packed to f16x2/bf16x2), as in
//     FlashAttention-2. Q is held as A fragments in registers (ldmatrix);
//     K fragments come from ldmatrix, V fragments from ldmatrix.trans.
//   - tf32: the k8 order is permuted so the C fragment of one 8-key tile is
//     the A fragment of P (logical k = t, t+4 <-> key 2t, 2t+1; the same
//     permutation on the V rows, and on d for Q K^T so Q and K come in as
//     float2). Q is re-read from shared memory per k step. Every operand
//     (Q, K, P, V) is rounded to TF32 (cvt.rna) as it enters an mma, so
//     the error is that of TF32 inputs with fp32 sums (as cuBLAS's TF32):
//     ~1e-3 relative for unit-scale scores, growing with the score range.
//     TF32 mma runs several times the FFMA rate, hence a variant of its own.
//   - f32: each thread computes its own S elements with FFMA from float4
//     loads of Q and K; P goes through a per-warp shared buffer and each
//     thread accumulates 2 rows x D/4 columns of O (16c + 4t + 0..3).
// Shared rows are padded (D + 8 halves: an odd number of 16-byte units, so
// ldmatrix is conflict free; D + 4 or D + 8 floats, chosen per access
// pattern) rather than swizzled.
//
// Semantics (AttentionKernels.h). Scores are scaled in the log2 domain
// (x = q.k * scale * log2 e, p = 2^(x - m)). A key is invisible when it is
// past lk, after the query (causal, top-left: j > i), false in a bool
// mask, or -inf in an additive mask; its x is -inf. Finite additive values
// are clamped to -FLT_MAX after scaling, so PyTorch's finfo.min padding
// stays "visible but negligible" (a row of only such keys averages them,
// as PyTorch does) instead of overflowing to -inf. A row whose max is
// still -inf uses 0 as its reference (no inf - inf), gets l = 0 and is
// written as 0. Masking is applied only to tiles that need it: the ragged
// last tile, tiles crossing a warp's causal diagonal, and all tiles when a
// mask is given; causal key tiles past the block's last row are not
// visited, and a warp skips tiles entirely after its own rows.
//
// Variants: 4 arithmetics x D in {16, 32, 64, 80, 96, 128} x {vectorized,
// scalar}. The vectorized kernels load with 16-byte cp.async and store
// with 16-byte stores; the launcher picks them only when every base
// pointer and every stride (in bytes) is a multiple of 16. The scalar ones
// load element by element (synchronously) and accept any element-aligned
// view. Kernel names: tcc_attention_<f16|bf16|tf32|f32>_d<D>[_vec].
// Other head dims (multiples of 8 up to 128) run in the next power-of-2
// D: the launcher passes the real one (params.headDim), columns past it
// are loaded as zeros (they add nothing to Q K^T, and P V gives them
// zeros) and not stored. There every thread loads one column of each
// tile, so the test is made once per thread and folded into its row
// limits: the key loop has no test of its own. (D = 80 and 96 would need
// one per 16-byte chunk; they run only their own head dim.)
//
// Block order: non-causal grids run the query tiles of one (batch, head)
// together (K/V reuse in L2); causal grids run the longest query tiles
// (the last ones) of all heads first, so the short ones fill the tail.
//
// The device primitives (inline PTX) are the only hardware-specific code;
// defining TCC_ATTENTION_EMULATION as a header name replaces them (and the
// kernel entry points) with a host emulation, which is how these kernels
// were tested on a machine without a GPU.
//
//===----------------------------------------------------------------------===//

#include "AttentionParams.h"

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#ifdef TCC_ATTENTION_EMULATION
#include TCC_ATTENTION_EMULATION
#else

#define TCC_DEVICE __device__ __forceinline__

namespace tcc_attn {

/// The block's dynamic shared memory; every shared access below is a byte
/// offset into it.
extern __shared__ __align__(16) unsigned char sharedBase[];

TCC_DEVICE int threadIndex() { return static_cast<int>(threadIdx.x); }
TCC_DEVICE int blockIndex() { return static_cast<int>(blockIdx.x); }
TCC_DEVICE void syncThreads() { __syncthreads(); }
TCC_DEVICE void syncWarp() { __syncwarp(); }
TCC_DEVICE float shflXor(float v, int laneMask) {
  return __shfl_xor_sync(0xffffffffu, v, laneMask);
}

/// Bytes of dynamic shared memory this launch got (checked against the
/// layout: a launcher/kernel mismatch traps instead of corrupting memory).
TCC_DEVICE uint32_t dynamicSharedBytes() {
  uint32_t n;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(n));
  return n;
}
TCC_DEVICE void trapKernel() { __trap(); }

template <class V> TCC_DEVICE V lds(uint32_t offset) {
  return *reinterpret_cast<const V *>(sharedBase + offset);
}
template <class V> TCC_DEVICE void sts(uint32_t offset, V value) {
  *reinterpret_cast<V *>(sharedBase + offset) = value;
}
/// The shared-window address of `offset`, for ldmatrix and cp.async.
TCC_DEVICE uint32_t sharedAddress(uint32_t offset) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(sharedBase)) + offset;
}

/// Read-only global loads (the inputs do not change during the kernel).
TCC_DEVICE float ldg(const float *p) { return __ldg(p); }
TCC_DEVICE uint16_t ldg(const uint16_t *p) { return __ldg(reinterpret_cast<const unsigned short *>(p)); }
TCC_DEVICE uint8_t ldg(const uint8_t *p) { return __ldg(reinterpret_cast<const unsigned char *>(p)); }
template <class V> TCC_DEVICE void stg(V *p, V value) { *p = value; }

/// 16 bytes global -> shared, asynchronously; zero-fills when !valid (and
/// then reads nothing from `src`, which must still be a mapped address).
TCC_DEVICE void cpAsync16(uint32_t offset, const void *src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(sharedAddress(offset)),
               "l"(src), "r"(valid ? 16 : 0));
}
TCC_DEVICE void cpAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::); }
/// Waits until at most N of this thread's cp.async groups are pending.
template <int N> TCC_DEVICE void cpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/// Four 8x8 b16 matrices; lane L gives the address of row L%8 of matrix
/// L/8, and gets row L/4, columns 2(L%4), +1 of each (transposed: column
/// L/4, rows 2(L%4), +1).
TCC_DEVICE void ldmatrixX4(uint32_t offset, uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(sharedAddress(offset)));
}
TCC_DEVICE void ldmatrixX4Trans(uint32_t offset, uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(sharedAddress(offset)));
}

/// c += a b for one m16n8k16 (f16 or bf16 inputs) or m16n8k8 (tf32) tile.
TCC_DEVICE void mmaF16(float *c, const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
TCC_DEVICE void mmaBf16(float *c, const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
TCC_DEVICE void mmaTf32(float *c, const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// 2^x (MUFU; 2^-inf = 0).
TCC_DEVICE float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
/// x rounded to TF32 (nearest, ties away), as an mma operand.
TCC_DEVICE uint32_t toTf32(float x) {
  uint32_t y;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(y) : "f"(x));
  return y;
}
/// (lo, hi) rounded to nearest even, lo in the low half.
TCC_DEVICE uint32_t packF16(float lo, float hi) {
  uint32_t y;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(y) : "f"(hi), "f"(lo));
  return y;
}
TCC_DEVICE uint32_t packBf16(float lo, float hi) {
  uint32_t y;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(y) : "f"(hi), "f"(lo));
  return y;
}
TCC_DEVICE float f16ToFloat(uint16_t bits) {
  float y;
  asm("cvt.f32.f16 %0, %1;" : "=f"(y) : "h"(bits));
  return y;
}
TCC_DEVICE float bf16ToFloat(uint16_t bits) {
  return __uint_as_float(static_cast<uint32_t>(bits) << 16);
}

} // namespace tcc_attn

/// One `extern "C"` entry point per variant (the launcher looks them up by
/// name); the parameters come as one struct by value.
#define TCC_ATTENTION_KERNEL(NAME, KIND, D, VEC)                                                \
  extern "C" __global__ void                                                                    \
  __launch_bounds__(tcc_attn::kThreads, tcc_attn::Config<KIND, D>::kMinBlocks)                  \
      NAME(const tcc_attn::AttentionParams params) {                                            \
    tcc_attn::attentionBlock<KIND, D, VEC>(params);                                             \
  }

#endif // TCC_ATTENTION_EMULATION

namespace tcc_attn {

//===----------------------------------------------------------------------===//
// Shared-memory layout (mirrored by sharedBytes() in AttentionKernels.cpp)
//===----------------------------------------------------------------------===//

// The kernel argument, AttentionParams, is in AttentionParams.h (shared
// with the launcher).

enum Kind : int { kF16 = 0, kBf16 = 1, kTf32 = 2, kF32 = 3 };
enum MaskKind : int { kMaskNone = 0, kMaskBool = 1, kMaskAdditive = 2 };

constexpr int kThreads = 128;
constexpr int kWarps = 4;
constexpr int kBlockRows = 64; ///< query rows per block, 16 per warp
constexpr float kLog2e = 1.4426950408889634f;
/// Blocks per SM that f16/bf16 D = 80 and 96 (55 and 65 KB of shared
/// memory) ask registers for: 3 fit in an H100's 228 KB, 2 in an A100's
/// 164 KB.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
constexpr int kD96Blocks = 2;
#else
constexpr int kD96Blocks = 3;
#endif

struct F16 {
  uint16_t bits;
};
struct Bf16 {
  uint16_t bits;
};

/// How loadTile spreads a row of D elements over the block: in units of
/// 16-byte chunks (vectorized) or elements, unit c of a tile to thread
/// c % 128. Where the units of a row divide the block (D a power of 2),
/// a thread loads the same column of every row of every tile. (Keep in
/// step with loadTile.)
template <class Elem, bool Vec, int D> struct TileLayout {
  static constexpr int kPerUnit = Vec ? 16 / int(sizeof(Elem)) : 1;
  static constexpr int kUnitsPerRow = D / kPerUnit;
  static constexpr bool kOneColumn = kThreads % kUnitsPerRow == 0;
  /// The first column of thread `tid`'s units (kOneColumn only).
  static TCC_DEVICE int column(int tid) { return (tid % kUnitsPerRow) * kPerUnit; }
};

/// Tile sizes and the shared-memory layout of one variant: Q (64 rows),
/// K and V (two buffers of Bc rows each), and for f32 the per-warp P tiles.
/// Row strides in elements; offsets in bytes (all multiples of 16).
template <int K, int D> struct Config {
  static constexpr bool kHalf = K == kF16 || K == kBf16;
  using Elem = std::conditional_t<K == kF16, F16, std::conditional_t<K == kBf16, Bf16, float>>;
  static constexpr int kElemBytes = kHalf ? 2 : 4;
  // f32/tf32 hold Q, K and V in fp32: past D = 64, tiles of 64 keys would
  // leave one block per SM (D = 80: 122 KB for f32).
  static constexpr int kBlockKeys = (!kHalf && D > 64) ? 32 : 64;
  // f16: D + 8 halves is an odd number of 16-byte units (ldmatrix rows hit
  // distinct banks). tf32 reads Q and K as float2 at [g][2t]: D + 8 floats
  // (8 or 24 mod 32 banks); V as floats at [2t][g]: D + 4. f32 reads float4
  // rows at [g] and [2t]: D + 4. (All of it needs D % 16 == 0.)
  static constexpr int kQStride = K == kF32 ? D + 4 : D + 8;
  static constexpr int kKStride = kQStride;
  static constexpr int kVStride = kHalf ? D + 8 : D + 4;
  static constexpr int kPStride = kBlockKeys + 4;
  static constexpr uint32_t kKBytes = kBlockKeys * kKStride * kElemBytes; // one buffer
  static constexpr uint32_t kVBytes = kBlockKeys * kVStride * kElemBytes;
  static constexpr uint32_t kKOffset = kBlockRows * kQStride * kElemBytes;
  static constexpr uint32_t kVOffset = kKOffset + 2 * kKBytes;
  static constexpr uint32_t kPOffset = kVOffset + 2 * kVBytes;
  static constexpr uint32_t kSharedBytes =
      kPOffset + (K == kF32 ? kWarps * 16 * kPStride * 4 : 0);
  /// Blocks per SM the register allocation must allow: tiles of small D
  /// leave room in shared memory for 3-4 blocks (ptxas then stays at <= 168
  /// / 128 registers without spilling); the others are bounded by shared
  /// memory at 2 anyway (so are f16/bf16 D = 80, 96 on sm_80's 164 KB).
  /// f16/bf16 D = 16 asks for 3: its scalar kernel (16 loads in flight per
  /// key tile) spills at 128 on sm_80, and the vectorized one needs ~120.
  static constexpr int kMinBlocks = !kHalf     ? (D <= 32 ? 3 : 1)
                                   : D <= 16  ? 3
                                   : D <= 32  ? 4
                                   : D <= 64  ? 3
                                   : D <= 96  ? kD96Blocks
                                              : 1;
  /// Whether the kernel also runs smaller head dims (p.headDim < D; the
  /// launcher rounds up to the next power of 2). A thread then loads one
  /// column (TileLayout::kOneColumn), so the column test is made once per
  /// thread, outside the key loop. D = 80 and 96 would need it per chunk
  /// in the loop; they run only their own head dim. (With false here, and
  /// attentionKernelSupports and tileIndex() in AttentionKernels.cpp back
  /// to the compiled head dims, the kernels are those without the feature.)
  static constexpr bool kNarrowerHeads = (D & (D - 1)) == 0;
  static_assert(!kNarrowerHeads || (TileLayout<Elem, true, D>::kOneColumn &&
                                    TileLayout<Elem, false, D>::kOneColumn),
                "a narrower head dim is a per-thread test");
  static_assert(D % 16 == 0 && D >= 16 && D <= 128, "head dims 16, 32, ..., 128");
};

TCC_DEVICE int imin(int a, int b) { return a < b ? a : b; }

template <class E> TCC_DEVICE float toFloat(E x);
template <> TCC_DEVICE float toFloat<float>(float x) { return x; }
template <> TCC_DEVICE float toFloat<F16>(F16 x) { return f16ToFloat(x.bits); }
template <> TCC_DEVICE float toFloat<Bf16>(Bf16 x) { return bf16ToFloat(x.bits); }

TCC_DEVICE float ldgElem(const float *p) { return ldg(p); }
TCC_DEVICE F16 ldgElem(const F16 *p) { return F16{ldg(reinterpret_cast<const uint16_t *>(p))}; }
TCC_DEVICE Bf16 ldgElem(const Bf16 *p) { return Bf16{ldg(reinterpret_cast<const uint16_t *>(p))}; }

template <int K> TCC_DEVICE uint32_t packPair(float lo, float hi) {
  if constexpr (K == kF16)
    return packF16(lo, hi);
  else
    return packBf16(lo, hi);
}

//===----------------------------------------------------------------------===//
// Global -> shared tiles
//===----------------------------------------------------------------------===//

/// Copies `Rows` rows of D elements (row r at src + r * srcStride) into
/// shared memory at `offset` with row stride `Stride`; rows >= validRows
/// become zeros (V rows past lk must be finite: they meet p = 0). Columns
/// past a smaller head dim are zeroed by the caller passing validRows <= 0
/// to the threads that load them (see attentionBlock).
template <class Elem, bool Vec, int D, int Rows, int Stride>
TCC_DEVICE void loadTile(uint32_t offset, const Elem *src, int64_t srcStride, int validRows,
                         int tid) {
  constexpr int kBytes = sizeof(Elem);
  if constexpr (Vec) {
    constexpr int kPerChunk = 16 / kBytes;
    constexpr int kChunksPerRow = D / kPerChunk;
    constexpr int kChunks = Rows * kChunksPerRow;
    static_assert(kChunks % kThreads == 0, "whole rounds of 16-byte chunks");
#pragma unroll
    for (int i = 0; i < kChunks / kThreads; ++i) {
      int c = tid + i * kThreads;
      int row = c / kChunksPerRow, col = (c % kChunksPerRow) * kPerChunk;
      bool valid = row < validRows;
      const Elem *from = valid ? src + row * srcStride + col : src;
      cpAsync16(offset + (row * Stride + col) * kBytes, from, valid);
    }
  } else {
    constexpr int kElems = Rows * D;
    static_assert(kElems % kThreads == 0, "whole rounds of elements");
#pragma unroll 8
    for (int i = 0; i < kElems / kThreads; ++i) {
      int e = tid + i * kThreads;
      int row = e / D, col = e % D;
      Elem x{};
      if (row < validRows)
        x = ldgElem(src + row * srcStride + col);
      sts<Elem>(offset + (row * Stride + col) * kBytes, x);
    }
  }
}

//===----------------------------------------------------------------------===//
// S = Q K^T for one warp (16 rows x Bc keys, C-fragment layout)
//===----------------------------------------------------------------------===//

/// f16/bf16: Q as A fragments in registers, K through ldmatrix: matrix
/// i of lane L's x4 load is keys 16np + 8(i/2) .. +7, d 16kk + 8(i%2) .. +7,
/// i.e. the two B registers of key tiles 2np and 2np+1.
template <int K, int D, int NT>
TCC_DEVICE void scoresHalf(float (&s)[NT][4], const uint32_t (&qf)[D / 16][4], uint32_t kTile,
                           int lane) {
  using C = Config<K, D>;
  const uint32_t kLane =
      kTile + (((lane >> 4) * 8 + (lane & 7)) * C::kKStride + ((lane >> 3) & 1) * 8) * 2;
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
#pragma unroll
    for (int np = 0; np < NT / 2; ++np) {
      uint32_t b[4];
      ldmatrixX4(kLane + (np * 16 * C::kKStride + kk * 16) * 2, b);
      if constexpr (K == kF16) {
        mmaF16(s[2 * np], qf[kk], b[0], b[1]);
        mmaF16(s[2 * np + 1], qf[kk], b[2], b[3]);
      } else {
        mmaBf16(s[2 * np], qf[kk], b[0], b[1]);
        mmaBf16(s[2 * np + 1], qf[kk], b[2], b[3]);
      }
    }
  }
}

/// tf32: per k8 step, A = Q[g|g+8][8s + 2t, +1] and B = K[8n + g][8s + 2t,
/// +1] (the d order permuted so both are float2 loads; the sum is the same).
template <int D, int NT>
TCC_DEVICE void scoresTf32(float (&s)[NT][4], uint32_t qRow, uint32_t kTile, int g, int t) {
  using C = Config<kTf32, D>;
#pragma unroll
  for (int ks = 0; ks < D / 8; ++ks) {
    float2 qa = lds<float2>(qRow + (ks * 8 + 2 * t) * 4);
    float2 qb = lds<float2>(qRow + (8 * C::kQStride + ks * 8 + 2 * t) * 4);
    uint32_t a[4] = {toTf32(qa.x), toTf32(qb.x), toTf32(qa.y), toTf32(qb.y)};
#pragma unroll
    for (int n = 0; n < NT; ++n) {
      float2 kv = lds<float2>(kTile + ((8 * n + g) * C::kKStride + ks * 8 + 2 * t) * 4);
      mmaTf32(s[n], a, toTf32(kv.x), toTf32(kv.y));
    }
  }
}

/// f32: thread (g, t) computes its own fragment elements with FFMA.
template <int D, int NT>
TCC_DEVICE void scoresF32(float (&s)[NT][4], uint32_t qRow, uint32_t kTile, int t) {
  using C = Config<kF32, D>;
#pragma unroll
  for (int n = 0; n < NT; ++n)
    s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
#pragma unroll 2
  for (int d = 0; d < D; d += 4) {
    float4 qa = lds<float4>(qRow + d * 4);
    float4 qb = lds<float4>(qRow + (8 * C::kQStride + d) * 4);
#pragma unroll
    for (int n = 0; n < NT; ++n) {
      float4 k0 = lds<float4>(kTile + ((8 * n + 2 * t) * C::kKStride + d) * 4);
      float4 k1 = lds<float4>(kTile + ((8 * n + 2 * t + 1) * C::kKStride + d) * 4);
      s[n][0] = fmaf(qa.w, k0.w, fmaf(qa.z, k0.z, fmaf(qa.y, k0.y, fmaf(qa.x, k0.x, s[n][0]))));
      s[n][1] = fmaf(qa.w, k1.w, fmaf(qa.z, k1.z, fmaf(qa.y, k1.y, fmaf(qa.x, k1.x, s[n][1]))));
      s[n][2] = fmaf(qb.w, k0.w, fmaf(qb.z, k0.z, fmaf(qb.y, k0.y, fmaf(qb.x, k0.x, s[n][2]))));
      s[n][3] = fmaf(qb.w, k1.w, fmaf(qb.z, k1.z, fmaf(qb.y, k1.y, fmaf(qb.x, k1.x, s[n][3]))));
    }
  }
}

//===----------------------------------------------------------------------===//
// Masking and the online softmax (shared by all arithmetics)
//===----------------------------------------------------------------------===//

/// Turns the raw scores of one tile into p = 2^(x - m) in place and updates
/// the running max and (per-thread partial) sum of the thread's two rows;
/// `alpha` gets the factor the accumulator rows must be rescaled by.
/// `row` is the absolute query row of fragment row g; `c0` the tile's first
/// key; `mask` the mask of this (b, h), or null.
template <class Elem, int NT>
TCC_DEVICE void softmaxTile(float (&s)[NT][4], float (&rowMax)[2], float (&rowSum)[2],
                            float (&alpha)[2], const AttentionParams &p, bool needMask, int row,
                            int c0, int t, const unsigned char *mask) {
#pragma unroll
  for (int n = 0; n < NT; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      s[n][e] *= p.scaleLog2;
  if (needMask) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int i = row + (e >> 1) * 8;
      const bool rowOk = i < p.lq;
      const unsigned char *maskRow = nullptr;
      if (mask)
        maskRow = mask + i * p.maskStrideQ * (p.maskKind == kMaskBool ? 1 : int64_t(sizeof(Elem)));
#pragma unroll
      for (int n = 0; n < NT; ++n) {
        const int j = c0 + 8 * n + 2 * t + (e & 1);
        bool visible = j < p.lk && (!p.causal || j <= i);
        if (maskRow && visible && rowOk) {
          if (p.maskKind == kMaskBool) {
            visible = ldg(reinterpret_cast<const uint8_t *>(maskRow) + j * p.maskStrideK) != 0;
          } else {
            float m = toFloat(ldgElem(reinterpret_cast<const Elem *>(maskRow) + j * p.maskStrideK));
            // -inf hides the key; finite values stay finite (see the file comment).
            visible = m != -INFINITY;
            s[n][e] = fmaxf(fmaf(m, kLog2e, s[n][e]), -FLT_MAX);
          }
        }
        if (!visible)
          s[n][e] = -INFINITY;
      }
    }
  }
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float mx = rowMax[r];
#pragma unroll
    for (int n = 0; n < NT; ++n)
      mx = fmaxf(mx, fmaxf(s[n][2 * r], s[n][2 * r + 1]));
    // The quad (lanes 4g .. 4g+3) holds the whole row.
    mx = fmaxf(mx, shflXor(mx, 1));
    mx = fmaxf(mx, shflXor(mx, 2));
    // A row with no visible key yet keeps m = -inf; 0 stands in for it so
    // that no inf - inf appears (its p are 2^-inf = 0).
    const float ref = mx == -INFINITY ? 0.0f : mx;
    alpha[r] = ex2(rowMax[r] - ref);
    rowMax[r] = mx;
    float sum = 0.0f;
#pragma unroll
    for (int n = 0; n < NT; ++n) {
      s[n][2 * r] = ex2(s[n][2 * r] - ref);
      s[n][2 * r + 1] = ex2(s[n][2 * r + 1] - ref);
      sum += s[n][2 * r] + s[n][2 * r + 1];
    }
    rowSum[r] = rowSum[r] * alpha[r] + sum;
  }
}

/// Row (0: g, 1: g + 8) of accumulator element i: f16/bf16/tf32 keep O in
/// C fragments (tile i/4, elements 0,1 row g, 2,3 row g+8), f32 as 8-float
/// groups (group i/8: 4 columns of row g, then the same 4 of row g+8).
template <int K> TCC_DEVICE constexpr int accRow(int i) {
  return K == kF32 ? (i >> 2) & 1 : (i >> 1) & 1;
}

//===----------------------------------------------------------------------===//
// O += P V for one warp
//===----------------------------------------------------------------------===//

/// f16/bf16: the C fragments of key tiles 2kk, 2kk+1 are the A fragment of
/// P for k step kk; V through ldmatrix.trans: matrix i of lane L's x4 load
/// is keys 16kk + 8(i%2) .. +7, d 16mp + 8(i/2) .. +7.
template <int K, int D, int NT>
TCC_DEVICE void accumulateHalf(float (&o)[D / 2], const float (&s)[NT][4], uint32_t vTile,
                               int lane) {
  using C = Config<K, D>;
  const uint32_t vLane =
      vTile + ((((lane >> 3) & 1) * 8 + (lane & 7)) * C::kVStride + (lane >> 4) * 8) * 2;
#pragma unroll
  for (int kk = 0; kk < NT / 2; ++kk) {
    const uint32_t a[4] = {packPair<K>(s[2 * kk][0], s[2 * kk][1]),
                           packPair<K>(s[2 * kk][2], s[2 * kk][3]),
                           packPair<K>(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                           packPair<K>(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
    for (int mp = 0; mp < D / 16; ++mp) {
      uint32_t b[4];
      ldmatrixX4Trans(vLane + (kk * 16 * C::kVStride + mp * 16) * 2, b);
      if constexpr (K == kF16) {
        mmaF16(&o[8 * mp], a, b[0], b[1]);
        mmaF16(&o[8 * mp + 4], a, b[2], b[3]);
      } else {
        mmaBf16(&o[8 * mp], a, b[0], b[1]);
        mmaBf16(&o[8 * mp + 4], a, b[2], b[3]);
      }
    }
  }
}

/// tf32: the C fragment of key tile n is the A fragment of P for one k8 step
/// with keys permuted (k = t <-> key 8n + 2t, k = t + 4 <-> key 8n + 2t + 1);
/// B = V[8n + 2t | 8n + 2t + 1][8m + g] in the same order.
template <int D, int NT>
TCC_DEVICE void accumulateTf32(float (&o)[D / 2], const float (&s)[NT][4], uint32_t vTile, int g,
                               int t) {
  using C = Config<kTf32, D>;
#pragma unroll
  for (int n = 0; n < NT; ++n) {
    const uint32_t a[4] = {toTf32(s[n][0]), toTf32(s[n][2]), toTf32(s[n][1]), toTf32(s[n][3])};
    const uint32_t v0 = vTile + ((8 * n + 2 * t) * C::kVStride + g) * 4;
#pragma unroll
    for (int m = 0; m < D / 8; ++m) {
      float b0 = lds<float>(v0 + m * 32);
      float b1 = lds<float>(v0 + (C::kVStride + m * 8) * 4);
      mmaTf32(&o[4 * m], a, toTf32(b0), toTf32(b1));
    }
  }
}

/// f32: P goes to the warp's shared tile (rows 0..15, Bc keys), then each
/// thread accumulates rows g, g+8 x columns 16c + 4t .. +3 with FFMA.
template <int D, int NT>
TCC_DEVICE void accumulateF32(float (&o)[D / 2], const float (&s)[NT][4], uint32_t pWarp,
                              uint32_t vTile, int g, int t) {
  using C = Config<kF32, D>;
  constexpr int Bc = NT * 8;
#pragma unroll
  for (int n = 0; n < NT; ++n) {
    sts<float2>(pWarp + (g * C::kPStride + 8 * n + 2 * t) * 4, make_float2(s[n][0], s[n][1]));
    sts<float2>(pWarp + ((g + 8) * C::kPStride + 8 * n + 2 * t) * 4,
                make_float2(s[n][2], s[n][3]));
  }
  syncWarp();
#pragma unroll 2
  for (int j = 0; j < Bc; j += 4) {
    const float4 pa4 = lds<float4>(pWarp + (g * C::kPStride + j) * 4);
    const float4 pb4 = lds<float4>(pWarp + ((g + 8) * C::kPStride + j) * 4);
    const float pa[4] = {pa4.x, pa4.y, pa4.z, pa4.w};
    const float pb[4] = {pb4.x, pb4.y, pb4.z, pb4.w};
#pragma unroll
    for (int jj = 0; jj < 4; ++jj) {
#pragma unroll
      for (int c = 0; c < D / 16; ++c) {
        float4 v = lds<float4>(vTile + ((j + jj) * C::kVStride + 16 * c + 4 * t) * 4);
        o[8 * c + 0] = fmaf(pa[jj], v.x, o[8 * c + 0]);
        o[8 * c + 1] = fmaf(pa[jj], v.y, o[8 * c + 1]);
        o[8 * c + 2] = fmaf(pa[jj], v.z, o[8 * c + 2]);
        o[8 * c + 3] = fmaf(pa[jj], v.w, o[8 * c + 3]);
        o[8 * c + 4] = fmaf(pb[jj], v.x, o[8 * c + 4]);
        o[8 * c + 5] = fmaf(pb[jj], v.y, o[8 * c + 5]);
        o[8 * c + 6] = fmaf(pb[jj], v.z, o[8 * c + 6]);
        o[8 * c + 7] = fmaf(pb[jj], v.w, o[8 * c + 7]);
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// The block
//===----------------------------------------------------------------------===//

/// Writes the warp's normalized O (16 rows) into its own 16 rows of the Q
/// tile (no other warp reads them), in the element type.
template <int K, int D>
TCC_DEVICE void stageOutput(const float (&o)[D / 2], const float (&inv)[2], uint32_t stage, int g,
                            int t) {
  using C = Config<K, D>;
  if constexpr (C::kHalf) {
#pragma unroll
    for (int m = 0; m < D / 8; ++m) {
      sts<uint32_t>(stage + (g * C::kQStride + 8 * m + 2 * t) * 2,
                    packPair<K>(o[4 * m] * inv[0], o[4 * m + 1] * inv[0]));
      sts<uint32_t>(stage + ((g + 8) * C::kQStride + 8 * m + 2 * t) * 2,
                    packPair<K>(o[4 * m + 2] * inv[1], o[4 * m + 3] * inv[1]));
    }
  } else if constexpr (K == kTf32) {
#pragma unroll
    for (int m = 0; m < D / 8; ++m) {
      sts<float2>(stage + (g * C::kQStride + 8 * m + 2 * t) * 4,
                  make_float2(o[4 * m] * inv[0], o[4 * m + 1] * inv[0]));
      sts<float2>(stage + ((g + 8) * C::kQStride + 8 * m + 2 * t) * 4,
                  make_float2(o[4 * m + 2] * inv[1], o[4 * m + 3] * inv[1]));
    }
  } else {
#pragma unroll
    for (int c = 0; c < D / 16; ++c) {
      sts<float4>(stage + (g * C::kQStride + 16 * c + 4 * t) * 4,
                  make_float4(o[8 * c] * inv[0], o[8 * c + 1] * inv[0], o[8 * c + 2] * inv[0],
                              o[8 * c + 3] * inv[0]));
      sts<float4>(stage + ((g + 8) * C::kQStride + 16 * c + 4 * t) * 4,
                  make_float4(o[8 * c + 4] * inv[1], o[8 * c + 5] * inv[1],
                              o[8 * c + 6] * inv[1], o[8 * c + 7] * inv[1]));
    }
  }
}

template <int K, int D, bool Vec> TCC_DEVICE void attentionBlock(const AttentionParams &p) {
  using C = Config<K, D>;
  using Elem = typename C::Elem;
  constexpr int Bc = C::kBlockKeys, NT = Bc / 8;

  if (dynamicSharedBytes() < C::kSharedBytes)
    trapKernel();

  const int tid = threadIndex();
  const int warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;

  // Block -> (query tile, head, batch); see the file comment for the order.
  const int pairs = p.batch * p.heads;
  const int bx = blockIndex();
  int qTile, pair;
  if (p.causal) {
    pair = bx % pairs;
    qTile = p.qTiles - 1 - bx / pairs;
  } else {
    qTile = bx % p.qTiles;
    pair = bx / p.qTiles;
  }
  const int h = pair % p.heads, b = pair / p.heads;
  const int kvh = h / p.headsPerKv;
  const int r0 = qTile * kBlockRows;
  const int rowsHere = imin(kBlockRows, p.lq - r0);
  int keyTiles = (p.lk + Bc - 1) / Bc;
  if (p.causal) // keys after the block's last row are invisible to all of it
    keyTiles = imin(keyTiles, (r0 + rowsHere - 1) / Bc + 1);

  const Elem *q = static_cast<const Elem *>(p.q) + b * p.qStrideB + h * p.qStrideH +
                  r0 * p.qStrideL;
  const Elem *k = static_cast<const Elem *>(p.k) + b * p.kStrideB + kvh * p.kStrideH;
  const Elem *v = static_cast<const Elem *>(p.v) + b * p.vStrideB + kvh * p.vStrideH;
  const unsigned char *mask = nullptr;
  if (p.maskKind != kMaskNone)
    mask = static_cast<const unsigned char *>(p.mask) +
           (b * p.maskStrideB + h * p.maskStrideH) *
               (p.maskKind == kMaskBool ? 1 : int64_t(sizeof(Elem)));

  const int warpRow = r0 + warp * 16; // the warp's first query row
  const bool warpHasRows = warpRow < p.lq;
  const uint32_t qWarp = warp * 16 * C::kQStride * C::kElemBytes;
  const uint32_t qRowG = qWarp + g * C::kQStride * C::kElemBytes;

  float o[D / 2];
#pragma unroll
  for (int i = 0; i < D / 2; ++i)
    o[i] = 0.0f;
  float rowMax[2] = {-INFINITY, -INFINITY}, rowSum[2] = {0.0f, 0.0f};
  uint32_t qf[C::kHalf ? D / 16 : 1][4];

  // A head dim below D: each thread loads one column of every tile
  // (kNarrowerHeads), and one whose column is past p.headDim loads no row,
  // so that column of Q, K and V is written as zeros (it adds nothing to
  // Q K^T; P V gives it zeros, which are not stored). Decided once here,
  // outside the key loop.
  bool loadsColumn = true;
  if constexpr (C::kNarrowerHeads)
    loadsColumn = TileLayout<Elem, Vec, D>::column(tid) < p.headDim;

  auto loadKeys = [&](int tile, int buf) {
    const int c0 = tile * Bc;
    const int valid = imin(Bc, (loadsColumn ? p.lk : 0) - c0);
    loadTile<Elem, Vec, D, Bc, C::kKStride>(C::kKOffset + buf * C::kKBytes, k + c0 * p.kStrideL,
                                            p.kStrideL, valid, tid);
    loadTile<Elem, Vec, D, Bc, C::kVStride>(C::kVOffset + buf * C::kVBytes, v + c0 * p.vStrideL,
                                            p.vStrideL, valid, tid);
  };

  if (keyTiles > 0) {
    loadTile<Elem, Vec, D, kBlockRows, C::kQStride>(0, q, p.qStrideL,
                                                    loadsColumn ? rowsHere : 0, tid);
    loadKeys(0, 0);
    cpAsyncCommit();
  }
  for (int it = 0; it < keyTiles; ++it) {
    const int buf = it & 1;
    // Tile it+1 goes into the other buffer, free since the barrier that
    // ended iteration it-1; then wait for tile it (and Q) only.
    if (it + 1 < keyTiles) {
      loadKeys(it + 1, buf ^ 1);
      cpAsyncCommit();
      cpAsyncWait<1>();
    } else {
      cpAsyncWait<0>();
    }
    syncThreads();

    const int c0 = it * Bc;
    if constexpr (C::kHalf) {
      if (it == 0) {
        // Q's A fragments: matrix i of the x4 load is rows 8(i%2) .. +7,
        // d 16kk + 8(i/2) .. +7 of the warp's 16 rows.
        const uint32_t qLane =
            qWarp + ((lane & 7) + ((lane >> 3) & 1) * 8) * C::kQStride * 2 + (lane >> 4) * 16;
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk)
          ldmatrixX4(qLane + kk * 32, qf[kk]);
      }
    }
    // Causal: tiles are visited in key order, so once a tile starts after
    // the warp's last row all later ones do too.
    const bool warpActive = warpHasRows && !(p.causal && c0 > warpRow + 15);
    if (warpActive) {
      const uint32_t kTile = C::kKOffset + buf * C::kKBytes;
      const uint32_t vTile = C::kVOffset + buf * C::kVBytes;
      float s[NT][4];
      if constexpr (C::kHalf) {
#pragma unroll
        for (int n = 0; n < NT; ++n)
          s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
        scoresHalf<K, D, NT>(s, qf, kTile, lane);
      } else if constexpr (K == kTf32) {
#pragma unroll
        for (int n = 0; n < NT; ++n)
          s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
        scoresTf32<D, NT>(s, qRowG, kTile, g, t);
      } else {
        scoresF32<D, NT>(s, qRowG, kTile, t);
      }
      const bool needMask = c0 + Bc > p.lk || (p.causal && c0 + Bc - 1 > warpRow) ||
                            p.maskKind != kMaskNone;
      float alpha[2];
      softmaxTile<Elem, NT>(s, rowMax, rowSum, alpha, p, needMask, warpRow + g, c0, t, mask);
#pragma unroll
      for (int i = 0; i < D / 2; ++i)
        o[i] *= alpha[accRow<K>(i)];
      if constexpr (C::kHalf)
        accumulateHalf<K, D, NT>(o, s, vTile, lane);
      else if constexpr (K == kTf32)
        accumulateTf32<D, NT>(o, s, vTile, g, t);
      else
        accumulateF32<D, NT>(o, s, C::kPOffset + warp * 16 * C::kPStride * 4, vTile, g, t);
    }
    syncThreads(); // everyone is done with buffer `buf` before it is refilled
  }

  if (!warpHasRows)
    return;
  float inv[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float l = rowSum[r];
    l += shflXor(l, 1);
    l += shflXor(l, 2);
    inv[r] = l > 0.0f ? 1.0f / l : 0.0f; // no visible key: 0
  }
  stageOutput<K, D>(o, inv, qWarp, g, t);
  syncWarp();

  Elem *out = static_cast<Elem *>(p.out) + b * p.oStrideB + h * p.oStrideH +
              warpRow * p.oStrideL;
  // Columns past a smaller head dim are not part of `out` (a test that
  // exists only in the kernels that take them).
  const int rows = imin(16, p.lq - warpRow);
  const int cols = C::kNarrowerHeads ? p.headDim : D;
  if constexpr (Vec) {
    constexpr int kChunksPerRow = D * C::kElemBytes / 16;
#pragma unroll
    for (int r = 0; r < kChunksPerRow / 2; ++r) {
      const int i = lane + 32 * r;
      const int row = i / kChunksPerRow, chunk = i % kChunksPerRow;
      if (row < rows && (!C::kNarrowerHeads || chunk * (16 / C::kElemBytes) < cols))
        stg(reinterpret_cast<uint4 *>(out + row * p.oStrideL) + chunk,
            lds<uint4>(qWarp + row * C::kQStride * C::kElemBytes + chunk * 16));
    }
  } else {
#pragma unroll 4
    for (int r = 0; r < D / 2; ++r) {
      const int i = lane + 32 * r;
      const int row = i / D, col = i % D;
      if (row < rows && (!C::kNarrowerHeads || col < cols))
        stg(out + row * p.oStrideL + col,
            lds<Elem>(qWarp + (row * C::kQStride + col) * C::kElemBytes));
    }
  }
}

} // namespace tcc_attn

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

#define TCC_ATTENTION_KERNELS_OF(KIND, kindName, D)                                             \
  TCC_ATTENTION_KERNEL(tcc_attention_##kindName##_d##D, tcc_attn::KIND, D, false)        \
  TCC_ATTENTION_KERNEL(tcc_attention_##kindName##_d##D##_vec, tcc_attn::KIND, D, true)

// The head dims here are kTileDims in AttentionKernels.cpp.
#define TCC_ATTENTION_KERNELS(KIND, kindName)                                                   \
  TCC_ATTENTION_KERNELS_OF(KIND, kindName, 16)                                                  \
  TCC_ATTENTION_KERNELS_OF(KIND, kindName, 32)                                                  \
  TCC_ATTENTION_KERNELS_OF(KIND, kindName, 64)                                                  \
  TCC_ATTENTION_KERNELS_OF(KIND, kindName, 80)                                                  \
  TCC_ATTENTION_KERNELS_OF(KIND, kindName, 96)                                                  \
  TCC_ATTENTION_KERNELS_OF(KIND, kindName, 128)

TCC_ATTENTION_KERNELS(kF16, f16)
TCC_ATTENTION_KERNELS(kBf16, bf16)
TCC_ATTENTION_KERNELS(kTf32, tf32)
TCC_ATTENTION_KERNELS(kF32, f32)
