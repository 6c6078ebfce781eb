//===- GpuRegisterReductions.cpp - reductions in registers, one kernel each -===//
//
// Implements `tcc-gpu-register-reductions`: on the CUDA path, a reduction
// (one output, its reduced dims innermost) becomes scf.parallel over its
// parallel dims around scf.for loops over the reduced ones that carry the
// accumulator in a register, one store per output at the end (upstream's
// loops load and store the output at every term, and the GPU, which cannot
// tell the output from the inputs, stored it to memory each time).
//
// The fill before it and a pointwise epilogue after it join the same kernel
// (ReductionNeighbours.h). A blocked mean over H and W (three partial sums, their fills, a division)
// goes from seven kernels to three.
//
//===----------------------------------------------------------------------===//
#include "InnermostReduction.h"
#include "ReductionNeighbours.h"
#include "tcc/Transforms/Passes.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define DEBUG_TYPE "tcc-gpu-register-reductions"

namespace tcc {
#define GEN_PASS_DEF_GPUREGISTERREDUCTIONSPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

/// Whether lowerRegisterReduction takes `op`: one output, its parallel dims,
/// then its reduced ones; the output indexed by exactly the parallel dims.
bool isRegisterReduction(linalg::GenericOp op) {
  return op.hasPureBufferSemantics() && op.getNumDpsInits() == 1 && !op.hasIndexSemantics() &&
         op.getNumParallelLoops() > 0 && !tcc::whyNotInnermostReduction(op);
}

/// `op` (isRegisterReduction) as scf.parallel over the parallel dims around
/// scf.for loops over the reduced ones that carry the accumulator; one store
/// at the end, then `epilogue` (fusableEpilogue; may be null) on the total.
void lowerRegisterReduction(IRRewriter &rewriter, linalg::GenericOp op,
                            linalg::GenericOp epilogue) {
  unsigned numLoops = op.getNumLoops(), numParallel = op.getNumParallelLoops();
  OpOperand *init = op.getDpsInitOperand(0);
  Value out = init->get();
  AffineMap outMap = op.getMatchingIndexingMap(init);
  Block &body = op.getRegion().front();
  Location loc = op.getLoc();
  linalg::FillOp fill = tcc::foldableFill(op);
  Value start = fill ? fill.getInputs()[0] : Value();

  SmallVector<Range, 4> ranges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(rewriter, loc);
  auto value = [&](OpFoldResult v) { return getValueOrCreateConstantIndexOp(rewriter, loc, v); };
  SmallVector<Value> lbs, ubs, steps;
  for (unsigned i = 0; i < numParallel; ++i) {
    lbs.push_back(value(ranges[i].offset));
    ubs.push_back(value(ranges[i].size));
    steps.push_back(value(ranges[i].stride));
  }
  SmallVector<Value> reducedLbs, reducedUbs, reducedSteps;
  for (unsigned i = numParallel; i < numLoops; ++i) {
    reducedLbs.push_back(value(ranges[i].offset));
    reducedUbs.push_back(value(ranges[i].size));
    reducedSteps.push_back(value(ranges[i].stride));
  }
  // map's results at `ivs` (the exprs use no dim past them).
  auto indices = [&](OpBuilder &b, AffineMap map, ValueRange ivs) {
    SmallVector<Value> at;
    for (AffineExpr e : map.getResults())
      at.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(ivs.size(), 0, e, b.getContext()), ivs));
    return at;
  };
  SmallVector<Value> ivs(numLoops);
  // The body at ivs, acc the accumulator so far: the next accumulator.
  auto step = [&](OpBuilder &b, Value acc) -> Value {
    IRMapping map;
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value v = input->get();
      if (isa<MemRefType>(v.getType()))
        v = memref::LoadOp::create(b, loc, v, indices(b, op.getMatchingIndexingMap(input), ivs));
      map.map(op.getMatchingBlockArgument(input), v);
    }
    map.map(op.getMatchingBlockArgument(init), acc);
    for (Operation &inner : body.without_terminator())
      b.clone(inner, map);
    return map.lookupOrDefault(body.getTerminator()->getOperand(0));
  };
  std::function<Value(OpBuilder &, unsigned, Value)> loops = [&](OpBuilder &b, unsigned r,
                                                                  Value acc) -> Value {
    if (r == numLoops)
      return step(b, acc);
    unsigned k = r - numParallel;
    auto loop = scf::ForOp::create(
        b, loc, reducedLbs[k], reducedUbs[k], reducedSteps[k], ValueRange{acc},
        [&](OpBuilder &nb, Location l, Value iv, ValueRange args) {
          ivs[r] = iv;
          scf::YieldOp::create(nb, l, loops(nb, r + 1, args[0]));
        });
    return loop.getResult(0);
  };
  scf::ParallelOp::create(rewriter, loc, lbs, ubs, steps,
                          [&](OpBuilder &b, Location l, ValueRange parallelIvs) {
                            for (unsigned i = 0; i < numParallel; ++i)
                              ivs[i] = parallelIvs[i];
                            SmallVector<Value> at = indices(b, outMap, parallelIvs);
                            Value first = start ? start : memref::LoadOp::create(b, l, out, at);
                            Value total = loops(b, numParallel, first);
                            memref::StoreOp::create(b, l, total, out, at);
                            if (epilogue)
                              tcc::emitReductionEpilogue(b, epilogue, out, parallelIvs, total);
                          });
  rewriter.eraseOp(op);
  if (epilogue)
    rewriter.eraseOp(epilogue);
  if (fill)
    rewriter.eraseOp(fill);
}

struct GpuRegisterReductionsPass
    : tcc::impl::GpuRegisterReductionsPassBase<GpuRegisterReductionsPass> {
  void runOnOperation() override {
    if (!tcc::isCudaFunction(getOperation()))
      return;
    SmallVector<linalg::GenericOp> reductions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (isRegisterReduction(op))
        reductions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : reductions) {
      // With an epilogue, where the epilogue was: the views it writes may be
      // defined after the reduction (only ops touching no memory are between).
      linalg::GenericOp epilogue = tcc::fusableEpilogue(op);
      rewriter.setInsertionPoint(epilogue ? epilogue.getOperation() : op.getOperation());
      lowerRegisterReduction(rewriter, op, epilogue);
    }
  }
};
} // namespace
