//===- RowKernels.cpp - tcc_row: softmax and normalizations by rows -------===//
//
// Validates a call of tcc_row (RowKernels.h), picks one kernel of
// Kernels/Rows.cu and launches it with a RowParams struct, by value, as its
// single argument. The choice (see Rows.cu's file comment for the kernels):
//
//   width   "vec" when n is a multiple of a chunk (16 bytes of input: V = 4
//           fp32 or 8 16-bit elements) and every base pointer and row stride
//           is aligned to 16 bytes (out, weight and bias: to one chunk of
//           their own type, at most 16 bytes); "scalar" otherwise.
//   shape   by chunks per row C = ceil(n / V): a warp kernel while a warp
//           holds the row in registers (C ≤ 8, 16, 32 lanes of one chunk,
//           then 32 lanes of 2, 4 and, for fp32, 8 chunks: n ≤ 1024 either
//           way); else a block kernel of T threads with S chunks each,
//           preferring T ≤ 256, then ≤ 512, then ≤ 1024, each time the
//           fewest chunks per thread (n ≤ 16384); else the two-pass long
//           kernel on one block per SM.
//
// Nothing here allocates on a repeated call: kernel names are built once and
// their functions cached per thread and context.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/RowKernels.h"

#include "Kernels/RowParams.h"

#include "tcc/Runtime/CudaDriver.h"
#include "tcc/Runtime/KernelLibrary.h"
#include "tcc/Runtime/MlirGpuRuntime.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

using namespace tcc;

namespace {

using tcc_rows::RowParams; // Kernels/RowParams.h, shared with Rows.cu

/// The longest row tcc_row takes: the kernels index a row with int.
constexpr int64_t kMaxN = int64_t(1) << 30;
/// The most blocks one launch gets (gridDim.x may be 2^31 - 1; the kernels
/// compute on unsigned block indices times rows per block in 64 bits).
constexpr int64_t kMaxGrid = int64_t(1) << 30;
/// Threads of a warp kernel's block (kWarpBlock in Rows.cu).
constexpr int kWarpBlock = 128;
/// Threads of a long kernel's block (kLongBlock in Rows.cu).
constexpr int kLongBlock = 1024;

std::string kindName(int32_t kind) {
  switch (kind) {
  case kRowSoftmax: return "softmax";
  case kRowLogSoftmax: return "log_softmax";
  case kRowLayerNorm: return "layer_norm";
  case kRowRmsNorm: return "rms_norm";
  default: return "kind " + std::to_string(kind);
  }
}

bool knownDType(int32_t dtype) {
  return dtype == kKernelF32 || dtype == kKernelF16 || dtype == kKernelBF16;
}

/// The type's name in kernel names: f32, f16 or bf16.
std::string dtypeName(int32_t dtype) {
  switch (dtype) {
  case kKernelF32: return "f32";
  case kKernelF16: return "f16";
  case kKernelBF16: return "bf16";
  default: return "dtype " + std::to_string(dtype);
  }
}

//===----------------------------------------------------------------------===//
// The kernels by name
//===----------------------------------------------------------------------===//

/// The variants, in the order of kVariantNames.
enum Variant : int {
  kL8S1,
  kL16S1,
  kL32S1,
  kL32S2,
  kL32S4,
  kL32S8,
  kB1,
  kB2,
  kB4,
  kB8,
  kLong,
  kNumVariants
};
constexpr const char *kVariantNames[kNumVariants] = {"l8s1", "l16s1", "l32s1", "l32s2",
                                                     "l32s4", "l32s8", "b1",    "b2",
                                                     "b4",    "b8",    "long"};
constexpr int kNumKernels = 2 * 3 * kNumVariants * 2;

/// Index of tcc_row_<family>_<in type>_<variant>_<vec|scalar>.
int kernelIndex(bool norm, int32_t inDType, int variant, bool vec) {
  return ((int(norm) * 3 + inDType) * kNumVariants + variant) * 2 + int(vec);
}

const std::string &kernelName(int index) {
  static const std::array<std::string, kNumKernels> names = [] {
    std::array<std::string, kNumKernels> all;
    for (int norm = 0; norm < 2; ++norm)
      for (int32_t dtype = 0; dtype < 3; ++dtype)
        for (int variant = 0; variant < kNumVariants; ++variant)
          for (int vec = 0; vec < 2; ++vec)
            all[kernelIndex(norm, dtype, variant, vec)] =
                std::string("tcc_row_") + (norm ? "norm_" : "softmax_") + dtypeName(dtype) + "_" +
                kVariantNames[variant] + (vec ? "_vec" : "_scalar");
    return all;
  }();
  return names[index];
}

/// The kernel's function in the current context, cached per thread.
cuda::CUfunction kernelFunction(int index) {
  struct Cached {
    cuda::CUcontext context = nullptr;
    cuda::CUfunction function = nullptr;
  };
  thread_local std::array<Cached, kNumKernels> cache;
  cuda::CUcontext context = cuda::ensureContext();
  Cached &c = cache[index];
  if (c.context != context || !c.function) {
    c.function = kernelLibraryFunction(KernelImage::Rows, kernelName(index).c_str());
    c.context = context;
  }
  return c.function;
}

//===----------------------------------------------------------------------===//
// The choice of kernel
//===----------------------------------------------------------------------===//

struct Choice {
  int variant;
  int threads;      ///< per block
  int rowsPerBlock; ///< warp kernels: 128 / lanes; else 1
};

Choice choose(int64_t n, int32_t inDType, bool vec) {
  const bool f32 = inDType == kKernelF32;
  const int64_t v = 16 / kernelDTypeBytes(inDType);
  const int64_t chunks = (n + v - 1) / v;
  // A warp holds the row: lanes × slots chunks.
  if (chunks <= 8)
    return {kL8S1, kWarpBlock, kWarpBlock / 8};
  if (chunks <= 16)
    return {kL16S1, kWarpBlock, kWarpBlock / 16};
  if (chunks <= 32)
    return {kL32S1, kWarpBlock, kWarpBlock / 32};
  if (chunks <= 64)
    return {kL32S2, kWarpBlock, kWarpBlock / 32};
  if (chunks <= 128)
    return {kL32S4, kWarpBlock, kWarpBlock / 32};
  if (f32 && chunks <= 256)
    return {kL32S8, kWarpBlock, kWarpBlock / 32};
  // A block holds the row: the chunks per thread Rows.cu instantiates for
  // this type and width, with the most threads each takes (32 values per
  // thread need the registers of ≤ 512 threads). fp32 starts at 2 chunks: 1
  // would only be picked where 2 fit in ≤ 256 threads.
  struct Slots {
    int slots, maxThreads;
  };
  static constexpr Slots kF32Vec[] = {{2, 1024}, {4, 1024}, {8, 512}};
  static constexpr Slots kF32Scalar[] = {{2, 1024}, {4, 1024}};
  static constexpr Slots kHalfVec[] = {{1, 1024}, {2, 1024}, {4, 512}};
  static constexpr Slots kHalfScalar[] = {{1, 1024}, {2, 1024}};
  const Slots *options = f32 ? (vec ? kF32Vec : kF32Scalar) : (vec ? kHalfVec : kHalfScalar);
  const int count = vec ? 3 : 2;
  for (int limit : {256, 512, 1024})
    for (int i = 0; i < count; ++i) {
      const int s = options[i].slots;
      const int64_t threads = ((chunks + s - 1) / s + 31) / 32 * 32;
      if (threads <= std::min(limit, options[i].maxThreads)) {
        const int variant = s == 1 ? kB1 : s == 2 ? kB2 : s == 4 ? kB4 : kB8;
        return {variant, int(threads), 1};
      }
    }
  return {kLong, kLongBlock, 1};
}

/// Whether p and every row p + i·stride (elements of `bytes`) are aligned to
/// `alignment` bytes.
bool aligned(const void *p, int64_t stride, int64_t bytes, int64_t rows, int64_t alignment) {
  if (reinterpret_cast<uintptr_t>(p) % uintptr_t(alignment) != 0)
    return false;
  return rows <= 1 || (stride * bytes) % alignment == 0;
}

void run(int32_t kind, int32_t inDType, int32_t outDType, int32_t paramDType, int64_t rows,
         int64_t n, const void *x, int64_t xStride, const void *residual, int64_t residualStride,
         void *sumOut, int64_t sumStride, const void *weight, const void *bias, float eps,
         void *out, int64_t outStride, void *stream) {
  const bool norm = kind == kRowLayerNorm || kind == kRowRmsNorm;
  if (!norm && (weight || bias))
    throw std::runtime_error("softmax takes no weight or bias");
  if (kind == kRowRmsNorm && bias)
    throw std::runtime_error("rms_norm takes no bias");
  if ((weight || bias) && !knownDType(paramDType))
    throw std::runtime_error("unknown parameter dtype " + std::to_string(paramDType));
  if (!x || !out)
    throw std::runtime_error("null x or out");
  if (n > kMaxN)
    throw std::runtime_error("rows longer than 2^30 elements are not supported");
  // Rows written in parallel must not overlap (inputs may: a stride of 0
  // broadcasts one row).
  if (rows > 1 && (std::abs(outStride) < n || (sumOut && std::abs(sumStride) < n)))
    throw std::runtime_error("rows of out or sumOut overlap (stride " + std::to_string(outStride) +
                             ", sumOut stride " + std::to_string(sumStride) + ")");
  if (!weight && !bias)
    paramDType = kKernelF32; // unused: any known type

  const int64_t inBytes = kernelDTypeBytes(inDType), outBytes = kernelDTypeBytes(outDType),
                paramBytes = kernelDTypeBytes(paramDType);
  const int64_t v = 16 / inBytes;
  const int64_t outAlign = std::min<int64_t>(16, v * outBytes),
                paramAlign = std::min<int64_t>(16, v * paramBytes);
  const bool vec = n % v == 0 && aligned(x, xStride, inBytes, rows, 16) &&
                   (!residual || aligned(residual, residualStride, inBytes, rows, 16)) &&
                   (!sumOut || aligned(sumOut, sumStride, inBytes, rows, 16)) &&
                   aligned(out, outStride, outBytes, rows, outAlign) &&
                   (!weight || aligned(weight, 0, paramBytes, 1, paramAlign)) &&
                   (!bias || aligned(bias, 0, paramBytes, 1, paramAlign));

  const Choice choice = choose(n, inDType, vec);
  const int index = kernelIndex(norm, inDType, choice.variant, vec);
  cuda::CUfunction function = kernelFunction(index);
  const char *name = kernelName(index).c_str();

  RowParams p{};
  p.x = x;
  p.residual = residual;
  p.sumOut = sumOut;
  p.weight = weight;
  p.bias = bias;
  p.out = out;
  p.xStride = xStride;
  p.residualStride = residualStride;
  p.sumStride = sumStride;
  p.outStride = outStride;
  p.n = static_cast<int32_t>(n);
  p.kind = kind;
  p.outDType = outDType;
  p.paramDType = paramDType;
  p.eps = eps;
  p.invN = static_cast<float>(1.0 / static_cast<double>(n));
  void *args[] = {&p};

  if (choice.variant == kLong) {
    // One block per SM, each looping over rows: the rows in flight then
    // mostly stay in L2 between the two passes.
    const int sms = currentMultiprocessorCount();
    p.rows = rows;
    const int64_t blocks = std::min<int64_t>(rows, sms > 0 ? sms : 1024);
    launchLibraryKernel(function, name, static_cast<unsigned>(blocks), 1, 1, kLongBlock, 0, stream,
                        args);
    return;
  }
  // One block per row group, no loop in the kernel: split launches that
  // would pass the grid limit, moving the base pointers on.
  const int64_t perLaunch = kMaxGrid * choice.rowsPerBlock;
  for (int64_t first = 0; first < rows; first += perLaunch) {
    const int64_t count = std::min(perLaunch, rows - first);
    auto advance = [&](const void *base, int64_t stride, int64_t bytes) -> const void * {
      return base ? static_cast<const char *>(base) + first * stride * bytes : nullptr;
    };
    p.x = advance(x, xStride, inBytes);
    p.residual = advance(residual, residualStride, inBytes);
    p.sumOut = const_cast<void *>(advance(sumOut, sumStride, inBytes));
    p.out = const_cast<void *>(advance(out, outStride, outBytes));
    p.rows = count;
    const int64_t blocks = (count + choice.rowsPerBlock - 1) / choice.rowsPerBlock;
    launchLibraryKernel(function, name, static_cast<unsigned>(blocks), 1, 1,
                        static_cast<unsigned>(choice.threads), 0, stream, args);
  }
}

} // namespace

extern "C" void tcc_row(int32_t kind, int32_t inDType, int32_t outDType, int32_t paramDType,
                        int64_t rows, int64_t n, const void *x, int64_t xStride,
                        const void *residual, int64_t residualStride, void *sumOut,
                        int64_t sumStride, const void *weight, const void *bias, float eps,
                        void *out, int64_t outStride, void *stream) {
  // An earlier failure on this thread: it is reported once, when it returns.
  if (hasKernelLaunchError())
    return;
  // Records "tcc_row(layer_norm, bf16 -> bf16, rows R, n N): why"; never
  // throws (it runs in the catch handlers below).
  auto fail = [&](const char *why) noexcept {
    try {
      recordKernelLaunchError("tcc_row(" + kindName(kind) + ", " + dtypeName(inDType) + " -> " +
                              dtypeName(outDType) + ", rows " + std::to_string(rows) + ", n " +
                              std::to_string(n) + "): " + why);
    } catch (...) {
    }
  };
  try {
    if (kind < kRowSoftmax || kind > kRowRmsNorm)
      return fail(("unknown kind " + std::to_string(kind)).c_str());
    if (!knownDType(inDType) || !knownDType(outDType))
      return fail(("unknown dtype (in " + std::to_string(inDType) + ", out " +
                   std::to_string(outDType) + ")")
                      .c_str());
    if (rows < 0 || n < 0)
      return fail("negative shape");
    if (rows == 0 || n == 0)
      return; // an empty result
    run(kind, inDType, outDType, paramDType, rows, n, x, xStride, residual, residualStride, sumOut,
        sumStride, weight, bias, eps, out, outStride, stream);
  } catch (const std::exception &e) {
    fail(e.what());
  } catch (...) {
    fail("unknown exception");
  }
}
