//===- WinogradTransformsTest.cpp - F(4x4, 3x3) transforms on the host -----===//
//
// The transforms the GPU's Winograd convolution runs (Kernels/Winograd.cu),
// checked here against a direct 3x3 cross-correlation: one channel, a sum
// over channels taken in the transformed domain (as the kernels' batched
// product does), and filters that pick one input element.
//
//===----------------------------------------------------------------------===//
#include "Kernels/WinogradTransforms.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

using namespace tcc_winograd;

namespace {

/// The 4x4 cross-correlation of the 6x6 tiles d[c] with the 3x3 filters g[c],
/// summed over channels, in double.
std::vector<double> direct(const std::vector<float> &d, const std::vector<float> &g,
                           int channels) {
  std::vector<double> y(kOut * kOut, 0.0);
  for (int c = 0; c < channels; ++c)
    for (int i = 0; i < kOut; ++i)
      for (int j = 0; j < kOut; ++j)
        for (int u = 0; u < 3; ++u)
          for (int v = 0; v < 3; ++v)
            y[kOut * i + j] += double(d[kElements * c + kTile * (i + u) + j + v]) *
                               double(g[9 * c + 3 * u + v]);
  return y;
}

/// The same through the transforms: per channel Bᵀ d B and G g Gᵀ, their
/// products summed over channels, then Aᵀ m A.
std::vector<float> winograd(std::vector<float> d, const std::vector<float> &g, int channels) {
  float m[kElements] = {};
  for (int c = 0; c < channels; ++c) {
    float u[kElements];
    transformInputTile(d.data() + kElements * c);
    transformFilter(g.data() + 9 * c, u);
    for (int e = 0; e < kElements; ++e)
      m[e] += u[e] * d[kElements * c + e];
  }
  std::vector<float> y(kOut * kOut);
  transformOutputTile(m, y.data());
  return y;
}

double maxError(const std::vector<float> &got, const std::vector<double> &want) {
  double err = 0;
  for (size_t i = 0; i < want.size(); ++i)
    err = std::max(err, std::abs(double(got[i]) - want[i]));
  return err;
}

} // namespace

TEST_CASE("Winograd F(4x4,3x3) matches a direct cross-correlation", "[winograd]") {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  for (int channels : {1, 3, 64, 512}) {
    std::vector<float> d(kElements * channels), g(9 * channels);
    for (float &v : d)
      v = normal(rng);
    // Filters scaled as a network's are (He): outputs of unit size.
    for (float &v : g)
      v = normal(rng) * std::sqrt(2.0f / (9.0f * channels));
    std::vector<double> want = direct(d, g, channels);
    double scale = 0;
    for (double v : want)
      scale = std::max(scale, std::abs(v));
    INFO("channels " << channels);
    // fp32 transforms: a few 1e-6 of the output's scale (direct: about 1e-6).
    CHECK(maxError(winograd(d, g, channels), want) <= 2e-5 * std::max(scale, 1.0));
  }
}

TEST_CASE("Winograd F(4x4,3x3) of a one-element filter is a shifted copy", "[winograd]") {
  // Small integers (|d| <= 5): every step is exact in fp32 but the rounded
  // 1/6 and 1/24 of G, whose error Aᵀ's 8s amplify to a few 1e-6 of 5.
  std::vector<float> d(kElements);
  for (int e = 0; e < kElements; ++e)
    d[e] = float((e * 7) % 11 - 5);
  for (int u = 0; u < 3; ++u)
    for (int v = 0; v < 3; ++v) {
      std::vector<float> g(9, 0.0f);
      g[3 * u + v] = 1.0f;
      std::vector<float> y = winograd(d, g, 1);
      INFO("filter tap " << u << "," << v);
      for (int i = 0; i < kOut; ++i)
        for (int j = 0; j < kOut; ++j)
          CHECK(std::abs(y[kOut * i + j] - d[kTile * (i + u) + j + v]) <= 4e-5f);
    }
}
