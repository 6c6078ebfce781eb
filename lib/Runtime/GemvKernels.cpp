//===- GemvKernels.cpp - tcc_gemm's path for products of a few rows -------===//
//
// Checks that a product has the GEMV kernels' form (GemvKernels.h), picks
// the kernel for its element type and row count, and launches it with a
// GemvParams struct by value. The grid: a warp per output column (per 4 or 8
// columns from 2 rows on, gemvColumnsPerWarp), 8 warps per block, at most 8
// blocks per SM (the kernels stride over the rest), so a 32000-column LM head
// and a 2048-column projection both fill the GPU.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/GemvKernels.h"

#include "Kernels/GemvParams.h"

#include "tcc/Runtime/CublasLtGemm.h"
#include "tcc/Runtime/CudaDriver.h"
#include "tcc/Runtime/EnvironmentSwitch.h"
#include "tcc/Runtime/KernelLibrary.h"
#include "tcc/Runtime/KernelTypes.h"
#include "tcc/Runtime/RuntimeError.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>

using namespace tcc;
using tcc_gemv::GemvParams;

namespace {

constexpr int kRowCounts = tcc_gemv::kGemvMaxRows;
constexpr int64_t kWarpsPerBlock = tcc_gemv::kGemvBlock / 32;

/// Whether the path is on without TCC_GEMV or tcc_gemv_tune saying. On: on
/// an H100 (2026-12-07) check_gemm.py's 44 GEMV cases matched PyTorch, and
/// a ~1B LLaMA decode step's products took 692.6 us in 65 GEMV launches
/// where cuBLASLt took 729 us in 81 (its split-K reductions included).
constexpr bool kGemvOnByDefault = true;

/// The most rows the path takes unless tcc_gemv_tune(2) forces it (to 8):
/// on that H100 (2026-12-08) the one-column-per-warp kernel at 8 rows made
/// a ~1B decode step at batch 8 take 2.137 ms where cuBLASLt took 1.425;
/// 2 to 7 rows were not timed, and go to cuBLASLt until they are.
constexpr int64_t kGemvRowLimit = 1;

std::atomic<int32_t> gMode{0};

/// TCC_GEMV=0 turns the path off for the process (comparisons against
/// cuBLASLt), TCC_GEMV=1 on; read once.
bool enabledByEnvironment() {
  static const bool on = environmentSwitch("TCC_GEMV", kGemvOnByDefault);
  return on;
}

/// The most rows of A the path takes now: 0 while it is off.
int64_t rowLimit() {
  int32_t mode = gMode.load(std::memory_order_relaxed);
  if (mode == 2)
    return kRowCounts;
  return mode == 0 && enabledByEnvironment() ? kGemvRowLimit : 0;
}

bool aligned16(const void *p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

/// The kernel for (bf16?, rows), cached per thread and context.
cuda::CUfunction kernelFor(bool bf16, int64_t rows, std::string &name) {
  struct Cache {
    cuda::CUcontext context = nullptr;
    std::array<std::array<cuda::CUfunction, kRowCounts>, 2> functions{};
  };
  thread_local Cache cache;
  cuda::CUcontext ctx = cuda::ensureContext();
  if (ctx != cache.context) {
    cache = Cache();
    cache.context = ctx;
  }
  name = std::string("tcc_gemv_") + (bf16 ? "bf16" : "f16") + "_r" + std::to_string(rows);
  cuda::CUfunction &f = cache.functions[bf16][static_cast<size_t>(rows - 1)];
  if (!f)
    f = kernelLibraryFunction(KernelImage::Gemv, name.c_str());
  return f;
}

} // namespace

bool tcc::tryGemv(int32_t dtype, int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
                  const void *b, int64_t ldb, void *c, int64_t ldc, const void *residual,
                  int64_t ldr, const void *bias, int32_t epilogue, float alpha, void *stream) {
  if ((dtype != kKernelBF16 && dtype != kKernelF16) || m < 1 || m > rowLimit() || n < 1 ||
      k < 8 || k % 8 != 0 || k > (int64_t(1) << 30) || lda % 8 != 0 || ldb % 8 != 0 ||
      !aligned16(a) || !aligned16(b))
    return false;
  int32_t activation;
  switch (epilogue & ~kGemmEpilogueBias) {
  case kGemmEpilogueNone: activation = tcc_gemv::kGemvNone; break;
  case kGemmEpilogueRelu: activation = tcc_gemv::kGemvRelu; break;
  case kGemmEpilogueGelu: activation = tcc_gemv::kGemvGeluTanh; break;
  default: return false;
  }
  GemvParams params{};
  params.a = a;
  params.w = b;
  params.c = c;
  params.residual = residual;
  params.bias = (epilogue & kGemmEpilogueBias) ? bias : nullptr;
  params.lda = lda;
  params.ldw = ldb;
  params.ldc = ldc;
  params.ldr = residual ? ldr : 0;
  params.n = n;
  params.k = static_cast<int32_t>(k);
  params.activation = activation;
  params.alpha = alpha;
  std::string name;
  cuda::CUfunction function = kernelFor(dtype == kKernelBF16, m, name);
  int sms = currentMultiprocessorCount();
  const int64_t columnsPerBlock = kWarpsPerBlock * tcc_gemv::gemvColumnsPerWarp(int(m));
  const int64_t wanted = (n + columnsPerBlock - 1) / columnsPerBlock;
  const int64_t grid = std::min<int64_t>(wanted, int64_t(sms > 0 ? sms : 132) * 8);
  void *args[] = {&params};
  launchLibraryKernel(function, name.c_str(), static_cast<unsigned>(grid), 1, 1,
                      tcc_gemv::kGemvBlock, 0, stream, args);
  return true;
}

extern "C" int32_t tcc_gemv_tune(int32_t mode) { return gMode.exchange(mode); }
