//===- ReductionNeighbours.h - the fill and epilogue a reduction takes in -===//
//
// The CUDA path's reduction passes (tcc-gpu-register-reductions, a thread
// per output; tcc-gpu-warp-reductions, a warp per output) each write an
// output element once, at the end, from one thread. Two neighbours can then
// join the reduction's kernel instead of running kernels of their own:
// - the linalg.fill of the output before it: the fill's value is where the
//   accumulation starts;
// - a pointwise generic right after it over the same parallel dims that
//   reads the output element by element (a mean's division, a cast back to
//   bf16): computed from the total in the thread that stores it.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_TRANSFORMS_REDUCTIONNEIGHBOURS_H
#define TCC_LIB_TRANSFORMS_REDUCTIONNEIGHBOURS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace tcc {

/// The fill of `op`'s output that its accumulation can start from: the last
/// fill of exactly that buffer before it, with no op in between that may
/// touch the buffer's bytes; or null.
mlir::linalg::FillOp foldableFill(mlir::linalg::GenericOp op);

/// A pointwise generic right after `op` (past ops touching no memory) that
/// can run in the threads that store `op`'s outputs: the same parallel dims,
/// reading `op`'s output only element by element as `op` writes it, writing
/// no byte that `op`'s other threads still read; or null.
mlir::linalg::GenericOp fusableEpilogue(mlir::linalg::GenericOp op);

/// Emits `epilogue` (fusableEpilogue) at `parallelIvs` with its reads of
/// `out` (the reduction's output) taken as `total`, storing its result.
void emitReductionEpilogue(mlir::OpBuilder &b, mlir::linalg::GenericOp epilogue,
                           mlir::Value out, mlir::ValueRange parallelIvs, mlir::Value total);

} // namespace tcc

#endif // TCC_LIB_TRANSFORMS_REDUCTIONNEIGHBOURS_H
