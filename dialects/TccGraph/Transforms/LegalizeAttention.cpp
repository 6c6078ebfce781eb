//===- LegalizeAttention.cpp - scaled_dot_product_attention, log_softmax --===//
//
// Attention is composed from typed ops: softmax(q·kᵀ·scale + mask)·v. The
// matrix products then take the library (cuBLASLt) or generated-kernel path
// like any other, and the mask and scaling fuse into the pointwise kernels.
// Grouped-query attention (fewer key/value heads) reshapes the query heads
// into groups so the products broadcast over them instead of copying k and v.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// 0, 1, ... along dim `d` of `like` (its length may be symbolic).
Value positions(OpBuilder &b, Location loc, Value like, int64_t d) {
  int64_t n = cast<RankedTensorType>(like.getType()).getShape()[d];
  SmallVector<Value> length;
  if (ShapedType::isDynamic(n))
    length.push_back(b.create<tensor::DimOp>(loc, like, d));
  return b.create<IotaOp>(loc, RankedTensorType::get({n}, b.getI64Type()), b.getF64FloatAttr(0),
                          b.getF64FloatAttr(1), length);
}

/// The L x S causal mask (query i sees keys j <= i) for query `q` and key
/// `k`, as i1.
Value causalMask(OpBuilder &b, Location loc, Value q, Value k) {
  int64_t r = cast<RankedTensorType>(q.getType()).getRank();
  int64_t l = cast<RankedTensorType>(q.getType()).getShape()[r - 2];
  int64_t s = cast<RankedTensorType>(k.getType()).getShape()[r - 2];
  Value rows = b.create<ReshapeOp>(loc, RankedTensorType::get({l, 1}, b.getI64Type()),
                                   positions(b, loc, q, r - 2));
  Value cols = positions(b, loc, k, r - 2);
  return b.create<CompareOp>(loc, RankedTensorType::get({l, s}, b.getI1Type()), cols, rows,
                             b.getStringAttr("le"));
}

Results legalizeSdpa(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value q = args.tensor("query"), k = args.tensor("key"), v = args.tensor("value");
  if (!q || !k || !v)
    return args.getOp().emitError("scaled_dot_product_attention expects query, key and value");
  if (args.getFloat("dropout_p").value_or(0.0) != 0.0)
    return args.getOp().emitError("attention dropout is not supported (export in eval mode)");
  auto qt = typeOf(q), kt = typeOf(k);
  int64_t rank = qt.getRank();
  if (rank < 2 || typeOf(k).getRank() != rank || typeOf(v).getRank() != rank)
    return args.getOp().emitError("query, key and value must have one rank >= 2");
  int64_t l = qt.getShape()[rank - 2], s = kt.getShape()[rank - 2];
  int64_t e = qt.getShape()[rank - 1];
  if (ShapedType::isDynamic(e))
    return args.getOp().emitError("a symbolic head dimension is not supported");
  Type elt = qt.getElementType();
  double scale = args.getFloat("scale").value_or(1.0 / std::sqrt((double)e));

  // Grouped-query attention: (B, Hq, L, E) -> (B, Hkv, Hq/Hkv, L, E), and k, v
  // get a size-1 group dim to broadcast over.
  bool grouped = args.getBool("enable_gqa").value_or(false) && rank == 4 &&
                 qt.getShape()[1] != kt.getShape()[1];
  int64_t heads = qt.getShape()[1], kvHeads = grouped ? kt.getShape()[1] : 0;
  if (grouped) {
    if (ShapedType::isDynamic(heads) || ShapedType::isDynamic(kvHeads) || heads % kvHeads)
      return args.getOp().emitError("query heads must be a static multiple of key heads");
    auto shape = qt.getShape();
    q = makeReshape(b, loc, q, {shape[0], kvHeads, heads / kvHeads, l, e});
    auto addGroupDim = [&](Value x) {
      auto xs = typeOf(x).getShape();
      return makeReshape(b, loc, x, {xs[0], xs[1], 1, xs[2], xs[3]});
    };
    k = addGroupDim(k);
    v = addGroupDim(v);
  }

  Value scores = makeMatmul(b, loc, q, transposeLast2(b, loc, k));
  scores = makeBinary<MulOp>(b, loc, scores, makeScalar(b, loc, elt, scale));
  Value negInf = makeScalar(b, loc, elt, -std::numeric_limits<double>::infinity());
  auto masked = [&](Value keep) {
    return b.create<SelectOp>(loc, typeOf(scores), keep, scores, negInf).getResult();
  };
  if (args.getBool("is_causal").value_or(false))
    scores = masked(causalMask(b, loc, args.tensor("query"), args.tensor("key")));
  if (Value mask = args.tensor("attn_mask")) {
    if (grouped) {  // the mask's head dim (if any) splits like the query's
      auto ms = typeOf(mask).getShape();
      if (ms.size() == 4 && ms[1] != 1)
        mask = makeReshape(b, loc, mask, {ms[0], kvHeads, heads / kvHeads, ms[2], ms[3]});
      else if (ms.size() == 4)
        mask = makeReshape(b, loc, mask, {ms[0], 1, 1, ms[2], ms[3]});
    }
    if (typeOf(mask).getElementType().isInteger(1))
      scores = masked(mask);
    else
      scores = makeBinary<AddOp>(b, loc, scores, makeCast(b, loc, mask, elt));
  }
  Value out = makeMatmul(b, loc, makeSoftmax(b, loc, scores, typeOf(scores).getRank() - 1), v);
  if (grouped)
    out = makeReshape(b, loc, out, args.resultType().getShape());
  return SmallVector<Value>{out};
}

Results legalizeLogSoftmax(OperatorArgs &args, OpBuilder &b) {
  Value x = args.tensor("self");
  if (!x)
    return args.getOp().emitError("expected a tensor operand 'self'");
  if (args.getBool("half_to_float").value_or(false))
    return args.getOp().emitError("log_softmax with half_to_float is not supported yet");
  Location loc = args.getOp().getLoc();
  x = makeCast(b, loc, x, args.resultType().getElementType());
  int64_t dim = normalizeDim(args.getInt("dim").value_or(-1), typeOf(x).getRank());
  return SmallVector<Value>{makeLogSoftmax(b, loc, x, dim)};
}
} // namespace

void tcc::graph::populateAttentionLegalizers(LegalizerTable &t) {
  t["aten.scaled_dot_product_attention.default"] = legalizeSdpa;
  t["aten.log_softmax.int"] = legalizeLogSoftmax;
  t["aten._log_softmax.default"] = legalizeLogSoftmax;
}
