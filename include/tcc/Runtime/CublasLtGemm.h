//===- CublasLtGemm.h - GEMMs of the CUDA path through cuBLASLt -----------===//
//
// tcc-gpu-library-gemm (lib/Transforms/GpuLibraryGemm.cpp) replaces each
// matmul-shaped linalg.generic of the CUDA path with a call of
// `tcc_gemm_f32`, implemented in lib/Runtime/CublasLtGemm.cpp on cuBLASLt,
// which is opened with dlopen on the first GEMM (model.so still loads, and
// runs its CPU path, without CUDA libraries).
//
// The generated code cannot receive errors: a failure is recorded in the
// same per-thread slot as kernel launch failures (MlirGpuRuntime.h), later
// GEMMs and launches of the call are skipped, and the runtime turns it into
// a RuntimeError when the CUDA entry returns.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_CUBLASLTGEMM_H
#define TCC_RUNTIME_CUBLASLTGEMM_H

#include <cstdint>

namespace tcc {

/// What `tcc_gemm_f32` applies to alpha·op(A)·op(B) + beta·C before storing
/// it: bit 0 adds `bias[n]` (broadcast over rows and batches), bits 1-2 pick
/// the activation. The values are the ABI between the pass and the runtime.
enum GemmEpilogue : int32_t {
  kGemmEpilogueNone = 0,
  kGemmEpilogueBias = 1,
  kGemmEpilogueRelu = 2,
  kGemmEpilogueReluBias = 3,
  /// GELU, tanh approximation (what cuBLASLt computes; PyTorch's
  /// gelu(approximate='tanh')).
  kGemmEpilogueGelu = 4,
  kGemmEpilogueGeluBias = 5,
};

/// Arithmetic of the products: fp32 (CUBLAS_COMPUTE_32F), TF32 inputs with
/// fp32 accumulation (CUBLAS_COMPUTE_32F_FAST_TF32, `--precision tf32`), or
/// bf16 inputs with fp32 accumulation (CUBLAS_COMPUTE_32F_FAST_16BF,
/// `--precision bf16`; the library rounds the fp32 operands itself).
enum GemmCompute : int32_t {
  kGemmComputeF32 = 0,
  kGemmComputeTf32 = 1,
  kGemmComputeBf16 = 2,
};

} // namespace tcc

extern "C" {

/// For each of `batch` matrices, with PyTorch's row-major storage:
///
///   C[i] = epilogue(op(A[i]) · op(B[i]) + (accumulate ? C[i] : 0))
///
///   op(A[i]) is m×k: A + i·strideA holds it row-major (row stride lda), or,
///                    with transA, its k×m transpose (row stride lda);
///   op(B[i]) is k×n: B + i·strideB, row-major k×n, or with transB n×k
///                    (linear's weight);
///   C[i]     is m×n: C + i·strideC, row stride ldc.
///
/// Strides and leading dimensions are in elements; a batch stride of 0
/// broadcasts one matrix (a weight shared by all batches). `bias` (n floats)
/// is read when the epilogue has bit 0 set, else may be NULL. All pointers are
/// device pointers; the work is enqueued on `stream` (a CUstream, NULL for the
/// legacy default stream) and nothing is synchronized.
void tcc_gemm_f32(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                  int64_t strideA, int32_t transA, const float *b, int64_t ldb, int64_t strideB,
                  int32_t transB, float *c, int64_t ldc, int64_t strideC, int32_t accumulate,
                  const float *bias, int32_t epilogue, int32_t compute, void *stream);

} // extern "C"

#endif // TCC_RUNTIME_CUBLASLTGEMM_H
