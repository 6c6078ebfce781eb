//===- CpuAttentionTest.cpp - tcc_cpu_attention against its definition ----===//
//
// The CPU path's attention is blocked (64 queries by 256 keys, an online
// softmax): sequences longer than a block, masks, causal limits, grouped
// heads, rows that see no key and a mask per window are checked against the
// definition of AttentionKernels.h computed directly in double.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/AttentionKernels.h"
#include "tcc/Runtime/CpuGemm.h"
#include "tcc/Runtime/KernelTypes.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

struct Shape {
  int64_t batch, heads, kvHeads, lq, lk, d, dv;
};

/// The mask's layout: none, [B, H, Lq, Lk] full, or one per window
/// ([B / 2, 2, H, Lq, Lk] with the outer dim broadcast).
enum class MaskLayout { None, Full, Window };

struct Case {
  Shape s;
  int32_t maskKind = tcc::kAttentionMaskNone;
  MaskLayout layout = MaskLayout::None;
  bool causal = false;
};

/// Max |got - want| / max |want| after running `c` on random inputs, where
/// want is the definition in double.
double relativeError(const Case &c) {
  const Shape &s = c.s;
  std::mt19937 gen(7);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> uniform;
  auto fill = [&](std::vector<float> &x) {
    for (float &v : x)
      v = normal(gen);
  };
  std::vector<float> q(s.batch * s.heads * s.lq * s.d), k(s.batch * s.kvHeads * s.lk * s.d),
      v(s.batch * s.kvHeads * s.lk * s.dv), out(s.batch * s.heads * s.lq * s.dv, NAN);
  fill(q);
  fill(k);
  fill(v);
  // The mask: one plane per (mask batch, head); a window mask has 2 batches.
  const int64_t maskBatches = c.layout == MaskLayout::Window ? 2 : s.batch;
  const int64_t plane = s.lq * s.lk;
  std::vector<float> add(c.maskKind == tcc::kAttentionMaskAdditive ? maskBatches * s.heads * plane : 0);
  std::vector<uint8_t> keep(c.maskKind == tcc::kAttentionMaskBool ? maskBatches * s.heads * plane : 0);
  const float negInf = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < add.size(); ++i)
    add[i] = uniform(gen) < 0.2f ? negInf : normal(gen);
  for (size_t i = 0; i < keep.size(); ++i)
    keep[i] = uniform(gen) < 0.7f;
  // Query row 3 of every plane sees no key.
  for (int64_t p = 0; p < maskBatches * s.heads; ++p)
    for (int64_t j = 0; j < s.lk; ++j) {
      if (!add.empty())
        add[p * plane + 3 * s.lk + j] = negInf;
      if (!keep.empty())
        keep[p * plane + 3 * s.lk + j] = 0;
    }
  // Strides: contiguous [B, H, L, D] tensors; the mask's batch stride is
  // that of its own batches, split by 2 (outer stride 0) for a window mask.
  const void *mask = add.empty() ? static_cast<const void *>(keep.data()) : add.data();
  if (c.maskKind == tcc::kAttentionMaskNone)
    mask = nullptr;
  int64_t mB = s.heads * plane, period = c.layout == MaskLayout::Window ? 2 : 0;
  tcc_cpu_attention(tcc::kKernelF32, 0, s.batch, s.heads, s.kvHeads, s.lq, s.lk, s.d, s.dv,
                    q.data(), s.heads * s.lq * s.d, s.lq * s.d, s.d, k.data(),
                    s.kvHeads * s.lk * s.d, s.lk * s.d, s.d, v.data(), s.kvHeads * s.lk * s.dv,
                    s.lk * s.dv, s.dv, out.data(), s.heads * s.lq * s.dv, s.lq * s.dv, s.dv, mask,
                    c.maskKind, mB, plane, s.lk, 1, period, 0, c.causal, 0.3f, nullptr);

  double worst = 0.0, largest = 0.0;
  const int64_t group = s.heads / s.kvHeads;
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads; ++h) {
      const int64_t mb = c.layout == MaskLayout::Window ? b % 2 : b;
      const int64_t kvh = h / group;
      for (int64_t i = 0; i < s.lq; ++i) {
        std::vector<double> score(s.lk, -INFINITY);
        double top = -INFINITY;
        for (int64_t j = 0; j < s.lk; ++j) {
          int64_t m = (mb * s.heads + h) * plane + i * s.lk + j;
          if ((c.causal && j > i) || (!keep.empty() && !keep[m]))
            continue;
          double dot = 0.0;
          for (int64_t e = 0; e < s.d; ++e)
            dot += double(q[((b * s.heads + h) * s.lq + i) * s.d + e]) *
                   k[((b * s.kvHeads + kvh) * s.lk + j) * s.d + e];
          double x = 0.3 * dot + (add.empty() ? 0.0 : add[m]);
          score[j] = x;
          top = std::max(top, x);
        }
        for (int64_t e = 0; e < s.dv; ++e) {
          double num = 0.0, den = 0.0;
          if (top != -INFINITY)
            for (int64_t j = 0; j < s.lk; ++j) {
              double p = std::exp(score[j] - top);
              num += p * v[((b * s.kvHeads + kvh) * s.lk + j) * s.dv + e];
              den += p;
            }
          double want = den > 0.0 ? num / den : 0.0;
          double got = out[((b * s.heads + h) * s.lq + i) * s.dv + e];
          if (std::isnan(got))
            return INFINITY;
          worst = std::max(worst, std::abs(got - want));
          largest = std::max(largest, std::abs(want));
        }
      }
    }
  return worst / std::max(largest, 1e-30);
}

} // namespace

TEST_CASE("tcc_cpu_attention: sequences longer than a block, against the definition") {
  const Shape longer{2, 4, 2, 150, 600, 32, 24}; // 3 query blocks, 3 key blocks, gqa
  SECTION("no mask") { CHECK(relativeError({longer}) < 1e-5); }
  SECTION("causal") { CHECK(relativeError({longer, tcc::kAttentionMaskNone, MaskLayout::None, true}) < 1e-5); }
  SECTION("additive mask with -inf entries and a row that sees no key") {
    CHECK(relativeError({longer, tcc::kAttentionMaskAdditive, MaskLayout::Full}) < 1e-5);
  }
  SECTION("bool mask, causal") {
    CHECK(relativeError({longer, tcc::kAttentionMaskBool, MaskLayout::Full, true}) < 1e-5);
  }
  SECTION("a mask per window: the batch split by 2") {
    CHECK(relativeError({{4, 3, 3, 49, 49, 16, 16}, tcc::kAttentionMaskAdditive, MaskLayout::Window}) <
          1e-5);
    CHECK(relativeError({{4, 2, 1, 70, 300, 8, 8}, tcc::kAttentionMaskBool, MaskLayout::Window, true}) <
          1e-5);
  }
}
