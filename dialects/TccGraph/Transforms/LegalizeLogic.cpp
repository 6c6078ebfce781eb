//===- LegalizeLogic.cpp - comparisons, masks, where, any, isin -----------===//
//
// Masks are i1 tensors. Comparisons first bring both sides to one element
// type (a float side wins; a Python number takes the tensor's type unless it
// is fractional and the tensor is integral), as PyTorch's type promotion does.
// isin compares every element with every test element (an [N, T] mask, at
// most 2^26 of them) and takes any over the test elements.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include <cmath>

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

Type elementType(Value v) { return cast<RankedTensorType>(v.getType()).getElementType(); }

Value toBool(OpBuilder &b, Location loc, Value v) {
  return makeCast(b, loc, v, b.getI1Type());
}

/// The element type both sides of a comparison are converted to.
Type commonType(OpBuilder &b, Value x, Value y) {
  Type a = elementType(x), c = elementType(y);
  if (a == c)
    return a;
  if (isa<FloatType>(a) != isa<FloatType>(c))
    return isa<FloatType>(a) ? a : c;
  if (isa<FloatType>(a))
    return cast<FloatType>(a).getWidth() >= cast<FloatType>(c).getWidth() ? a : c;
  return b.getI64Type();
}

} // namespace

Value tcc::graph::makeCompare(OpBuilder &b, Location loc, StringRef predicate, Value x,
                              Value y) {
  Type elt = commonType(b, x, y);
  x = makeCast(b, loc, x, elt);
  y = makeCast(b, loc, y, elt);
  auto l = cast<RankedTensorType>(x.getType()), r = cast<RankedTensorType>(y.getType());
  auto shape = broadcastShapes(l.getShape(), r.getShape());
  auto type = RankedTensorType::get(succeeded(shape) ? *shape : SmallVector<int64_t>(l.getShape()),
                                    b.getI1Type());
  return b.create<CompareOp>(loc, type, x, y, b.getStringAttr(predicate));
}

namespace {

/// The operand `name`, or a rank-0 constant from a Python number: of `like`'s
/// element type, or f32 when the number is fractional and `like` integral.
FailureOr<Value> operandOrNumber(OperatorArgs &args, OpBuilder &b, StringRef name, Type like) {
  if (Value v = args.tensor(name))
    return v;
  std::optional<double> n = args.getFloat(name);
  if (!n)
    return args.getOp().emitError("operator '")
           << args.getOp().getName() << "' needs argument '" << name << "'";
  bool fractional = std::isfinite(*n) && *n != std::floor(*n);
  if (!isa<FloatType>(like) && (fractional || !std::isfinite(*n)))
    like = b.getF32Type();
  return makeScalar(b, args.getOp().getLoc(), like, *n);
}

LegalizeFn compare(StringRef predicate) {
  std::string p = predicate.str();
  return [p](OperatorArgs &args, OpBuilder &b) -> Results {
    Value x = args.tensor("self");
    if (!x)
      return args.getOp().emitError("expected a tensor operand 'self'");
    FailureOr<Value> y = operandOrNumber(args, b, "other", elementType(x));
    if (failed(y))
      return failure();
    return SmallVector<Value>{makeCompare(b, args.getOp().getLoc(), p, x, *y)};
  };
}

/// logical_and/or, and bitwise_and/or (also `&`, `|`) on bool or integer tensors.
template <typename OpTy>
LegalizeFn bitwise(bool logical) {
  return [logical](OperatorArgs &args, OpBuilder &b) -> Results {
    Location loc = args.getOp().getLoc();
    Value x = args.tensor("self");
    Type elt = logical ? b.getI1Type() : args.resultType().getElementType();
    if (!x || isa<FloatType>(elt))
      return args.getOp().emitError("expected bool or integer tensor operands");
    FailureOr<Value> y = operandOrNumber(args, b, "other", elt);
    if (failed(y))
      return failure();
    return SmallVector<Value>{
        makeBinary<OpTy>(b, loc, makeCast(b, loc, x, elt), makeCast(b, loc, *y, elt))};
  };
}

/// logical_not(x), and bitwise_not of a bool tensor: x == 0.
Results legalizeNot(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self");
  if (!x)
    return args.getOp().emitError("expected a tensor operand 'self'");
  if (!args.resultType().getElementType().isInteger(1))
    return args.getOp().emitError("bitwise_not of integer tensors is not supported yet");
  Value zero = makeScalar(b, loc, b.getI1Type(), 0);
  return SmallVector<Value>{makeCompare(b, loc, "eq", toBool(b, loc, x), zero)};
}

/// where(condition, self, other): either value may be a Python number.
Results legalizeWhere(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value cond = args.tensor("condition");
  if (!cond)
    return args.getOp().emitError("where expects a 'condition' tensor");
  Type elt = args.resultType().getElementType();
  FailureOr<Value> x = operandOrNumber(args, b, "self", elt);
  FailureOr<Value> y = operandOrNumber(args, b, "other", elt);
  if (failed(x) || failed(y))
    return failure();
  return SmallVector<Value>{b.create<SelectOp>(loc, args.resultType(), toBool(b, loc, cond),
                                               makeCast(b, loc, *x, elt),
                                               makeCast(b, loc, *y, elt))};
}

/// masked_fill(self, mask, value) = where(mask, value, self).
Results legalizeMaskedFill(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value self = args.tensor("self"), mask = args.tensor("mask");
  if (!self || !mask)
    return args.getOp().emitError("masked_fill expects 'self' and 'mask' tensors");
  Type elt = args.resultType().getElementType();
  FailureOr<Value> value = operandOrNumber(args, b, "value", elt);
  if (failed(value))
    return failure();
  return SmallVector<Value>{b.create<SelectOp>(loc, args.resultType(), toBool(b, loc, mask),
                                               makeCast(b, loc, *value, elt),
                                               makeCast(b, loc, self, elt))};
}

/// any(x, dims) = max over dims of (x != 0), through f32 (reductions are float).
Results legalizeAnyAll(OperatorArgs &args, OpBuilder &b, bool isAll) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self");
  if (!x)
    return args.getOp().emitError("expected a tensor operand 'self'");
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<int64_t> dims;
  if (rank == 0) {
    // a 0-d tensor's dim 0 / -1 is its one element: nothing to reduce
  } else if (std::optional<SmallVector<int64_t>> given = args.getInts("dim")) {
    for (int64_t d : *given)
      dims.push_back(normalizeDim(d, rank));
  } else {
    for (int64_t i = 0; i < rank; ++i)
      dims.push_back(i);
  }
  llvm::sort(dims);
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  // any = max(x != 0) > 0 and all = -max(-(x != 0)) > 0 in f32: over no
  // elements the max is -inf, so any is false and all true, as PyTorch's.
  Value f = makeCast(b, loc, toBool(b, loc, x), b.getF32Type());
  bool keepdim = args.getBool("keepdim").value_or(false);
  Value m = isAll ? b.create<NegOp>(loc, makeReduce<ReduceMaxOp>(b, loc, b.create<NegOp>(loc, f),
                                                                 dims, keepdim))
                  : makeReduce<ReduceMaxOp>(b, loc, f, dims, keepdim);
  return SmallVector<Value>{makeCompare(b, loc, "gt", m, makeScalar(b, loc, b.getF32Type(), 0.0))};
}
/// isin(elements, test_elements, invert): any(elements[..., None] ==
/// test_elements.flatten()) over the last dim (none for no test elements),
/// negated with invert; Python numbers for either side as rank-0 tensors.
Results legalizeIsin(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value elements = args.tensor("elements"), test = args.tensor("test_elements");
  if (!elements && !test)
    return operatorError(args) << "needs a tensor operand";
  if (!elements) {
    FailureOr<Value> v = operandOrNumber(args, b, "element", elementType(test));
    if (failed(v))
      return failure();
    elements = *v;
  }
  if (!test) {
    FailureOr<Value> v = operandOrNumber(args, b, "test_element", elementType(elements));
    if (failed(v))
      return failure();
    test = *v;
  }
  auto et = typeOf(elements), tt = typeOf(test);
  // Over symbolic sizes the comparisons are bounded by the export's ranges.
  auto most = [&](Value v) -> std::optional<int64_t> {
    int64_t total = 1;
    for (int64_t d = 0; d < typeOf(v).getRank(); ++d) {
      std::optional<int64_t> size = typeOf(v).isDynamicDim(d)
                                        ? largestSize(args, v, d)
                                        : std::optional<int64_t>(typeOf(v).getDimSize(d));
      if (!size)
        return std::nullopt;
      total *= *size;
    }
    return total;
  };
  std::optional<int64_t> n = most(elements), count = most(test);
  if (!n || !count)
    return operatorError(args) << "needs tensors of static shape or of symbolic sizes with a "
                                  "maximum in the export";
  if (*n * *count > (int64_t(1) << 26))
    return operatorError(args) << "compares every element with every test element: " << *n
                               << " x " << *count << " is more than the 2^26 supported";
  SmallVector<int64_t> shape(et.getShape());
  shape.push_back(1);
  SmallVector<Value> sizes;
  if (et.getNumDynamicDims() > 1) {
    for (int64_t d = 0; d < et.getRank(); ++d)
      sizes.push_back(et.isDynamicDim(d) ? dimIndex(b, loc, elements, d) : Value());
    sizes.push_back(Value());
  }
  Value column = makeReshape(b, loc, elements, shape, sizes);
  SmallVector<int64_t> testShape(et.getRank(), 1);
  testShape.push_back(elementCount(test));
  Value row = makeReshape(b, loc, test, testShape);
  Value equal = makeCompare(b, loc, "eq", column, row);
  Value f = makeCast(b, loc, equal, b.getF32Type());
  Value m = makeReduce<ReduceMaxOp>(b, loc, f, {et.getRank()}, false);
  bool invert = args.getBool("invert").value_or(false);
  Value zero = makeScalar(b, loc, b.getF32Type(), 0.0);
  return SmallVector<Value>{makeCompare(b, loc, invert ? "le" : "gt", m, zero)};
}
} // namespace

void tcc::graph::populateLogicLegalizers(LegalizerTable &t) {
  for (const char *p : {"eq", "ne", "lt", "le", "gt", "ge"})
    for (const char *v : {"Scalar", "Tensor"})
      t[std::string("aten.") + p + "." + v] = compare(p);
  t["aten.logical_and.default"] = bitwise<BitwiseAndOp>(true);
  t["aten.logical_or.default"] = bitwise<BitwiseOrOp>(true);
  t["aten.logical_not.default"] = legalizeNot;
  // logical_xor: bool(x) != bool(y).
  t["aten.logical_xor.default"] = [](OperatorArgs &args, OpBuilder &b) -> Results {
    Location loc = args.getOp().getLoc();
    Value x = args.tensor("self");
    FailureOr<Value> y = operandOrNumber(args, b, "other", b.getI1Type());
    if (!x || failed(y))
      return args.getOp().emitError("logical_xor expects tensors 'self' and 'other'");
    Value l = toBool(b, loc, x);
    Value r = toBool(b, loc, *y);
    return SmallVector<Value>{makeCompare(b, loc, "ne", l, r)};
  };
  t["aten.bitwise_not.default"] = legalizeNot;
  for (const char *v : {"Tensor", "Scalar"}) {
    t[std::string("aten.bitwise_and.") + v] = bitwise<BitwiseAndOp>(false);
    t[std::string("aten.bitwise_or.") + v] = bitwise<BitwiseOrOp>(false);
    t[std::string("aten.__and__.") + v] = bitwise<BitwiseAndOp>(false);
    t[std::string("aten.__or__.") + v] = bitwise<BitwiseOrOp>(false);
  }
  for (const char *v : {"self", "ScalarOther", "ScalarSelf", "Scalar"})
    t[std::string("aten.where.") + v] = legalizeWhere;
  t["aten.masked_fill.Scalar"] = legalizeMaskedFill;
  t["aten.masked_fill.Tensor"] = legalizeMaskedFill;
  for (const char *v : {"Tensor_Tensor", "Tensor_Scalar", "Scalar_Tensor"})
    t[std::string("aten.isin.") + v] = legalizeIsin;
  for (const char *v : {"dim", "dims", "default"}) {
    t[std::string("aten.any.") + v] = [](OperatorArgs &a, OpBuilder &b) { return legalizeAnyAll(a, b, false); };
    t[std::string("aten.all.") + v] = [](OperatorArgs &a, OpBuilder &b) { return legalizeAnyAll(a, b, true); };
  }
}
