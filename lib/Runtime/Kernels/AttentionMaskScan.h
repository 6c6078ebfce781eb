//===- AttentionMaskScan.h - which key tiles a mask leaves visible --------===//
//
// A decoder with a static KV cache calls attention with one query row per
// sequence over the whole cache (2048 positions, say) and a mask that hides
// the positions not yet filled. Before its key loop, a block of
// Kernels/Attention.cu reads the mask rows of its queries once and narrows
// its key range to the tiles that hold a key any of its rows must see; key
// splits then divide that range (splitTiles), so the unfilled cache is
// never read. This header holds the rules, shared by the kernel (nvcc) and
// the unit tests (plain C++17), and the launcher's test of whether the
// scan is worth doing and how splits take part in it (AttentionKernels.cpp).
//
// Which keys may be left out, per query row:
//   - hidden keys: false in a bool mask, -inf in an additive one (their
//     p is 0 exactly, whatever the row holds);
//   - negligible keys, an additive value <= -1e30 (PyTorch's finfo.min
//     padding, -3.4e38 for f32 and bf16), but only where every row of the
//     block has an anchor, a key of additive value >= -1e20 (or a true
//     bool): then the row's running max is at least the anchor's score
//     and a negligible key's 2^(x - m) underflows to exactly 0 in fp32
//     (x - m < -1e30 · log2 e + any score difference below 1e29). A row
//     of only finfo.min keys is no such row: PyTorch's softmax averages
//     all of its keys, and so must the kernel (a block holding one reads
//     every key that is not hidden).
// Values in (-1e30, -1e20) and NaN are read as they are today (neither
// left out nor an anchor). f16 masks cannot hold -1e30: there only -inf
// keys are left out (f16's finfo.min, -65504, is read).
//
// The result is exact: a left-out tile adds 2^-inf = 0 (or an underflowed
// 0) to every sum in the unscanned kernel, and a split left without tiles
// writes m = -inf, l = 0, which the combine weighs 0.
//
// What the scan costs, and how splits meet it (MaskScanMode). A block's K
// and V loads wait for its scan: one round trip to the mask, the folding
// of its elements, and five barriers. With key splits every block of a
// query tile used to scan all lk keys of its rows (kMaskScanRows): a
// decode step of the ~1B LLaMA (32 heads x 16 splits, a 2048-key bf16
// cache) had 512 blocks each fold 2048 elements to run at most 2 of 32
// key tiles, and a fully visible cache, where nothing is left out, went
// from 18.5 to 23.0 us on the H100 (2026-12-07). Two changes:
//   - kMaskScanSplit: each split scans only its own keys (splitKeys of
//     them, 128 in that decode step: 16 threads with one 16-byte load) and
//     runs the tiles of its range that its rows must see; the tiles found
//     are no longer divided among the splits, so a split runs up to its
//     splitKeys / tile tiles where kMaskScanRows would run ceil(n /
//     splits). The launcher takes it where a split has at most
//     kMaskScanSplitMaxTiles tiles (the imbalance is then at most one
//     tile), kMaskScanRows otherwise (long splits: an 8k cache in 16 splits
//     of 8 tiles, half of it filled, runs 4 tiles per split instead of 8).
//     Skipping negligible keys needs an anchor in every row, which may lie
//     outside the split (past a cache's filled prefix there is none): the
//     block also reads key 0 of each row (a filled cache's first position),
//     and only where some row still has negligible keys and no anchor does
//     it read all lk keys of the rows again, for their anchors alone (left
//     padding, a row of only finfo.min). A split left out that way is
//     exact as above: the merge weighs its keys 2^(-FLT_MAX - max m) = 0
//     beside the anchor's split, as it did when the split read them.
//   - A 16-byte chunk of equal elements (a static cache's zeros, its -inf
//     or finfo.min padding, all true) is classified once, not per element.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_RUNTIME_KERNELS_ATTENTIONMASKSCAN_H
#define TCC_LIB_RUNTIME_KERNELS_ATTENTIONMASKSCAN_H

#include <cmath>
#include <cstdint>

#ifdef __CUDACC__
#define TCC_MASK_SCAN_FN __host__ __device__ __forceinline__
#else
#define TCC_MASK_SCAN_FN inline
#endif

namespace tcc_attn {

/// An additive value at or above this is an anchor (a finite score that a
/// negligible key can never come near).
constexpr float kMaskAnchorMin = -1e20f;
/// An additive value at or below this (finite) is negligible beside an
/// anchor; -inf is hidden.
constexpr float kMaskNegligibleMax = -1e30f;
/// The launcher scans only masks of at most this many elements per block
/// (its query rows x the keys), and keys of at least kMaskScanMinTiles
/// tiles: below that the scan costs more than it can save.
constexpr int64_t kMaskScanMaxElements = 32768;
constexpr int kMaskScanMinTiles = 4;

/// How the blocks of a split launch scan (AttentionParams::scanMask; file
/// comment). Unsplit blocks scan all lk keys in either mode.
enum MaskScanMode : int32_t {
  kMaskScanOff = 0,
  /// Every block scans all lk keys of its rows; the splits divide the
  /// tiles found, ceil(n / kvSplits) each.
  kMaskScanRows = 1,
  /// Each split scans its own splitKeys keys and runs the tiles of them
  /// its rows must see.
  kMaskScanSplit = 2,
};
/// The launcher's choice of kMaskScanSplit: splits of at most this many
/// key tiles.
constexpr int kMaskScanSplitMaxTiles = 2;

/// What one mask element says about its key, as bits.
enum MaskKeyBits : unsigned {
  /// The key must be read (not hidden, and not negligible either).
  kKeyNeeded = 1u,
  /// The key is not hidden (needed or negligible): a row without an anchor
  /// must read it.
  kKeyNotHidden = 2u,
  /// An anchor: a row that has one may leave its negligible keys out.
  kKeyAnchor = 4u,
  /// Negligible (finite, <= -1e30).
  kKeyNegligible = 8u,
};

/// The bits of an additive mask value (converted to float).
TCC_MASK_SCAN_FN unsigned additiveKeyBits(float x) {
  if (x == -INFINITY)
    return 0u;
  if (x >= kMaskAnchorMin) // +inf too (it makes the row NaN, as unscanned)
    return kKeyNeeded | kKeyNotHidden | kKeyAnchor;
  if (x <= kMaskNegligibleMax)
    return kKeyNotHidden | kKeyNegligible;
  return kKeyNeeded | kKeyNotHidden; // (-1e30, -1e20) or NaN: read as today
}

/// The bits of a bool mask byte.
TCC_MASK_SCAN_FN unsigned boolKeyBits(uint8_t b) {
  return b != 0 ? (kKeyNeeded | kKeyNotHidden | kKeyAnchor) : 0u;
}

/// Whether a row whose keys' bits OR to `rowBits` may leave its negligible
/// keys out: it has an anchor, or no negligible key at all.
TCC_MASK_SCAN_FN bool rowAllowsSkip(unsigned rowBits) {
  return (rowBits & kKeyAnchor) != 0 || (rowBits & kKeyNegligible) == 0;
}

/// The key tiles [*begin, *end) of `tile` keys each that a block reads,
/// from the first and last needed key over its rows (needLo > needHi: none)
/// and the first and last key that is not hidden (anyLo, anyHi), where
/// `allowSkip` says that every row of the block may leave its negligible
/// keys out. Empty (begin == end) when nothing is read.
TCC_MASK_SCAN_FN void visibleTiles(int needLo, int needHi, int anyLo, int anyHi, bool allowSkip,
                                   int tile, int *begin, int *end) {
  const int lo = allowSkip ? needLo : anyLo;
  const int hi = allowSkip ? needHi : anyHi;
  if (lo > hi) {
    *begin = *end = 0;
    return;
  }
  *begin = lo / tile;
  *end = hi / tile + 1;
}

/// Split `split` of `splits` of the tiles [begin, end): consecutive,
/// ceil(n / splits) tiles each, the last ones possibly empty (a split with
/// no tile writes a neutral partial).
TCC_MASK_SCAN_FN void splitTiles(int begin, int end, int splits, int split, int *splitBegin,
                                 int *splitEnd) {
  const int n = end - begin;
  const int per = (n + splits - 1) / splits;
  int b = begin + split * per;
  int e = b + per;
  b = b < end ? b : end;
  e = e < end ? e : end;
  *splitBegin = b;
  *splitEnd = e;
}

/// Whether the launcher asks the kernel to scan the mask (host side):
/// a bool or additive mask, no causal flag (causal blocks know their key
/// range), at least kMaskScanMinTiles key tiles of `tileKeys`, and at most
/// kMaskScanMaxElements mask elements per block (`rowsPerBlock` query
/// rows, 1 where the mask is broadcast over queries, times lk).
TCC_MASK_SCAN_FN bool maskScanWorthwhile(bool hasMask, bool causal, int64_t rowsPerBlock,
                                         int64_t lk, int tileKeys) {
  return hasMask && !causal && lk >= int64_t(kMaskScanMinTiles) * tileKeys &&
         rowsPerBlock * lk <= kMaskScanMaxElements;
}

/// The launcher's scan mode for a launch the scan is worth in: splits of
/// `splitKeys` keys scan their own keys where they hold at most
/// kMaskScanSplitMaxTiles tiles of `tileKeys`, else whole rows.
TCC_MASK_SCAN_FN int32_t maskScanMode(int64_t splits, int64_t splitKeys, int tileKeys) {
  return splits > 1 && splitKeys <= int64_t(kMaskScanSplitMaxTiles) * tileKeys ? kMaskScanSplit
                                                                                : kMaskScanRows;
}

} // namespace tcc_attn

#endif // TCC_LIB_RUNTIME_KERNELS_ATTENTIONMASKSCAN_H
