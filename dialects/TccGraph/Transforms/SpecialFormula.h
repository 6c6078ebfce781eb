//===- SpecialFormula.h - the shared frame of special-function legalizers -===//
//
// Private to tcc-legalize-graph. The special functions (Bessel, Airy, error
// function inverses, ...) are pointwise formulas of one float tensor, built
// from typed tcc_graph ops as ATen's scalar code computes them: the operand
// in ATen's compute type (float, or double for double: half and bfloat16
// are upcast), a body in that type, the result cast to the operator's type.
// The series evaluations the Cephes-derived code shares live here too.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_DIALECTS_TCCGRAPH_TRANSFORMS_SPECIALFORMULA_H
#define TCC_DIALECTS_TCCGRAPH_TRANSFORMS_SPECIALFORMULA_H

#include "dialects/TccGraph/Transforms/Legalizers.h"

namespace tcc::graph {

void populateBesselJYLegalizers(LegalizerTable &table);
void populateIncompleteGammaLegalizers(LegalizerTable &table);
void populateErrorFunctionLegalizers(LegalizerTable &table);

/// lgamma of a float tensor, in its type (computed in f64: LegalizeGamma.cpp).
mlir::Value makeLogGamma(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

/// A PointwiseBuilder in ATen's compute type whose selects take the shape of
/// `x`, the operand (every value of the formula broadcasts to it).
struct SpecialFormula : PointwiseBuilder {
  /// The operand, in the compute type `elt`.
  mlir::Value x;
  /// cond ? a : c, shaped like `x`.
  mlir::Value sel(mlir::Value cond, mlir::Value a, mlir::Value c);
  /// An i1 comparison (eq, ne, lt, le, gt, ge).
  mlir::Value cmp(llvm::StringRef predicate, mlir::Value l, mlir::Value r);
  /// Whether the compute type is double.
  bool isDouble() const { return elt.isF64(); }
};

/// The body of a one-operand special function: the result in `f.elt`.
using SpecialFormulaBody = std::function<mlir::Value(SpecialFormula &f)>;

/// A legalizer for a pointwise special function of the tensor operand
/// `operand`: the shared frame (the operand in ATen's compute type, an error
/// naming the operator where the result is not a float) around `body`.
LegalizeFn legalizeSpecialFormula(llvm::StringRef operand, SpecialFormulaBody body);

/// Cephes' chbevl: b0 = x b1 - b2 + c[i] over the coefficients, then
/// (b0 - b2) / 2.
mlir::Value chebyshevSeries(PointwiseBuilder &p, mlir::Value x, llvm::ArrayRef<double> coeffs);

/// Cephes' polevl (ATen's `r = 0; for (c : coeffs) r = r * z + c`, whose
/// first step is c0): Horner from the highest coefficient, coeffs[0].
mlir::Value polynomial(PointwiseBuilder &p, mlir::Value z, llvm::ArrayRef<double> coeffs);

/// Cephes' p1evl: polevl with an implicit leading coefficient 1.
mlir::Value monicPolynomial(PointwiseBuilder &p, mlir::Value z, llvm::ArrayRef<double> coeffs);

} // namespace tcc::graph

#endif // TCC_DIALECTS_TCCGRAPH_TRANSFORMS_SPECIALFORMULA_H
