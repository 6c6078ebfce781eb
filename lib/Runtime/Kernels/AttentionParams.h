//===- AttentionParams.h - the argument of tcc's attention kernels --------===//
//
// The one struct that tcc_attention (AttentionKernels.cpp, compiled by the
// host compiler) fills and the kernels of Attention.cu (compiled by nvcc)
// receive by value as their only parameter. Both include this header, so
// there is a single definition; it is plain C++17 (no CUDA types) for that
// reason.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_RUNTIME_KERNELS_ATTENTIONPARAMS_H
#define TCC_LIB_RUNTIME_KERNELS_ATTENTIONPARAMS_H

#include <cstddef>
#include <cstdint>

namespace tcc_attn {

/// Tensor pointers are those of the (b, h) = (0, 0) slice; strides are in
/// elements. The launcher zeroes the mask fields when no mask is read.
struct AttentionParams {
  const void *q, *k, *v;
  void *out;
  const void *mask; ///< bytes (bool) or the element type (additive); null if none
  int64_t qStrideB, qStrideH, qStrideL;
  int64_t kStrideB, kStrideH, kStrideL;
  int64_t vStrideB, vStrideH, vStrideL;
  int64_t oStrideB, oStrideH, oStrideL;
  int64_t maskStrideB, maskStrideH, maskStrideQ, maskStrideK;
  /// A mask per window (tcc_attention's maskBatchPeriod P): batch b reads
  /// the mask at (b % P)·maskStrideB + (b / P)·maskStrideOuter. P = batch
  /// for an ordinary mask.
  int64_t maskStrideOuter;
  int32_t batch, heads, lq, lk;
  int32_t headsPerKv; ///< query heads per key/value head (GQA)
  int32_t qTiles;     ///< ceil(lq / block rows (64 or 128)): query tiles per (batch, head)
  int32_t maskKind;   ///< AttentionMask
  int32_t causal;
  float scaleLog2; ///< scale * log2(e)
  /// Head dim of q, k, v and out: a multiple of 8, at most the kernel's
  /// compiled D; the columns from here to D are zeros in shared memory.
  int32_t headDim;
  /// How mask tiles reach shared memory: nonzero, 16-byte cp.async (the
  /// mask's key stride is 1, its base and other strides multiples of 16
  /// bytes); 0, element by element.
  int32_t maskAsync;
  /// Mask tile buffers (1 or 2) in the double-buffered kernels: 2 loads
  /// the next tile's mask with its K and V, 1 (less shared memory) loads
  /// each tile's mask when the tile starts.
  int32_t maskBuffers;
  /// The online softmax rescales a row's accumulator only when its running
  /// max grows by more than this (log2 units): p = 2^(x - m) then stays
  /// below 2^threshold, which the fp32 sums (and f16/bf16 P) hold exactly
  /// as well. Negative: rescale on every tile (the textbook order).
  float rescaleThreshold;
  int32_t maskBatchPeriod; ///< P above; at least 1
  /// Split keys (flash-decoding): with kvSplits > 1, block x runs key split
  /// x % kvSplits (keys [s·splitKeys, (s+1)·splitKeys), splitKeys a multiple
  /// of 64) of the (query tile, head, batch) x / kvSplits, and writes its
  /// rows normalized in fp32 to partialO[(row·kvSplits + s)·headDim + d]
  /// with their score maximum m (log2 domain; -inf: no visible key) and
  /// sum of 2^(x - m) in partialMaxSum[2·(row·kvSplits + s)] and [.. + 1],
  /// row = (b·heads + h)·lq + i. The last block of a (query tile, head,
  /// batch) to finish merges its rows' splits into out (splitCounters), or
  /// with splitCounters null tcc_attention_combine_* does, a second kernel.
  /// (Not m + log2 sum: at PyTorch's finfo.min padding m is -FLT_MAX and
  /// the key count would be rounded away.) Never with causal. 1: out
  /// directly.
  float *partialO;
  float *partialMaxSum;
  int32_t kvSplits;
  int32_t splitKeys;
  /// MaskScanMode (AttentionMaskScan.h). Nonzero: before its key loop, a
  /// block reads the mask rows of its queries and reads only the key tiles
  /// one of them must see. kMaskScanRows: it reads all lk keys, and with
  /// kvSplits > 1 the splits divide the tiles found (ceil(n / kvSplits)
  /// each) instead of taking splitKeys keys each; kMaskScanSplit: a split
  /// reads its own splitKeys keys (and key 0, and where a row has no anchor
  /// there, all keys for their anchors) and keeps to them. A mask, no
  /// causal (the launcher asks only then).
  int32_t scanMask;
  int32_t unused0;
  /// With kvSplits > 1: one counter per (query tile, head, batch), in the
  /// order of the blocks (block x / kvSplits), zero before the launch; the
  /// block that brings its counter to kvSplits merges the partials into
  /// out and sets it back to 0. Null: the partials stay for
  /// tcc_attention_combine_* (the launcher's fallback, a tuning knob).
  int32_t *splitCounters;
};

/// The argument of tcc_attention_combine_<f16|bf16|f32>: one block per
/// row (b, h, i) of out; thread t writes head dims 2t and 2t + 1.
struct AttentionCombineParams {
  const float *partialO;
  const float *partialMaxSum;
  void *out;
  int64_t oStrideB, oStrideH, oStrideL;
  int32_t heads, lq, kvSplits, headDim;
};

// The layout is the ABI between two compilers (g++ or clang on the host,
// nvcc's device side); checking it in every translation unit that includes
// this header catches a compiler or target that packs it differently.
static_assert(sizeof(AttentionParams) == 272, "tcc_attn::AttentionParams layout");
static_assert(offsetof(AttentionParams, scanMask) == 256, "tcc_attn::AttentionParams layout");
static_assert(offsetof(AttentionParams, batch) == 176, "tcc_attn::AttentionParams layout");
static_assert(offsetof(AttentionParams, scaleLog2) == 208, "tcc_attn::AttentionParams layout");
static_assert(offsetof(AttentionParams, headDim) == 212, "tcc_attn::AttentionParams layout");
static_assert(offsetof(AttentionParams, rescaleThreshold) == 224, "tcc_attn::AttentionParams layout");
static_assert(offsetof(AttentionParams, maskBatchPeriod) == 228, "tcc_attn::AttentionParams layout");
static_assert(offsetof(AttentionParams, partialO) == 232, "tcc_attn::AttentionParams layout");
static_assert(offsetof(AttentionParams, splitKeys) == 252, "tcc_attn::AttentionParams layout");
static_assert(offsetof(AttentionParams, splitCounters) == 264, "tcc_attn::AttentionParams layout");
static_assert(sizeof(AttentionCombineParams) == 64, "tcc_attn::AttentionCombineParams layout");

} // namespace tcc_attn

#endif // TCC_LIB_RUNTIME_KERNELS_ATTENTIONPARAMS_H
