//===- AttentionScanEmulationTest.cpp - the kernel's mask scan, on the host -===//
//
// Runs scanMaskTiles of Kernels/Attention.cu itself (compiled here against
// AttentionEmulation.h: one block of 128 threads) over random masks and
// layouts, over all keys or one split's, and compares the key tiles it
// returns with a plain fold of the rules of Kernels/AttentionMaskScan.h: bool, f16, bf16 and f32 masks,
// 16-byte chunks (with a row's last chunk partial) and element by element
// (key strides 0, 1, 2; rows not 16-byte aligned), one row or up to 64, a
// mask broadcast over queries, rows of -inf, finfo.min, NaN and values
// between the thresholds. Tiles of one key make the range exact (the first
// and last key), tiles of 32 and 64 as the kernels use them. Then
// mergeSplits, the split kernel's last step: blocks of one query tile
// count themselves done one after the other over hand-made partials; out
// must stay untouched until the last, which merges (f32, f16, bf16 out;
// rows of -inf, of only finfo.min, of ordinary scores) and leaves the
// counter at 0.
//
//===----------------------------------------------------------------------===//
#include "AttentionEmulation.h"

// Attention.cu includes it again (a no-op after the include guard), by a
// path relative to its own directory.
#define TCC_ATTENTION_EMULATION "../../../test/unit/AttentionEmulation.h"
#include "Kernels/Attention.cu"

#include <catch2/catch.hpp>

#include <functional>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

using namespace tcc_attn;

namespace {

template <class Elem> unsigned bitsAt(const unsigned char *at, bool isBool) {
  if (isBool)
    return boolKeyBits(*at);
  if constexpr (sizeof(Elem) == 2) {
    uint16_t h;
    std::memcpy(&h, at, 2);
    return additiveKeyBits(toFloat(Elem{h}));
  } else {
    float f;
    std::memcpy(&f, at, 4);
    return additiveKeyBits(f);
  }
}

/// The tiles the rules give, folded key by key, for the keys [kb, ke) of
/// lk: bounds from those keys; negligible keys left out where every row
/// has an anchor among them or at key 0 (kb > 0), or no negligible key
/// among them; failing that, the same over all lk keys.
template <class Elem, int Bc>
int2 expected(const unsigned char *mask, bool isBool, int64_t strideQ, int64_t strideK, int lk,
              int kb, int ke, int r0, int rowsHere) {
  const int eb = isBool ? 1 : int(sizeof(Elem));
  auto bits = [&](int r, int j) {
    return bitsAt<Elem>(mask + ((r0 + r) * strideQ + j * strideK) * eb, isBool);
  };
  const int rows = strideQ == 0 ? 1 : rowsHere;
  int needLo = INT32_MAX, needHi = -1, anyLo = INT32_MAX, anyHi = -1;
  bool allowSkip = true, allowSkipAll = true;
  for (int r = 0; r < rows; ++r) {
    unsigned rowBits = 0, allBits = 0;
    for (int j = 0; j < lk; ++j)
      allBits |= bits(r, j);
    for (int j = kb; j < ke; ++j) {
      const unsigned b = bits(r, j);
      rowBits |= b;
      if (b & kKeyNeeded) {
        needLo = std::min(needLo, j);
        needHi = std::max(needHi, j);
      }
      if (b & kKeyNotHidden) {
        anyLo = std::min(anyLo, j);
        anyHi = std::max(anyHi, j);
      }
    }
    if (kb > 0)
      rowBits |= bits(r, 0) & kKeyAnchor;
    allowSkip = allowSkip && rowAllowsSkip(rowBits);
    allowSkipAll = allowSkipAll && rowAllowsSkip(allBits);
  }
  int2 t;
  visibleTiles(needLo, needHi, anyLo, anyHi, allowSkip || allowSkipAll, Bc, &t.x, &t.y);
  return t;
}

/// scanMaskTiles run by one emulated block; every thread must return the
/// same tiles.
template <class Elem, int Bc>
int2 scanned(const unsigned char *mask, bool isBool, bool async, int64_t strideQ, int64_t strideK,
             int lk, int kb, int ke, int r0, int rowsHere) {
  tcc_attn_emulation::Block block;
  std::memset(block.shared, 0xab, sizeof(block.shared)); // garbage where the scratch goes
  tcc_attn_emulation::currentBlock() = &block;
  std::vector<int2> tiles(128);
  std::vector<std::thread> threads;
  for (int t = 0; t < 128; ++t)
    threads.emplace_back([&, t] {
      tcc_attn_emulation::threadId() = t;
      tiles[size_t(t)] = scanMaskTiles<Elem, 64, Bc>(mask, isBool, async, strideQ, strideK, lk, kb,
                                                     ke, r0, rowsHere, 4096, t);
    });
  for (std::thread &t : threads)
    t.join();
  tcc_attn_emulation::currentBlock() = nullptr;
  for (const int2 &t : tiles)
    REQUIRE((t.x == tiles[0].x && t.y == tiles[0].y));
  return tiles[0];
}

std::mt19937 rng(20261207);
int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }

enum Value { kVisible, kHidden, kFinfoMin, kBetween, kNaN, kBias };

template <class Elem> void put(unsigned char *at, bool isBool, Value what) {
  if (isBool) {
    *at = what == kVisible ? uint8_t(1 + pick(255)) : what == kHidden ? 0 : uint8_t(pick(2) * 0x80);
    return;
  }
  const float v = what == kVisible  ? 0.0f
                  : what == kHidden ? -INFINITY
                  : what == kFinfoMin ? -FLT_MAX
                  : what == kBetween  ? -1e25f
                  : what == kNaN      ? NAN
                                      : float(pick(100) - 50) * 0.1f;
  if constexpr (std::is_same_v<Elem, F16>) {
    // f16 holds no -1e25: finfo.min (-65504) stands in, as PyTorch pads.
    const uint16_t h = what == kVisible ? 0
                       : what == kHidden ? 0xfc00
                       : what == kFinfoMin || what == kBetween ? 0xfbff
                       : what == kNaN ? 0x7e00
                                      : uint16_t(0x3c00 | (pick(2) << 15));
    std::memcpy(at, &h, 2);
  } else if constexpr (std::is_same_v<Elem, Bf16>) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    const uint16_t h = uint16_t(u >> 16);
    std::memcpy(at, &h, 2);
  } else {
    std::memcpy(at, &v, 4);
  }
}

/// `trials` random masks: a band of visible keys per row in -inf or
/// finfo.min padding, some rows of only finfo.min, only -inf, ordinary
/// biases, or NaN / in-between values sprinkled in.
/// Returns how many of them left tiles out.
template <class Elem, int Bc> int randomScans(int trials, bool isBool) {
  const int eb = isBool ? 1 : int(sizeof(Elem));
  int narrowed = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const int lk = 1 + pick(pick(2) ? 2100 : 300);
    const int rowsHere = 1 + (pick(2) ? 0 : pick(64));
    const int r0 = pick(3);
    const bool broadcast = pick(6) == 0;
    const bool aligned = pick(3) != 0;
    const int64_t strideK = aligned ? 1 : (pick(3) == 0 ? 0 : 1 + pick(2));
    const int64_t rowElems = int64_t(lk) * std::max<int64_t>(strideK, 1);
    const int64_t strideQ = broadcast ? 0
                            : aligned ? (rowElems * eb + 15) / 16 * 16 / eb
                                      : rowElems + pick(3);
    const bool async = aligned && strideK == 1;
    const int rows = broadcast ? 1 : r0 + rowsHere;
    std::vector<unsigned char> buffer(size_t(rows * std::max(strideQ, rowElems) * eb + 32));
    unsigned char *mask =
        buffer.data() + (16 - reinterpret_cast<uintptr_t>(buffer.data()) % 16) % 16;
    for (int r = 0; r < rows; ++r) {
      const int lo = pick(lk + 1), hi = lo + pick(lk - lo + 1);
      const Value pad = pick(2) ? kHidden : kFinfoMin;
      const int style = pick(6);
      for (int j = 0; j < lk; ++j) {
        Value what = j >= lo && j < hi ? (style == 1 ? kBias : kVisible) : pad;
        if (style == 2)
          what = kFinfoMin; // a padded query row: it reads every key
        else if (style == 3 && pick(50) == 0)
          what = pick(2) ? kBetween : kNaN;
        else if (style == 4)
          what = kHidden;
        put<Elem>(mask + (r * strideQ + j * strideK) * eb, isBool, what);
      }
    }
    // All keys, or (half the trials) one split's: a multiple of 16 keys
    // from 0, up to lk.
    int kb = 0, ke = lk;
    if (pick(2)) {
      kb = pick(lk / 16 + 1) * 16;
      ke = std::min(lk, kb + 16 * (1 + pick(40)));
      kb = std::min(kb, ke);
    }
    const int2 want = expected<Elem, Bc>(mask, isBool, strideQ, strideK, lk, kb, ke, r0, rowsHere);
    const int2 got =
        scanned<Elem, Bc>(mask, isBool, async, strideQ, strideK, lk, kb, ke, r0, rowsHere);
    narrowed += want.y - want.x < (ke - kb + Bc - 1) / Bc;
    INFO("trial " << trial << " (" << eb << "-byte " << (isBool ? "bool" : "additive") << " mask, tiles of " << Bc << "): lk " << lk << ", keys " << kb << ".." << ke << ", rows " << rowsHere << " from " << r0
                  << ", strides " << strideQ << " / " << strideK << ", 16-byte chunks " << async);
    CHECK(got.x == want.x);
    CHECK(got.y == want.y);
  }
  return narrowed;
}

} // namespace

TEST_CASE("the kernel's mask scan: a decode step's prefix", "[attention][maskscan][emulation]") {
  // One bf16 row of a 2048-position cache, 513 keys filled, finfo.min past
  // them (transformers' padding): tiles 0 .. 8 of 64; -inf the same.
  std::vector<uint16_t> row(2048 + 8);
  uint16_t *mask = row.data() + (16 - reinterpret_cast<uintptr_t>(row.data()) % 16) % 16 / 2;
  for (int j = 0; j < 2048; ++j)
    mask[j] = j < 513 ? 0 : 0xff7f; // bf16 finfo.min
  const auto *bytes = reinterpret_cast<const unsigned char *>(mask);
  int2 t = scanned<Bf16, 64>(bytes, false, true, 2048, 1, 2048, 0, 2048, 0, 1);
  CHECK((t.x == 0 && t.y == 9));
  for (int j = 513; j < 2048; ++j)
    mask[j] = 0xff80; // -inf
  t = scanned<Bf16, 64>(bytes, false, true, 2048, 1, 2048, 0, 2048, 0, 1);
  CHECK((t.x == 0 && t.y == 9));
  // Nothing filled, finfo.min everywhere: no anchor, every key is read.
  for (int j = 0; j < 2048; ++j)
    mask[j] = 0xff7f;
  t = scanned<Bf16, 64>(bytes, false, true, 2048, 1, 2048, 0, 2048, 0, 1);
  CHECK((t.x == 0 && t.y == 32));
  // Splits of 128 keys each scanning their own (kMaskScanSplit), 513 keys
  // filled, finfo.min after: split 4 keeps tile 8 (key 512), split 5 none
  // (key 0 is its anchor), split 0 both of its tiles.
  for (int j = 0; j < 2048; ++j)
    mask[j] = j < 513 ? 0 : 0xff7f;
  t = scanned<Bf16, 64>(bytes, false, true, 2048, 1, 2048, 512, 640, 0, 1);
  CHECK((t.x == 8 && t.y == 9));
  t = scanned<Bf16, 64>(bytes, false, true, 2048, 1, 2048, 640, 768, 0, 1);
  CHECK(t.x == t.y);
  t = scanned<Bf16, 64>(bytes, false, true, 2048, 1, 2048, 0, 128, 0, 1);
  CHECK((t.x == 0 && t.y == 2));
  // Left padding: finfo.min before key 1000, filled to 1200. A split past
  // the filled keys finds no anchor in its keys nor at key 0, reads every
  // key for one, finds it (key 1000), and leaves its own keys out.
  for (int j = 0; j < 2048; ++j)
    mask[j] = j >= 1000 && j < 1200 ? 0 : 0xff7f;
  t = scanned<Bf16, 64>(bytes, false, true, 2048, 1, 2048, 1280, 1408, 0, 1);
  CHECK(t.x == t.y);
  // A row of only finfo.min: the split reads all of its keys.
  for (int j = 0; j < 2048; ++j)
    mask[j] = 0xff7f;
  t = scanned<Bf16, 64>(bytes, false, true, 2048, 1, 2048, 1280, 1408, 0, 1);
  CHECK((t.x == 20 && t.y == 22));
}

TEST_CASE("the kernel's mask scan on random masks", "[attention][maskscan][emulation]") {
  int narrowed = randomScans<Bf16, 64>(8, false);
  narrowed += randomScans<Bf16, 1>(10, false);
  narrowed += randomScans<Bf16, 1>(10, true);
  narrowed += randomScans<F16, 1>(8, false);
  narrowed += randomScans<float, 32>(6, false);
  narrowed += randomScans<float, 1>(8, false);
  CHECK(narrowed > 15); // of 50: the masks left keys out
}

namespace {

float outElem(const std::vector<uint16_t> &half, const std::vector<float> &full, int kind,
              size_t at) {
  if (kind == kF32)
    return full[at];
  return kind == kF16 ? toFloat(F16{half[at]}) : toFloat(Bf16{half[at]});
}

/// One query tile of `rowsHere` rows from r0 (of lq) of head (b, h) = (1,
/// 2) of 2 x 3 heads, `splits` splits, head dim `headDim`, out in `K`
/// with rows padded (strides B, H, L = 3·lq·pitch, lq·pitch, pitch).
template <int K> void mergeCase(int splits, int lq, int r0, int rowsHere, int headDim) {
  const int heads = 3, pair = 1 * heads + 2, pitch = headDim + 8;
  REQUIRE(r0 % 64 == 0);
  const int qTiles = (lq + 63) / 64, group = pair * qTiles + r0 / 64;
  REQUIRE(rowsHere == std::min(64, lq - r0));
  const int64_t rows = 2 * heads * lq;
  std::vector<float> partialO(size_t(rows * splits * headDim), NAN);
  std::vector<float> maxSum(size_t(rows * splits * 2), NAN);
  std::vector<double> want(size_t(rowsHere * headDim));
  for (int r = 0; r < rowsHere; ++r) {
    const int64_t row = int64_t(pair) * lq + r0 + r;
    // 0: ordinary scores, some splits without a key; 1: every key finfo.min
    // (m = -FLT_MAX, l the key count); 2: no visible key anywhere.
    const int style = r % 3;
    double most = -INFINITY;
    for (int s = 0; s < splits; ++s) {
      float m = -INFINITY, l = 0.0f;
      if (style == 0 && pick(4) != 0) {
        m = float(pick(200) - 100) * 0.37f;
        l = 1.0f + float(pick(1000)) * 0.01f;
      } else if (style == 1) {
        m = -FLT_MAX;
        l = float(1 + pick(64));
      }
      maxSum[size_t(2 * (row * splits + s))] = m;
      maxSum[size_t(2 * (row * splits + s) + 1)] = l;
      most = std::max(most, double(m));
      for (int d = 0; d < headDim; ++d)
        partialO[size_t((row * splits + s) * headDim + d)] =
            l > 0 ? float(pick(2001) - 1000) * 1e-3f : 0.0f;
    }
    for (int d = 0; d < headDim; ++d) {
      double sum = 0, weights = 0;
      for (int s = 0; s < splits && most != -INFINITY; ++s) {
        const double m = maxSum[size_t(2 * (row * splits + s))];
        const double w = std::exp2(m - most) * maxSum[size_t(2 * (row * splits + s) + 1)];
        sum += w * partialO[size_t((row * splits + s) * headDim + d)];
        weights += w;
      }
      want[size_t(r * headDim + d)] = weights > 0 ? sum / weights : 0.0;
    }
  }
  const size_t outElems = size_t(2 * heads * lq * pitch);
  std::vector<float> outF(outElems, NAN);
  std::vector<uint16_t> outH(outElems, 0x7fff); // a NaN in f16 and bf16
  std::vector<int> counters(2 * heads * ((lq + 63) / 64), 0);
  AttentionParams p{};
  p.out = K == kF32 ? static_cast<void *>(outF.data()) : static_cast<void *>(outH.data());
  p.oStrideB = int64_t(heads) * lq * pitch;
  p.oStrideH = int64_t(lq) * pitch;
  p.oStrideL = pitch;
  p.batch = 2;
  p.heads = heads;
  p.lq = lq;
  p.headDim = headDim;
  p.kvSplits = splits;
  p.qTiles = qTiles;
  p.partialO = partialO.data();
  p.partialMaxSum = maxSum.data();
  p.splitCounters = counters.data();
  auto untouched = [&](size_t at) {
    return K == kF32 ? std::isnan(outF[at]) : outH[at] == 0x7fff;
  };
  for (int done = 0; done < splits; ++done) {
    // Block x runs split x % splits of group x / splits.
    tcc_attn_emulation::blockId() = group * splits + (done * 5 + 3) % splits;
    tcc_attn_emulation::runBlock([&](int) { mergeSplits<K, 64>(p); });
    const bool last = done == splits - 1;
    INFO("block " << done << " of " << splits << " splits, rows " << rowsHere << " from " << r0
                  << " of " << lq << ", head dim " << headDim);
    REQUIRE(counters[group] == (last ? 0 : done + 1));
    for (int g = 0; g < int(counters.size()); ++g)
      if (g != group)
        REQUIRE(counters[g] == 0);
    size_t written = 0;
    for (size_t at = 0; at < outElems; ++at)
      written += !untouched(at);
    if (!last) {
      REQUIRE(written == 0);
      continue;
    }
    REQUIRE(written == size_t(rowsHere * headDim));
    const double tol = K == kF32 ? 1e-5 : K == kF16 ? 1e-3 : 8e-3;
    for (int r = 0; r < rowsHere; ++r)
      for (int d = 0; d < headDim; ++d) {
        const size_t at = size_t(1 * p.oStrideB + 2 * p.oStrideH + (r0 + r) * pitch + d);
        const double w = want[size_t(r * headDim + d)];
        INFO("row " << r0 + r << " (style " << r % 3 << ") column " << d);
        CHECK(std::abs(outElem(outH, outF, K, at) - w) <= tol * std::max(1.0, std::abs(w)));
      }
  }
}

} // namespace

TEST_CASE("the split kernel's merge: the last block of a query tile", "[attention][emulation]") {
  mergeCase<kF32>(3, 1, 0, 1, 64);
  mergeCase<kF32>(16, 5, 0, 5, 128);
  mergeCase<kBf16>(16, 1, 0, 1, 64);
  mergeCase<kBf16>(7, 200, 128, 64, 40);
  mergeCase<kBf16>(7, 200, 192, 8, 40);
  mergeCase<kF16>(2, 70, 64, 6, 8);
  mergeCase<kF16>(64, 3, 0, 3, 96);
}
