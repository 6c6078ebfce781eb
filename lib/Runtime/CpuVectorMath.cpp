//===- CpuVectorMath.cpp - exp, sigmoid and tanh over arrays --------------===//
#include "tcc/Runtime/CpuVectorMath.h"

#include "Avx2Math.h"

#include <cmath>
#include <cstdlib>

float tcc::cpu::scalarSigmoid(float x) {
  // exp(-|x|) never overflows: e / (1 + e) below 0 (1 / (1 + exp(-x)) would
  // be 0 wherever exp(-x) overflows, above 2^-127 of the true value).
  float e = std::exp(-std::fabs(x));
  return (x < 0.0f ? e : 1.0f) / (1.0f + e);
}

bool tcc::cpu::hasAvx2Fma() {
  static const bool has = [] {
    if (const char *env = std::getenv("TCC_CPU_VECTOR_MATH"); env && env[0] == '0' && !env[1])
      return false;
#ifdef TCC_HAVE_AVX2_MATH
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
  }();
  return has;
}

namespace {

#ifdef TCC_HAVE_AVX2_MATH
enum class Function { Exp, Sigmoid, Tanh };

template <Function F> TCC_AVX2_TARGET inline __m256 apply(__m256 v) {
  if constexpr (F == Function::Exp)
    return tcc::cpu::avx2::exp(v);
  else if constexpr (F == Function::Sigmoid)
    return tcc::cpu::avx2::sigmoid(v);
  else
    return tcc::cpu::avx2::tanh(v);
}

/// F over x[0, n) 8 at a time, the tail through masked loads and stores.
template <Function F> TCC_AVX2_TARGET void mapAvx2(const float *x, float *y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i, apply<F>(_mm256_loadu_ps(x + i)));
  if (i < n) {
    __m256i mask = tcc::cpu::avx2::firstLanes(n - i);
    _mm256_maskstore_ps(y + i, mask, apply<F>(_mm256_maskload_ps(x + i, mask)));
  }
}
#endif

} // namespace

void tcc::cpu::expArray(const float *x, float *y, int64_t n) {
#ifdef TCC_HAVE_AVX2_MATH
  if (hasAvx2Fma())
    return mapAvx2<Function::Exp>(x, y, n);
#endif
  for (int64_t i = 0; i < n; ++i)
    y[i] = std::exp(x[i]);
}

void tcc::cpu::sigmoidArray(const float *x, float *y, int64_t n) {
#ifdef TCC_HAVE_AVX2_MATH
  if (hasAvx2Fma())
    return mapAvx2<Function::Sigmoid>(x, y, n);
#endif
  for (int64_t i = 0; i < n; ++i)
    y[i] = scalarSigmoid(x[i]);
}

void tcc::cpu::tanhArray(const float *x, float *y, int64_t n) {
#ifdef TCC_HAVE_AVX2_MATH
  if (hasAvx2Fma())
    return mapAvx2<Function::Tanh>(x, y, n);
#endif
  for (int64_t i = 0; i < n; ++i)
    y[i] = std::tanh(x[i]);
}
