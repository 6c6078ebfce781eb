//===- CpuGemm.cpp - the CPU path's products, convolutions and attention -===//
#include "tcc/Runtime/CpuGemm.h"

#include "tcc/Runtime/AttentionKernels.h"
#include "tcc/Runtime/CublasLtGemm.h"
#include "tcc/Runtime/CpuParallel.h"
#include "tcc/Runtime/CudnnConv.h"
#include "tcc/Runtime/OneDnnConv.h"
#include "tcc/Runtime/OneDnnGemm.h"

#include "Kernels/ConvActivations.h"
#include "OneDnnLibrary.h"

#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

namespace {

// CBLAS's enum values (cblas.h), which OpenBLAS's cblas_sgemm takes.
constexpr int kCblasRowMajor = 101, kCblasNoTrans = 111, kCblasTrans = 112;

using Sgemm = void (*)(int order, int transA, int transB, int m, int n, int k, float alpha,
                       const float *a, int lda, const float *b, int ldb, float beta, float *c,
                       int ldc);

/// OpenBLAS's cblas_sgemm, or null when the library is missing.
Sgemm openBlasSgemm() {
  static Sgemm sgemm = [] {
    const char *name = std::getenv("TCC_BLAS_LIBRARY");
    if (!name || !*name)
      name = "libopenblas.so.0";
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    auto sgemm = handle ? reinterpret_cast<Sgemm>(dlsym(handle, "cblas_sgemm")) : nullptr;
    if (!sgemm) {
      const char *why = dlerror();
      std::fprintf(stderr,
                   "tcc: %s not usable (%s); the CPU path's matrix products run on tcc's own "
                   "loops, much slower. Install OpenBLAS (Debian: libopenblas0).\n",
                   name, why ? why : "no cblas_sgemm");
      return Sgemm(nullptr);
    }
    // One thread pool per call: with oneDNN there, its OpenMP threads run the
    // products worth threading and OpenBLAS keeps to the calling thread (its
    // own threads spinning beside OpenMP's cost BERT-base b1 a third at two
    // threads on the build machine: 205 against 151 ms). Without oneDNN,
    // OpenBLAS takes TCC_NUM_THREADS.
    auto set = reinterpret_cast<void (*)(int)>(dlsym(handle, "openblas_set_num_threads"));
    const char *threads = std::getenv("TCC_NUM_THREADS");
    if (set && tcc::cpu::onednn::library())
      set(1);
    else if (set && threads && std::atoi(threads) > 0)
      set(std::atoi(threads));
    return sgemm;
  }();
  return sgemm;
}

/// C = alpha op(A) op(B) for one matrix, without a library (row-major).
void loopSgemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha,
               const float *a, int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    float *row = c + i * ldc;
    for (int64_t j = 0; j < n; ++j)
      row[j] = 0.0f;
    for (int64_t p = 0; p < k; ++p) {
      float x = alpha * (transA ? a[p * lda + i] : a[i * lda + p]);
      if (transB)
        for (int64_t j = 0; j < n; ++j)
          row[j] += x * b[j * ldb + p];
      else
        for (int64_t j = 0; j < n; ++j)
          row[j] += x * b[p * ldb + j];
    }
  }
}

/// The epilogue on one m×n result: bias and activation, or the residual.
void applyEpilogue(float *c, int64_t ldc, const float *r, int64_t ldr, const float *bias,
                   int32_t epilogue, int64_t m, int64_t n) {
  bool addBias = (epilogue & tcc::kGemmEpilogueBias) && bias;
  bool relu = epilogue & tcc::kGemmEpilogueRelu, gelu = epilogue & tcc::kGemmEpilogueGelu;
  bool geluErf = epilogue & tcc::kGemmEpilogueGeluErf;
  if (!addBias && !relu && !gelu && !geluErf && !r)
    return;
  for (int64_t i = 0; i < m; ++i) {
    float *row = c + i * ldc;
    const float *res = r ? r + i * ldr : nullptr;
    for (int64_t j = 0; j < n; ++j) {
      float v = row[j];
      if (addBias)
        v += bias[j];
      if (relu)
        v = v > 0.0f ? v : (std::isnan(v) ? v : 0.0f);
      else if (gelu)  // tanh approximation, as the CUDA path's cuBLASLt epilogue
        v = 0.5f * v * (1.0f + std::tanh(0.7978845608028654f * (v + 0.044715f * v * v * v)));
      else if (geluErf)
        v = 0.5f * v * (1.0f + std::erf(v * 0.7071067811865476f));
      if (res)
        v += res[j];
      row[j] = v;
    }
  }
}

} // namespace

extern "C" void tcc_cpu_gemm(int32_t dtype, int32_t, int64_t batch0, int64_t batch1, int64_t m,
                             int64_t n, int64_t k, const void *a, int64_t lda, int64_t strideA0,
                             int64_t strideA1, int32_t transA, const void *b, int64_t ldb,
                             int64_t strideB0, int64_t strideB1, int32_t transB, void *c,
                             int64_t ldc, int64_t strideC0, int64_t strideC1,
                             const void *residual, int64_t ldr, int64_t strideR0,
                             int64_t strideR1, const void *bias, int32_t epilogue, float alpha,
                             void *) {
  if (dtype != tcc::kKernelF32) {
    // The lowering calls this for f32 products only.
    std::fprintf(stderr, "tcc: internal error: tcc_cpu_gemm called with element type %d\n",
                 dtype);
    std::abort();
  }
  const bool bIsWeight = (epilogue & tcc::kGemmBIsBoundWeight) != 0;
  epilogue = tcc::gemmEpilogueBits(epilogue);
  Sgemm sgemm = openBlasSgemm();
  const float *A = static_cast<const float *>(a), *B = static_cast<const float *>(b);
  const float *R = static_cast<const float *>(residual), *bias32 = static_cast<const float *>(bias);
  float *C = static_cast<float *>(c);
  for (int64_t i = 0; i < batch0; ++i)
    for (int64_t j = 0; j < batch1; ++j) {
      const float *ai = A + i * strideA0 + j * strideA1, *bi = B + i * strideB0 + j * strideB1;
      float *ci = C + i * strideC0 + j * strideC1;
      const float *ri = R ? R + i * strideR0 + j * strideR1 : nullptr;
      if (m <= 0 || n <= 0)
        continue;
      // On oneDNN where it is there (a linear layer's weight packed once per
      // binding), else OpenBLAS. oneDNN's ReLU post-op turns NaN into 0
      // (PyTorch keeps it): with ReLU, oneDNN computes a·b + bias and the
      // ReLU and residual follow here (not where the residual is C itself,
      // which oneDNN would add before the ReLU could run).
      const bool relu = (epilogue & tcc::kGemmEpilogueRelu) != 0;
      if (alpha == 1.0f && k > 0 && !(relu && ri == ci) &&
          tcc::cpu::oneDnnGemm({m, n, k, ai, lda, transA != 0, bi, ldb, transB != 0, bIsWeight,
                                ci, ldc, relu ? nullptr : ri, ldr,
                                (epilogue & tcc::kGemmEpilogueBias) ? bias32 : nullptr,
                                relu ? 0
                                     : epilogue & (tcc::kGemmEpilogueGelu |
                                                   tcc::kGemmEpilogueGeluErf)})) {
        if (relu)
          applyEpilogue(ci, ldc, ri, ldr, nullptr, tcc::kGemmEpilogueRelu, m, n);
        continue;
      }
      // A residual in C's own buffer (accumulated onto): the product adds to it.
      bool accumulate = ri == ci && ldr == ldc;
      if (sgemm && k > 0) {
        sgemm(kCblasRowMajor, transA ? kCblasTrans : kCblasNoTrans,
              transB ? kCblasTrans : kCblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), alpha, ai, static_cast<int>(lda), bi, static_cast<int>(ldb),
              accumulate ? 1.0f : 0.0f, ci, static_cast<int>(ldc));
      } else {
        if (accumulate) {  // the loops overwrite C: keep the residual aside
          std::vector<float> saved(ri, ri + (m - 1) * ldr + n);
          loopSgemm(transA, transB, m, n, k, alpha, ai, lda, bi, ldb, ci, ldc);
          applyEpilogue(ci, ldc, saved.data(), ldr, bias32, epilogue, m, n);
          continue;
        }
        loopSgemm(transA, transB, m, n, k, alpha, ai, lda, bi, ldb, ci, ldc);
      }
      applyEpilogue(ci, ldc, accumulate ? nullptr : ri, ldr, bias32, epilogue, m, n);
    }
}

namespace {
/// One image's columns for one group: row (ci, u, v), column (i, j) holds
/// x[ci, i·sh − padH + u·dh, j·sw − padW + v·dw], 0 outside the image.
void im2col(const float *x, int64_t cg, int64_t h, int64_t w, int64_t r, int64_t s, int64_t oh,
            int64_t ow, int64_t padH, int64_t padW, int64_t sh, int64_t sw, int64_t dh,
            int64_t dw, float *col) {
  for (int64_t ci = 0; ci < cg; ++ci)
    for (int64_t u = 0; u < r; ++u)
      for (int64_t v = 0; v < s; ++v) {
        float *row = col + ((ci * r + u) * s + v) * oh * ow;
        for (int64_t i = 0; i < oh; ++i) {
          int64_t yi = i * sh - padH + u * dh;
          for (int64_t j = 0; j < ow; ++j) {
            int64_t xj = j * sw - padW + v * dw;
            row[i * ow + j] = (yi >= 0 && yi < h && xj >= 0 && xj < w)
                                  ? x[(ci * h + yi) * w + xj]
                                  : 0.0f;
          }
        }
      }
}

/// Any convolution tcc_cpu_conv2d takes, through strides, one output element
/// at a time: where neither oneDNN nor the packed NCHW route below applies.
void directConv2d(const tcc::cpu::ConvArgs &a) {
  const int64_t cg = a.c / a.groups, kg = a.k / a.groups;
  const int64_t *xs = a.xStrides, *ys = a.yStrides, *zs = a.zStrides;
  // The filter's strides for (f, ci, u, v): k×cg×r×s, or k×r×s×cg.
  const int64_t wf = cg * a.r * a.s, wc = a.filterNhwc ? 1 : a.r * a.s;
  const int64_t wu = a.filterNhwc ? a.s * cg : a.s, wv = a.filterNhwc ? cg : 1;
  for (int64_t b = 0; b < a.n; ++b)
    for (int64_t f = 0; f < a.k; ++f) {
      const int64_t c0 = f / kg * cg;
      for (int64_t i = 0; i < a.oh; ++i)
        for (int64_t j = 0; j < a.ow; ++j) {
          float acc = 0.0f;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t u = 0; u < a.r; ++u) {
              int64_t yi = i * a.strideH - a.padH + u * a.dilationH;
              if (yi < 0 || yi >= a.h)
                continue;
              for (int64_t v = 0; v < a.s; ++v) {
                int64_t xj = j * a.strideW - a.padW + v * a.dilationW;
                if (xj < 0 || xj >= a.w)
                  continue;
                float in = a.x[b * xs[0] + (c0 + ci) * xs[1] + yi * xs[2] + xj * xs[3]];
                acc += tcc_activations::activate(a.inputActivation, in) *
                       a.weight[f * wf + ci * wc + u * wu + v * wv];
              }
            }
          if (a.bias)
            acc += a.bias[f];
          if (a.z)
            acc += a.z[b * zs[0] + f * zs[1] + i * zs[2] + j * zs[3]];
          a.y[b * ys[0] + f * ys[1] + i * ys[2] + j * ys[3]] =
              tcc_activations::activate(a.activation, acc);
        }
    }
}
} // namespace

extern "C" void tcc_cpu_conv2d(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r,
                               int64_t s, int64_t oh, int64_t ow, int64_t padH, int64_t padW,
                               int64_t sh, int64_t sw, int64_t dh, int64_t dw, int64_t groups,
                               int64_t xStrideN, int64_t xStrideC, int64_t xStrideH,
                               int64_t xStrideW, int64_t yStrideN, int64_t yStrideC,
                               int64_t yStrideH, int64_t yStrideW, int64_t zStrideN,
                               int64_t zStrideC, int64_t zStrideH, int64_t zStrideW,
                               const void *xv, const void *weightv, const void *biasv,
                               const void *zv, void *yv, int32_t dtype, int32_t,
                               int32_t options, int32_t layout, void *) {
  if (dtype != tcc::kKernelF32) {
    std::fprintf(stderr, "tcc: internal error: tcc_cpu_conv2d called with element type %d\n",
                 dtype);
    std::abort();
  }
  if (n <= 0 || k <= 0 || oh <= 0 || ow <= 0)
    return; // an empty result
  const int32_t activations = tcc::convActivationBits(options);
  tcc::cpu::ConvArgs args{n, c, h, w, k, r, s, oh, ow, padH, padW, sh, sw, dh, dw, groups,
                          {xStrideN, xStrideC, xStrideH, xStrideW},
                          {yStrideN, yStrideC, yStrideH, yStrideW},
                          {zStrideN, zStrideC, zStrideH, zStrideW},
                          static_cast<const float *>(xv), static_cast<const float *>(weightv),
                          static_cast<const float *>(biasv), static_cast<const float *>(zv),
                          static_cast<float *>(yv), tcc::convEpilogueActivation(activations),
                          tcc::convInputActivation(activations),
                          layout == tcc::kConvLayoutNhwc, tcc::convFilterIsBoundWeight(options)};
  if (tcc::cpu::oneDnnConv2d(args))
    return;
  // Without oneDNN: images packed NCHW in OpenBLAS's sgemm, others in loops.
  auto packedImage = [](int64_t channel, int64_t row, int64_t col, int64_t rows, int64_t cols) {
    return col == 1 && row == cols && channel == rows * cols;
  };
  if (layout != tcc::kConvLayoutNchw || !packedImage(xStrideC, xStrideH, xStrideW, h, w) ||
      !packedImage(yStrideC, yStrideH, yStrideW, oh, ow) ||
      (zv && !packedImage(zStrideC, zStrideH, zStrideW, oh, ow))) {
    directConv2d(args);
    return;
  }
  const int64_t xStride = xStrideN, yStride = yStrideN, zStride = zStrideN;
  const float *x = static_cast<const float *>(xv), *wt = static_cast<const float *>(weightv);
  const float *bias = static_cast<const float *>(biasv), *z = static_cast<const float *>(zv);
  float *y = static_cast<float *>(yv);
  const int64_t cg = c / groups, kg = k / groups, pixels = oh * ow, taps = cg * r * s;
  const int32_t activation = tcc::convEpilogueActivation(activations);
  const int32_t inputActivation = tcc::convInputActivation(activations);
  Sgemm sgemm = openBlasSgemm();
  const bool direct = r == 1 && s == 1 && sh == 1 && sw == 1 && padH == 0 && padW == 0;
  const bool depthwise = cg == 1 && kg == 1;
  std::vector<float> col(direct || depthwise ? 0 : static_cast<size_t>(taps * pixels));
  // The input activation once per element (not once per window using it).
  std::vector<float> activated(inputActivation ? static_cast<size_t>(c * h * w) : 0);
  for (int64_t b = 0; b < n; ++b) {
    const float *xb = x + b * xStride;
    if (inputActivation) {
      for (size_t e = 0; e < activated.size(); ++e)
        activated[e] = tcc_activations::activate(inputActivation, xb[e]);
      xb = activated.data();
    }
    float *yb = y + b * yStride;
    const float *zb = z ? z + b * zStride : nullptr;
    // A residual in y's own buffer is accumulated onto (beta = 1).
    const bool accumulate = zb == yb;
    if (depthwise) {  // a direct loop per channel
      for (int64_t f = 0; f < k; ++f)
        for (int64_t i = 0; i < oh; ++i)
          for (int64_t j = 0; j < ow; ++j) {
            float acc = 0.0f;
            for (int64_t u = 0; u < r; ++u) {
              int64_t yi = i * sh - padH + u * dh;
              if (yi < 0 || yi >= h)
                continue;
              for (int64_t v = 0; v < s; ++v) {
                int64_t xj = j * sw - padW + v * dw;
                if (xj >= 0 && xj < w)
                  acc += xb[(f * h + yi) * w + xj] * wt[(f * r + u) * s + v];
              }
            }
            float &out = yb[f * pixels + i * ow + j];
            out = accumulate ? out + acc : acc;
          }
    } else {
      for (int64_t g = 0; g < groups; ++g) {
        const float *xg = xb + g * cg * h * w, *wg = wt + g * kg * taps;
        float *yg = yb + g * kg * pixels;
        const float *cols = xg;
        if (!direct) {
          im2col(xg, cg, h, w, r, s, oh, ow, padH, padW, sh, sw, dh, dw, col.data());
          cols = col.data();
        }
        if (sgemm) {
          sgemm(kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, static_cast<int>(kg),
                static_cast<int>(pixels), static_cast<int>(taps), 1.0f, wg,
                static_cast<int>(taps), cols, static_cast<int>(pixels),
                accumulate ? 1.0f : 0.0f, yg, static_cast<int>(pixels));
        } else if (accumulate) {
          std::vector<float> saved(yg, yg + kg * pixels);
          loopSgemm(false, false, kg, pixels, taps, 1.0f, wg, taps, cols, pixels, yg, pixels);
          for (int64_t e = 0; e < kg * pixels; ++e)
            yg[e] += saved[e];
        } else {
          loopSgemm(false, false, kg, pixels, taps, 1.0f, wg, taps, cols, pixels, yg, pixels);
        }
      }
    }
    // Epilogue: + bias[f] + z, then the activation.
    if (!bias && !activation && (!zb || accumulate))
      continue;
    for (int64_t f = 0; f < k; ++f) {
      float *row = yb + f * pixels;
      const float *res = zb && !accumulate ? zb + f * pixels : nullptr;
      float add = bias ? bias[f] : 0.0f;
      for (int64_t e = 0; e < pixels; ++e) {
        float v = row[e] + add + (res ? res[e] : 0.0f);
        row[e] = tcc_activations::activate(activation, v);
      }
    }
  }
}

extern "C" void tcc_cpu_attention(int32_t dtype, int32_t, int64_t batch, int64_t heads,
                                  int64_t kvHeads, int64_t lq, int64_t lk, int64_t headDim,
                                  int64_t valueDim, const void *qv, int64_t qB, int64_t qH,
                                  int64_t qL, const void *kv, int64_t kB, int64_t kH, int64_t kL,
                                  const void *vv, int64_t vB, int64_t vH, int64_t vL, void *ov,
                                  int64_t oB, int64_t oH, int64_t oL, const void *maskv,
                                  int32_t maskKind, int64_t mB, int64_t mH, int64_t mQ,
                                  int64_t mK, int64_t maskBatchPeriod, int64_t mOuter,
                                  int32_t causal, float scale, void *) {
  if (dtype != tcc::kKernelF32) {
    std::fprintf(stderr, "tcc: internal error: tcc_cpu_attention called with element type %d\n",
                 dtype);
    std::abort();
  }
  if (batch <= 0 || heads <= 0 || lq <= 0 || valueDim <= 0)
    return;
  const float *Q = static_cast<const float *>(qv), *K = static_cast<const float *>(kv),
              *V = static_cast<const float *>(vv);
  float *O = static_cast<float *>(ov);
  const bool *boolMask = maskKind == tcc::kAttentionMaskBool
                             ? static_cast<const bool *>(maskv) : nullptr;
  const float *addMask = maskKind == tcc::kAttentionMaskAdditive
                             ? static_cast<const float *>(maskv) : nullptr;
  const int64_t group = heads / kvHeads;
  const float negInf = -std::numeric_limits<float>::infinity();
  Sgemm sgemm = openBlasSgemm();
  // Flash-style, as the GPU kernels: per (batch, head), blocks of query rows
  // against blocks of keys, a running max and sum per row, the accumulator
  // rescaled when the max grows. The scores of one block pair (64 x 256, 64
  // KiB) are all that is materialized, whatever the sequence lengths.
  constexpr int64_t kQueryBlock = 64, kKeyBlock = 256;
  auto product = [&](bool transB, int64_t m, int64_t n, int64_t kk, float alpha, const float *a,
                     int64_t lda, const float *bm, int64_t ldb, float beta, float *c, int64_t ldc) {
    // A matrix of one row has no row stride to speak of (a view's unit dim
    // may carry 0: one query over a cache); BLAS wants one at least as long
    // as a row.
    if (m == 1)
      lda = std::max(lda, kk), ldc = std::max(ldc, n);
    if (transB ? n == 1 : kk == 1)
      ldb = std::max(ldb, transB ? kk : n);
    if (sgemm && kk > 0)
      sgemm(kCblasRowMajor, kCblasNoTrans, transB ? kCblasTrans : kCblasNoTrans,
            static_cast<int>(m), static_cast<int>(n), static_cast<int>(kk), alpha, a,
            static_cast<int>(lda), bm, static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
    else if (beta == 0.0f)
      loopSgemm(false, transB, m, n, kk, alpha, a, lda, bm, ldb, c, ldc);
    else {
      std::vector<float> t(static_cast<size_t>(m * n));
      loopSgemm(false, transB, m, n, kk, alpha, a, lda, bm, ldb, t.data(), n);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          c[i * ldc + j] += t[i * n + j];
    }
  };
  // (batch, head) pairs [begin, end), with one block's scores of their own.
  auto runHeads = [&](int64_t begin, int64_t end) {
    std::vector<float> scores(static_cast<size_t>(kQueryBlock * kKeyBlock));
    std::vector<float> acc(static_cast<size_t>(kQueryBlock * valueDim));
    std::vector<float> runMax(kQueryBlock), runSum(kQueryBlock);
    for (int64_t bh = begin; bh < end; ++bh) {
      const int64_t b = bh / heads, h = bh % heads;
      const float *q = Q + b * qB + h * qH;
      const float *k = lk ? K + b * kB + (h / group) * kH : nullptr;
      const float *v = lk ? V + b * vB + (h / group) * vH : nullptr;
      float *o = O + b * oB + h * oH;
      const int64_t m0 = (maskBatchPeriod > 0 ? (b % maskBatchPeriod) * mB + (b / maskBatchPeriod) * mOuter
                                              : b * mB) + h * mH;
      for (int64_t q0 = 0; q0 < lq; q0 += kQueryBlock) {
        const int64_t rows = std::min(kQueryBlock, lq - q0);
        std::fill(runMax.begin(), runMax.end(), negInf);
        std::fill(runSum.begin(), runSum.end(), 0.0f);
        std::fill(acc.begin(), acc.end(), 0.0f);
        // Causal: no key after the block's last row is visible to it.
        const int64_t keys = causal ? std::min(lk, q0 + rows) : lk;
        for (int64_t k0 = 0; k0 < keys; k0 += kKeyBlock) {
          const int64_t cols = std::min(kKeyBlock, keys - k0);
          float *s = scores.data();
          product(true, rows, cols, headDim, scale, q + q0 * qL, qL, k + k0 * kL, kL, 0.0f, s, cols);
          for (int64_t r = 0; r < rows; ++r) {
            const int64_t i = q0 + r;
            float *row = s + r * cols;
            float blockMax = negInf;
            for (int64_t c = 0; c < cols; ++c) {
              const int64_t j = k0 + c;
              float x = row[c];
              if (addMask)
                x += addMask[m0 + i * mQ + j * mK];
              bool hidden = (causal && j > i) || (boolMask && !boolMask[m0 + i * mQ + j * mK]) ||
                            x == negInf;
              row[c] = hidden ? negInf : x;
              if (!hidden && x > blockMax)
                blockMax = x;
            }
            // A row that has seen no visible key keeps (-inf, 0, 0).
            const float newMax = std::max(runMax[r], blockMax);
            if (newMax == negInf) {
              std::fill(row, row + cols, 0.0f);
              continue;
            }
            const float rescale = runMax[r] == negInf ? 0.0f : std::exp(runMax[r] - newMax);
            float sum = 0.0f;
            for (int64_t c = 0; c < cols; ++c) {
              float e = row[c] == negInf ? 0.0f : std::exp(row[c] - newMax);
              row[c] = e;
              sum += e;
            }
            runSum[r] = runSum[r] * rescale + sum;
            runMax[r] = newMax;
            if (rescale != 1.0f)
              for (int64_t d = 0; d < valueDim; ++d)
                acc[r * valueDim + d] *= rescale;
          }
          product(false, rows, valueDim, cols, 1.0f, s, cols, v + k0 * vL, vL, 1.0f, acc.data(),
                  valueDim);
        }
        // A query that sees no key gets 0.
        for (int64_t r = 0; r < rows; ++r) {
          const float inv = runSum[r] > 0.0f ? 1.0f / runSum[r] : 0.0f;
          for (int64_t d = 0; d < valueDim; ++d)
            o[(q0 + r) * oL + d] = acc[r * valueDim + d] * inv;
        }
      }
    }
  };
  // Heads in parallel on the runtime's pool (CpuParallel.h), each on
  // OpenBLAS's sgemm in the calling thread: only when oneDNN is there, since
  // without it OpenBLAS runs a pool of its own (CpuGemm.h). Measured on
  // BERT-base b1 s128 (2-core machine): attention was ~8% of a one-thread
  // call, behind oneDNN's products.
  struct Context {
    decltype(runHeads) *run;
  } context{&runHeads};
  const bool pooled = !sgemm || tcc::cpu::onednn::library();
  if (pooled)
    tcc_parallel_for(
        [](void *c, int64_t begin, int64_t end) { (*static_cast<Context *>(c)->run)(begin, end); },
        &context, 0, batch * heads, 1);
  else
    runHeads(0, batch * heads);
}
