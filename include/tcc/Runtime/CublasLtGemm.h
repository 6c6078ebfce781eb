//===- CublasLtGemm.h - GEMMs of the CUDA path through cuBLASLt -----------===//
//
// The CUDA lowering of tcc_kernel.gemm (convert-tcc-kernel-to-cuda) calls
// `tcc_gemm`, implemented in lib/Runtime/CublasLtGemm.cpp on cuBLASLt, which
// is opened with dlopen on the first GEMM (model.so still loads, and runs its
// CPU path, without CUDA libraries).
//
// The generated code cannot receive errors: a failure is recorded in the
// same per-thread slot as kernel launch failures (MlirGpuRuntime.h), later
// GEMMs and launches of the call are skipped, and the runtime turns it into
// a RuntimeError when the CUDA entry returns.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_CUBLASLTGEMM_H
#define TCC_RUNTIME_CUBLASLTGEMM_H

#include "tcc/Runtime/KernelTypes.h"

#include <cstdint>

namespace tcc {

/// What `tcc_gemm` applies to alpha·op(A)·op(B) before storing it: bit 0
/// adds `bias[n]` (broadcast over rows and batches), bits 1-2 pick the
/// activation. The values are the ABI between the lowering and the runtime.
enum GemmEpilogue : int32_t {
  kGemmEpilogueNone = 0,
  kGemmEpilogueBias = 1,
  kGemmEpilogueRelu = 2,
  kGemmEpilogueReluBias = 3,
  /// GELU, tanh approximation (what cuBLASLt computes; PyTorch's
  /// gelu(approximate='tanh')).
  kGemmEpilogueGelu = 4,
  kGemmEpilogueGeluBias = 5,
  /// GELU, exact (erf): the CPU path's only (oneDNN's post-op); cuBLASLt
  /// refuses it (formation forms it only for programs compiled for the CPU).
  kGemmEpilogueGeluErf = 8,
};

/// Bit 16 of the same argument: `b` is a bound weight (its values change only
/// when weights are bound), so the CPU path may keep it in oneDNN's packed
/// layout until weights are bound again (OneDnnGemm.cpp). The CUDA path
/// ignores it.
constexpr int32_t kGemmBIsBoundWeight = 1 << 16;
constexpr int32_t gemmEpilogueBits(int32_t argument) { return argument & 0xffff; }

/// Arithmetic of the products of f32 tensors: fp32 (CUBLAS_COMPUTE_32F),
/// TF32 inputs with fp32 accumulation (CUBLAS_COMPUTE_32F_FAST_TF32,
/// `--precision tf32`), or bf16 inputs with fp32 accumulation
/// (CUBLAS_COMPUTE_32F_FAST_16BF, `--precision bf16`; the library rounds the
/// fp32 operands itself). f16/bf16 tensors always multiply on tensor cores
/// with fp32 accumulation.
enum GemmCompute : int32_t {
  kGemmComputeF32 = 0,
  kGemmComputeTf32 = 1,
  kGemmComputeBf16 = 2,
};

} // namespace tcc

extern "C" {

/// For each batch index (i, j) in batch0 × batch1, with PyTorch's row-major
/// storage and every tensor of element type `dtype` (KernelDType):
///
///   C[i, j] = epilogue(alpha · op(A[i, j]) · op(B[i, j])) + R[i, j]
///
///   op(A[i,j]) is m×k: A + i·strideA0 + j·strideA1 holds it row-major (row
///                      stride lda), or, with transA, its k×m transpose;
///   op(B[i,j]) is k×n: B + i·strideB0 + j·strideB1, row-major k×n, or with
///                      transB n×k (a linear layer's weight);
///   C[i, j]    is m×n: C + i·strideC0 + j·strideC1, row stride ldc;
///   R[i, j]    (the residual, when `residual` is non-null) likewise with
///              ldr, strideR0, strideR1; an activation and a residual do not
///              combine.
///
/// Strides and leading dimensions are in elements; a batch stride of 0
/// broadcasts one matrix (a weight shared by all batches). `bias` (n
/// elements) is read when the epilogue has bit 0 set, else may be NULL. All
/// pointers are device pointers; the work is enqueued on `stream` (a
/// CUstream, NULL for the legacy default stream) and nothing is synchronized.
void tcc_gemm(int32_t dtype, int32_t compute, int64_t batch0, int64_t batch1, int64_t m,
              int64_t n, int64_t k, const void *a, int64_t lda, int64_t strideA0,
              int64_t strideA1, int32_t transA, const void *b, int64_t ldb, int64_t strideB0,
              int64_t strideB1, int32_t transB, void *c, int64_t ldc, int64_t strideC0,
              int64_t strideC1, const void *residual, int64_t ldr, int64_t strideR0,
              int64_t strideR1, const void *bias, int32_t epilogue, float alpha, void *stream);

} // extern "C"

#endif // TCC_RUNTIME_CUBLASLTGEMM_H
