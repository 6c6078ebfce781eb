//===- LegalizeAiry.cpp - the Airy function Ai ----------------------------===//
//
// special_airy_ai as ATen's airy_ai_forward (Cephes): NaN at +-inf, 0 beyond
// 103.892; below -2.09 the oscillating asymptotic form with rational
// approximations in 1 / zeta^2; from 2.09 the decaying one in 1 / zeta
// (zeta = 2 x^(3/2) / 3); between, the Maclaurin series of its two parts,
// which ATen sums until a term falls below the type's epsilon (at most 9
// terms in float, 13 in double on that interval): unrolled to 20 steps, a
// step past the stop keeping the sums. Each range is built, a select picks.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/SpecialFormula.h"

#include <limits>

using namespace mlir;
using namespace tcc::graph;

namespace {
constexpr double kAiryAN[] = {3.46538101525629032477e-01, 1.20075952739645805542e+01, 7.62796053615234516538e+01, 1.68089224934630576269e+02, 1.59756391350164413639e+02, 7.05360906840444183113e+01, 1.40264691163389668864e+01, 9.99999999999999995305e-01};
constexpr double kAiryAD[] = {5.67594532638770212846e-01, 1.47562562584847203173e+01, 8.45138970141474626562e+01, 1.77318088145400459522e+02, 1.64234692871529701831e+02, 7.14778400825575695274e+01, 1.40959135607834029598e+01, 1.00000000000000000470e+00};
constexpr double kAiryAFN[] = {-1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01, -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03, -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08};
constexpr double kAiryAFD[] = {1.33560420706553243746e+01, 3.26825032795224613948e+01, 2.67367040941499554804e+01, 9.18707402907259625840e+00, 1.47529146771666414581e+00, 1.15687173795188044134e-01, 4.40291641615211203805e-03, 7.54720348287414296618e-05, 4.51850092970580378464e-07};
constexpr double kAiryAGN[] = {1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e+00, 9.39169229816650230044e-01, 3.51465656105547619242e-01, 6.33888919628925490927e-02, 5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06, 8.11789239554389293311e-08, 3.41551784765923618484e-10};
constexpr double kAiryAGD[] = {9.30892908077441974853e+00, 1.98352928718312140417e+01, 1.55646628932864612953e+01, 5.47686069422975497931e+00, 9.54293611618961883998e-01, 8.64580826352392193095e-02, 4.12656523824222607191e-03, 1.01259085116509135510e-04, 1.17166733214413521882e-06, 4.91834570062930015649e-09};

/// 1 / sqrt(pi).
constexpr double kInvSqrtPi = 5.64189583547756286948e-01;

/// 2 |x|^(3/2) / 3 as ATen orders it: (2 * x) * sqrt(x) / 3 for `x` >= 0 (or
/// -x with `negate`).
Value zetaOf(PointwiseBuilder &p, Value x, bool negate) {
  Value root = p.un<SqrtOp>(negate ? p.un<NegOp>(x) : x);
  Value twice = p.bin<MulOp>(p.c(negate ? -2.0 : 2.0), x);
  Value product = p.bin<MulOp>(twice, root);
  return p.bin<DivOp>(product, p.c(3.0));
}

Value airyAi(SpecialFormula &p) {
  Value x = p.x;
  OpBuilder &b = p.b;
  bool isDouble = p.isDouble();
  auto select = [&](Value cond, Value a, Value c) { return p.sel(cond, a, c); };

  // x < -2.09: (sin(t) (1 + z^2 afn / afd) - cos(t) z agn / agd) / (sqrt(pi) |x|^(1/4)).
  Value zetaNeg = zetaOf(p, x, /*negate=*/true);
  Value z = p.bin<DivOp>(p.c(1.0), zetaNeg);
  Value zz = p.bin<MulOp>(z, z);
  Value afn = polynomial(p, zz, kAiryAFN);
  Value afd = polynomial(p, zz, kAiryAFD);
  Value agn = polynomial(p, zz, kAiryAGN);
  Value agd = polynomial(p, zz, kAiryAGD);
  double pi = 3.14159265358979323846;
  double quarterPi = isDouble ? 0.25 * pi : static_cast<double>(0.25f * static_cast<float>(pi));
  Value t = p.bin<AddOp>(zetaNeg, p.c(quarterPi));
  Value zzAfn = p.bin<MulOp>(zz, afn);
  Value fRatio = p.bin<DivOp>(zzAfn, afd);
  Value fPart = p.bin<AddOp>(p.c(1.0), fRatio);
  Value zAgn = p.bin<MulOp>(z, agn);
  Value gPart = p.bin<DivOp>(zAgn, agd);
  Value sinT = p.un<SinOp>(t);
  Value cosT = p.un<CosOp>(t);
  Value sinF = p.bin<MulOp>(sinT, fPart);
  Value cosG = p.bin<MulOp>(cosT, gPart);
  Value wave = p.bin<SubOp>(sinF, cosG);
  Value negX = p.un<NegOp>(x);
  Value quarterRoot = p.un<SqrtOp>(p.un<SqrtOp>(negX));
  Value amplitude = p.bin<DivOp>(p.c(kInvSqrtPi), quarterRoot);
  Value oscillating = p.bin<MulOp>(amplitude, wave);

  // x >= 2.09: (an / ad) / (2 sqrt(pi) x^(1/4) exp(zeta)), in 1 / zeta.
  Value zetaPos = zetaOf(p, x, /*negate=*/false);
  Value inverse = p.bin<DivOp>(p.c(1.0), zetaPos);
  Value an = polynomial(p, inverse, kAiryAN);
  Value ad = polynomial(p, inverse, kAiryAD);
  Value ratio = p.bin<DivOp>(an, ad);
  Value top = p.bin<MulOp>(p.c(kInvSqrtPi), ratio);
  Value root4 = p.un<SqrtOp>(p.un<SqrtOp>(x));
  Value twoRoot4 = p.bin<MulOp>(p.c(2.0), root4);
  Value growth = p.un<ExpOp>(zetaPos);
  Value bottom = p.bin<MulOp>(twoRoot4, growth);
  Value decaying = p.bin<DivOp>(top, bottom);

  // Between: f = sum x^(3i) / .., g = sum x^(3i+1) / .., ATen's steps
  // (k = 3i + 2, 3i + 3, 3i + 4) while |m / f| > epsilon.
  double epsilon = isDouble ? std::numeric_limits<double>::epsilon()
                            : static_cast<double>(std::numeric_limits<float>::epsilon());
  Value cube = p.bin<MulOp>(p.bin<MulOp>(x, x), x);
  Value f = p.c(1.0), g = x, m = p.c(1.0), n = x;
  Value done = makeCompare(b, p.loc, "ne", x, x); // all false (NaN stops at once below)
  for (int i = 0; i < 20; ++i) {
    double k1 = 3 * i + 2, k2 = 3 * i + 3, k3 = 3 * i + 4;
    Value m1 = p.bin<MulOp>(m, cube);
    m1 = p.bin<DivOp>(m1, p.c(k1));
    Value n1 = p.bin<MulOp>(n, cube);
    n1 = p.bin<DivOp>(n1, p.c(k2));
    m1 = p.bin<DivOp>(m1, p.c(k2));
    Value f1 = p.bin<AddOp>(f, m1);
    n1 = p.bin<DivOp>(n1, p.c(k3));
    Value g1 = p.bin<AddOp>(g, n1);
    f = select(done, f, f1);
    g = select(done, g, g1);
    m = select(done, m, m1);
    n = select(done, n, n1);
    Value term = p.un<AbsOp>(p.bin<DivOp>(m, f));
    Value more = makeCompare(b, p.loc, "gt", term, p.c(epsilon));
    Value stop = makeCompare(b, p.loc, "eq", more, makeScalar(b, p.loc, b.getI1Type(), 0));
    done = b.create<BitwiseOrOp>(p.loc, typeOf(done), done, stop);
  }
  Value fTerm = p.bin<MulOp>(p.c(0.355028053887817239260), f);
  Value gTerm = p.bin<MulOp>(p.c(0.258819403792806798405), g);
  Value series = p.bin<SubOp>(fTerm, gTerm);

  Value r = series;
  Value high = makeCompare(b, p.loc, "ge", x, p.c(2.09));
  r = select(high, decaying, r);
  Value low = makeCompare(b, p.loc, "lt", x, p.c(-2.09));
  r = select(low, oscillating, r);
  Value beyond = makeCompare(b, p.loc, "gt", x, p.c(103.892));
  r = select(beyond, p.c(0.0), r);
  Value absX = p.un<AbsOp>(x);
  Value infinite = makeCompare(b, p.loc, "eq", absX, p.c(std::numeric_limits<double>::infinity()));
  r = select(infinite, p.c(std::numeric_limits<double>::quiet_NaN()), r);
  return r;
}
} // namespace

void tcc::graph::populateAiryLegalizers(LegalizerTable &t) {
  t["aten.special_airy_ai.default"] = legalizeSpecialFormula("x", airyAi);
}
