//===- LegalizeElementwise.cpp - pointwise ATen operators -----------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

#include <limits>

#include <cmath>

using namespace mlir;
using namespace tcc::graph;

Value tcc::graph::makeXlogy(OpBuilder &b, Location loc, Value x, Value y, bool log1p) {
  Type elt = typeOf(x).getElementType();
  Value logY = log1p ? b.create<Log1pOp>(loc, y).getResult() : b.create<LogOp>(loc, y).getResult();
  Value product = makeBinary<MulOp>(b, loc, x, logY);
  RankedTensorType type = typeOf(product);
  Value zero = makeScalar(b, loc, elt, 0.0);
  Value xZero = makeCompare(b, loc, "eq", x, zero);
  Value zeroed = b.create<SelectOp>(loc, type, xZero, zero, product);
  Value yNan = makeCompare(b, loc, "ne", y, y);
  return b.create<SelectOp>(loc, type, yNan, y, zeroed);
}

Value tcc::graph::makeLogSigmoid(OpBuilder &b, Location loc, Value x) {
  Value tail = b.create<Log1pOp>(loc, b.create<ExpOp>(loc, b.create<NegOp>(loc, b.create<AbsOp>(loc, x))));
  Value zero = makeScalar(b, loc, typeOf(x).getElementType(), 0.0);
  return makeBinary<SubOp>(b, loc, makeBinary<MinimumOp>(b, loc, x, zero), tail);
}

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// An integer or bool input with a floating-point result (torch.exp of an
/// int64 tensor is float32) is converted to the result's type first.
template <typename OpTy>
LegalizeFn unary() {
  return [](OperatorArgs &args, OpBuilder &b) -> Results {
    Value x = args.tensor("self");
    if (!x)
      x = args.tensor("input");
    if (!x)
      return args.getOp().emitError("expected a tensor operand 'self'");
    Type resultElt = args.resultType().getElementType();
    if (isa<FloatType>(resultElt) && !isa<FloatType>(typeOf(x).getElementType()))
      x = makeCast(b, args.getOp().getLoc(), x, resultElt);
    return SmallVector<Value>{b.create<OpTy>(args.getOp().getLoc(), x)};
  };
}

/// A floating-point function of self: integer and bool inputs are converted to
/// the result's float type first (torch.sin of an int64 tensor is float32).
template <typename OpTy>
LegalizeFn floatUnary() {
  return [](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Value> x = requiredTensor(args, "self");
    if (failed(x))
      return failure();
    Type elt = args.resultType().getElementType();
    if (!isa<FloatType>(elt))
      return args.getOp().emitError("operator '") << operatorName(args)
                                                  << "' gives a non-float result";
    Location loc = args.getOp().getLoc();
    return SmallVector<Value>{b.create<OpTy>(loc, makeCast(b, loc, *x, elt))};
  };
}

/// floor, ceil, trunc, round: integers are already whole (and stay integers).
template <typename OpTy>
LegalizeFn rounding() {
  return [](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Value> x = requiredTensor(args, "self");
    if (failed(x))
      return failure();
    if (!isa<FloatType>(typeOf(*x).getElementType()))
      return SmallVector<Value>{*x};
    return SmallVector<Value>{b.create<OpTy>(args.getOp().getLoc(), *x)};
  };
}

/// round(x, decimals): round(x * 10^d) / 10^d, or for negative d
/// round(x / 10^-d) * 10^-d (PyTorch's order, so 15 rounds to 20 at d = -1).
Results legalizeRoundDecimals(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self");
  if (failed(x))
    return failure();
  Type elt = typeOf(*x).getElementType();
  if (!isa<FloatType>(elt))
    return SmallVector<Value>{*x};
  Location loc = args.getOp().getLoc();
  int64_t d = args.getInt("decimals").value_or(0);
  Value scale = makeScalar(b, loc, elt, std::pow(10.0, static_cast<double>(std::abs(d))));
  if (d >= 0)
    return SmallVector<Value>{makeBinary<DivOp>(
        b, loc, b.create<RoundOp>(loc, makeBinary<MulOp>(b, loc, *x, scale)), scale)};
  return SmallVector<Value>{makeBinary<MulOp>(
      b, loc, b.create<RoundOp>(loc, makeBinary<DivOp>(b, loc, *x, scale)), scale)};
}

/// x <op> other (tensor or scalar), with `alpha` scaling `other` for add/sub.
/// Operands are converted to the result's element type first (PyTorch's type
/// promotion, e.g. int64 / int64 -> float32 for true division).
template <typename OpTy>
LegalizeFn binary(bool hasAlpha) {
  return [hasAlpha](OperatorArgs &args, OpBuilder &b) -> Results {
    Location loc = args.getOp().getLoc();
    Value x = args.tensor("self");
    Type elt = args.resultType().getElementType();
    if (!x) {
      // A number on the left (core ATen's affine_grid: sub.Tensor(27,
      // arange)): a scalar of the result's type.
      std::optional<double> number = args.getFloat("self");
      if (!number || !args.tensor("other"))
        return operatorError(args) << "expects a tensor 'self', or a number with a tensor 'other'";
      x = makeScalar(b, loc, elt, *number);
    }
    x = makeCast(b, loc, x, elt);
    FailureOr<Value> other = tensorOrScalar(args, b, "other", x);
    if (failed(other))
      return failure();
    Value y = makeCast(b, loc, *other, elt);
    if (hasAlpha) {
      double alpha = args.getFloat("alpha").value_or(1.0);
      if (alpha != 1.0)
        y = makeBinary<MulOp>(b, loc, y, makeScalar(b, loc, elt, alpha));
    }
    return SmallVector<Value>{makeBinary<OpTy>(b, loc, x, y)};
  };
}

/// pow(x, e): small constant exponents become multiplications or sqrt (the
/// forms RMSNorm and GELU-tanh use), others math.powf.
/// isclose(self, other, rtol, atol, equal_nan), PyTorch's rule: equal, or
/// (equal_nan) both NaN, or |self - other| finite and <= atol + |rtol * other|.
Results legalizeIsclose(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> x = requiredTensor(args, "self"), y = requiredTensor(args, "other");
  if (failed(x) || failed(y))
    return failure();
  Type elt = typeOf(*x).getElementType();
  if (!isa<FloatType>(elt) || typeOf(*y).getElementType() != elt)
    return operatorError(args) << "needs float tensors of one type";
  double rtol = args.getFloat("rtol").value_or(1e-5), atol = args.getFloat("atol").value_or(1e-8);
  Value close = makeCompare(b, loc, "eq", *x, *y);
  if (args.getBool("equal_nan").value_or(false)) {
    Value xNan = makeCompare(b, loc, "ne", *x, *x);
    Value yNan = makeCompare(b, loc, "ne", *y, *y);
    close = makeBinary<BitwiseOrOp>(b, loc, close, makeBinary<BitwiseAndOp>(b, loc, xNan, yNan));
  }
  if (rtol == 0.0 && atol == 0.0)
    return SmallVector<Value>{close};
  Value scaled = b.create<AbsOp>(loc, makeBinary<MulOp>(b, loc, makeScalar(b, loc, elt, rtol), *y));
  Value allowed = makeBinary<AddOp>(b, loc, makeScalar(b, loc, elt, atol), scaled);
  Value actual = b.create<AbsOp>(loc, makeBinary<SubOp>(b, loc, *x, *y));
  Value finite = makeCompare(b, loc, "lt", actual, makeScalar(b, loc, elt, INFINITY));
  Value within = makeCompare(b, loc, "le", actual, allowed);
  Value near = makeBinary<BitwiseAndOp>(b, loc, finite, within);
  return SmallVector<Value>{makeBinary<BitwiseOrOp>(b, loc, close, near)};
}

Results legalizePow(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Type elt = args.resultType().getElementType();
  if (!isa<FloatType>(elt))
    return args.getOp().emitError("pow of integer tensors is not supported yet");
  Value x = args.tensor("self");
  Value e = args.tensor("exponent");
  if (!x) {  // pow.Scalar: a number raised to a tensor
    std::optional<double> base = args.getFloat("self");
    if (!base || !e)
      return args.getOp().emitError("pow expects 'self' and 'exponent'");
    return SmallVector<Value>{
        makeBinary<PowOp>(b, loc, makeScalar(b, loc, elt, *base), makeCast(b, loc, e, elt))};
  }
  x = makeCast(b, loc, x, elt);
  if (e)
    return SmallVector<Value>{makeBinary<PowOp>(b, loc, x, makeCast(b, loc, e, elt))};
  std::optional<double> k = args.getFloat("exponent");
  if (!k)
    return args.getOp().emitError("pow expects 'exponent'");
  if (*k == 1.0)
    return SmallVector<Value>{x};
  if (*k == 2.0)
    return SmallVector<Value>{makeBinary<MulOp>(b, loc, x, x)};
  if (*k == 3.0)
    return SmallVector<Value>{makeBinary<MulOp>(b, loc, makeBinary<MulOp>(b, loc, x, x), x)};
  if (*k == 0.5)
    return SmallVector<Value>{b.create<SqrtOp>(loc, x)};
  if (*k == -0.5)
    return SmallVector<Value>{b.create<RsqrtOp>(loc, x)};
  if (*k == -1.0)
    return SmallVector<Value>{makeBinary<DivOp>(b, loc, makeScalar(b, loc, elt, 1.0), x)};
  return SmallVector<Value>{makeBinary<PowOp>(b, loc, x, makeScalar(b, loc, elt, *k))};
}

/// remainder(a, b) = Python's a % b: fmod's result r, plus b where r is
/// nonzero and its sign differs from b's.
Results legalizeRemainder(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Type elt = args.resultType().getElementType();
  Value x = args.tensor("self");
  if (!x) {  // remainder.Scalar_Tensor: a number modulo a tensor
    std::optional<double> s = args.getFloat("self");
    if (!s)
      return args.getOp().emitError("operator 'aten.remainder': expected 'self'");
    x = makeScalar(b, loc, elt, *s);
  }
  x = makeCast(b, loc, x, elt);
  FailureOr<Value> other = tensorOrScalar(args, b, "other", x);
  if (failed(other))
    return failure();
  Value y = makeCast(b, loc, *other, elt);
  Value r = makeBinary<FmodOp>(b, loc, x, y);
  Value zero = makeScalar(b, loc, elt, 0.0);
  auto compare = [&](Value l, Value rhs, StringRef predicate) {
    return makeCompare(b, loc, predicate, l, rhs);
  };
  // One op per statement: argument order is the compiler's (issue 17).
  Value rNegative = compare(r, zero, "lt");
  Value yNegative = compare(y, zero, "lt");
  Value signsDiffer = compare(rNegative, yNegative, "ne");
  Value adjust = makeBinary<BitwiseAndOp>(b, loc, compare(r, zero, "ne"), signsDiffer);
  Value shifted = makeBinary<AddOp>(b, loc, r, y);
  return SmallVector<Value>{
      b.create<SelectOp>(loc, shifted.getType(), adjust, shifted, r).getResult()};
}

/// PyTorch's div_floor_floating for a / b, `quotient` their DivOp: the
/// quotient of a - fmod(a, b), one less where the remainder is nonzero and
/// its sign differs from b's, floored and rounded up past .5 (the division's
/// rounding); copysign(0, a / b) for a zero quotient and a / b where b is 0.
/// Not floor(a / b), which gives 10 for 1 // 0.1 in f32 where PyTorch gives 9.
Value floorDivide(OpBuilder &b, Location loc, DivOp quotient) {
  Value x = quotient.getLhs(), y = quotient.getRhs(), q = quotient.getResult();
  RankedTensorType type = typeOf(q);
  PointwiseBuilder p{b, loc, type.getElementType()};
  Value zero = p.c(0.0);
  Value one = p.c(1.0);
  Value mod = p.bin<FmodOp>(x, y);
  Value div = p.bin<DivOp>(p.bin<SubOp>(x, mod), y);
  Value modNonzero = makeCompare(b, loc, "ne", mod, zero);
  Value yNegative = makeCompare(b, loc, "lt", y, zero);
  Value modNegative = makeCompare(b, loc, "lt", mod, zero);
  Value signsDiffer = makeCompare(b, loc, "ne", yNegative, modNegative);
  Value adjust = p.bin<BitwiseAndOp>(modNonzero, signsDiffer);
  div = b.create<SelectOp>(loc, type, adjust, p.bin<SubOp>(div, one), div);
  Value floored = p.un<FloorOp>(div);
  Value fraction = p.bin<SubOp>(div, floored);
  Value roundsUp = makeCompare(b, loc, "gt", fraction, p.c(0.5));
  floored = b.create<SelectOp>(loc, type, roundsUp, p.bin<AddOp>(floored, one), floored);
  Value signedZero = p.bin<CopysignOp>(zero, q);
  Value divZero = makeCompare(b, loc, "eq", div, zero);
  Value result = b.create<SelectOp>(loc, type, divZero, signedZero, floored);
  Value byZero = makeCompare(b, loc, "eq", y, zero);
  return b.create<SelectOp>(loc, type, byZero, q, result);
}

/// div(x, y, rounding_mode) of signed integers (PyTorch keeps them integers
/// with a rounding mode): trunc_div, and for "floor" one less where the
/// remainder is nonzero and its sign differs from the divisor's.
Results integerDivide(OperatorArgs &args, OpBuilder &b, Location loc, StringRef rounding) {
  Type elt = args.resultType().getElementType();
  FailureOr<Value> x = requiredTensor(args, "self");
  if (failed(x))
    return failure();
  FailureOr<Value> y = tensorOrScalar(args, b, "other", *x);
  if (failed(y))
    return failure();
  if (!elt.isSignlessInteger() || elt.isInteger(1))
    return operatorError(args) << "division with rounding of " << elt
                               << " tensors (signed integers and floats only)";
  Value xs = makeCast(b, loc, *x, elt);
  Value ys = makeCast(b, loc, *y, elt);
  Value q = makeBinary<TruncDivOp>(b, loc, xs, ys);
  if (rounding == "trunc")
    return SmallVector<Value>{q};
  if (rounding != "floor")
    return operatorError(args) << "div rounding_mode '" << rounding << "' is unknown";
  PointwiseBuilder p{b, loc, elt};
  Value zero = p.c(0.0);
  Value r = p.bin<FmodOp>(xs, ys);
  Value rNonzero = makeCompare(b, loc, "ne", r, zero);
  Value rNegative = makeCompare(b, loc, "lt", r, zero);
  Value yNegative = makeCompare(b, loc, "lt", ys, zero);
  Value signsDiffer = makeCompare(b, loc, "ne", rNegative, yNegative);
  Value adjust = p.bin<BitwiseAndOp>(rNonzero, signsDiffer);
  Value lower = p.bin<SubOp>(q, p.c(1.0));
  return SmallVector<Value>{b.create<SelectOp>(loc, typeOf(q), adjust, lower, q).getResult()};
}

/// div(x, y, rounding_mode) and floor_divide: "trunc" truncates the float
/// quotient, "floor" is PyTorch's floor division; signed integers divide as
/// integers (integerDivide).
Results legalizeDiv(OperatorArgs &args, OpBuilder &b) {
  auto mode = dyn_cast_or_null<StringAttr>(args.getOp().getArgs().get("rounding_mode"));
  StringRef rounding = mode ? mode.getValue() : StringRef();
  if (operatorName(args).starts_with("aten.floor_divide."))
    rounding = "floor";
  Results quotient = binary<DivOp>(false)(args, b);
  if (rounding.empty() || failed(quotient))
    return quotient;
  Location loc = args.getOp().getLoc();
  if (!isa<FloatType>(args.resultType().getElementType()))
    return integerDivide(args, b, loc, rounding);
  Value q = (*quotient)[0];
  if (rounding == "trunc")
    return SmallVector<Value>{b.create<TruncOp>(loc, q)};
  if (rounding == "floor")
    return SmallVector<Value>{floorDivide(b, loc, q.getDefiningOp<DivOp>())};
  return args.getOp().emitError("div rounding_mode '") << rounding << "' is unknown";
}

/// fmax / fmin: the maximum (minimum) where neither is NaN, else the one
/// that is not (NaN only where both are), unlike maximum's NaN propagation.
template <typename OpTy>
LegalizeFn ignoringNan() {
  return [](OperatorArgs &args, OpBuilder &b) -> Results {
    Results extremum = binary<OpTy>(false)(args, b);
    if (failed(extremum) || !isa<FloatType>(args.resultType().getElementType()) ||
        !args.tensor("other"))
      return extremum;
    Location loc = args.getOp().getLoc();
    Type elt = args.resultType().getElementType();
    Value x = makeCast(b, loc, args.tensor("self"), elt);
    Value y = makeCast(b, loc, args.tensor("other"), elt);
    auto type = typeOf((*extremum)[0]);
    Value xNan = makeCompare(b, loc, "ne", x, x);
    Value yNan = makeCompare(b, loc, "ne", y, y);
    Value notX = b.create<SelectOp>(loc, type, yNan, x, (*extremum)[0]);
    return SmallVector<Value>{b.create<SelectOp>(loc, type, xNan, y, notX).getResult()};
  };
}

/// x + value * (t1 <op> t2): addcmul (MulOp) and addcdiv (DivOp).
template <typename OpTy>
LegalizeFn addcOp() {
  return [](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Value> x = requiredTensor(args, "self"), t1 = requiredTensor(args, "tensor1"),
                     t2 = requiredTensor(args, "tensor2");
    if (failed(x) || failed(t1) || failed(t2))
      return failure();
    Location loc = args.getOp().getLoc();
    Type elt = args.resultType().getElementType();
    Value l = makeCast(b, loc, *t1, elt);
    Value r = makeCast(b, loc, *t2, elt);
    Value p = makeBinary<OpTy>(b, loc, l, r);
    double value = args.getFloat("value").value_or(1.0);
    if (value != 1.0)
      p = makeBinary<MulOp>(b, loc, makeScalar(b, loc, elt, value), p);
    return SmallVector<Value>{makeBinary<AddOp>(b, loc, makeCast(b, loc, *x, elt), p)};
  };
}

/// rsub(self, other, alpha) = other - alpha * self.
Results legalizeRsub(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self");
  if (failed(x))
    return failure();
  Location loc = args.getOp().getLoc();
  Type elt = args.resultType().getElementType();
  Value self = makeCast(b, loc, *x, elt);
  FailureOr<Value> other = tensorOrScalar(args, b, "other", self);
  if (failed(other))
    return failure();
  double alpha = args.getFloat("alpha").value_or(1.0);
  if (alpha != 1.0)
    self = makeBinary<MulOp>(b, loc, makeScalar(b, loc, elt, alpha), self);
  return SmallVector<Value>{makeBinary<SubOp>(b, loc, makeCast(b, loc, *other, elt), self)};
}

/// clamp / clamp_min / clamp_max with tensor bounds (broadcast against self).
Results legalizeClampTensor(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self");
  if (failed(x))
    return failure();
  Location loc = args.getOp().getLoc();
  Type elt = args.resultType().getElementType();
  Value y = makeCast(b, loc, *x, elt);
  for (StringRef name : {"min", "max"}) {
    Value bound = args.tensor(name);
    if (!bound) {
      if (std::optional<double> v = args.getFloat(name))
        bound = makeScalar(b, loc, elt, *v);
      else
        continue;
    }
    bound = makeCast(b, loc, bound, elt);
    y = name == "min" ? makeBinary<MaximumOp>(b, loc, y, bound)
                      : makeBinary<MinimumOp>(b, loc, y, bound);
  }
  return SmallVector<Value>{y};
}

/// logaddexp(a, b) = max + log1p(exp(-|a - b|)); where a == b (both infinite
/// included, whose difference is NaN) a + log 2. logaddexp2 in base 2.
LegalizeFn logAddExp(bool base2) {
  return [base2](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Value> x = requiredTensor(args, "self"), y = requiredTensor(args, "other");
    if (failed(x) || failed(y))
      return failure();
    Location loc = args.getOp().getLoc();
    Type elt = args.resultType().getElementType();
    Value l = makeCast(b, loc, *x, elt), r = makeCast(b, loc, *y, elt);
    Value m = makeBinary<MaximumOp>(b, loc, l, r);
    Value d = b.create<NegOp>(loc, b.create<AbsOp>(loc, makeBinary<SubOp>(b, loc, l, r)));
    Value tail;
    if (base2) {  // log2(1 + 2^d)
      Value ln2 = makeScalar(b, loc, elt, M_LN2);
      tail = makeBinary<DivOp>(b, loc, b.create<Log1pOp>(loc, b.create<Exp2Op>(loc, d)), ln2);
    } else {
      tail = b.create<Log1pOp>(loc, b.create<ExpOp>(loc, d));
    }
    Value general = makeBinary<AddOp>(b, loc, m, tail);
    Value same = makeBinary<AddOp>(b, loc, l, makeScalar(b, loc, elt, base2 ? 1.0 : M_LN2));
    Value equal = makeCompare(b, loc, "eq", l, r);
    auto type = typeOf(general);
    return SmallVector<Value>{b.create<SelectOp>(loc, type, equal, same, general).getResult()};
  };
}

/// The operand `name` in `elt`, or a rank-0 constant from a Python number.
FailureOr<Value> operandAs(OperatorArgs &args, OpBuilder &b, StringRef name, Type elt) {
  Location loc = args.getOp().getLoc();
  if (Value v = args.tensor(name))
    return makeCast(b, loc, v, elt);
  if (std::optional<double> n = args.getFloat(name))
    return makeScalar(b, loc, elt, *n);
  return args.getOp().emitError("operator '") << operatorName(args) << "' needs argument '"
                                              << name << "'";
}

/// xlogy(x, y) and special_xlog1py(x, y) (in the result's float type).
LegalizeFn xlogy(bool log1p) {
  return [log1p](OperatorArgs &args, OpBuilder &b) -> Results {
    Type elt = args.resultType().getElementType();
    if (!isa<FloatType>(elt))
      return args.getOp().emitError("operator '") << operatorName(args)
                                                  << "' gives a non-float result";
    FailureOr<Value> x = operandAs(args, b, "self", elt), y = operandAs(args, b, "other", elt);
    if (failed(x) || failed(y))
      return failure();
    return SmallVector<Value>{makeXlogy(b, args.getOp().getLoc(), *x, *y, log1p)};
  };
}

/// prelu(self, weight) = where(self > 0, self, weight * self): a weight of one
/// element applies everywhere, else one per channel (dim 1, dim 0 of a 1-D
/// self), PyTorch's broadcast.
Results legalizePrelu(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self"), w = requiredTensor(args, "weight");
  if (failed(x) || failed(w))
    return failure();
  Location loc = args.getOp().getLoc();
  RankedTensorType type = args.resultType();
  auto xt = typeOf(*x), wt = typeOf(*w);
  if (!isa<FloatType>(type.getElementType()) || !wt.hasStaticShape() || wt.getRank() > 1)
    return args.getOp().emitError("prelu expects a float tensor and a static 0-d or 1-D weight");
  Value weight = makeCast(b, loc, *w, type.getElementType());
  if (wt.getNumElements() == 1) {
    weight = makeReshape(b, loc, weight, {});
  } else {
    int64_t channels = wt.getNumElements();
    if (xt.getRank() == 0 || xt.getDimSize(xt.getRank() == 1 ? 0 : 1) != channels)
      return args.getOp().emitError("prelu: ") << channels << " weights for an input of type "
                                               << xt;
    SmallVector<int64_t> shape{channels};
    shape.append(std::max<int64_t>(xt.getRank() - 2, 0), 1);
    weight = makeReshape(b, loc, weight, shape);
  }
  Value self = makeCast(b, loc, *x, type.getElementType());
  Value positive = makeCompare(b, loc, "gt", self, makeScalar(b, loc, type.getElementType(), 0.0));
  Value scaled = makeBinary<MulOp>(b, loc, weight, self);
  return SmallVector<Value>{b.create<SelectOp>(loc, type, positive, self, scaled).getResult()};
}

/// glu(self, dim) = a * sigmoid(b), a and b the halves of self along dim.
Results legalizeGlu(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self");
  if (failed(x))
    return failure();
  auto t = typeOf(*x);
  int64_t rank = t.getRank(), raw = args.getInt("dim").value_or(-1);
  int64_t dim = normalizeDim(raw, rank);
  if (dim < 0 || dim >= rank || !isa<FloatType>(t.getElementType()))
    return args.getOp().emitError("glu expects a float tensor of rank >= 1 and a dim in range");
  int64_t n = t.getDimSize(dim);
  PointwiseBuilder p{b, args.getOp().getLoc(), t.getElementType()};
  if (ShapedType::isDynamic(n)) {
    // Halves of n / 2 read at run time, an odd n failing the call as
    // PyTorch raises: x[:h] a slice, x[h:] a take from h.
    Type i64 = b.getI64Type();
    auto scalarI64 = RankedTensorType::get({}, i64);
    Value size = b.create<DimSizeOp>(p.loc, scalarI64, *x, b.getI64IntegerAttr(dim));
    Value two = makeScalar(b, p.loc, i64, 2.0);
    Value rest = makeBinary<FmodOp>(b, p.loc, size, two);
    Value even = makeCompare(b, p.loc, "eq", rest, makeScalar(b, p.loc, i64, 0.0));
    Value checked = b.create<CheckOp>(
        p.loc, t, even, *x,
        b.getStringAttr(operatorName(args).str() + ": dim " + std::to_string(raw) +
                        " of an odd size does not halve"));
    Value half = makeBinary<TruncDivOp>(b, p.loc, size, two);
    Value sizeIndex = dimIndex(b, p.loc, *x, dim);
    Value twoIndex = b.create<arith::ConstantIndexOp>(p.loc, 2);
    Value length = b.create<arith::DivUIOp>(p.loc, sizeIndex, twoIndex);
    auto halfType = RankedTensorType::get(t.getShape(), t.getElementType());
    Value first = b.create<SliceOp>(p.loc, halfType, checked, b.getI64IntegerAttr(dim),
                                    b.getI64IntegerAttr(0),
                                    b.getI64IntegerAttr(std::numeric_limits<int64_t>::max()),
                                    b.getI64IntegerAttr(1), ValueRange{length});
    Value second = takeRange(b, p.loc, checked, dim, half, length, halfType);
    return SmallVector<Value>{p.bin<MulOp>(first, p.sigmoid(second))};
  }
  if (n % 2 != 0)
    return args.getOp().emitError("glu: dim ") << raw << " of size " << n
                                               << " does not halve (even)";
  Value first = makeSlice(b, p.loc, *x, dim, 0, n / 2, 1);
  Value second = makeSlice(b, p.loc, *x, dim, n / 2, n, 1);
  return SmallVector<Value>{p.bin<MulOp>(first, p.sigmoid(second))};
}

/// nan_to_num(self, nan=0, posinf=max, neginf=lowest): NaN and infinities
/// replaced (the defaults: the dtype's largest and lowest finite values);
/// integers are unchanged.
Results legalizeNanToNum(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self");
  if (failed(x))
    return failure();
  auto t = typeOf(*x);
  auto ft = dyn_cast<FloatType>(t.getElementType());
  if (!ft)
    return SmallVector<Value>{*x};
  Location loc = args.getOp().getLoc();
  const llvm::fltSemantics &sem = ft.getFloatSemantics();
  double largest = llvm::APFloat::getLargest(sem).convertToDouble();
  double nan = args.getFloat("nan").value_or(0.0);
  double posinf = args.getFloat("posinf").value_or(largest);
  double neginf = args.getFloat("neginf").value_or(-largest);
  Value y = *x;
  for (auto [match, replacement] : {std::pair{NAN, nan}, {INFINITY, posinf}, {-INFINITY, neginf}}) {
    // NaN is the one value unequal to itself.
    Value hit = std::isnan(match)
                    ? makeCompare(b, loc, "ne", *x, *x)
                    : makeCompare(b, loc, "eq", *x, makeScalar(b, loc, ft, match));
    Value value = makeScalar(b, loc, ft, replacement);
    y = b.create<SelectOp>(loc, t, hit, value, y);
  }
  return SmallVector<Value>{y};
}

/// lerp(self, end, weight) as PyTorch's kernel: self + w (end - self) where
/// |w| < 0.5, else end - (end - self) (1 - w) (a tensor weight selects per
/// element).
Results legalizeLerp(OperatorArgs &args, OpBuilder &b) {
  RankedTensorType type = args.resultType();
  Type elt = type.getElementType();
  // f16/bf16 computed in f32 and rounded once, as PyTorch's kernel (its opmath
  // type): each step rounded to bf16 was off by up to 5 ulps (the sweep's
  // bf16 column).
  Type calc = elt.isBF16() || elt.isF16() ? b.getF32Type() : elt;
  FailureOr<Value> x = operandAs(args, b, "self", calc), end = operandAs(args, b, "end", calc),
                   w = operandAs(args, b, "weight", calc);
  if (failed(x) || failed(end) || failed(w) || !isa<FloatType>(elt))
    return args.getOp().emitError("lerp expects float 'self', 'end' and 'weight'");
  PointwiseBuilder p{b, args.getOp().getLoc(), calc};
  auto rounded = [&](Value v) { return calc == elt ? v : makeCast(b, p.loc, v, elt); };
  Value diff = p.bin<SubOp>(*end, *x);
  auto low = [&] { return p.bin<AddOp>(*x, p.bin<MulOp>(*w, diff)); };
  auto high = [&] { return p.bin<SubOp>(*end, p.bin<MulOp>(diff, p.bin<SubOp>(p.c(1.0), *w))); };
  if (std::optional<double> scalar = args.getFloat("weight"))
    return SmallVector<Value>{rounded(std::abs(*scalar) < 0.5 ? low() : high())};
  Value nearSelf = low();
  Value nearEnd = high();
  Value magnitude = p.un<AbsOp>(*w);
  Value small = makeCompare(b, p.loc, "lt", magnitude, p.c(0.5));
  Value picked = b.create<SelectOp>(p.loc, RankedTensorType::get(type.getShape(), calc), small,
                                    nearSelf, nearEnd);
  return SmallVector<Value>{rounded(picked)};
}

/// A pointwise function of two operands in the result's float type (Python
/// numbers allowed), written by `fn`.
LegalizeFn floatBinary(StringRef second,
                       std::function<Value(PointwiseBuilder &, Value, Value, RankedTensorType)> fn) {
  std::string name = second.str();
  return [name, fn](OperatorArgs &args, OpBuilder &b) -> Results {
    RankedTensorType type = args.resultType();
    Type elt = type.getElementType();
    if (!isa<FloatType>(elt))
      return args.getOp().emitError("operator '") << operatorName(args)
                                                  << "' gives a non-float result";
    FailureOr<Value> x = operandAs(args, b, "self", elt), y = operandAs(args, b, name, elt);
    if (failed(x) || failed(y))
      return failure();
    PointwiseBuilder p{b, args.getOp().getLoc(), elt};
    return SmallVector<Value>{fn(p, *x, *y, type)};
  };
}

/// An i1 test of one operand (NaN compares unequal to itself).
LegalizeFn elementTest(std::function<Value(OpBuilder &, Location, Value)> fn) {
  return [fn](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Value> x = requiredTensor(args, "self");
    if (failed(x))
      return failure();
    return SmallVector<Value>{fn(b, args.getOp().getLoc(), *x)};
  };
}

/// x == v (v an infinity), false for integers.
Value equalsInfinity(OpBuilder &b, Location loc, Value x, double v) {
  Type elt = typeOf(x).getElementType();
  Value bound = makeScalar(b, loc, isa<FloatType>(elt) ? elt : b.getF32Type(), v);
  return makeCompare(b, loc, "eq", x, bound);
}

/// dropout in eval mode, clone, contiguous, alias, detach: the value itself.
Results identity(OperatorArgs &args, OpBuilder &) {
  if (auto train = args.getBool("train"); train && *train)
    return args.getOp().emitError("dropout in training mode is not supported");
  Value x = args.tensor("self");
  if (!x)
    x = args.tensor("input");
  if (!x)
    return args.getOp().emitError("expected a tensor operand");
  return SmallVector<Value>{x};
}
/// The operand `self` (or `input`) of a pointwise activation.
FailureOr<Value> activationInput(OperatorArgs &args) {
  Value x = args.tensor("self");
  if (!x)
    x = args.tensor("input");
  if (!x)
    return args.getOp().emitError("expected a tensor operand 'self'");
  return x;
}

/// Builds activations from the typed pointwise ops; `c(v)` is a scalar
/// constant of the input's element type.
struct ActivationBuilder : PointwiseBuilder {
  Value clamp(Value x, std::optional<double> lo, std::optional<double> hi) {
    if (lo) x = bin<MaximumOp>(x, c(*lo));
    if (hi) x = bin<MinimumOp>(x, c(*hi));
    return x;
  }
  Value hardsigmoid(Value x) {
    Value sixth = bin<DivOp>(x, c(6.0));
    return clamp(bin<AddOp>(sixth, c(0.5)), 0.0, 1.0);
  }
};

/// elu(x) = scale * (max(x, 0) + alpha * (exp(input_scale * min(x, 0)) - 1)).
Value makeElu(ActivationBuilder &a, Value x, double alpha, double scale, double inputScale) {
  // One value per statement: the IR follows the formula's order.
  Value pos = a.bin<MaximumOp>(x, a.c(0.0));
  Value below = a.bin<MinimumOp>(x, a.c(0.0));
  if (inputScale != 1.0)
    below = a.bin<MulOp>(a.c(inputScale), below);
  Value grown = a.un<ExpOp>(below);
  Value neg = a.bin<SubOp>(grown, a.c(1.0));
  Value y = a.bin<AddOp>(pos, a.bin<MulOp>(a.c(alpha), neg));
  return scale == 1.0 ? y : a.bin<MulOp>(a.c(scale), y);
}

/// The largest integer bound tcc takes exactly: bounds reach it as doubles.
constexpr double kMaxExactBound = 9007199254740992.0; // 2^53

/// A legalizer from a function of (builder, input, args). An integer or
/// bool input with a floating-point result (torch.sigmoid of
/// an int64 tensor is float32) is converted to the result's type first.
/// `integerArgs`: the activation is exact on signed integers (relu6,
/// threshold) when these arguments are whole numbers; PyTorch keeps the
/// integer type there.
LegalizeFn activation(std::function<Value(ActivationBuilder &, Value, OperatorArgs &)> fn,
                      std::optional<ArrayRef<StringRef>> integerArgs = std::nullopt) {
  return [fn, integerArgs](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Value> x = activationInput(args);
    if (failed(x))
      return failure();
    Type elt = cast<RankedTensorType>(x->getType()).getElementType();
    Type resultElt = args.resultType().getElementType();
    bool signedInt = elt.isSignlessInteger() && !elt.isInteger(1);
    if (!isa<FloatType>(elt) && isa<FloatType>(resultElt)) {
      *x = makeCast(b, args.getOp().getLoc(), *x, resultElt);
      elt = resultElt;
    } else if (!isa<FloatType>(elt)) {
      if (!integerArgs || !signedInt || resultElt != elt)
        return operatorError(args) << "activation on a " << elt << " tensor is not supported";
      for (StringRef name : *integerArgs)
        if (std::optional<double> v = args.getFloat(name);
            v && (std::floor(*v) != *v || std::fabs(*v) > kMaxExactBound))
          return operatorError(args) << "argument '" << name << "' = " << *v
                                     << " on an integer tensor is not a whole number of at most "
                                        "2^53";
    }
    ActivationBuilder ab{{b, args.getOp().getLoc(), elt}};
    return SmallVector<Value>{fn(ab, *x, args)};
  };
}

/// clamp(x, lo, hi) (clamp_min, clamp_max, hardtanh): floats as any
/// activation; a signed integer tensor whose result keeps its type (integer
/// bounds: PyTorch makes a float bound's result float) by maximum/minimum in
/// that type.
LegalizeFn clampLegalizer(
    std::function<std::pair<std::optional<double>, std::optional<double>>(OperatorArgs &)> bounds) {
  return [bounds](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Value> x = activationInput(args);
    if (failed(x))
      return failure();
    Type elt = cast<RankedTensorType>(x->getType()).getElementType();
    auto [lo, hi] = bounds(args);
    // A float bound makes an integer tensor's clamp float (PyTorch's type
    // promotion): clamped in the result's type.
    Type resultElt = args.resultType().getElementType();
    if (!isa<FloatType>(elt) && isa<FloatType>(resultElt)) {
      *x = makeCast(b, args.getOp().getLoc(), *x, resultElt);
      elt = resultElt;
    }
    if (!isa<FloatType>(elt)) {
      auto resultType = dyn_cast<RankedTensorType>(args.getOp()->getResult(0).getType());
      bool signedInt = elt.isSignlessInteger() && !elt.isInteger(1);
      if (!signedInt || !resultType || resultType.getElementType() != elt)
        return operatorError(args) << "clamp of a " << elt
                                   << " tensor is supported for signed integers with integer "
                                      "bounds only";
      for (std::optional<double> bound : {lo, hi})
        if (bound && (std::floor(*bound) != *bound || std::fabs(*bound) > kMaxExactBound))
          return operatorError(args) << "integer clamp bound " << *bound
                                     << " is not an integer of at most 2^53";
    }
    ActivationBuilder ab{{b, args.getOp().getLoc(), elt}};
    return SmallVector<Value>{ab.clamp(*x, lo, hi)};
  };
}


/// frexp(x) = (mantissa, exponent) with x = mantissa 2^exponent, |mantissa|
/// in [1/2, 1) (x itself and exponent 0 for 0, infinities and NaN), as C's
/// frexp that ATen calls. In f64, where 2^-e is exact for every exponent of
/// the narrower types: e = floor(log2|x|) + 1, x 2^-e, then one step each way
/// where log2's rounding put e off by one near a power of two. Double
/// inputs (whose subnormals' 2^-e overflow) are refused.
Results legalizeFrexp(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> self = requiredTensor(args, "self");
  if (failed(self))
    return failure();
  Type elt = typeOf(*self).getElementType();
  if (!isa<FloatType>(elt) || elt.isF64())
    return operatorError(args) << "needs a float32, float16 or bfloat16 tensor, not " << elt;
  PointwiseBuilder p{b, loc, b.getF64Type()};
  Value x = makeCast(b, loc, *self, p.elt);
  RankedTensorType type = typeOf(x);
  auto sel = [&](Value cond, Value a, Value c) {
    return b.create<SelectOp>(loc, type, cond, a, c).getResult();
  };
  Value absX = p.un<AbsOp>(x);
  Value log2 = p.un<Log2Op>(absX);
  Value whole = p.un<FloorOp>(log2);
  Value e = p.bin<AddOp>(whole, p.c(1.0));
  Value scale = p.un<Exp2Op>(p.un<NegOp>(e));
  Value m = p.bin<MulOp>(x, scale);
  // |m| >= 1: one more; |m| < 1/2: one less (both exact in f64).
  Value absM = p.un<AbsOp>(m);
  Value tooBig = makeCompare(b, loc, "ge", absM, p.c(1.0));
  m = sel(tooBig, p.bin<MulOp>(m, p.c(0.5)), m);
  e = sel(tooBig, p.bin<AddOp>(e, p.c(1.0)), e);
  Value absHalved = p.un<AbsOp>(m);
  Value tooSmall = makeCompare(b, loc, "lt", absHalved, p.c(0.5));
  m = sel(tooSmall, p.bin<MulOp>(m, p.c(2.0)), m);
  e = sel(tooSmall, p.bin<SubOp>(e, p.c(1.0)), e);
  // 0, infinities and NaN: x - x is not 0 for the last two.
  Value difference = p.bin<SubOp>(x, x);
  Value finite = makeCompare(b, loc, "eq", difference, p.c(0.0));
  Value nonzero = makeCompare(b, loc, "ne", x, p.c(0.0));
  Value regular = b.create<BitwiseAndOp>(loc, typeOf(finite), finite, nonzero);
  m = sel(regular, m, x);
  e = sel(regular, e, p.c(0.0));
  Value mantissa = makeCast(b, loc, m, elt);
  Value exponent = makeCast(b, loc, e, args.resultType(1).getElementType());
  return SmallVector<Value>{mantissa, exponent};
}

} // namespace

void tcc::graph::populateElementwiseLegalizers(LegalizerTable &t) {
  t["aten.sin.default"] = unary<SinOp>();
  t["aten.cos.default"] = unary<CosOp>();
  t["aten.exp.default"] = unary<ExpOp>();
  t["aten.sqrt.default"] = unary<SqrtOp>();
  t["aten.rsqrt.default"] = unary<RsqrtOp>();
  t["aten.neg.default"] = unary<NegOp>();
  // relu of a signed integer tensor keeps its type (tcc_graph.relu takes
  // floats): max(x, 0) in that type.
  t["aten.relu.default"] = [](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Value> x = activationInput(args);
    if (failed(x))
      return failure();
    Type elt = typeOf(*x).getElementType();
    Location loc = args.getOp().getLoc();
    if (isa<FloatType>(elt))
      return SmallVector<Value>{b.create<ReluOp>(loc, *x).getResult()};
    if (!elt.isSignlessInteger() || elt.isInteger(1))
      return operatorError(args) << "relu of a " << elt << " tensor is not supported";
    return SmallVector<Value>{makeBinary<MaximumOp>(b, loc, *x, makeScalar(b, loc, elt, 0.0))};
  };

  for (const char *suffix : {"Tensor", "Scalar"}) {
    std::string s(suffix);
    t["aten.add." + s] = binary<AddOp>(true);
    t["aten.sub." + s] = binary<SubOp>(true);
    t["aten.mul." + s] = binary<MulOp>(false);
    t["aten.div." + s] = legalizeDiv;
    t["aten.div." + s + "_mode"] = legalizeDiv;
    // The long names PyTorch also exports (torch.subtract, multiply, divide).
    t["aten.subtract." + s] = t["aten.sub." + s];
    t["aten.multiply." + s] = t["aten.mul." + s];
    t["aten.divide." + s] = legalizeDiv;
    t["aten.divide." + s + "_mode"] = legalizeDiv;
  }
  t["aten.maximum.default"] = binary<MaximumOp>(false);
  for (const char *v : {"Tensor", "Scalar"})
    t[std::string("aten.fmod.") + v] = binary<FmodOp>(false);
  for (const char *v : {"Tensor", "Scalar", "Scalar_Tensor"})
    t[std::string("aten.remainder.") + v] = legalizeRemainder;
  t["aten.max.other"] = binary<MaximumOp>(false);
  t["aten.min.other"] = binary<MinimumOp>(false);
  for (const char *v : {"Tensor_Scalar", "Tensor_Tensor", "Scalar"}) {
    t[std::string("aten.pow.") + v] = legalizePow;
    // float_power: pow in float64 (the result type).
    t[std::string("aten.float_power.") + v] = legalizePow;
  }
  t["aten.isclose.default"] = legalizeIsclose;
  t["aten.minimum.default"] = binary<MinimumOp>(false);
  t["aten.tanh.default"] = unary<TanhOp>();
  t["aten.erf.default"] = unary<ErfOp>();
  t["aten.log.default"] = unary<LogOp>();
  t["aten.log1p.default"] = unary<Log1pOp>();
  t["aten.abs.default"] = unary<AbsOp>();
  t["aten.floor.default"] = rounding<FloorOp>();
  t["aten.ceil.default"] = rounding<CeilOp>();
  t["aten.trunc.default"] = rounding<TruncOp>();
  t["aten.fix.default"] = rounding<TruncOp>();
  t["aten.round.default"] = rounding<RoundOp>();
  t["aten.round.decimals"] = legalizeRoundDecimals;
  t["aten.tan.default"] = floatUnary<TanOp>();
  t["aten.asin.default"] = floatUnary<AsinOp>();
  t["aten.acos.default"] = floatUnary<AcosOp>();
  t["aten.atan.default"] = floatUnary<AtanOp>();
  t["aten.sinh.default"] = floatUnary<SinhOp>();
  t["aten.cosh.default"] = floatUnary<CoshOp>();
  t["aten.asinh.default"] = floatUnary<AsinhOp>();
  t["aten.acosh.default"] = floatUnary<AcoshOp>();
  t["aten.atanh.default"] = floatUnary<AtanhOp>();
  t["aten.exp2.default"] = floatUnary<Exp2Op>();
  t["aten.frexp.Tensor"] = legalizeFrexp;
  t["aten.expm1.default"] = floatUnary<Expm1Op>();
  t["aten.log2.default"] = floatUnary<Log2Op>();
  t["aten.log10.default"] = floatUnary<Log10Op>();
  t["aten.erfc.default"] = floatUnary<ErfcOp>();
  t["aten.special_erfc.default"] = floatUnary<ErfcOp>();
  t["aten.atan2.default"] = binary<Atan2Op>(false);
  t["aten.arctan2.default"] = binary<Atan2Op>(false);
  t["aten.copysign.Tensor"] = binary<CopysignOp>(false);
  t["aten.copysign.Scalar"] = binary<CopysignOp>(false);
  t["aten.true_divide.Tensor"] = legalizeDiv;
  t["aten.floor_divide.default"] = legalizeDiv;
  t["aten.floor_divide.Scalar"] = legalizeDiv;
  t["aten.fmax.default"] = ignoringNan<MaximumOp>();
  t["aten.fmin.default"] = ignoringNan<MinimumOp>();
  t["aten.rsub.Tensor"] = legalizeRsub;
  t["aten.rsub.Scalar"] = legalizeRsub;
  t["aten.addcmul.default"] = addcOp<MulOp>();
  t["aten.addcdiv.default"] = addcOp<DivOp>();
  t["aten.clamp.Tensor"] = legalizeClampTensor;
  t["aten.clamp_min.Tensor"] = legalizeClampTensor;
  t["aten.clamp_max.Tensor"] = legalizeClampTensor;
  t["aten.logaddexp.default"] = logAddExp(false);
  t["aten.logaddexp2.default"] = logAddExp(true);
  for (const char *v : {"Tensor", "Scalar_Self", "Scalar_Other"})
    t[std::string("aten.xlogy.") + v] = xlogy(false);
  for (const char *v : {"default", "self_scalar", "other_scalar"})
    t[std::string("aten.special_xlog1py.") + v] = xlogy(true);
  t["aten.prelu.default"] = legalizePrelu;
  t["aten.glu.default"] = legalizeGlu;
  t["aten.nan_to_num.default"] = legalizeNanToNum;
  t["aten.lerp.Scalar"] = legalizeLerp;
  t["aten.lerp.Tensor"] = legalizeLerp;
  // heaviside: `values` where x is 0, else x > 0 (0 for NaN), PyTorch's kernel.
  t["aten.heaviside.default"] = floatBinary("values", [](PointwiseBuilder &p, Value x, Value v,
                                                         RankedTensorType type) -> Value {
    Value zero = p.c(0.0);
    Value one = p.c(1.0);
    Value positive = makeCompare(p.b, p.loc, "gt", x, zero);
    Value step = p.b.create<SelectOp>(p.loc, typeOf(x), positive, one, zero);
    Value atZero = makeCompare(p.b, p.loc, "eq", x, zero);
    return p.b.create<SelectOp>(p.loc, type, atZero, v, step);
  });
  // nextafter(x, y): the next representable value after x toward y, in f64
  // (exact for f32, f16 and bf16): the spacing of x's binade 2^(e - m), e =
  // floor(log2 |x|) at least the smallest normal exponent (denormals), halved
  // toward zero from a power of two (never below the smallest denormal); y
  // where x == y, NaN where either is, the largest finite value from an
  // infinity. f64 would need more precision than f64: refused.
  LegalizeFn nextafter = floatBinary("other", [](PointwiseBuilder &p, Value x, Value y,
                                                 RankedTensorType type) -> Value {
    Type elt = type.getElementType();
    int mantissa = elt.isF16() ? 10 : elt.isBF16() ? 7 : 23;
    int minExponent = elt.isF16() ? -14 : -126;
    double largest = elt.isF16() ? 65504.0 : elt.isBF16() ? 3.3895313892515355e38
                                                            : 3.4028234663852886e38;
    // Both stretched to the result's shape, so every select below is elementwise.
    for (Value *v : {&x, &y})
      if (typeOf(*v).getShape() != type.getShape())
        *v = p.b.create<BroadcastOp>(p.loc, RankedTensorType::get(type.getShape(), elt), *v,
                                     ValueRange{});
    PointwiseBuilder d{p.b, p.loc, p.b.getF64Type()};
    Value xd = makeCast(p.b, p.loc, x, d.elt);
    Value yd = makeCast(p.b, p.loc, y, d.elt);
    Value a = d.un<AbsOp>(xd);
    Value lg = d.un<Log2Op>(a);
    Value floored = d.un<FloorOp>(lg);
    Value e = d.bin<MaximumOp>(floored, d.c(minExponent));
    Value binade = d.un<Exp2Op>(e);
    Value away = d.bin<MulOp>(binade, d.c(std::ldexp(1.0, -mantissa)));
    Value half = d.bin<MulOp>(binade, d.c(std::ldexp(1.0, -mantissa - 1)));
    Value atPower = makeCompare(p.b, p.loc, "eq", a, binade);
    Value halved = p.b.create<SelectOp>(p.loc, typeOf(away), atPower, half, away);
    Value toward = d.bin<MaximumOp>(halved, d.c(std::ldexp(1.0, minExponent - mantissa)));
    Value up = makeCompare(p.b, p.loc, "gt", yd, xd);
    Value nonNegative = makeCompare(p.b, p.loc, "ge", xd, d.c(0));
    Value outward = makeCompare(p.b, p.loc, "eq", up, nonNegative);
    Value step = p.b.create<SelectOp>(p.loc, typeOf(away), outward, away, toward);
    Value down = d.un<NegOp>(step);
    Value signedStep = p.b.create<SelectOp>(p.loc, typeOf(step), up, step, down);
    Value moved = d.bin<AddOp>(xd, signedStep);
    // Through f32 (exact: `moved` is a value of elt or an infinity); f64 to
    // bf16 directly would need a compiler-rt routine the runtime lacks.
    Value narrowed = makeCast(p.b, p.loc, moved, p.b.getF32Type());
    Value r = makeCast(p.b, p.loc, narrowed, elt);
    Value infinite = makeCompare(p.b, p.loc, "eq", a, d.c(INFINITY));
    Value fromInfinity = p.bin<CopysignOp>(p.c(largest), x);
    r = p.b.create<SelectOp>(p.loc, type, infinite, fromInfinity, r);
    Value same = makeCompare(p.b, p.loc, "eq", x, y);
    r = p.b.create<SelectOp>(p.loc, type, same, y, r);
    Value sum = p.bin<AddOp>(x, y);
    Value xNan = makeCompare(p.b, p.loc, "ne", x, x);
    r = p.b.create<SelectOp>(p.loc, type, xNan, sum, r);
    Value yNan = makeCompare(p.b, p.loc, "ne", y, y);
    return p.b.create<SelectOp>(p.loc, type, yNan, sum, r);
  });
  t["aten.nextafter.default"] = [nextafter](OperatorArgs &args, OpBuilder &b) -> Results {
    if (args.resultType().getElementType().isF64())
      return operatorError(args) << "on float64 needs more precision than float64 (float32, "
                                    "float16 and bfloat16 are supported)";
    return nextafter(args, b);
  };
  // hypot: m sqrt(1 + (n/m)^2) with m, n the larger and smaller magnitude
  // (no overflow of x^2), 0 where m is 0, inf where either is infinite.
  t["aten.hypot.default"] = floatBinary("other", [](PointwiseBuilder &p, Value x, Value y,
                                                    RankedTensorType type) -> Value {
    Value ax = p.un<AbsOp>(x);
    Value ay = p.un<AbsOp>(y);
    Value m = p.bin<MaximumOp>(ax, ay);
    Value n = p.bin<MinimumOp>(ax, ay);
    Value r = p.bin<DivOp>(n, m);
    Value r2 = p.bin<MulOp>(r, r);
    Value h = p.bin<MulOp>(m, p.un<SqrtOp>(p.bin<AddOp>(p.c(1.0), r2)));
    Value zero = p.c(0.0);
    Value inf = p.c(INFINITY);
    Value atZero = makeCompare(p.b, p.loc, "eq", m, zero);
    Value finite = p.b.create<SelectOp>(p.loc, type, atZero, zero, h);
    Value xInf = makeCompare(p.b, p.loc, "eq", ax, inf);
    Value yInf = makeCompare(p.b, p.loc, "eq", ay, inf);
    Value anyInf = p.bin<BitwiseOrOp>(xInf, yInf);
    return p.b.create<SelectOp>(p.loc, type, anyInf, inf, finite);
  });
  // ldexp(x, e) = x * 2^e (PyTorch's x * pow(2, e)).
  t["aten.ldexp.Tensor"] = floatBinary("other", [](PointwiseBuilder &p, Value x, Value e,
                                                   RankedTensorType) -> Value {
    return p.bin<MulOp>(x, p.un<Exp2Op>(e));
  });
  // logit(x, eps): log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given.
  t["aten.logit.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &args) {
    if (std::optional<double> eps = args.getFloat("eps"); eps && *eps >= 0)
      x = a.clamp(x, *eps, 1.0 - *eps);
    return a.un<LogOp>(a.bin<DivOp>(x, a.bin<SubOp>(a.c(1.0), x)));
  });
  t["aten.deg2rad.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &) {
    return a.bin<MulOp>(x, a.c(M_PI / 180.0));
  });
  t["aten.rad2deg.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &) {
    return a.bin<MulOp>(x, a.c(180.0 / M_PI));
  });
  // hardshrink: 0 where -lambd <= x <= lambd, else x.
  t["aten.hardshrink.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &args) {
    double lambd = args.getFloat("lambd").value_or(0.5);
    Value above = makeCompare(a.b, a.loc, "ge", x, a.c(-lambd));
    Value below = makeCompare(a.b, a.loc, "le", x, a.c(lambd));
    Value inside = a.bin<BitwiseAndOp>(above, below);
    return a.b.create<SelectOp>(a.loc, typeOf(x), inside, a.c(0.0), x).getResult();
  });
  // softshrink: x - lambd above lambd, x + lambd below -lambd, else x * 0
  // (NaN stays NaN), PyTorch's kernel.
  t["aten.softshrink.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &args) {
    double lambd = args.getFloat("lambd").value_or(0.5);
    Value inner = a.bin<MulOp>(x, a.c(0.0));
    Value low = makeCompare(a.b, a.loc, "lt", x, a.c(-lambd));
    Value belowOrInner = a.b.create<SelectOp>(a.loc, typeOf(x), low, a.bin<AddOp>(x, a.c(lambd)), inner);
    Value high = makeCompare(a.b, a.loc, "gt", x, a.c(lambd));
    return a.b.create<SelectOp>(a.loc, typeOf(x), high, a.bin<SubOp>(x, a.c(lambd)), belowOrInner)
        .getResult();
  });
  // threshold(x, threshold, value): value where x <= threshold, else x.
  static const StringRef thresholdArgs[] = {"threshold", "value"};
  t["aten.threshold.default"] = activation(
      [](ActivationBuilder &a, Value x, OperatorArgs &args) {
        Value at = makeCompare(a.b, a.loc, "le", x, a.c(args.getFloat("threshold").value_or(0.0)));
        Value value = a.c(args.getFloat("value").value_or(0.0));
        return a.b.create<SelectOp>(a.loc, typeOf(x), at, value, x).getResult();
      },
      ArrayRef<StringRef>(thresholdArgs));
  // mish: x tanh(log1p(exp(x))), PyTorch's CPU form.
  t["aten.mish.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &) {
    return a.bin<MulOp>(x, a.un<TanhOp>(a.un<Log1pOp>(a.un<ExpOp>(x))));
  });
  // sinc: sin(pi x) / (pi x), 1 at 0.
  t["aten.sinc.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &) {
    Value product = a.bin<MulOp>(a.c(M_PI), x);
    Value ratio = a.bin<DivOp>(a.un<SinOp>(product), product);
    Value atZero = makeCompare(a.b, a.loc, "eq", x, a.c(0.0));
    return a.b.create<SelectOp>(a.loc, typeOf(x), atZero, a.c(1.0), ratio).getResult();
  });
  // special_entr: -x log x for x > 0, 0 at 0, -inf below, NaN for NaN.
  t["aten.special_entr.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &) {
    RankedTensorType type = typeOf(x);
    Value zero = a.c(0.0);
    Value positive = a.un<NegOp>(a.bin<MulOp>(x, a.un<LogOp>(x)));
    Value negative = makeCompare(a.b, a.loc, "lt", x, zero);
    Value v = a.b.create<SelectOp>(a.loc, type, negative, a.c(-INFINITY), positive);
    Value atZero = makeCompare(a.b, a.loc, "eq", x, zero);
    return a.b.create<SelectOp>(a.loc, type, atZero, zero, v).getResult();
  });
  // special_ndtr, PyTorch's calc_ndtr: with t = x / sqrt 2, 0.5 + 0.5 erf(t)
  // where |t| < 1 / sqrt 2, else 0.5 erfc(|t|), taken from 1 for t > 0.
  t["aten.special_ndtr.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &) {
    RankedTensorType type = typeOf(x);
    Value t = a.bin<MulOp>(x, a.c(M_SQRT1_2));
    Value z = a.un<AbsOp>(t);
    Value half = a.c(0.5);
    Value center = a.bin<AddOp>(half, a.bin<MulOp>(half, a.un<ErfOp>(t)));
    Value tail = a.bin<MulOp>(half, a.un<ErfcOp>(z));
    Value positive = makeCompare(a.b, a.loc, "gt", t, a.c(0.0));
    Value side = a.b.create<SelectOp>(a.loc, type, positive, a.bin<SubOp>(a.c(1.0), tail), tail);
    Value near = makeCompare(a.b, a.loc, "lt", z, a.c(M_SQRT1_2));
    return a.b.create<SelectOp>(a.loc, type, near, center, side).getResult();
  });
  t["aten.isnan.default"] = elementTest([](OpBuilder &b, Location loc, Value x) {
    return makeCompare(b, loc, "ne", x, x);
  });
  t["aten.isposinf.default"] = elementTest([](OpBuilder &b, Location loc, Value x) {
    return equalsInfinity(b, loc, x, INFINITY);
  });
  t["aten.isneginf.default"] = elementTest([](OpBuilder &b, Location loc, Value x) {
    return equalsInfinity(b, loc, x, -INFINITY);
  });
  t["aten.isinf.default"] = elementTest([](OpBuilder &b, Location loc, Value x) {
    return isa<FloatType>(typeOf(x).getElementType())
               ? equalsInfinity(b, loc, b.create<AbsOp>(loc, x), INFINITY)
               : equalsInfinity(b, loc, x, INFINITY);
  });
  // isfinite: |x| < inf, false for NaN; integers are finite.
  t["aten.isfinite.default"] = elementTest([](OpBuilder &b, Location loc, Value x) {
    Type elt = typeOf(x).getElementType();
    if (!isa<FloatType>(elt))
      return makeCompare(b, loc, "eq", x, x);
    Value inf = makeScalar(b, loc, elt, INFINITY);
    return makeCompare(b, loc, "lt", b.create<AbsOp>(loc, x), inf);
  });
  // signbit: the sign bit (-0.0 and negative NaN included) as copysign(1, x) < 0.
  t["aten.signbit.default"] = elementTest([](OpBuilder &b, Location loc, Value x) {
    Type elt = typeOf(x).getElementType();
    Value zero = makeScalar(b, loc, isa<FloatType>(elt) ? elt : b.getI64Type(), 0.0);
    if (!isa<FloatType>(elt))
      return makeCompare(b, loc, "lt", x, zero);
    Value one = makeScalar(b, loc, elt, 1.0);
    return makeCompare(b, loc, "lt", makeBinary<CopysignOp>(b, loc, one, x), zero);
  });
  t["aten.sigmoid.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &) {
    return a.sigmoid(x);
  });
  t["aten.silu.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &) {
    return a.bin<MulOp>(x, a.sigmoid(x));
  });
  // gelu: exact 0.5 x (1 + erf(x / sqrt 2)); "tanh": 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  t["aten.gelu.default"] = [](OperatorArgs &args, OpBuilder &b) -> FailureOr<SmallVector<Value>> {
    auto approx = dyn_cast_or_null<StringAttr>(args.getOp().getArgs().get("approximate"));
    bool useTanh = approx && approx.getValue() == "tanh";
    if (approx && !useTanh && approx.getValue() != "none")
      return args.getOp().emitError("gelu approximation '") << approx.getValue() << "' is unknown";
    return activation([useTanh](ActivationBuilder &a, Value x, OperatorArgs &) {
      Value inner;
      if (useTanh) {
        Value cube = a.bin<MulOp>(a.bin<MulOp>(x, x), x);
        // One op per statement: argument order is the compiler's (issue 17).
        Value cubic = a.bin<AddOp>(x, a.bin<MulOp>(a.c(0.044715), cube));
        Value scale = a.c(0.7978845608028654);
        inner = a.un<TanhOp>(a.bin<MulOp>(scale, cubic));
      } else {
        inner = a.un<ErfOp>(a.bin<MulOp>(x, a.c(0.7071067811865476)));
      }
      Value half = a.bin<MulOp>(a.c(0.5), x);
      Value gate = a.bin<AddOp>(a.c(1.0), inner);
      return a.bin<MulOp>(half, gate);
    })(args, b);
  };
  t["aten.hardsigmoid.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &) {
    return a.hardsigmoid(x);
  });
  t["aten.hardswish.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &) {
    return a.bin<MulOp>(x, a.hardsigmoid(x));
  });
  // leaky_relu(x, s) = max(x, 0) + s * min(x, 0)
  t["aten.leaky_relu.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &args) {
    double slope = args.getFloat("negative_slope").value_or(0.01);
    Value pos = a.bin<MaximumOp>(x, a.c(0.0));
    Value neg = a.bin<MinimumOp>(x, a.c(0.0));
    return a.bin<AddOp>(pos, a.bin<MulOp>(a.c(slope), neg));
  });
  // elu(x, alpha, scale, input_scale) =
  //   scale * (max(x, 0) + alpha * (exp(input_scale * min(x, 0)) - 1))
  // (aten.elu's own scale arguments; selu is elu with both set).
  t["aten.elu.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &args) {
    return makeElu(a, x, args.getFloat("alpha").value_or(1.0), args.getFloat("scale").value_or(1.0),
                   args.getFloat("input_scale").value_or(1.0));
  });
  // celu(x, alpha) = elu(x, alpha) with the input scaled by 1 / alpha.
  t["aten.celu.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &args) {
    double alpha = args.getFloat("alpha").value_or(1.0);
    return makeElu(a, x, alpha, 1.0, 1.0 / alpha);
  });
  // selu: elu with PyTorch's fixed alpha and scale.
  t["aten.selu.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &) {
    return makeElu(a, x, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946, 1.0);
  });
  // softplus(x, beta, threshold): x where beta x > threshold (PyTorch's linear
  // region, which a small threshold such as 0.2 makes visible), else
  // max(x, 0) + log1p(exp(-|beta x|)) / beta, the stable form of log1p(exp(beta x)) / beta.
  t["aten.softplus.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &args) {
    double beta = args.getFloat("beta").value_or(1.0);
    double threshold = args.getFloat("threshold").value_or(20.0);
    Value bx = a.bin<MulOp>(a.c(beta), x);
    Value tail = a.un<Log1pOp>(a.un<ExpOp>(a.un<NegOp>(a.un<AbsOp>(bx))));
    Value pos = a.bin<MaximumOp>(x, a.c(0.0));
    Value smooth = a.bin<AddOp>(pos, a.bin<DivOp>(tail, a.c(beta)));
    auto type = cast<RankedTensorType>(bx.getType());
    Value linear = a.b.create<CompareOp>(a.loc, type.clone(a.b.getI1Type()), bx,
                                         a.c(threshold), a.b.getStringAttr("gt"));
    return a.b.create<SelectOp>(a.loc, type, linear, x, smooth).getResult();
  });
  using Bounds = std::pair<std::optional<double>, std::optional<double>>;
  t["aten.clamp.default"] = clampLegalizer([](OperatorArgs &args) -> Bounds {
    return {args.getFloat("min"), args.getFloat("max")};
  });
  t["aten.clamp_min.default"] = clampLegalizer([](OperatorArgs &args) -> Bounds {
    return {args.getFloat("min"), std::nullopt};
  });
  t["aten.clamp_max.default"] = clampLegalizer([](OperatorArgs &args) -> Bounds {
    return {std::nullopt, args.getFloat("max")};
  });
  t["aten.hardtanh.default"] = clampLegalizer([](OperatorArgs &args) -> Bounds {
    return {args.getFloat("min_val").value_or(-1.0), args.getFloat("max_val").value_or(1.0)};
  });
  t["aten.relu6.default"] = activation(
      [](ActivationBuilder &a, Value x, OperatorArgs &) { return a.clamp(x, 0.0, 6.0); },
      ArrayRef<StringRef>{});
  t["aten.log_sigmoid.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &) {
    return makeLogSigmoid(a.b, a.loc, x);
  });
  // angle of a real tensor: pi below zero, else 0; NaN stays NaN (PyTorch's
  // angle_impl). Complex tensors do not reach the legalizers.
  t["aten.angle.default"] = [](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Value> x = floatComputeOperand(args, b, "self");
    if (failed(x))
      return failure();
    Location loc = args.getOp().getLoc();
    auto type = typeOf(*x);
    Type elt = type.getElementType();
    Value zero = makeScalar(b, loc, elt, 0.0);
    Value pi = makeScalar(b, loc, elt, M_PI);
    Value below = makeCompare(b, loc, "lt", *x, zero);
    Value angle = b.create<SelectOp>(loc, type, below, pi, zero);
    Value nan = makeCompare(b, loc, "ne", *x, *x);
    Value result = b.create<SelectOp>(loc, type, nan, *x, angle);
    return SmallVector<Value>{makeCast(b, loc, result, args.resultType().getElementType())};
  };
  // sign / sgn: 1, -1, or 0 (also for NaN and -0.0, as PyTorch).
  for (const char *name : {"aten.sign.default", "aten.sgn.default"})
    t[name] = [](OperatorArgs &args, OpBuilder &b) -> Results {
      FailureOr<Value> x = requiredTensor(args, "self");
      if (failed(x))
        return failure();
      Location loc = args.getOp().getLoc();
      auto type = typeOf(*x);
      Type elt = type.getElementType();
      if (elt.isInteger(1))
        return SmallVector<Value>{*x};
      Value zero = makeScalar(b, loc, elt, 0.0);
      Value one = makeScalar(b, loc, elt, 1.0), minusOne = makeScalar(b, loc, elt, -1.0);
      Value neg = b.create<SelectOp>(loc, type, makeCompare(b, loc, "lt", *x, zero), minusOne,
                                     zero);
      return SmallVector<Value>{
          b.create<SelectOp>(loc, type, makeCompare(b, loc, "gt", *x, zero), one, neg)
              .getResult()};
    };
  t["aten.reciprocal.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &) {
    return a.bin<DivOp>(a.c(1.0), x);
  });
  t["aten.frac.default"] = activation([](ActivationBuilder &a, Value x, OperatorArgs &) {
    return a.bin<SubOp>(x, a.un<TruncOp>(x));
  });

  for (const char *name : {"aten.dropout.default", "aten.clone.default",
                           "aten.contiguous.default", "aten.alias.default",
                           "aten.detach.default", "aten.alias_copy.default",
                           "aten.detach_copy.default", "aten.positive.default",
                           // Real tensors are their own conjugate and real part
                           // (complex ones are refused at import).
                           "aten.resolve_conj.default", "aten.resolve_neg.default",
                           "aten.conj_physical.default", "aten.real.default"})
    t[name] = identity;
  // square(x) = x * x, for integers too.
  t["aten.square.default"] = [](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Value> x = requiredTensor(args, "self");
    if (failed(x))
      return failure();
    Value y = makeCast(b, args.getOp().getLoc(), *x, args.resultType().getElementType());
    return SmallVector<Value>{makeBinary<MulOp>(b, args.getOp().getLoc(), y, y)};
  };
  // isreal: every element of a real tensor.
  t["aten.isreal.default"] = [](OperatorArgs &args, OpBuilder &b) -> Results {
    RankedTensorType out = args.resultType();
    Location loc = args.getOp().getLoc();
    if (out.hasStaticShape())
      return SmallVector<Value>{makeSplat(b, loc, out, 1.0)};
    // Trues of self's symbolic sizes, read at run time.
    FailureOr<Value> x = requiredTensor(args, "self");
    if (failed(x))
      return failure();
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < out.getRank(); ++d)
      if (out.isDynamicDim(d))
        sizes.push_back(dimIndex(b, loc, *x, d));
    Value one = makeScalar(b, loc, out.getElementType(), 1.0);
    return SmallVector<Value>{b.create<BroadcastOp>(loc, out, one, sizes).getResult()};
  };
}
