//===- GemvKernels.h - tcc_gemm's path for products of a few rows ---------===//
//
// A decode step multiplies 1 to 8 token rows by each weight. tcc_gemm
// (CublasLtGemm.h) hands such a product to tryGemv first: tcc's own GEMV
// kernels (Kernels/Gemv.cu) read the weight once at close to the memory's
// bandwidth, where cuBLASLt's kernels for the shape do not.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_GEMVKERNELS_H
#define TCC_RUNTIME_GEMVKERNELS_H

#include <cstdint>

namespace tcc {

/// C = epilogue(alpha · A · Bᵀ) + R (tcc_gemm's meaning, one batch, A not
/// transposed, B a linear layer's n × k weight) through a GEMV kernel when
/// the call has that form: f16 or bf16, m rows within the path's limit (1
/// by default, where it was measured faster than cuBLASLt; 8 under
/// tcc_gemv_tune(2)), k and the row strides of A and B multiples of 8, A and
/// B 16-byte aligned, no erf GELU. Returns false, having done nothing,
/// otherwise, or while the path is off (TCC_GEMV=0, tcc_gemv_tune(1)); the
/// caller then runs its GEMM. Launch failures throw RuntimeError.
bool tryGemv(int32_t dtype, int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
             const void *b, int64_t ldb, void *c, int64_t ldc, const void *residual,
             int64_t ldr, const void *bias, int32_t epilogue, float alpha, void *stream);

} // namespace tcc

extern "C" {
/// Benchmarking and tests: 0 leaves the choice to TCC_GEMV and the default,
/// 1 turns the GEMV path off (every product through cuBLASLt), 2 on for
/// every row count it has kernels for (1 to 8).
/// Returns the previous setting.
int32_t tcc_gemv_tune(int32_t mode);
}

#endif // TCC_RUNTIME_GEMVKERNELS_H
