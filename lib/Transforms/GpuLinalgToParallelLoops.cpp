//===- GpuLinalgToParallelLoops.cpp - the CUDA path's linalg as scf loops -===//
//
// Implements `tcc-gpu-linalg-to-parallel-loops`: upstream's
// convert-linalg-to-parallel-loops, restricted to the CUDA path's functions
// (tcc-split-targets), whose parallel loops become grids; the CPU path's
// linalg ops stay for its own lowering. A reduction (one output, its
// reduced dims innermost) accumulates in a register instead: upstream's
// loops load and store the output at every term, and the GPU, which cannot
// tell the output from the inputs, stored it to memory each time. Its
// initial value is the constant of a linalg.fill of the output right before
// it, which is then not a kernel of its own.
//
//===----------------------------------------------------------------------===//
#include "InnermostReduction.h"
#include "tcc/Transforms/Passes.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
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
/// `op` (one output; its parallel dims, then its reduced ones; the output
/// indexed by exactly the parallel dims) as scf.parallel over the parallel
/// dims around scf.for loops over the reduced ones that carry the
/// accumulator; one store at the end. Fails (nothing changed) for any other.
/// Whether lowerRegisterReduction takes `op`.
bool isRegisterReduction(linalg::GenericOp op) {
  return op.hasPureBufferSemantics() && op.getNumDpsInits() == 1 && !op.hasIndexSemantics() &&
         op.getNumParallelLoops() > 0 && !tcc::whyNotInnermostReduction(op);
}

/// The fill of `op`'s output right before it, whose value the accumulators
/// start from, or null.
linalg::FillOp foldableFill(linalg::GenericOp op) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
  Value out = op.getDpsInitOperand(0)->get();
  if (fill && fill.hasPureBufferSemantics() && fill.getOutputs()[0] == out &&
      fill.getInputs()[0].getType() == getElementTypeOrSelf(out.getType()))
    return fill;
  return nullptr;
}

/// `op` (isRegisterReduction) as scf.parallel over the parallel dims around
/// scf.for loops over the reduced ones that carry the accumulator; one store
/// at the end.
void lowerRegisterReduction(IRRewriter &rewriter, linalg::GenericOp op) {
  unsigned numLoops = op.getNumLoops(), numParallel = op.getNumParallelLoops();
  OpOperand *init = op.getDpsInitOperand(0);
  Value out = init->get();
  AffineMap outMap = op.getMatchingIndexingMap(init);
  Block &body = op.getRegion().front();
  Location loc = op.getLoc();
  // A fill of the output right before: its value is where each output starts.
  linalg::FillOp fill = foldableFill(op);
  Value start = fill ? fill.getInputs()[0] : Value();

  SmallVector<Range, 4> ranges = cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(rewriter, loc);
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
        v = memref::LoadOp::create(b, loc, v,
                                   indices(b, op.getMatchingIndexingMap(input), ivs));
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
                            SmallVector<Value> at =
                                indices(b, outMap, ValueRange(ivs).take_front(numParallel));
                            Value first = start ? start : memref::LoadOp::create(b, l, out, at);
                            Value total = loops(b, numParallel, first);
                            memref::StoreOp::create(b, l, total, out, at);
                          });
  rewriter.eraseOp(op);
  if (fill)
    rewriter.eraseOp(fill);
}

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
      // A fill that the reduction after it starts from goes with it.
      if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation())) {
        auto next = dyn_cast_or_null<linalg::GenericOp>(fill->getNextNode());
        if (next && isRegisterReduction(next) && foldableFill(next) == fill)
          continue;
      }
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
          generic && isRegisterReduction(generic)) {
        lowerRegisterReduction(rewriter, generic);
        continue;
      }
      if (failed(linalg::linalgOpToParallelLoops(rewriter, op))) {
        op.emitOpError("cannot be lowered to parallel loops");
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
    }
  }
};
} // namespace
