//===- AttentionKernels.h - fused attention on the GPU (tcc_attention) ----===//
//
// The CUDA lowering of `tcc_kernel.attention` calls tcc_attention, which runs
// one flash-style kernel of tcc's kernel library (Kernels/Attention.cu): query
// tiles per block, key/value tiles through shared memory, an online softmax,
// no Lq x Lk matrix in device memory. f16/bf16 run on tensor cores (mma.sync,
// fp32 accumulation); fp32 runs in fp32 (kAttentionMathF32) or with TF32
// tensor-core products (kAttentionMathTf32, `--precision tf32`/`bf16`).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_ATTENTIONKERNELS_H
#define TCC_RUNTIME_ATTENTIONKERNELS_H

#include "tcc/Runtime/KernelTypes.h"

#include <cstdint>

namespace tcc {

/// How `mask` is read. The values are the ABI.
enum AttentionMask : int32_t {
  kAttentionMaskNone = 0,
  /// One byte per element, nonzero = the query may attend to the key
  /// (PyTorch's bool attn_mask).
  kAttentionMaskBool = 1,
  /// Added to the scaled scores; same element type as q.
  kAttentionMaskAdditive = 2,
};

/// Arithmetic of the two products for f32 tensors (f16/bf16 always use
/// tensor cores with fp32 accumulation).
enum AttentionMath : int32_t {
  kAttentionMathF32 = 0,
  kAttentionMathTf32 = 1,
};

/// Whether tcc_attention takes these head sizes (query/key, value): the
/// same, a multiple of 8, at most 128 (16, 32, 64, 80, 96 and 128 have
/// kernels of their own; the others run in the next power of 2, at its
/// cost: 40 as 64, 72 as 128). Formation leaves other attention composed
/// of matmuls and a softmax. The launcher checks exactly this (a negative,
/// i.e. dynamic, size is never taken).
constexpr bool attentionKernelSupports(int64_t headDim, int64_t valueDim) {
  return headDim == valueDim && headDim >= 8 && headDim <= 128 && headDim % 8 == 0;
}

/// Knobs of tcc_attention_tune: benchmarking overrides of the kernel
/// choice. 0 is the default of every knob. The values are the ABI.
enum AttentionTune : int32_t {
  /// Query rows per block: 0 automatic, 64, or 128 (f16/bf16 with
  /// vectorizable views and head dims >= 64 on sm_90+ only; others keep 64).
  kAttentionTuneRows = 0,
  /// 0: mask tiles reach shared memory by 16-byte cp.async where the
  /// mask's layout allows; 1: always element by element.
  kAttentionTuneMaskTiles = 1,
  /// 0: rescale a row's accumulator only when its max grows by more than
  /// 2^8; 1: on every tile.
  kAttentionTuneRescale = 2,
  /// 0: one K and one V buffer for f32/tf32 with head dims <= 64 (three
  /// blocks per SM); 2: two of each (the double-buffered kernels; head dim
  /// 64, vectorizable views).
  kAttentionTuneStages = 3,
  /// 0: the double-buffered kernels prefetch the next tile's mask where
  /// its second buffer fits in shared memory; 1: never (one mask buffer).
  kAttentionTuneMaskBuffers = 4,
  /// Key splits (flash-decoding, AttentionKernels.cpp): 0 the launcher's
  /// choice (unsplit until the split path has run on a GPU; then where the
  /// unsplit grid leaves most SMs idle: decoding), 1 never, N >= 2 at most
  /// N (each split at least 64 keys; never with causal).
  kAttentionTuneKvSplits = 5,
  /// Reading only the key tiles a mask leaves visible (the kernel scans the
  /// mask rows of its block first; Kernels/AttentionMaskScan.h): 0 where
  /// the launcher's test says it pays (a mask, no causal flag, at least 4
  /// key tiles, at most 32768 mask elements per block), 1 never, 2 for
  /// every mask without the causal flag (tests).
  kAttentionTuneMaskScan = 6,
  /// Key splits' merge: 0 in the split kernel itself (the last block of a
  /// query tile to finish merges it); 1 by a second kernel,
  /// tcc_attention_combine_* (the design before the fold, to compare).
  kAttentionTuneCombine = 7,
  /// How split blocks scan their mask (Kernels/AttentionMaskScan.h): 0 the
  /// launcher's choice (each split its own keys where a split has at most
  /// 2 key tiles, else all keys), 1 every block all lk keys (the splits
  /// divide the tiles found), 2 each split its own keys.
  kAttentionTuneScanRange = 8,
  /// The decode kernels (a few query rows per key/value head, no causal
  /// flag, f16/bf16, head dim 64 or 128; AttentionDecode.cpp): 0 where the
  /// launcher's test says they pay (on unless TCC_ATTENTION_DECODE=0), 1
  /// never, 2 wherever they take the call (tests).
  kAttentionTuneDecode = 9,
  kAttentionTuneCount = 10,
};

} // namespace tcc

extern "C" {

/// out[b, h, i, :] = sum_j p[i, j] · v[b, h / (heads / kvHeads), j, :] with
///
///   s[i, j] = scale · q[b, h, i, :] · k[b, h / (heads / kvHeads), j, :]
///             (+ mask[b, h, i, j] when additive)
///   p[i, :] = softmax over the keys j that are visible to query i:
///             j <= i when `causal`, mask[b, h, i, j] != 0 when the mask is
///             bool, and s[i, j] > -inf;
///
/// computed in fp32 and rounded once to `dtype`. A query that sees no key
/// gets 0 (as PyTorch's fused kernels). Sizes: `batch`, `heads` query heads,
/// `kvHeads` key/value heads (dividing `heads`), `lq` queries, `lk` keys,
/// head size `headDim` (q, k) and `valueDim` (v, out), which
/// attentionKernelSupports must accept.
///
/// Every tensor is addressed as base + b·sB + h·sH + i·sL + d with strides in
/// elements (the head dim contiguous); the mask as base + b·mB + h·mH + i·mQ +
/// j·mK, where a stride of 0 broadcasts. A `maskBatchPeriod` P above 0 (it
/// must divide `batch`) splits the batch for the mask: b·mB becomes
/// (b % P)·mB + (b / P)·maskStrideOuter, a mask per window of Swin's
/// shifted windows; 0 leaves it whole (maskStrideOuter unused). Pointers need only element
/// alignment (16-byte aligned pointers and strides get the faster,
/// vectorized kernels). All pointers are device pointers; the kernel is
/// enqueued on `stream` (a CUstream) and nothing is synchronized. Failures
/// are recorded (recordKernelLaunchError), never thrown; a call made while
/// an error is pending does nothing.
///
/// Edge cases: batch, heads or lq of 0 writes nothing; lk = 0 writes zeros
/// (k, v and mask are not read and may be null). An additive -inf hides a
/// key; finite values, finfo.min included, do not (a row of only finfo.min
/// keys averages them, as PyTorch does). lq and lk must be below 2^30, and
/// the GPU of compute capability 8.0 or newer.
void tcc_attention(int32_t dtype, int32_t math, int64_t batch, int64_t heads, int64_t kvHeads,
                   int64_t lq, int64_t lk, int64_t headDim, int64_t valueDim,
                   const void *q, int64_t qStrideB, int64_t qStrideH, int64_t qStrideL,
                   const void *k, int64_t kStrideB, int64_t kStrideH, int64_t kStrideL,
                   const void *v, int64_t vStrideB, int64_t vStrideH, int64_t vStrideL,
                   void *out, int64_t outStrideB, int64_t outStrideH, int64_t outStrideL,
                   const void *mask, int32_t maskKind, int64_t maskStrideB,
                   int64_t maskStrideH, int64_t maskStrideQ, int64_t maskStrideK,
                   int64_t maskBatchPeriod, int64_t maskStrideOuter,
                   int32_t causal, float scale, void *stream);

/// Sets tuning knob `knob` (tcc::AttentionTune) to `value` for the calls of
/// tcc_attention that follow, in every thread; returns the previous value
/// (-1 for an unknown knob). For benchmarks and tests: the defaults are the
/// choices meant for production.
int32_t tcc_attention_tune(int32_t knob, int32_t value);

} // extern "C"

#endif // TCC_RUNTIME_ATTENTIONKERNELS_H
