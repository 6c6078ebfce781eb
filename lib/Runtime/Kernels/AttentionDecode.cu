//===- AttentionDecode.cu - attention for a few query rows over a long cache ===//
//
// The kernels behind tcc_attention's decode path (AttentionDecode.cpp): a
// decode step asks for one query row per head over every position of a
// static KV cache, most of them hidden by the mask. The flash kernels of
// Attention.cu give each (batch, head) a block of 64 query rows, so such a
// step computes 63 rows of padding, and with grouped-query attention
// every query head of a group reads the same keys again. Here a block of
// 128 threads owns the G query rows that share one key/value head (the
// group's heads x lq rows, G <= 8) and one split of the keys; the splits
// merge in the same launch (the split-K semaphore of Attention.cu).
//
// Per chunk of 64 keys (kDecodeChunkKeys):
//   1. mask: thread j < 64 reads key j's mask element of each row and
//      classifies it (AttentionMaskScan.h's rules): hidden (-inf, false)
//      and, in the first pass, negligible (finfo.min padding) keys are out;
//      a key no row needs is "dead". A chunk with no live key ends here, so
//      the unfilled part of a cache costs one read of its mask (and of its
//      K and V rows, read meanwhile: bandwidth a decode step has spare).
//   2. K and V rows of the chunk's keys into shared memory (16-byte
//      cp.async), asked for before step 1 so that the two round trips
//      overlap; a dead key's rows are never read (its p is 0 and O += P V
//      skips it, so whatever they hold, NaN included, cannot leak).
//   3. scores: a key is read by D/8 lanes, 8 elements each (16 bytes); each
//      lane holds its 8 columns of Q for all G rows in registers, the lanes
//      of a key sum their dot products with shuffles, and the lane of row r
//      writes x = q.k · scale · log2 e plus the mask (as Attention.cu: -inf
//      stays -inf, finite values are clamped at -FLT_MAX) to shared memory.
//   4. softmax: warp w updates rows w, w + 4 (running max m, sum l, and
//      the factor alpha by which the row's O is rescaled) and turns the
//      row's scores into p = 2^(x - m).
//   5. O += P V: the same key-per-lanes layout over V; each thread keeps
//      its keys' part of O for all G rows (fp32, P unrounded).
// After the last chunk the threads' parts are summed (shuffles within a
// warp, shared memory across warps).
//
// Negligible keys (PyTorch's finfo.min padding) are left out only of a row
// with an anchor (AttentionMaskScan.h), which may lie in another split:
// each split records per row whether it saw an anchor and whether it left
// a negligible key out. Where a row left one out and no split saw an
// anchor (a row of only finfo.min keys, which PyTorch averages), the block
// that writes the result runs all lk keys again without leaving any out;
// otherwise the left-out keys' p are exactly 0 beside the anchor's score
// and the result is the same softmax. A row with no visible key is 0.
//
// Splits: with p.kvSplits > 1 each block writes its rows' O / l (fp32), m,
// l and the two flags to the workspace, fences and counts itself on its
// (kv head, batch) counter; the block that brings it to kvSplits merges:
// weights l_s 2^(m_s - max m), one rounding to the element type, and
// resets the counter for the next launch or graph replay.
//
// Variants: f16/bf16 x D in {64, 128} x G in {1, 2, 4, 8}; Q, K, V and out
// 16-byte aligned in every used stride (the launcher checks), the mask any
// strides (element loads). Names: tcc_attention_decode_<f16|bf16>_d<D>_g<G>.
//
//===----------------------------------------------------------------------===//

#include "AttentionDecodeParams.h"
#include "AttentionDevice.h"
#include "AttentionMaskScan.h"

namespace tcc_attn {

/// The shape of one decode variant and its shared memory (byte offsets).
template <int K, int D, int G> struct DecodeConfig {
  using Elem = std::conditional_t<K == kF16, F16, Bf16>;
  static constexpr int kLanesPerKey = D / 8; ///< a lane holds 8 elements of a key row
  static constexpr int kKeysPerWarp = 32 / kLanesPerKey;
  static constexpr int kKeysPerStep = kWarps * kKeysPerWarp;
  static constexpr int kChunk = kDecodeChunkKeys;
  static constexpr int kSteps = kChunk / kKeysPerStep;
  static constexpr uint32_t kRowBytes = D * 2;
  static constexpr uint32_t kKOffset = 0;
  static constexpr uint32_t kVOffset = kKOffset + kChunk * kRowBytes;
  /// Scores, then p: G rows of kChunk floats.
  static constexpr uint32_t kSOffset = kVOffset + kChunk * kRowBytes;
  /// The chunk's mask as additive values (float; -inf: out): G x kChunk.
  static constexpr uint32_t kMaskOffset = kSOffset + G * kChunk * 4;
  /// Per key of the chunk: whether some row needs it (int).
  static constexpr uint32_t kLiveOffset = kMaskOffset + G * kChunk * 4;
  /// Per row: m, l, alpha (floats), anchor seen, negligible left out (ints).
  static constexpr uint32_t kRowOffset = kLiveOffset + kChunk * 4;
  static constexpr uint32_t kRowM = kRowOffset, kRowL = kRowM + 4 * G, kRowAlpha = kRowL + 4 * G,
                            kRowAnchor = kRowAlpha + 4 * G, kRowNegligible = kRowAnchor + 4 * G;
  /// The merge: each split's m (then its weight) and l per row (G x
  /// kDecodeMaxSplits floats each), and per row whether some split saw an
  /// anchor and whether some split left a negligible key out (G ints each).
  static constexpr uint32_t kWeightOffset = kRowNegligible + 4 * G;
  static constexpr uint32_t kSumLOffset = kWeightOffset + G * kDecodeMaxSplits * 4;
  static constexpr uint32_t kAnyAnchorOffset = kSumLOffset + G * kDecodeMaxSplits * 4;
  static constexpr uint32_t kAnyNegligibleOffset = kAnyAnchorOffset + 4 * G;
  static constexpr uint32_t kSharedBytes = kAnyNegligibleOffset + 4 * G;
  /// The warps' parts of O after the key loop (kWarps x G x D floats),
  /// over the K and V buffers (free by then).
  static constexpr uint32_t kSumOffset = 0;
  static_assert(kWarps * G * D * 4 <= kSOffset, "the warps' O fit over K and V");
  static_assert(kSteps * kKeysPerStep == kChunk, "whole steps per chunk");
  static_assert(kSharedBytes == decodeSharedBytes(D, G), "the launcher's size");
  static_assert(G <= kLanesPerKey, "lane r of a key writes row r");
};

/// The 8 elements of a 16-byte chunk as floats.
template <class Elem> TCC_DEVICE void unpack8(const uint4 &w, float (&x)[8]) {
  const uint32_t words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    x[2 * i] = halfToFloat<Elem>(words[i], false);
    x[2 * i + 1] = halfToFloat<Elem>(words[i], true);
  }
}

/// 8 floats rounded to the element type, as one 16-byte chunk.
template <int K> TCC_DEVICE uint4 pack8(const float (&x)[8]) {
  return make_uint4(packPair<K>(x[0], x[1]), packPair<K>(x[2], x[3]), packPair<K>(x[4], x[5]),
                    packPair<K>(x[6], x[7]));
}

/// Where block `block`'s rows are: its split, its (kv head, batch) group,
/// and for row r its head and query index.
struct DecodeBlock {
  int split, group, kvHead, batch;
  int64_t maskBase; ///< elements, the batch's mask slice
  TCC_DEVICE DecodeBlock(const AttentionDecodeParams &p, int block) {
    split = block % p.kvSplits;
    group = block / p.kvSplits;
    kvHead = group % p.kvHeads;
    batch = group / p.kvHeads;
    maskBase = int64_t(batch % p.maskBatchPeriod) * p.maskStrideB +
               int64_t(batch / p.maskBatchPeriod) * p.maskStrideOuter;
  }
  TCC_DEVICE int head(const AttentionDecodeParams &p, int r) const {
    return kvHead * (p.heads / p.kvHeads) + r / p.lq;
  }
  TCC_DEVICE int query(const AttentionDecodeParams &p, int r) const { return r % p.lq; }
  /// Row r's index among all rows, (b·heads + h)·lq + i (the partials').
  TCC_DEVICE int64_t globalRow(const AttentionDecodeParams &p, int r) const {
    return (int64_t(batch) * p.heads + head(p, r)) * p.lq + query(p, r);
  }
};

/// The additive value x of row r's mask at `key` as this pass reads it
/// (-inf: left out), and what it says about the row (MaskKeyBits).
template <class Elem>
TCC_DEVICE float maskValue(const AttentionDecodeParams &p, const DecodeBlock &blk, int r, int key,
                           bool leaveNegligibleOut, unsigned &bits) {
  if (p.maskKind == kMaskNone) {
    bits = kKeyNeeded | kKeyNotHidden | kKeyAnchor;
    return 0.0f;
  }
  const int64_t at = blk.maskBase + int64_t(blk.head(p, r)) * p.maskStrideH +
                     int64_t(blk.query(p, r)) * p.maskStrideQ + int64_t(key) * p.maskStrideK;
  float x = 0.0f;
  if (p.maskKind == kMaskBool) {
    bits = boolKeyBits(ldg(static_cast<const uint8_t *>(p.mask) + at));
  } else {
    x = toFloat(Elem{ldg(static_cast<const uint16_t *>(p.mask) + at)});
    bits = additiveKeyBits(x);
  }
  const bool in = (bits & kKeyNeeded) || (!leaveNegligibleOut && (bits & kKeyNotHidden));
  return in ? x : -INFINITY;
}

/// Runs the block's rows over keys [keyBegin, keyEnd) (steps 1-5 of the
/// file comment): on return the warps' parts of O are at kSumOffset, and
/// m, l and the row flags in shared memory. `qf` holds this lane's 8
/// columns of Q for every row. Starts and ends with a barrier.
template <int K, int D, int G>
TCC_DEVICE void decodeKeys(const AttentionDecodeParams &p, const DecodeBlock &blk,
                           const float (&qf)[G][8], int keyBegin, int keyEnd,
                           bool leaveNegligibleOut) {
  using C = DecodeConfig<K, D, G>;
  using Elem = typename C::Elem;
  const int tid = threadIndex(), warp = tid >> 5, lane = tid & 31;
  const int keyLane = lane / C::kLanesPerKey, sub = lane % C::kLanesPerKey;
  if (tid < G) {
    sts<float>(C::kRowM + 4 * tid, -INFINITY);
    sts<float>(C::kRowL + 4 * tid, 0.0f);
    sts<int>(C::kRowAnchor + 4 * tid, 0);
    sts<int>(C::kRowNegligible + 4 * tid, 0);
  }
  const Elem *kBase = static_cast<const Elem *>(p.k) + blk.batch * p.kStrideB +
                      blk.kvHead * p.kStrideH;
  const Elem *vBase = static_cast<const Elem *>(p.v) + blk.batch * p.vStrideB +
                      blk.kvHead * p.vStrideH;
  float acc[G][8];
#pragma unroll
  for (int r = 0; r < G; ++r)
#pragma unroll
    for (int e = 0; e < 8; ++e)
      acc[r][e] = 0.0f;
  syncThreads();

  constexpr int kUnits = C::kChunk * C::kLanesPerKey; // 16-byte units per tensor
#pragma unroll 1
  for (int c0 = keyBegin; c0 < keyEnd; c0 += C::kChunk) {
    // 2. K and V rows of the chunk's keys, asked for before the mask is
    // known: a live chunk waits for one round trip, not two. Keys past
    // keyEnd stay as they are (stale or never written): no row reads them.
#pragma unroll
    for (int i = 0; i < kUnits / kThreads; ++i) {
      const int u = tid + i * kThreads;
      const int row = u / C::kLanesPerKey, col = (u % C::kLanesPerKey) * 8;
      const int64_t key = c0 + row;
      const uint32_t to = row * C::kRowBytes + col * 2;
      if (key < keyEnd) {
        cpAsync16Bytes(C::kKOffset + to, kBase + key * p.kStrideL + col, 16);
        cpAsync16Bytes(C::kVOffset + to, vBase + key * p.vStrideL + col, 16);
      }
    }
    cpAsyncCommit();

    // 1. The mask of the chunk's keys, and which keys some row needs.
    bool live = false;
    if (tid < C::kChunk) {
      const int key = c0 + tid;
#pragma unroll
      for (int r = 0; r < G; ++r) {
        float x = -INFINITY;
        if (r < p.rows && key < keyEnd) {
          unsigned bits = 0;
          x = maskValue<Elem>(p, blk, r, key, leaveNegligibleOut, bits);
          if (bits & kKeyAnchor)
            sts<int>(C::kRowAnchor + 4 * r, 1);
          if (leaveNegligibleOut && (bits & kKeyNegligible))
            sts<int>(C::kRowNegligible + 4 * r, 1);
          live = live || x != -INFINITY;
        }
        sts<float>(C::kMaskOffset + (r * C::kChunk + tid) * 4, x);
      }
      sts<int>(C::kLiveOffset + 4 * tid, live ? 1 : 0);
    }
    // The copies land before the buffers are reused, needed or not.
    cpAsyncWait<0>();
    if (syncThreadsAnd(!live))
      continue; // no key of the chunk is needed (the barrier published the mask)

    // 3. Scores (log2 domain, masked) of every row.
#pragma unroll
    for (int s = 0; s < C::kSteps; ++s) {
      const int j = s * C::kKeysPerStep + warp * C::kKeysPerWarp + keyLane;
      float kf[8];
      unpack8<Elem>(lds<uint4>(C::kKOffset + j * C::kRowBytes + sub * 16), kf);
#pragma unroll
      for (int r = 0; r < G; ++r) {
        float dot = 0.0f;
#pragma unroll
        for (int e = 0; e < 8; ++e)
          dot = fmaf(qf[r][e], kf[e], dot);
#pragma unroll
        for (int x = 1; x < C::kLanesPerKey; x <<= 1)
          dot += shflXor(dot, x);
        if (sub == r) {
          const float add = lds<float>(C::kMaskOffset + (r * C::kChunk + j) * 4);
          const float x =
              add == -INFINITY ? -INFINITY : fmaxf(fmaf(add, kLog2e, dot * p.scaleLog2), -FLT_MAX);
          sts<float>(C::kSOffset + (r * C::kChunk + j) * 4, x);
        }
      }
    }
    syncThreads();

    // 4. Online softmax, a warp per row (rows warp, warp + 4).
#pragma unroll
    for (int r = warp; r < G; r += kWarps) {
      if (r >= p.rows)
        break;
      const uint32_t rowAt = C::kSOffset + r * C::kChunk * 4;
      const float x0 = lds<float>(rowAt + lane * 4), x1 = lds<float>(rowAt + (lane + 32) * 4);
      float most = fmaxf(x0, x1);
#pragma unroll
      for (int x = 1; x < 32; x <<= 1)
        most = fmaxf(most, shflXor(most, x));
      const float mOld = lds<float>(C::kRowM + 4 * r);
      const float mNew = fmaxf(mOld, most);
      // No visible key yet: 0 stands in for m (no inf - inf; every p is 0).
      const float ref = mNew == -INFINITY ? 0.0f : mNew;
      const float alpha = ex2(mOld - ref); // 0 when m was -inf
      const float p0 = ex2(x0 - ref), p1 = ex2(x1 - ref);
      sts<float>(rowAt + lane * 4, p0);
      sts<float>(rowAt + (lane + 32) * 4, p1);
      float sum = p0 + p1;
#pragma unroll
      for (int x = 1; x < 32; x <<= 1)
        sum += shflXor(sum, x);
      if (lane == 0) {
        sts<float>(C::kRowL + 4 * r, lds<float>(C::kRowL + 4 * r) * alpha + sum);
        sts<float>(C::kRowM + 4 * r, mNew);
        sts<float>(C::kRowAlpha + 4 * r, alpha);
      }
    }
    syncThreads();

    // 5. O += P V over this thread's keys.
#pragma unroll
    for (int r = 0; r < G; ++r) {
      const float alpha = r < p.rows ? lds<float>(C::kRowAlpha + 4 * r) : 1.0f;
#pragma unroll
      for (int e = 0; e < 8; ++e)
        acc[r][e] *= alpha;
    }
#pragma unroll
    for (int s = 0; s < C::kSteps; ++s) {
      const int j = s * C::kKeysPerStep + warp * C::kKeysPerWarp + keyLane;
      if (lds<int>(C::kLiveOffset + 4 * j) == 0)
        continue;
      float vf[8];
      unpack8<Elem>(lds<uint4>(C::kVOffset + j * C::kRowBytes + sub * 16), vf);
#pragma unroll
      for (int r = 0; r < G; ++r) {
        const float pr = lds<float>(C::kSOffset + (r * C::kChunk + j) * 4);
#pragma unroll
        for (int e = 0; e < 8; ++e)
          acc[r][e] = fmaf(pr, vf[e], acc[r][e]);
      }
    }
    syncThreads(); // everyone is done with the chunk's buffers
  }

  // The keys of a warp's lanes, then of the warps (through shared memory).
#pragma unroll
  for (int r = 0; r < G; ++r)
#pragma unroll
    for (int e = 0; e < 8; ++e)
#pragma unroll
      for (int x = C::kLanesPerKey; x < 32; x <<= 1)
        acc[r][e] += shflXor(acc[r][e], x);
  if (keyLane == 0) {
#pragma unroll
    for (int r = 0; r < G; ++r)
#pragma unroll
      for (int e = 0; e < 8; e += 4)
        sts<float4>(C::kSumOffset + ((warp * G + r) * D + sub * 8 + e) * 4,
                    make_float4(acc[r][e], acc[r][e + 1], acc[r][e + 2], acc[r][e + 3]));
  }
  syncThreads();
}

/// Row r's O at columns [d, d + 8) from the warps' parts (after decodeKeys).
template <int K, int D, int G> TCC_DEVICE void summedO(int r, int d, float (&o)[8]) {
  using C = DecodeConfig<K, D, G>;
#pragma unroll
  for (int e = 0; e < 8; ++e)
    o[e] = 0.0f;
#pragma unroll
  for (int w = 0; w < kWarps; ++w)
#pragma unroll
    for (int e = 0; e < 8; e += 4) {
      const float4 x = lds<float4>(C::kSumOffset + ((w * G + r) * D + d + e) * 4);
      o[e] += x.x;
      o[e + 1] += x.y;
      o[e + 2] += x.z;
      o[e + 3] += x.w;
    }
}

/// Row r's O / l at columns [d, d + 8) (0 where l is 0: no visible key).
template <int K, int D, int G> TCC_DEVICE void normalizedO(int r, int d, float (&o)[8]) {
  using C = DecodeConfig<K, D, G>;
  summedO<K, D, G>(r, d, o);
  const float l = lds<float>(C::kRowL + 4 * r);
  const float inv = l > 0.0f ? 1.0f / l : 0.0f;
#pragma unroll
  for (int x = 0; x < 8; ++x)
    o[x] *= inv;
}

/// Writes the block's rows to out from decodeKeys' result, O / l.
template <int K, int D, int G>
TCC_DEVICE void writeRows(const AttentionDecodeParams &p, const DecodeBlock &blk) {
  using C = DecodeConfig<K, D, G>;
  using Elem = typename C::Elem;
  constexpr int kChunksPerRow = D / 8;
#pragma unroll 1
  for (int e = threadIndex(); e < p.rows * kChunksPerRow; e += kThreads) {
    const int r = e / kChunksPerRow, d = (e % kChunksPerRow) * 8;
    float o[8];
    normalizedO<K, D, G>(r, d, o);
    Elem *out = static_cast<Elem *>(p.out) + blk.batch * p.oStrideB +
                blk.head(p, r) * p.oStrideH + blk.query(p, r) * p.oStrideL + d;
    stg(reinterpret_cast<uint4 *>(out), pack8<K>(o));
  }
}

/// Whether some row left a negligible key out without an anchor (from the
/// row flags decodeKeys left; a block-wide answer, with a barrier).
template <int K, int D, int G> TCC_DEVICE bool rowsNeedAllKeys(const AttentionDecodeParams &p) {
  using C = DecodeConfig<K, D, G>;
  const int tid = threadIndex();
  const bool again = tid < p.rows && lds<int>(C::kRowNegligible + 4 * tid) != 0 &&
                     lds<int>(C::kRowAnchor + 4 * tid) == 0;
  return !syncThreadsAnd(!again);
}

/// The merging block: every split's partials of the group's rows into out
/// (the file comment); runs all keys again where a row needs it. Every
/// step is spread over the block (a loop over the splits in one thread
/// would wait for L2 once per split): a thread per (row, split) reads the
/// statistics, a warp per row finds its largest m and the splits' weights,
/// and kSplitLanes threads share each 8 columns of a row, each summing
/// every kSplitLanes-th split, then combining with shuffles.
template <int K, int D, int G>
TCC_DEVICE void mergeDecodeSplits(const AttentionDecodeParams &p, const DecodeBlock &blk,
                                  const float (&qf)[G][8]) {
  using C = DecodeConfig<K, D, G>;
  using Elem = typename C::Elem;
  const int tid = threadIndex(), warp = tid >> 5, lane = tid & 31;
  const int splits = p.kvSplits;
  if (tid < 2 * G)
    sts<int>(C::kAnyAnchorOffset + 4 * tid, 0); // and kAnyNegligibleOffset
  syncThreads();
#pragma unroll 4
  for (int e = tid; e < p.rows * splits; e += kThreads) {
    const int r = e / splits, s = e % splits;
    const float4 st =
        ldcg4(p.partialStats + (blk.globalRow(p, r) * splits + s) * kDecodeStatFloats);
    sts<float>(C::kWeightOffset + (r * kDecodeMaxSplits + s) * 4, st.x);
    sts<float>(C::kSumLOffset + (r * kDecodeMaxSplits + s) * 4, st.y);
    if (st.z != 0.0f)
      sts<int>(C::kAnyAnchorOffset + 4 * r, 1);
    if (st.w != 0.0f)
      sts<int>(C::kAnyNegligibleOffset + 4 * r, 1);
  }
  syncThreads();
  // A warp per row: the largest m, then the weights l_s 2^(m_s - max m) in
  // place of the m_s (0 for a split without keys). splits <= 64.
#pragma unroll
  for (int r = warp; r < G; r += kWarps) {
    if (r >= p.rows)
      break;
    const uint32_t mAt = C::kWeightOffset + r * kDecodeMaxSplits * 4;
    const uint32_t lAt = C::kSumLOffset + r * kDecodeMaxSplits * 4;
    const float m0 = lane < splits ? lds<float>(mAt + lane * 4) : -INFINITY;
    const float m1 = lane + 32 < splits ? lds<float>(mAt + (lane + 32) * 4) : -INFINITY;
    float most = fmaxf(m0, m1);
#pragma unroll
    for (int x = 1; x < 32; x <<= 1)
      most = fmaxf(most, shflXor(most, x));
    if (lane < splits)
      sts<float>(mAt + lane * 4, m0 == -INFINITY ? 0.0f : ex2(m0 - most) * lds<float>(lAt + lane * 4));
    if (lane + 32 < splits)
      sts<float>(mAt + (lane + 32) * 4,
                 m1 == -INFINITY ? 0.0f : ex2(m1 - most) * lds<float>(lAt + (lane + 32) * 4));
  }
  const bool again = tid < p.rows && lds<int>(C::kAnyNegligibleOffset + 4 * tid) != 0 &&
                     lds<int>(C::kAnyAnchorOffset + 4 * tid) == 0;
  if (!syncThreadsAnd(!again)) { // (also the barrier after the weights)
    decodeKeys<K, D, G>(p, blk, qf, 0, p.lk, /*leaveNegligibleOut=*/false);
    writeRows<K, D, G>(p, blk);
    return;
  }
  // kSplitLanes adjacent lanes per (row, 8 columns): the largest power of
  // 2 that the block's threads allow for the rows (at least 1, at most 32).
  constexpr int kChunksPerRow = D / 8;
  const int items = p.rows * kChunksPerRow;
  int splitLanes = 1;
  while (splitLanes < 32 && 2 * splitLanes * items <= kThreads)
    splitLanes *= 2;
  const int item = tid / splitLanes, q = tid % splitLanes;
  const bool mine = item < items;
  const int r = mine ? item / kChunksPerRow : 0, d = (item % kChunksPerRow) * 8;
  const float *part = p.partialO + blk.globalRow(p, r) * splits * D + d;
  float o[8] = {}, weights = 0.0f;
  if (mine) {
#pragma unroll 4
    for (int s = q; s < splits; s += splitLanes) {
      const float w = lds<float>(C::kWeightOffset + (r * kDecodeMaxSplits + s) * 4);
      const float4 a = ldcg4(part + s * D), b = ldcg4(part + s * D + 4);
      o[0] += w * a.x;
      o[1] += w * a.y;
      o[2] += w * a.z;
      o[3] += w * a.w;
      o[4] += w * b.x;
      o[5] += w * b.y;
      o[6] += w * b.z;
      o[7] += w * b.w;
      weights += w;
    }
  }
  // The splitLanes lanes of an item are adjacent (splitLanes divides 32):
  // sum across them (every lane takes part).
#pragma unroll 1
  for (int x = 1; x < splitLanes; x <<= 1) {
#pragma unroll
    for (int i = 0; i < 8; ++i)
      o[i] += shflXor(o[i], x);
    weights += shflXor(weights, x);
  }
  if (!mine || q != 0)
    return;
  const float inv = weights > 0.0f ? 1.0f / weights : 0.0f;
#pragma unroll
  for (int x = 0; x < 8; ++x)
    o[x] *= inv;
  Elem *out = static_cast<Elem *>(p.out) + blk.batch * p.oStrideB +
              blk.head(p, r) * p.oStrideH + blk.query(p, r) * p.oStrideL + d;
  stg(reinterpret_cast<uint4 *>(out), pack8<K>(o));
}

/// One block of a decode launch (the file comment).
template <int K, int D, int G> TCC_DEVICE void decodeBlock(const AttentionDecodeParams &p) {
  using C = DecodeConfig<K, D, G>;
  using Elem = typename C::Elem;
  if (dynamicSharedBytes() < C::kSharedBytes)
    trapKernel(); // a launcher/kernel mismatch
  const DecodeBlock blk(p, blockIndex());
  const int tid = threadIndex(), lane = tid & 31;
  const int sub = lane % C::kLanesPerKey;

  // This lane's 8 columns of Q, every row (zeros past p.rows).
  float qf[G][8];
#pragma unroll
  for (int r = 0; r < G; ++r) {
    if (r < p.rows) {
      const Elem *q = static_cast<const Elem *>(p.q) + blk.batch * p.qStrideB +
                      blk.head(p, r) * p.qStrideH + blk.query(p, r) * p.qStrideL + sub * 8;
      unpack8<Elem>(ldg16(q), qf[r]);
    } else {
#pragma unroll
      for (int e = 0; e < 8; ++e)
        qf[r][e] = 0.0f;
    }
  }

  const int keyBegin = blk.split * p.splitKeys;
  const int keyEnd = imin(p.lk, keyBegin + p.splitKeys);
  decodeKeys<K, D, G>(p, blk, qf, keyBegin, keyEnd, /*leaveNegligibleOut=*/true);

  if (p.kvSplits == 1) {
    if (rowsNeedAllKeys<K, D, G>(p))
      decodeKeys<K, D, G>(p, blk, qf, 0, p.lk, /*leaveNegligibleOut=*/false);
    writeRows<K, D, G>(p, blk);
    return;
  }

  // The split's partials: O / l, and m, l and the flags per row.
  constexpr int kChunksPerRow = D / 8;
#pragma unroll 1
  for (int e = tid; e < p.rows * kChunksPerRow; e += kThreads) {
    const int r = e / kChunksPerRow, d = (e % kChunksPerRow) * 8;
    float o[8];
    normalizedO<K, D, G>(r, d, o);
    float *part = p.partialO + (blk.globalRow(p, r) * p.kvSplits + blk.split) * D + d;
    stg(reinterpret_cast<float4 *>(part), make_float4(o[0], o[1], o[2], o[3]));
    stg(reinterpret_cast<float4 *>(part + 4), make_float4(o[4], o[5], o[6], o[7]));
  }
  if (tid < p.rows) {
    const float l = lds<float>(C::kRowL + 4 * tid);
    float *stats =
        p.partialStats + (blk.globalRow(p, tid) * p.kvSplits + blk.split) * kDecodeStatFloats;
    stg(reinterpret_cast<float4 *>(stats),
        make_float4(l > 0.0f ? lds<float>(C::kRowM + 4 * tid) : -INFINITY, l,
                    lds<int>(C::kRowAnchor + 4 * tid) ? 1.0f : 0.0f,
                    lds<int>(C::kRowNegligible + 4 * tid) ? 1.0f : 0.0f));
  }
  // The split-K semaphore (Attention.cu's mergeSplits): fence the partials,
  // count; the block that brings the count to kvSplits merges.
  threadFence();
  syncThreads();
  const bool last = !syncThreadsAnd(
      !(tid == 0 && atomicAddGlobal(p.splitCounters + blk.group, 1) == p.kvSplits - 1));
  if (!last)
    return;
  threadFence();
  mergeDecodeSplits<K, D, G>(p, blk, qf);
  if (tid == 0)
    p.splitCounters[blk.group] = 0; // every split has counted: none reads it again
}

} // namespace tcc_attn

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

#ifndef TCC_ATTENTION_EMULATION
#include "GridDependency.cuh"

// Each kernel waits for the previous grid before its first read
// (GridDependency.h), then lets the next one be scheduled.
#define TCC_ATTENTION_DECODE_KERNEL(KIND, kindName, D, G)                                       \
  extern "C" __global__ void __launch_bounds__(tcc_attn::kThreads, 1)                            \
      tcc_attention_decode_##kindName##_d##D##_g##G(                                            \
          const tcc_attn::AttentionDecodeParams params) {                                       \
    tcc_grid::awaitPreviousGrid();                                                              \
    tcc_grid::allowNextGrid();                                                                  \
    tcc_attn::decodeBlock<tcc_attn::KIND, D, G>(params);                                        \
  }
#define TCC_ATTENTION_DECODE_KERNELS(KIND, kindName, D)                                         \
  TCC_ATTENTION_DECODE_KERNEL(KIND, kindName, D, 1)                                             \
  TCC_ATTENTION_DECODE_KERNEL(KIND, kindName, D, 2)                                             \
  TCC_ATTENTION_DECODE_KERNEL(KIND, kindName, D, 4)                                             \
  TCC_ATTENTION_DECODE_KERNEL(KIND, kindName, D, 8)
// The head dims and row counts here are AttentionDecode.cpp's tables.
TCC_ATTENTION_DECODE_KERNELS(kF16, f16, 64)
TCC_ATTENTION_DECODE_KERNELS(kF16, f16, 128)
TCC_ATTENTION_DECODE_KERNELS(kBf16, bf16, 64)
TCC_ATTENTION_DECODE_KERNELS(kBf16, bf16, 128)
#endif
