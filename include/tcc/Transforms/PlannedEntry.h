//===- PlannedEntry.h - facts about a memory-planned entry function -------===//
//
// Shared by the passes that run after tcc-plan-memory (kernel outlining and
// the GPU library calls), so they agree on what an entry is and on where its
// CUDA stream comes from.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_TRANSFORMS_PLANNEDENTRY_H
#define TCC_TRANSFORMS_PLANNEDENTRY_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tcc {

/// True for a function with a body and a `tcc.arena` argument (one that
/// tcc-plan-memory planned).
bool isPlannedEntry(mlir::func::FuncOp f);

/// The function's `tcc.stream` argument (an `!llvm.ptr` holding a CUstream),
/// appended as the last argument if it has none yet.
mlir::FailureOr<mlir::Value> streamArgument(mlir::func::FuncOp f);

} // namespace tcc

#endif // TCC_TRANSFORMS_PLANNEDENTRY_H
