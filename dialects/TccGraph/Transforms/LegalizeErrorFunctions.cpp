//===- LegalizeErrorFunctions.cpp - erfinv, ndtri, erfcx, log_ndtr --------===//
//
// Relatives of the error function: the inverses of erf and of the Gaussian
// distribution function, the scaled complementary error function and the
// log of the Gaussian distribution function. erfinv and ndtri as ATen
// computes them (ATen/native/Math.h) in its compute type with its constants
// rounded to it. erfinv: calc_erfinv's rational
// approximation (a polynomial in y^2 up to |y| = 0.7, one in
// sqrt(-log((1 - |y|) / 2)) beyond) and its two Newton steps through erf;
// NaN beyond +-1, +-inf at +-1. special_ndtri: calc_ndtri (Cephes), a
// rational function of (y - 1/2)^2 in the middle, of 1 / sqrt(-2 log y) in
// either tail (two sets of coefficients split at sqrt(-2 log y) = 8);
// -inf at 0, inf at 1, NaN outside [0, 1].
//
// special_erfcx (exp(x^2) erfc(x)): ATen evaluates Faddeeva's piecewise
// Chebyshev fits (erfcx_y100, accurate to double rounding) below 50 and a
// continued fraction beyond. Here, in f64 and rounded to the compute type
// (as accurate, so the same to its rounding): exp(x^2) erfc(x) with libm's
// (libdevice's) erfc up to x = 26, where erfc is still a normal double;
// beyond, ATen's own continued fraction (1 / (sqrt(pi) x) past 5e7); for
// x < 0, ATen's 2 exp(x^2) - erfcx(-x) (inf below -26.7).
// special_log_ndtr: calc_log_ndtr, log(erfcx(-t) / 2) - t^2 below x = -1,
// log1p(-erfc(t) / 2) above (t = x / sqrt(2)), in the compute type.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/SpecialFormula.h"

#include <limits>

using namespace mlir;
using namespace tcc::graph;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// calc_erfinv's coefficients, innermost (highest power) last.
constexpr double kErfinvA[] = {0.886226899, -1.645349621, 0.914624893, -0.140543331};
constexpr double kErfinvB[] = {-2.118377725, 1.442710462, -0.329097515, 0.012229801};
constexpr double kErfinvC[] = {-1.970840454, -1.624906493, 3.429567803, 1.641345311};
constexpr double kErfinvD[] = {3.543889200, 1.637067800};

/// ((c[n-1] z + c[n-2]) z + ...) z + c[0]: calc_erfinv's nesting.
Value nested(SpecialFormula &f, Value z, ArrayRef<double> c) {
  Value r = f.c(c.back());
  for (double coeff : llvm::reverse(c.drop_back())) {
    Value scaled = f.bin<MulOp>(r, z);
    r = f.bin<AddOp>(scaled, f.c(coeff));
  }
  return r;
}

/// nested(z, c) z + 1: calc_erfinv's denominators, whose constant term is 1.
Value denominator(SpecialFormula &f, Value z, ArrayRef<double> c) {
  Value top = nested(f, z, c);
  Value scaled = f.bin<MulOp>(top, z);
  return f.bin<AddOp>(scaled, f.c(1.0));
}

Value erfinv(SpecialFormula &f) {
  Value y = f.x;
  Value absY = f.un<AbsOp>(y);
  // |y| <= 0.7: y num(y^2) / dem(y^2), dem with a constant term 1.
  Value z = f.bin<MulOp>(y, y);
  Value num = nested(f, z, kErfinvA);
  Value dem = denominator(f, z, kErfinvB);
  Value yNum = f.bin<MulOp>(y, num);
  Value central = f.bin<DivOp>(yNum, dem);
  // Beyond: copysign(num(z), y) / dem(z), z = sqrt(-log((1 - |y|) / 2)).
  Value rest = f.bin<SubOp>(f.c(1.0), absY);
  Value halfRest = f.bin<DivOp>(rest, f.c(2.0));
  Value logRest = f.un<LogOp>(halfRest);
  Value tailZ = f.un<SqrtOp>(f.un<NegOp>(logRest));
  Value tailNum = nested(f, tailZ, kErfinvC);
  Value tailDem = denominator(f, tailZ, kErfinvD);
  Value signedNum = f.bin<CopysignOp>(tailNum, y);
  Value tail = f.bin<DivOp>(signedNum, tailDem);
  Value inCentral = f.cmp("le", absY, f.c(0.7));
  Value x = f.sel(inCentral, central, tail);
  // Two Newton steps: x -= (erf(x) - y) / ((2 / sqrt(pi)) exp(-x^2)).
  Value two = f.c(2.0);
  Value invSqrtPi = f.c(0.564189583547756286948079451560772586);
  Value twoOverSqrtPi = f.bin<MulOp>(two, invSqrtPi);
  for (int step = 0; step < 2; ++step) {
    Value erf = f.un<ErfOp>(x);
    Value error = f.bin<SubOp>(erf, y);
    Value negX = f.un<NegOp>(x);
    Value negSquare = f.bin<MulOp>(negX, x);
    Value density = f.un<ExpOp>(negSquare);
    Value slope = f.bin<MulOp>(twoOverSqrtPi, density);
    Value correction = f.bin<DivOp>(error, slope);
    x = f.bin<SubOp>(x, correction);
  }
  Value one = f.cmp("eq", absY, f.c(1.0));
  Value infinite = f.bin<CopysignOp>(f.c(kInf), y);
  x = f.sel(one, infinite, x);
  Value outside = f.cmp("gt", absY, f.c(1.0));
  return f.sel(outside, f.c(kNaN), x);
}

/// calc_ndtri's coefficients (polevl order: highest power first).
constexpr double kNdtriP0[] = {-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1, 1.39312609387279679503E1, -1.23916583867381258016E0};
constexpr double kNdtriQ0[] = {1.00000000000000000000E0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1, -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1, 1.59056225126211695515E1, -1.18331621121330003142E0};
constexpr double kNdtriP1[] = {4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1, 4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0, -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4};
constexpr double kNdtriQ1[] = {1.00000000000000000000E0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1, 1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1, -3.80806407691578277194E-2, -9.33259480895457427372E-4};
constexpr double kNdtriP2[] = {3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0, 1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2, 3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9};
constexpr double kNdtriQ2[] = {1.00000000000000000000E0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0, 2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4, 2.89247864745380683936E-6, 6.79019408009981274425E-9};

/// exp(-2), where calc_ndtri switches to its tails.
constexpr double kExpMinus2 = 0.13533528323661269189;

Value ndtri(SpecialFormula &f) {
  Value y0 = f.x;
  // The upper tail mirrored: y = 1 - y0 above 1 - exp(-2) (that bound rounded
  // in the compute type, as ATen's `one - T{0.135..}`).
  Value one = f.c(1.0);
  Value expMinus2 = f.c(kExpMinus2);
  Value bound = f.bin<SubOp>(one, expMinus2);
  Value upper = f.cmp("gt", y0, bound);
  Value mirrored = f.bin<SubOp>(f.c(1.0), y0);
  Value y = f.sel(upper, mirrored, y0);
  // Middle: (y' + y' y'^2 P0(y'^2) / Q0(y'^2)) sqrt(2 pi), y' = y - 1/2.
  Value centered = f.bin<SubOp>(y, f.c(0.5));
  Value y2 = f.bin<MulOp>(centered, centered);
  Value p0 = polynomial(f, y2, kNdtriP0);
  Value q0 = polynomial(f, y2, kNdtriQ0);
  Value y2p0 = f.bin<MulOp>(y2, p0);
  Value ratio = f.bin<DivOp>(y2p0, q0);
  Value correction = f.bin<MulOp>(centered, ratio);
  Value middleX = f.bin<AddOp>(centered, correction);
  Value middle = f.bin<MulOp>(middleX, f.c(2.50662827463100050242E0));
  // Tails: x = sqrt(-2 log y); x - log(x) / x - z P(z) / Q(z), z = 1 / x,
  // negated for the lower tail.
  Value logY = f.un<LogOp>(y);
  Value minusTwoLog = f.bin<MulOp>(f.c(-2.0), logY);
  Value x = f.un<SqrtOp>(minusTwoLog);
  Value logX = f.un<LogOp>(x);
  Value logOverX = f.bin<DivOp>(logX, x);
  Value x0 = f.bin<SubOp>(x, logOverX);
  Value z = f.bin<DivOp>(f.c(1.0), x);
  Value p1 = polynomial(f, z, kNdtriP1);
  Value q1 = polynomial(f, z, kNdtriQ1);
  Value zp1 = f.bin<MulOp>(z, p1);
  Value near = f.bin<DivOp>(zp1, q1);
  Value p2 = polynomial(f, z, kNdtriP2);
  Value q2 = polynomial(f, z, kNdtriQ2);
  Value zp2 = f.bin<MulOp>(z, p2);
  Value far = f.bin<DivOp>(zp2, q2);
  Value moderate = f.cmp("lt", x, f.c(8.0));
  Value x1 = f.sel(moderate, near, far);
  Value tailX = f.bin<SubOp>(x0, x1);
  Value negated = f.un<NegOp>(tailX);
  Value tail = f.sel(upper, tailX, negated);
  Value inMiddle = f.cmp("gt", y, f.c(kExpMinus2));
  Value r = f.sel(inMiddle, middle, tail);
  Value below = f.cmp("lt", y0, f.c(0.0));
  Value above = f.cmp("gt", y0, f.c(1.0));
  Value outside = f.bin<BitwiseOrOp>(below, above);
  r = f.sel(outside, f.c(kNaN), r);
  Value isOne = f.cmp("eq", y0, f.c(1.0));
  r = f.sel(isOne, f.c(kInf), r);
  Value isZero = f.cmp("eq", y0, f.c(0.0));
  return f.sel(isZero, f.c(-kInf), r);
}
/// 1 / sqrt(pi).
constexpr double kInvSqrtPi = 0.56418958354775628695;

/// erfcx of an f64 tensor (see the file comment).
Value erfcxF64(PointwiseBuilder &p, Value x) {
  auto sel = [&](Value cond, Value a, Value c) {
    return p.b.create<SelectOp>(p.loc, typeOf(x), cond, a, c).getResult();
  };
  auto cmp = [&](StringRef pred, Value l, Value r) { return makeCompare(p.b, p.loc, pred, l, r); };
  // x >= 0.
  auto positive = [&](Value y) {
    Value square = p.bin<MulOp>(y, y);
    Value grow = p.un<ExpOp>(square);
    Value direct = p.bin<MulOp>(grow, p.un<ErfcOp>(y));
    // ispi ((x^2) (x^2 + 4.5) + 2) / (x ((x^2) (x^2 + 5) + 3.75)).
    Value top1 = p.bin<AddOp>(square, p.c(4.5));
    Value top2 = p.bin<MulOp>(square, top1);
    Value top = p.bin<AddOp>(top2, p.c(2.0));
    Value bottom1 = p.bin<AddOp>(square, p.c(5.0));
    Value bottom2 = p.bin<MulOp>(square, bottom1);
    Value bottom3 = p.bin<AddOp>(bottom2, p.c(3.75));
    Value bottom = p.bin<MulOp>(y, bottom3);
    Value ispiTop = p.bin<MulOp>(p.c(kInvSqrtPi), top);
    Value fraction = p.bin<DivOp>(ispiTop, bottom);
    Value huge = p.bin<DivOp>(p.c(kInvSqrtPi), y);
    Value beyond = sel(cmp("gt", y, p.c(5e7)), huge, fraction);
    return sel(cmp("lt", y, p.c(26.0)), direct, beyond);
  };
  Value absX = p.un<AbsOp>(x);
  Value upper = positive(absX);
  Value square = p.bin<MulOp>(x, x);
  Value grown = p.un<ExpOp>(square);
  Value twice = p.bin<MulOp>(p.c(2.0), grown);
  Value reflected = p.bin<SubOp>(twice, upper);
  Value lower = sel(cmp("lt", x, p.c(-6.1)), twice, reflected);
  Value overflow = cmp("lt", x, p.c(-26.7));
  lower = sel(overflow, p.c(kInf), lower);
  return sel(cmp("lt", x, p.c(0.0)), lower, upper);
}

/// erfcx of `x` (compute type `f.elt`), through f64.
Value erfcxOf(SpecialFormula &f, Value x) {
  Type f64 = f.b.getF64Type();
  PointwiseBuilder wide{f.b, f.loc, f64};
  Value r = erfcxF64(wide, makeCast(f.b, f.loc, x, f64));
  return makeCast(f.b, f.loc, r, f.elt);
}

Value logNdtr(SpecialFormula &f) {
  Value t = f.bin<MulOp>(f.x, f.c(0.707106781186547524400844362104849039));
  // x < -1: log(erfcx(-t) / 2) - t^2.
  Value scaled = erfcxOf(f, f.un<NegOp>(t));
  Value half = f.bin<DivOp>(scaled, f.c(2.0));
  Value logHalf = f.un<LogOp>(half);
  Value square = f.bin<MulOp>(t, t);
  Value tail = f.bin<SubOp>(logHalf, square);
  // Else log1p(-erfc(t) / 2).
  Value complement = f.un<ErfcOp>(t);
  Value negated = f.un<NegOp>(complement);
  Value halfNeg = f.bin<DivOp>(negated, f.c(2.0));
  Value body = f.un<Log1pOp>(halfNeg);
  Value low = f.cmp("lt", f.x, f.c(-1.0));
  return f.sel(low, tail, body);
}
} // namespace

void tcc::graph::populateErrorFunctionLegalizers(LegalizerTable &t) {
  t["aten.erfinv.default"] = legalizeSpecialFormula("self", erfinv);
  t["aten.special_erfinv.default"] = legalizeSpecialFormula("self", erfinv);
  t["aten.special_ndtri.default"] = legalizeSpecialFormula("self", ndtri);
  t["aten.special_erfcx.default"] =
      legalizeSpecialFormula("self", [](SpecialFormula &f) { return erfcxOf(f, f.x); });
  t["aten.special_log_ndtr.default"] = legalizeSpecialFormula("self", logNdtr);
}
