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
// (batch, head), or 128 (f16/bf16 "rows128" kernels, D >= 64: each warp
// then owns 32 rows, two mma row tiles, so that every K/V fragment read
// from shared memory feeds two mmas); warp w owns rows w*16*MT .. +16*MT-1
// (MT = 1 or 2 row tiles) and keeps, for all of them, the running max m,
// the running sum l and the fp32 accumulator O (16 MT x D). The block
// walks the keys in tiles of Bc (64; 32 for f32/tf32 with D > 64) through
// shared memory. f16/bf16 (and f32/tf32 with D > 64) double-buffer them:
// the tile after the current one is in flight (cp.async) while this one is
// computed. f32/tf32 with D <= 64 keep one K and one V buffer, to fit
// three blocks per SM, and overlap as FlashAttention-2 does: V of tile j
// loads while S_j = Q K_j^T and its softmax are computed, K of tile j+1
// while P_j V_j is. Per tile a warp computes S = Q K^T (16 MT x Bc, fp32),
// masks it, folds it into m/l/O with the online softmax, and adds P V.
// Nothing of size Lq x Lk reaches device memory; O is normalized by 1/l,
// rounded to the element type once, staged in shared memory and written
// with 16-byte stores.
//
// Thread layout of S. Every thread holds float s[R][C]: element (r, c) is
// query row Frag::row(r) of its warp and key Frag::key(c) of the tile; a
// row lives in a group of lanes (Frag::kLanesPerRow) that reduce it with
// shuffles. The softmax and the masking are written once over that.
//   - f16/bf16/tf32 keep S in the mma C-fragment layout: row tile r/2,
//     row g + 8(r%2), key 8(c/2) + 2t + c%2 (g = lane/4, t = lane%4).
//     f16/bf16: the C fragments of two 8-key tiles are exactly the A
//     fragment of P for one k16 step of P V (packed to f16x2/bf16x2), as in
//     FlashAttention-2. Q is held as A fragments in registers (ldmatrix;
//     re-read from shared memory per tile in the 128-row kernels of D >=
//     96, for registers); K fragments come from ldmatrix, V fragments from
//     ldmatrix.trans.
//   - tf32: the k8 order is permuted so the C fragment of one 8-key tile is
//     the A fragment of P (logical k = t, t+4 <-> key 2t, 2t+1; the same
//     permutation on the V rows, and on d for Q K^T so Q and K come in as
//     float2). Q is re-read from shared memory per k step. Every operand
//     (Q, K, P, V) is rounded to TF32 (cvt.rna) as it enters an mma, so
//     the error is that of TF32 inputs with fp32 sums (as cuBLAS's TF32):
//     ~1e-3 relative for unit-scale scores, growing with the score range.
//     TF32 mma runs several times the FFMA rate, hence a variant of its own.
//   - f32: thread (rg, kg) = (lane/8, lane%8) computes rows rg + 4i (i < 4)
//     x keys kg + 8j (j < Bc/8) with FFMA from float4 loads (4 Q + Bc/8 K
//     loads per 4 d: 2.7 FFMA per loaded float); P goes through a per-warp
//     shared buffer, and the thread accumulates the same 4 rows x D/8
//     columns of O (float4 units kg + 8c, or float2 units for D = 16, 80).
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
// Softmax arithmetic. With scale > 0 and no additive mask, the row max is
// taken on the raw scores and p = 2^(s * scale log2 e - m) is one FFMA and
// one ex2 (otherwise the scores are scaled first). The accumulator of a
// row is rescaled only when the row's max grows by more than
// p.rescaleThreshold (8: p <= 256, exact in the fp32 sums and in f16/bf16
// P; the final 1/l cancels the common factor), which after the first few
// tiles is almost never.
//
// Partial tiles. A tile whose visible keys all lie in its first quarter
// (the ragged last tile: s = 197 has 5 keys of 64; the first warp's
// causal diagonal) runs S and P V at that width (a second instantiation,
// vectorized kernels only: no tests inside the unrolled loops, which
// ptxas then schedules freely); f32 P V runs over the live 4-key steps.
//
// Masks go through shared memory in tiles (kRows x Bc, rows padded by 16
// bytes: conflict-free reads), loaded with K (and V) one tile ahead: by
// 16-byte cp.async when the mask's key stride is 1 and its base and other
// strides are multiples of 16 bytes (p.maskAsync; the bytes past lk are
// zero-filled by the copy), else element by element by all threads
// (consecutive threads on consecutive keys); a broadcast over queries
// (stride 0) loads one row. The softmax reads 2 or 4 bytes per key pair.
// (p.maskBuffers = 1: one buffer, each tile's mask loaded as it starts,
// for GPUs with less shared memory.)
//
// Variants: 4 arithmetics x D in {16, 32, 64, 80, 96, 128} x {vectorized,
// scalar}, plus f16/bf16 with 128-row blocks for D in {64, 80, 96, 128}
// (vectorized; the launcher picks them on sm_90+ when the grid fills two
// blocks per SM) and the double-buffered f32/tf32 D = 64 kernels (for
// comparison). The vectorized kernels load with 16-byte cp.async and
// store with 16-byte stores; the launcher picks them only when every base
// pointer and every stride (in bytes) is a multiple of 16. The scalar ones
// load element by element (synchronously) and accept any element-aligned
// view. Kernel names: tcc_attention_<f16|bf16|tf32|f32>_d<D>[_vec], and
// tcc_attention_<f16|bf16>_d<D>_rows128, tcc_attention_<tf32|f32>_d64_vec_s2.
// Other head dims (multiples of 8 up to 128) run in the next power-of-2
// D: the launcher passes the real one (params.headDim), columns past it
// are loaded as zeros (they add nothing to Q K^T, and P V gives them
// zeros) and not stored. There every thread loads one column of each
// tile, so the test is made once per thread and folded into its row
// limits: the key loop has no test of its own. (D = 80 and 96 would need
// one per 16-byte chunk; they run only their own head dim.)
//
// Split keys (flash-decoding; the launcher decides, AttentionKernels.cpp).
// With p.kvSplits > 1 a block runs one range of p.splitKeys keys as if
// they were the whole sequence (its k, v and mask bases moved to the
// range's first key, lk its length), and instead of out writes its rows'
// O normalized by their own sum, in fp32, with their score maximum m
// (-inf where it saw no key) and sum l to p.partialO/partialMaxSum.
// combineColumns merges a row's splits: weights l_s 2^(m_s - max m), one
// rounding to the element type. (m and l are kept apart: a row of
// PyTorch's finfo.min padding has m = -FLT_MAX, where m + log2 l would
// round the key counts away and weigh a short split as a long one.) Never
// with causal (its limits are absolute key positions). The merge is part
// of the same launch (mergeSplits, the split-K semaphore): after writing
// its partials a block fences and counts itself on its row group's
// counter (p.splitCounters: one int per query tile, head and batch, zero
// before the launch); the block that brings it to kvSplits reads every
// split's partials of its rows through L2, writes out and sets the
// counter back to 0, so the next launch, or a CUDA graph's next replay,
// finds it zero. On the H100 the second kernel this replaced cost 4.9 us
// of a decode step's 17.7 (2026-12-07); it stays, as
// tcc_attention_combine_* (one block per row), for p.splitCounters null,
// which a tuning knob asks for (comparisons).
//
// Visible tiles only (p.scanMask; the launcher asks where it is cheap:
// AttentionKernels.cpp). A decode step over a static KV cache has one query
// row over every cached position, most of them hidden by the mask. Before
// its key loop, the block reads its rows of the mask (16-byte loads where
// the mask tiles would use cp.async; a chunk of equal elements classified
// once) and keeps the key tiles from the first to the last one that a row
// must see; those run as a split does (bases moved, lk their length). With
// key splits, either every block reads all lk keys and the splits divide
// the tiles found (kMaskScanRows: ceil(n / kvSplits) tiles each), or each
// split reads only its own keys and keeps to them (kMaskScanSplit: short
// splits, where reading all keys in every block cost more than the
// balance saves; AttentionMaskScan.h). A split left without a tile writes
// m = -inf, l = 0, which the merge weighs 0. Hidden keys (-inf, false) are
// always left out; PyTorch's finfo.min padding only where every row of the
// block has an anchor (a key of mask >= -1e20; a split also reads key 0,
// and all keys again where a row has none there): a row of only finfo.min
// averages all its keys. The result is the same softmax: a left-out key's
// p is exactly 0 (AttentionMaskScan.h). Variants whose registers it would
// spill leave it out (Config::kScanMask).
//
// Block order: non-causal grids run the query tiles of one (batch, head)
// together (K/V reuse in L2); causal grids run the longest query tiles
// (the last ones) of all heads first, so the short ones fill the tail.
//
// The device primitives (inline PTX, AttentionDevice.h) are the only
// hardware-specific code; defining TCC_ATTENTION_EMULATION as a header name
// replaces them (and the kernel entry points) with a host emulation, which
// is how these kernels were tested on a machine without a GPU.
//
//===----------------------------------------------------------------------===//

#include "AttentionMaskScan.h"
#include "AttentionParams.h"

#include "AttentionDevice.h"

#ifndef TCC_ATTENTION_EMULATION
/// One `extern "C"` entry point per variant (the launcher looks them up by
/// name); the parameters come as one struct by value.
#define TCC_ATTENTION_KERNEL(NAME, KIND, D, VEC, MT, STAGES)                                    \
  extern "C" __global__ void __launch_bounds__(                                                 \
      tcc_attn::kThreads, tcc_attn::Config<KIND, D, MT, STAGES>::kMinBlocks)                    \
      NAME(const tcc_attn::AttentionParams params) {                                            \
    tcc_attn::attentionBlock<KIND, D, VEC, MT, STAGES>(params);                                 \
  }
/// A variant the launcher runs only on compute capability 9.0 (the
/// 128-row kernels, the double-buffered f32/tf32 D = 64 ones): compiled
/// for sm_90 only, a trap elsewhere (sm_80 code, and the compute_80 PTX
/// that newer GPUs compile), which keeps nvcc's time down.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ != 900
#define TCC_ATTENTION_KERNEL_SM90(NAME, KIND, D, VEC, MT, STAGES)                               \
  extern "C" __global__ void NAME(const tcc_attn::AttentionParams) { __trap(); }
#else
#define TCC_ATTENTION_KERNEL_SM90 TCC_ATTENTION_KERNEL
#endif
#endif // TCC_ATTENTION_EMULATION

#ifndef TCC_ATTENTION_KERNEL_SM90
#define TCC_ATTENTION_KERNEL_SM90 TCC_ATTENTION_KERNEL
#endif

namespace tcc_attn {

//===----------------------------------------------------------------------===//
// Shared-memory layout (mirrored by sharedBytes() in AttentionKernels.cpp)
//===----------------------------------------------------------------------===//

// The kernel argument, AttentionParams, is in AttentionParams.h (shared
// with the launcher).

/// Blocks per SM that f16/bf16 D = 80 and 96 (55 and 65 KB of shared
/// memory) ask registers for: 3 fit in an H100's 228 KB, 2 in an A100's
/// 164 KB.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
constexpr int kD96Blocks = 2;
#else
constexpr int kD96Blocks = 3;
#endif

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

/// K/V buffers of a variant unless it says otherwise: f32/tf32 with D <=
/// 64 single-buffer (three blocks per SM), the others double-buffer.
template <int K, int D> constexpr int kDefaultStages = (K == kF32 || K == kTf32) && D <= 64 ? 1 : 2;

/// Tile sizes and the shared-memory layout of one variant: Q (64 MT
/// rows), K and V (Stages buffers of Bc rows each), for f32 the per-warp P
/// tiles, and (when a mask is given) one or two mask tiles. Row strides in
/// elements; offsets in bytes (all multiples of 16).
template <int K, int D, int MT = 1, int Stages = kDefaultStages<K, D>> struct Config {
  static constexpr bool kHalf = K == kF16 || K == kBf16;
  using Elem = std::conditional_t<K == kF16, F16, std::conditional_t<K == kBf16, Bf16, float>>;
  static constexpr int kElemBytes = kHalf ? 2 : 4;
  static constexpr int kWarpRows = 16 * MT;        ///< query rows per warp
  static constexpr int kRows = kWarps * kWarpRows; ///< query rows per block
  // f32/tf32 hold Q, K and V in fp32: past D = 64, tiles of 64 keys would
  // leave one block per SM (D = 80: 122 KB for f32).
  static constexpr int kBlockKeys = (!kHalf && D > 64) ? 32 : 64;
  static constexpr int kStages = Stages;
  /// Q stays in registers as A fragments, or is re-read per tile (128-row
  /// blocks of large D, whose O and S leave no room for it).
  static constexpr bool kQInRegs = kHalf && (MT == 1 || D <= 80);
  // f16: D + 8 halves is an odd number of 16-byte units (ldmatrix rows hit
  // distinct banks). tf32 reads Q and K as float2 at [g][2t]: D + 8 floats
  // (8 or 24 mod 32 banks); V as floats at [2t][g]: D + 4. f32 reads
  // float4 rows of Q at [rg + 4i] and of K at [kg + 8j] (an odd number of
  // 16-byte units per row: 4 or 8 consecutive rows hit distinct banks), V
  // at [j][units kg + 8c]: D + 4. (All of it needs D % 16 == 0.)
  static constexpr int kQStride = K == kF32 ? D + 4 : D + 8;
  static constexpr int kKStride = kQStride;
  static constexpr int kVStride = kHalf ? D + 8 : D + 4;
  /// f32 P rows: Bc + 8 floats (rows rg = 0..3 of a float4 read, and the
  /// scalar writes of rows rg x keys kg + 8j, fall in distinct banks).
  static constexpr int kPStride = kBlockKeys + 8;
  static constexpr uint32_t kKBytes = kBlockKeys * kKStride * kElemBytes; // one buffer
  static constexpr uint32_t kVBytes = kBlockKeys * kVStride * kElemBytes;
  static constexpr uint32_t kKOffset = kRows * kQStride * kElemBytes;
  static constexpr uint32_t kVOffset = kKOffset + kStages * kKBytes;
  static constexpr uint32_t kPOffset = kVOffset + kStages * kVBytes;
  static constexpr uint32_t kMaskOffset =
      kPOffset + (K == kF32 ? kWarps * 16 * kPStride * 4 : 0);
  /// Without the mask tiles.
  static constexpr uint32_t kSharedBytes = kMaskOffset;
  /// Mask tiles (a mask is given): kRows rows of Bc mask elements (bytes
  /// for bool, the element type for additive) plus 16 bytes (32 for fp32:
  /// the reads at [g][8n + 2t], and f32's at [rg + 4r][kg + 8c], hit
  /// distinct banks), one buffer or two (the next tile's; p.maskBuffers) in
  /// the double-buffered kernels.
  static TCC_DEVICE int maskPitch(int maskElemBytes) {
    return kBlockKeys * maskElemBytes + (maskElemBytes == 4 ? 32 : 16);
  }
  /// A tile of Bc keys is computed in kSubTiles parts (S, softmax, P V
  /// each): the 128-row kernels of D >= 80 keep S of 32 keys at a time,
  /// for registers.
  static constexpr int kSubTiles = MT == 2 && D >= 80 ? 2 : 1;
  static constexpr int kSubKeys = kBlockKeys / kSubTiles;
  /// Accumulator columns per thread and row (Frag below).
  static constexpr int kOCols = K == kF32 ? D / 8 : D / 4;
  /// Blocks per SM the register allocation must allow: tiles of small D
  /// leave room in shared memory for 3-4 blocks (ptxas then stays at <= 168
  /// / 128 registers without spilling); the others are bounded by shared
  /// memory at 2 anyway (so are f16/bf16 D = 80, 96 on sm_80's 164 KB).
  /// f16/bf16 D = 16 asks for 3: its scalar kernel (16 loads in flight per
  /// key tile) spills at 128 on sm_80, and the vectorized one needs ~120.
  /// f16/bf16 D = 32 asks for 5 (96 registers, 12 bytes spilled; shared
  /// memory allows 5): Swin-T's windows of 49 keys, one key tile per block,
  /// are latency-bound, and its stage-1 attention took 34.3 us at 4 blocks,
  /// 30.3 at 5, 34.5 at 6 (H200, check_attention.py's Swin rows).
  /// The 128-row kernels (O and S of two row tiles) ask for 2; single-
  /// buffered f32/tf32 (D <= 64: 55-70 KB) for 3.
  static constexpr int kMinBlocks = MT == 2                  ? 2
                                    : !kHalf && kStages == 1 ? 3
                                    : !kHalf                 ? (D <= 32 ? 3 : 1)
                                    : D <= 16                ? 3
                                    : D <= 32                ? 5
                                    : D <= 64                ? 3
                                    : D <= 96                ? kD96Blocks
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
  /// Whether the kernel scans its mask rows for the key tiles it must read
  /// when the launcher asks (p.scanMask; AttentionMaskScan.h). A variant
  /// whose registers the scan would push into spills leaves it out (the
  /// launcher's request is then ignored: every tile is read, as before):
  /// on sm_90 the 64-row f16/bf16 vectorized kernel of D = 80 (capped at
  /// 168 registers for three blocks per SM) spilled 20 bytes with it, and
  /// those of D = 32 (96 registers for five blocks per SM; they spill 24-64
  /// bytes without it) spilled more.
  static constexpr bool kScanMask = MT == 1 && !(kHalf && (D == 32 || D == 80));
  static_assert(D % 16 == 0 && D >= 16 && D <= 128, "head dims 16, 32, ..., 128");
  static_assert(MT == 1 || (kHalf && D >= 64), "128-row blocks: f16/bf16, D >= 64");
  static_assert(kStages == 2 || !kHalf, "f16/bf16 double-buffer (the mask tiles rely on it)");
  static_assert(kStages == 1 || kStages == 2, "one or two K/V buffers");
};

/// Where a thread's elements of S (and P, and O) lie; see the file comment.
/// f16/bf16/tf32: the mma C-fragment layout over MT row tiles.
template <int K, int MT, int NT> struct Frag {
  static constexpr int kR = 2 * MT, kC = 2 * NT;
  static constexpr int kLanesPerRow = 4; ///< lanes 4g .. 4g+3
  /// Key columns c, c+1 (c even) are adjacent keys.
  static constexpr bool kKeyPairs = true;
  static TCC_DEVICE int row(int r, int lane) { return 16 * (r >> 1) + 8 * (r & 1) + (lane >> 2); }
  static TCC_DEVICE int key(int c, int lane) { return 8 * (c >> 1) + 2 * (lane & 3) + (c & 1); }
};
/// f32: rows rg + 4r, keys kg + 8c.
template <int MT, int NT> struct Frag<kF32, MT, NT> {
  static_assert(MT == 1, "f32 runs 64-row blocks");
  static constexpr int kR = 4, kC = NT;
  static constexpr int kLanesPerRow = 8; ///< lanes 8rg .. 8rg+7
  static constexpr bool kKeyPairs = false;
  static TCC_DEVICE int row(int r, int lane) { return (lane >> 3) + 4 * r; }
  static TCC_DEVICE int key(int c, int lane) { return (lane & 7) + 8 * c; }
};

template <int K>
TCC_DEVICE void mma(float &c0, float &c1, float &c2, float &c3, const uint32_t (&a)[4],
                    uint32_t b0, uint32_t b1) {
  if constexpr (K == kF16)
    mmaF16(c0, c1, c2, c3, a, b0, b1);
  else if constexpr (K == kBf16)
    mmaBf16(c0, c1, c2, c3, a, b0, b1);
  else
    mmaTf32(c0, c1, c2, c3, a, b0, b1);
}

TCC_DEVICE float component(const float4 &v, int e) {
  return e == 0 ? v.x : e == 1 ? v.y : e == 2 ? v.z : v.w;
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
  constexpr int kUnit = Vec ? 16 / kBytes : 1; // elements per unit
  constexpr int kUnitsPerRow = D / kUnit;
  if constexpr (kThreads % kUnitsPerRow == 0) {
    // A thread's units are one column, every kStep-th row: one address and
    // a stride (rather than a row index per unit, which the compiler keeps
    // in registers across the key loop).
    constexpr int kStep = kThreads / kUnitsPerRow;
    static_assert(Rows % kStep == 0, "whole rounds");
    const int row0 = tid / kUnitsPerRow, col = (tid % kUnitsPerRow) * kUnit;
    const Elem *from = src + row0 * srcStride + col;
    const int64_t step = kStep * srcStride;
    const uint32_t to = offset + (row0 * Stride + col) * kBytes;
    const int rows = validRows - row0; // rows i * kStep < rows are valid
#pragma unroll 8
    for (int i = 0; i < Rows / kStep; ++i) {
      const bool valid = i * kStep < rows;
      if constexpr (Vec) {
        cpAsync16(to + i * kStep * Stride * kBytes, valid ? from + i * step : src, valid);
      } else {
        Elem x{};
        if (valid)
          x = ldgElem(from + i * step);
        sts<Elem>(to + i * kStep * Stride * kBytes, x);
      }
    }
  } else if constexpr (Vec) {
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

/// The mask tile of block rows [r0, r0 + Rows) x keys [c0, c0 + Bc) into
/// shared memory at `offset` (rows `pitch` bytes apart; Config::maskPitch),
/// elements past lk, and rows past lq, as zeros; a mask broadcast over
/// queries (stride 0) loads row 0 only. `mask` is the (b, h) base. With
/// `async`, 16-byte cp.async chunks (key stride 1; base and strides
/// multiples of 16 bytes; a chunk across lk reads only its part); else
/// element by element (any strides), consecutive threads on consecutive
/// keys.
template <class Elem, int Rows, int Bc>
TCC_DEVICE void loadMaskTile(uint32_t offset, const unsigned char *mask, const AttentionParams &p,
                             int lk, int r0, int c0, int pitch, bool async, int tid) {
  const int eb = p.maskKind == kMaskBool ? 1 : int(sizeof(Elem));
  const int rows = p.maskStrideQ == 0 ? 1 : Rows;
  if (async) {
    const int chunksPerRow = Bc * eb / 16;
#pragma unroll 1
    for (int c = tid; c < rows * chunksPerRow; c += kThreads) {
      const int row = c / chunksPerRow, chunk = c % chunksPerRow;
      const int key = c0 + chunk * (16 / eb);
      int bytes = (lk - key) * eb;
      bytes = r0 + row < p.lq ? (bytes < 0 ? 0 : bytes > 16 ? 16 : bytes) : 0;
      const unsigned char *src =
          bytes > 0 ? mask + (int64_t(r0 + row) * p.maskStrideQ + key) * eb : mask;
      cpAsync16Bytes(offset + row * pitch + chunk * 16, src, bytes);
    }
    return;
  }
#pragma unroll 1
  for (int e = tid; e < rows * Bc; e += kThreads) {
    const int row = e / Bc, key = e % Bc;
    const int i = r0 + row, j = c0 + key;
    const bool in = i < p.lq && j < lk;
    const int64_t at = int64_t(i) * p.maskStrideQ + int64_t(j) * p.maskStrideK;
    const uint32_t to = offset + row * pitch + key * eb;
    if (eb == 1)
      sts<uint8_t>(to, in ? ldg(reinterpret_cast<const uint8_t *>(mask) + at) : uint8_t(0));
    else if (eb == 2)
      sts<uint16_t>(to, in ? ldg(reinterpret_cast<const uint16_t *>(mask) + at) : uint16_t(0));
    else
      sts<float>(to, in ? ldg(reinterpret_cast<const float *>(mask) + at) : 0.0f);
  }
}

//===----------------------------------------------------------------------===//
// The mask scan: which key tiles the block must read (AttentionMaskScan.h)
//===----------------------------------------------------------------------===//

/// Folds the mask elements [key, key + n) of one row (n <= 16), given as
/// their bits (bit j of `needed` / `notHidden`: element key + j), into the
/// thread's first/last needed and not-hidden keys.
TCC_DEVICE void foldKeyMasks(unsigned needed, unsigned notHidden, int key, int &needLo,
                             int &needHi, int &anyLo, int &anyHi) {
  if (needed) {
    needLo = imin(needLo, key + __ffs(needed) - 1);
    needHi = imax(needHi, key + 31 - __clz(needed));
  }
  if (notHidden) {
    anyLo = imin(anyLo, key + __ffs(notHidden) - 1);
    anyHi = imax(anyHi, key + 31 - __clz(notHidden));
  }
}

/// Element j's bits (MaskKeyBits) into the chunk's per-element masks and
/// the row's OR.
TCC_DEVICE void keyBitsOf(unsigned bits, int j, unsigned &needed, unsigned &notHidden,
                          unsigned &rowBits) {
  needed |= (bits & kKeyNeeded ? 1u : 0u) << j;
  notHidden |= (bits & kKeyNotHidden ? 1u : 0u) << j;
  rowBits |= bits;
}

/// One 32-bit word of a 16-byte mask chunk (4 bool bytes, 2 halves or one
/// float), its first element j0 of the chunk, into the chunk's masks and
/// the row's OR (keyBitsOf).
template <class Elem>
TCC_DEVICE void foldMaskWord(uint32_t word, bool isBool, int j0, unsigned &needed,
                             unsigned &notHidden, unsigned &rowBits) {
  if (isBool) {
    // The top bit of each nonzero byte, then one bit per byte.
    const uint32_t nz = (((word & 0x7f7f7f7fu) + 0x7f7f7f7fu) | word) & 0x80808080u;
    const unsigned four = ((nz >> 7) & 1u) | ((nz >> 14) & 2u) | ((nz >> 21) & 4u) | (nz >> 28);
    needed |= four << j0;
    notHidden |= four << j0;
    rowBits |= four ? boolKeyBits(1) : 0u;
  } else if constexpr (sizeof(Elem) == 2) {
    keyBitsOf(additiveKeyBits(halfToFloat<Elem>(word, false)), j0, needed, notHidden, rowBits);
    keyBitsOf(additiveKeyBits(halfToFloat<Elem>(word, true)), j0 + 1, needed, notHidden,
              rowBits);
  } else {
    keyBitsOf(additiveKeyBits(__uint_as_float(word)), j0, needed, notHidden, rowBits);
  }
}

/// The bits (MaskKeyBits) of the first element of a mask word.
template <class Elem> TCC_DEVICE unsigned firstKeyBits(uint32_t word, bool isBool) {
  if (isBool)
    return boolKeyBits(static_cast<uint8_t>(word & 0xffu));
  if constexpr (sizeof(Elem) == 2)
    return additiveKeyBits(halfToFloat<Elem>(word, false));
  else
    return additiveKeyBits(__uint_as_float(word));
}

/// The key tiles [.x, .y) (tiles of Bc keys from key 0) that the query
/// rows [r0, r0 + rowsHere) of the block must read among the keys
/// [keyBegin, keyEnd) (a split's, or all lk): every thread reads part of
/// the rows' mask over those keys (`mask`: the (b, h) base at key 0; rows
/// `strideQ`, keys `strideK` elements apart), 16 bytes at a time where
/// `async` (the layout p.maskAsync describes; keyBegin then a multiple of
/// 16 keys; element by element in a row's last, partial chunk), else
/// element by element; the block reduces through `scratch` in shared
/// memory (free: nothing is loaded yet). The rules are AttentionMaskScan.h's.
/// A chunk whose elements are all equal (the padding and the filled part
/// of a static cache) is classified once. Negligible keys are left out only
/// where every row has an anchor: looked for in the keys scanned and in key
/// 0 (a filled cache's first position), and, where some row has none there
/// but has negligible keys, in a second pass over all lk keys of the rows
/// (the tiles still come from [keyBegin, keyEnd) alone). Ends with a
/// barrier. Written for code size (it is inlined into every kernel): four
/// chunks in flight per thread, then folded one by one in a loop.
template <class Elem, int Rows, int Bc>
TCC_DEVICE int2 scanMaskTiles(const unsigned char *mask, bool isBool, bool async, int64_t strideQ,
                              int64_t strideK, int lk, int keyBegin, int keyEnd, int r0,
                              int rowsHere, uint32_t scratch, int tid) {
  const int eb = isBool ? 1 : int(sizeof(Elem));
  const int rows = strideQ == 0 ? 1 : rowsHere;
  // scratch: needLo, needHi, anyLo, anyHi, then per row "has an anchor"
  // and "has a negligible key" (ints; plain stores of 1, no atomics).
  const uint32_t anchorAt = scratch + 16, negligibleAt = anchorAt + 4 * Rows;
  if (tid < 4)
    sts<int>(scratch + 4 * tid, (tid & 1) ? -1 : 0x7fffffff);
  if (tid < Rows) {
    sts<int>(anchorAt + 4 * tid, 0);
    sts<int>(negligibleAt + 4 * tid, 0);
  }

  auto bitsOf = [&](const unsigned char *at) -> unsigned {
    if (isBool)
      return boolKeyBits(ldg(reinterpret_cast<const uint8_t *>(at)));
    if constexpr (sizeof(Elem) == 2)
      return additiveKeyBits(toFloat(Elem{ldg(reinterpret_cast<const uint16_t *>(at))}));
    else
      return additiveKeyBits(ldg(reinterpret_cast<const float *>(at)));
  };
  // Key 0 of row tid, for its anchor only (loaded before the barrier,
  // noted after it).
  const bool keyZero = keyBegin > 0 && tid < rows;
  const unsigned keyZeroBits = keyZero ? bitsOf(mask + int64_t(r0 + tid) * strideQ * eb) : 0u;
  syncThreads();
  if (keyZeroBits & kKeyAnchor)
    sts<int>(anchorAt + 4 * tid, 1);

  int needLo = 0x7fffffff, needHi = -1, anyLo = 0x7fffffff, anyHi = -1;
  auto noteRow = [&](int row, unsigned rowBits) {
    if (rowBits & kKeyAnchor)
      sts<int>(anchorAt + 4 * row, 1);
    if (rowBits & kKeyNegligible)
      sts<int>(negligibleAt + 4 * row, 1);
  };
  bool allowSkip;
  // Pass 0 folds [keyBegin, keyEnd) into the bounds and the row flags;
  // pass 1 (rarely) all keys into the row flags only.
#pragma unroll 1
  for (int pass = 0;; ++pass) {
    const int kb = pass == 0 ? keyBegin : 0, ke = pass == 0 ? keyEnd : lk;
    if (async) {
      // 16-byte chunks of per = 16 / eb keys, the row's last one partial.
      const int per = 16 / eb;
      const int chunksPerRow = imax(0, (ke - kb + per - 1) / per);
      const int total = rows * chunksPerRow;
      // Chunk c is (row, chunk) = (c / chunksPerRow, c % chunksPerRow); a
      // thread steps by kThreads chunks: rowStep rows and chunkStep chunks.
      const int perRow = imax(chunksPerRow, 1);
      const int rowStep = kThreads / perRow, chunkStep = kThreads % perRow;
      int nextRow = tid / perRow, nextChunk = tid % perRow;
#pragma unroll 1
      for (int c0 = tid; c0 < total; c0 += 4 * kThreads) {
        uint4 w[4];
        int rowOf[4], keyOf[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          rowOf[u] = nextRow;
          keyOf[u] = kb + nextChunk * per;
          nextChunk += chunkStep;
          const bool wrap = nextChunk >= chunksPerRow;
          nextChunk -= wrap ? chunksPerRow : 0;
          nextRow += rowStep + (wrap ? 1 : 0);
          w[u] = make_uint4(0, 0, 0, 0);
          if (c0 + u * kThreads < total && keyOf[u] + per <= ke)
            w[u] = ldg16(mask + (int64_t(r0 + rowOf[u]) * strideQ + keyOf[u]) * eb);
        }
#pragma unroll 1
        for (int u = 0; u < 4 && c0 + u * kThreads < total; ++u) {
          // The chunks move down (no indexing by u, which would put them in
          // local memory).
          const uint4 cur = w[0];
          const int row = rowOf[0], key = keyOf[0];
#pragma unroll
          for (int x = 0; x < 3; ++x) {
            w[x] = w[x + 1];
            rowOf[x] = rowOf[x + 1];
            keyOf[x] = keyOf[x + 1];
          }
          const unsigned char *at = mask + (int64_t(r0 + row) * strideQ + key) * eb;
          unsigned needed = 0, notHidden = 0, rowBits = 0;
          if (key + per <= ke) {
            // All elements equal (words equal, and the bytes or halves of
            // one): one classification for the chunk.
            const uint32_t lane0 = eb == 1 ? (cur.x & 0xffu) * 0x01010101u
                                   : eb == 2 ? (cur.x & 0xffffu) * 0x00010001u
                                             : cur.x;
            if (cur.x == lane0 && cur.y == cur.x && cur.z == cur.x && cur.w == cur.x) {
              rowBits = firstKeyBits<Elem>(cur.x, isBool);
              const unsigned all = (1u << per) - 1u;
              needed = rowBits & kKeyNeeded ? all : 0u;
              notHidden = rowBits & kKeyNotHidden ? all : 0u;
            } else {
              const int step = 4 / eb; // elements per word
              foldMaskWord<Elem>(cur.x, isBool, 0, needed, notHidden, rowBits);
              foldMaskWord<Elem>(cur.y, isBool, step, needed, notHidden, rowBits);
              foldMaskWord<Elem>(cur.z, isBool, 2 * step, needed, notHidden, rowBits);
              foldMaskWord<Elem>(cur.w, isBool, 3 * step, needed, notHidden, rowBits);
            }
          } else {
#pragma unroll 1
            for (int j = 0; j < ke - key; ++j)
              keyBitsOf(bitsOf(at + j * eb), j, needed, notHidden, rowBits);
          }
          foldKeyMasks(needed, notHidden, key, needLo, needHi, anyLo, anyHi);
          noteRow(row, rowBits);
        }
      }
    } else {
      // Element by element, consecutive threads on consecutive keys.
#pragma unroll 1
      for (int row = 0; row < rows; ++row) {
        const unsigned char *rowAt = mask + int64_t(r0 + row) * strideQ * eb;
        unsigned rowBits = 0;
#pragma unroll 1
        for (int key = kb + tid; key < ke; key += kThreads) {
          const unsigned bits = bitsOf(rowAt + int64_t(key) * strideK * eb);
          foldKeyMasks(bits & kKeyNeeded, bits & kKeyNotHidden ? 1u : 0u, key, needLo, needHi,
                       anyLo, anyHi);
          rowBits |= bits;
        }
        noteRow(row, rowBits);
      }
    }
    if (pass == 0) {
      needLo = warpMin(needLo);
      needHi = warpMax(needHi);
      anyLo = warpMin(anyLo);
      anyHi = warpMax(anyHi);
      if ((tid & 31) == 0) {
        atomicMinShared(scratch, needLo);
        atomicMaxShared(scratch + 4, needHi);
        atomicMinShared(scratch + 8, anyLo);
        atomicMaxShared(scratch + 12, anyHi);
      }
    }
    // Every row may leave its negligible keys out (it has an anchor, or no
    // negligible key). Thread r reads row r's flags, which any thread may
    // have set: a barrier first (the and-barrier after it publishes the
    // atomics above).
    syncThreads();
    const bool rowOk = tid >= rows || lds<int>(anchorAt + 4 * tid) != 0 ||
                       lds<int>(negligibleAt + 4 * tid) == 0;
    allowSkip = syncThreadsAnd(rowOk);
    // (The flags only gain ones in pass 1: no barrier is needed before it.)
    if (allowSkip || pass == 1 || (keyBegin == 0 && keyEnd >= lk))
      break;
  }
  int2 tiles;
  visibleTiles(lds<int>(scratch), lds<int>(scratch + 4), lds<int>(scratch + 8),
               lds<int>(scratch + 12), allowSkip, Bc, &tiles.x, &tiles.y);
  syncThreads(); // everyone has read scratch before the tiles overwrite it
  return tiles;
}

//===----------------------------------------------------------------------===//
// S = Q K^T for one warp (16 MT rows x a (sub-)tile of keys, the Frag
// layout), for its first NL 8-key tiles (the others stay 0: they are
// masked)
//===----------------------------------------------------------------------===//

/// f16/bf16: Q as A fragments (registers, or ldmatrix per k step from the
/// warp's rows at qLane), K through ldmatrix: matrix i of lane L's x4
/// load is keys 16np + 8(i/2) .. +7, d 16kk + 8(i%2) .. +7, i.e. the two B
/// registers of key tiles 2np and 2np+1; key tiles n < NL (a compile-time
/// width: no test in the unrolled loops, which ptxas then schedules
/// freely).
template <int K, int D, int MT, int Stages, int NT, int NL, int QF>
TCC_DEVICE void scoresHalf(float (&s)[2 * MT][2 * NT], const uint32_t (&qf)[QF][D / 16][4],
                           uint32_t qLane, uint32_t kTile, int lane) {
  using C = Config<K, D, MT, Stages>;
  const uint32_t kLane =
      kTile + (((lane >> 4) * 8 + (lane & 7)) * C::kKStride + ((lane >> 3) & 1) * 8) * 2;
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    uint32_t a[MT][4];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
      if constexpr (C::kQInRegs) {
#pragma unroll
        for (int i = 0; i < 4; ++i)
          a[mt][i] = qf[mt][kk][i];
      } else {
        ldmatrixX4(qLane + (mt * 16 * C::kQStride + kk * 16) * 2, a[mt]);
      }
    }
#pragma unroll
    for (int np = 0; np < NL / 2; ++np) {
      uint32_t b[4];
      ldmatrixX4(kLane + (np * 16 * C::kKStride + kk * 16) * 2, b);
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        float(&r0)[2 * NT] = s[2 * mt];
        float(&r1)[2 * NT] = s[2 * mt + 1];
        mma<K>(r0[4 * np], r0[4 * np + 1], r1[4 * np], r1[4 * np + 1], a[mt], b[0], b[1]);
        mma<K>(r0[4 * np + 2], r0[4 * np + 3], r1[4 * np + 2], r1[4 * np + 3], a[mt], b[2],
               b[3]);
      }
    }
  }
}

/// tf32: per k8 step, A = Q[g|g+8][8s + 2t, +1] and B = K[8n + g][8s + 2t,
/// +1] (the d order permuted so both are float2 loads; the sum is the same),
/// for the key tiles n < NL (a compile-time width, as for f32 below).
template <int D, int Stages, int NT, int NL>
TCC_DEVICE void scoresTf32(float (&s)[2][2 * NT], uint32_t qRow, uint32_t kTile, int g, int t) {
  using C = Config<kTf32, D, 1, Stages>;
#pragma unroll
  for (int ks = 0; ks < D / 8; ++ks) {
    float2 qa = lds<float2>(qRow + (ks * 8 + 2 * t) * 4);
    float2 qb = lds<float2>(qRow + (8 * C::kQStride + ks * 8 + 2 * t) * 4);
    uint32_t a[4] = {toTf32(qa.x), toTf32(qb.x), toTf32(qa.y), toTf32(qb.y)};
#pragma unroll
    for (int n = 0; n < NL; ++n) {
      float2 kv = lds<float2>(kTile + ((8 * n + g) * C::kKStride + ks * 8 + 2 * t) * 4);
      mmaTf32(s[0][2 * n], s[0][2 * n + 1], s[1][2 * n], s[1][2 * n + 1], a, toTf32(kv.x),
              toTf32(kv.y));
    }
  }
}

/// f32: thread (rg, kg) computes rows rg + 4i x keys kg + 8j, j < NL (a
/// compile-time width: the caller picks the narrowest that covers the live
/// groups), with FFMA from float4 loads; the other columns become 0.
template <int D, int Stages, int NT, int NL>
TCC_DEVICE void scoresF32(float (&s)[4][NT], uint32_t qWarp, uint32_t kTile, int lane) {
  using C = Config<kF32, D, 1, Stages>;
  const uint32_t qRow = qWarp + (lane >> 3) * C::kQStride * 4;
  const uint32_t kRow = kTile + (lane & 7) * C::kKStride * 4;
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j)
      s[i][j] = 0.0f;
#pragma unroll 2
  for (int d = 0; d < D; d += 4) {
    float4 q[4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
      q[i] = lds<float4>(qRow + (4 * i * C::kQStride + d) * 4);
#pragma unroll
    for (int j = 0; j < NL; ++j) {
      const float4 k = lds<float4>(kRow + (8 * j * C::kKStride + d) * 4);
#pragma unroll
      for (int i = 0; i < 4; ++i)
        s[i][j] = fmaf(q[i].w, k.w, fmaf(q[i].z, k.z, fmaf(q[i].y, k.y, fmaf(q[i].x, k.x, s[i][j]))));
    }
  }
}

//===----------------------------------------------------------------------===//
// Masking and the online softmax (shared by all arithmetics)
//===----------------------------------------------------------------------===//

/// What softmaxTile needs besides the scores: the block-uniform facts and
/// where the mask tile is.
struct SoftmaxContext {
  const AttentionParams *p;
  /// Keys of this block (its split's with kvSplits > 1, else p.lk).
  int lk;
  /// 1 (raw scores, p = 2^(s sc - m)) or p.scaleLog2 folded in first.
  float sc;
  bool prescale;
  /// The mask tile in shared memory (a mask is given): its block row 0 at
  /// the (sub-)tile's first key, and its row pitch (0: broadcast over
  /// queries).
  uint32_t maskTile;
  int maskPitch;
};

/// Turns the raw scores of one tile into p = 2^(x - m) in place and updates
/// the running max (reference) and per-thread partial sums of the thread's
/// rows; rescales O and l first where a row's max grew by more than the
/// threshold. `warpRow` is the warp's first query row (absolute),
/// `warpRowInBlock` the same within the block; `c0` the tile's first key.
template <class Elem, class F, int OC>
TCC_DEVICE void softmaxTile(float (&s)[F::kR][F::kC], float (&m)[F::kR], float (&l)[F::kR],
                            float (&o)[F::kR][OC], const SoftmaxContext &ctx, bool needMask,
                            int warpRow, int warpRowInBlock, int c0, int lane) {
  const AttentionParams &p = *ctx.p;
  constexpr int R = F::kR, NC = F::kC;
  if (ctx.prescale) {
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
      for (int c = 0; c < NC; ++c)
        s[r][c] *= p.scaleLog2;
  }
  if (needMask) {
    // The mask tile first (an additive -inf must stay -inf, and keys past
    // lk, which it gives as 0, are hidden after it)...
    if (p.maskKind != kMaskNone) {
      constexpr int kStep = F::kKeyPairs ? 2 : 1;
      const bool isBool = p.maskKind == kMaskBool;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const uint32_t rowTile = ctx.maskTile + (warpRowInBlock + F::row(r, lane)) * ctx.maskPitch;
#pragma unroll
        for (int c = 0; c < NC; c += kStep) {
          const int kt = F::key(c, lane); // keys kt (, kt + 1) of the tile
          float add[kStep];
          if (isBool) {
            if constexpr (kStep == 2) {
              const uint32_t w = lds<uint16_t>(rowTile + kt);
              add[0] = (w & 0xffu) != 0 ? 0.0f : -INFINITY;
              add[kStep - 1] = (w >> 8) != 0 ? 0.0f : -INFINITY;
            } else {
              add[0] = lds<uint8_t>(rowTile + kt) != 0 ? 0.0f : -INFINITY;
            }
#pragma unroll
            for (int x = 0; x < kStep; ++x)
              s[r][c + x] += add[x];
            continue;
          }
          if constexpr (kStep == 2 && sizeof(Elem) == 2) {
            const uint32_t w = lds<uint32_t>(rowTile + kt * 2);
            add[0] = halfToFloat<Elem>(w, false);
            add[kStep - 1] = halfToFloat<Elem>(w, true);
          } else if constexpr (kStep == 2) {
            const float2 w = lds<float2>(rowTile + kt * 4);
            add[0] = w.x;
            add[kStep - 1] = w.y;
          } else {
            add[0] = toFloat(lds<Elem>(rowTile + kt * int(sizeof(Elem))));
          }
          // -inf hides the key; finite values stay finite (file comment).
#pragma unroll
          for (int x = 0; x < kStep; ++x)
            s[r][c + x] = add[x] == -INFINITY ? -INFINITY
                                              : fmaxf(fmaf(add[x], kLog2e, s[r][c + x]), -FLT_MAX);
        }
      }
    }
    // ... then the keys past lk and, causal, after the row: those at or
    // past the row's limit (relative to the tile).
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int i = warpRow + F::row(r, lane);
      const int limit = (p.causal && i + 1 < ctx.lk ? i + 1 : ctx.lk) - c0;
#pragma unroll
      for (int c = 0; c < NC; ++c)
        if (F::key(c, lane) >= limit)
          s[r][c] = -INFINITY;
    }
  }
  float ref[R], alpha[R];
  bool rescale = false;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    float mx = s[r][0];
#pragma unroll
    for (int c = 1; c < NC; ++c)
      mx = fmaxf(mx, s[r][c]);
    // The lanes of the row group hold the whole row.
#pragma unroll
    for (int x = 1; x < F::kLanesPerRow; x <<= 1)
      mx = fmaxf(mx, shflXor(mx, x));
    const float mNew = fmaxf(m[r], mx * ctx.sc);
    // Grows past the threshold: a new reference (and a rescale). A row
    // with no visible key yet keeps m = -inf (-inf > -inf is false).
    alpha[r] = 1.0f;
    if (mNew > m[r] + p.rescaleThreshold) {
      alpha[r] = ex2(m[r] - mNew); // 0 when m was -inf
      m[r] = mNew;
      rescale = true;
    }
    // A row with no visible key yet has m = -inf; 0 stands in for it so
    // that no inf - inf appears (its p are 2^-inf = 0).
    ref[r] = m[r] == -INFINITY ? 0.0f : m[r];
  }
  if (rescale) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      l[r] *= alpha[r];
#pragma unroll
      for (int i = 0; i < OC; ++i)
        o[r][i] *= alpha[r];
    }
  }
#pragma unroll
  for (int r = 0; r < R; ++r) {
    float sum = 0.0f;
#pragma unroll
    for (int c = 0; c < NC; ++c) {
      s[r][c] = ex2(fmaf(s[r][c], ctx.sc, -ref[r]));
      sum += s[r][c];
    }
    l[r] += sum;
  }
}

//===----------------------------------------------------------------------===//
// O += P V for one warp (the first NL 8-key tiles)
//===----------------------------------------------------------------------===//

/// f16/bf16: the C fragments of key tiles 2kk, 2kk+1 are the A fragment of
/// P for k step kk; V through ldmatrix.trans: matrix i of lane L's x4 load
/// is keys 16kk + 8(i%2) .. +7, d 16mp + 8(i/2) .. +7. Key tiles n < NL.
template <int K, int D, int MT, int Stages, int NT, int NL>
TCC_DEVICE void accumulateHalf(float (&o)[2 * MT][D / 4], const float (&s)[2 * MT][2 * NT],
                               uint32_t vTile, int lane) {
  using C = Config<K, D, MT, Stages>;
  const uint32_t vLane =
      vTile + ((((lane >> 3) & 1) * 8 + (lane & 7)) * C::kVStride + (lane >> 4) * 8) * 2;
#pragma unroll
  for (int kk = 0; kk < NL / 2; ++kk) {
    uint32_t a[MT][4];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
      const float(&r0)[2 * NT] = s[2 * mt];
      const float(&r1)[2 * NT] = s[2 * mt + 1];
      a[mt][0] = packPair<K>(r0[4 * kk], r0[4 * kk + 1]);
      a[mt][1] = packPair<K>(r1[4 * kk], r1[4 * kk + 1]);
      a[mt][2] = packPair<K>(r0[4 * kk + 2], r0[4 * kk + 3]);
      a[mt][3] = packPair<K>(r1[4 * kk + 2], r1[4 * kk + 3]);
    }
#pragma unroll
    for (int mp = 0; mp < D / 16; ++mp) {
      uint32_t b[4];
      ldmatrixX4Trans(vLane + (kk * 16 * C::kVStride + mp * 16) * 2, b);
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        float(&o0)[D / 4] = o[2 * mt];
        float(&o1)[D / 4] = o[2 * mt + 1];
        mma<K>(o0[4 * mp], o0[4 * mp + 1], o1[4 * mp], o1[4 * mp + 1], a[mt], b[0], b[1]);
        mma<K>(o0[4 * mp + 2], o0[4 * mp + 3], o1[4 * mp + 2], o1[4 * mp + 3], a[mt], b[2],
               b[3]);
      }
    }
  }
}

/// tf32: the C fragment of key tile n is the A fragment of P for one k8 step
/// with keys permuted (k = t <-> key 8n + 2t, k = t + 4 <-> key 8n + 2t + 1);
/// B = V[8n + 2t | 8n + 2t + 1][8m + g] in the same order. Key tiles n < NL.
template <int D, int Stages, int NT, int NL>
TCC_DEVICE void accumulateTf32(float (&o)[2][D / 4], const float (&s)[2][2 * NT], uint32_t vTile,
                               int g, int t) {
  using C = Config<kTf32, D, 1, Stages>;
#pragma unroll
  for (int n = 0; n < NL; ++n) {
    const uint32_t a[4] = {toTf32(s[0][2 * n]), toTf32(s[1][2 * n]), toTf32(s[0][2 * n + 1]),
                           toTf32(s[1][2 * n + 1])};
    const uint32_t v0 = vTile + ((8 * n + 2 * t) * C::kVStride + g) * 4;
#pragma unroll
    for (int m = 0; m < D / 8; ++m) {
      float b0 = lds<float>(v0 + m * 32);
      float b1 = lds<float>(v0 + (C::kVStride + m * 8) * 4);
      mmaTf32(o[0][2 * m], o[0][2 * m + 1], o[1][2 * m], o[1][2 * m + 1], a, toTf32(b0),
              toTf32(b1));
    }
  }
}

/// f32: P goes to the warp's shared tile (16 rows x Bc keys) as soon as it
/// is computed (the registers of S are free then) ...
template <int D, int Stages, int NT>
TCC_DEVICE void storeP(const float (&s)[4][NT], uint32_t pWarp, int lane) {
  using C = Config<kF32, D, 1, Stages>;
  const int rg = lane >> 3, kg = lane & 7;
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j)
      sts<float>(pWarp + ((rg + 4 * i) * C::kPStride + kg + 8 * j) * 4, s[i][j]);
  syncWarp();
}

/// ... then thread (rg, kg) accumulates rows rg + 4i x its column units
/// (float4 units kg + 8c, or float2 units for D = 16 and 80) with FFMA,
/// over the live keys.
template <int D, int Stages>
TCC_DEVICE void accumulateF32(float (&o)[4][D / 8], uint32_t pWarp, uint32_t vTile, int lane,
                              int live) {
  using C = Config<kF32, D, 1, Stages>;
  constexpr int VW = D % 32 == 0 ? 4 : 2; // floats per unit
  constexpr int U = D / VW / 8;           // units per thread and row
  const int rg = lane >> 3, kg = lane & 7;
  const uint32_t pRow = pWarp + rg * C::kPStride * 4;
  const uint32_t vCol = vTile + VW * kg * 4;
#pragma unroll 2
  for (int jq = 0; jq < 2 * live; ++jq) {
    float4 pr[4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
      pr[i] = lds<float4>(pRow + (4 * i * C::kPStride + 4 * jq) * 4);
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const uint32_t vRow = vCol + (4 * jq + e) * C::kVStride * 4;
#pragma unroll
      for (int c = 0; c < U; ++c) {
        if constexpr (VW == 4) {
          const float4 v = lds<float4>(vRow + 8 * c * VW * 4);
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const float pe = component(pr[i], e);
            o[i][4 * c + 0] = fmaf(pe, v.x, o[i][4 * c + 0]);
            o[i][4 * c + 1] = fmaf(pe, v.y, o[i][4 * c + 1]);
            o[i][4 * c + 2] = fmaf(pe, v.z, o[i][4 * c + 2]);
            o[i][4 * c + 3] = fmaf(pe, v.w, o[i][4 * c + 3]);
          }
        } else {
          const float2 v = lds<float2>(vRow + 8 * c * VW * 4);
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const float pe = component(pr[i], e);
            o[i][2 * c + 0] = fmaf(pe, v.x, o[i][2 * c + 0]);
            o[i][2 * c + 1] = fmaf(pe, v.y, o[i][2 * c + 1]);
          }
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// The block
//===----------------------------------------------------------------------===//

/// Writes the warp's normalized O (16 MT rows) into its own rows of the Q
/// tile (no other warp reads them), in the element type.
template <int K, int D, int MT, int Stages, int R, int OC>
TCC_DEVICE void stageOutput(const float (&o)[R][OC], const float (&inv)[R], uint32_t stage,
                            int lane) {
  using C = Config<K, D, MT, Stages>;
  using F = Frag<K, MT, 1>;
  if constexpr (K == kF32) {
    constexpr int VW = D % 32 == 0 ? 4 : 2;
    constexpr int U = D / VW / 8;
    const int kg = lane & 7;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const uint32_t row = stage + F::row(r, lane) * C::kQStride * 4;
#pragma unroll
      for (int c = 0; c < U; ++c) {
        const uint32_t at = row + VW * (kg + 8 * c) * 4;
        if constexpr (VW == 4)
          sts<float4>(at, make_float4(o[r][4 * c] * inv[r], o[r][4 * c + 1] * inv[r],
                                      o[r][4 * c + 2] * inv[r], o[r][4 * c + 3] * inv[r]));
        else
          sts<float2>(at, make_float2(o[r][2 * c] * inv[r], o[r][2 * c + 1] * inv[r]));
      }
    }
  } else {
    const int t = lane & 3;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const uint32_t row = stage + F::row(r, lane) * C::kQStride * C::kElemBytes;
#pragma unroll
      for (int m = 0; m < D / 8; ++m) {
        if constexpr (C::kHalf)
          sts<uint32_t>(row + (8 * m + 2 * t) * 2,
                        packPair<K>(o[r][2 * m] * inv[r], o[r][2 * m + 1] * inv[r]));
        else
          sts<float2>(row + (8 * m + 2 * t) * 4,
                      make_float2(o[r][2 * m] * inv[r], o[r][2 * m + 1] * inv[r]));
      }
    }
  }
}

/// Writes the warp's rows of one key split (kvSplits > 1) in fp32: O
/// normalized by its own sum, and the row's score maximum and sum (one lane
/// of each row group), at row index rowBase + the row within the warp (the
/// layout of AttentionParams::partialO). Columns past p.headDim are not
/// written, as in the output.
template <int K, int D, int MT, int Stages, int R, int OC>
TCC_DEVICE void writePartial(const float (&o)[R][OC], const float (&inv)[R],
                             const float (&rowMax)[R], const float (&rowSum)[R],
                             const AttentionParams &p, int64_t rowBase, int warpRow, int split,
                             int lane) {
  using F = Frag<K, MT, 1>;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    if (warpRow + F::row(r, lane) >= p.lq)
      continue;
    const int64_t at = (rowBase + F::row(r, lane)) * p.kvSplits + split;
    float *dst = p.partialO + at * p.headDim;
    if ((lane & (F::kLanesPerRow - 1)) == 0) {
      p.partialMaxSum[2 * at] = rowMax[r];
      p.partialMaxSum[2 * at + 1] = rowSum[r];
    }
    if constexpr (K == kF32) {
      constexpr int VW = D % 32 == 0 ? 4 : 2;
      constexpr int U = D / VW / 8;
      const int kg = lane & 7;
#pragma unroll
      for (int c = 0; c < U; ++c) {
        const int col = VW * (kg + 8 * c);
        if (col < p.headDim)
#pragma unroll
          for (int j = 0; j < VW; ++j)
            dst[col + j] = o[r][VW * c + j] * inv[r];
      }
    } else {
      const int t = lane & 3;
#pragma unroll
      for (int m = 0; m < D / 8; ++m) {
        const int col = 8 * m + 2 * t;
        if (col < p.headDim) {
          dst[col] = o[r][2 * m] * inv[r];
          dst[col + 1] = o[r][2 * m + 1] * inv[r];
        }
      }
    }
  }
}

/// Columns col, col + 1 of one row (b, h, i) of out, `outAt` elements
/// from out's base, from the row's `splits` partials (partial row index
/// `row`): weights l_s 2^(m_s - max m) (a split with no visible key weighs
/// 0; a row with none anywhere is 0, as unsplit), rounded once to the
/// element type. The partials are read through L2 (ldcg): in the folded
/// merge other blocks of the same launch wrote them.
template <int K>
TCC_DEVICE void combineColumns(const float *partialO, const float *partialMaxSum, void *outBase,
                               int64_t outAt, int64_t row, int splits, int headDim, int col) {
  const float *stats = partialMaxSum + 2 * row * splits;
  float most = -INFINITY;
  for (int s = 0; s < splits; ++s)
    most = fmaxf(most, ldcg(stats + 2 * s));
  float a0 = 0.0f, a1 = 0.0f, weights = 0.0f;
  if (most != -INFINITY) {
    for (int s = 0; s < splits; ++s) {
      const float2 ml = ldcg2(stats + 2 * s);
      const float w = ex2(ml.x - most) * ml.y; // 0 for -inf
      const float2 o = ldcg2(partialO + (row * splits + s) * headDim + col);
      a0 += w * o.x;
      a1 += w * o.y;
      weights += w;
    }
  }
  const float inv = weights > 0.0f ? 1.0f / weights : 0.0f;
  if constexpr (K == kF32 || K == kTf32) {
    float *out = static_cast<float *>(outBase) + outAt;
    stg(out, a0 * inv);
    stg(out + 1, a1 * inv);
  } else {
    const uint32_t pair2 = packPair<K>(a0 * inv, a1 * inv);
    uint16_t *out = static_cast<uint16_t *>(outBase) + outAt;
    stg(out, static_cast<uint16_t>(pair2 & 0xffffu));
    stg(out + 1, static_cast<uint16_t>(pair2 >> 16));
  }
}

/// tcc_attention_combine_*: one block per row (b, h, i) of out, thread t
/// writes head dims 2t and 2t + 1.
template <int K> TCC_DEVICE void combineRow(const AttentionCombineParams &p) {
  const int row = blockIndex();
  const int i = row % p.lq, pair = row / p.lq;
  const int h = pair % p.heads, b = pair / p.heads;
  const int col = 2 * threadIndex();
  if (col >= p.headDim)
    return;
  combineColumns<K>(p.partialO, p.partialMaxSum, p.out,
                    b * p.oStrideB + h * p.oStrideH + i * p.oStrideL + col, row, p.kvSplits,
                    p.headDim, col);
}

/// The end of a split block's work, after its partials are written (the
/// whole block calls it, kvSplits > 1, p.splitCounters set; blocks of
/// `Rows` query rows): the block counts itself done on its (query tile,
/// head, batch)'s counter; the last of the kvSplits blocks to do so merges
/// the tile's rows into out, then sets the counter back to 0 for the next
/// launch (or graph replay). The split-K semaphore: every thread fences its
/// partial stores before the barrier that precedes the count, and the
/// merging block fences after it, before its L2 reads. (Everything is
/// derived here from the block and thread indexes, read again, rather than
/// kept live across the key loop: the D = 96 kernels spilled otherwise.)
template <int K, int Rows> TCC_DEVICE void mergeSplits(const AttentionParams &p) {
  const int tid = threadIndexReread();
  const int group = blockIndexReread() / p.kvSplits; // (query tile, head, batch); never causal
  threadFence();
  syncThreads();
  // Thread 0 counts; the barrier's OR tells every thread whether it was
  // the last.
  const bool last =
      !syncThreadsAnd(!(tid == 0 && atomicAddGlobal(p.splitCounters + group, 1) == p.kvSplits - 1));
  if (!last)
    return;
  threadFence();
  const int qTile = group % p.qTiles, pair = group / p.qTiles;
  const int r0 = qTile * Rows, rowsHere = imin(Rows, p.lq - r0);
  const int h = pair % p.heads, b = pair / p.heads;
  const int colPairs = p.headDim / 2;
  const int64_t outBH = b * p.oStrideB + h * p.oStrideH;
#pragma unroll 1
  for (int e = tid; e < rowsHere * colPairs; e += kThreads) {
    const int i = r0 + e / colPairs, col = 2 * (e % colPairs);
    combineColumns<K>(p.partialO, p.partialMaxSum, p.out, outBH + i * p.oStrideL + col,
                      int64_t(pair) * p.lq + i, p.kvSplits, p.headDim, col);
  }
  if (tid == 0)
    p.splitCounters[group] = 0; // every split has counted: none reads it again
}

template <int K, int D, bool Vec, int MT, int Stages>
TCC_DEVICE void attentionBlock(const AttentionParams &p) {
  using C = Config<K, D, MT, Stages>;
  using Elem = typename C::Elem;
  constexpr int Bc = C::kBlockKeys, Bs = C::kSubKeys, NT = Bs / 8;
  using F = Frag<K, MT, NT>;
  constexpr int R = F::kR, NC = F::kC, OC = C::kOCols;
  // The narrow width of a (sub-)tile whose visible keys are all in its
  // first 8-key groups (the ragged last tile: s = 197 has 5 keys of 64;
  // the first warp's causal diagonal): a quarter of the groups, at least a
  // 16-key mma step for f16/bf16. Vectorized kernels only (the scalar ones
  // keep one width, for nvcc's time).
  constexpr int kNarrow = C::kHalf ? (NT / 4 > 2 ? NT / 4 : 2) : (NT / 4 > 1 ? NT / 4 : 1);

  // The mask tiles: bytes (bool) or elements (additive) per key, one
  // buffer, or two in the double-buffered kernels when p.maskBuffers says.
  const bool hasMask = p.maskKind != kMaskNone;
  const int maskElemBytes = p.maskKind == kMaskBool ? 1 : C::kElemBytes;
  const int maskPitch = C::maskPitch(maskElemBytes);
  const uint32_t maskBufferBytes = C::kRows * maskPitch;
  const bool maskTwoBuffers = Stages == 2 && p.maskBuffers == 2;
  const uint32_t needBytes =
      C::kSharedBytes + (hasMask ? (maskTwoBuffers ? 2 : 1) * maskBufferBytes : 0);
  if (dynamicSharedBytes() < needBytes)
    trapKernel();

  const int tid = threadIndex();
  const int warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;

  // Block -> (key split, query tile, head, batch); see the file comment
  // for the order. A split sees its keys only, as if lk were its length.
  const int splits = p.kvSplits > 1 ? p.kvSplits : 1;
  const int split = blockIndex() % splits;
  int key0 = split * p.splitKeys;
  int lk = splits > 1 ? imax(0, imin(p.splitKeys, p.lk - key0)) : p.lk;
  const int pairs = p.batch * p.heads;
  const int bx = blockIndex() / splits;
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
  const int r0 = qTile * C::kRows;
  const int rowsHere = imin(C::kRows, p.lq - r0);

  // The block's keys [key0, key0 + lk): its split's, or with the mask
  // scanned, the tiles any of its rows must read (divided among the splits).
  // Q's tile loads while the mask is scanned (the scan's scratch is in the
  // mask tiles, which load after it). (Written apart from loadQ below, so
  // that the variants without the scan compile as they did before it.)
  bool qLoading = false; // Q's cp.async group is in flight already
  if constexpr (C::kScanMask) {
    if (p.scanMask && hasMask) {
      bool columnHere = true; // as loadsColumn below
      if constexpr (C::kNarrowerHeads)
        columnHere = TileLayout<Elem, Vec, D>::column(tid) < p.headDim;
      loadTile<Elem, Vec, D, C::kRows, C::kQStride>(
          0, static_cast<const Elem *>(p.q) + b * p.qStrideB + h * p.qStrideH + r0 * p.qStrideL,
          p.qStrideL, columnHere ? rowsHere : 0, tid);
      cpAsyncCommit();
      qLoading = true;
      const unsigned char *maskBH = // the mask of (b, h) at key 0
          static_cast<const unsigned char *>(p.mask) +
          ((b % p.maskBatchPeriod) * p.maskStrideB + (b / p.maskBatchPeriod) * p.maskStrideOuter +
           h * p.maskStrideH) * maskElemBytes;
      // kMaskScanSplit: the split's own keys (key0, lk as above); else all.
      const bool ownKeys = p.scanMask == kMaskScanSplit && splits > 1;
      const int2 tiles = scanMaskTiles<Elem, C::kRows, Bc>(
          maskBH, p.maskKind == kMaskBool, p.maskAsync != 0, p.maskStrideQ, p.maskStrideK, p.lk,
          ownKeys ? key0 : 0, ownKeys ? key0 + lk : p.lk, r0, rowsHere, C::kMaskOffset, tid);
      int begin = tiles.x, end = tiles.y;
      if (splits > 1 && !ownKeys)
        splitTiles(begin, end, splits, split, &begin, &end);
      key0 = begin * Bc;
      lk = imax(0, imin(end * Bc, p.lk) - key0);
    }
  }
  int keyTiles = (lk + Bc - 1) / Bc;
  if (p.causal) // keys after the block's last row are invisible to all of it
    keyTiles = imin(keyTiles, (r0 + rowsHere - 1) / Bc + 1);

  const Elem *q = static_cast<const Elem *>(p.q) + b * p.qStrideB + h * p.qStrideH +
                  r0 * p.qStrideL;
  const Elem *k = static_cast<const Elem *>(p.k) + b * p.kStrideB + kvh * p.kStrideH +
                  int64_t(key0) * p.kStrideL;
  const Elem *v = static_cast<const Elem *>(p.v) + b * p.vStrideB + kvh * p.vStrideH +
                  int64_t(key0) * p.vStrideL;
  const unsigned char *mask = nullptr;
  if (hasMask)
    mask = static_cast<const unsigned char *>(p.mask) +
           ((b % p.maskBatchPeriod) * p.maskStrideB + (b / p.maskBatchPeriod) * p.maskStrideOuter +
            h * p.maskStrideH + int64_t(key0) * p.maskStrideK) * maskElemBytes;

  const int warpRowInBlock = warp * C::kWarpRows;
  const int warpRow = r0 + warpRowInBlock; // the warp's first query row
  const bool warpHasRows = warpRow < p.lq;
  const uint32_t qWarp = warpRowInBlock * C::kQStride * C::kElemBytes;
  // The lane's ldmatrix row address of Q (f16/bf16): matrix i of the x4
  // load is rows 8(i%2) .. +7, d 16kk + 8(i/2) .. +7 of a 16-row tile.
  const uint32_t qLane =
      qWarp + ((lane & 7) + ((lane >> 3) & 1) * 8) * C::kQStride * 2 + (lane >> 4) * 16;

  float o[R][OC];
#pragma unroll
  for (int r = 0; r < R; ++r)
#pragma unroll
    for (int i = 0; i < OC; ++i)
      o[r][i] = 0.0f;
  float m[R], l[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    m[r] = -INFINITY;
    l[r] = 0.0f;
  }
  uint32_t qf[C::kQInRegs ? MT : 1][D / 16][4];

  SoftmaxContext ctx;
  ctx.p = &p;
  ctx.lk = lk;
  // Scores are scaled first where the max of the raw scores is not the
  // max of the scaled ones, or where an additive mask joins them.
  ctx.prescale = !(p.scaleLog2 > 0.0f) || p.maskKind == kMaskAdditive;
  ctx.sc = ctx.prescale ? 1.0f : p.scaleLog2;
  ctx.maskPitch = p.maskStrideQ == 0 ? 0 : maskPitch;
  ctx.maskTile = C::kMaskOffset;

  // A head dim below D: each thread loads one column of every tile
  // (kNarrowerHeads), and one whose column is past p.headDim loads no row,
  // so that column of Q, K and V is written as zeros (it adds nothing to
  // Q K^T; P V gives it zeros, which are not stored). Decided once here,
  // outside the key loop.
  bool loadsColumn = true;
  if constexpr (C::kNarrowerHeads)
    loadsColumn = TileLayout<Elem, Vec, D>::column(tid) < p.headDim;

  auto loadK = [&](int tile, int buf) {
    const int c0 = tile * Bc;
    const int valid = imin(Bc, (loadsColumn ? lk : 0) - c0);
    loadTile<Elem, Vec, D, Bc, C::kKStride>(C::kKOffset + buf * C::kKBytes, k + c0 * p.kStrideL,
                                            p.kStrideL, valid, tid);
  };
  auto loadV = [&](int tile, int buf) {
    const int c0 = tile * Bc;
    const int valid = imin(Bc, (loadsColumn ? lk : 0) - c0);
    loadTile<Elem, Vec, D, Bc, C::kVStride>(C::kVOffset + buf * C::kVBytes, v + c0 * p.vStrideL,
                                            p.vStrideL, valid, tid);
  };
  auto loadMask = [&](int tile, int buf) {
    if (hasMask)
      loadMaskTile<Elem, C::kRows, Bc>(C::kMaskOffset + buf * maskBufferBytes, mask, p, lk, r0,
                                       tile * Bc, maskPitch, p.maskAsync != 0, tid);
  };
  auto loadQ = [&] {
    loadTile<Elem, Vec, D, C::kRows, C::kQStride>(0, q, p.qStrideL, loadsColumn ? rowsHere : 0,
                                                  tid);
  };

  // The warp's part of one key (sub-)tile: which 8-key groups hold a key it
  // can see (the rest are masked and not computed; none: 0 and nothing
  // done), S, the softmax (for f32 P to shared memory), then P V.
  const uint32_t pWarp = C::kPOffset + warp * 16 * C::kPStride * 4; // f32
  auto computeScores = [&](int it, int buf, int maskBuf, int sub, float (&s)[R][NC]) -> int {
    const int c0 = it * Bc + sub * Bs;
    int liveKeys = imin(Bs, lk - c0);
    if (p.causal)
      liveKeys = imin(liveKeys, warpRow + C::kWarpRows - c0);
    if (liveKeys <= 0)
      return 0;
    const int live = (liveKeys + 7) >> 3;
    const uint32_t kTile = C::kKOffset + buf * C::kKBytes + sub * Bs * C::kKStride * C::kElemBytes;
    if constexpr (C::kHalf) {
#pragma unroll
      for (int r = 0; r < R; ++r)
#pragma unroll
        for (int c = 0; c < NC; ++c)
          s[r][c] = 0.0f;
      if (Vec && live <= kNarrow)
        scoresHalf<K, D, MT, Stages, NT, kNarrow>(s, qf, qLane, kTile, lane);
      else
        scoresHalf<K, D, MT, Stages, NT, NT>(s, qf, qLane, kTile, lane);
    } else if constexpr (K == kTf32) {
#pragma unroll
      for (int r = 0; r < R; ++r)
#pragma unroll
        for (int c = 0; c < NC; ++c)
          s[r][c] = 0.0f;
      const uint32_t qRow = qWarp + g * C::kQStride * 4;
      if (Vec && live <= kNarrow)
        scoresTf32<D, Stages, NT, kNarrow>(s, qRow, kTile, g, t);
      else
        scoresTf32<D, Stages, NT, NT>(s, qRow, kTile, g, t);
    } else {
      if (Vec && live <= kNarrow)
        scoresF32<D, Stages, NT, kNarrow>(s, qWarp, kTile, lane);
      else
        scoresF32<D, Stages, NT, NT>(s, qWarp, kTile, lane);
    }
    const bool needMask =
        c0 + Bs > lk || (p.causal && c0 + Bs - 1 > warpRow) || hasMask;
    ctx.maskTile = C::kMaskOffset + maskBuf * maskBufferBytes + sub * Bs * maskElemBytes;
    softmaxTile<Elem, F, OC>(s, m, l, o, ctx, needMask, warpRow, warpRowInBlock, c0, lane);
    if constexpr (K == kF32)
      storeP<D, Stages, NT>(s, pWarp, lane);
    return live;
  };
  auto accumulate = [&](int buf, int sub, const float (&s)[R][NC], int live) {
    const uint32_t vTile = C::kVOffset + buf * C::kVBytes + sub * Bs * C::kVStride * C::kElemBytes;
    const bool narrow = Vec && live <= kNarrow;
    if constexpr (C::kHalf) {
      if (narrow)
        accumulateHalf<K, D, MT, Stages, NT, kNarrow>(o, s, vTile, lane);
      else
        accumulateHalf<K, D, MT, Stages, NT, NT>(o, s, vTile, lane);
    } else if constexpr (K == kTf32) {
      if (narrow)
        accumulateTf32<D, Stages, NT, kNarrow>(o, s, vTile, g, t);
      else
        accumulateTf32<D, Stages, NT, NT>(o, s, vTile, g, t);
    } else {
      accumulateF32<D, Stages>(o, pWarp, vTile, lane, live);
    }
  };
  // Causal: tiles are visited in key order, so once a tile starts after
  // the warp's last row all later ones do too.
  auto warpActive = [&](int it) {
    return warpHasRows && !(p.causal && it * Bc > warpRow + C::kWarpRows - 1);
  };

  if constexpr (Stages == 2) {
    // Tile it+1 (K, V, and its mask with two mask buffers) is in flight
    // while tile it is computed; with one mask buffer, tile it's mask
    // loads when the tile starts (its buffer is free since the barrier that
    // ended iteration it-1).
    if (keyTiles > 0) {
      if (!qLoading)
        loadQ();
      loadK(0, 0);
      loadV(0, 0);
      if (maskTwoBuffers)
        loadMask(0, 0);
      cpAsyncCommit();
    }
    for (int it = 0; it < keyTiles; ++it) {
      const int buf = it & 1;
      const int maskBuf = maskTwoBuffers ? buf : 0;
      if (hasMask && !maskTwoBuffers) {
        loadMask(it, 0);
        cpAsyncCommit();
      }
      // Tile it+1 goes into the other buffer, free since the barrier that
      // ended iteration it-1; then wait for tile it (and Q) only.
      if (it + 1 < keyTiles) {
        loadK(it + 1, buf ^ 1);
        loadV(it + 1, buf ^ 1);
        if (maskTwoBuffers)
          loadMask(it + 1, buf ^ 1);
        cpAsyncCommit();
        cpAsyncWait<1>();
      } else {
        cpAsyncWait<0>();
      }
      syncThreads();
      if constexpr (C::kQInRegs) {
        if (it == 0) {
#pragma unroll
          for (int mt = 0; mt < MT; ++mt)
#pragma unroll
            for (int kk = 0; kk < D / 16; ++kk)
              ldmatrixX4(qLane + (mt * 16 * C::kQStride + kk * 16) * 2, qf[mt][kk]);
        }
      }
      if (warpActive(it)) {
#pragma unroll
        for (int sub = 0; sub < C::kSubTiles; ++sub) {
          float s[R][NC];
          const int live = computeScores(it, buf, maskBuf, sub, s);
          if (live > 0)
            accumulate(buf, sub, s, live);
        }
      }
      syncThreads(); // everyone is done with buffer `buf` before it is refilled
    }
  } else {
    // One K, one V and one mask buffer (FlashAttention-2's order): V_it
    // loads during S_it and its softmax, K_it+1 (and its mask) during
    // P_it V_it.
    if (keyTiles > 0) {
      if (!qLoading)
        loadQ();
      loadK(0, 0);
      loadMask(0, 0);
      cpAsyncCommit();
    }
    for (int it = 0; it < keyTiles; ++it) {
      cpAsyncWait<0>(); // K_it, its mask (and Q)
      syncThreads();    // ... for all; everyone is done with V_it-1
      loadV(it, 0);
      cpAsyncCommit();
      const bool active = warpActive(it);
      float s[R][NC];
      int live = 0;
      if (active)
        live = computeScores(it, 0, 0, 0, s);
      cpAsyncWait<0>(); // V_it
      syncThreads();    // ... for all; everyone is done with K_it and the mask
      if (it + 1 < keyTiles) {
        loadK(it + 1, 0);
        loadMask(it + 1, 0);
        cpAsyncCommit();
      }
      if (live > 0)
        accumulate(0, 0, s, live);
    }
  }

  if (qLoading && keyTiles == 0)
    cpAsyncWait<0>(); // Q, loaded for nothing: no copy outlives the block
  float inv[R];
  auto finishRows = [&] {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      float sum = l[r];
#pragma unroll
      for (int x = 1; x < F::kLanesPerRow; x <<= 1)
        sum += shflXor(sum, x);
      inv[r] = sum > 0.0f ? 1.0f / sum : 0.0f; // no visible key: 0
      // In place (no more registers): the row's sum of p = 2^(x - m), and
      // m = -inf where no key was visible, so that such a split weighs 0.
      l[r] = sum;
      m[r] = sum > 0.0f ? m[r] : -INFINITY;
    }
  };
  if (splits > 1) {
    if (warpHasRows) {
      finishRows();
      writePartial<K, D, MT, Stages>(o, inv, m, l, p, (int64_t(pair) * p.lq + warpRow), warpRow,
                                     split, lane);
    }
    // The last split of the row group merges (every warp takes part in
    // its barriers, those without rows too).
    if (p.splitCounters)
      mergeSplits<K, C::kRows>(p);
    return;
  }
  if (!warpHasRows)
    return;
  finishRows();
  // The warp's own Q rows: in the single-buffered order other warps may
  // still be in their last P V, but never touch these rows.
  stageOutput<K, D, MT, Stages>(o, inv, qWarp, lane);
  syncWarp();

  Elem *out = static_cast<Elem *>(p.out) + b * p.oStrideB + h * p.oStrideH +
              warpRow * p.oStrideL;
  // Columns past a smaller head dim are not part of `out` (a test that
  // exists only in the kernels that take them).
  const int rows = imin(C::kWarpRows, p.lq - warpRow);
  const int cols = C::kNarrowerHeads ? p.headDim : D;
  if constexpr (Vec) {
    constexpr int kChunksPerRow = D * C::kElemBytes / 16;
#pragma unroll
    for (int r = 0; r < kChunksPerRow * C::kWarpRows / 32; ++r) {
      const int i = lane + 32 * r;
      const int row = i / kChunksPerRow, chunk = i % kChunksPerRow;
      if (row < rows && (!C::kNarrowerHeads || chunk * (16 / C::kElemBytes) < cols))
        stg(reinterpret_cast<uint4 *>(out + row * p.oStrideL) + chunk,
            lds<uint4>(qWarp + row * C::kQStride * C::kElemBytes + chunk * 16));
    }
  } else {
#pragma unroll 4
    for (int r = 0; r < D * C::kWarpRows / 32; ++r) {
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

#ifndef TCC_ATTENTION_EMULATION
/// The combine of split keys, per element type (tf32 writes f32).
#define TCC_ATTENTION_COMBINE_KERNEL(NAME, KIND)                                                \
  extern "C" __global__ void __launch_bounds__(64)                                              \
      NAME(const tcc_attn::AttentionCombineParams params) {                                     \
    tcc_attn::combineRow<KIND>(params);                                                         \
  }
TCC_ATTENTION_COMBINE_KERNEL(tcc_attention_combine_f16, tcc_attn::kF16)
TCC_ATTENTION_COMBINE_KERNEL(tcc_attention_combine_bf16, tcc_attn::kBf16)
TCC_ATTENTION_COMBINE_KERNEL(tcc_attention_combine_f32, tcc_attn::kF32)
#endif

#define TCC_ATTENTION_KERNELS_OF(KIND, kindName, D)                                             \
  TCC_ATTENTION_KERNEL(tcc_attention_##kindName##_d##D, tcc_attn::KIND, D, false, 1,            \
                       (tcc_attn::kDefaultStages<tcc_attn::KIND, D>))                          \
  TCC_ATTENTION_KERNEL(tcc_attention_##kindName##_d##D##_vec, tcc_attn::KIND, D, true, 1,       \
                       (tcc_attn::kDefaultStages<tcc_attn::KIND, D>))

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

// 128 query rows per block (AttentionKernels.cpp: kRows128Dims).
#define TCC_ATTENTION_ROWS128(KIND, kindName, D)                                                \
  TCC_ATTENTION_KERNEL_SM90(tcc_attention_##kindName##_d##D##_rows128, tcc_attn::KIND, D, true, 2, 2)
TCC_ATTENTION_ROWS128(kF16, f16, 64)
TCC_ATTENTION_ROWS128(kF16, f16, 80)
TCC_ATTENTION_ROWS128(kF16, f16, 96)
TCC_ATTENTION_ROWS128(kF16, f16, 128)
TCC_ATTENTION_ROWS128(kBf16, bf16, 64)
TCC_ATTENTION_ROWS128(kBf16, bf16, 80)
TCC_ATTENTION_ROWS128(kBf16, bf16, 96)
TCC_ATTENTION_ROWS128(kBf16, bf16, 128)

// The double-buffered f32/tf32 D = 64 kernels (two blocks per SM), to
// compare with the single-buffered defaults (kAttentionTuneStages).
TCC_ATTENTION_KERNEL_SM90(tcc_attention_tf32_d64_vec_s2, tcc_attn::kTf32, 64, true, 1, 2)
TCC_ATTENTION_KERNEL_SM90(tcc_attention_f32_d64_vec_s2, tcc_attn::kF32, 64, true, 1, 2)
