//===- WinogradTransforms.h - Winograd F(4x4, 3x3), one tile --------------===//
//
// The minimal filtering algorithm F(4x4, 3x3) (Lavin and Gray, "Fast
// Algorithms for Convolutional Neural Networks", 2015), points 0, ±1, ±2, ∞:
// a 4x4 block of a 3x3 cross-correlation over a 6x6 input tile d is
//
//   Y = Aᵀ [(G g Gᵀ) ⊙ (Bᵀ d B)] A
//
// and summed over input channels inside the brackets, so the channel sums
// of all tiles are 36 independent matrix products (one per element ξ of the
// 6x6 transformed tile). 36 multiplications per channel and 16 outputs
// instead of 144; in fp32 the transforms cost about 3e-6 of the output's
// scale at 512 channels (direct summation: about 1e-6).
//
// Shared by Kernels/Winograd.cu (nvcc) and the unit test that checks the
// transforms against a direct cross-correlation on the host (plain C++17).
// Tiles are row-major: element (i, j) of a 6x6 tile is [6 * i + j].
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_RUNTIME_KERNELS_WINOGRADTRANSFORMS_H
#define TCC_LIB_RUNTIME_KERNELS_WINOGRADTRANSFORMS_H

#ifdef __CUDACC__
#define TCC_WINOGRAD_FN __host__ __device__ __forceinline__
#else
#define TCC_WINOGRAD_FN inline
#endif

namespace tcc_winograd {

/// Input tile side, output tile side, transformed elements per tile.
constexpr int kTile = 6, kOut = 4, kElements = kTile * kTile;

/// Bᵀ applied to the six values a[0], a[stride], ..., a[5 * stride].
TCC_WINOGRAD_FN void inputRow(float *a, int stride) {
  const float a0 = a[0], a1 = a[stride], a2 = a[2 * stride], a3 = a[3 * stride],
              a4 = a[4 * stride], a5 = a[5 * stride];
  a[0] = 4.0f * a0 - 5.0f * a2 + a4;
  a[stride] = -4.0f * (a1 + a2) + a3 + a4;
  a[2 * stride] = 4.0f * (a1 - a2) - a3 + a4;
  a[3 * stride] = 2.0f * (a3 - a1) - a2 + a4;
  a[4 * stride] = 2.0f * (a1 - a3) - a2 + a4;
  a[5 * stride] = 4.0f * a1 - 5.0f * a3 + a5;
}

/// d ← Bᵀ d B, in place (36 elements).
TCC_WINOGRAD_FN void transformInputTile(float *d) {
  for (int j = 0; j < kTile; ++j)
    inputRow(d + j, kTile); // columns: Bᵀ d
  for (int i = 0; i < kTile; ++i)
    inputRow(d + kTile * i, 1); // rows: (Bᵀ d) B
}

/// G applied to three values g[0], g[gs], g[2 gs], into u[0], u[us], ..., u[5 us].
TCC_WINOGRAD_FN void filterRow(const float *g, int gs, float *u, int us) {
  const float g0 = g[0], g1 = g[gs], g2 = g[2 * gs];
  u[0] = 0.25f * g0;
  u[us] = -(g0 + g1 + g2) * (1.0f / 6.0f);
  u[2 * us] = -(g0 - g1 + g2) * (1.0f / 6.0f);
  u[3 * us] = g0 * (1.0f / 24.0f) + g1 * (1.0f / 12.0f) + g2 * (1.0f / 6.0f);
  u[4 * us] = g0 * (1.0f / 24.0f) - g1 * (1.0f / 12.0f) + g2 * (1.0f / 6.0f);
  u[5 * us] = g2;
}

/// u ← G g Gᵀ for a 3x3 filter g (row-major, 9 elements) into 36 elements.
TCC_WINOGRAD_FN void transformFilter(const float *g, float *u) {
  float t[kTile * 3]; // G g: 6 rows of 3
  for (int j = 0; j < 3; ++j)
    filterRow(g + j, 3, t + j, 3);
  for (int i = 0; i < kTile; ++i)
    filterRow(t + 3 * i, 1, u + kTile * i, 1);
}

/// Aᵀ applied to six values m[0], m[ms], ..., m[5 ms], into y[0], y[ys], .., y[3 ys].
TCC_WINOGRAD_FN void outputRow(const float *m, int ms, float *y, int ys) {
  const float m0 = m[0], m1 = m[ms], m2 = m[2 * ms], m3 = m[3 * ms], m4 = m[4 * ms],
              m5 = m[5 * ms];
  const float p12 = m1 + m2, d12 = m1 - m2, p34 = m3 + m4, d34 = m3 - m4;
  y[0] = m0 + p12 + p34;
  y[ys] = d12 + 2.0f * d34;
  y[2 * ys] = p12 + 4.0f * p34;
  y[3 * ys] = d12 + 8.0f * d34 + m5;
}

/// y ← Aᵀ m A: the 4x4 outputs (row-major) of a transformed 6x6 tile m.
TCC_WINOGRAD_FN void transformOutputTile(const float *m, float *y) {
  float t[kOut * kTile]; // Aᵀ m: 4 rows of 6
  for (int j = 0; j < kTile; ++j)
    outputRow(m + j, kTile, t + j, kTile);
  for (int i = 0; i < kOut; ++i)
    outputRow(t + kTile * i, 1, y + kOut * i, 1);
}

} // namespace tcc_winograd

#endif // TCC_LIB_RUNTIME_KERNELS_WINOGRADTRANSFORMS_H
