//===- GemvParams.h - the GEMV kernels' argument, shared with the launcher ===//
//
// Included by Kernels/Gemv.cu (nvcc) and GemvKernels.cpp (g++): plain C++17,
// no CUDA types. Passed by value as each GEMV kernel's single argument.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_RUNTIME_KERNELS_GEMVPARAMS_H
#define TCC_LIB_RUNTIME_KERNELS_GEMVPARAMS_H

#include <cstddef>
#include <cstdint>

namespace tcc_gemv {

/// Threads of a block: 8 warps, each computing gemvColumnsPerWarp columns at
/// a time.
constexpr int kGemvBlock = 256;
/// The most rows of A (tokens of a decode step's batch) one kernel takes.
constexpr int kGemvMaxRows = 8;

/// Output columns a warp computes together for `rows` rows of A: one for a
/// single row; for more, as many that the rows (padded to 4 or 8) times the
/// columns are 32, so each chunk of A read from L1 serves several columns of
/// W (one column per warp read A's rows from L1 8 times per weight byte at 8
/// rows: slower than cuBLASLt there) and the 32 sums are reduced in 31
/// shuffles, one left in each lane.
#ifdef __CUDACC__
__host__ __device__
#endif
constexpr int gemvColumnsPerWarp(int rows) { return rows <= 1 ? 1 : rows <= 4 ? 8 : 4; }

enum GemvActivation : int32_t { kGemvNone = 0, kGemvRelu = 1, kGemvGeluTanh = 2 };

/// C[r, j] = act(alpha · sum_i A[r, i] · W[j, i] + bias[j]) + R[r, j] for
/// r < rows, j < n: A is rows × k (row stride lda), W is n × k (a linear
/// layer's weight, row stride ldw), C and R rows × n (ldc, ldr).
struct GemvParams {
  const void *a;
  const void *w;
  void *c;
  const void *residual; ///< null: no residual
  const void *bias;     ///< null: no bias
  int64_t lda, ldw, ldc, ldr; ///< elements; lda and ldw multiples of 8
  int64_t n;
  int32_t k;          ///< a multiple of 8
  int32_t activation; ///< GemvActivation
  float alpha;
  int32_t pad;
};
// Both compilers must lay it out alike.
static_assert(sizeof(GemvParams) == 96, "GemvParams: unexpected layout");
static_assert(offsetof(GemvParams, n) == 72 && offsetof(GemvParams, k) == 80 &&
                  offsetof(GemvParams, alpha) == 88,
              "GemvParams: unexpected layout");

} // namespace tcc_gemv

#endif // TCC_LIB_RUNTIME_KERNELS_GEMVPARAMS_H
