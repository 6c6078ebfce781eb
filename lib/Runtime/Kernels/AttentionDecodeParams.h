//===- AttentionDecodeParams.h - the argument of the decode attention kernels ===//
//
// The one struct that tcc_attention's decode path (AttentionDecode.cpp,
// host compiler) fills and the kernels of Kernels/AttentionDecode.cu (nvcc)
// receive by value. Plain C++17, no CUDA types, so both include it.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_RUNTIME_KERNELS_ATTENTIONDECODEPARAMS_H
#define TCC_LIB_RUNTIME_KERNELS_ATTENTIONDECODEPARAMS_H

#include <cstddef>
#include <cstdint>

namespace tcc_attn {

/// The most key splits a decode launch has (the merging block keeps a
/// weight per row and split in shared memory).
constexpr int kDecodeMaxSplits = 64;
/// Keys a decode block stages at a time (and the unit of splitKeys).
constexpr int kDecodeChunkKeys = 64;
/// Floats of statistics per (row, split) in partialStats: the row's score
/// maximum m (log2 domain; -inf: no key counted), its sum of 2^(x - m),
/// whether the split saw an anchor (1.0f) and whether it left out a
/// negligible key (1.0f) (AttentionMaskScan.h).
constexpr int kDecodeStatFloats = 4;

/// Bytes of dynamic shared memory of the decode kernel of head dim D and G
/// rows (Kernels/AttentionDecode.cu's DecodeConfig, which checks it): K and
/// V chunks, scores and mask (G x chunk floats each), the chunk's live
/// flags, five words per row, the merge's m/weights and l per split and its
/// two flags per row.
constexpr unsigned decodeSharedBytes(int d, int g) {
  return unsigned(2 * kDecodeChunkKeys * d * 2 + 2 * g * kDecodeChunkKeys * 4 +
                  kDecodeChunkKeys * 4 + 5 * g * 4 + 2 * g * kDecodeMaxSplits * 4 + 2 * g * 4);
}

/// Tensor pointers are those of the (b, h) = (0, 0) slice; strides are in
/// elements. The launcher zeroes the mask fields when no mask is read.
struct AttentionDecodeParams {
  const void *q, *k, *v;
  void *out;
  const void *mask; ///< bytes (bool) or the element type (additive); null if none
  int64_t qStrideB, qStrideH, qStrideL;
  int64_t kStrideB, kStrideH, kStrideL;
  int64_t vStrideB, vStrideH, vStrideL;
  int64_t oStrideB, oStrideH, oStrideL;
  int64_t maskStrideB, maskStrideH, maskStrideQ, maskStrideK;
  /// Batch b reads the mask at (b % maskBatchPeriod)·maskStrideB + (b /
  /// maskBatchPeriod)·maskStrideOuter (AttentionParams' rule).
  int64_t maskStrideOuter;
  /// With kvSplits > 1: the splits' rows normalized in fp32 at
  /// partialO[(row·kvSplits + s)·headDim + d], row = (b·heads + h)·lq + i,
  /// and their statistics at partialStats[(row·kvSplits + s)·
  /// kDecodeStatFloats + ..]; one counter per (kv head, batch), zero
  /// before the launch and left zero by it.
  float *partialO;
  float *partialStats;
  int32_t *splitCounters;
  int32_t batch, heads, kvHeads, lq, lk;
  /// Query rows of a block: (heads / kvHeads)·lq, at most the kernel's G.
  int32_t rows;
  int32_t maskKind; ///< AttentionMask (0 none, 1 bool, 2 additive)
  int32_t maskBatchPeriod;
  float scaleLog2; ///< scale · log2(e)
  /// Block x runs keys [s·splitKeys, (s+1)·splitKeys) of split s = x %
  /// kvSplits, for (kv head, batch) x / kvSplits; splitKeys is a multiple
  /// of kDecodeChunkKeys.
  int32_t kvSplits, splitKeys;
  int32_t unused0;
};

// The layout is the ABI between two compilers (AttentionParams.h's note).
static_assert(sizeof(AttentionDecodeParams) == 248, "tcc_attn::AttentionDecodeParams layout");
static_assert(offsetof(AttentionDecodeParams, partialO) == 176,
              "tcc_attn::AttentionDecodeParams layout");
static_assert(offsetof(AttentionDecodeParams, batch) == 200,
              "tcc_attn::AttentionDecodeParams layout");
static_assert(offsetof(AttentionDecodeParams, scaleLog2) == 232,
              "tcc_attn::AttentionDecodeParams layout");

} // namespace tcc_attn

#endif // TCC_LIB_RUNTIME_KERNELS_ATTENTIONDECODEPARAMS_H
