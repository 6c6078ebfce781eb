//===- SpecialFunctions.cpp - ATen's looping special functions to linalg --===//
//
// tcc_graph.special_function becomes one all-parallel generic whose body is
// ATen's scalar code (ATen/native/Math.h). The orthogonal polynomials'
// recurrences run their n steps in an scf.while, stopping at a NaN where
// ATen's loop does; their special cases (n < 0, the ends of the interval,
// the closed forms ATen switches to for large n inside it) are selects, and
// the loop is given no steps where one of them applies; each step's
// a * b - c is one fused multiply-subtract, as ATen's compiled loops
// compute it. zeta's series runs
// until q + i passes 9 (a data-dependent count for negative q) and stops
// where ATen returns early, in f64 as ATen's CPU kernel accumulates.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TccGraphToLinalg/Patterns.h"
#include "lib/Conversion/TccGraphToLinalg/ScalarFormula.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringSwitch.h"

#include <limits>

using namespace mlir;
using namespace tcc::graph;
using tcc::Scalar;

namespace {
using F = arith::CmpFPredicate;
using I = arith::CmpIPredicate;

/// static_cast<int64_t>(n) as ATen's CPU kernel computes it on x86-64
/// (cvttss2si/cvttsd2si): NaN and values beyond int64 become INT64_MIN, a
/// negative degree, so -1 here (every polynomial is 0 there). arith's
/// fptosi would be poison for them.
Value degree(Scalar &s, Value nf) {
  Value below = s.cmp(F::OLT, nf, s.c(9223372036854775808.0));
  Value above = s.cmp(F::OGE, nf, s.c(-9223372036854775808.0));
  Value inRange = s.both(below, above);
  Value safe = s.sel(inRange, nf, s.c(-1.0));
  return s.b.create<arith::FPToSIOp>(s.loc, s.b.getI64Type(), safe);
}

using StepFn = function_ref<Value(Scalar &, Value k, Value p, Value q)>;

/// ATen's `for (k = first; k <= last && !isnan(q); k += step) { r = next(k,
/// p, q); p = q; q = r; }`, returning q (r after the loop, where it ran).
Value recurrence(Scalar &s, Value first, Value last, int64_t step, Value p0, Value q0,
                 bool stopAtNaN, StepFn next) {
  Type i64 = s.b.getI64Type();
  auto loop = s.b.create<scf::WhileOp>(
      s.loc, TypeRange{i64, s.t, s.t}, ValueRange{first, p0, q0},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Scalar in{b, loc, s.t};
        Value cond = in.cmpi(I::sle, args[0], last);
        if (stopAtNaN) {
          Value ordered = in.cmp(F::ORD, args[2], args[2]);
          cond = in.both(cond, ordered);
        }
        b.create<scf::ConditionOp>(loc, cond, args);
      },
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Scalar in{b, loc, s.t};
        Value r = next(in, args[0], args[1], args[2]);
        Value k = in.addi(args[0], in.ci(step));
        b.create<scf::YieldOp>(loc, ValueRange{k, args[2], r});
      });
  return loop.getResult(2);
}

/// The Chebyshev polynomials T, U, V, W (kind 't'..'w') and their shifted
/// forms (argument 2x - 1), as chebyshev_polynomial_*_forward and
/// shifted_chebyshev_polynomial_*_forward.
Value chebyshev(Scalar &s, char kind, bool shifted, Value x, Value nf) {
  Value n = degree(s, nf);
  Value one = s.c(1.0);
  Value twoX = s.add(x, x);
  // y: the polynomial's argument; the recurrence multiplies by y + y.
  Value y = shifted ? s.sub(twoX, one) : x;
  Value twoY = shifted ? s.add(y, y) : twoX;
  Value q0 = kind == 't' ? y : kind == 'u' ? twoY : kind == 'v' ? s.sub(twoY, one) : s.add(twoY, one);
  // Values at the ends of the interval (x = +-1, shifted x = 1 and 0).
  Value absX = s.abs(x);
  Value plus, minus;
  if (shifted) {
    plus = s.cmp(F::OEQ, x, one);
    minus = s.cmp(F::OEQ, x, s.c(0.0));
  } else {
    Value end = s.cmp(F::OEQ, absX, one);
    Value positive = s.cmp(F::OGT, x, s.c(0.0));
    plus = s.both(end, positive);
    Value notPositive = s.cmp(F::ULE, x, s.c(0.0));
    minus = s.both(end, notPositive);
  }
  Value isEven = s.even(n);
  Value nPlus1 = s.toFloat(s.addi(n, s.ci(1)));
  Value twoN = s.addi(n, n);
  Value twoNPlus1 = s.toFloat(s.addi(twoN, s.ci(1)));
  Value negNPlus1 = s.b.create<arith::NegFOp>(s.loc, nPlus1);
  Value negTwoNPlus1 = s.b.create<arith::NegFOp>(s.loc, twoNPlus1);
  Value plusOrMinusOne = s.sel(isEven, one, s.c(-1.0));
  Value plusValue, minusValue;
  switch (kind) {
  case 't':
    plusValue = one;
    minusValue = plusOrMinusOne;
    break;
  case 'u':
    plusValue = nPlus1;
    minusValue = s.sel(isEven, nPlus1, negNPlus1);
    break;
  case 'v':
    plusValue = one;
    minusValue = s.sel(isEven, twoNPlus1, negTwoNPlus1);
    break;
  default:
    plusValue = twoNPlus1;
    minusValue = plusOrMinusOne;
    break;
  }
  // The closed forms inside the interval for n above a threshold.
  int64_t threshold = kind == 't' ? 6 : !shifted ? 8 : kind == 'w' ? 4 : 6;
  Value absY = shifted ? s.abs(y) : absX;
  Value inside = s.cmp(F::OLT, absY, one);
  Value large = s.cmpi(I::sgt, n, s.ci(threshold));
  Value closed = s.both(large, inside);
  Value angle = s.acos(y);
  Value nf64 = s.toFloat(n);
  Value closedValue;
  if (kind == 't') {
    closedValue = s.cos(s.mul(nf64, angle));
  } else if (kind == 'u') {
    Value sinAngle = s.sin(angle);
    Value sinN = s.sin(s.mul(nPlus1, angle));
    Value ratio = s.div(sinN, sinAngle);
    Value cosN = s.cos(s.mul(nPlus1, angle));
    Value scaled = s.mul(nPlus1, cosN);
    Value limit = s.div(scaled, y);
    Value regular = s.cmp(F::UNE, sinAngle, s.c(0.0));
    closedValue = s.sel(regular, ratio, limit);
  } else {
    Value half = s.div(angle, s.c(2.0));
    Value nHalf = s.add(nf64, s.c(0.5));
    Value phase = s.mul(nHalf, angle);
    Value ratio, regular, limit;
    if (kind == 'v') {
      Value top = s.cos(phase);
      Value bottom = s.cos(half);
      ratio = s.div(top, bottom);
      Value sinHalf = s.sin(half);
      regular = s.cmp(F::UNE, sinHalf, one);
      limit = minusValue;
    } else {
      Value top = s.sin(phase);
      Value bottom = s.sin(half);
      ratio = s.div(top, bottom);
      Value cosHalf = s.cos(half);
      regular = s.cmp(F::UNE, cosHalf, one);
      if (shifted) {
        limit = plusOrMinusOne;
      } else {
        Value positive = s.cmp(F::OGT, x, s.c(0.0));
        limit = s.sel(positive, twoNPlus1, plusOrMinusOne);
      }
    }
    closedValue = s.sel(regular, ratio, limit);
  }
  // The recurrence from degree 1, run only where no case above applies.
  Value negative = s.cmpi(I::slt, n, s.ci(0));
  Value ends = s.either(plus, minus);
  Value notLooped = s.either(negative, ends);
  Value special = s.either(notLooped, closed);
  Value last = s.sel(special, s.ci(1), n);
  Value loop = recurrence(s, s.ci(2), last, 1, one, q0, /*stopAtNaN=*/true,
                          [&](Scalar &in, Value, Value p, Value q) {
                            return in.mulSub(twoY, q, p);
                          });
  Value r = s.sel(s.cmpi(I::eq, n, s.ci(1)), q0, loop);
  r = s.sel(s.cmpi(I::eq, n, s.ci(0)), one, r);
  r = s.sel(closed, closedValue, r);
  r = s.sel(minus, minusValue, r);
  r = s.sel(plus, plusValue, r);
  return s.sel(negative, s.c(0.0), r);
}

/// hermite_polynomial_h_forward (physicists', `physicists`) and
/// hermite_polynomial_he_forward: NaN beyond ATen's degree limit (128 in
/// float, 512 in double).
Value hermite(Scalar &s, bool physicists, Value x, Value nf) {
  Value n = degree(s, nf);
  Value one = s.c(1.0);
  int64_t limit = s.t.isF64() ? 512 : 128;
  Value q0 = physicists ? s.add(x, x) : x;
  Value negative = s.cmpi(I::slt, n, s.ci(0));
  Value tooLarge = s.cmpi(I::sgt, n, s.ci(limit));
  Value special = s.either(negative, tooLarge);
  // H: k = 2, 4, ... while k < 2n; He: k = 1, 2, ... while k < n.
  Value top = physicists ? s.addi(n, n) : n;
  Value last = s.subi(top, s.ci(1));
  last = s.sel(special, s.ci(0), last);
  Value loop = recurrence(s, s.ci(physicists ? 2 : 1), last, physicists ? 2 : 1, one, q0,
                          /*stopAtNaN=*/false, [&](Scalar &in, Value k, Value p, Value q) {
                            Value kf = in.toFloat(k);
                            Value kp = in.mul(kf, p);
                            return in.mulSub(q0, q, kp);
                          });
  Value r = s.sel(tooLarge, s.c(std::numeric_limits<double>::quiet_NaN()), loop);
  r = s.sel(s.cmpi(I::eq, n, s.ci(1)), q0, r);
  r = s.sel(s.cmpi(I::eq, n, s.ci(0)), one, r);
  return s.sel(negative, s.c(0.0), r);
}

/// laguerre_polynomial_l_forward and legendre_polynomial_p_forward.
Value laguerreOrLegendre(Scalar &s, bool legendre, Value x, Value nf) {
  Value n = degree(s, nf);
  Value one = s.c(1.0);
  Value absX = s.abs(x);
  Value q0 = legendre ? x : s.sub(one, x);
  Value negative = s.cmpi(I::slt, n, s.ci(0));
  Value end = s.cmp(F::OEQ, absX, legendre ? one : s.c(0.0));
  Value endValue = one;
  if (legendre) {
    Value positive = s.cmp(F::OGT, x, s.c(0.0));
    Value plusOne = s.either(positive, s.even(n));
    endValue = s.sel(plusOne, one, s.c(-1.0));
  }
  Value special = s.either(negative, end);
  Value nMinus1 = s.subi(n, s.ci(1));
  Value last = s.sel(special, s.ci(0), nMinus1);
  Value loop = recurrence(s, s.ci(1), last, 1, one, q0, /*stopAtNaN=*/true,
                          [&](Scalar &in, Value k, Value p, Value q) {
                            Value next = in.addi(k, in.ci(1));
                            Value nextF = in.toFloat(next);
                            Value kf = in.toFloat(k);
                            Value twoK = in.addi(k, k);
                            Value factor;
                            if (legendre) { // ((k + k + 1) * x * q - k * p) / (k + 1)
                              Value coeff = in.toFloat(in.addi(twoK, in.ci(1)));
                              factor = in.mul(coeff, x);
                            } else { // (((k + k) + (1 - x)) * q - k * p) / (k + 1)
                              Value twoKF = in.toFloat(twoK);
                              factor = in.add(twoKF, q0);
                            }
                            Value kp = in.mul(kf, p);
                            Value diff = in.mulSub(factor, q, kp);
                            return in.div(diff, nextF);
                          });
  Value r = s.sel(s.cmpi(I::eq, n, s.ci(1)), q0, loop);
  r = s.sel(s.cmpi(I::eq, n, s.ci(0)), one, r);
  r = s.sel(end, endValue, r);
  return s.sel(negative, s.c(0.0), r);
}

/// The Bernoulli-number coefficients of zeta's Euler-Maclaurin tail (Cephes).
constexpr double kZetaA[] = {12.0,
                             -720.0,
                             30240.0,
                             -1209600.0,
                             47900160.0,
                             -1.8924375803183791606e9,
                             7.47242496e10,
                             -2.950130727918164224e12,
                             1.1646782814350067249e14,
                             -4.5979787224074726105e15,
                             1.8152105401943546773e17,
                             -7.1661652561756670113e18};

/// ATen's zeta(x, q) (Cephes) in f64 (`s.t`), from its first term `s0` =
/// q^-x (computed in the tensor's type, as ATen's std::pow of two floats):
/// the direct sum until q + i > 9 (at least 9 terms), then 12
/// Euler-Maclaurin terms, each stage ending early where a term falls below
/// the f64 epsilon of the sum, as ATen returns.
Value zeta(Scalar &s, Value x, Value q, Value s0) {
  const double machep = 1.11022302462515654042E-16;
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Value one = s.c(1.0), zero = s.c(0.0);
  Value xIsOne = s.cmp(F::OEQ, x, one);
  Value xBelow = s.cmp(F::OLT, x, one);
  Value qNonPositive = s.cmp(F::OLE, q, zero);
  Value qInteger = s.cmp(F::OEQ, q, s.floor(q));
  Value pole = s.both(qNonPositive, qInteger);
  Value xFraction = s.cmp(F::UNE, x, s.floor(x));
  Value undefined = s.both(qNonPositive, xFraction);
  Value domain = s.either(xIsOne, xBelow);
  Value poles = s.either(pole, undefined);
  Value special = s.either(domain, poles);

  Value negX = s.b.create<arith::NegFOp>(s.loc, x);
  Value machepV = s.c(machep), negMachep = s.c(-machep);
  // while (i < 9 || a <= 9): a += 1; b = a^-x; s += b; stop when b is
  // negligible. `done` starts true where a special case applies.
  Type i64 = s.b.getI64Type(), i1 = s.b.getI1Type();
  auto loop = s.b.create<scf::WhileOp>(
      s.loc, TypeRange{i64, s.t, s.t, s.t, i1}, ValueRange{s.ci(0), q, zero, s0, special},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Scalar in{b, loc, s.t};
        Value few = in.cmpi(I::slt, args[0], in.ci(9));
        Value small = in.cmp(F::OLE, args[1], in.c(9.0));
        Value more = in.either(few, small);
        Value notDone = b.create<arith::XOrIOp>(loc, args[4], b.create<arith::ConstantIntOp>(loc, 1, 1));
        Value cond = in.both(more, notDone);
        b.create<scf::ConditionOp>(loc, cond, args);
      },
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Scalar in{b, loc, s.t};
        Value i = in.addi(args[0], in.ci(1));
        Value a = in.add(args[1], in.c(1.0));
        Value term = in.pow(a, negX);
        Value sum = in.add(args[3], term);
        Value low = in.mul(negMachep, sum);
        Value high = in.mul(machepV, sum);
        Value aboveLow = in.cmp(F::OLT, low, term);
        Value belowHigh = in.cmp(F::OLT, term, high);
        Value negligible = in.both(aboveLow, belowHigh);
        b.create<scf::YieldOp>(loc, ValueRange{i, a, term, sum, negligible});
      });
  Value w = loop.getResult(1), b = loop.getResult(2), sum = loop.getResult(3);
  Value done = loop.getResult(4);
  Value result = sum;
  // s += b w / (x - 1); s -= b / 2; then the tail, k = 0, 2, 4, ...
  Value xm1 = s.sub(x, one);
  Value bw = s.mul(b, w);
  sum = s.add(sum, s.div(bw, xm1));
  sum = s.sub(sum, s.mul(s.c(0.5), b));
  Value a = one, k = zero;
  for (double coeff : kZetaA) {
    a = s.mul(a, s.add(x, k));
    b = s.div(b, w);
    Value ab = s.mul(a, b);
    Value t = s.div(ab, s.c(coeff));
    sum = s.add(sum, t);
    Value rel = s.abs(s.div(t, sum));
    result = s.sel(done, result, sum);
    done = s.either(done, s.cmp(F::OLT, rel, machepV));
    k = s.add(k, one);
    a = s.mul(a, s.add(x, k));
    b = s.div(b, w);
    k = s.add(k, one);
  }
  result = s.sel(done, result, sum);
  result = s.sel(undefined, s.c(nan), result);
  result = s.sel(pole, s.c(inf), result);
  result = s.sel(xBelow, s.c(nan), result);
  return s.sel(xIsOne, s.c(inf), result);
}

/// The scalar function `name` of `args` in element type `t`.
Value specialFunction(OpBuilder &b, Location loc, StringRef name, Type t, ValueRange args) {
  if (name == "zeta") {
    // ATen's CPU kernel accumulates float's zeta in double.
    Type f64 = b.getF64Type();
    Scalar s{b, loc, f64};
    Value x = args[0], q = args[1];
    Value negX = b.create<arith::NegFOp>(loc, x);
    Value s0 = b.create<math::PowFOp>(loc, q, negX);
    if (t != f64) {
      x = b.create<arith::ExtFOp>(loc, f64, x);
      q = b.create<arith::ExtFOp>(loc, f64, q);
      s0 = b.create<arith::ExtFOp>(loc, f64, s0);
    }
    Value r = zeta(s, x, q, s0);
    return t == f64 ? r : b.create<arith::TruncFOp>(loc, t, r).getResult();
  }
  Scalar s{b, loc, t};
  if (name == "igamma" || name == "igammac")
    return buildIncompleteGamma(s, /*upper=*/name == "igammac", args[0], args[1], args[2],
                                args[3]);
  if (name.consume_front("shifted_chebyshev_polynomial_"))
    return chebyshev(s, name.front(), /*shifted=*/true, args[0], args[1]);
  if (name.consume_front("chebyshev_polynomial_"))
    return chebyshev(s, name.front(), /*shifted=*/false, args[0], args[1]);
  if (name.starts_with("hermite_polynomial_"))
    return hermite(s, name == "hermite_polynomial_h", args[0], args[1]);
  return laguerreOrLegendre(s, name == "legendre_polynomial_p", args[0], args[1]);
}

struct SpecialFunctionPattern : OpConversionPattern<SpecialFunctionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SpecialFunctionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    std::string name = op.getFunction().str();
    Type elt = type.getElementType();
    Value result = tcc::buildPointwise(
        rewriter, op.getLoc(), type, adaptor.getInputs(),
        [&](OpBuilder &b, Location loc, ValueRange a) {
          return specialFunction(b, loc, name, elt, a);
        });
    if (!result)
      return rewriter.notifyMatchFailure(op, "dynamic result size without a source");
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void tcc::populateSpecialFunctionToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<SpecialFunctionPattern>(patterns.getContext());
}
