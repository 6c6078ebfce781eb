//===- RuntimeAssertions.h - the export's checks of run-time values -------===//
//
// Internal to the frontend. torch.export records a check it could not decide
// at export time (torch._check on a value read with .item(), a bound of an
// unbacked size) as an `aten._assert_scalar(condition, message)` node, which
// the exported program evaluates on every call. A condition computed from
// .item() values and input sizes is a tensor of the graph (ScalarValues.h),
// which the compiled code checks on every call (the manifest lists it as a
// value check); any other (one over an expression of sizes, u0 <= 2*s0) is
// kept here so that the compile warns and the manifest lists it as a guard
// that is not enforced, never dropped unsaid.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_FRONTEND_RUNTIMEASSERTIONS_H
#define TCC_LIB_FRONTEND_RUNTIMEASSERTIONS_H

#include "tcc/Frontend/ExportedProgram.h"

namespace tcc::frontend {

/// Appends to program.runtimeAssertions one line per `aten._assert_scalar`
/// node: its condition as the export prints it, and where in the user's
/// source it was made.
void collectRuntimeAssertions(ExportedProgram &program);

} // namespace tcc::frontend

#endif // TCC_LIB_FRONTEND_RUNTIMEASSERTIONS_H
