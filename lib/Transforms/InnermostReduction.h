//===- InnermostReduction.h - the reductions the GPU passes lower themselves -===//
//
// tcc-gpu-warp-reductions and tcc-gpu-linalg-to-parallel-loops both lower a
// reduction as loops over its parallel dims around loops over its reduced
// ones, each output element written once at the end: that takes the shape
// checked here.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_TRANSFORMS_INNERMOSTREDUCTION_H
#define TCC_LIB_TRANSFORMS_INNERMOSTREDUCTION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace tcc {

/// Why `op` (one output) is not a reduction whose reduced dims are its
/// innermost loops, whose output is indexed by exactly its parallel dims and
/// is no input too (read, it would show the initial value where the loop
/// nest has partial results); null if it is.
inline const char *whyNotInnermostReduction(mlir::linalg::GenericOp op) {
  using namespace mlir;
  OpOperand *init = op.getDpsInitOperand(0);
  if (llvm::is_contained(op.getDpsInputs(), init->get()))
    return "an input is the output buffer";
  unsigned numParallel = op.getNumParallelLoops(), numLoops = op.getNumLoops();
  if (numParallel == numLoops)
    return "no reduction dim";
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned i = 0; i < numLoops; ++i)
    if ((i < numParallel) != (iterators[i] == utils::IteratorType::parallel))
      return "a parallel dim after a reduction dim";
  AffineMap outputMap = op.getMatchingIndexingMap(init);
  if (!outputMap.isProjectedPermutation() || outputMap.getNumResults() != numParallel ||
      llvm::any_of(outputMap.getResults(), [&](AffineExpr e) {
        return cast<AffineDimExpr>(e).getPosition() >= numParallel;
      }))
    return "output map not a permutation of the parallel dims";
  return nullptr;
}

} // namespace tcc

#endif // TCC_LIB_TRANSFORMS_INNERMOSTREDUCTION_H
