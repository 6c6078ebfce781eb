//===- GemvEligibilityTest.cpp - which products tcc_gemm gives its GEMV ----===//
//
// tryGemv (GemvKernels.h) must decline, before touching CUDA, every product
// its kernels do not compute: other element types, more than 8 rows (more
// than 1 unless tuned on), k or a row stride not a multiple of 8, A or B not
// 16-byte aligned, the erf GELU, and any product while the path is tuned off. (Its kernels are
// checked against PyTorch on the GPU by scripts/kernel_checks/check_gemm.py.)
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/CublasLtGemm.h"
#include "tcc/Runtime/GemvKernels.h"
#include "tcc/Runtime/KernelTypes.h"

#include <catch2/catch.hpp>

#include <cstdint>

using namespace tcc;

namespace {

alignas(16) unsigned char gA[4096], gB[4096], gC[4096];

/// Turns the path on (tcc_gemv_tune(2)) for one test's checks, then back.
struct PathOn {
  int32_t before = tcc_gemv_tune(2);
  ~PathOn() { tcc_gemv_tune(before); }
};

/// tryGemv on a product of m rows, n columns and depth k whose A and B start
/// `skew` bytes into 16-byte aligned buffers.
bool offered(int32_t dtype, int64_t m, int64_t k, int64_t lda, int64_t ldb,
             int32_t epilogue = kGemmEpilogueNone, int skew = 0) {
  return tryGemv(dtype, m, /*n=*/4, k, gA + skew, lda, gB + skew, ldb, gC, 4, nullptr, 0,
                 nullptr, epilogue, 1.0f, nullptr);
}

} // namespace

TEST_CASE("GEMV declines the products its kernels do not compute", "[gemv]") {
  PathOn on;
  CHECK_FALSE(offered(kKernelF32, 1, 64, 64, 64));
  CHECK_FALSE(offered(kKernelBF16, 9, 64, 64, 64));
  CHECK_FALSE(offered(kKernelBF16, 0, 64, 64, 64));
  CHECK_FALSE(offered(kKernelBF16, 1, 60, 64, 64));
  CHECK_FALSE(offered(kKernelBF16, 1, 4, 8, 8));
  CHECK_FALSE(offered(kKernelF16, 2, 64, 68, 64));
  CHECK_FALSE(offered(kKernelF16, 2, 64, 64, 66));
  CHECK_FALSE(offered(kKernelBF16, 1, 64, 64, 64, kGemmEpilogueGeluErf));
  CHECK_FALSE(offered(kKernelBF16, 1, 64, 64, 64, kGemmEpilogueNone, /*skew=*/2));
}

TEST_CASE("GEMV tuned off declines every product", "[gemv]") {
  int32_t before = tcc_gemv_tune(1);
  // The form the kernels take: declined only because the path is off (on,
  // it would launch, which needs a GPU).
  CHECK_FALSE(offered(kKernelBF16, 1, 64, 64, 64));
  CHECK_FALSE(offered(kKernelF16, 8, 256, 256, 256, kGemmEpilogueGelu | kGemmEpilogueBias));
  CHECK(tcc_gemv_tune(before) == 1);
}

TEST_CASE("GEMV by default takes one row, cuBLASLt the rest", "[gemv]") {
  // 2 to 8 rows have kernels (checked under tcc_gemv_tune(2)) but go to
  // cuBLASLt until timed faster (GemvKernels.cpp's kGemvRowLimit).
  int32_t before = tcc_gemv_tune(0);
  CHECK_FALSE(offered(kKernelBF16, 2, 64, 64, 64));
  CHECK_FALSE(offered(kKernelF16, 8, 256, 256, 256));
  tcc_gemv_tune(before);
}
