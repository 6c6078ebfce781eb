//===- GpuMapParallelLoops.cpp - scf.parallel to a 1-D grid of blocks -----===//
//
// Collapses each outermost scf.parallel to one dimension, tiles it by the
// block size and marks outer → block x, inner → thread x; parallel loops
// nested deeper (below a reduction loop) run sequentially in the thread.
//
//===----------------------------------------------------------------------===//
#include "tcc/Transforms/GpuConventions.h"
#include "tcc/Transforms/Passes.h"

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

struct GpuMapParallelLoopsPass
    : tcc::impl::GpuMapParallelLoopsPassBase<GpuMapParallelLoopsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
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
