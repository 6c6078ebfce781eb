//===- ComplexForm.h - how tcc_graph carries complex tensors --------------===//
//
// A complex tensor (complex64, complex128) is a real tensor of its part type
// (f32, f64) with a last dim of 2 holding (re, im): the bytes of PyTorch's
// storage (torch.view_as_real). The types alone do not tell it from a real
// tensor, so the importer lists, on each `tcc_graph.operator`, the positions
// of its complex operands and results; tcc-legalize-graph takes such an
// operator only through the legalizers that know the form.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_DIALECTS_TCCGRAPH_IR_COMPLEXFORM_H
#define TCC_DIALECTS_TCCGRAPH_IR_COMPLEXFORM_H

#include "llvm/ADT/StringRef.h"

namespace tcc::graph {

/// On a `tcc_graph.operator`: a dense i64 array of the positions of its
/// complex operands.
constexpr llvm::StringLiteral kComplexOperandsAttrName = "tcc.complex_operands";
/// On a `tcc_graph.operator`: a dense i64 array of the positions of its
/// complex results.
constexpr llvm::StringLiteral kComplexResultsAttrName = "tcc.complex_results";

} // namespace tcc::graph

#endif // TCC_DIALECTS_TCCGRAPH_IR_COMPLEXFORM_H
