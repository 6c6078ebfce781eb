//===- OneDnnConv.cpp - the CPU path's f32 convolutions on oneDNN ---------===//
#include "tcc/Runtime/OneDnnConv.h"

#include "tcc/Runtime/CudnnConv.h"

#include "Kernels/ConvActivations.h"
#include "OneDnnLibrary.h"

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

using namespace tcc::cpu::onednn;

namespace {

/// One convolution shape's primitive (none where oneDNN has none: the
/// loops run, without asking again).
struct ConvPrimitive {
  WeightedPrimitive conv;
  dnnl_memory_desc_t src{}, bias{}, dst{}, residual{};
  bool residualIsSum = false; ///< the residual is in dst already: a sum post-op
  /// Images that are not channels-last (NCHW, when the model is compiled for
  /// CUDA too) are reordered into packed NHWC around the primitive: oneDNN's
  /// NCHW convolutions are an im2col GEMM, slower than the reorders and its
  /// channels-last kernels together (ResNet-18 b1, one core: 83 ms against
  /// 61 in OpenBLAS's im2col; channels-last 33).
  bool viaNhwc = false;
  dnnl_memory_desc_t userSrc{}, userDst{}, userResidual{};
  dnnl_primitive_t srcIn = nullptr, residualIn = nullptr, dstOut = nullptr;
  size_t srcFloats = 0, dstFloats = 0;

  ~ConvPrimitive() {
    for (dnnl_primitive_t r : {srcIn, residualIn, dstOut})
      destroyPrimitive(r);
  }
};

PrimitiveCache<ConvPrimitive> primitives;

/// The activation as a oneDNN post-op, or undef where it is applied after
/// the primitive instead: oneDNN's ReLU and clip (ReLU6) turn NaN into 0,
/// where PyTorch keeps NaN (clampNanKeeping).
dnnl_alg_kind_t eltwiseOf(int32_t activation, float &alpha, float &beta) {
  alpha = beta = 0.0f;
  switch (activation) {
  case tcc::kConvActivationRelu:
  case tcc::kConvActivationRelu6:
    return dnnl_alg_kind_undef;
  case tcc::kConvActivationSilu:
    alpha = 1.0f; // x · sigmoid(alpha · x)
    return dnnl_eltwise_swish;
  case tcc::kConvActivationHardswish:
    return dnnl_eltwise_hardswish;
  default:
    return dnnl_alg_kind_undef;
  }
}

/// y = min(max(y, 0), hi) in place, through y's strides, with NaN kept (as
/// torch.relu and relu6 keep it: every comparison with NaN is false).
void clampNanKeeping(const tcc::cpu::ConvArgs &a, float hi) {
  float *y = a.y;
  for (int64_t n = 0; n < a.n; ++n)
    for (int64_t k = 0; k < a.k; ++k)
      for (int64_t i = 0; i < a.oh; ++i) {
        float *row = y + n * a.yStrides[0] + k * a.yStrides[1] + i * a.yStrides[2];
        for (int64_t j = 0; j < a.ow; ++j) {
          float &v = row[j * a.yStrides[3]];
          v = v < 0.0f ? 0.0f : v > hi ? hi : v;
        }
      }
}

/// Creates the primitive for `a`, or leaves `p.conv` null.
void create(const OneDnn &lib, const tcc::cpu::ConvArgs &a, ConvPrimitive &p) {
  const int64_t g = a.groups, kg = a.k / g, cg = a.c / g;
  dnnl_dims_t srcDims = {a.n, a.c, a.h, a.w}, dstDims = {a.n, a.k, a.oh, a.ow};
  dnnl_dims_t srcStrides = {a.xStrides[0], a.xStrides[1], a.xStrides[2], a.xStrides[3]};
  dnnl_dims_t dstStrides = {a.yStrides[0], a.yStrides[1], a.yStrides[2], a.yStrides[3]};
  dnnl_dims_t biasDims = {a.k};
  // The filter as stored: k×cg×r×s, or k×r×s×cg; grouped, [g, kg, cg, r, s].
  const int64_t rs = a.r * a.s;
  int64_t oStride = cg * rs, iStride = a.filterNhwc ? 1 : rs;
  int64_t hStride = a.filterNhwc ? a.s * cg : a.s, wStride = a.filterNhwc ? cg : 1;
  dnnl_dims_t fDims = {a.k, cg, a.r, a.s}, fStrides = {oStride, iStride, hStride, wStride};
  dnnl_dims_t gDims = {g, kg, cg, a.r, a.s};
  dnnl_dims_t gStrides = {kg * oStride, oStride, iStride, hStride, wStride};
  int fRank = g == 1 ? 4 : 5;
  dnnl_memory_desc_t filter, anyFilter;
  if (!ok(lib.mdByStrides(&p.userSrc, 4, srcDims, dnnl_f32, srcStrides)) ||
      !ok(lib.mdByStrides(&p.userDst, 4, dstDims, dnnl_f32, dstStrides)))
    return;
  // An input activation is applied to the reordered copy (oneDNN has no
  // pre-op): the activation before a depthwise layer, where the CUDA path's
  // formation gave it to the convolution.
  p.viaNhwc = a.xStrides[1] != 1 || a.yStrides[1] != 1 || a.inputActivation;
  if (p.viaNhwc) {
    if (!ok(lib.mdByTag(&p.src, 4, srcDims, dnnl_f32, dnnl_nhwc)) ||
        !ok(lib.mdByTag(&p.dst, 4, dstDims, dnnl_f32, dnnl_nhwc)) ||
        !(p.srcIn = createReorder(lib, p.userSrc, p.src)) ||
        !(p.dstOut = createReorder(lib, p.dst, p.userDst)))
      return;
    p.srcFloats = lib.mdSize(&p.src) / sizeof(float);
    p.dstFloats = lib.mdSize(&p.dst) / sizeof(float);
    if (a.z) { // reordered into the NHWC result first, then added by a sum post-op
      dnnl_dims_t zStrides = {a.zStrides[0], a.zStrides[1], a.zStrides[2], a.zStrides[3]};
      if (!ok(lib.mdByStrides(&p.userResidual, 4, dstDims, dnnl_f32, zStrides)) ||
          !(p.residualIn = createReorder(lib, p.userResidual, p.dst)))
        return;
    }
  } else {
    p.src = p.userSrc;
    p.dst = p.userDst;
  }
  if (!ok(lib.mdByStrides(&filter, fRank, g == 1 ? fDims : gDims, dnnl_f32,
                          g == 1 ? fStrides : gStrides)) ||
      !ok(lib.mdByTag(&anyFilter, fRank, g == 1 ? fDims : gDims, dnnl_f32,
                      dnnl_format_tag_any)) ||
      !ok(lib.mdByTag(&p.bias, 1, biasDims, dnnl_f32, dnnl_x)))
    return;
  dnnl_convolution_desc_t desc;
  dnnl_dims_t strides = {a.strideH, a.strideW}, dilations = {a.dilationH - 1, a.dilationW - 1};
  dnnl_dims_t padding = {a.padH, a.padW};
  if (!ok(lib.convDesc(&desc, dnnl_forward_inference, dnnl_convolution_direct, &p.src,
                       &anyFilter, a.bias ? &p.bias : nullptr, &p.dst, strides, dilations,
                       padding, padding)))
    return;
  // Epilogue as PyTorch's order: + bias (the primitive's), + residual, activation.
  dnnl_post_ops_t ops = nullptr;
  bool built = ok(lib.postOpsCreate(&ops));
  if (built && a.z) {
    p.residualIsSum = p.viaNhwc || (a.z == a.y && std::memcmp(a.zStrides, a.yStrides,
                                                                sizeof a.zStrides) == 0);
    if (p.residualIsSum) {
      built = ok(lib.appendSum(ops, 1.0f));
    } else {
      dnnl_dims_t zStrides = {a.zStrides[0], a.zStrides[1], a.zStrides[2], a.zStrides[3]};
      built = ok(lib.mdByStrides(&p.residual, 4, dstDims, dnnl_f32, zStrides)) &&
              ok(lib.appendBinary(ops, dnnl_binary_add, &p.residual));
    }
  }
  float alpha, beta;
  if (dnnl_alg_kind_t alg = eltwiseOf(a.activation, alpha, beta); built && alg != dnnl_alg_kind_undef)
    built = ok(lib.appendEltwise(ops, 1.0f, alg, alpha, beta));
  if (!built) {
    if (ops)
      lib.postOpsDestroy(ops);
    return;
  }
  p.conv.create(lib, &desc, ops, filter);
}

} // namespace

bool tcc::cpu::oneDnnConv2d(const ConvArgs &a) {
  const OneDnn *lib = library();
  if (!lib || a.n <= 0 || a.k <= 0 || a.oh <= 0 || a.ow <= 0)
    return false;
  dnnl_stream_t stream = threadStream(*lib);
  if (!stream)
    return false;
  std::vector<int64_t> key = {a.n,       a.c,         a.h,         a.w,           a.k,
                              a.r,       a.s,         a.oh,        a.ow,          a.padH,
                              a.padW,    a.strideH,   a.strideW,   a.dilationH,   a.dilationW,
                              a.groups,  a.activation, a.inputActivation, a.bias != nullptr,
                              a.filterNhwc,
                              a.z == nullptr ? 0 : a.z == a.y ? 1 : 2};
  for (const int64_t *strides : {a.xStrides, a.yStrides, a.zStrides})
    key.insert(key.end(), strides, strides + 4);
  std::shared_ptr<ConvPrimitive> p =
      primitives.get(key, [&](ConvPrimitive &made) { create(*lib, a, made); });
  if (!p->conv.primitive)
    return false;
  std::shared_ptr<std::vector<float>> kept;
  thread_local std::vector<float> scratch;
  const float *weights =
      p->conv.weightsFor(*lib, stream, a.weight, a.filterIsBoundWeight, kept, scratch);
  if (!weights)
    return false;
  applyThreadCount(*lib);
  const float *x = a.x;
  float *y = a.y;
  thread_local std::vector<float> nhwcSrc, nhwcDst;
  if (p->viaNhwc) {
    nhwcSrc.resize(p->srcFloats);
    nhwcDst.resize(p->dstFloats);
    if (!runReorder(*lib, stream, p->srcIn, p->userSrc, a.x, p->src, nhwcSrc.data()) ||
        (a.z && !runReorder(*lib, stream, p->residualIn, p->userResidual, a.z, p->dst,
                            nhwcDst.data())))
      return false;
    if (a.inputActivation)
      tcc_activations::withActivation(a.inputActivation, [&](auto act) {
        for (float &v : nhwcSrc)
          v = act(v);
      });
    x = nhwcSrc.data();
    y = nhwcDst.data();
  }
  ExecArgs args(*lib);
  args.add(DNNL_ARG_SRC, p->src, x);
  args.add(DNNL_ARG_WEIGHTS, p->conv.weights, weights);
  args.add(DNNL_ARG_DST, p->dst, y);
  if (a.bias)
    args.add(DNNL_ARG_BIAS, p->bias, a.bias);
  if (a.z && !p->residualIsSum)
    args.add(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, p->residual, a.z);
  if (!args.complete())
    return false;
  // Past this point y may be written (and a residual in y accumulated onto):
  // a failure can no longer fall back to the loops.
  if (!args.run(stream, p->conv.primitive) ||
      (p->viaNhwc && !runReorder(*lib, stream, p->dstOut, p->dst, y, p->userDst, a.y))) {
    std::fprintf(stderr, "tcc: internal error: oneDNN failed to run a convolution it accepted "
                         "(%lldx%lldx%lldx%lld, %lld filters %lldx%lld)\n",
                 (long long)a.n, (long long)a.c, (long long)a.h, (long long)a.w, (long long)a.k,
                 (long long)a.r, (long long)a.s);
    std::abort();
  }
  if (a.activation == tcc::kConvActivationRelu || a.activation == tcc::kConvActivationRelu6)
    clampNanKeeping(a, a.activation == tcc::kConvActivationRelu6 ? 6.0f : INFINITY);
  return true;
}
