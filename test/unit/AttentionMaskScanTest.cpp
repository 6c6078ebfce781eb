//===- AttentionMaskScanTest.cpp - the key tiles a mask leaves visible ----===//
//
// The rules by which a block of the GPU attention kernel narrows its key
// range to the tiles its mask rows leave visible (Kernels/AttentionMaskScan.h,
// shared with Kernels/Attention.cu), and the launcher's test of when it
// asks for that. The last cases model the block on the host: they fold
// random masks (-inf, PyTorch's finfo.min padding, anchors, rows of only
// finfo.min) as the kernel's scan does, and check that softmax attention
// computed in fp32 as the kernel computes it (scores in the log2 domain,
// finite values clamped to -FLT_MAX, p = 2^(x - max)) over the narrowed
// tiles is bit for bit the one over every key; and that key splits which
// scan only their own keys (kMaskScanSplit) merge, as the split kernel
// merges, to the bits the unscanned splits give.
//
//===----------------------------------------------------------------------===//
#include "Kernels/AttentionMaskScan.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace tcc_attn;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kFinfoMin = -FLT_MAX; // torch.finfo(torch.float32).min
constexpr float kLog2e = 1.4426950408889634f;

bool has(unsigned bits, unsigned bit) { return (bits & bit) != 0; }

/// A block's scan over `rows` mask rows of `lk` additive values, as
/// scanMaskTiles in Attention.cu folds them: the first/last needed and
/// not-hidden keys over all rows, and whether every row allows skipping.
void scanBlock(const std::vector<float> &mask, int rows, int lk, int tile, int *begin,
               int *end) {
  int needLo = INT32_MAX, needHi = -1, anyLo = INT32_MAX, anyHi = -1;
  bool allowSkip = true;
  for (int r = 0; r < rows; ++r) {
    unsigned rowBits = 0;
    for (int j = 0; j < lk; ++j) {
      const unsigned bits = additiveKeyBits(mask[size_t(r) * lk + j]);
      rowBits |= bits;
      if (has(bits, kKeyNeeded)) {
        needLo = std::min(needLo, j);
        needHi = std::max(needHi, j);
      }
      if (has(bits, kKeyNotHidden)) {
        anyLo = std::min(anyLo, j);
        anyHi = std::max(anyHi, j);
      }
    }
    allowSkip = allowSkip && rowAllowsSkip(rowBits);
  }
  visibleTiles(needLo, needHi, anyLo, anyHi, allowSkip, tile, begin, end);
}

/// One row of attention over keys [lo, hi) as the kernel computes it in
/// fp32 (Attention.cu's softmaxTile without the running rescale, which
/// does not change which terms are zero): x = fmax(mask log2e + s, -FLT_MAX),
/// -inf hidden; p = 2^(x - max), out = sum p v / sum p; 0 with no key.
std::vector<float> attendRow(const std::vector<float> &scores, const float *maskRow,
                             const std::vector<float> &v, int dv, int lo, int hi) {
  std::vector<float> x(hi > lo ? size_t(hi - lo) : 0);
  float mx = -kInf;
  for (int j = lo; j < hi; ++j) {
    const float add = maskRow[j];
    const float xj = add == -kInf ? -kInf : std::fmax(std::fma(add, kLog2e, scores[j]), -FLT_MAX);
    x[size_t(j - lo)] = xj;
    mx = std::fmax(mx, xj);
  }
  const float ref = mx == -kInf ? 0.0f : mx;
  std::vector<float> out(size_t(dv), 0.0f);
  float l = 0.0f;
  for (int j = lo; j < hi; ++j) {
    const float p = std::exp2(x[size_t(j - lo)] - ref);
    l += p;
    for (int d = 0; d < dv; ++d)
      out[size_t(d)] += p * v[size_t(j) * dv + d];
  }
  for (float &o : out)
    o = l > 0.0f ? o / l : 0.0f;
  return out;
}

/// A key split's partial of one row over keys [lo, hi), as writePartial
/// leaves it: the score maximum (-inf with no key), the sum of 2^(x - m),
/// and O normalized by it (attendRow's arithmetic).
struct Partial {
  float m, l;
  std::vector<float> o;
};
Partial partialRow(const std::vector<float> &scores, const float *maskRow,
                   const std::vector<float> &v, int dv, int lo, int hi) {
  Partial part{-kInf, 0.0f, attendRow(scores, maskRow, v, dv, lo, hi)};
  float mx = -kInf;
  for (int j = lo; j < hi; ++j) {
    const float add = maskRow[j];
    mx = std::fmax(mx, add == -kInf ? -kInf : std::fmax(std::fma(add, kLog2e, scores[j]), -FLT_MAX));
  }
  const float ref = mx == -kInf ? 0.0f : mx;
  for (int j = lo; j < hi; ++j) {
    const float add = maskRow[j];
    const float x = add == -kInf ? -kInf : std::fmax(std::fma(add, kLog2e, scores[j]), -FLT_MAX);
    part.l += std::exp2(x - ref);
  }
  part.m = part.l > 0.0f ? mx : -kInf;
  return part;
}

/// The merge of a row's partials (Attention.cu's combineColumns): weights
/// l_s 2^(m_s - max m).
std::vector<float> mergeRow(const std::vector<Partial> &parts, int dv) {
  float most = -kInf;
  for (const Partial &p : parts)
    most = std::fmax(most, p.m);
  std::vector<float> out(size_t(dv), 0.0f);
  float weights = 0.0f;
  for (const Partial &p : parts) {
    if (most == -kInf)
      break;
    const float w = std::exp2(p.m - most) * p.l;
    for (int d = 0; d < dv; ++d)
      out[size_t(d)] += w * p.o[size_t(d)];
    weights += w;
  }
  const float inv = weights > 0.0f ? 1.0f / weights : 0.0f;
  for (float &o : out)
    o *= inv;
  return out;
}

/// A split's scan of its own keys [kb, ke) (kMaskScanSplit), as
/// scanMaskTiles folds them: bounds from those keys; negligible keys left
/// out where every row has an anchor among them or at key 0, or no
/// negligible key among them, else where that holds over all lk keys.
void scanSplit(const std::vector<float> &mask, int rows, int lk, int kb, int ke, int tile,
               int *begin, int *end) {
  int needLo = INT32_MAX, needHi = -1, anyLo = INT32_MAX, anyHi = -1;
  bool allowSkip = true, allowSkipAll = true;
  for (int r = 0; r < rows; ++r) {
    unsigned rowBits = 0, allBits = 0;
    for (int j = 0; j < lk; ++j) {
      const unsigned bits = additiveKeyBits(mask[size_t(r) * lk + j]);
      allBits |= bits;
      if (j < kb || j >= ke)
        continue;
      rowBits |= bits;
      if (has(bits, kKeyNeeded)) {
        needLo = std::min(needLo, j);
        needHi = std::max(needHi, j);
      }
      if (has(bits, kKeyNotHidden)) {
        anyLo = std::min(anyLo, j);
        anyHi = std::max(anyHi, j);
      }
    }
    rowBits |= additiveKeyBits(mask[size_t(r) * lk]) & kKeyAnchor;
    allowSkip = allowSkip && rowAllowsSkip(rowBits);
    allowSkipAll = allowSkipAll && rowAllowsSkip(allBits);
  }
  visibleTiles(needLo, needHi, anyLo, anyHi, allowSkip || allowSkipAll, tile, begin, end);
}

bool sameBits(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

} // namespace

TEST_CASE("additive mask values: hidden, negligible, needed, anchors", "[attention][maskscan]") {
  CHECK(additiveKeyBits(-kInf) == 0u);
  for (float anchor : {0.0f, 1.0f, -3.0f, -1e20f, -65504.0f, kInf}) {
    const unsigned bits = additiveKeyBits(anchor);
    CHECK(has(bits, kKeyNeeded));
    CHECK(has(bits, kKeyNotHidden));
    CHECK(has(bits, kKeyAnchor));
    CHECK_FALSE(has(bits, kKeyNegligible));
  }
  // finfo.min of float32 (and bfloat16's, -3.39e38) and anything <= -1e30:
  // left out only beside an anchor.
  for (float negligible : {kFinfoMin, -3.3895314e38f, -1e30f, -2e35f}) {
    const unsigned bits = additiveKeyBits(negligible);
    CHECK(bits == (kKeyNotHidden | kKeyNegligible));
  }
  // Between the two thresholds, and NaN: read, but no anchor.
  for (float between : {-1.0001e20f, -1e25f, -9.9e29f, std::nanf("")}) {
    const unsigned bits = additiveKeyBits(between);
    CHECK(bits == (kKeyNeeded | kKeyNotHidden));
  }
}

TEST_CASE("bool mask bytes", "[attention][maskscan]") {
  CHECK(boolKeyBits(0) == 0u);
  for (int b : {1, 2, 255})
    CHECK(boolKeyBits(uint8_t(b)) == (kKeyNeeded | kKeyNotHidden | kKeyAnchor));
}

TEST_CASE("a row may skip its negligible keys only with an anchor", "[attention][maskscan]") {
  CHECK(rowAllowsSkip(0u)); // nothing visible at all
  CHECK(rowAllowsSkip(additiveKeyBits(0.0f)));
  CHECK(rowAllowsSkip(additiveKeyBits(0.0f) | additiveKeyBits(kFinfoMin)));
  CHECK_FALSE(rowAllowsSkip(additiveKeyBits(kFinfoMin)));
  CHECK_FALSE(rowAllowsSkip(additiveKeyBits(kFinfoMin) | additiveKeyBits(-1e25f)));
}

TEST_CASE("visible tiles from the first and last key", "[attention][maskscan]") {
  int b = -1, e = -1;
  visibleTiles(0, 512, 0, 2047, true, 64, &b, &e); // 513 keys of a 2048 cache
  CHECK((b == 0 && e == 9));
  visibleTiles(0, 512, 0, 2047, false, 64, &b, &e); // a row of only finfo.min
  CHECK((b == 0 && e == 32));
  visibleTiles(700, 899, 0, 2047, true, 64, &b, &e); // a band
  CHECK((b == 10 && e == 15));
  visibleTiles(63, 64, 63, 64, true, 32, &b, &e);
  CHECK((b == 1 && e == 3));
  visibleTiles(INT32_MAX, -1, INT32_MAX, -1, true, 64, &b, &e); // nothing visible
  CHECK(b == e);
  visibleTiles(INT32_MAX, -1, 5, 9, true, 64, &b, &e); // only negligible keys, skipped
  CHECK(b == e);
}

TEST_CASE("splits divide the visible tiles", "[attention][maskscan]") {
  for (int begin = 0; begin < 5; ++begin)
    for (int n = 0; n <= 40; ++n)
      for (int splits = 1; splits <= 17; ++splits) {
        int next = begin, nonEmpty = 0;
        for (int s = 0; s < splits; ++s) {
          int sb, se;
          splitTiles(begin, begin + n, splits, s, &sb, &se);
          REQUIRE(sb <= se);
          if (sb < se) {
            REQUIRE(sb == next); // consecutive, in order, no overlap
            next = se;
            ++nonEmpty;
          }
          REQUIRE(se - sb <= (n + splits - 1) / splits);
        }
        REQUIRE(next == begin + n); // every tile is some split's
        REQUIRE(nonEmpty <= std::min(n, splits));
      }
  int sb, se;
  splitTiles(0, 9, 16, 8, &sb, &se); // 9 tiles over 16 splits: one each
  CHECK((sb == 8 && se == 9));
  splitTiles(0, 9, 16, 9, &sb, &se);
  CHECK(sb == se);
}

TEST_CASE("the launcher scans small masks of long key ranges", "[attention][maskscan]") {
  // A decode step: one row over a 2048-key cache.
  CHECK(maskScanWorthwhile(true, false, 1, 2048, 64));
  CHECK(maskScanWorthwhile(true, false, 64, 512, 64));   // 32768 elements
  CHECK_FALSE(maskScanWorthwhile(true, false, 64, 513, 64));
  CHECK_FALSE(maskScanWorthwhile(true, false, 1, 255, 64)); // under 4 tiles
  CHECK(maskScanWorthwhile(true, false, 1, 128, 32));
  CHECK_FALSE(maskScanWorthwhile(false, false, 1, 2048, 64)); // no mask
  CHECK_FALSE(maskScanWorthwhile(true, true, 1, 2048, 64));   // causal
}

TEST_CASE("attention over the scanned tiles equals attention over all keys",
          "[attention][maskscan]") {
  std::mt19937 rng(20261207);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, 1 << 20);
  constexpr int kTile = 64, kDv = 4;
  int skipped = 0, noAnchorRows = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int lk = 256 + pick(rng) % 1800;
    const int rows = 1 + pick(rng) % 4;
    const bool finfoPad = pick(rng) % 2 == 0;
    std::vector<float> mask(size_t(rows) * lk), v(size_t(lk) * kDv);
    for (float &x : v)
      x = normal(rng);
    for (int r = 0; r < rows; ++r) {
      // A visible band (maybe empty, maybe the whole row), the rest padding;
      // some rows of only finfo.min (no anchor), some -inf gaps inside.
      int lo = pick(rng) % lk, hi = lo + pick(rng) % (lk - lo + 1);
      const int kind = pick(rng) % 8;
      for (int j = 0; j < lk; ++j) {
        float x = (j >= lo && j < hi) ? 0.0f : (finfoPad ? kFinfoMin : -kInf);
        if (kind == 0)
          x = kFinfoMin; // a padded query row: PyTorch averages all keys
        else if (kind == 1 && j >= lo && j < hi && pick(rng) % 3 == 0)
          x = -kInf;
        else if (kind == 2 && x == 0.0f)
          x = normal(rng) * 4.0f; // an ordinary additive bias
        mask[size_t(r) * lk + j] = x;
      }
    }
    int begin, end;
    scanBlock(mask, rows, lk, kTile, &begin, &end);
    const int lo = std::min(begin * kTile, lk), hi = std::min(end * kTile, lk);
    skipped += (lk - (hi - lo)) / kTile;
    for (int r = 0; r < rows; ++r) {
      bool anchor = false;
      for (int j = 0; j < lk; ++j)
        anchor = anchor || mask[size_t(r) * lk + j] >= -1e20f;
      noAnchorRows += !anchor;
      std::vector<float> scores(static_cast<size_t>(lk));
      for (float &s : scores)
        s = normal(rng) * 0.125f * kLog2e * 8.0f;
      const float *row = mask.data() + size_t(r) * lk;
      const std::vector<float> all = attendRow(scores, row, v, kDv, 0, lk);
      const std::vector<float> narrowed = attendRow(scores, row, v, kDv, lo, hi);
      INFO("trial " << trial << " row " << r << " lk " << lk << " tiles " << begin << ".."
                    << end);
      REQUIRE(sameBits(all, narrowed));
    }
  }
  // The trials left tiles out, and met rows without an anchor.
  CHECK(skipped > 1000);
  CHECK(noAnchorRows > 10);
}

TEST_CASE("a row of only finfo.min keys keeps every key it can see", "[attention][maskscan]") {
  // Row 0 sees 64 keys (the rest finfo.min); row 1 is all finfo.min. The
  // block must read all 2048 keys: row 1 averages them all.
  const int lk = 2048;
  std::vector<float> mask(size_t(2) * lk, kFinfoMin);
  for (int j = 0; j < 64; ++j)
    mask[size_t(j)] = 0.0f;
  int begin, end;
  scanBlock(mask, 2, lk, 64, &begin, &end);
  CHECK((begin == 0 && end == 32));
  // Row 1 alone: the same. Row 0 alone: one tile.
  scanBlock(std::vector<float>(mask.begin(), mask.begin() + lk), 1, lk, 64, &begin, &end);
  CHECK((begin == 0 && end == 1));
  // -inf past the first 64 keys in row 1 too: hidden keys are always left out.
  std::vector<float> hidden(size_t(2) * lk, -kInf);
  for (int j = 0; j < 64; ++j)
    hidden[size_t(j)] = 0.0f;
  hidden[size_t(lk) + 100] = kFinfoMin;
  scanBlock(hidden, 2, lk, 64, &begin, &end);
  CHECK((begin == 0 && end == 2)); // row 1 has no anchor: its finfo.min key 100 is read
}

TEST_CASE("the launcher's scan mode: splits of at most 2 tiles scan their own keys",
          "[attention][maskscan]") {
  CHECK(maskScanMode(16, 128, 64) == kMaskScanSplit); // ~1B decode: 2048 keys in 16
  CHECK(maskScanMode(5, 448, 64) == kMaskScanRows);   // h1024 b8: 5 splits of 7 tiles
  CHECK(maskScanMode(16, 512, 64) == kMaskScanRows);  // an 8k cache
  CHECK(maskScanMode(3, 64, 32) == kMaskScanSplit);
  CHECK(maskScanMode(1, 2048, 64) == kMaskScanRows); // unsplit: all keys
}

TEST_CASE("splits scanning their own keys merge to the unscanned split result",
          "[attention][maskscan]") {
  std::mt19937 rng(20261208);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, 1 << 20);
  constexpr int kTile = 64, kDv = 4;
  int skippedSplits = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int lk = 256 + pick(rng) % 1800;
    const int rows = 1 + pick(rng) % 3;
    const int splitKeys = kTile * (1 + pick(rng) % 2);
    const int splits = (lk + splitKeys - 1) / splitKeys;
    std::vector<float> mask(size_t(rows) * lk), v(size_t(lk) * kDv);
    for (float &x : v)
      x = normal(rng);
    for (int r = 0; r < rows; ++r) {
      // A filled prefix or a band (left padding), finfo.min or -inf
      // padding; some rows of only finfo.min; -inf gaps; biases.
      const bool band = pick(rng) % 3 == 0;
      int lo = band ? pick(rng) % lk : 0, hi = lo + pick(rng) % (lk - lo + 1);
      const bool finfoPad = pick(rng) % 3 != 0;
      const int kind = pick(rng) % 8;
      for (int j = 0; j < lk; ++j) {
        float x = (j >= lo && j < hi) ? 0.0f : (finfoPad ? kFinfoMin : -kInf);
        if (kind == 0)
          x = kFinfoMin;
        else if (kind == 1 && j >= lo && j < hi && pick(rng) % 3 == 0)
          x = -kInf;
        else if (kind == 2 && x == 0.0f)
          x = normal(rng) * 4.0f;
        mask[size_t(r) * lk + j] = x;
      }
    }
    for (int r = 0; r < rows; ++r) {
      std::vector<float> scores(static_cast<size_t>(lk));
      for (float &x : scores)
        x = normal(rng) * 0.125f * kLog2e * 8.0f;
      const float *row = mask.data() + size_t(r) * lk;
      std::vector<Partial> all, narrowed;
      for (int sp = 0; sp < splits; ++sp) {
        const int kb = sp * splitKeys, ke = std::min(lk, kb + splitKeys);
        int begin, end;
        scanSplit(mask, rows, lk, kb, ke, kTile, &begin, &end);
        const int lo = std::min(begin * kTile, lk), hi = std::min(end * kTile, lk);
        REQUIRE((lo == hi || (lo >= kb && hi <= ke)));
        skippedSplits += r == 0 && lo == hi;
        all.push_back(partialRow(scores, row, v, kDv, kb, ke));
        narrowed.push_back(partialRow(scores, row, v, kDv, lo, hi));
      }
      INFO("trial " << trial << " row " << r << " lk " << lk << " splits of " << splitKeys);
      REQUIRE(sameBits(mergeRow(all, kDv), mergeRow(narrowed, kDv)));
    }
  }
  CHECK(skippedSplits > 500);
}
