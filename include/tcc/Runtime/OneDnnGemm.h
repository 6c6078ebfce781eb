//===- OneDnnGemm.h - the CPU path's products with weights on oneDNN ------===//
//
// tcc_cpu_gemm (CpuGemm.h) runs its f32 products (alpha 1) through oneDNN's
// matmul when the library is there: a `b` that is a bound weight (a linear
// layer) is reordered once into oneDNN's packed layout and kept until
// weights are bound again (the epoch of OneDnnConv.h's boundWeightsChanged),
// where OpenBLAS packs it again on every call; bias, the activation and the
// residual are post-ops of the same pass. One thread pool (oneDNN's OpenMP
// threads) then serves every product of a call; OpenBLAS, for the rest,
// keeps to the calling thread.
//
// Measured on one core of the 2-core build machine (AVX-512), BERT-base's
// products at s128: 128x768 by 768x3072 5.6-6.2 ms packed against 7.0-7.3 in
// OpenBLAS, 128x768 by 768x768 1.36 against 1.61 ms.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_ONEDNNGEMM_H
#define TCC_RUNTIME_ONEDNNGEMM_H

#include <cstdint>

namespace tcc::cpu {

/// One f32 product c = act(a·b + bias) + residual, row-major with leading
/// dimensions (tcc_gemm's contract for one matrix, alpha 1).
struct GemmArgs {
  int64_t m, n, k;
  const float *a;
  int64_t lda;
  bool transA;
  const float *b;
  int64_t ldb;
  bool transB;
  bool bIsBoundWeight; ///< then kept packed until weights are bound again
  float *c;
  int64_t ldc;
  const float *residual; ///< may be null, or c itself (accumulated onto)
  int64_t ldr;
  const float *bias;     ///< [n] or null
  int32_t activation;    ///< kGemmEpilogueRelu, kGemmEpilogueGelu or kGemmEpilogueGeluErf, or 0
};

/// Computes the product with oneDNN. False (nothing written) where oneDNN is
/// missing or has no primitive for it: the caller's OpenBLAS path runs.
bool oneDnnGemm(const GemmArgs &args);

} // namespace tcc::cpu

#endif // TCC_RUNTIME_ONEDNNGEMM_H
