//===- QuantizedConvTest.cpp - tcc_cpu_qconv2d against its definition -----===//
//
// tcc_cpu_qconv2d (QuantizedConv.h) on random int8 images and filters,
// against its definition computed here (exact integer sums, the epilogue in
// double, round half to even): oneDNN's primitive where it takes the case,
// tcc's loops where the filters have zero points. Requantized results may
// differ by one quantization step (oneDNN adds the zero point before
// rounding and computes in f32), f32 results by f32 rounding.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/QuantizedConv.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace {

struct Case {
  int64_t n, c, h, w, k, r, s, stride, pad, dilation, groups;
  bool signedInput, bias, residual, relu, requantize, signedOutput;
  int64_t quantMin, quantMax, inputZp, outputZp;
  bool weightZeroPoints; ///< nonzero filter zero points: tcc's loops
  int64_t batchPad = 0;  ///< extra elements between images (a strided view)
  bool gelu = false;     ///< the exact GELU instead of ReLU
};

/// The largest |got - want| over the result: in quantization steps for a
/// requantized result, relative to max |want| for an f32 one.
double maxError(const Case &t) {
  std::mt19937 rng(static_cast<uint32_t>(t.n * 131 + t.c * 17 + t.k + t.groups));
  std::uniform_int_distribution<int> u8(0, 255), s8(-128, 127), zp(-3, 3);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f), pos(0.001f, 0.01f);
  const int64_t oh = (t.h + 2 * t.pad - t.dilation * (t.r - 1) - 1) / t.stride + 1;
  const int64_t ow = (t.w + 2 * t.pad - t.dilation * (t.s - 1) - 1) / t.stride + 1;
  const int64_t cg = t.c / t.groups, kg = t.k / t.groups;
  const int64_t xImage = t.c * t.h * t.w + t.batchPad;
  std::vector<uint8_t> x(t.n * xImage);
  for (uint8_t &v : x)
    v = static_cast<uint8_t>(t.signedInput ? s8(rng) : u8(rng));
  std::vector<int8_t> weight(t.k * cg * t.r * t.s);
  for (int8_t &v : weight)
    v = static_cast<int8_t>(s8(rng));
  std::vector<float> scales(t.k), bias(t.k), residual(t.n * t.k * oh * ow);
  std::vector<int64_t> weightZp(t.k, 0);
  for (int64_t f = 0; f < t.k; ++f) {
    scales[f] = pos(rng) * 0.01f;
    bias[f] = unit(rng);
    if (t.weightZeroPoints)
      weightZp[f] = zp(rng);
  }
  for (float &v : residual)
    v = unit(rng);
  const int64_t inputZp = t.inputZp, outputZp = t.outputZp;
  const float inverseScale = 60.0f;
  const size_t outBytes = t.requantize ? 1 : sizeof(float);
  std::vector<uint8_t> y(t.n * t.k * oh * ow * outBytes);
  int32_t flags = (t.signedInput ? tcc::kQConvInputSigned : 0) |
                  (t.requantize ? tcc::kQConvRequantize : 0) |
                  (t.signedOutput ? tcc::kQConvOutputSigned : 0) | (t.relu ? tcc::kQConvRelu : 0) |
                  (t.gelu ? tcc::kQConvGeluErf : 0);
  const int64_t ys[4] = {t.k * oh * ow, oh * ow, ow, 1};
  tcc_cpu_qconv2d(t.n, t.c, t.h, t.w, t.k, t.r, t.s, oh, ow, t.pad, t.pad, t.stride, t.stride,
                  t.dilation, t.dilation, t.groups, xImage, t.h * t.w, t.w, 1, ys[0], ys[1],
                  ys[2], ys[3], t.residual ? ys[0] : 0, t.residual ? ys[1] : 0,
                  t.residual ? ys[2] : 0, t.residual ? ys[3] : 0, x.data(), weight.data(),
                  scales.data(), weightZp.data(), &inputZp, t.bias ? bias.data() : nullptr,
                  t.residual ? residual.data() : nullptr, t.requantize ? &inverseScale : nullptr,
                  t.requantize ? &outputZp : nullptr, y.data(), flags, t.quantMin, t.quantMax);
  double worst = 0.0, largest = 0.0;
  for (int64_t n = 0; n < t.n; ++n)
    for (int64_t f = 0; f < t.k; ++f)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          int64_t acc = 0, g = f / kg;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t u = 0; u < t.r; ++u)
              for (int64_t v = 0; v < t.s; ++v) {
                int64_t hi = i * t.stride - t.pad + u * t.dilation;
                int64_t wi = j * t.stride - t.pad + v * t.dilation;
                if (hi < 0 || hi >= t.h || wi < 0 || wi >= t.w)
                  continue;
                uint8_t raw = x[n * xImage + (g * cg + ci) * t.h * t.w + hi * t.w + wi];
                int64_t xv = t.signedInput ? static_cast<int8_t>(raw) : raw;
                acc += (xv - inputZp) *
                       (weight[((f * cg + ci) * t.r + u) * t.s + v] - weightZp[f]);
              }
          int64_t at = n * ys[0] + f * ys[1] + i * ys[2] + j;
          double want = static_cast<double>(acc) * scales[f] + (t.bias ? bias[f] : 0.0) +
                        (t.residual ? residual[at] : 0.0);
          if (t.relu)
            want = std::max(want, 0.0);
          if (t.gelu)
            want = 0.5 * want * (1.0 + std::erf(want / std::sqrt(2.0)));
          if (!t.requantize) {
            float got;
            std::memcpy(&got, y.data() + at * sizeof(float), sizeof got);
            worst = std::max(worst, std::abs(got - want));
            largest = std::max(largest, std::abs(want));
            continue;
          }
          double q = std::nearbyint(want * inverseScale) + static_cast<double>(outputZp);
          q = std::min(std::max(q, static_cast<double>(t.quantMin)),
                       static_cast<double>(t.quantMax));
          double got = t.signedOutput ? static_cast<int8_t>(y[at]) : y[at];
          worst = std::max(worst, std::abs(got - q));
        }
  return t.requantize ? worst : worst / std::max(largest, 1e-30);
}

} // namespace

TEST_CASE("tcc_cpu_qconv2d requantizes within one step", "[qconv]") {
  // u8 3x3, padding, bias, ReLU, u8 over the full range, input zero point.
  CHECK(maxError({2, 8, 9, 9, 16, 3, 3, 1, 1, 1, 1, false, true, false, true, true, false, 0, 255,
                  5, 3, false}) <= 1.0);
  // s8 images, stride and dilation 2, two groups, a residual, s8 in the
  // narrower symmetric range (the clip post-op).
  CHECK(maxError({1, 8, 11, 11, 8, 3, 3, 2, 2, 2, 2, true, false, true, false, true, true, -127,
                  127, -4, 1, false}) <= 1.0);
  // u8 [0, 127] (reduce_range) with ReLU, images strided between batches.
  CHECK(maxError({3, 4, 6, 7, 8, 3, 3, 1, 0, 1, 1, false, true, false, true, true, false, 0, 127,
                  0, 0, false, 13}) <= 1.0);
  // A linear layer of 5 rows, and of one row (computed as two).
  CHECK(maxError({5, 32, 1, 1, 24, 1, 1, 1, 0, 1, 1, false, true, false, true, true, false, 0, 255,
                  128, 0, false}) <= 1.0);
  CHECK(maxError({1, 32, 1, 1, 24, 1, 1, 1, 0, 1, 1, false, true, true, false, true, false, 0, 255,
                  128, 7, false}) <= 1.0);
  // BERT's feed-forward: a linear layer, the exact GELU, requantized; and
  // on tcc's loops (filter zero points).
  CHECK(maxError({16, 64, 1, 1, 32, 1, 1, 1, 0, 1, 1, false, true, false, false, true, false, 0,
                  255, 128, 20, false, 0, true}) <= 1.0);
  CHECK(maxError({4, 16, 1, 1, 8, 1, 1, 1, 0, 1, 1, false, true, false, false, true, false, 0, 255,
                  128, 20, true, 0, true}) <= 1.0);
  // Filters with zero points: tcc's loops, PyTorch's order.
  CHECK(maxError({2, 6, 5, 5, 4, 3, 3, 1, 1, 1, 1, false, true, true, true, true, false, 0, 255, 2,
                  10, true}) <= 1.0);
}

TEST_CASE("tcc_cpu_qconv2d gives f32 results", "[qconv]") {
  CHECK(maxError({2, 8, 9, 9, 16, 3, 3, 1, 1, 1, 1, false, true, true, true, false, false, 0, 0, 9,
                  0, false}) <= 1e-5);
  CHECK(maxError({1, 32, 1, 1, 24, 1, 1, 1, 0, 1, 1, true, true, true, false, false, false, 0, 0,
                  -2, 0, false}) <= 1e-5);
  CHECK(maxError({2, 6, 5, 5, 4, 3, 3, 1, 1, 1, 1, true, false, false, false, false, false, 0, 0,
                  1, 0, true}) <= 1e-5);
}
