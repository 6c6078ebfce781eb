//===- KernelTypes.h - element types in the runtime's kernel ABIs ---------===//
//
// The generated host code passes tensors to tcc's library entry points
// (tcc_gemm, tcc_attention, tcc_row) as untyped pointers plus one of these
// codes. The values are the ABI between the compiler's lowering passes and
// the runtime: both include this header.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_KERNELTYPES_H
#define TCC_RUNTIME_KERNELTYPES_H

#include <cstdint>

namespace tcc {

enum KernelDType : int32_t {
  kKernelF32 = 0,
  kKernelF16 = 1,
  kKernelBF16 = 2,
};

/// Bytes per element of `dtype`.
constexpr int64_t kernelDTypeBytes(int32_t dtype) { return dtype == kKernelF32 ? 4 : 2; }

} // namespace tcc

#endif // TCC_RUNTIME_KERNELTYPES_H
