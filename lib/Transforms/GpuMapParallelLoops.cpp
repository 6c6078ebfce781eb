//===- GpuMapParallelLoops.cpp - scf.parallel to a 1-D grid of blocks -----===//
//
// Collapses each outermost scf.parallel to one dimension, tiles it by the
// block size and marks outer → block x, inner → thread x; parallel loops
// nested deeper (below a reduction loop) run sequentially in the thread.
// The grid is at most what the device holds at once (tccCudaGridLimit(), from
// its multiprocessor count, asked on the host at launch); each thread then
// strides over the grid, so a large tensor costs no extra block scheduling.
//
//===----------------------------------------------------------------------===//
#include "tcc/Transforms/GpuConventions.h"
#include "tcc/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

#include <numeric>
#include <vector>

#define DEBUG_TYPE "tcc-gpu-map-parallel-loops"

namespace tcc {
#define GEN_PASS_DEF_GPUMAPPARALLELLOOPSPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

gpu::ParallelLoopDimMappingAttr dimMapping(Builder &b, gpu::Processor processor) {
  AffineMap id = b.getDimIdentityMap();
  return b.getAttr<gpu::ParallelLoopDimMappingAttr>(processor, id, id);
}

/// The runtime's grid limit, declared in `module` on first use.
func::FuncOp gridLimitFunction(ModuleOp module) {
  if (auto f = module.lookupSymbol<func::FuncOp>(tcc::kCudaGridLimitFunction))
    return f;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto type = b.getFunctionType({}, {b.getIndexType()});
  auto f = func::FuncOp::create(b, module.getLoc(), tcc::kCudaGridLimitFunction, type);
  f.setPrivate();
  return f;
}

/// `outer` (block x, over [lb, ub) by `step`) and `inner` (thread x) as
/// tiled: the grid becomes min(blocks, limit) and the inner body an scf.for
/// from the block's first element to ub by the grid's span.
void strideOverGrid(scf::ParallelOp outer, scf::ParallelOp inner, func::FuncOp limitFn) {
  Value block = outer.getInductionVars()[0];
  // A use of the block index outside the thread loop: keep one block per tile.
  if (llvm::any_of(block.getUsers(), [&](Operation *user) { return !inner->isAncestor(user); }))
    return;
  Location loc = outer.getLoc();
  OpBuilder b(outer);
  Value lb = outer.getLowerBound()[0], ub = outer.getUpperBound()[0], step = outer.getStep()[0];
  Value blocks = arith::CeilDivUIOp::create(b, loc, arith::SubIOp::create(b, loc, ub, lb), step);
  Value limit = func::CallOp::create(b, loc, limitFn, ValueRange{}).getResult(0);
  Value grid = arith::MinUIOp::create(b, loc, blocks, limit);
  Value span = arith::MulIOp::create(b, loc, grid, step);
  outer.getUpperBoundMutable()[0].set(arith::AddIOp::create(b, loc, lb, span));

  Block *body = inner.getBody();
  b.setInsertionPointToStart(body);
  auto stride = scf::ForOp::create(b, loc, block, ub, span);
  Block *strideBody = stride.getBody();
  strideBody->getOperations().splice(strideBody->getTerminator()->getIterator(),
                                     body->getOperations(), std::next(stride->getIterator()),
                                     body->getTerminator()->getIterator());
  block.replaceUsesWithIf(stride.getInductionVar(), [&](OpOperand &use) {
    return stride->isProperAncestor(use.getOwner());
  });
}

struct GpuMapParallelLoopsPass
    : tcc::impl::GpuMapParallelLoopsPassBase<GpuMapParallelLoopsPass> {
  void runOnOperation() override {
    SmallVector<func::FuncOp> funcs(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp func : funcs)
      if (!func.isExternal() && failed(mapFunction(func)))
        return signalPassFailure();
  }

  LogicalResult mapFunction(func::FuncOp func) {
    // Constants that fusion left as globals live in host memory; a kernel
    // reading them would fault (or read garbage through a host address).
    bool hostConstants = false;
    func.walk([&](memref::GetGlobalOp g) {
      g.emitError() << "--target cuda: constant '" << g.getName()
                    << "' would be read by a kernel from host memory; constants left "
                       "as memref.global are not supported on the CUDA path yet";
      hostConstants = true;
    });
    if (hostConstants)
      return failure();

    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : outermostLoops(func)) {
      if (loop.getNumLoops() < 2)
        continue;
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0u);
      rewriter.setInsertionPoint(loop);
      collapseParallelLoops(rewriter, loop, {all});
    }
    Builder b(&getContext());
    for (scf::ParallelOp loop : outermostLoops(func)) {
      // Erases `loop`; the inner loop runs [0, 256) under an scf.if bounds check.
      auto [outer, inner] = scf::tileParallelLoop(loop, {tcc::kCudaBlockSize},
                                                  /*noMinMaxBounds=*/true);
      (void)gpu::setMappingAttr(outer, {dimMapping(b, gpu::Processor::BlockX)});
      (void)gpu::setMappingAttr(inner, {dimMapping(b, gpu::Processor::ThreadX)});
      inner.getBody()->walk([&](scf::ParallelOp nested) {
        SmallVector<gpu::ParallelLoopDimMappingAttr> seq(
            nested.getNumLoops(), dimMapping(b, gpu::Processor::Sequential));
        (void)gpu::setMappingAttr(nested, seq);
      });
      strideOverGrid(outer, inner, gridLimitFunction(getOperation()));
    }
    return success();
  }

  static SmallVector<scf::ParallelOp> outermostLoops(func::FuncOp func) {
    SmallVector<scf::ParallelOp> loops;
    func.walk([&](scf::ParallelOp p) {
      if (!p->getParentOfType<scf::ParallelOp>())
        loops.push_back(p);
    });
    return loops;
  }
};

} // namespace
