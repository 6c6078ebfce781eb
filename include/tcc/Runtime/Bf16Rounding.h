//===- Bf16Rounding.h - float and double to bfloat16, for generated code ---===//
//
// LLVM's x86 backend has no bfloat16 registers: a bf16 value that lives
// across a branch or a call is kept as f32 and rounded back with
// `__truncsfbf2` (or `__truncdfbf2` from f64), which libgcc provides from
// GCC 13 on. Debian 12's libgcc 12 does not, so the runtime linked into every
// model.so defines them (lib/Runtime/Bf16Rounding.cpp), with the rounding of
// PyTorch's float-to-bfloat16 conversion: to nearest, ties to even, NaN kept
// quiet with its sign.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_BF16ROUNDING_H
#define TCC_RUNTIME_BF16ROUNDING_H

#include <cstdint>

namespace tcc {

/// The bfloat16 nearest to `value` (ties to even), as its 16 bits.
uint16_t roundToBf16Bits(float value);

/// The bfloat16 nearest to `value`, rounded once (not through float, which
/// would round twice).
uint16_t roundToBf16Bits(double value);

} // namespace tcc

#endif // TCC_RUNTIME_BF16ROUNDING_H
