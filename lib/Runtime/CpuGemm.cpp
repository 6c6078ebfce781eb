//===- CpuGemm.cpp - tcc_cpu_gemm on OpenBLAS, opened with dlopen ---------===//
#include "tcc/Runtime/CpuGemm.h"

#include "tcc/Runtime/CublasLtGemm.h"

#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

// CBLAS's enum values (cblas.h), which OpenBLAS's cblas_sgemm takes.
constexpr int kCblasRowMajor = 101, kCblasNoTrans = 111, kCblasTrans = 112;

using Sgemm = void (*)(int order, int transA, int transB, int m, int n, int k, float alpha,
                       const float *a, int lda, const float *b, int ldb, float beta, float *c,
                       int ldc);

/// OpenBLAS's cblas_sgemm, or null when the library is missing.
Sgemm openBlasSgemm() {
  static Sgemm sgemm = [] {
    const char *name = std::getenv("TCC_BLAS_LIBRARY");
    if (!name || !*name)
      name = "libopenblas.so.0";
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    auto sgemm = handle ? reinterpret_cast<Sgemm>(dlsym(handle, "cblas_sgemm")) : nullptr;
    if (!sgemm) {
      const char *why = dlerror();
      std::fprintf(stderr,
                   "tcc: %s not usable (%s); the CPU path's matrix products run on tcc's own "
                   "loops, much slower. Install OpenBLAS (Debian: libopenblas0).\n",
                   name, why ? why : "no cblas_sgemm");
      return Sgemm(nullptr);
    }
    if (const char *threads = std::getenv("TCC_NUM_THREADS"); threads && std::atoi(threads) > 0)
      if (auto set = reinterpret_cast<void (*)(int)>(dlsym(handle, "openblas_set_num_threads")))
        set(std::atoi(threads));
    return sgemm;
  }();
  return sgemm;
}

/// C = alpha op(A) op(B) for one matrix, without a library (row-major).
void loopSgemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha,
               const float *a, int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    float *row = c + i * ldc;
    for (int64_t j = 0; j < n; ++j)
      row[j] = 0.0f;
    for (int64_t p = 0; p < k; ++p) {
      float x = alpha * (transA ? a[p * lda + i] : a[i * lda + p]);
      if (transB)
        for (int64_t j = 0; j < n; ++j)
          row[j] += x * b[j * ldb + p];
      else
        for (int64_t j = 0; j < n; ++j)
          row[j] += x * b[p * ldb + j];
    }
  }
}

/// The epilogue on one m×n result: bias and activation, or the residual.
void applyEpilogue(float *c, int64_t ldc, const float *r, int64_t ldr, const float *bias,
                   int32_t epilogue, int64_t m, int64_t n) {
  bool addBias = (epilogue & tcc::kGemmEpilogueBias) && bias;
  bool relu = epilogue & tcc::kGemmEpilogueRelu, gelu = epilogue & tcc::kGemmEpilogueGelu;
  if (!addBias && !relu && !gelu && !r)
    return;
  for (int64_t i = 0; i < m; ++i) {
    float *row = c + i * ldc;
    const float *res = r ? r + i * ldr : nullptr;
    for (int64_t j = 0; j < n; ++j) {
      float v = row[j];
      if (addBias)
        v += bias[j];
      if (relu)
        v = v > 0.0f ? v : (std::isnan(v) ? v : 0.0f);
      else if (gelu)  // tanh approximation, as the CUDA path's cuBLASLt epilogue
        v = 0.5f * v * (1.0f + std::tanh(0.7978845608028654f * (v + 0.044715f * v * v * v)));
      if (res)
        v += res[j];
      row[j] = v;
    }
  }
}

} // namespace

extern "C" void tcc_cpu_gemm(int32_t dtype, int32_t, int64_t batch0, int64_t batch1, int64_t m,
                             int64_t n, int64_t k, const void *a, int64_t lda, int64_t strideA0,
                             int64_t strideA1, int32_t transA, const void *b, int64_t ldb,
                             int64_t strideB0, int64_t strideB1, int32_t transB, void *c,
                             int64_t ldc, int64_t strideC0, int64_t strideC1,
                             const void *residual, int64_t ldr, int64_t strideR0,
                             int64_t strideR1, const void *bias, int32_t epilogue, float alpha,
                             void *) {
  if (dtype != tcc::kKernelF32) {
    // The lowering calls this for f32 products only.
    std::fprintf(stderr, "tcc: internal error: tcc_cpu_gemm called with element type %d\n",
                 dtype);
    std::abort();
  }
  Sgemm sgemm = openBlasSgemm();
  const float *A = static_cast<const float *>(a), *B = static_cast<const float *>(b);
  const float *R = static_cast<const float *>(residual), *bias32 = static_cast<const float *>(bias);
  float *C = static_cast<float *>(c);
  for (int64_t i = 0; i < batch0; ++i)
    for (int64_t j = 0; j < batch1; ++j) {
      const float *ai = A + i * strideA0 + j * strideA1, *bi = B + i * strideB0 + j * strideB1;
      float *ci = C + i * strideC0 + j * strideC1;
      const float *ri = R ? R + i * strideR0 + j * strideR1 : nullptr;
      if (m <= 0 || n <= 0)
        continue;
      // A residual in C's own buffer (accumulated onto): the product adds to it.
      bool accumulate = ri == ci && ldr == ldc;
      if (sgemm && k > 0) {
        sgemm(kCblasRowMajor, transA ? kCblasTrans : kCblasNoTrans,
              transB ? kCblasTrans : kCblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), alpha, ai, static_cast<int>(lda), bi, static_cast<int>(ldb),
              accumulate ? 1.0f : 0.0f, ci, static_cast<int>(ldc));
      } else {
        if (accumulate) {  // the loops overwrite C: keep the residual aside
          std::vector<float> saved(ri, ri + (m - 1) * ldr + n);
          loopSgemm(transA, transB, m, n, k, alpha, ai, lda, bi, ldb, ci, ldc);
          applyEpilogue(ci, ldc, saved.data(), ldr, bias32, epilogue, m, n);
          continue;
        }
        loopSgemm(transA, transB, m, n, k, alpha, ai, lda, bi, ldb, ci, ldc);
      }
      applyEpilogue(ci, ldc, accumulate ? nullptr : ri, ldr, bias32, epilogue, m, n);
    }
}
