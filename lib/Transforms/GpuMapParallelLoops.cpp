//===- GpuMapParallelLoops.cpp - scf.parallel to a 1-D grid of blocks -----===//
//
// Loads of splat constant globals become constants first (a kernel cannot
// read a global from host memory). Then it collapses each outermost
// scf.parallel to one dimension, tiles it by the
// block size and marks outer → block x, inner → thread x; parallel loops
// nested deeper (below a reduction loop) run sequentially in the thread.
// Each thread strides over the grid (by gridDim.x blocks), so a kernel is
// correct for any grid of at least one block: the runtime launches no more
// blocks than the device holds at once (mgpuLaunchKernel in
// lib/Runtime/MlirGpuRuntime.cpp), and a large tensor costs no extra block
// scheduling.
//
//===----------------------------------------------------------------------===//
#include "tcc/Transforms/GpuConventions.h"
#include "tcc/Transforms/Passes.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
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

/// `outer` (block x, over [lb, ub) by `step`) and `inner` (thread x) as
/// tiled: the body of `inner` becomes an scf.for from the block's first
/// element to ub by the grid's span (gridDim.x * step), so that a grid of
/// fewer blocks than ceil((ub - lb) / step) still covers every element.
void strideOverGrid(scf::ParallelOp outer, scf::ParallelOp inner) {
  Value block = outer.getInductionVars()[0];
  Location loc = outer.getLoc();
  Block *body = inner.getBody();
  OpBuilder b = OpBuilder::atBlockBegin(body);
  Value grid = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value span = arith::MulIOp::create(b, loc, grid, outer.getStep()[0]);
  auto stride = scf::ForOp::create(b, loc, block, outer.getUpperBound()[0], span);
  Block *strideBody = stride.getBody();
  strideBody->getOperations().splice(strideBody->getTerminator()->getIterator(),
                                     body->getOperations(), std::next(stride->getIterator()),
                                     body->getTerminator()->getIterator());
  block.replaceUsesWithIf(stride.getInductionVar(), [&](OpOperand &use) {
    return stride->isProperAncestor(use.getOwner());
  });
}

/// Replaces the loads of a constant global whose every element is one value
/// (bufferization's 0-d and splat constants, e.g. a scattered scalar) by that
/// value, so no kernel reads the global from host memory. Globals used any
/// other way are left for the check below.
void inlineSplatConstantLoads(func::FuncOp func) {
  SymbolTableCollection symbols;
  SmallVector<memref::GetGlobalOp> reads;
  func.walk([&](memref::GetGlobalOp g) { reads.push_back(g); });
  for (memref::GetGlobalOp g : reads) {
    auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(g, g.getNameAttr());
    auto value = global && global.getConstant()
                     ? dyn_cast_or_null<DenseElementsAttr>(global.getConstantInitValue())
                     : DenseElementsAttr();
    if (!value || !value.isSplat())
      continue;
    bool onlyLoads = llvm::all_of(g->getUsers(), [](Operation *user) {
      return isa<memref::LoadOp, affine::AffineLoadOp>(user);
    });
    if (!onlyLoads)
      continue;
    TypedAttr element = value.getSplatValue<TypedAttr>();
    for (Operation *load : llvm::make_early_inc_range(g->getUsers())) {
      OpBuilder b(load);
      Value constant = arith::ConstantOp::create(b, load->getLoc(), element);
      load->getResult(0).replaceAllUsesWith(constant);
      load->erase();
    }
    g.erase();
  }
}

struct GpuMapParallelLoopsPass
    : tcc::impl::GpuMapParallelLoopsPassBase<GpuMapParallelLoopsPass> {
  void runOnOperation() override {
    // Only the CUDA path's functions (tcc-split-targets).
    if (!tcc::isCudaFunction(getOperation()))
      return;
    func::FuncOp func = getOperation();
    inlineSplatConstantLoads(func);
    // Other constants that fusion left as globals live in host memory; a
    // kernel reading them would fault (or read garbage through a host address).
    bool hostConstants = false;
    func.walk([&](memref::GetGlobalOp g) {
      g.emitError() << "--target cuda: constant '" << g.getName()
                    << "' would be read by a kernel from host memory; constants left "
                       "as memref.global are not supported on the CUDA path yet";
      hostConstants = true;
    });
    if (hostConstants)
      return signalPassFailure();

    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : outermostLoops()) {
      if (loop.getNumLoops() < 2)
        continue;
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0u);
      rewriter.setInsertionPoint(loop);
      collapseParallelLoops(rewriter, loop, {all});
    }
    Builder b(&getContext());
    for (scf::ParallelOp loop : outermostLoops()) {
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
      strideOverGrid(outer, inner);
    }
  }

  SmallVector<scf::ParallelOp> outermostLoops() {
    SmallVector<scf::ParallelOp> loops;
    getOperation().walk([&](scf::ParallelOp p) {
      if (!p->getParentOfType<scf::ParallelOp>())
        loops.push_back(p);
    });
    return loops;
  }
};

} // namespace
