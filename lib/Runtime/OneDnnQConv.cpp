//===- OneDnnQConv.cpp - int8 convolutions: oneDNN, or tcc's loops --------===//
//
// tcc_cpu_qconv2d (QuantizedConv.h). oneDNN's primitive is made per shape,
// quantization parameters and scales (they are part of the primitive: the
// scales, per filter, are compiled into it, so weights bound anew with other
// scales get a primitive of their own), images in packed NHWC (reordered
// from the caller's strides where they differ), the filter in oneDNN's
// layout (kept per bound weight, keptWeights).
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/QuantizedConv.h"

#include "OneDnnLibrary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

using namespace tcc::cpu::onednn;

namespace {

/// One call's sizes and operands.
struct QConvArgs {
  int64_t n, c, h, w, k, r, s, oh, ow, padH, padW, strideH, strideW, dilationH, dilationW,
      groups;
  int64_t xStrides[4], yStrides[4], zStrides[4];
  const void *x;
  const int8_t *weight;
  const float *scales, *bias, *residual, *outputInverseScale;
  const int64_t *weightZeroPoints, *inputZeroPoint, *outputZeroPoint;
  void *y;
  int32_t flags;
  int64_t quantMin, quantMax;

  bool has(int32_t flag) const { return (flags & flag) != 0; }
};

/// One shape's primitive; null `primitive` where oneDNN has none.
struct QConvPrimitive {
  dnnl_primitive_t primitive = nullptr, weightReorder = nullptr;
  dnnl_primitive_t srcIn = nullptr, dstOut = nullptr, residualIn = nullptr;
  dnnl_memory_desc_t src{}, dst{}, userSrc{}, userDst{}, userWeights{}, weights{}, bias{};
  dnnl_memory_desc_t residual{}, userResidual{};
  size_t srcBytes = 0, dstBytes = 0, weightBytes = 0, residualBytes = 0;

  ~QConvPrimitive() {
    for (dnnl_primitive_t p : {primitive, weightReorder, srcIn, dstOut, residualIn})
      destroyPrimitive(p);
  }
};

PrimitiveCache<QConvPrimitive> primitives;

dnnl_data_type_t inputType(const QConvArgs &a) {
  return a.has(tcc::kQConvInputSigned) ? dnnl_s8 : dnnl_u8;
}

dnnl_data_type_t outputType(const QConvArgs &a) {
  if (!a.has(tcc::kQConvRequantize))
    return dnnl_f32;
  return a.has(tcc::kQConvOutputSigned) ? dnnl_s8 : dnnl_u8;
}

/// Creates `p` for `a`, or leaves `p.primitive` null.
void create(const OneDnn &lib, const QConvArgs &a, QConvPrimitive &p) {
  const int64_t g = a.groups, kg = a.k / g, cg = a.c / g;
  dnnl_dims_t srcDims = {a.n, a.c, a.h, a.w}, dstDims = {a.n, a.k, a.oh, a.ow};
  dnnl_dims_t srcStrides = {a.xStrides[0], a.xStrides[1], a.xStrides[2], a.xStrides[3]};
  dnnl_dims_t dstStrides = {a.yStrides[0], a.yStrides[1], a.yStrides[2], a.yStrides[3]};
  dnnl_dims_t fDims = {a.k, cg, a.r, a.s}, gDims = {g, kg, cg, a.r, a.s};
  dnnl_dims_t biasDims = {1, a.k, 1, 1};
  int fRank = g == 1 ? 4 : 5;
  dnnl_memory_desc_t anyWeights;
  if (!ok(lib.mdByStrides(&p.userSrc, 4, srcDims, inputType(a), srcStrides)) ||
      !ok(lib.mdByStrides(&p.userDst, 4, dstDims, outputType(a), dstStrides)) ||
      !ok(lib.mdByTag(&p.src, 4, srcDims, inputType(a), dnnl_nhwc)) ||
      !ok(lib.mdByTag(&p.dst, 4, dstDims, outputType(a), dnnl_nhwc)) ||
      !ok(lib.mdByTag(&p.userWeights, fRank, g == 1 ? fDims : gDims, dnnl_s8,
                      g == 1 ? dnnl_oihw : dnnl_goihw)) ||
      !ok(lib.mdByTag(&anyWeights, fRank, g == 1 ? fDims : gDims, dnnl_s8,
                      dnnl_format_tag_any)) ||
      !ok(lib.mdByTag(&p.bias, 4, biasDims, dnnl_f32, dnnl_nchw)))
    return;
  if (!lib.mdEqual(&p.userSrc, &p.src)) {
    if (!(p.srcIn = createReorder(lib, p.userSrc, p.src)))
      return;
    p.srcBytes = lib.mdSize(&p.src);
  }
  if (!lib.mdEqual(&p.userDst, &p.dst)) {
    if (!(p.dstOut = createReorder(lib, p.dst, p.userDst)))
      return;
    p.dstBytes = lib.mdSize(&p.dst);
  }
  // The residual in the result's layout (NHWC f32), reordered where it is not.
  if (a.residual) {
    dnnl_dims_t zStrides = {a.zStrides[0], a.zStrides[1], a.zStrides[2], a.zStrides[3]};
    if (!ok(lib.mdByStrides(&p.userResidual, 4, dstDims, dnnl_f32, zStrides)) ||
        !ok(lib.mdByTag(&p.residual, 4, dstDims, dnnl_f32, dnnl_nhwc)))
      return;
    if (!lib.mdEqual(&p.userResidual, &p.residual)) {
      if (!(p.residualIn = createReorder(lib, p.userResidual, p.residual)))
        return;
      p.residualBytes = lib.mdSize(&p.residual);
    }
  }
  dnnl_convolution_desc_t desc;
  dnnl_dims_t strides = {a.strideH, a.strideW}, dilations = {a.dilationH - 1, a.dilationW - 1};
  dnnl_dims_t padding = {a.padH, a.padW};
  if (!ok(lib.convDesc(&desc, dnnl_forward_inference, dnnl_convolution_direct, &p.src,
                       &anyWeights, nullptr, &p.dst, strides, dilations, padding, padding)))
    return;
  // PyTorch's order: acc · scale (output scales), + bias, ReLU; then
  // requantized: × inverse scale + zero point, the recorded range (oneDNN
  // rounds half to even and saturates into the result's type).
  dnnl_post_ops_t ops = nullptr;
  dnnl_primitive_attr_t attr = nullptr;
  int32_t inputZp = static_cast<int32_t>(*a.inputZeroPoint);
  bool built = ok(lib.postOpsCreate(&ops)) && ok(lib.attrCreate(&attr)) &&
               ok(lib.attrSetOutputScales(attr, a.k, 1 << 1, a.scales)) &&
               (inputZp == 0 || ok(lib.attrSetZeroPoints(attr, DNNL_ARG_SRC, 1, 0, &inputZp)));
  if (built && a.bias)
    built = ok(lib.appendBinary(ops, dnnl_binary_add, &p.bias));
  if (built && a.residual)
    built = ok(lib.appendBinary(ops, dnnl_binary_add, &p.residual));
  if (built && a.has(tcc::kQConvRelu))
    built = ok(lib.appendEltwise(ops, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f));
  if (built && a.has(tcc::kQConvGeluErf))
    built = ok(lib.appendEltwise(ops, 1.0f, dnnl_eltwise_gelu_erf, 0.0f, 0.0f));
  if (built && a.has(tcc::kQConvRequantize)) {
    built = ok(lib.appendEltwise(ops, 1.0f, dnnl_eltwise_linear, *a.outputInverseScale,
                                 static_cast<float>(*a.outputZeroPoint)));
    bool full = a.has(tcc::kQConvOutputSigned) ? a.quantMin == -128 && a.quantMax == 127
                                               : a.quantMin == 0 && a.quantMax == 255;
    if (built && !full)
      built = ok(lib.appendEltwise(ops, 1.0f, dnnl_eltwise_clip, static_cast<float>(a.quantMin),
                                   static_cast<float>(a.quantMax)));
  }
  dnnl_primitive_desc_t pd = nullptr;
  built = built && ok(lib.attrSetPostOps(attr, ops)) &&
          ok(lib.pdCreate(&pd, &desc, attr, lib.engine, nullptr));
  if (ops)
    lib.postOpsDestroy(ops);
  if (attr)
    lib.attrDestroy(attr);
  if (!built)
    return;
  p.weights = *lib.pdQueryMd(pd, dnnl_query_weights_md, 0);
  p.weightBytes = lib.mdSize(&p.weights);
  if (!ok(lib.primitiveCreate(&p.primitive, pd)))
    p.primitive = nullptr;
  lib.pdDestroy(pd);
  if (p.primitive && !(p.weightReorder = createReorder(lib, p.userWeights, p.weights))) {
    destroyPrimitive(p.primitive);
    p.primitive = nullptr;
  }
}

/// Whether oneDNN's int8 kernels sum exactly on this CPU. Without VNNI
/// (AVX2; AVX-512 before Cascade Lake) they multiply u8 by s8 with
/// vpmaddubsw, whose pairwise sums saturate at 16 bits: on an AMD EPYC with
/// AVX2 (2026-12-08) samples/pt2e_conv_linear came out 8.5% off PyTorch, a
/// wrong answer. There tcc's loops (exact i32 sums) run instead.
bool exactInt8Kernels() {
  static const bool exact =
      __builtin_cpu_supports("avx512vnni") || __builtin_cpu_supports("avxvnni");
  return exact;
}

/// The convolution on oneDNN; false (nothing written) where it cannot.
bool runOneDnn(const QConvArgs &a) {
  const OneDnn *lib = library();
  if (!lib || !exactInt8Kernels() || a.n <= 0 || a.k <= 0 || a.oh <= 0 || a.ow <= 0)
    return false;
  // oneDNN has no filter zero points: symmetric filters only.
  for (int64_t f = 0; f < a.k; ++f)
    if (a.weightZeroPoints[f] != 0)
      return false;
  dnnl_stream_t stream = threadStream(*lib);
  if (!stream)
    return false;
  std::vector<int64_t> key = {a.n,       a.c,       a.h,         a.w,         a.k,
                              a.r,       a.s,       a.oh,        a.ow,        a.padH,
                              a.padW,    a.strideH, a.strideW,   a.dilationH, a.dilationW,
                              a.groups,  a.flags,   a.quantMin,  a.quantMax,  a.bias != nullptr,
                              a.residual != nullptr, *a.inputZeroPoint};
  for (const int64_t *strides : {a.xStrides, a.yStrides, a.zStrides})
    key.insert(key.end(), strides, strides + 4);
  if (a.has(tcc::kQConvRequantize)) {
    uint32_t bits;
    std::memcpy(&bits, a.outputInverseScale, sizeof bits);
    key.push_back(bits);
    key.push_back(*a.outputZeroPoint);
  }
  for (int64_t f = 0; f < a.k; ++f) { // the output scales are compiled in
    uint32_t bits;
    std::memcpy(&bits, a.scales + f, sizeof bits);
    key.push_back(bits);
  }
  std::shared_ptr<QConvPrimitive> p =
      primitives.get(key, [&](QConvPrimitive &made) { create(*lib, a, made); });
  if (!p->primitive)
    return false;
  // The filter in oneDNN's layout: kept per bound weight (keptWeights counts
  // in floats; the s8 bytes are rounded up to whole floats), else reordered
  // on every call.
  std::shared_ptr<std::vector<float>> kept;
  thread_local std::vector<float> scratchWeights;
  size_t weightFloats = (p->weightBytes + sizeof(float) - 1) / sizeof(float);
  const void *weights;
  const auto *userWeights = reinterpret_cast<const float *>(a.weight);
  if (a.has(tcc::kQConvFilterIsBoundWeight)) {
    weights = keptWeights(*lib, stream, p->weightReorder, p->userWeights, userWeights, p->weights,
                          weightFloats, kept);
  } else {
    scratchWeights.resize(weightFloats);
    weights = runReorder(*lib, stream, p->weightReorder, p->userWeights, a.weight, p->weights,
                         scratchWeights.data())
                  ? scratchWeights.data()
                  : nullptr;
  }
  if (!weights)
    return false;
  applyThreadCount(*lib);
  thread_local std::vector<uint8_t> nhwcSrc, nhwcDst, nhwcResidual;
  const void *x = a.x;
  void *y = a.y;
  if (p->srcIn) {
    nhwcSrc.resize(p->srcBytes);
    if (!runReorder(*lib, stream, p->srcIn, p->userSrc, a.x, p->src, nhwcSrc.data()))
      return false;
    x = nhwcSrc.data();
  }
  if (p->dstOut) {
    nhwcDst.resize(p->dstBytes);
    y = nhwcDst.data();
  }
  const void *z = a.residual;
  if (p->residualIn) {
    nhwcResidual.resize(p->residualBytes);
    if (!runReorder(*lib, stream, p->residualIn, p->userResidual, a.residual, p->residual,
                    nhwcResidual.data()))
      return false;
    z = nhwcResidual.data();
  }
  ExecArgs args(*lib);
  args.add(DNNL_ARG_SRC, p->src, x);
  args.add(DNNL_ARG_WEIGHTS, p->weights, weights);
  args.add(DNNL_ARG_DST, p->dst, y);
  if (a.bias)
    args.add(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, p->bias, a.bias);
  if (a.residual)
    args.add(DNNL_ARG_ATTR_MULTIPLE_POST_OP(a.bias ? 1 : 0) | DNNL_ARG_SRC_1, p->residual, z);
  if (!args.complete())
    return false;
  if (!args.run(stream, p->primitive) ||
      (p->dstOut && !runReorder(*lib, stream, p->dstOut, p->dst, y, p->userDst, a.y))) {
    std::fprintf(stderr, "tcc: internal error: oneDNN failed to run an int8 convolution it "
                         "accepted (%lldx%lldx%lldx%lld, %lld filters %lldx%lld)\n",
                 (long long)a.n, (long long)a.c, (long long)a.h, (long long)a.w, (long long)a.k,
                 (long long)a.r, (long long)a.s);
    std::abort();
  }
  return true;
}

/// The same in tcc's own loops, in PyTorch's order (exact i32 sums).
void runLoops(const QConvArgs &a) {
  const int64_t kg = a.k / a.groups, cg = a.c / a.groups;
  const auto *xu = static_cast<const uint8_t *>(a.x);
  const auto *xs = static_cast<const int8_t *>(a.x);
  const bool signedInput = a.has(tcc::kQConvInputSigned);
  const int64_t xZp = *a.inputZeroPoint;
  for (int64_t n = 0; n < a.n; ++n)
    for (int64_t f = 0; f < a.k; ++f) {
      const int64_t group = f / kg, wZp = a.weightZeroPoints[f];
      const int8_t *filter = a.weight + f * cg * a.r * a.s;
      for (int64_t i = 0; i < a.oh; ++i)
        for (int64_t j = 0; j < a.ow; ++j) {
          int64_t acc = 0;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t u = 0; u < a.r; ++u) {
              int64_t hi = i * a.strideH - a.padH + u * a.dilationH;
              if (hi < 0 || hi >= a.h)
                continue;
              for (int64_t v = 0; v < a.s; ++v) {
                int64_t wi = j * a.strideW - a.padW + v * a.dilationW;
                if (wi < 0 || wi >= a.w)
                  continue;
                int64_t at = n * a.xStrides[0] + (group * cg + ci) * a.xStrides[1] +
                             hi * a.xStrides[2] + wi * a.xStrides[3];
                int64_t xv = signedInput ? xs[at] : xu[at];
                acc += (xv - xZp) * (filter[(ci * a.r + u) * a.s + v] - wZp);
              }
            }
          float value = static_cast<float>(acc) * a.scales[f];
          if (a.bias)
            value += a.bias[f];
          if (a.residual)
            value += a.residual[n * a.zStrides[0] + f * a.zStrides[1] + i * a.zStrides[2] +
                                j * a.zStrides[3]];
          if (a.has(tcc::kQConvRelu))
            value = value < 0.0f ? 0.0f : value;
          if (a.has(tcc::kQConvGeluErf))
            value = 0.5f * value * (1.0f + std::erf(value * 0.70710678118654752f));
          int64_t out = n * a.yStrides[0] + f * a.yStrides[1] + i * a.yStrides[2] +
                        j * a.yStrides[3];
          if (!a.has(tcc::kQConvRequantize)) {
            static_cast<float *>(a.y)[out] = value;
            continue;
          }
          float q = std::nearbyint(value * *a.outputInverseScale) +
                    static_cast<float>(*a.outputZeroPoint);
          q = std::min(std::max(q, static_cast<float>(a.quantMin)), static_cast<float>(a.quantMax));
          if (a.has(tcc::kQConvOutputSigned))
            static_cast<int8_t *>(a.y)[out] = static_cast<int8_t>(q);
          else
            static_cast<uint8_t *>(a.y)[out] = static_cast<uint8_t>(q);
        }
    }
}

} // namespace

extern "C" void tcc_cpu_qconv2d(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r, int64_t s,
                int64_t oh, int64_t ow, int64_t padH, int64_t padW, int64_t strideH,
                int64_t strideW, int64_t dilationH, int64_t dilationW, int64_t groups,
                int64_t xStrideN, int64_t xStrideC, int64_t xStrideH, int64_t xStrideW,
                int64_t yStrideN, int64_t yStrideC, int64_t yStrideH, int64_t yStrideW,
                int64_t zStrideN, int64_t zStrideC, int64_t zStrideH, int64_t zStrideW,
                const void *x, const int8_t *weight, const float *scales,
                const int64_t *weightZeroPoints, const int64_t *inputZeroPoint,
                const float *bias, const float *residual, const float *outputInverseScale,
                const int64_t *outputZeroPoint, void *y, int32_t flags, int64_t quantMin,
                int64_t quantMax) {
  QConvArgs a{n,
              c,
              h,
              w,
              k,
              r,
              s,
              oh,
              ow,
              padH,
              padW,
              strideH,
              strideW,
              dilationH,
              dilationW,
              groups,
              {xStrideN, xStrideC, xStrideH, xStrideW},
              {yStrideN, yStrideC, yStrideH, yStrideW},
              {zStrideN, zStrideC, zStrideH, zStrideW},
              x,
              weight,
              scales,
              bias,
              residual,
              outputInverseScale,
              weightZeroPoints,
              inputZeroPoint,
              outputZeroPoint,
              y,
              flags,
              quantMin,
              quantMax};
  // A linear layer ([M, K, 1, 1]: M images of one pixel) as one image of M
  // pixels: oneDNN's 1x1 kernels block over pixels, not images (BERT-base's
  // 768 -> 3072 layer on 128 tokens, one core: 11 ms as 128 images).
  QConvArgs one = a;
  if (a.h == 1 && a.w == 1 && a.r == 1 && a.s == 1 && a.oh == 1 && a.ow == 1 && a.groups == 1 &&
      a.padH == 0 && a.padW == 0) {
    one.h = one.oh = a.n;
    one.n = 1;
    one.xStrides[2] = a.xStrides[0];
    one.yStrides[2] = a.yStrides[0];
    one.zStrides[2] = a.zStrides[0];
  }
  // oneDNN 2.6 has only its reference kernel for one pixel in all (a
  // batch-1 classifier head: ResNet-18's 512 -> 1000 took 1.1 ms): the row
  // is computed twice, as two pixels, through scratch copies.
  if (one.n == 1 && one.h == 1 && one.w == 1 && one.oh == 1 && one.ow == 1) {
    const size_t outBytes = a.has(tcc::kQConvRequantize) ? 1 : sizeof(float);
    thread_local std::vector<uint8_t> twoIn, twoOut;
    thread_local std::vector<float> twoResidual;
    twoIn.resize(2 * a.c);
    twoOut.resize(2 * a.k * outBytes);
    const auto *x = static_cast<const uint8_t *>(a.x);
    for (int64_t ci = 0; ci < a.c; ++ci)
      twoIn[ci] = twoIn[a.c + ci] = x[ci * a.xStrides[1]];
    QConvArgs two = one;
    two.h = two.oh = 2;
    two.x = twoIn.data();
    two.y = twoOut.data();
    int64_t packedIn[4] = {2 * a.c, 1, a.c, a.c}, packedOut[4] = {2 * a.k, 1, a.k, a.k};
    std::copy(packedIn, packedIn + 4, two.xStrides);
    std::copy(packedOut, packedOut + 4, two.yStrides);
    if (a.residual) {
      twoResidual.resize(2 * a.k);
      for (int64_t f = 0; f < a.k; ++f)
        twoResidual[f] = twoResidual[a.k + f] = a.residual[f * a.zStrides[1]];
      two.residual = twoResidual.data();
      std::copy(packedOut, packedOut + 4, two.zStrides);
    }
    if (runOneDnn(two)) {
      auto *y = static_cast<uint8_t *>(a.y);
      for (int64_t f = 0; f < a.k; ++f)
        std::memcpy(y + f * a.yStrides[1] * outBytes, twoOut.data() + f * outBytes, outBytes);
      return;
    }
  }
  if (!runOneDnn(one))
    runLoops(a);
}
