//===- LegalizeIncompleteGamma.cpp - igamma, igammac ----------------------===//
//
// The regularized incomplete gamma functions P(a, x) (igamma,
// special_gammainc) and Q(a, x) (igammac, special_gammaincc): the operands
// broadcast in ATen's compute type (float, double for double), with
// lgamma(a) and lgamma(1 + a) (std::lgamma in ATen's helpers) computed
// beside them, into one tcc_graph.special_function whose lowering is ATen's
// calc_igamma / calc_igammac with its loops (IncompleteGamma.cpp in the
// linalg conversion).
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/SpecialFormula.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
LegalizeFn incompleteGamma(StringRef function) {
  return [function](OperatorArgs &args, OpBuilder &b) -> FailureOr<SmallVector<Value>> {
    FailureOr<Value> a = floatComputeOperand(args, b, "self");
    if (failed(a))
      return failure();
    FailureOr<Value> x = floatComputeOperand(args, b, "other");
    if (failed(x))
      return failure();
    Location loc = args.getOp().getLoc();
    RankedTensorType type = args.resultType();
    Type compute = typeOf(*a).getElementType();
    Value lgammaA = makeLogGamma(b, loc, *a);
    Value one = makeScalar(b, loc, compute, 1.0);
    Value onePlusA = makeBinary<AddOp>(b, loc, one, *a);
    Value lgamma1pA = makeLogGamma(b, loc, onePlusA);
    auto resultType = RankedTensorType::get(type.getShape(), compute);
    Value r = b.create<SpecialFunctionOp>(loc, resultType,
                                          ValueRange{*a, *x, lgammaA, lgamma1pA},
                                          b.getStringAttr(function));
    return SmallVector<Value>{makeCast(b, loc, r, type.getElementType())};
  };
}
} // namespace

void tcc::graph::populateIncompleteGammaLegalizers(LegalizerTable &t) {
  t["aten.igamma.default"] = incompleteGamma("igamma");
  t["aten.special_gammainc.default"] = incompleteGamma("igamma");
  t["aten.igammac.default"] = incompleteGamma("igammac");
  t["aten.special_gammaincc.default"] = incompleteGamma("igammac");
}
