//===- AttentionDecode.h - tcc_attention's path for a few query rows -------===//
//
// A decode step (one query row per head over a long KV cache) runs on the
// kernels of Kernels/AttentionDecode.cu, which give a block the rows of one
// key/value head instead of 64 rows of one query head. tcc_attention
// validates the call and asks this path first.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_RUNTIME_ATTENTIONDECODE_H
#define TCC_LIB_RUNTIME_ATTENTIONDECODE_H

#include <cstdint>

namespace tcc {

/// One validated tcc_attention call (its arguments, AttentionKernels.h).
struct AttentionCall {
  int32_t dtype;
  int64_t batch, heads, kvHeads, lq, lk, headDim, valueDim;
  const void *q, *k, *v;
  void *out;
  int64_t qStrideB, qStrideH, qStrideL;
  int64_t kStrideB, kStrideH, kStrideL;
  int64_t vStrideB, vStrideH, vStrideL;
  int64_t oStrideB, oStrideH, oStrideL;
  const void *mask;
  int32_t maskKind;
  int64_t maskStrideB, maskStrideH, maskStrideQ, maskStrideK, maskBatchPeriod, maskStrideOuter;
  bool causal;
  float scale;
  /// q, k, v and out are 16-byte aligned in every stride they step by.
  bool vectorizable;
};

/// Whether the decode kernels take `call` (the launcher's test, or the
/// tcc_attention_tune override `tune`: 0 default, 1 never, 2 wherever they
/// can).
bool decodeAttentionTakes(const AttentionCall &call, int32_t tune);

/// Enqueues `call` on the decode kernels (decodeAttentionTakes said yes);
/// `kvSplitsTune` is the kAttentionTuneKvSplits override (0 automatic, 1
/// unsplit, N >= 2 at most N splits). Throws RuntimeError.
void launchDecodeAttention(const AttentionCall &call, int32_t kvSplitsTune, void *stream);

} // namespace tcc

#endif // TCC_LIB_RUNTIME_ATTENTIONDECODE_H
