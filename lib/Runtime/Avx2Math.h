//===- Avx2Math.h - exp, sigmoid and tanh on 8 floats (AVX2 + FMA) --------===//
//
// The CPU path's runtime is compiled for baseline x86-64; these functions
// carry __attribute__((target("avx2,fma"))) and run only where
// tcc::cpu::hasAvx2Fma() (CpuVectorMath.h) says the CPU has them (x86-64-v3,
// the level the generated code targets by default). Callers are themselves
// compiled for that target, so the functions inline into their loops.
//
// Accuracy (test/unit/CpuVectorMathTest.cpp sweeps ~70M floats per
// function against a double reference): exp within 1 ulp over its normal
// range, sigmoid 2 ulp, tanh 1 ulp; NaN stays NaN, tanh(±inf) = ±1,
// sigmoid(-inf) = 0, sigmoid(+inf) = 1, as PyTorch's.
//
//   exp(x)      x = n·ln2 + r, |r| <= ln2/2; e^r = 1 + r + r²·P(r) (Cephes'
//               expf polynomial); 2^n applied as two halves so that results
//               in the subnormal range round once.
//   sigmoid(x)  e = exp(-|x|) in (0, 1]: 1 / (1 + e) for x >= 0, e / (1 + e)
//               below, so no 1 - tiny cancels.
//   tanh(x)     |x| < 0.625: x + x³·Q(x²) (a degree-4 fit of (tanh x - x)/x³,
//               relative error 4.5e-9); above, with e = exp(-2|x|) <= 0.29,
//               (1 - e) / (1 + e); the sign of x put back.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_RUNTIME_AVX2MATH_H
#define TCC_LIB_RUNTIME_AVX2MATH_H

#if defined(__x86_64__) && defined(__GNUC__)
#define TCC_HAVE_AVX2_MATH 1
#include <immintrin.h>

#define TCC_AVX2_TARGET __attribute__((target("avx2,fma")))

namespace tcc::cpu::avx2 {

TCC_AVX2_TARGET inline __m256 exp(__m256 x) {
  const __m256 log2e = _mm256_set1_ps(1.44269504088896341f);
  // ln 2 in two parts: n·ln2Hi is exact for |n| < 2^11.
  const __m256 ln2Hi = _mm256_set1_ps(0.693145751953125f);
  const __m256 ln2Lo = _mm256_set1_ps(1.42860682030941723212e-6f);
  // Below -104 the result rounds to 0, above 89 it is inf (2^128·p).
  const __m256 v = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-104.0f)),
                                 _mm256_set1_ps(89.0f));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(v, log2e),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, ln2Hi, v);
  r = _mm256_fnmadd_ps(n, ln2Lo, r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  // 2^n as 2^a · 2^b, a = floor(n / 2), b = n - a: both normal for n in
  // [-150, 128], and p·2^a is exact, so a subnormal result rounds once.
  const __m256i ni = _mm256_cvtps_epi32(n);
  const __m256i a = _mm256_srai_epi32(ni, 1), b = _mm256_sub_epi32(ni, a);
  const __m256i bias = _mm256_set1_epi32(127);
  const __m256 scaleA = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(a, bias), 23));
  const __m256 scaleB = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(b, bias), 23));
  const __m256 result = _mm256_mul_ps(_mm256_mul_ps(p, scaleA), scaleB);
  // NaN in, NaN out (the clamp above replaced it).
  return _mm256_blendv_ps(result, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

/// n / (1 + e) for e in [0, 1], corrected for the rounding of 1 + e and of
/// the division (`nLow`: what n itself lost in rounding, or 0).
TCC_AVX2_TARGET inline __m256 divideOnePlus(__m256 n, __m256 nLow, __m256 e) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 d = _mm256_add_ps(one, e);
  const __m256 dLow = _mm256_add_ps(_mm256_sub_ps(one, d), e); // exact: 1 >= e
  const __m256 q = _mm256_div_ps(n, d);
  // What q·(d + dLow) misses of n + nLow; the FMA keeps q·d exact.
  __m256 rest = _mm256_add_ps(_mm256_fnmadd_ps(q, d, n), nLow);
  rest = _mm256_fnmadd_ps(q, dLow, rest);
  return _mm256_fmadd_ps(rest, _mm256_rcp_ps(d), q);
}

TCC_AVX2_TARGET inline __m256 sigmoid(__m256 x) {
  const __m256 signBit = _mm256_set1_ps(-0.0f);
  const __m256 e = exp(_mm256_or_ps(x, signBit)); // exp(-|x|)
  const __m256 negative = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ);
  const __m256 numerator = _mm256_blendv_ps(_mm256_set1_ps(1.0f), e, negative);
  return divideOnePlus(numerator, _mm256_setzero_ps(), e); // NaN: e is NaN, so is this
}

TCC_AVX2_TARGET inline __m256 tanh(__m256 x) {
  const __m256 signBit = _mm256_set1_ps(-0.0f);
  const __m256 a = _mm256_andnot_ps(signBit, x);
  // Small |x|: x + x³·Q(x²).
  const __m256 z = _mm256_mul_ps(a, a);
  __m256 q = _mm256_set1_ps(-5.705754738301039e-3f);
  q = _mm256_fmadd_ps(q, z, _mm256_set1_ps(2.063976414501667e-2f));
  q = _mm256_fmadd_ps(q, z, _mm256_set1_ps(-5.3739916533231735e-2f));
  q = _mm256_fmadd_ps(q, z, _mm256_set1_ps(1.3331444561481476e-1f));
  q = _mm256_fmadd_ps(q, z, _mm256_set1_ps(-3.333328068256378e-1f));
  const __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(a, z), q, a);
  // Large |x|: (1 - e) / (1 + e), e = exp(-2|x|).
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 e = exp(_mm256_mul_ps(a, _mm256_set1_ps(-2.0f)));
  const __m256 n = _mm256_sub_ps(one, e);
  const __m256 nLow = _mm256_sub_ps(_mm256_sub_ps(one, n), e); // exact: 1 >= e
  const __m256 large = divideOnePlus(n, nLow, e);
  const __m256 isSmall = _mm256_cmp_ps(a, _mm256_set1_ps(0.625f), _CMP_LT_OQ);
  const __m256 t = _mm256_blendv_ps(large, small, isSmall);
  // The sign back (NaN: exp passed it through, so large is NaN).
  return _mm256_or_ps(t, _mm256_and_ps(x, signBit));
}

/// A mask for _mm256_maskload_ps/_mm256_maskstore_ps: the first `n` of 8 lanes.
TCC_AVX2_TARGET inline __m256i firstLanes(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

} // namespace tcc::cpu::avx2

#endif // __x86_64__ && __GNUC__

#endif // TCC_LIB_RUNTIME_AVX2MATH_H
