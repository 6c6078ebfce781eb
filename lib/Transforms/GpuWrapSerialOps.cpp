//===- GpuWrapSerialOps.cpp - serial linalg ops into one-thread kernels ---===//
//
// Linalg ops without a parallel dimension (rank-0 results, full reductions)
// would lower to loops on the host, over device memory. Each is wrapped in a
// one-iteration scf.parallel, so it becomes a (one-thread) kernel too.
//
//===----------------------------------------------------------------------===//
#include "tcc/Transforms/Passes.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "tcc-gpu-wrap-serial-ops"

namespace tcc {
#define GEN_PASS_DEF_GPUWRAPSERIALOPSPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

struct GpuWrapSerialOpsPass : tcc::impl::GpuWrapSerialOpsPassBase<GpuWrapSerialOpsPass> {
  void runOnOperation() override {
    // Only the CUDA path's functions (tcc-split-targets).
    if (!tcc::isCudaFunction(getOperation()))
      return;
    SmallVector<linalg::LinalgOp> serial;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.getNumParallelLoops() == 0 && !op->getParentOfType<scf::ParallelOp>())
        serial.push_back(op);
    });
    for (linalg::LinalgOp op : serial) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      auto loop = scf::ParallelOp::create(b, loc, ValueRange{zero}, ValueRange{one},
                                          ValueRange{one});
      op->moveBefore(loop.getBody()->getTerminator());
    }
  }
};

} // namespace
