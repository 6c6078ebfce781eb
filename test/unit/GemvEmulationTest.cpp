//===- GemvEmulationTest.cpp - the GEMV kernels, on the host --------------===//
//
// Runs the kernels of Kernels/Gemv.cu themselves (compiled here against
// GemvEmulation.h: each warp of a launch as 32 threads, warp after warp) and
// compares C with the product computed in double from the same bf16/f16
// inputs: every row count 1-8 (one column per warp for 1 row; 8 or 4 columns
// per warp and the transposing reduction from 2), column counts that leave a
// warp's last group part empty, depths whose chunks end inside a lane's
// round, padded row strides, alpha, bias, ReLU, tanh GELU and a residual,
// and a grid smaller than the columns (the kernels stride over the rest).
// The result is rounded once, so it must be within one unit in the last
// place of the exact value plus the f32 sums' error.
//
//===----------------------------------------------------------------------===//
#include "GemvEmulation.h"

#define TCC_GEMV_EMULATION "../../../test/unit/GemvEmulation.h"
#include "Kernels/Gemv.cu"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

using Kernel = void (*)(GemvParams);

template <typename T> struct Case;
template <> struct Case<__nv_bfloat16> {
  static constexpr const char *name = "bf16";
  static constexpr double ulp = 1.0 / 128; // 2^-7: bf16's 8 significant bits
  static constexpr Kernel kernels[8] = {tcc_gemv_bf16_r1, tcc_gemv_bf16_r2, tcc_gemv_bf16_r3,
                                        tcc_gemv_bf16_r4, tcc_gemv_bf16_r5, tcc_gemv_bf16_r6,
                                        tcc_gemv_bf16_r7, tcc_gemv_bf16_r8};
  static __nv_bfloat16 from(float x) { return __float2bfloat16_rn(x); }
  static double to(__nv_bfloat16 x) { return __bfloat162float(x); }
};
template <> struct Case<__half> {
  static constexpr const char *name = "f16";
  static constexpr double ulp = 1.0 / 1024;
  static constexpr Kernel kernels[8] = {tcc_gemv_f16_r1, tcc_gemv_f16_r2, tcc_gemv_f16_r3,
                                        tcc_gemv_f16_r4, tcc_gemv_f16_r5, tcc_gemv_f16_r6,
                                        tcc_gemv_f16_r7, tcc_gemv_f16_r8};
  static __half from(float x) { return __float2half_rn(x); }
  static double to(__half x) { return __half2float(x); }
};

struct Shape {
  int rows;
  int64_t n, k;
  int64_t pad = 0; ///< extra elements per row of A, C and R
  bool bias = false, residual = false;
  int32_t activation = tcc_gemv::kGemvNone;
  float alpha = 1.0f;
  unsigned blocks = 2;
};

/// Runs one product through the row count's kernel and checks every output.
template <typename T> void check(const Shape &s, std::mt19937 &rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int64_t lda = s.k + 8 * s.pad, ldc = s.n + s.pad;
  auto fill = [&](size_t count) {
    std::vector<T> v(count);
    for (T &x : v)
      x = Case<T>::from(normal(rng));
    return v;
  };
  // 16-byte aligned storage for A and W (the kernels' 16-byte loads).
  std::vector<uint4> aStore((s.rows * lda * 2 + 15) / 16 + 1), wStore((s.n * s.k * 2 + 15) / 16 + 1);
  T *a = reinterpret_cast<T *>(aStore.data());
  T *w = reinterpret_cast<T *>(wStore.data());
  std::vector<T> av = fill(s.rows * lda), wv = fill(s.n * s.k), bias = fill(s.n),
                 residual = fill(s.rows * ldc);
  std::copy(av.begin(), av.end(), a);
  std::copy(wv.begin(), wv.end(), w);
  std::vector<T> c(s.rows * ldc, Case<T>::from(-512.0f));

  GemvParams p{};
  p.a = a;
  p.w = w;
  p.c = c.data();
  p.residual = s.residual ? residual.data() : nullptr;
  p.bias = s.bias ? bias.data() : nullptr;
  p.lda = lda;
  p.ldw = s.k;
  p.ldc = ldc;
  p.ldr = s.residual ? ldc : 0;
  p.n = s.n;
  p.k = static_cast<int32_t>(s.k);
  p.activation = s.activation;
  p.alpha = s.alpha;
  Kernel kernel = Case<T>::kernels[s.rows - 1];
  for (unsigned block = 0; block < s.blocks; ++block)
    for (unsigned warp = 0; warp < tcc_gemv::kGemvBlock / 32; ++warp)
      tcc_gemv_emulation::runWarp(s.blocks, block, warp, [&] { kernel(p); });

  INFO(Case<T>::name << " rows " << s.rows << " n " << s.n << " k " << s.k << " pad " << s.pad);
  for (int r = 0; r < s.rows; ++r)
    for (int64_t j = 0; j < s.n; ++j) {
      double dot = 0, magnitude = 0;
      for (int64_t i = 0; i < s.k; ++i) {
        double term = Case<T>::to(a[r * lda + i]) * Case<T>::to(w[j * s.k + i]);
        dot += term;
        magnitude += std::fabs(term);
      }
      double v = s.alpha * dot + (s.bias ? Case<T>::to(bias[j]) : 0.0);
      if (s.activation == tcc_gemv::kGemvRelu)
        v = std::max(v, 0.0);
      else if (s.activation == tcc_gemv::kGemvGeluTanh)
        v = 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
      if (s.residual)
        v += Case<T>::to(residual[r * ldc + j]);
      const double got = Case<T>::to(c[r * ldc + j]);
      // One rounding of the result, f32 sums over k terms, GELU's tanh.
      const double tolerance = Case<T>::ulp * std::fabs(v) +
                               1e-6 * (s.k + 8) * (std::fabs(s.alpha) * magnitude + 1) + 1e-6;
      INFO("row " << r << " column " << j << ": got " << got << ", want " << v);
      CHECK(std::fabs(got - v) <= tolerance);
    }
  // Padding between rows of C is not written.
  for (int r = 0; r < s.rows; ++r)
    for (int64_t j = s.n; j < ldc; ++j)
      CHECK(Case<T>::to(c[r * ldc + j]) == -512.0);
}

template <typename T> void checkAll() {
  std::mt19937 rng(7);
  for (int rows = 1; rows <= 8; ++rows) {
    check<T>({rows, 1, 8}, rng);
    check<T>({rows, 33, 136, /*pad=*/1}, rng);      // 17 chunks: a lane's round ends early
    check<T>({rows, 130, 520, 0, true, false, tcc_gemv::kGemvRelu, 1.0f, 1}, rng);
    check<T>({rows, 71, 264, 2, true, true, tcc_gemv::kGemvGeluTanh, 0.5f, 2}, rng);
  }
}

} // namespace

TEST_CASE("GEMV kernels, emulated, against a double product (bf16)", "[gemv]") {
  checkAll<__nv_bfloat16>();
}

TEST_CASE("GEMV kernels, emulated, against a double product (f16)", "[gemv]") {
  checkAll<__half>();
}
