//===- ComplexLegalizers.h - complex tensors and the torch.fft family -----===//
//
// Private to tcc-legalize-graph, beside Legalizers.h. A complex tensor is
// carried in the (re, im) form of dialects/TccGraph/IR/ComplexForm.h; an
// operator with a complex operand or result is legalized only from the
// complex table, and refused when it is not in it.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_DIALECTS_TCCGRAPH_TRANSFORMS_COMPLEXLEGALIZERS_H
#define TCC_DIALECTS_TCCGRAPH_TRANSFORMS_COMPLEXLEGALIZERS_H

#include "dialects/TccGraph/IR/ComplexForm.h"
#include "dialects/TccGraph/Transforms/Legalizers.h"

namespace tcc::graph {

/// The torch.fft family (LegalizeFFT.cpp): into `table` the operators on
/// real tensors, into `complexTable` those taking or giving complex ones.
void populateFFTLegalizers(LegalizerTable &table, LegalizerTable &complexTable);
/// Operators on complex tensors (LegalizeComplex.cpp).
void populateComplexLegalizers(LegalizerTable &complexTable);

/// A complex tensor as its real and imaginary parts, two tensors of one
/// shape and float type; a null `im` is zero.
struct ComplexParts {
  mlir::Value re, im;
};
/// Whether the operand named `name` (result `i`) is a complex tensor, carried
/// as its (re, im) pairs in a last dim of 2.
bool isComplexOperand(OperatorArgs &args, llvm::StringRef name);
bool isComplexResult(OperatorArgs &args, unsigned i = 0);
/// The parts of `v`, a complex tensor in the (re, im) form.
ComplexParts splitComplex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
/// The (re, im) form of `z` (a null `im` as zeros; static shapes then).
mlir::Value joinComplex(mlir::OpBuilder &b, mlir::Location loc, ComplexParts z);

} // namespace tcc::graph

#endif // TCC_DIALECTS_TCCGRAPH_TRANSFORMS_COMPLEXLEGALIZERS_H
