//===- GpuLinalgToParallelLoops.cpp - the CUDA path's linalg as scf loops -===//
//
// Implements `tcc-gpu-linalg-to-parallel-loops`: upstream's
// convert-linalg-to-parallel-loops, restricted to the CUDA path's functions
// (tcc-split-targets), whose parallel loops become grids; the CPU path's
// linalg ops stay for its own lowering. Reductions that accumulate in a
// register are lowered before (tcc-gpu-register-reductions); what is left
// here are pointwise ops, fills, copies and reductions of other shapes.
//
//===----------------------------------------------------------------------===//
#include "tcc/Transforms/Passes.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tcc-gpu-linalg-to-parallel-loops"

namespace tcc {
#define GEN_PASS_DEF_GPULINALGTOPARALLELLOOPSPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {
struct GpuLinalgToParallelLoopsPass
    : tcc::impl::GpuLinalgToParallelLoopsPassBase<GpuLinalgToParallelLoopsPass> {
  void runOnOperation() override {
    if (!tcc::isCudaFunction(getOperation()))
      return;
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      if (failed(linalg::linalgOpToParallelLoops(rewriter, op))) {
        op.emitOpError("cannot be lowered to parallel loops");
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
    }
  }
};
} // namespace
