//===- AttentionDecodeEmulationTest.cpp - the decode kernels, on the host ===//
//
// Runs decodeBlock of Kernels/AttentionDecode.cu itself (compiled here
// against AttentionEmulation.h: every block of a launch, one after the
// other, 128 threads each) and compares out with a softmax computed in
// double over PyTorch's fp32 scores (s·scale + mask, so a row of only
// finfo.min keys averages them): f16 and bf16, head dims 64 and 128, 1 to 8
// rows per key/value head (grouped-query heads and several queries), one
// split or several (blocks in a shuffled order, the last to count merges;
// the counters must end at 0), and masks: none, bool, additive with a
// static cache's finfo.min padding or -inf, per-head and per-query masks,
// random values, a row of only finfo.min (the merging block runs all keys
// again), rows with no visible key (0), and a cache whose filled part
// ends inside a chunk.
//
//===----------------------------------------------------------------------===//
#include "AttentionEmulation.h"

#define TCC_ATTENTION_EMULATION "../../../test/unit/AttentionEmulation.h"
#include "Kernels/AttentionDecode.cu"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

using namespace tcc_attn;

namespace {

uint16_t toBf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return 0x7fc0;
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
uint16_t toF16(float x) {
  _Float16 h = static_cast<_Float16>(x);
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}
template <int K> uint16_t toElem(float x) { return K == kF16 ? toF16(x) : toBf16(x); }
template <int K> float fromElem(uint16_t b) { return K == kF16 ? f16ToFloat(b) : bf16ToFloat(b); }

enum class MaskCase {
  None,
  BoolPrefix,       ///< true for keys < filled(row)
  FinfoMinPrefix,   ///< 0 for keys < filled(row), finfo.min after
  NegInfPrefix,     ///< 0, then -inf
  Random,           ///< N(0, 2) values, some -inf
  OnlyFinfoMin,     ///< row 0 of each mask has only finfo.min keys
  NothingVisible,   ///< row 0 of each mask has only -inf keys
};

struct Case {
  int batch, heads, kvHeads, lq, lk, d;
  MaskCase mask;
  bool maskPerHead;  ///< a mask row per head (else broadcast over heads)
  bool maskPerQuery; ///< a mask row per query (else broadcast over queries)
  int splits;        ///< the launch's key splits (1: unsplit)
  int filled;        ///< keys visible in the prefix masks (per row: filled - row)
  bool poisonHidden = false; ///< NaN in K and V of keys >= filled (hidden from every row)
};

template <int K, int D, int G> void runCase(const Case &c, uint32_t seed) {
  INFO("batch " << c.batch << " heads " << c.heads << " kv " << c.kvHeads << " lq " << c.lq
                << " lk " << c.lk << " d " << D << " G " << G << " mask " << int(c.mask)
                << " perHead " << c.maskPerHead << " perQuery " << c.maskPerQuery << " splits "
                << c.splits << " filled " << c.filled << (K == kF16 ? " f16" : " bf16"));
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  // Rows padded by 8 elements (16-byte aligned strides that are not D).
  const int pitch = D + 8;
  auto tensor = [&](int heads, int len) {
    std::vector<uint16_t> t(size_t(c.batch) * heads * len * pitch, 0x7fff);
    for (size_t i = 0; i < t.size(); ++i)
      if (int(i % pitch) < D)
        t[i] = toElem<K>(normal(rng));
    return t;
  };
  std::vector<uint16_t> q = tensor(c.heads, c.lq), k = tensor(c.kvHeads, c.lk),
                        v = tensor(c.kvHeads, c.lk);
  if (c.poisonHidden) {
    // The kernel asks for a chunk's K and V before it reads the mask: what
    // it fetched for hidden keys must never reach the result.
    const uint16_t nan = K == kF16 ? 0x7e00 : 0x7fc0;
    for (size_t at = 0; at < k.size(); ++at)
      if (int(at / pitch % c.lk) >= c.filled)
        k[at] = v[at] = nan;
  }
  std::vector<uint16_t> out(size_t(c.batch) * c.heads * c.lq * pitch, 0x7fff);

  // The mask: [batch, heads or 1, lq or 1, lk] elements (bytes for bool).
  const int mh = c.maskPerHead ? c.heads : 1, mq = c.maskPerQuery ? c.lq : 1;
  const bool isBool = c.mask == MaskCase::BoolPrefix;
  std::vector<float> maskValue(size_t(c.batch) * mh * mq * c.lk, 0.0f); // what PyTorch adds
  std::vector<uint16_t> maskHalf(maskValue.size());
  std::vector<uint8_t> maskBool(maskValue.size());
  const float finfoMin = fromElem<K>(toElem<K>(-3.3895313892515355e38f)); // bf16's; f16: -inf
  for (int b = 0; b < c.batch; ++b)
    for (int h = 0; h < mh; ++h)
      for (int i = 0; i < mq; ++i) {
        const int row = h * mq + i;
        const int filled = std::max(0, std::min(c.lk, c.filled - row - b));
        for (int j = 0; j < c.lk; ++j) {
          const size_t at = ((size_t(b) * mh + h) * mq + i) * c.lk + j;
          float x = 0.0f;
          switch (c.mask) {
          case MaskCase::None:
            break;
          case MaskCase::BoolPrefix:
            x = j < filled ? 0.0f : -INFINITY;
            maskBool[at] = j < filled;
            break;
          case MaskCase::FinfoMinPrefix:
            x = j < filled ? 0.0f : finfoMin;
            break;
          case MaskCase::NegInfPrefix:
            x = j < filled ? 0.0f : -INFINITY;
            break;
          case MaskCase::Random:
            x = (rng() % 7 == 0) ? -INFINITY : fromElem<K>(toElem<K>(2.0f * normal(rng)));
            break;
          case MaskCase::OnlyFinfoMin:
            x = (row != 0 && j < filled) ? 0.0f : finfoMin;
            break;
          case MaskCase::NothingVisible:
            x = (row == 0 || j >= filled) ? -INFINITY : 0.0f;
            break;
          }
          maskValue[at] = x;
          maskHalf[at] = toElem<K>(x);
        }
      }

  AttentionDecodeParams p{};
  p.q = q.data();
  p.k = k.data();
  p.v = v.data();
  p.out = out.data();
  p.qStrideL = pitch;
  p.qStrideH = int64_t(c.lq) * pitch;
  p.qStrideB = int64_t(c.heads) * c.lq * pitch;
  p.kStrideL = p.vStrideL = pitch;
  p.kStrideH = p.vStrideH = int64_t(c.lk) * pitch;
  p.kStrideB = p.vStrideB = int64_t(c.kvHeads) * c.lk * pitch;
  p.oStrideL = pitch;
  p.oStrideH = int64_t(c.lq) * pitch;
  p.oStrideB = int64_t(c.heads) * c.lq * pitch;
  p.maskKind = c.mask == MaskCase::None ? kMaskNone : isBool ? kMaskBool : kMaskAdditive;
  if (c.mask != MaskCase::None) {
    p.mask = isBool ? static_cast<const void *>(maskBool.data()) : maskHalf.data();
    p.maskStrideK = 1;
    p.maskStrideQ = c.maskPerQuery ? c.lk : 0;
    p.maskStrideH = c.maskPerHead ? int64_t(mq) * c.lk : 0;
    p.maskStrideB = int64_t(mh) * mq * c.lk;
  }
  p.maskBatchPeriod = c.batch;
  p.batch = c.batch;
  p.heads = c.heads;
  p.kvHeads = c.kvHeads;
  p.lq = c.lq;
  p.lk = c.lk;
  p.rows = (c.heads / c.kvHeads) * c.lq;
  REQUIRE(p.rows <= G);
  const float scale = 1.0f / std::sqrt(float(D));
  p.scaleLog2 = scale * kLog2e;
  const int chunks = (c.lk + kDecodeChunkKeys - 1) / kDecodeChunkKeys;
  const int splitChunks = (chunks + c.splits - 1) / c.splits;
  p.kvSplits = (chunks + splitChunks - 1) / splitChunks;
  p.splitKeys = splitChunks * kDecodeChunkKeys;
  const int groups = c.batch * c.kvHeads;
  const size_t allRows = size_t(c.batch) * c.heads * c.lq;
  std::vector<float> partialO(allRows * p.kvSplits * D, NAN);
  std::vector<float> stats(allRows * p.kvSplits * kDecodeStatFloats, NAN);
  std::vector<int32_t> counters(size_t(groups), 0);
  if (p.kvSplits > 1) {
    p.partialO = partialO.data();
    p.partialStats = stats.data();
    p.splitCounters = counters.data();
  }

  // Every block once, splits of a group in a shuffled order.
  std::vector<int> order(size_t(groups) * p.kvSplits);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  for (int block : order) {
    tcc_attn_emulation::blockId() = block;
    tcc_attn_emulation::runBlock([&](int) { decodeBlock<K, D, G>(p); });
  }
  for (int32_t n : counters)
    REQUIRE(n == 0);

  // The reference, per (b, h, i): PyTorch's fp32 scores, softmax in double.
  const int perKv = c.heads / c.kvHeads;
  for (int b = 0; b < c.batch; ++b)
    for (int h = 0; h < c.heads; ++h)
      for (int i = 0; i < c.lq; ++i) {
        const int kvh = h / perKv;
        const uint16_t *qr = &q[((size_t(b) * c.heads + h) * c.lq + i) * pitch];
        std::vector<float> x(size_t(c.lk));
        float most = -INFINITY;
        for (int j = 0; j < c.lk; ++j) {
          const uint16_t *kr = &k[((size_t(b) * c.kvHeads + kvh) * c.lk + j) * pitch];
          double dot = 0.0;
          for (int e = 0; e < D; ++e)
            dot += double(fromElem<K>(qr[e])) * fromElem<K>(kr[e]);
          const size_t at = ((size_t(b) * mh + (c.maskPerHead ? h : 0)) * mq +
                             (c.maskPerQuery ? i : 0)) * c.lk + j;
          // A hidden key's score is -inf whatever its K (NaN in the poisoned cases).
          x[size_t(j)] = maskValue[at] == -INFINITY ? -INFINITY : float(dot * scale) + maskValue[at];
          most = std::max(most, x[size_t(j)]);
        }
        std::vector<double> o(D, 0.0);
        double sum = 0.0;
        if (most != -INFINITY)
          for (int j = 0; j < c.lk; ++j) {
            const double w = std::exp(double(x[size_t(j)]) - double(most));
            if (w == 0.0)
              continue; // a hidden key adds nothing (its V may be NaN)
            const uint16_t *vr = &v[((size_t(b) * c.kvHeads + kvh) * c.lk + j) * pitch];
            for (int e = 0; e < D; ++e)
              o[size_t(e)] += w * fromElem<K>(vr[e]);
            sum += w;
          }
        const uint16_t *got = &out[((size_t(b) * c.heads + h) * c.lq + i) * pitch];
        for (int e = 0; e < D; ++e) {
          const double want = sum > 0.0 ? o[size_t(e)] / sum : 0.0;
          const double have = fromElem<K>(got[e]);
          INFO("b " << b << " h " << h << " i " << i << " e " << e << ": " << have << " vs "
                    << want);
          REQUIRE(std::abs(have - want) <= 2e-3 + (K == kF16 ? 2e-3 : 1.6e-2) * std::abs(want));
        }
        for (int e = D; e < pitch; ++e)
          REQUIRE(got[e] == 0x7fff); // the padding is not written
      }
}

template <int K> void runShapes(MaskCase mask, uint32_t seed, bool poison = false) {
  // (batch, heads, kv, lq, lk, D, mask, perHead, perQuery, splits, filled, poison)
  runCase<K, 64, 4>({1, 8, 2, 1, 300, 64, mask, false, false, 5, 130, poison}, seed);
  runCase<K, 64, 4>({2, 4, 1, 1, 200, 64, mask, false, false, 1, 65, poison}, seed + 1);
  runCase<K, 128, 2>({1, 4, 2, 1, 129, 128, mask, true, false, 3, 64, poison}, seed + 2);
  runCase<K, 64, 8>({1, 4, 2, 4, 192, 64, mask, true, true, 2, 100, poison}, seed + 3);
  runCase<K, 64, 1>({2, 2, 2, 1, 70, 64, mask, false, false, 2, 3, poison}, seed + 4);
  runCase<K, 128, 8>({1, 16, 2, 1, 256, 128, mask, true, false, 4, 200, poison}, seed + 5);
}

} // namespace

TEST_CASE("the decode kernels against a softmax in double, bf16", "[attention][decode]") {
  for (MaskCase m : {MaskCase::None, MaskCase::BoolPrefix, MaskCase::FinfoMinPrefix,
                     MaskCase::NegInfPrefix, MaskCase::Random, MaskCase::OnlyFinfoMin,
                     MaskCase::NothingVisible})
    runShapes<kBf16>(m, 100 + 10 * int(m));
}

TEST_CASE("the decode kernels against a softmax in double, f16", "[attention][decode]") {
  // (The masks' code is the same as bf16's but for the element's conversion.)
  for (MaskCase m : {MaskCase::NegInfPrefix, MaskCase::Random})
    runShapes<kF16>(m, 300 + 10 * int(m));
}

TEST_CASE("the decode kernels never use a hidden key's K or V", "[attention][decode]") {
  // NaN in every key past the visible prefixes: read ahead of the mask,
  // they must neither reach the scores nor O.
  for (MaskCase m : {MaskCase::NegInfPrefix, MaskCase::BoolPrefix})
    runShapes<kBf16>(m, 500 + 10 * int(m), /*poison=*/true);
  runShapes<kF16>(MaskCase::NegInfPrefix, 700, /*poison=*/true);
}
