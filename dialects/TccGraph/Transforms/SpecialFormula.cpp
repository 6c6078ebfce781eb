//===- SpecialFormula.cpp - the shared frame of special-function legalizers ===//
//
// See SpecialFormula.h.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/SpecialFormula.h"

using namespace mlir;
using namespace tcc::graph;

Value SpecialFormula::sel(Value cond, Value a, Value c) {
  return b.create<SelectOp>(loc, typeOf(x), cond, a, c);
}

Value SpecialFormula::cmp(StringRef predicate, Value l, Value r) {
  return makeCompare(b, loc, predicate, l, r);
}

LegalizeFn tcc::graph::legalizeSpecialFormula(StringRef operand, SpecialFormulaBody body) {
  std::string name = operand.str();
  return [name, body](OperatorArgs &args,
                      OpBuilder &b) -> FailureOr<SmallVector<Value>> {
    FailureOr<Value> input = floatComputeOperand(args, b, name);
    if (failed(input))
      return failure();
    Type elt = args.resultType().getElementType();
    SpecialFormula f{{b, args.getOp().getLoc(), typeOf(*input).getElementType()}, *input};
    Value r = body(f);
    return SmallVector<Value>{makeCast(b, f.loc, r, elt)};
  };
}

Value tcc::graph::chebyshevSeries(PointwiseBuilder &p, Value x, ArrayRef<double> coeffs) {
  Value b0 = p.c(coeffs.front()), b1 = p.c(0.0), b2 = p.c(0.0);
  for (double c : coeffs.drop_front()) {
    b2 = b1;
    b1 = b0;
    Value xb1 = p.bin<MulOp>(x, b1);
    Value less = p.bin<SubOp>(xb1, b2);
    b0 = p.bin<AddOp>(less, p.c(c));
  }
  Value diff = p.bin<SubOp>(b0, b2);
  return p.bin<MulOp>(p.c(0.5), diff);
}

Value tcc::graph::polynomial(PointwiseBuilder &p, Value z, ArrayRef<double> coeffs) {
  Value r = p.c(coeffs.front());
  for (double c : coeffs.drop_front()) {
    Value scaled = p.bin<MulOp>(r, z);
    r = p.bin<AddOp>(scaled, p.c(c));
  }
  return r;
}

Value tcc::graph::monicPolynomial(PointwiseBuilder &p, Value z, ArrayRef<double> coeffs) {
  Value r = p.bin<AddOp>(z, p.c(coeffs.front()));
  for (double c : coeffs.drop_front()) {
    Value scaled = p.bin<MulOp>(r, z);
    r = p.bin<AddOp>(scaled, p.c(c));
  }
  return r;
}
