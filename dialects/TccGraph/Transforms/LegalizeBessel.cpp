//===- LegalizeBessel.cpp - modified Bessel functions I and K; spherical j0 ===//
//
// i0, special_i0, special_i0e (exp(-|x|) I0(x)), special_i1 and special_i1e
// as PyTorch computes them (ATen/native/Math.h, from the Cephes Math
// Library): a Chebyshev series of fixed length on [0, 8] and another in
// 32 / x beyond, evaluated by chbevl's recurrence with coefficients rounded
// to the tensor's type, as its templates do (calc_i1's float series are the
// double ones' last 17 and 7 terms; special_modified_bessel_i1 takes the
// whole series in either type). Both series are built and a select picks
// per element. special_modified_bessel_i0 is i0.
// special_spherical_bessel_j0 is sin(x) / x, by its Taylor polynomial below
// 1/2. special_modified_bessel_k0/k1 are Cephes' K0/K1 series, and
// special_scaled_modified_bessel_k0/k1 exp(x) K(x).
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/SpecialFormula.h"

#include <limits>

using namespace mlir;
using namespace tcc::graph;

namespace {
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

/// Chebyshev coefficients for exp(-x) I1(x) / x on [0, 8] (double; float
/// takes the last 17).
constexpr double kI1eA[] = {
    2.77791411276104639959E-18,  -2.11142121435816608115E-17, 1.55363195773620046921E-16,
    -1.10559694773538630805E-15, 7.60068429473540693410E-15,  -5.04218550472791168711E-14,
    3.22379336594557470981E-13,  -1.98397439776494371520E-12, 1.17361862988909016308E-11,
    -6.66348972350202774223E-11, 3.62559028155211703701E-10,  -1.88724975172282928790E-9,
    9.38153738649577178388E-9,   -4.44505912879632808065E-8,  2.00329475355213526229E-7,
    -8.56872026469545474066E-7,  3.47025130813767847674E-6,   -1.32731636560394358279E-5,
    4.78156510755005422638E-5,   -1.61760815825896745588E-4,  5.12285956168575772895E-4,
    -1.51357245063125314899E-3,  4.15642294431288815669E-3,   -1.05640848946261981558E-2,
    2.47264490306265168283E-2,   -5.29459812080949914269E-2,  1.02643658689847095384E-1,
    -1.76416518357834055153E-1,  2.52587186443633654823E-1};

/// Chebyshev coefficients for exp(-x) sqrt(x) I1(x) on [8, inf), in 32 / x
/// (double; float takes the last 7).
constexpr double kI1eB[] = {
    7.51729631084210481353E-18,  4.41434832307170791151E-18,  -4.65030536848935832153E-17,
    -3.20952592199342395980E-17, 2.96262899764595013876E-16,  3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
    4.27244001671195135429E-14,  -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12,  1.41258074366137813316E-11,
    3.25260358301548823856E-11,  -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9,  -2.63146884688951950684E-8,  -2.51223623787020892529E-7,
    -3.88256480887769039346E-6,  -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
    7.78576235018280120474E-1};

/// Chebyshev coefficients of the modified Bessel functions K0 and K1 (Cephes,
/// as ATen's scaled_modified_bessel_k{0,1}_forward): A on (0, 2] in x^2 - 2,
/// B beyond in 8 / x - 2.
constexpr double kK0A[] = {1.37446543561352307156e-16, 4.25981614279661018399e-14, 1.03496952576338420167e-11, 1.90451637722020886025e-09, 2.53479107902614945675e-07, 2.28621210311945178607e-05, 1.26461541144692592338e-03, 3.59799365153615016266e-02, 3.44289899924628486886e-01, -5.35327393233902768720e-01};
constexpr double kK0B[] = {5.30043377268626276149e-18, -1.64758043015242134646e-17, 5.21039150503902756861e-17, -1.67823109680541210385e-16, 5.51205597852431940784e-16, -1.84859337734377901440e-15, 6.34007647740507060557e-15, -2.22751332699166985548e-14, 8.03289077536357521100e-14, -2.98009692317273043925e-13, 1.14034058820847496303e-12, -4.51459788337394416547e-12, 1.85594911495471785253e-11, -7.95748924447710747776e-11, 3.57739728140030116597e-10, -1.69753450938905987466e-09, 8.57403401741422608519e-09, -4.66048989768794782956e-08, 2.76681363944501510342e-07, -1.83175552271911948767e-06, 1.39498137188764993662e-05, -1.28495495816278026384e-04, 1.56988388573005337491e-03, -3.14481013119645005427e-02, 2.44030308206595545468e+00};
constexpr double kK1A[] = {-7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13, -1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06, -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01, -3.53155960776544875667e-01, 1.52530022733894777053e+00};
constexpr double kK1B[] = {-5.75674448366501715755e-18, 1.79405087314755922667e-17, -5.68946255844285935196e-17, 1.83809354436663880070e-16, -6.05704724837331885336e-16, 2.03870316562433424052e-15, -7.01983709041831346144e-15, 2.47715442448130437068e-14, -8.97670518232499435011e-14, 3.34841966607842919884e-13, -1.28917396095102890680e-12, 5.13963967348173025100e-12, -2.12996783842756842877e-11, 9.21831518760500529508e-11, -4.19035475934189648750e-10, 2.01504975519703286596e-09, -1.03457624656780970260e-08, 5.74108412545004946722e-08, -3.50196060308781257119e-07, 2.40648494783721712015e-06, -1.93619797416608296024e-05, 1.95215518471351631108e-04, -2.85781685962277938680e-03, 1.03923736576817238437e-01, 2.72062619048444266945e+00};

/// I0(x) (scaled: exp(-|x|) I0(x)) by PyTorch's calc_i0 / calc_i0e (and
/// modified_bessel_i0_forward, the same steps).
Value besselI0(SpecialFormula &f, bool scaled) {
  Value x = f.un<AbsOp>(f.x);
  // [0, 8]: chbevl(x / 2 - 2, A) (times exp(x) unscaled).
  Value half = f.bin<DivOp>(x, f.c(2.0));
  Value nearArg = f.bin<SubOp>(half, f.c(2.0));
  Value near = chebyshevSeries(f, nearArg, kI0eA);
  // Beyond: chbevl(32 / x - 2, B) / sqrt(x) (exp(x) chbevl / sqrt(x) unscaled).
  Value inverse = f.bin<DivOp>(f.c(32.0), x);
  Value farArg = f.bin<SubOp>(inverse, f.c(2.0));
  Value far = chebyshevSeries(f, farArg, kI0eB);
  if (!scaled) {
    Value grow = f.un<ExpOp>(x);
    near = f.bin<MulOp>(grow, near);
    far = f.bin<MulOp>(grow, far);
  }
  far = f.bin<DivOp>(far, f.un<SqrtOp>(x));
  Value small = f.cmp("le", x, f.c(8.0));
  return f.sel(small, near, far);
}

/// I1(x) (scaled: exp(-|x|) I1(x)), odd in x: by PyTorch's calc_i1 /
/// calc_i1e (float with the short series), or with `wholeSeries` by
/// modified_bessel_i1_forward (0.5 (a - p) |x| exp(|x|) on [0, 8]).
Value besselI1(SpecialFormula &f, bool scaled, bool wholeSeries) {
  Value signedX = f.x;
  Value x = f.un<AbsOp>(signedX);
  ArrayRef<double> nearCoeffs(kI1eA), farCoeffs(kI1eB);
  if (!f.isDouble() && !wholeSeries) {
    nearCoeffs = nearCoeffs.take_back(17);
    farCoeffs = farCoeffs.take_back(7);
  }
  // [0, 8]: exp(x) x chbevl(x / 2 - 2, A) (chbevl(..) x scaled).
  Value half = f.bin<DivOp>(x, f.c(2.0));
  Value nearArg = f.bin<SubOp>(half, f.c(2.0));
  Value near = chebyshevSeries(f, nearArg, nearCoeffs);
  if (scaled) {
    near = f.bin<MulOp>(near, x);
  } else if (wholeSeries) {
    Value times = f.bin<MulOp>(near, x);
    near = f.bin<MulOp>(times, f.un<ExpOp>(x));
  } else {
    Value grow = f.un<ExpOp>(x);
    Value growX = f.bin<MulOp>(grow, x);
    near = f.bin<MulOp>(growX, near);
  }
  // Beyond: exp(x) chbevl(32 / x - 2, B) / sqrt(x) (without exp scaled).
  Value inverse = f.bin<DivOp>(f.c(32.0), x);
  Value farArg = f.bin<SubOp>(inverse, f.c(2.0));
  Value far = chebyshevSeries(f, farArg, farCoeffs);
  if (!scaled)
    far = f.bin<MulOp>(f.un<ExpOp>(x), far);
  far = f.bin<DivOp>(far, f.un<SqrtOp>(x));
  Value small = f.cmp("le", x, f.c(8.0));
  Value out = f.sel(small, near, far);
  Value negative = f.cmp("lt", signedX, f.c(0.0));
  Value negated = f.un<NegOp>(out);
  return f.sel(negative, negated, out);
}

/// spherical_bessel_j0_forward: 0 at +-inf, the Taylor polynomial of
/// sin(x) / x below |x| = 1/2 (ATen's nesting), sin(x) / x beyond.
Value sphericalBesselJ0(SpecialFormula &f) {
  Value x = f.x;
  Value square = f.bin<MulOp>(x, x);
  // 1 + x^2 (-1/6 + x^2 (1/120 + ... x^2 (1/6227020800))), innermost first.
  const double terms[] = {-1.0 / 6.0,       1.0 / 120.0,        -1.0 / 5040.0,
                          1.0 / 362880.0,   -1.0 / 39916800.0,  1.0 / 6227020800.0};
  Value poly = f.c(terms[5]);
  for (int i = 4; i >= 0; --i) {
    Value scaled = f.bin<MulOp>(square, poly);
    poly = f.bin<AddOp>(f.c(terms[i]), scaled);
  }
  Value scaled = f.bin<MulOp>(square, poly);
  Value taylor = f.bin<AddOp>(f.c(1.0), scaled);
  Value sine = f.un<SinOp>(x);
  Value ratio = f.bin<DivOp>(sine, x);
  Value absX = f.un<AbsOp>(x);
  Value small = f.cmp("lt", absX, f.c(0.5));
  Value r = f.sel(small, taylor, ratio);
  Value infinite = f.cmp("eq", absX, f.c(std::numeric_limits<double>::infinity()));
  return f.sel(infinite, f.c(0.0), r);
}

/// K0 or K1 (`order`) as ATen's modified_bessel_k{0,1}_forward, or exp(x)
/// K(x) (`scaled`) as scaled_modified_bessel_k{0,1}_forward: inf at 0, NaN
/// below; on (0, 2] the series in x^2 - 2 with log(x / 2) times ATen's
/// modified_bessel_i0/i1 (I1 with the double series, unlike calc_i1's float
/// one) (times exp(x) scaled); beyond, the series in 8 / x - 2 over sqrt(x)
/// (times exp(-x) unscaled).
Value besselK(SpecialFormula &f, int order, bool scaled) {
  Value x = f.x;
  Value grow = f.un<ExpOp>(x);
  // (0, 2]: chbevl(x^2 - 2, A).
  Value square = f.bin<MulOp>(x, x);
  Value nearArg = f.bin<SubOp>(square, f.c(2.0));
  Value series =
      chebyshevSeries(f, nearArg, order == 0 ? ArrayRef<double>(kK0A) : ArrayRef<double>(kK1A));
  Value halfX = f.bin<MulOp>(f.c(0.5), x);
  Value logHalf = f.un<LogOp>(halfX);
  // I0 or I1 on [0, 8] (x <= 2 here): chbevl(x / 2 - 2, ..).
  Value half = f.bin<DivOp>(x, f.c(2.0));
  Value iArg = f.bin<SubOp>(half, f.c(2.0));
  Value near;
  if (order == 0) {
    Value i0 = f.bin<MulOp>(grow, chebyshevSeries(f, iArg, kI0eA));
    Value logI0 = f.bin<MulOp>(logHalf, i0);
    near = f.bin<SubOp>(series, logI0);
  } else {
    Value i1Series = chebyshevSeries(f, iArg, kI1eA);
    Value i1Scaled = f.bin<MulOp>(i1Series, x);
    Value i1 = f.bin<MulOp>(i1Scaled, grow);
    Value logI1 = f.bin<MulOp>(logHalf, i1);
    Value overX = f.bin<DivOp>(series, x);
    near = f.bin<AddOp>(logI1, overX);
  }
  if (scaled)
    near = f.bin<MulOp>(near, grow);
  // Beyond 2: chbevl(8 / x - 2, B) / sqrt(x) (exp(-x) chbevl / sqrt(x) unscaled).
  Value inverse = f.bin<DivOp>(f.c(8.0), x);
  Value farArg = f.bin<SubOp>(inverse, f.c(2.0));
  Value far =
      chebyshevSeries(f, farArg, order == 0 ? ArrayRef<double>(kK0B) : ArrayRef<double>(kK1B));
  if (!scaled) {
    Value decay = f.un<ExpOp>(f.un<NegOp>(x));
    far = f.bin<MulOp>(decay, far);
  }
  far = f.bin<DivOp>(far, f.un<SqrtOp>(x));
  Value small = f.cmp("le", x, f.c(2.0));
  Value r = f.sel(small, near, far);
  Value negative = f.cmp("lt", x, f.c(0.0));
  r = f.sel(negative, f.c(std::numeric_limits<double>::quiet_NaN()), r);
  Value zero = f.cmp("eq", x, f.c(0.0));
  return f.sel(zero, f.c(std::numeric_limits<double>::infinity()), r);
}
} // namespace

void tcc::graph::populateBesselLegalizers(LegalizerTable &t) {
  auto formula = [&](StringRef name, StringRef operand, SpecialFormulaBody body) {
    t[name] = legalizeSpecialFormula(operand, std::move(body));
  };
  for (bool scaled : {false, true}) {
    StringRef k0 = scaled ? "aten.special_scaled_modified_bessel_k0.default"
                          : "aten.special_modified_bessel_k0.default";
    StringRef k1 = scaled ? "aten.special_scaled_modified_bessel_k1.default"
                          : "aten.special_modified_bessel_k1.default";
    StringRef operand = scaled ? "x" : "self";
    formula(k0, operand, [scaled](SpecialFormula &f) { return besselK(f, 0, scaled); });
    formula(k1, operand, [scaled](SpecialFormula &f) { return besselK(f, 1, scaled); });
  }
  auto i1 = [](bool scaled, bool whole) {
    return [=](SpecialFormula &f) { return besselI1(f, scaled, whole); };
  };
  formula("aten.special_i1.default", "self", i1(false, false));
  formula("aten.special_i1e.default", "self", i1(true, false));
  formula("aten.special_modified_bessel_i1.default", "self", i1(false, true));
  formula("aten.special_spherical_bessel_j0.default", "x", sphericalBesselJ0);
  auto i0 = [](bool scaled) {
    return [=](SpecialFormula &f) { return besselI0(f, scaled); };
  };
  formula("aten.i0.default", "self", i0(false));
  formula("aten.special_i0.default", "self", i0(false));
  formula("aten.special_modified_bessel_i0.default", "self", i0(false));
  formula("aten.special_i0e.default", "self", i0(true));
}
