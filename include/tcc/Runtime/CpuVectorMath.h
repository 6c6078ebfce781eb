//===- CpuVectorMath.h - the CPU runtime's vectorized exp, sigmoid, tanh --===//
//
// The runtime's own kernels (the recurrent layers' gates, CpuRecurrent.cpp)
// evaluate sigmoid and tanh 8 floats at a time where the CPU has AVX2 and
// FMA (x86-64-v3), through the inline functions of lib/Runtime/Avx2Math.h;
// elsewhere through libm, one float at a time. The array forms below are
// what the unit tests measure (max error against a double reference over a
// dense sweep, NaN and infinities).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_CPUVECTORMATH_H
#define TCC_RUNTIME_CPUVECTORMATH_H

#include <cstdint>

namespace tcc::cpu {

/// Whether this CPU runs the AVX2 + FMA versions (checked once).
/// TCC_CPU_VECTOR_MATH=0 turns them off (libm's scalar functions instead).
bool hasAvx2Fma();

/// 1 / (1 + exp(-x)) through libm, without overflow for large -x.
float scalarSigmoid(float x);

/// y[i] = exp(x[i]), for i < n (in place allowed).
void expArray(const float *x, float *y, int64_t n);
/// y[i] = 1 / (1 + exp(-x[i])).
void sigmoidArray(const float *x, float *y, int64_t n);
/// y[i] = tanh(x[i]).
void tanhArray(const float *x, float *y, int64_t n);

} // namespace tcc::cpu

#endif // TCC_RUNTIME_CPUVECTORMATH_H
