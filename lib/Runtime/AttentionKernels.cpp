//===- AttentionKernels.cpp - tcc_attention: launching the attention kernels ===//
//
// Validates the call, picks one of the 48 kernels of Kernels/Attention.cu
// (arithmetic x head dim x vectorized/scalar; see that file for the design),
// fills its parameter struct (Kernels/AttentionParams.h) and enqueues it.
// Causal masks and masks are runtime flags of every kernel, not variants.
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
// Grid: one block of 128 threads per (64-query tile, head, batch), as one
// flat x dimension; dynamic shared memory per block (mirrors Config in
// Attention.cu):
//
//                  keys/tile  d16    d32    d64    d80    d96    d128
//   f16, bf16         64     15 KB  25 KB  45 KB  55 KB  65 KB   85 KB
//   tf32           64 / 32   28 KB  48 KB  88 KB  65 KB  77 KB  101 KB
//   f32            64 / 32   42 KB  62 KB 102 KB  72 KB  84 KB  108 KB
//
// (key tiles of 32 for f32/tf32 with D > 64.) The kernel checks the size
// it was given against its own layout and traps on a mismatch.
//
// The CUfunction of each variant is cached per thread and CUDA context, so
// a call after the first costs a few compares and cuLaunchKernel.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/AttentionKernels.h"

#include "Kernels/AttentionParams.h"
#include "tcc/Runtime/CudaDriver.h"
#include "tcc/Runtime/KernelLibrary.h"
#include "tcc/Runtime/MlirGpuRuntime.h"
#include "tcc/Runtime/RuntimeError.h"

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>

using namespace tcc;
using tcc_attn::AttentionParams;

namespace {

/// Kernel arithmetics, in the order of the kernel-name table.
enum Kind { kF16 = 0, kBf16 = 1, kTf32 = 2, kF32 = 3 };

constexpr int kThreads = 128;
constexpr int kBlockRows = 64;
/// Beyond this, tile arithmetic in int32 could overflow.
constexpr int64_t kMaxLength = int64_t(1) << 30;
constexpr float kLog2e = 1.4426950408889634f;

/// Head dims of the compiled kernels, ascending (TCC_ATTENTION_KERNELS in
/// Attention.cu); the order of the kernel-name table.
constexpr int kTileDims[] = {16, 32, 64, 80, 96, 128};
constexpr int kTileCount = 6;

/// The kernel that runs head dim `d` (a multiple of 8, <= 128): its own,
/// else the next power of 2 (only those take smaller head dims).
int tileIndex(int64_t d) {
  for (int i = 0;; ++i) {
    int tile = kTileDims[i];
    if (tile == d || (tile > d && (tile & (tile - 1)) == 0))
      return i;
  }
}

/// Bytes of dynamic shared memory of a variant (d: its compiled head dim):
/// Q (64 rows), two K and two V buffers (Bc rows), and for f32 four 16 x
/// (Bc + 4) P tiles. Row strides are padded as in Attention.cu's Config.
unsigned sharedBytes(Kind kind, int d) {
  bool half = kind == kF16 || kind == kBf16;
  int elem = half ? 2 : 4;
  int keys = (!half && d > 64) ? 32 : 64;
  int qStride = kind == kF32 ? d + 4 : d + 8;
  int vStride = half ? d + 8 : d + 4;
  int bytes = (kBlockRows * qStride + 2 * keys * qStride + 2 * keys * vStride) * elem;
  if (kind == kF32)
    bytes += 4 * 16 * (keys + 4) * 4;
  return static_cast<unsigned>(bytes);
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

/// This thread's kernels in the current context.
struct FunctionCache {
  cuda::CUcontext context = nullptr;
  cuda::CUfunction functions[4][kTileCount][2] = {};
};

/// The kernel of a variant in the current context; the first lookup in a
/// context also checks that its GPU can run the kernels at all (mma.sync,
/// ldmatrix and cp.async need compute capability 8.0). Throws RuntimeError.
cuda::CUfunction kernelFor(Kind kind, int tile, bool vec) {
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
  cuda::CUfunction &fn = cache.functions[kind][tile][vec];
  if (!fn)
    fn = kernelLibraryFunction(KernelImage::Attention, kKernelNames[kind][tile][vec]);
  return fn;
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
                              int64_t maskStrideQ, int64_t maskStrideK, int32_t causal,
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
    int64_t qTiles = (lq + kBlockRows - 1) / kBlockRows;
    if (batch * heads > INT32_MAX / qTiles)
      return fail("more than 2^31 blocks");

    Kind kind = dtype == kKernelF16    ? kF16
                : dtype == kKernelBF16 ? kBf16
                : math == kAttentionMathTf32 ? kTf32
                                             : kF32;
    int64_t elem = kernelDTypeBytes(dtype);
    // A query tensor of one row per (b, h) never steps by its L stride, etc.
    bool vec = vectorizable(q, elem, qStrideB, batch, qStrideH, heads, qStrideL, lq) &&
               vectorizable(k, elem, kStrideB, batch, kStrideH, kvHeads, kStrideL, lk) &&
               vectorizable(v, elem, vStrideB, batch, vStrideH, kvHeads, vStrideL, lk) &&
               vectorizable(out, elem, outStrideB, batch, outStrideH, heads, outStrideL, lq);

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
    if (maskKind != kAttentionMaskNone && lk > 0) {
      params.mask = mask;
      params.maskStrideB = maskStrideB;
      params.maskStrideH = maskStrideH;
      params.maskStrideQ = maskStrideQ;
      params.maskStrideK = maskStrideK;
    }
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

    int tile = tileIndex(headDim);
    cuda::CUfunction fn = kernelFor(kind, tile, vec);
    void *args[] = {&params};
    launchLibraryKernel(fn, kKernelNames[kind][tile][vec],
                        static_cast<unsigned>(qTiles * batch * heads), 1, 1, kThreads,
                        sharedBytes(kind, kTileDims[tile]), stream, args);
  } catch (const std::exception &e) {
    fail(e.what());
  } catch (...) {
    fail("unknown exception");
  }
}
