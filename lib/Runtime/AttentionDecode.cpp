//===- AttentionDecode.cpp - tcc_attention's path for a few query rows -----===//
//
// Which calls the decode kernels take, how their keys are split, and the
// launch (the kernels' design: Kernels/AttentionDecode.cu).
//
// Taken: f16/bf16, head dim 64 or 128 (q/k and v the same), at most 8
// query rows per key/value head ((heads / kvHeads) x lq: a decode step,
// grouped-query attention up to 8 heads per group, or a few speculative
// rows), no causal flag (its top-left alignment is the flash kernels'),
// q, k, v and out 16-byte aligned in every stride they step by, any mask.
// On the H100 (2026-12-07, scripts/kernel_checks/time_decode_attention.py)
// the ~1B LLaMA's decode attention (32 heads, 8 kv heads, d 64, 513 of 2048
// cached keys visible) took 12.4 us here against 17.4 in the flash kernels
// (SDPA: 7.0); every b1 shape and d128 b4 ran 1.1-2x faster. The time is
// latency, not bytes: 12.0 us with 64 keys filled, 12.9 with all 2048.
// A block pays a round trip for its mask, then one for its K and V, per
// 64-key chunk (an unsplit 2048-key call took 65 us): the chunks are not
// pipelined yet, which is what SDPA's 7 us does better.
//
// Splits: a (kv head, batch) group is few blocks (8 for that step), so its
// keys are split into up to kDecodeMaxSplits ranges of whole 64-key chunks,
// as many as keep the grid within one wave of resident blocks
// (kBlocksPerSm): a split past the filled part of a cache reads its mask
// and stops, so short splits cost little, and the visible keys spread over
// many SMs whatever the position. More (kv head, batch) groups than
// kMaxDefaultGroups stay on the flash kernels (b8 of the ~1B model ran
// slower here, in several waves of blocks). The workspace
// (AttentionWorkspace.h) holds the partials; where it would have to grow
// under graph capture, the call runs unsplit.
//
//===----------------------------------------------------------------------===//
#include "AttentionDecode.h"

#include "AttentionWorkspace.h"
#include "Kernels/AttentionDecodeParams.h"
#include "tcc/Runtime/AttentionKernels.h"
#include "tcc/Runtime/CudaDriver.h"
#include "tcc/Runtime/EnvironmentSwitch.h"
#include "tcc/Runtime/KernelLibrary.h"
#include "tcc/Runtime/KernelTypes.h"
#include "tcc/Runtime/RuntimeError.h"

#include <algorithm>
#include <cstdlib>
#include <string>

using namespace tcc;
using tcc_attn::AttentionDecodeParams;

namespace {

constexpr int kThreads = 128;
/// Compiled head dims and row counts (Kernels/AttentionDecode.cu's entry
/// points), in the order of the name table.
constexpr int kHeadDims[] = {64, 128};
constexpr int kRowCounts[] = {1, 2, 4, 8};
constexpr int kMaxRows = 8;
/// Blocks per SM the splits aim at (file comment): about as many as are
/// resident at once (the 4-row kernels use 166 registers a thread, so
/// three 128-thread blocks fit an SM); a second wave of these
/// latency-bound blocks costs a whole block's time again.
constexpr int64_t kBlocksPerSm = 3;
/// The most (kv head, batch) groups the path takes by default: on the H100
/// (2026-12-07) the ~1B LLaMA's b8 step (64 groups) ran 37.5 us here against
/// the flash kernels' 31.5, while 4 to 32 groups ran 1.1-2x faster.
constexpr int64_t kMaxDefaultGroups = 32;

/// "tcc_attention_decode_<f16|bf16>_d<D>_g<G>", [bf16][D index][G index].
const char *const kNames[2][2][4] = {
#define TCC_DECODE_NAMES(kind, d)                                                               \
  {"tcc_attention_decode_" #kind "_d" #d "_g1", "tcc_attention_decode_" #kind "_d" #d "_g2",    \
   "tcc_attention_decode_" #kind "_d" #d "_g4", "tcc_attention_decode_" #kind "_d" #d "_g8"}
    {TCC_DECODE_NAMES(f16, 64), TCC_DECODE_NAMES(f16, 128)},
    {TCC_DECODE_NAMES(bf16, 64), TCC_DECODE_NAMES(bf16, 128)},
#undef TCC_DECODE_NAMES
};

/// This thread's decode kernels in the current context.
struct DecodeFunctions {
  cuda::CUcontext context = nullptr;
  cuda::CUfunction functions[2][2][4] = {};
};

cuda::CUfunction decodeFunction(int bf16, int dIndex, int gIndex) {
  thread_local DecodeFunctions cache;
  cuda::CUcontext ctx = cuda::ensureContext();
  if (ctx != cache.context) {
    cache = DecodeFunctions();
    cache.context = ctx;
  }
  cuda::CUfunction &f = cache.functions[bf16][dIndex][gIndex];
  if (!f)
    f = kernelLibraryFunction(KernelImage::AttentionDecode, kNames[bf16][dIndex][gIndex]);
  return f;
}

/// Whether the path is on without TCC_ATTENTION_DECODE or the tuning knob
/// saying.
constexpr bool kDecodeOnByDefault = true;

/// TCC_ATTENTION_DECODE=0 turns the path off for the process (comparisons
/// against the flash kernels), =1 on; read once.
bool enabledByEnvironment() {
  static const bool on = environmentSwitch("TCC_ATTENTION_DECODE", kDecodeOnByDefault);
  return on;
}

} // namespace

bool tcc::decodeAttentionTakes(const AttentionCall &c, int32_t tune) {
  if (tune == 1 || (tune == 0 && !enabledByEnvironment()))
    return false;
  if (c.dtype != kKernelF16 && c.dtype != kKernelBF16)
    return false;
  if (c.headDim != c.valueDim || (c.headDim != 64 && c.headDim != 128))
    return false;
  if (c.causal || !c.vectorizable || c.lk < 1 || c.kvHeads < 1 || c.heads % c.kvHeads != 0)
    return false;
  const int64_t rows = (c.heads / c.kvHeads) * c.lq;
  const int64_t groups = c.batch * c.kvHeads;
  return rows <= kMaxRows && groups * tcc_attn::kDecodeMaxSplits <= INT32_MAX &&
         (tune == 2 || groups <= kMaxDefaultGroups);
}

void tcc::launchDecodeAttention(const AttentionCall &c, int32_t kvSplitsTune, void *stream) {
  const int64_t rows = (c.heads / c.kvHeads) * c.lq;
  int gIndex = 0;
  while (kRowCounts[gIndex] < rows)
    ++gIndex;
  const int dIndex = c.headDim == 64 ? 0 : 1;
  const int g = kRowCounts[gIndex], d = kHeadDims[dIndex];
  const bool bf16 = c.dtype == kKernelBF16;

  AttentionDecodeParams p{};
  p.q = c.q;
  p.k = c.k;
  p.v = c.v;
  p.out = c.out;
  p.qStrideB = c.qStrideB;
  p.qStrideH = c.qStrideH;
  p.qStrideL = c.qStrideL;
  p.kStrideB = c.kStrideB;
  p.kStrideH = c.kStrideH;
  p.kStrideL = c.kStrideL;
  p.vStrideB = c.vStrideB;
  p.vStrideH = c.vStrideH;
  p.vStrideL = c.vStrideL;
  p.oStrideB = c.oStrideB;
  p.oStrideH = c.oStrideH;
  p.oStrideL = c.oStrideL;
  const bool hasMask = c.maskKind != kAttentionMaskNone;
  p.maskKind = hasMask ? c.maskKind : kAttentionMaskNone;
  if (hasMask) {
    p.mask = c.mask;
    p.maskStrideB = c.maskStrideB;
    p.maskStrideH = c.maskStrideH;
    p.maskStrideQ = c.maskStrideQ;
    p.maskStrideK = c.maskStrideK;
    if (c.maskBatchPeriod > 0)
      p.maskStrideOuter = c.maskStrideOuter;
  }
  // Period 0: the mask's batch dim is the batch (b % batch = b, b / batch = 0).
  p.maskBatchPeriod = static_cast<int32_t>(hasMask && c.maskBatchPeriod > 0 ? c.maskBatchPeriod
                                                                            : c.batch);
  p.batch = static_cast<int32_t>(c.batch);
  p.heads = static_cast<int32_t>(c.heads);
  p.kvHeads = static_cast<int32_t>(c.kvHeads);
  p.lq = static_cast<int32_t>(c.lq);
  p.lk = static_cast<int32_t>(c.lk);
  p.rows = static_cast<int32_t>(rows);
  p.scaleLog2 = c.scale * 1.4426950408889634f;

  // Splits of whole chunks (file comment), or as tuned.
  const int64_t groups = c.batch * c.kvHeads;
  const int64_t chunks = (c.lk + tcc_attn::kDecodeChunkKeys - 1) / tcc_attn::kDecodeChunkKeys;
  int64_t want = 1;
  if (kvSplitsTune >= 2) {
    want = kvSplitsTune;
  } else if (kvSplitsTune == 0) {
    int sms = currentMultiprocessorCount();
    want = std::max<int64_t>(1, kBlocksPerSm * (sms > 0 ? sms : 132) / groups);
  }
  want = std::min<int64_t>({want, chunks, tcc_attn::kDecodeMaxSplits});
  int64_t splitChunks = (chunks + want - 1) / want;
  int64_t splits = (chunks + splitChunks - 1) / splitChunks;
  if (splits >= 2) {
    const int64_t allRows = c.batch * c.heads * c.lq;
    const size_t bytes = size_t(allRows * splits) *
                         size_t(c.headDim + tcc_attn::kDecodeStatFloats) * sizeof(float);
    SplitSpace space = splitWorkspace(stream, bytes, groups);
    if (space.partials) {
      p.partialO = space.partials;
      p.partialStats = space.partials + allRows * splits * c.headDim;
      p.splitCounters = space.counters;
    } else {
      splits = 1; // it would have to grow under graph capture
    }
  }
  if (splits < 2) {
    splits = 1;
    splitChunks = chunks;
  }
  p.kvSplits = static_cast<int32_t>(splits);
  p.splitKeys = static_cast<int32_t>(splitChunks * tcc_attn::kDecodeChunkKeys);

  const char *name = kNames[bf16][dIndex][gIndex];
  cuda::CUfunction function = decodeFunction(bf16, dIndex, gIndex);
  void *args[] = {&p};
  launchLibraryKernel(function, name, static_cast<unsigned>(groups * splits), 1, 1, kThreads,
                      tcc_attn::decodeSharedBytes(d, g), stream, args);
}
