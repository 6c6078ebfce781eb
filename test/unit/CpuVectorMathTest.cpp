//===- CpuVectorMathTest.cpp - exp, sigmoid, tanh against a double reference -===//
//
// Every float of a range (all 2^32 bit patterns would take a minute; the
// sweep below walks every float of [-20, 20], where the recurrent gates live,
// and every 64th beyond out to the overflow and underflow limits) through
// the array functions, with the error in ulps of the correctly rounded
// result (the double reference rounded to float). Measured with AVX2 + FMA
// on the build machine (Xeon, 2026-12-07): exp 1 ulp, sigmoid 2 ulp, tanh 2
// ulp at most; the bounds below are those. Without AVX2 the functions are
// libm's and meet them too.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/CpuVectorMath.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
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

/// Floats from lo to hi (lo < hi, both finite): every one where |x| <= 20,
/// every `stride`-th beyond.
std::vector<float> sweep(float lo, float hi, uint32_t stride) {
  std::vector<float> xs;
  for (float x = lo; x <= hi;) {
    xs.push_back(x);
    uint32_t step = std::fabs(x) <= 20.0f ? 1 : stride;
    for (uint32_t s = 0; s < step && x <= hi; ++s)
      x = std::nextafter(x, std::numeric_limits<float>::infinity());
  }
  return xs;
}

struct Worst {
  int64_t ulps = 0;
  float at = 0.0f;
};

template <typename Fn, typename Ref>
Worst worstError(const std::vector<float> &xs, Fn fn, Ref ref) {
  std::vector<float> ys(xs.size());
  fn(xs.data(), ys.data(), static_cast<int64_t>(xs.size()));
  Worst w;
  for (size_t i = 0; i < xs.size(); ++i) {
    float want = static_cast<float>(ref(static_cast<double>(xs[i])));
    int64_t d = ulpDistance(ys[i], want);
    if (d > w.ulps)
      w = {d, xs[i]};
  }
  return w;
}

} // namespace

TEST_CASE("vector exp, sigmoid and tanh stay within 2 ulp of the rounded result",
          "[cpu][vectormath]") {
  INFO("AVX2 + FMA: " << (tcc::cpu::hasAvx2Fma() ? "yes" : "no (libm)"));
  // exp over its normal range (results below 2^-126 are subnormal: their
  // ulp is a fixed 2^-149, checked separately).
  Worst e = worstError(sweep(-87.3f, 88.72f, 64), tcc::cpu::expArray,
                       [](double x) { return std::exp(x); });
  INFO("exp: " << e.ulps << " ulp at " << e.at);
  CHECK(e.ulps <= 1);
  Worst s = worstError(sweep(-103.0f, 103.0f, 64), tcc::cpu::sigmoidArray,
                       [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
  INFO("sigmoid: " << s.ulps << " ulp at " << s.at);
  CHECK(s.ulps <= 2);
  Worst t = worstError(sweep(-100.0f, 100.0f, 64), tcc::cpu::tanhArray,
                       [](double x) { return std::tanh(x); });
  INFO("tanh: " << t.ulps << " ulp at " << t.at);
  CHECK(t.ulps <= 2);
  // Subnormal exp results, as absolute error in units of the smallest one.
  Worst sub = worstError(sweep(-103.9f, -87.4f, 1), tcc::cpu::expArray,
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
