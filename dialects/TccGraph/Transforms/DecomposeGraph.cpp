//===- DecomposeGraph.cpp - spell out what kernel formation left whole ----===//
//
// Implements `tcc-decompose-graph`. softmax, layer_norm, rms_norm and
// attention stay single ops through legalization so that tcc-form-kernels
// can make each one kernel. Those it did not take (a softmax over a leading
// dim, an attention with a head size the kernel lacks, ...) become the
// primitive ops here, in f32 for f16/bf16 inputs and rounded once at the end,
// as PyTorch computes them.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Decompositions.h"
#include "dialects/TccGraph/Transforms/Legalizers.h"
#include "dialects/TccGraph/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/TypeSwitch.h"

#include <limits>

#define DEBUG_TYPE "tcc-decompose-graph"

namespace tcc::graph {
#define GEN_PASS_DEF_DECOMPOSEGRAPHPASS
#include "dialects/TccGraph/Transforms/Passes.h.inc"
} // namespace tcc::graph

using namespace mlir;
using namespace tcc::graph;

namespace {

/// f32 for f16/bf16 (what PyTorch accumulates and normalizes in), else `t`.
Type computeType(Type t) {
  return t.isF16() || t.isBF16() ? Float32Type::get(t.getContext()) : t;
}

/// softmax along `dim`, or log_softmax. A row that is all -inf gives NaN (as
/// PyTorch) unless `safe`, where it gives 0 (attention's convention).
Value softmax(OpBuilder &b, Location loc, Value x, int64_t dim, bool log, bool safe) {
  Type elt = typeOf(x).getElementType();
  Value m = makeReduce<ReduceMaxOp>(b, loc, x, {dim}, true);
  if (safe) {
    Value negInf = makeScalar(b, loc, elt, -std::numeric_limits<double>::infinity());
    // Operands built one statement each: argument order is unspecified in
    // C++, and the IR must not depend on the compiler that built tcc.
    Value allMasked = makeCompare(b, loc, "eq", m, negInf);
    Value zero = makeScalar(b, loc, elt, 0.0);
    m = b.create<SelectOp>(loc, typeOf(m), allMasked, zero, m);
  }
  Value shifted = makeBinary<SubOp>(b, loc, x, m);
  Value e = b.create<ExpOp>(loc, shifted);
  Value s = makeReduce<ReduceSumOp>(b, loc, e, {dim}, true);
  if (log)
    return makeBinary<SubOp>(b, loc, shifted, b.create<LogOp>(loc, s));
  if (safe) {
    Value zero = makeScalar(b, loc, elt, 0.0);
    Value empty = makeCompare(b, loc, "eq", s, zero);
    Value one = makeScalar(b, loc, elt, 1.0);
    s = b.create<SelectOp>(loc, typeOf(s), empty, one, s);
  }
  return makeBinary<DivOp>(b, loc, e, s);
}

Value decomposeSoftmax(OpBuilder &b, SoftmaxOp op) {
  Location loc = op.getLoc();
  Type out = typeOf(op.getResult()).getElementType();
  Value x = makeCast(b, loc, op.getInput(), computeType(typeOf(op.getInput()).getElementType()));
  return makeCast(b, loc, softmax(b, loc, x, op.getDim(), op.getLog(), false), out);
}

/// The trailing `n` dims of a rank-`rank` tensor.
SmallVector<int64_t> trailingDims(int64_t rank, int64_t n) {
  SmallVector<int64_t> dims;
  for (int64_t i = rank - n; i < rank; ++i)
    dims.push_back(i);
  return dims;
}

Value decomposeLayerNorm(OpBuilder &b, LayerNormOp op) {
  Location loc = op.getLoc();
  Type elt = typeOf(op.getInput()).getElementType(), ct = computeType(elt);
  Value x = makeCast(b, loc, op.getInput(), ct);
  SmallVector<int64_t> dims = trailingDims(typeOf(x).getRank(), op.getNumDims());
  Value mean = makeReduce<ReduceMeanOp>(b, loc, x, dims, true);
  Value centered = makeBinary<SubOp>(b, loc, x, mean);
  Value var = makeReduce<ReduceMeanOp>(b, loc, makeBinary<MulOp>(b, loc, centered, centered),
                                       dims, true);
  Value inv = b.create<RsqrtOp>(
      loc, makeBinary<AddOp>(b, loc, var, makeScalar(b, loc, ct, op.getEps().convertToDouble())));
  Value y = makeBinary<MulOp>(b, loc, centered, inv);
  if (Value w = op.getWeight())
    y = makeBinary<MulOp>(b, loc, y, makeCast(b, loc, w, ct));
  if (Value bias = op.getBias())
    y = makeBinary<AddOp>(b, loc, y, makeCast(b, loc, bias, ct));
  return makeCast(b, loc, y, elt);
}

Value decomposeRmsNorm(OpBuilder &b, RmsNormOp op) {
  Location loc = op.getLoc();
  Type elt = typeOf(op.getInput()).getElementType(), ct = computeType(elt);
  Value x = makeCast(b, loc, op.getInput(), ct);
  SmallVector<int64_t> dims = trailingDims(typeOf(x).getRank(), op.getNumDims());
  Value ms = makeReduce<ReduceMeanOp>(b, loc, makeBinary<MulOp>(b, loc, x, x), dims, true);
  Value inv = b.create<RsqrtOp>(
      loc, makeBinary<AddOp>(b, loc, ms, makeScalar(b, loc, ct, op.getEps().convertToDouble())));
  // Rounded to the input's type before the weight, as PyTorch's rms_norm.
  Value y = makeCast(b, loc, makeBinary<MulOp>(b, loc, x, inv), elt);
  if (Value w = op.getWeight())
    y = makeBinary<MulOp>(b, loc, y, makeCast(b, loc, w, elt));
  return y;
}

/// 0, 1, ... along dim `d` of `like` (its length may be symbolic).
Value positions(OpBuilder &b, Location loc, Value like, int64_t d) {
  int64_t n = typeOf(like).getShape()[d];
  SmallVector<Value> length;
  if (ShapedType::isDynamic(n))
    length.push_back(b.create<tensor::DimOp>(loc, like, d));
  return b.create<IotaOp>(loc, RankedTensorType::get({n}, b.getI64Type()), b.getF64FloatAttr(0),
                          b.getF64FloatAttr(1), length);
}

/// The L x S causal mask (query i sees keys j <= i), as i1.
Value causalMask(OpBuilder &b, Location loc, Value q, Value k) {
  int64_t r = typeOf(q).getRank();
  int64_t l = typeOf(q).getShape()[r - 2];
  int64_t s = typeOf(k).getShape()[r - 2];
  Value rows = b.create<ReshapeOp>(loc, RankedTensorType::get({l, 1}, b.getI64Type()),
                                   positions(b, loc, q, r - 2));
  Value cols = positions(b, loc, k, r - 2);
  return b.create<CompareOp>(loc, RankedTensorType::get({l, s}, b.getI1Type()), cols, rows,
                             b.getStringAttr("le"));
}

/// softmax(q·kᵀ·scale + mask)·v, all of it in f32 for bf16/f16 operands and
/// the result rounded once (as the fused kernel and PyTorch's attention
/// kernels compute it: rounding the scores and probabilities to bf16 put the
/// result 5 ulps from PyTorch's), 0 for a query that keeps no key.
/// Grouped-query attention reshapes the query heads into groups so that the
/// products broadcast over them instead of copying k, v.
Value decomposeAttention(OpBuilder &b, AttentionOp op) {
  Location loc = op.getLoc();
  Type elt = typeOf(op.getQuery()).getElementType(), ct = computeType(elt);
  Value q = makeCast(b, loc, op.getQuery(), ct), k = makeCast(b, loc, op.getKey(), ct);
  Value v = makeCast(b, loc, op.getValue(), ct);
  auto qt = typeOf(q), kt = typeOf(k);
  int64_t rank = qt.getRank();
  int64_t l = qt.getShape()[rank - 2], e = qt.getShape()[rank - 1];
  bool grouped = rank == 4 && qt.getShape()[1] != kt.getShape()[1];
  int64_t heads = qt.getShape()[1], kvHeads = grouped ? kt.getShape()[1] : 0;
  if (grouped) {
    q = makeReshape(b, loc, q, {qt.getShape()[0], kvHeads, heads / kvHeads, l, e});
    auto addGroupDim = [&](Value x) {
      auto xs = typeOf(x).getShape();
      return makeReshape(b, loc, x, {xs[0], xs[1], 1, xs[2], xs[3]});
    };
    k = addGroupDim(k);
    v = addGroupDim(v);
  }
  Value scores = makeMatmul(b, loc, q, transposeLast2(b, loc, k));
  scores = makeBinary<MulOp>(b, loc, scores, makeScalar(b, loc, ct, op.getScale().convertToDouble()));
  Value negInf = makeScalar(b, loc, ct, -std::numeric_limits<double>::infinity());
  auto masked = [&](Value keep) {
    return b.create<SelectOp>(loc, typeOf(scores), keep, scores, negInf).getResult();
  };
  if (op.getCausal())
    scores = masked(causalMask(b, loc, op.getQuery(), op.getKey()));
  if (Value mask = op.getMask()) {
    if (grouped) { // the mask's head dim (if any) splits like the query's
      auto ms = typeOf(mask).getShape();
      if (ms.size() == 4 && ms[1] != 1)
        mask = makeReshape(b, loc, mask, {ms[0], kvHeads, heads / kvHeads, ms[2], ms[3]});
      else if (ms.size() == 4)
        mask = makeReshape(b, loc, mask, {ms[0], 1, 1, ms[2], ms[3]});
    }
    if (typeOf(mask).getElementType().isInteger(1))
      scores = masked(mask);
    else
      scores = makeBinary<AddOp>(b, loc, scores, makeCast(b, loc, mask, ct));
  }
  Value p = softmax(b, loc, scores, typeOf(scores).getRank() - 1, false, /*safe=*/true);
  Value out = makeMatmul(b, loc, p, v);
  if (grouped)
    out = makeReshape(b, loc, out, typeOf(op.getResult()).getShape());
  return makeCast(b, loc, out, elt);
}

/// A per-channel parameter (1-D) shaped to broadcast along `axis` of a
/// rank-`rank` tensor; a per-tensor one (rank 0) as it is.
Value alongAxis(OpBuilder &b, Location loc, Value param, std::optional<int64_t> axis,
                int64_t rank) {
  if (!axis)
    return param;
  SmallVector<int64_t> shape(rank, 1);
  shape[*axis] = typeOf(param).getShape()[0];
  return makeReshape(b, loc, param, shape);
}

/// The type PyTorch quantizes and dequantizes in: f32 per tensor (the scale
/// is a Python float), the scales' type per channel (f64 scales promote).
Type quantizationComputeType(Value scale, bool perChannel) {
  Type elt = typeOf(scale).getElementType();
  return perChannel ? elt : Float32Type::get(elt.getContext());
}

/// clamp(round(x * C(1 / f64(scale))) + zero_point, quant_min, quant_max),
/// converted to the integer result type (quantized_decomposed's order). A
/// constant scale and zero point (PT2E's Python numbers) are folded
/// (quantizeMultiplier), so the loop does no division per element.
Value decomposeQuantize(OpBuilder &b, QuantizeOp op) {
  Location loc = op.getLoc();
  int64_t rank = typeOf(op.getInput()).getRank();
  Type ct = quantizationComputeType(op.getScale(), op.isPerChannel());
  Value x = makeCast(b, loc, op.getInput(), ct);
  Value inv = alongAxis(b, loc, quantizeMultiplier(b, loc, op.getScale(), ct), op.getAxis(), rank);
  std::optional<double> constZp = scalarConstant(op.getZeroPoint());
  Value zp = constZp ? makeScalar(b, loc, ct, *constZp)
                     : alongAxis(b, loc, makeCast(b, loc, op.getZeroPoint(), ct), op.getAxis(), rank);
  Value scaled = makeBinary<MulOp>(b, loc, x, inv);
  Value rounded = b.create<RoundOp>(loc, scaled);
  Value shifted = makeBinary<AddOp>(b, loc, rounded, zp);
  Value lo = makeScalar(b, loc, ct, (double)op.getQuantMinAttr().getInt());
  Value hi = makeScalar(b, loc, ct, (double)op.getQuantMaxAttr().getInt());
  Value above = makeBinary<MaximumOp>(b, loc, shifted, lo);
  Value clamped = makeBinary<MinimumOp>(b, loc, above, hi);
  // Through i32, which holds every quant range: float to i32 is one vector
  // instruction, float to i64 (the direct cast's path) a scalar loop on AVX2.
  Value whole = makeCast(b, loc, clamped, b.getI32Type());
  return makeCast(b, loc, whole, typeOf(op.getResult()).getElementType());
}

/// (q - zero_point) * scale in the compute type, converted to the result
/// type. Per channel PyTorch subtracts in int64 (exact), per tensor in f32.
Value decomposeDequantize(OpBuilder &b, DequantizeOp op) {
  Location loc = op.getLoc();
  int64_t rank = typeOf(op.getInput()).getRank();
  Type ct = quantizationComputeType(op.getScale(), op.isPerChannel());
  Value centered;
  if (op.isPerChannel()) {
    Value q = makeCast(b, loc, op.getInput(), b.getI64Type());
    Value zp = makeCast(b, loc, op.getZeroPoint(), b.getI64Type());
    Value diff = makeBinary<SubOp>(b, loc, q, alongAxis(b, loc, zp, op.getAxis(), rank));
    centered = makeCast(b, loc, diff, ct);
  } else {
    Value q = makeCast(b, loc, op.getInput(), ct);
    std::optional<double> constZp = scalarConstant(op.getZeroPoint());
    Value zp = constZp ? makeScalar(b, loc, ct, *constZp) : makeCast(b, loc, op.getZeroPoint(), ct);
    centered = makeBinary<SubOp>(b, loc, q, zp);
  }
  std::optional<double> constScale = op.isPerChannel() ? std::nullopt : scalarConstant(op.getScale());
  Value scale = constScale ? makeScalar(b, loc, ct, (double)(float)*constScale)
                           : alongAxis(b, loc, makeCast(b, loc, op.getScale(), ct), op.getAxis(), rank);
  Value r = makeBinary<MulOp>(b, loc, centered, scale);
  return makeCast(b, loc, r, typeOf(op.getResult()).getElementType());
}

struct DecomposeGraphPass : tcc::graph::impl::DecomposeGraphPassBase<DecomposeGraphPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isWholeOp(op))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      decomposeWholeOp(op);
  }
};

} // namespace

std::optional<double> tcc::graph::scalarConstant(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  auto values = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : nullptr;
  if (!values || typeOf(v).getRank() != 0)
    return std::nullopt;
  if (isa<FloatType>(values.getElementType()))
    return (*values.getValues<APFloat>().begin()).convertToDouble();
  return (double)(*values.getValues<APInt>().begin()).getSExtValue();
}

Value tcc::graph::quantizeMultiplier(OpBuilder &b, Location loc, Value scale, Type computeType) {
  if (std::optional<double> constant = scalarConstant(scale)) {
    double inverse = 1.0 / *constant;
    return makeScalar(b, loc, computeType,
                      computeType.isF32() ? (double)(float)inverse : inverse);
  }
  Value wide = makeCast(b, loc, scale, b.getF64Type());
  Value one = makeScalar(b, loc, b.getF64Type(), 1.0);
  Value ratio = makeBinary<DivOp>(b, loc, one, wide);
  return makeCast(b, loc, ratio, computeType);
}

bool tcc::graph::isWholeOp(Operation *op) {
  return isa<SoftmaxOp, LayerNormOp, RmsNormOp, AttentionOp, QuantizeOp, DequantizeOp>(op);
}

void tcc::graph::decomposeWholeOp(Operation *op) {
  OpBuilder b(op);
  Value replacement = llvm::TypeSwitch<Operation *, Value>(op)
                          .Case([&](SoftmaxOp o) { return decomposeSoftmax(b, o); })
                          .Case([&](LayerNormOp o) { return decomposeLayerNorm(b, o); })
                          .Case([&](RmsNormOp o) { return decomposeRmsNorm(b, o); })
                          .Case([&](AttentionOp o) { return decomposeAttention(b, o); })
                          .Case([&](QuantizeOp o) { return decomposeQuantize(b, o); })
                          .Case([&](DequantizeOp o) { return decomposeDequantize(b, o); });
  op->getResult(0).replaceAllUsesWith(replacement);
  op->erase();
}
