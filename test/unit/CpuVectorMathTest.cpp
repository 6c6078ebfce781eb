//===- CpuVectorMathTest.cpp - exp, sigmoid, tanh against a double reference -===//
//
// Floats of both signs through the array functions (every 61st bit pattern
// out to the overflow and underflow limits, every float of ±[0.5, 1) and
// ±[8, 16), every float whose exp is subnormal: about 70M values per function, two
// seconds), with the error in ulps of the correctly rounded result (the
// double reference rounded to float). Measured with AVX2 + FMA on the build
// machine (Xeon, AVX-512, 2026-12-07): exp 1 ulp, sigmoid 2 ulp, tanh 1 ulp
// at most; libm (TCC_CPU_VECTOR_MATH=0) 1, 2 and 2. The bounds below are
// 1, 2 and 2.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/CpuVectorMath.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <vector>

namespace {

float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

uint32_t toBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

/// The distance in representable floats between a and b (same sign or
/// across zero), for finite a, b.
int64_t ulpDistance(float a, float b) {
  auto key = [](float f) {
    int64_t u = toBits(f);
    return u & 0x80000000u ? -(u & 0x7fffffff) : u;
  };
  int64_t d = key(a) - key(b);
  return d < 0 ? -d : d;
}

struct Worst {
  int64_t ulps = 0;
  float at = 0.0f;
};

/// The floats of one sign whose magnitudes' bit patterns lie in [from, to],
/// every `stride`-th, through `fn` 4096 at a time (the sweep never sits in
/// memory), the worst error against `ref` folded into `w`.
template <typename Fn, typename Ref>
void sweep(Worst &w, float sign, uint32_t from, uint32_t to, uint32_t stride, Fn fn, Ref ref) {
  std::vector<float> xs, ys;
  xs.reserve(4096);
  auto flush = [&] {
    ys.resize(xs.size());
    fn(xs.data(), ys.data(), static_cast<int64_t>(xs.size()));
    for (size_t i = 0; i < xs.size(); ++i) {
      float want = static_cast<float>(ref(static_cast<double>(xs[i])));
      int64_t d = ulpDistance(ys[i], want);
      if (d > w.ulps)
        w = {d, xs[i]};
    }
    xs.clear();
  };
  for (uint64_t u = from; u <= to; u += stride) {
    xs.push_back(sign * fromBits(static_cast<uint32_t>(u)));
    if (xs.size() == 4096)
      flush();
  }
  flush();
}

/// Both signs of [0, limit], every 61st bit pattern (a prime: every
/// mantissa residue is visited), and every float of ±[0.5, 1) and ±[8, 16)
/// (tanh's switch from its polynomial at 0.625; where exp's reduction
/// takes several n).
template <typename Fn, typename Ref> Worst worstError(float limit, Fn fn, Ref ref) {
  Worst w;
  for (float sign : {1.0f, -1.0f}) {
    sweep(w, sign, 0, toBits(limit), 61, fn, ref);
    sweep(w, sign, toBits(0.5f), toBits(1.0f) - 1, 1, fn, ref);
    sweep(w, sign, toBits(8.0f), toBits(16.0f) - 1, 1, fn, ref);
  }
  return w;
}

} // namespace

TEST_CASE("vector exp, sigmoid and tanh stay within 2 ulp of the rounded result",
          "[cpu][vectormath]") {
  INFO("AVX2 + FMA: " << (tcc::cpu::hasAvx2Fma() ? "yes" : "no (libm)"));
  // exp over its normal range (results below 2^-126 are subnormal: their
  // ulp is a fixed 2^-149, checked separately).
  Worst e = worstError(87.3f, tcc::cpu::expArray, [](double x) { return std::exp(x); });
  INFO("exp: " << e.ulps << " ulp at " << e.at);
  CHECK(e.ulps <= 1);
  Worst s = worstError(103.0f, tcc::cpu::sigmoidArray,
                       [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
  INFO("sigmoid: " << s.ulps << " ulp at " << s.at);
  CHECK(s.ulps <= 2);
  Worst t = worstError(100.0f, tcc::cpu::tanhArray, [](double x) { return std::tanh(x); });
  INFO("tanh: " << t.ulps << " ulp at " << t.at);
  CHECK(t.ulps <= 2);
  // Subnormal exp results, as absolute error in units of the smallest one.
  Worst sub;
  sweep(sub, -1.0f, toBits(87.4f), toBits(103.9f), 1, tcc::cpu::expArray,
        [](double x) { return std::exp(x); });
  INFO("exp into subnormals: " << sub.ulps << " ulp at " << sub.at);
  CHECK(sub.ulps <= 1);
  WARN("max error over the sweep: exp " << e.ulps << " ulp (at " << e.at << "), sigmoid "
                                         << s.ulps << " (at " << s.at << "), tanh " << t.ulps
                                         << " (at " << t.at << "), exp subnormal " << sub.ulps);
}

TEST_CASE("vector exp, sigmoid and tanh keep NaN and take infinities as PyTorch",
          "[cpu][vectormath]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // 11 values: a tail of 3 after one full vector of 8.
  std::vector<float> x{nan, inf, -inf, 0.0f, -0.0f, 1e-30f, -1e-30f, 200.0f, -200.0f, -nan, 89.0f};
  std::vector<float> y(x.size());
  const int64_t n = static_cast<int64_t>(x.size());

  tcc::cpu::tanhArray(x.data(), y.data(), n);
  CHECK(std::isnan(y[0]));
  CHECK(y[1] == 1.0f);
  CHECK(y[2] == -1.0f);
  CHECK((y[3] == 0.0f && !std::signbit(y[3])));
  CHECK((y[4] == 0.0f && std::signbit(y[4])));
  CHECK(y[5] == 1e-30f);
  CHECK(y[6] == -1e-30f);
  CHECK(y[7] == 1.0f);
  CHECK(y[8] == -1.0f);
  CHECK(std::isnan(y[9]));
  CHECK(y[10] == 1.0f);

  tcc::cpu::sigmoidArray(x.data(), y.data(), n);
  CHECK(std::isnan(y[0]));
  CHECK(y[1] == 1.0f);
  CHECK(y[2] == 0.0f);
  CHECK(y[3] == 0.5f);
  CHECK(y[4] == 0.5f);
  CHECK(y[7] == 1.0f);
  CHECK(y[8] == 0.0f);
  CHECK(std::isnan(y[9]));

  tcc::cpu::expArray(x.data(), y.data(), n);
  CHECK(std::isnan(y[0]));
  CHECK(y[1] == inf);
  CHECK(y[2] == 0.0f);
  CHECK(y[3] == 1.0f);
  CHECK(y[7] == inf);
  CHECK(y[8] == 0.0f);
  CHECK(y[10] == inf);
}
