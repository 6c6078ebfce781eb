//===- LegalizeBesselJY.cpp - Bessel functions of the first and second kind ===//
//
// special_bessel_j0/j1 and special_bessel_y0/y1 as ATen's
// bessel_{j,y}{0,1}_forward (ATen/native/Math.h, from the Cephes Math
// Library), in ATen's compute type with its coefficients rounded to it:
// up to 5 a rational function of x^2 (J0, J1 with their first two zeros
// factored out; Y0 and Y1 adding 2/pi log(x) J(x)); beyond, Hankel's
// asymptotic form, P(25/x^2) cos(x - phase) -+ 5/x Q(25/x^2) sin(x - phase)
// times sqrt(2/(pi x)), with phase pi/4 (order 0) or 3 pi/4 (order 1). Each
// range is built and a select picks per element; Y is -inf at 0 and NaN
// below, J1 is odd.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/SpecialFormula.h"

#include <limits>

using namespace mlir;
using namespace tcc::graph;

namespace {
constexpr double kJ0PP[] = {7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e+00, 5.44725003058768775090e+00, 8.74716500199817011941e+00, 5.30324038235394892183e+00, 9.99999999999999997821e-01};
constexpr double kJ0PQ[] = {9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e+00, 5.47097740330417105182e+00, 8.76190883237069594232e+00, 5.30605288235394617618e+00, 1.00000000000000000218e+00};
constexpr double kJ0QP[] = {-1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01, -9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02, -5.14105326766599330220e+01, -6.05014350600728481186e+00};
constexpr double kJ0QQ[] = {6.43178256118178023184e+01, 8.56430025976980587198e+02, 3.88240183605401609683e+03, 7.24046774195652478189e+03, 5.93072701187316984827e+03, 2.06209331660327847417e+03, 2.42005740240291393179e+02};
constexpr double kJ0RP[] = {-4.79443220978201773821e+09, 1.95617491946556577543e+12, -2.49248344360967716204e+14, 9.70862251047306323952e+15};
constexpr double kJ0RQ[] = {4.99563147152651017219e+02, 1.73785401676374683123e+05, 4.84409658339962045305e+07, 1.11855537045356834862e+10, 2.11277520115489217587e+12, 3.10518229857422583814e+14, 3.18121955943204943306e+16, 1.71086294081043136091e+18};
constexpr double kY0YP[] = {1.55924367855235737965e+04, -1.46639295903971606143e+07, 5.43526477051876500413e+09, -9.82136065717911466409e+11, 8.75906394395366999549e+13, -3.46628303384729719441e+15, 4.42733268572569800351e+16, -1.84950800436986690637e+16};
constexpr double kY0YQ[] = {1.04128353664259848412e+03, 6.26107330137134956842e+05, 2.68919633393814121987e+08, 8.64002487103935000337e+10, 2.02979612750105546709e+13, 3.17157752842975028269e+15, 2.50596256172653059228e+17};
constexpr double kJ1PP[] = {7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e+00, 5.11207951146807644818e+00, 8.42404590141772420927e+00, 5.21451598682361504063e+00, 1.00000000000000000254e+00};
constexpr double kJ1PQ[] = {5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e+00, 5.07386386128601488557e+00, 8.39985554327604159757e+00, 5.20982848682361821619e+00, 9.99999999999999997461e-01};
constexpr double kJ1QP[] = {5.10862594750176621635e-02, 4.98213872951233449420e+00, 7.58238284132545283818e+01, 3.66779609360150777800e+02, 7.10856304998926107277e+02, 5.97489612400613639965e+02, 2.11688757100572135698e+02, 2.52070205858023719784e+01};
constexpr double kJ1QQ[] = {7.42373277035675149943e+01, 1.05644886038262816351e+03, 4.98641058337653607651e+03, 9.56231892404756170795e+03, 7.99704160447350683650e+03, 2.82619278517639096600e+03, 3.36093607810698293419e+02};
constexpr double kJ1RP[] = {-8.99971225705559398224e+08, 4.52228297998194034323e+11, -7.27494245221818276015e+13, 3.68295732863852883286e+15};
constexpr double kJ1RQ[] = {6.20836478118054335476e+02, 2.56987256757748830383e+05, 8.35146791431949253037e+07, 2.21511595479792499675e+10, 4.74914122079991414898e+12, 7.84369607876235854894e+14, 8.95222336184627338078e+16, 5.32278620332680085395e+18};
constexpr double kY1YP[] = {1.26320474790178026440e+09, -6.47355876379160291031e+11, 1.14509511541823727583e+14, -8.12770255501325109621e+15, 2.02439475713594898196e+17, -7.78877196265950026825e+17};
constexpr double kY1YQ[] = {5.94301592346128195359e+02, 2.35564092943068577943e+05, 7.34811944459721705660e+07, 1.87601316108706159478e+10, 3.88231277496238566008e+12, 6.20557727146953693363e+14, 6.87141087355300489866e+16, 3.97270608116560655612e+18};

/// sqrt(2 / pi).
constexpr double kSqrtTwoOverPi = 0.797884560802865355879892119868763737;
/// 2 / pi.
constexpr double kTwoOverPi = 0.636619772367581343075535053490057448;

/// Hankel's asymptotic form for x > 5 (x >= 0): the cosine's and sine's
/// weights P and Q in z = 25 / x^2 (J0, Y0: 25 / (x x); J1, Y1: 5 / x (5 / x)),
/// then (P cos(x - phase) -+ 5 / x Q sin(x - phase)) sqrt(2/pi) / sqrt(x)
/// for J, (P sin + 5 / x Q cos) for Y.
Value asymptotic(SpecialFormula &f, Value x, int order, bool secondKind) {
  Value z;
  if (order == 0) {
    Value square = f.bin<MulOp>(x, x);
    z = f.bin<DivOp>(f.c(25.0), square);
  } else {
    Value fiveOverX = f.bin<DivOp>(f.c(5.0), x);
    Value again = f.bin<DivOp>(f.c(5.0), x);
    z = f.bin<MulOp>(fiveOverX, again);
  }
  Value pp = polynomial(f, z, order == 0 ? ArrayRef<double>(kJ0PP) : ArrayRef<double>(kJ1PP));
  Value pq = polynomial(f, z, order == 0 ? ArrayRef<double>(kJ0PQ) : ArrayRef<double>(kJ1PQ));
  Value qp = polynomial(f, z, order == 0 ? ArrayRef<double>(kJ0QP) : ArrayRef<double>(kJ1QP));
  Value qq = polynomial(f, z, order == 0 ? ArrayRef<double>(kJ0QQ) : ArrayRef<double>(kJ1QQ));
  double phase = order == 0 ? 0.785398163397448309615660845819875721
                            : 2.356194490192344928846982537459627163;
  Value shifted = f.bin<SubOp>(x, f.c(phase));
  Value cosine = f.un<CosOp>(shifted);
  Value sine = f.un<SinOp>(shifted);
  Value p = f.bin<DivOp>(pp, pq);
  Value pTerm = f.bin<MulOp>(p, secondKind ? sine : cosine);
  Value fiveOverX = f.bin<DivOp>(f.c(5.0), x);
  Value q = f.bin<DivOp>(qp, qq);
  Value fiveQ = f.bin<MulOp>(fiveOverX, q);
  Value qTerm = f.bin<MulOp>(fiveQ, secondKind ? cosine : sine);
  Value wave = secondKind ? f.bin<AddOp>(pTerm, qTerm) : f.bin<SubOp>(pTerm, qTerm);
  Value scaled = f.bin<MulOp>(wave, f.c(kSqrtTwoOverPi));
  return f.bin<DivOp>(scaled, f.un<SqrtOp>(x));
}

/// J0 or J1 of `x` >= 0 on [0, 5]: J0 is (x^2 - r1)(x^2 - r2) RP/RQ (1 -
/// x^2/4 below 1e-5), J1 RP/RQ x (x^2 - r1)(x^2 - r2), r the squared zeros.
Value besselJNear(SpecialFormula &f, Value x, int order) {
  Value square = f.bin<MulOp>(x, x);
  Value rp = polynomial(f, square, order == 0 ? ArrayRef<double>(kJ0RP) : ArrayRef<double>(kJ1RP));
  Value rq = polynomial(f, square, order == 0 ? ArrayRef<double>(kJ0RQ) : ArrayRef<double>(kJ1RQ));
  double r1 = order == 0 ? 5.78318596294678452118e+00 : 1.46819706421238932572e+01;
  double r2 = order == 0 ? 3.04712623436620863991e+01 : 4.92184563216946036703e+01;
  Value first = f.bin<SubOp>(square, f.c(r1));
  Value second = f.bin<SubOp>(square, f.c(r2));
  if (order == 1) {
    Value ratio = f.bin<DivOp>(rp, rq);
    Value times = f.bin<MulOp>(ratio, x);
    Value once = f.bin<MulOp>(times, first);
    return f.bin<MulOp>(once, second);
  }
  Value zeros = f.bin<MulOp>(first, second);
  Value scaled = f.bin<MulOp>(zeros, rp);
  Value r = f.bin<DivOp>(scaled, rq);
  Value quarter = f.bin<DivOp>(square, f.c(4.0));
  Value tiny = f.bin<SubOp>(f.c(1.0), quarter);
  Value small = f.cmp("lt", x, f.c(0.00001));
  return f.sel(small, tiny, r);
}

/// bessel_j0_forward (even) and bessel_j1_forward (odd).
Value besselJ(SpecialFormula &f, int order) {
  Value x = f.un<AbsOp>(f.x);
  Value near = besselJNear(f, x, order);
  Value far = asymptotic(f, x, order, /*secondKind=*/false);
  Value small = f.cmp("le", x, f.c(5.0));
  Value r = f.sel(small, near, far);
  if (order == 0)
    return r;
  Value negative = f.cmp("lt", f.x, f.c(0.0));
  Value negated = f.un<NegOp>(r);
  return f.sel(negative, negated, r);
}

/// bessel_y0_forward and bessel_y1_forward: on (0, 5] Y0 = YP/YQ + 2/pi
/// log(x) J0(x), Y1 = x YP/YQ + 2/pi (J1(x) log(x) - 1/x) (YP, YQ in x^2).
Value besselY(SpecialFormula &f, int order) {
  Value x = f.x;
  Value square = f.bin<MulOp>(x, x);
  Value yp = polynomial(f, square, order == 0 ? ArrayRef<double>(kY0YP) : ArrayRef<double>(kY1YP));
  Value yq = polynomial(f, square, order == 0 ? ArrayRef<double>(kY0YQ) : ArrayRef<double>(kY1YQ));
  Value ratio = f.bin<DivOp>(yp, yq);
  Value logX = f.un<LogOp>(x);
  Value j = besselJNear(f, x, order);
  Value near;
  if (order == 0) {
    Value weighted = f.bin<MulOp>(f.c(kTwoOverPi), logX);
    Value term = f.bin<MulOp>(weighted, j);
    near = f.bin<AddOp>(ratio, term);
  } else {
    Value lead = f.bin<MulOp>(x, ratio);
    Value jLog = f.bin<MulOp>(j, logX);
    Value inverse = f.bin<DivOp>(f.c(1.0), x);
    Value diff = f.bin<SubOp>(jLog, inverse);
    Value term = f.bin<MulOp>(f.c(kTwoOverPi), diff);
    near = f.bin<AddOp>(lead, term);
  }
  Value far = asymptotic(f, x, order, /*secondKind=*/true);
  Value small = f.cmp("le", x, f.c(5.0));
  Value r = f.sel(small, near, far);
  Value negative = f.cmp("lt", x, f.c(0.0));
  r = f.sel(negative, f.c(std::numeric_limits<double>::quiet_NaN()), r);
  Value zero = f.cmp("eq", x, f.c(0.0));
  return f.sel(zero, f.c(-std::numeric_limits<double>::infinity()), r);
}
} // namespace

void tcc::graph::populateBesselJYLegalizers(LegalizerTable &t) {
  t["aten.special_bessel_j0.default"] =
      legalizeSpecialFormula("self", [](SpecialFormula &f) { return besselJ(f, 0); });
  t["aten.special_bessel_j1.default"] =
      legalizeSpecialFormula("self", [](SpecialFormula &f) { return besselJ(f, 1); });
  t["aten.special_bessel_y0.default"] =
      legalizeSpecialFormula("self", [](SpecialFormula &f) { return besselY(f, 0); });
  t["aten.special_bessel_y1.default"] =
      legalizeSpecialFormula("self", [](SpecialFormula &f) { return besselY(f, 1); });
}
