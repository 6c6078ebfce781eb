//===- LegalizeGamma.cpp - lgamma, digamma, polygamma, mvlgamma, zeta -----===//
//
// The gamma family as PyTorch computes it. digamma and trigamma follow
// ATen/native/Math.h (Cephes) step by step in the tensor's type: the
// reflection for negative x (its pi / tan(pi r) in double), the shift of x
// to 10 (at most ten steps, unrolled: a step past 10 is a select that keeps
// the value) and the asymptotic series. lgamma is libm's in ATen
// (std::lgamma, or CUDA's lgammaf): here a Lanczos approximation (g = 7,
// 9 terms) in f64 with the reflection log(pi / |sin(pi x)|) - lgamma(1 - x)
// below 1/2, rounded to the tensor's type. polygamma(n >= 2) is ATen's
// (-1)^(n+1) n! zeta(n + 1, x), with the Hurwitz zeta a
// tcc_graph.special_function (its series runs a data-dependent number of
// terms). mvlgamma sums lgamma(x - j / 2) over j < p plus p (p - 1) / 4
// log(pi), as ATen's composite does.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/SpecialFormula.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

constexpr double kPi = 3.14159265358979323846;

/// Selects, compares and casts on tensors of one shape (`like`'s), the
/// constants rank 0.
struct Formula : PointwiseBuilder {
  Value sel(Value cond, Value a, Value b2, Value like) {
    return b.create<SelectOp>(loc, typeOf(like), cond, a, b2);
  }
  Value cmp(StringRef predicate, Value x, Value y) {
    return makeCompare(b, loc, predicate, x, y);
  }
  Value both(Value x, Value y) { return bin<BitwiseAndOp>(x, y); }
  Value cast(Value x, Type to) { return makeCast(b, loc, x, to); }
};

/// The Lanczos coefficients (g = 7, n = 9).
constexpr double kLanczos[] = {0.99999999999980993,  676.5203681218851,     -1259.1392167224028,
                               771.32342877765313,   -176.61502916214059,   12.507343278686905,
                               -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};

/// lgamma of `x` (any float type), computed in f64, in `x`'s type.
Value makeLgamma(OpBuilder &b, Location loc, Value x) {
  Type elt = typeOf(x).getElementType();
  Formula f{{b, loc, b.getF64Type()}};
  Value z = f.cast(x, b.getF64Type());
  // Reflect below 1/2: lgamma(z) = log(pi / |sin(pi z)|) - lgamma(1 - z).
  Value reflect = f.cmp("lt", z, f.c(0.5));
  Value oneMinus = f.bin<SubOp>(f.c(1.0), z);
  Value zr = f.sel(reflect, oneMinus, z, z);
  // Lanczos on zr >= 1/2: w = zr - 1, A = c0 + sum c_i / (w + i),
  // lgamma = log(sqrt(2 pi)) + (w + 1/2) log(t) - t + log(A), t = w + 7.5.
  Value w = f.bin<SubOp>(zr, f.c(1.0));
  Value sum = f.c(kLanczos[0]);
  for (int i = 1; i < 9; ++i) {
    Value shifted = f.bin<AddOp>(w, f.c(i));
    Value term = f.bin<DivOp>(f.c(kLanczos[i]), shifted);
    sum = f.bin<AddOp>(sum, term);
  }
  Value t = f.bin<AddOp>(w, f.c(7.5));
  Value logT = f.un<LogOp>(t);
  Value power = f.bin<SubOp>(zr, f.c(0.5));
  Value grow = f.bin<MulOp>(power, logT);
  Value lead = f.bin<SubOp>(grow, t);
  Value logSum = f.un<LogOp>(sum);
  Value body = f.bin<AddOp>(lead, logSum);
  Value lg = f.bin<AddOp>(body, f.c(0.91893853320467274178)); // log(sqrt(2 pi))
  // |sin(pi z)| from z's distance to the nearest integer (exact), so that
  // poles stay poles and pi z loses nothing for large |z|.
  Value nearest = f.un<RoundOp>(z);
  Value r = f.bin<SubOp>(z, nearest);
  Value piR = f.bin<MulOp>(f.c(kPi), r);
  Value sinPiR = f.un<SinOp>(piR);
  Value absSin = f.un<AbsOp>(sinPiR);
  Value logSin = f.un<LogOp>(absSin);
  Value logPiOverSin = f.bin<SubOp>(f.c(std::log(kPi)), logSin);
  Value reflected = f.bin<SubOp>(logPiOverSin, lg);
  Value result = f.sel(reflect, reflected, lg, z);
  // lgamma(+-inf) = inf (the formulas give NaN there).
  Value absZ = f.un<AbsOp>(z);
  Value infinite = f.cmp("eq", absZ, f.c(std::numeric_limits<double>::infinity()));
  result = f.sel(infinite, f.c(std::numeric_limits<double>::infinity()), result, z);
  return f.cast(result, elt);
}

/// The Cephes coefficients of digamma's asymptotic series (in 1 / x^2).
constexpr double kDigammaA[] = {8.33333333333333333333E-2, -2.10927960927960927961E-2,
                                7.57575757575757575758E-3, -4.16666666666666666667E-3,
                                3.96825396825396825397E-3, -8.33333333333333333333E-3,
                                8.33333333333333333333E-2};

/// ATen's calc_digamma for x >= 0 (and NaN): x pushed to 10, then 10's
/// value or the asymptotic series.
Value digammaPositive(Formula &f, Value x) {
  Value result = f.c(0.0);
  Value v = x;
  // while (x < 10) { result -= 1 / x; x += 1; }: at most ten steps for x > 0.
  for (int step = 0; step < 10; ++step) {
    Value active = f.cmp("lt", v, f.c(10.0));
    Value inverse = f.bin<DivOp>(f.c(1.0), v);
    Value less = f.bin<SubOp>(result, inverse);
    result = f.sel(active, less, result, x);
    Value next = f.bin<AddOp>(v, f.c(1.0));
    v = f.sel(active, next, v, x);
  }
  Value atTen = f.cmp("eq", v, f.c(10.0));
  Value tenValue = f.bin<AddOp>(result, f.c(2.25175258906672110764));
  // y = z * polevl(z, A, 6) with z = 1 / x^2 below 1e17, else 0.
  Value square = f.bin<MulOp>(v, v);
  Value z = f.bin<DivOp>(f.c(1.0), square);
  Value poly = f.c(kDigammaA[0]);
  for (double a : ArrayRef<double>(kDigammaA).drop_front()) {
    Value scaled = f.bin<MulOp>(poly, z);
    poly = f.bin<AddOp>(scaled, f.c(a));
  }
  Value y = f.bin<MulOp>(z, poly);
  Value finite = f.cmp("lt", v, f.c(1.0e17));
  y = f.sel(finite, y, f.c(0.0), x);
  Value logV = f.un<LogOp>(v);
  Value withLog = f.bin<AddOp>(result, logV);
  Value halfInverse = f.bin<DivOp>(f.c(0.5), v);
  Value lessHalf = f.bin<SubOp>(withLog, halfInverse);
  Value series = f.bin<SubOp>(lessHalf, y);
  return f.sel(atTen, tenValue, series, x);
}

/// ATen's calc_digamma of `x` (in f32 or f64).
Value makeDigamma(OpBuilder &b, Location loc, Value x) {
  Type elt = typeOf(x).getElementType();
  Formula f{{b, loc, elt}};
  Value negative = f.cmp("lt", x, f.c(0.0));
  Value oneMinus = f.bin<SubOp>(f.c(1.0), x);
  Value xp = f.sel(negative, oneMinus, x, x);
  Value positive = digammaPositive(f, xp);
  // pi / tan(pi r) in double, r the fractional part of x (modf).
  Formula d{{b, loc, b.getF64Type()}};
  Value xd = d.cast(x, b.getF64Type());
  Value whole = d.un<TruncOp>(xd);
  Value r = d.bin<SubOp>(xd, whole);
  Value piR = d.bin<MulOp>(d.c(kPi), r);
  Value tanPiR = d.un<TanOp>(piR);
  Value piOverTan = d.cast(d.bin<DivOp>(d.c(kPi), tanPiR), elt);
  Value reflected = f.bin<SubOp>(positive, piOverTan);
  Value result = f.sel(negative, reflected, positive, x);
  // Negative integers: NaN; +-0: -+inf.
  Value truncated = f.un<TruncOp>(x);
  Value integer = f.cmp("eq", x, truncated);
  Value pole = f.both(negative, integer);
  result = f.sel(pole, f.c(std::numeric_limits<double>::quiet_NaN()), result, x);
  Value zero = f.cmp("eq", x, f.c(0.0));
  Value negX = f.un<NegOp>(x);
  Value signedInf = f.bin<CopysignOp>(f.c(std::numeric_limits<double>::infinity()), negX);
  return f.sel(zero, signedInf, result, x);
}

/// ATen's trigamma of `x` (in f32 or f64): the reflection below 1/2, six
/// shifts, then the asymptotic series.
Value makeTrigamma(OpBuilder &b, Location loc, Value x) {
  Type elt = typeOf(x).getElementType();
  Formula f{{b, loc, elt}};
  bool isDouble = elt.isF64();
  double pi = isDouble ? kPi : static_cast<double>(static_cast<float>(kPi));
  double piSquared = isDouble ? kPi * kPi
                              : static_cast<double>(static_cast<float>(pi) *
                                                    static_cast<float>(pi));
  Value reflect = f.cmp("lt", x, f.c(0.5));
  Value minusOne = f.c(-1.0);
  Value sign = f.sel(reflect, minusOne, f.c(1.0), x);
  Value piX = f.bin<MulOp>(f.c(pi), x);
  Value sinPiX = f.un<SinOp>(piX);
  Value sinSquared = f.bin<MulOp>(sinPiX, sinPiX);
  Value ratio = f.bin<DivOp>(f.c(piSquared), sinSquared);
  Value negRatio = f.bin<SubOp>(f.c(0.0), ratio);
  Value result = f.sel(reflect, negRatio, f.c(0.0), x);
  Value oneMinus = f.bin<SubOp>(f.c(1.0), x);
  Value v = f.sel(reflect, oneMinus, x, x);
  for (int i = 0; i < 6; ++i) {
    Value square = f.bin<MulOp>(v, v);
    Value inverse = f.bin<DivOp>(f.c(1.0), square);
    result = f.bin<AddOp>(result, inverse);
    v = f.bin<AddOp>(v, f.c(1.0));
  }
  Value square = f.bin<MulOp>(v, v);
  Value ixx = f.bin<DivOp>(f.c(1.0), square);
  // (1 + 1 / (2x) + ixx (1/6 - ixx (1/30 - ixx / 42))) / x
  Value inner = f.bin<MulOp>(ixx, f.c(1.0 / 42.0));
  inner = f.bin<SubOp>(f.c(1.0 / 30.0), inner);
  inner = f.bin<MulOp>(ixx, inner);
  inner = f.bin<SubOp>(f.c(1.0 / 6.0), inner);
  inner = f.bin<MulOp>(ixx, inner);
  Value twoV = f.bin<MulOp>(f.c(2.0), v);
  Value halfInverse = f.bin<DivOp>(f.c(1.0), twoV);
  Value lead = f.bin<AddOp>(f.c(1.0), halfInverse);
  Value series = f.bin<AddOp>(lead, inner);
  Value tail = f.bin<DivOp>(series, v);
  result = f.bin<AddOp>(result, tail);
  return f.bin<MulOp>(sign, result);
}

/// The Hurwitz zeta(x, q) in `elt` (f32 or f64), broadcast to `type`.
Value makeZeta(OpBuilder &b, Location loc, RankedTensorType type, Value x, Value q) {
  return b.create<SpecialFunctionOp>(loc, type, ValueRange{x, q}, b.getStringAttr("zeta"));
}

/// A one-operand function of "self" computed in float or double.
LegalizeFn unary(Value (*fn)(OpBuilder &, Location, Value)) {
  return [fn](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Value> x = floatComputeOperand(args, b, "self");
    if (failed(x))
      return failure();
    Location loc = args.getOp().getLoc();
    Value r = fn(b, loc, *x);
    return SmallVector<Value>{makeCast(b, loc, r, args.resultType().getElementType())};
  };
}

/// polygamma(n, self): digamma, trigamma, else (-1)^(n+1) exp(lgamma(n + 1))
/// zeta(n + 1, x), the factor computed as ATen does in the tensor's type.
Results polygamma(OperatorArgs &args, OpBuilder &b) {
  std::optional<int64_t> n = args.getInt("n");
  if (!n)
    return operatorError(args) << "needs an integer 'n'";
  if (*n < 0)
    return operatorError(args) << "does not support negative n (" << *n
                               << "), as PyTorch";
  FailureOr<Value> self = floatComputeOperand(args, b, "self");
  if (failed(self))
    return failure();
  Location loc = args.getOp().getLoc();
  RankedTensorType type = args.resultType();
  Value x = *self;
  Type compute = typeOf(x).getElementType();
  Value r;
  if (*n == 0) {
    r = makeDigamma(b, loc, x);
  } else if (*n == 1) {
    r = makeTrigamma(b, loc, x);
  } else {
    double factor;
    if (compute.isF64()) {
      factor = std::exp(std::lgamma(static_cast<double>(*n) + 1.0));
    } else {
      float nf = static_cast<float>(*n);
      factor = std::exp(std::lgamma(nf + 1.0f));
    }
    if (*n % 2 == 0)
      factor = -factor;
    Value order = makeScalar(b, loc, compute, static_cast<double>(*n + 1));
    RankedTensorType zetaType = RankedTensorType::get(type.getShape(), compute);
    Value zeta = makeZeta(b, loc, zetaType, order, x);
    Value scale = makeScalar(b, loc, compute, factor);
    r = makeBinary<MulOp>(b, loc, scale, zeta);
  }
  return SmallVector<Value>{makeCast(b, loc, r, type.getElementType())};
}

/// mvlgamma(self, p): sum over j < p of lgamma(x - j / 2), in ATen's order
/// (x + (1 - p) / 2 first), plus p (p - 1) / 4 log(pi).
Results mvlgamma(OperatorArgs &args, OpBuilder &b) {
  std::optional<int64_t> p = args.getInt("p");
  if (!p)
    return operatorError(args) << "needs an integer 'p'";
  if (*p < 1)
    return operatorError(args) << "needs p >= 1, not " << *p << " (PyTorch raises)";
  FailureOr<Value> self = floatComputeOperand(args, b, "self");
  if (failed(self))
    return failure();
  Location loc = args.getOp().getLoc();
  Value x = *self;
  Type compute = typeOf(x).getElementType();
  Value sum;
  for (int64_t j = 0; j < *p; ++j) {
    double offset = 0.5 - 0.5 * static_cast<double>(*p) + 0.5 * static_cast<double>(j);
    Value shifted = makeBinary<AddOp>(b, loc, makeScalar(b, loc, compute, offset), x);
    Value term = makeLgamma(b, loc, shifted);
    sum = sum ? makeBinary<AddOp>(b, loc, sum, term) : term;
  }
  double constant = static_cast<double>(*p * (*p - 1)) * std::log(kPi) * 0.25;
  Value r = makeBinary<AddOp>(b, loc, sum, makeScalar(b, loc, compute, constant));
  return SmallVector<Value>{makeCast(b, loc, r, args.resultType().getElementType())};
}

} // namespace

Value tcc::graph::makeLogGamma(OpBuilder &b, Location loc, Value x) {
  return makeLgamma(b, loc, x);
}

void tcc::graph::populateGammaLegalizers(LegalizerTable &t) {
  t["aten.lgamma.default"] = unary(makeLgamma);
  t["aten.special_gammaln.default"] = unary(makeLgamma);
  t["aten.digamma.default"] = unary(makeDigamma);
  t["aten.special_digamma.default"] = unary(makeDigamma);
  t["aten.special_psi.default"] = unary(makeDigamma);
  t["aten.polygamma.default"] = polygamma;
  t["aten.special_polygamma.default"] = polygamma;
  t["aten.mvlgamma.default"] = mvlgamma;
  t["aten.special_multigammaln.default"] = mvlgamma;
  // special_zeta(self, other): the Hurwitz zeta(x = self, q = other).
  for (StringRef overload : {"default", "self_scalar", "other_scalar"})
    t[("aten.special_zeta." + overload).str()] = legalizeSpecialFunction("zeta", "self", "other");
}
