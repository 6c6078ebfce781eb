//===- AttentionKernels.cpp - tcc_attention: launching the attention kernels ===//
//
// Validates the call, picks one of the kernels of Kernels/Attention.cu
// (arithmetic x head dim x vectorized/scalar, and for f16/bf16 64 or 128
// query rows per block; see that file for the design), fills its
// parameter struct (Kernels/AttentionParams.h) and enqueues it. Causal
// masks and masks are runtime flags of every kernel, not variants.
//
// Head dims: kernels are compiled for D = 16, 32, 64, 80, 96 and 128; any
// other multiple of 8 up to 128 runs in the next power of 2, which reads
// its extra columns as zeros and does not write them, at that D's cost
// (40 runs as 64; 72 and 88 as 128: D = 80 and 96 take only themselves,
// see Config::kNarrowerHeads in Attention.cu).
//
// Arithmetic: f16 and bf16 run on tensor cores whatever `math` says; f32
// runs exact FFMA kernels (kAttentionMathF32) or TF32 mma.sync kernels
// (kAttentionMathTf32).
//
// Vectorized kernels (16-byte cp.async loads and 16-byte stores) need every
// base pointer and every stride, in bytes, to be a multiple of 16; a stride
// whose dimension has extent 1 is never used and does not count. Otherwise
// the scalar kernels, which need only element alignment, run.
//
// Rows per block: 64, or for vectorized f16/bf16 with D >= 64 on sm_90
// 128 (two mma row tiles per warp: half the shared-memory reads per mma)
// when the grid of 128-row blocks still fills two blocks per SM (long
// sequences; short ones keep the finer grid) and there is no mask. The 128-row kernels need
// 54-102 KB, which on sm_80 would leave one block per SM; they are
// compiled for sm_90 alone.
//
// Grid: one block of 128 threads per (query tile, head, batch), as one
// flat x dimension; dynamic shared memory per block (mirrors Config in
// Attention.cu):
//
//                  keys/tile  d16    d32    d64    d80    d96    d128
//   f16, bf16         64     15 KB  25 KB  45 KB  55 KB  65 KB   85 KB
//     128 rows        64                    54 KB  66 KB  78 KB  102 KB
//   tf32           64 / 32   17 KB  29 KB  53 KB  65 KB  77 KB  101 KB
//   f32            64 / 32   33 KB  45 KB  69 KB  73 KB  85 KB  109 KB
//
// (key tiles of 32 for f32/tf32 with D > 64; one K and one V buffer for
// f32/tf32 with D <= 64, two otherwise.) A mask adds its tiles: rows x (Bc
// mask elements + 16 bytes, 32 for fp32), one per K/V buffer (bool: 5 KB
// per 64 x 64 tile; bf16: 9 KB; fp32: 18 KB), or one only where two do not
// fit the GPU. The kernel checks the size it was given against its own
// layout and traps on a mismatch.
//
// Masks: every mask goes through shared memory in tiles, by 16-byte
// cp.async when its key stride is 1 and its base and other strides are
// multiples of 16 bytes (AttentionParams::maskAsync), else element by
// element.
//
// Split keys (flash-decoding). A grid of few blocks (decoding: one query
// row, batch x heads blocks) walks a long key range block by block while
// most SMs idle; the H100 ran a decode step's 16 blocks over 2048 cached
// keys in 68 us, 125 GB/s (split: 13 us, 2026-12-07). Where the unsplit grid has fewer blocks than
// two per SM, there is no causal mask and lk >= 256, the keys are split
// into up to 4 x SMs / blocks ranges of at least 128 keys (whole 64-key
// tiles): each block writes its rows' fp32 O, score maximum and sum to a
// workspace, and the last block of each query tile to finish merges them
// into out (a counter per query tile in the workspace; Attention.cu), so
// the result is the same softmax, rounded once, in one launch.
// tcc_attention_tune(kAttentionTuneCombine, 1) merges in a second kernel,
// tcc_attention_combine_*, instead (the design before, for comparison).
// On by default (TCC_ATTENTION_SPLIT_KEYS=0 turns it off);
// tcc_attention_tune(kAttentionTuneKvSplits, N) forces N splits, which
// scripts/kernel_checks/check_attention.py does (variant "keys in 3
// splits") and time_decode_attention.py times. The workspace is grown
// (never shrunk, never freed while the thread lives: a captured CUDA
// graph keeps its address) per thread and context on a shape's first
// call, its counters zeroed then on the call's stream (each launch leaves
// them zero); a call under graph capture that would need a larger one
// runs unsplit.
//
// Visible keys only. A static KV cache's mask hides the positions not yet
// filled; the launcher cannot read it (it is on the device, and the call
// may be captured into a graph), so it asks the kernel to: where a block's
// mask rows are at most 32768 elements and the keys at least 4 tiles, no
// causal flag (Kernels/AttentionMaskScan.h: maskScanWorthwhile), each block
// scans its rows of the mask and reads only the key tiles one of them must
// see. With key splits chosen above from lk, a split of at most 2 key tiles
// scans only its own keys and keeps to them; longer ones all lk keys, and
// the splits divide the tiles found (kMaskScanSplit / kMaskScanRows: the
// cost of each is in AttentionMaskScan.h). On the H100 a decode step at
// position 512 of a 2048-position cache read all 2048 keys under the mask
// (13-21 us against SDPA's 6.4-6.9). tcc_attention_tune(
// kAttentionTuneMaskScan, 1) turns it off, 2 forces it for every mask
// without causal (tests); kAttentionTuneScanRange picks the mode.
//
// Decode steps. A call of at most 8 query rows per key/value head (f16 or
// bf16, head dim 64 or 128, no causal flag) runs on the decode kernels
// instead (AttentionDecode.cpp): a block per key/value head and key split,
// not 64 query rows per query head.
//
// The CUfunction of each variant is cached per thread and CUDA context, so
// a call after the first costs a few compares and cuLaunchKernel. The
// first launch of a function asks for the most dynamic shared memory any
// of its launches will (launchLibraryKernel raises a function's limit once,
// to the size of that launch).
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/AttentionKernels.h"

#include "AttentionDecode.h"
#include "AttentionWorkspace.h"
#include "Kernels/AttentionMaskScan.h"
#include "Kernels/AttentionParams.h"
#include "tcc/Runtime/CudaDriver.h"
#include "tcc/Runtime/KernelLibrary.h"
#include "tcc/Runtime/MlirGpuRuntime.h"
#include "tcc/Runtime/RuntimeError.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

using namespace tcc;
using tcc_attn::AttentionParams;

namespace {

/// Kernel arithmetics, in the order of the kernel-name table.
enum Kind { kF16 = 0, kBf16 = 1, kTf32 = 2, kF32 = 3 };

constexpr int kThreads = 128;
/// Beyond this, tile arithmetic in int32 could overflow.
constexpr int64_t kMaxLength = int64_t(1) << 30;
constexpr float kLog2e = 1.4426950408889634f;
/// AttentionParams::rescaleThreshold unless tuned (Attention.cu's file
/// comment): p <= 2^8.
constexpr float kRescaleThreshold = 8.0f;

/// Head dims of the compiled kernels, ascending (TCC_ATTENTION_KERNELS in
/// Attention.cu); the order of the kernel-name table.
constexpr int kTileDims[] = {16, 32, 64, 80, 96, 128};
constexpr int kTileCount = 6;
/// The first tile index with a 128-row kernel (D = 64, 80, 96, 128).
constexpr int kRows128First = 2;

/// The kernel that runs head dim `d` (a multiple of 8, <= 128): its own,
/// else the next power of 2 (only those take smaller head dims).
int tileIndex(int64_t d) {
  for (int i = 0;; ++i) {
    int tile = kTileDims[i];
    if (tile == d || (tile > d && (tile & (tile - 1)) == 0))
      return i;
  }
}

/// The variant beside arithmetic, head dim and vectorization.
enum Shape { kRows64 = 0, kRows128 = 1, kTwoStages = 2 };

/// Bytes of dynamic shared memory of a variant (d: its compiled head dim)
/// with `maskBuffers` (0 to 2) mask tiles of `maskElemBytes` per key: Q (64
/// or 128 rows), K and V buffers (Bc rows; one of each for f32/tf32 with d
/// <= 64 unless kTwoStages, else two), for f32 four 16 x (Bc + 8) P tiles,
/// and rows x (Bc x maskElemBytes + 16, or + 32 for 4-byte elements) bytes
/// per mask tile. Row strides are padded as in Attention.cu's Config.
unsigned sharedBytes(Kind kind, int d, Shape shape, int maskBuffers, int maskElemBytes) {
  bool half = kind == kF16 || kind == kBf16;
  int elem = half ? 2 : 4;
  int rows = shape == kRows128 ? 128 : 64;
  int keys = (!half && d > 64) ? 32 : 64;
  int stages = (!half && d <= 64 && shape != kTwoStages) ? 1 : 2;
  int qStride = kind == kF32 ? d + 4 : d + 8;
  int vStride = half ? d + 8 : d + 4;
  int bytes = (rows * qStride + stages * keys * qStride + stages * keys * vStride) * elem;
  if (kind == kF32)
    bytes += 4 * 16 * (keys + 8) * 4;
  bytes += maskBuffers * rows * (keys * maskElemBytes + (maskElemBytes == 4 ? 32 : 16));
  return static_cast<unsigned>(bytes);
}

/// Mask tile buffers a variant can have: two in the double-buffered
/// kernels, one in the others.
int maxMaskBuffers(Kind kind, int d, Shape shape) {
  bool half = kind == kF16 || kind == kBf16;
  return (!half && d <= 64 && shape != kTwoStages) ? 1 : 2;
}

/// "tcc_attention_<kind>_d<D>[_vec]", indexed [kind][tile index][vec].
const char *const kKernelNames[4][kTileCount][2] = {
#define TCC_NAMES(kind)                                                                         \
  {{"tcc_attention_" #kind "_d16", "tcc_attention_" #kind "_d16_vec"},                          \
   {"tcc_attention_" #kind "_d32", "tcc_attention_" #kind "_d32_vec"},                          \
   {"tcc_attention_" #kind "_d64", "tcc_attention_" #kind "_d64_vec"},                          \
   {"tcc_attention_" #kind "_d80", "tcc_attention_" #kind "_d80_vec"},                          \
   {"tcc_attention_" #kind "_d96", "tcc_attention_" #kind "_d96_vec"},                          \
   {"tcc_attention_" #kind "_d128", "tcc_attention_" #kind "_d128_vec"}}
    TCC_NAMES(f16), TCC_NAMES(bf16), TCC_NAMES(tf32), TCC_NAMES(f32),
#undef TCC_NAMES
};
/// The 128-row kernels (vectorized), [f16/bf16][tile index - kRows128First].
const char *const kRows128Names[2][4] = {
    {"tcc_attention_f16_d64_rows128", "tcc_attention_f16_d80_rows128",
     "tcc_attention_f16_d96_rows128", "tcc_attention_f16_d128_rows128"},
    {"tcc_attention_bf16_d64_rows128", "tcc_attention_bf16_d80_rows128",
     "tcc_attention_bf16_d96_rows128", "tcc_attention_bf16_d128_rows128"}};
/// The double-buffered f32/tf32 D = 64 vectorized kernels, [tf32/f32].
const char *const kTwoStageNames[2] = {"tcc_attention_tf32_d64_vec_s2",
                                       "tcc_attention_f32_d64_vec_s2"};

/// One kernel of this thread in the current context: the function, and
/// whether a launch of it has asked for its largest shared-memory size yet.
struct CachedKernel {
  cuda::CUfunction function = nullptr;
  bool sized = false;
};

/// This thread's kernels in the current context.
struct FunctionCache {
  cuda::CUcontext context = nullptr;
  CachedKernel kernels[4][kTileCount][2] = {};
  CachedKernel rows128[2][4] = {};
  CachedKernel twoStages[2] = {};
  CachedKernel combine[3] = {}; ///< f16, bf16, f32 (also tf32)
};

/// "tcc_attention_combine_<f16|bf16|f32>", indexed as FunctionCache::combine.
const char *const kCombineNames[3] = {"tcc_attention_combine_f16", "tcc_attention_combine_bf16",
                                      "tcc_attention_combine_f32"};

/// The kernel of a variant in the current context (its name in `name`); the
/// first lookup in a context also checks that its GPU can run the kernels
/// at all (mma.sync, ldmatrix and cp.async need compute capability 8.0).
/// Throws RuntimeError.
CachedKernel &kernelFor(Kind kind, int tile, bool vec, Shape shape, const char *&name,
                        bool combine = false) {
  thread_local FunctionCache cache;
  cuda::CUcontext ctx = cuda::ensureContext();
  if (ctx != cache.context) {
    int cc = currentComputeCapability();
    if (cc != 0 && cc < 80)
      throw RuntimeError(TCC_ERROR_UNSUPPORTED,
                         "needs a GPU of compute capability 8.0 or newer (this one is " +
                             std::to_string(cc / 10) + "." + std::to_string(cc % 10) + ")");
    cache = FunctionCache();
    cache.context = ctx;
  }
  CachedKernel *k;
  if (combine) {
    int i = kind == kF16 ? 0 : kind == kBf16 ? 1 : 2;
    k = &cache.combine[i];
    name = kCombineNames[i];
  } else if (shape == kRows128) {
    k = &cache.rows128[kind][tile - kRows128First];
    name = kRows128Names[kind][tile - kRows128First];
  } else if (shape == kTwoStages) {
    k = &cache.twoStages[kind == kF32];
    name = kTwoStageNames[kind == kF32];
  } else {
    k = &cache.kernels[kind][tile][vec];
    name = kKernelNames[kind][tile][vec];
  }
  if (!k->function)
    k->function = kernelLibraryFunction(KernelImage::Attention, name);
  return *k;
}

/// Whether a tensor can be read (or written) with 16-byte vectors: base and
/// each stride whose extent exceeds 1, in bytes, are multiples of 16.
bool vectorizable(const void *base, int64_t elemBytes, int64_t strideB, int64_t extentB,
                  int64_t strideH, int64_t extentH, int64_t strideL, int64_t extentL) {
  auto ok = [&](int64_t stride, int64_t extent) {
    return extent <= 1 || (stride * elemBytes) % 16 == 0;
  };
  return reinterpret_cast<uintptr_t>(base) % 16 == 0 && ok(strideB, extentB) &&
         ok(strideH, extentH) && ok(strideL, extentL);
}

/// The most dynamic shared memory a block may have on a GPU of compute
/// capability `cc` (the opt-in limit): 227 KB on sm_90/sm_100, 163 KB on
/// sm_80/sm_87, 99 KB on the others (sm_86, sm_89, sm_120).
unsigned sharedLimit(int cc) {
  if (cc == 90 || cc == 100 || cc == 103)
    return 227 * 1024;
  if (cc == 80 || cc == 87)
    return 163 * 1024;
  return 99 * 1024;
}

/// Whether the launcher splits keys on its own (file comment):
/// TCC_ATTENTION_SPLIT_KEYS=0 in the environment turns it off (a
/// comparison against the unsplit path), read once per process.
bool autoSplitKeys() {
  static const bool on = [] {
    const char *env = std::getenv("TCC_ATTENTION_SPLIT_KEYS");
    return !(env && env[0] == '0' && env[1] == '\0');
  }();
  return on;
}

/// Benchmarking overrides (tcc_attention_tune).
std::atomic<int32_t> gTuning[kAttentionTuneCount];

std::string shapeText(int32_t dtype, int64_t batch, int64_t heads, int64_t kvHeads, int64_t lq,
                      int64_t lk, int64_t headDim, int64_t valueDim) {
  const char *type = dtype == kKernelF32 ? "f32" : dtype == kKernelF16 ? "f16"
                     : dtype == kKernelBF16 ? "bf16" : "?";
  return std::string(type) + " [b " + std::to_string(batch) + ", heads " +
         std::to_string(heads) + " (kv " + std::to_string(kvHeads) + "), lq " +
         std::to_string(lq) + ", lk " + std::to_string(lk) + ", d " + std::to_string(headDim) +
         (valueDim != headDim ? "/" + std::to_string(valueDim) : "") + "]";
}

} // namespace

extern "C" void tcc_attention(int32_t dtype, int32_t math, int64_t batch, int64_t heads,
                              int64_t kvHeads, int64_t lq, int64_t lk, int64_t headDim,
                              int64_t valueDim, const void *q, int64_t qStrideB, int64_t qStrideH,
                              int64_t qStrideL, const void *k, int64_t kStrideB, int64_t kStrideH,
                              int64_t kStrideL, const void *v, int64_t vStrideB, int64_t vStrideH,
                              int64_t vStrideL, void *out, int64_t outStrideB,
                              int64_t outStrideH, int64_t outStrideL, const void *mask,
                              int32_t maskKind, int64_t maskStrideB, int64_t maskStrideH,
                              int64_t maskStrideQ, int64_t maskStrideK,
                              int64_t maskBatchPeriod, int64_t maskStrideOuter, int32_t causal,
                              float scale, void *stream) {
  // An earlier failure of this call: it is reported once, when it returns.
  if (hasKernelLaunchError())
    return;
  auto fail = [&](const std::string &why) {
    recordKernelLaunchError("tcc_attention " +
                            shapeText(dtype, batch, heads, kvHeads, lq, lk, headDim, valueDim) +
                            ": " + why);
  };
  try {
    if (dtype != kKernelF32 && dtype != kKernelF16 && dtype != kKernelBF16)
      return fail("unknown dtype code " + std::to_string(dtype));
    if (math != kAttentionMathF32 && math != kAttentionMathTf32)
      return fail("unknown math code " + std::to_string(math));
    if (maskKind != kAttentionMaskNone && maskKind != kAttentionMaskBool &&
        maskKind != kAttentionMaskAdditive)
      return fail("unknown mask kind " + std::to_string(maskKind));
    if (batch < 0 || heads < 0 || kvHeads < 0 || lq < 0 || lk < 0)
      return fail("negative size");
    if (maskBatchPeriod < 0 || (maskBatchPeriod > 0 && batch % maskBatchPeriod != 0))
      return fail("the mask's batch period " + std::to_string(maskBatchPeriod) +
                  " does not divide the batch");
    if (!tcc::attentionKernelSupports(headDim, valueDim))
      return fail("unsupported head dims (the kernels take multiples of 8 up to 128, the same "
                  "for q/k and v)");
    if (kvHeads == 0 ? heads != 0 : heads % kvHeads != 0)
      return fail("the key/value heads do not divide the query heads");
    if (lq >= kMaxLength || lk >= kMaxLength)
      return fail("sequence longer than 2^30");
    if (batch > INT32_MAX || heads > INT32_MAX)
      return fail("more than 2^31 batches or heads");
    if (batch == 0 || heads == 0 || lq == 0)
      return; // nothing to write
    // lk == 0 still runs: every query sees no key and gets 0 (k, v and the
    // mask are not read then, and may be null like an empty tensor's data).
    if (!q || !out || (lk > 0 && (!k || !v)))
      return fail("null tensor pointer");
    if (maskKind != kAttentionMaskNone && !mask && lk > 0)
      return fail("null mask pointer");
    if (batch * heads > INT32_MAX / ((lq + 63) / 64))
      return fail("more than 2^31 blocks");

    Kind kind = dtype == kKernelF16    ? kF16
                : dtype == kKernelBF16 ? kBf16
                : math == kAttentionMathTf32 ? kTf32
                                             : kF32;
    const bool half = kind == kF16 || kind == kBf16;
    int64_t elem = kernelDTypeBytes(dtype);
    // A query tensor of one row per (b, h) never steps by its L stride, etc.
    bool vec = vectorizable(q, elem, qStrideB, batch, qStrideH, heads, qStrideL, lq) &&
               vectorizable(k, elem, kStrideB, batch, kStrideH, kvHeads, kStrideL, lk) &&
               vectorizable(v, elem, vStrideB, batch, vStrideH, kvHeads, vStrideL, lk) &&
               vectorizable(out, elem, outStrideB, batch, outStrideH, heads, outStrideL, lq);
    // A few query rows per key/value head (a decode step): the decode
    // kernels (AttentionDecode.cpp), where they take the call.
    const AttentionCall call{dtype,       batch,       heads,       kvHeads,         lq,
                             lk,          headDim,     valueDim,    q,               k,
                             v,           out,         qStrideB,    qStrideH,        qStrideL,
                             kStrideB,    kStrideH,    kStrideL,    vStrideB,        vStrideH,
                             vStrideL,    outStrideB,  outStrideH,  outStrideL,      mask,
                             maskKind,    maskStrideB, maskStrideH, maskStrideQ,     maskStrideK,
                             maskBatchPeriod, maskStrideOuter, causal != 0, scale, vec};
    if (decodeAttentionTakes(call, gTuning[kAttentionTuneDecode].load(std::memory_order_relaxed))) {
      int32_t splitsTune = gTuning[kAttentionTuneKvSplits].load(std::memory_order_relaxed);
      if (splitsTune == 0 && !autoSplitKeys())
        splitsTune = 1;
      launchDecodeAttention(call, splitsTune, stream);
      return;
    }
    const int tile = tileIndex(headDim);
    const int d = kTileDims[tile];
    const int cc = currentComputeCapability();
    const unsigned limit = sharedLimit(cc);

    const bool hasMask = maskKind != kAttentionMaskNone && lk > 0;
    // 128 query rows per block where the grid of them still fills two
    // blocks per SM (file comment) and there is no mask: a mask's tiles
    // double with the rows, and on the H100 the 64-row kernel ran masked
    // b2 h16 s2048 d128 bf16 in 423 us against the 128-row's 669 us. A
    // tuning override forces either.
    Shape shape = kRows64;
    const int32_t rowsTune = gTuning[kAttentionTuneRows].load(std::memory_order_relaxed);
    // (sm_90 machine code only: the launcher picks them on 9.0 alone.)
    if (half && vec && tile >= kRows128First && cc == 90 && rowsTune != 64) {
      int sms = currentMultiprocessorCount();
      int64_t blocks128 = (lq + 127) / 128 * batch * heads;
      if (rowsTune == 128 || (!hasMask && blocks128 >= 2 * int64_t(sms > 0 ? sms : 132)))
        shape = kRows128;
    }
    if (!half && vec && d == 64 && cc == 90 &&
        gTuning[kAttentionTuneStages].load(std::memory_order_relaxed) == 2)
      shape = kTwoStages;
    const int blockRows = shape == kRows128 ? 128 : 64;
    const int64_t qTiles = (lq + blockRows - 1) / blockRows;

    // Mask tiles: by cp.async where the key stride is 1 (or there is one
    // key) and the base and the other strides (where they step) are
    // multiples of 16 bytes; two buffers where the kernel has them and they
    // fit (else one: the next tile's mask is then not prefetched).
    const int maskElem = maskKind == kAttentionMaskBool ? 1 : int(elem);
    bool maskAsync = false;
    int maskBuffers = 0;
    if (hasMask) {
      auto ok = [&](int64_t stride, int64_t extent) {
        return extent <= 1 || (stride * maskElem) % 16 == 0;
      };
      maskAsync = gTuning[kAttentionTuneMaskTiles].load(std::memory_order_relaxed) == 0 &&
                  (maskStrideK == 1 || lk == 1) && reinterpret_cast<uintptr_t>(mask) % 16 == 0 &&
                  ok(maskStrideB, batch) && ok(maskStrideOuter, batch) && ok(maskStrideH, heads) &&
                  ok(maskStrideQ, lq);
      maskBuffers = maxMaskBuffers(kind, d, shape);
      if (gTuning[kAttentionTuneMaskBuffers].load(std::memory_order_relaxed) == 1 ||
          sharedBytes(kind, d, shape, maskBuffers, maskElem) > limit)
        maskBuffers = 1;
    }

    AttentionParams params{};
    params.q = q;
    params.k = k;
    params.v = v;
    params.out = out;
    params.qStrideB = qStrideB;
    params.qStrideH = qStrideH;
    params.qStrideL = qStrideL;
    params.kStrideB = kStrideB;
    params.kStrideH = kStrideH;
    params.kStrideL = kStrideL;
    params.vStrideB = vStrideB;
    params.vStrideH = vStrideH;
    params.vStrideL = vStrideL;
    params.oStrideB = outStrideB;
    params.oStrideH = outStrideH;
    params.oStrideL = outStrideL;
    if (hasMask) {
      params.mask = mask;
      params.maskStrideB = maskStrideB;
      params.maskStrideH = maskStrideH;
      params.maskStrideQ = maskStrideQ;
      params.maskStrideK = maskStrideK;
      if (maskBatchPeriod > 0)
        params.maskStrideOuter = maskStrideOuter;
    }
    // Period 0: the mask's batch dim is the batch (b % batch = b, b / batch = 0).
    params.maskBatchPeriod = static_cast<int32_t>(hasMask && maskBatchPeriod > 0 ? maskBatchPeriod : batch);
    params.batch = static_cast<int32_t>(batch);
    params.heads = static_cast<int32_t>(heads);
    params.lq = static_cast<int32_t>(lq);
    params.lk = static_cast<int32_t>(lk);
    params.headsPerKv = static_cast<int32_t>(heads / kvHeads);
    params.qTiles = static_cast<int32_t>(qTiles);
    params.maskKind = lk > 0 ? maskKind : kAttentionMaskNone;
    params.causal = causal != 0;
    params.scaleLog2 = scale * kLog2e;
    params.headDim = static_cast<int32_t>(headDim);

    params.maskAsync = maskAsync;
    params.maskBuffers = maskBuffers;
    const int32_t rescaleTune = gTuning[kAttentionTuneRescale].load(std::memory_order_relaxed);
    params.rescaleThreshold = rescaleTune == 1 ? -1.0f : kRescaleThreshold;

    const char *name = nullptr;
    CachedKernel &kernel = kernelFor(kind, tile, vec, shape, name);
    unsigned smem = sharedBytes(kind, d, shape, maskBuffers, maskElem);
    if (!kernel.sized) {
      // launchLibraryKernel raises the function's limit once, to this
      // launch's size: ask for the most any launch of it will need (the
      // largest mask tiles that fit).
      int buffers = maxMaskBuffers(kind, d, shape);
      int widest = half ? 2 : 4;
      unsigned most = sharedBytes(kind, d, shape, buffers, widest);
      if (most > limit)
        most = sharedBytes(kind, d, shape, 1, widest);
      if (most > limit)
        most = sharedBytes(kind, d, shape, 0, widest);
      smem = most > smem ? most : smem;
    }
    // Split keys where the grid leaves SMs idle (file comment).
    const int64_t blocks = qTiles * batch * heads;
    int64_t splits = 1, splitKeys = lk;
    const int32_t splitsTune = gTuning[kAttentionTuneKvSplits].load(std::memory_order_relaxed);
    if (!causal && splitsTune != 1) {
      int sms = currentMultiprocessorCount();
      sms = sms > 0 ? sms : 132;
      int64_t want = 1;
      if (splitsTune >= 2)
        want = std::min<int64_t>(splitsTune, (lk + 63) / 64);
      else if (autoSplitKeys() && blocks < 2 * int64_t(sms) && lk >= 256)
        want = std::min<int64_t>((4 * int64_t(sms) + blocks - 1) / blocks, lk / 128);
      want = std::min<int64_t>(want, 64);
      if (blocks * want > INT32_MAX)
        want = 1;
      if (want >= 2) {
        splitKeys = ((lk + want - 1) / want + 63) / 64 * 64;
        splits = (lk + splitKeys - 1) / splitKeys;
      }
    }
    // Only the key tiles the mask leaves visible (Kernels/AttentionMaskScan.h):
    // each block scans its rows of the mask first where that is cheap beside
    // the key loop (a decode step's one row over a static cache). The splits
    // above then divide the visible tiles.
    const int32_t scanTune = gTuning[kAttentionTuneMaskScan].load(std::memory_order_relaxed);
    const int64_t scanRows = maskStrideQ == 0 ? 1 : std::min<int64_t>(lq, blockRows);
    const int tileKeys = (!half && d > 64) ? 32 : 64;
    const bool scan =
        scanTune == 1 ? false
        : scanTune == 2
            ? (hasMask && !causal)
            : tcc_attn::maskScanWorthwhile(hasMask, causal != 0, scanRows, lk, tileKeys);
    // With splits: each scans its own keys where they are few, else every
    // block scans all of them and the splits divide what it finds.
    const int32_t rangeTune = gTuning[kAttentionTuneScanRange].load(std::memory_order_relaxed);
    params.scanMask = !scan            ? tcc_attn::kMaskScanOff
                      : rangeTune == 1 ? tcc_attn::kMaskScanRows
                      : rangeTune == 2 ? tcc_attn::kMaskScanSplit
                                       : tcc_attn::maskScanMode(splits, splitKeys, tileKeys);
    SplitSpace space;
    const int64_t rows = batch * heads * lq;
    if (splits >= 2) {
      size_t bytes = size_t(rows * splits) * size_t(headDim + 2) * sizeof(float);
      space = splitWorkspace(stream, bytes, blocks);
      if (!space.partials)
        splits = 1;
    }
    // The splits merge in the split kernel (its last block of each query
    // tile) unless tuned to merge in a second kernel.
    const bool separateCombine =
        splits >= 2 && gTuning[kAttentionTuneCombine].load(std::memory_order_relaxed) == 1;
    if (splits >= 2) {
      params.kvSplits = static_cast<int32_t>(splits);
      params.splitKeys = static_cast<int32_t>(splitKeys);
      params.partialO = space.partials;
      params.partialMaxSum = params.partialO + rows * splits * headDim;
      params.splitCounters = separateCombine ? nullptr : space.counters;
    } else {
      params.kvSplits = 1;
      params.splitKeys = static_cast<int32_t>(lk);
    }
    void *args[] = {&params};
    launchLibraryKernel(kernel.function, name, static_cast<unsigned>(blocks * splits), 1, 1,
                        kThreads, smem, stream, args);
    kernel.sized = true;
    if (separateCombine) {
      tcc_attn::AttentionCombineParams combine{};
      combine.partialO = params.partialO;
      combine.partialMaxSum = params.partialMaxSum;
      combine.out = out;
      combine.oStrideB = outStrideB;
      combine.oStrideH = outStrideH;
      combine.oStrideL = outStrideL;
      combine.heads = static_cast<int32_t>(heads);
      combine.lq = static_cast<int32_t>(lq);
      combine.kvSplits = static_cast<int32_t>(splits);
      combine.headDim = static_cast<int32_t>(headDim);
      const char *combineName = nullptr;
      CachedKernel &merge = kernelFor(kind, tile, vec, shape, combineName, /*combine=*/true);
      void *combineArgs[] = {&combine};
      launchLibraryKernel(merge.function, combineName, static_cast<unsigned>(rows), 1, 1, 64, 0,
                          stream, combineArgs);
    }
  } catch (const std::exception &e) {
    fail(e.what());
  } catch (...) {
    fail("unknown exception");
  }
}

extern "C" int32_t tcc_attention_tune(int32_t knob, int32_t value) {
  if (knob < 0 || knob >= kAttentionTuneCount)
    return -1;
  return gTuning[knob].exchange(value);
}
