//===- SplitSharedInits.h - one fresh init tensor per writer ----*- C++ -*-===//
#ifndef TCC_CONVERSION_BUFFERIZE_SPLITSHAREDINITS_H
#define TCC_CONVERSION_BUFFERIZE_SPLITSHAREDINITS_H

#include "mlir/IR/BuiltinOps.h"

namespace tcc {

/// Splits the fresh tensors that many destination operands (linalg inits,
/// insert_slice destinations) share: CSE merges identical tensor.empty and
/// linalg.fill ops, so a thousand reductions end up initialized from one
/// filled tensor. One-Shot Bufferize then gives all but one a new buffer and
/// a copy of the fill, and its conflict analysis, which compares the reads
/// and writes of every value aliasing one buffer, grows with the square of
/// the writers (a one-sided Jacobi SVD spent 145 s there). Each writer of a
/// fill gets its own fill, right before it; the writers of an empty tensor
/// share one per group of a few consecutive ones (sharing lets a chain of
/// pointwise ops run in one buffer).
void splitSharedInits(mlir::ModuleOp module);

} // namespace tcc

#endif // TCC_CONVERSION_BUFFERIZE_SPLITSHAREDINITS_H
