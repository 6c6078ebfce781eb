//===- LegalizeAttention.cpp - scaled_dot_product_attention, log_softmax --===//
//
// Attention stays one typed op (tcc_graph.attention) so that kernel
// formation sees it whole; tcc-decompose-graph spells out whatever formation
// leaves as softmax(q·kᵀ·scale + mask)·v.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include <cmath>

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

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
  int64_t e = qt.getShape()[rank - 1];
  if (ShapedType::isDynamic(e))
    return args.getOp().emitError("a symbolic head dimension is not supported");
  if (!isa<FloatType>(qt.getElementType()))
    return args.getOp().emitError("attention expects floating-point query, key and value");
  bool grouped = args.getBool("enable_gqa").value_or(false) && rank == 4 &&
                 qt.getShape()[1] != kt.getShape()[1];
  if (grouped) {
    int64_t heads = qt.getShape()[1], kvHeads = kt.getShape()[1];
    if (ShapedType::isDynamic(heads) || ShapedType::isDynamic(kvHeads) || heads % kvHeads)
      return args.getOp().emitError("query heads must be a static multiple of key heads");
  }
  double scale = args.getFloat("scale").value_or(1.0 / std::sqrt((double)e));
  Value mask = args.tensor("attn_mask");
  if (mask && !typeOf(mask).getElementType().isInteger(1))
    mask = makeCast(b, loc, mask, qt.getElementType());
  bool causal = args.getBool("is_causal").value_or(false);
  return SmallVector<Value>{b.create<AttentionOp>(loc, args.resultType(), q, k, v, mask,
                                                  b.getF64FloatAttr(scale),
                                                  causal ? b.getUnitAttr() : nullptr)};
}

} // namespace

void tcc::graph::populateAttentionLegalizers(LegalizerTable &t) {
  t["aten.scaled_dot_product_attention.default"] = legalizeSdpa;
}
