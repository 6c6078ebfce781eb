//===- ScalarValues.h - Python numbers as rank-0 tensors ------------------===//
//
// Internal to the frontend. A program may return a Python number (a constant
// user output, or the result of .item()) or feed .item()'s result into tensor
// operators. Everything after the frontend works on tensors, so these become
// rank-0 tensors here, once: int as int64, float as float64, bool as bool.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_FRONTEND_SCALARVALUES_H
#define TCC_LIB_FRONTEND_SCALARVALUES_H

#include "tcc/Frontend/ExportedProgram.h"

namespace tcc::frontend {

/// Rewrites `program` (already verified) so that:
/// - a user output that is a constant int, float or bool is the output of a
///   new `aten.scalar_tensor` node (a None output is left for the importer
///   to refuse);
/// - the result of `aten.item` / `aten._local_scalar_dense` is a rank-0
///   tensor of the Python number's type, as is Python arithmetic on it
///   (operator.add, sub, mul, truediv, floordiv, neg become the ATen ops);
/// - a node argument naming such a value names the tensor instead.
/// A symbolic size that depends on such a value (a data-dependent shape) is
/// left alone and refused later.
void tensorizeScalarValues(ExportedProgram &program);

} // namespace tcc::frontend

#endif // TCC_LIB_FRONTEND_SCALARVALUES_H
