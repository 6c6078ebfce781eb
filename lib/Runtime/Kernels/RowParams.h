//===- RowParams.h - the row kernels' argument, shared with the launcher ---===//
//
// Included by Kernels/Rows.cu (nvcc) and RowKernels.cpp (g++): plain C++17,
// no CUDA types. Passed by value as each row kernel's single argument.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_RUNTIME_KERNELS_ROWPARAMS_H
#define TCC_LIB_RUNTIME_KERNELS_ROWPARAMS_H

#include <cstddef>
#include <cstdint>

namespace tcc_rows {

struct RowParams {
  const void *x;
  const void *residual; ///< null: h = x
  void *sumOut;         ///< null: h is not stored
  const void *weight;   ///< null: no scale
  const void *bias;     ///< null: no shift (always null for rms_norm)
  void *out;
  int64_t xStride, residualStride, sumStride, outStride; ///< elements
  int64_t rows;
  int32_t n;          ///< 1 ≤ n ≤ 2^30
  int32_t kind;       ///< RowKind
  int32_t outDType;   ///< KernelDType of out
  int32_t paramDType; ///< KernelDType of weight and bias
  float eps;
  float invN; ///< 1/n rounded to fp32 (by the host: no slow-path division on the device)
};
// Both compilers must lay it out alike.
static_assert(sizeof(RowParams) == 112, "RowParams: unexpected layout");
static_assert(offsetof(RowParams, rows) == 80 && offsetof(RowParams, eps) == 104 &&
                  offsetof(RowParams, invN) == 108,
              "RowParams: unexpected layout");

} // namespace tcc_rows

#endif // TCC_LIB_RUNTIME_KERNELS_ROWPARAMS_H
