//===- LegalizeBessel.cpp - the modified Bessel function I0 ---------------===//
//
// i0, special_i0 and special_i0e (exp(-|x|) I0(x)) as PyTorch computes them
// (ATen/native/Math.h, from the Cephes Math Library): a Chebyshev series of
// fixed length on [0, 8] and another in 32 / x beyond, evaluated by
// chbevl's recurrence with coefficients rounded to the tensor's type, as
// its templates do. Both series are built and a select picks per element.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// Chebyshev coefficients for exp(-x) I0(x) on [0, 8].
constexpr double kI0eA[] = {
    -4.41534164647933937950E-18, 3.33079451882223809783E-17,  -2.43127984654795469359E-16,
    1.71539128555513303061E-15,  -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12,  -1.72682629144155570723E-11,
    9.67580903537323691224E-11,  -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8,  6.04699502254191894932E-8,   -2.67079385394061173391E-7,
    1.11738753912010371815E-6,   -4.41673835845875056359E-6,  1.64484480707288970893E-5,
    -5.75419501008210370398E-5,  1.88502885095841655729E-4,   -5.76375574538582365885E-4,
    1.63947561694133579842E-3,   -4.32430999505057594430E-3,  1.05464603945949983183E-2,
    -2.37374148058994688156E-2,  4.93052842396707084878E-2,   -9.49010970480476444210E-2,
    1.71620901522208775349E-1,   -3.04682672343198398683E-1,  6.76795274409476084995E-1};

/// Chebyshev coefficients for exp(-x) sqrt(x) I0(x) on [8, inf), in 32 / x.
constexpr double kI0eB[] = {
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17,  -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15,  3.81168066935262242075E-15,  -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14,  3.85277838274214270114E-13,
    7.18012445138366623367E-13,  -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11,  4.94060238822496958910E-10,
    3.39623202570838634515E-9,   2.26666899049817806459E-8,   2.04891858946906374183E-7,
    2.89137052083475648297E-6,   6.88975834691682398426E-5,   3.36911647825569408990E-3,
    8.04490411014108831608E-1};

/// Cephes' chbevl: b0 = x b1 - b2 + c[i] over the coefficients, then
/// (b0 - b2) / 2.
Value chbevl(PointwiseBuilder &p, Value x, ArrayRef<double> coeffs) {
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

/// I0(x) (scaled: exp(-|x|) I0(x)) by PyTorch's calc_i0 / calc_i0e.
LegalizeFn besselI0(bool scaled) {
  return [scaled](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Value> self = requiredTensor(args, "self");
    if (failed(self))
      return failure();
    Type elt = args.resultType().getElementType();
    if (!isa<FloatType>(elt))
      return operatorError(args) << "needs a floating-point result";
    PointwiseBuilder p{b, args.getOp().getLoc(), elt};
    Value x = p.un<AbsOp>(makeCast(b, p.loc, *self, elt));
    // [0, 8]: chbevl(x / 2 - 2, A) (times exp(x) unscaled).
    Value half = p.bin<DivOp>(x, p.c(2.0));
    Value nearArg = p.bin<SubOp>(half, p.c(2.0));
    Value near = chbevl(p, nearArg, kI0eA);
    // Beyond: chbevl(32 / x - 2, B) / sqrt(x) (exp(x) chbevl / sqrt(x) unscaled).
    Value inverse = p.bin<DivOp>(p.c(32.0), x);
    Value farArg = p.bin<SubOp>(inverse, p.c(2.0));
    Value far = chbevl(p, farArg, kI0eB);
    if (!scaled) {
      Value grow = p.un<ExpOp>(x);
      near = p.bin<MulOp>(grow, near);
      far = p.bin<MulOp>(grow, far);
    }
    far = p.bin<DivOp>(far, p.un<SqrtOp>(x));
    Value small = makeCompare(b, p.loc, "le", x, p.c(8.0));
    return SmallVector<Value>{b.create<SelectOp>(p.loc, typeOf(x), small, near, far)};
  };
}
} // namespace

void tcc::graph::populateBesselLegalizers(LegalizerTable &t) {
  t["aten.i0.default"] = besselI0(false);
  t["aten.special_i0.default"] = besselI0(false);
  t["aten.special_i0e.default"] = besselI0(true);
}
