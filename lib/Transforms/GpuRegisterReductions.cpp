//===- GpuRegisterReductions.cpp - reductions in registers, one kernel each -===//
//
// Implements `tcc-gpu-register-reductions`: on the CUDA path, a reduction
// (one output, its reduced dims innermost) becomes scf.parallel over its
// parallel dims around scf.for loops over the reduced ones that carry the
// accumulator in a register, one store per output at the end (upstream's
// loops load and store the output at every term, and the GPU, which cannot
// tell the output from the inputs, stored it to memory each time).
//
// Two neighbours join the same kernel:
// - the linalg.fill of the output before it (kernels in between touching
//   none of the output's bytes): the fill's value is where each accumulator
//   starts, the fill no kernel of its own;
// - a pointwise generic right after it over the same parallel dims that
//   reads the output element by element (a mean's division, a cast back to
//   bf16): computed from the register and stored in the same thread.
// A blocked mean over H and W (three partial sums, their fills, a division)
// goes from seven kernels to three.
//
//===----------------------------------------------------------------------===//
#include "InnermostReduction.h"
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
/// How far (in ops) the fill before a reduction is looked for.
constexpr int kFillLookBack = 32;

/// Whether lowerRegisterReduction takes `op`: one output, its parallel dims,
/// then its reduced ones; the output indexed by exactly the parallel dims.
bool isRegisterReduction(linalg::GenericOp op) {
  return op.hasPureBufferSemantics() && op.getNumDpsInits() == 1 && !op.hasIndexSemantics() &&
         op.getNumParallelLoops() > 0 && !tcc::whyNotInnermostReduction(op);
}

/// Whether `op` neither reads nor writes memory: views, constants, index
/// arithmetic, and the profile marks between kernels.
bool touchesNoMemory(Operation *op) {
  if (auto call = dyn_cast<func::CallOp>(op))
    return call.getCallee() == tcc::kProfileMarkFunction;
  return isMemoryEffectFree(op);
}

/// The buffers `op` uses, in its operands and inside its regions.
SmallVector<Value> buffersUsedBy(Operation *op) {
  SmallVector<Value> buffers;
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (isa<BaseMemRefType>(v.getType()) && !op->isAncestor(v.getParentBlock()->getParentOp()))
        buffers.push_back(v);
  });
  return buffers;
}

/// Whether `op` may read or write a byte of `buffer`. Only ops that reach
/// memory through memref operands are looked into: a call (a library
/// kernel, given raw pointers) or an LLVM op may touch anything.
bool mayTouch(Operation *op, Value buffer) {
  if (touchesNoMemory(op))
    return false;
  WalkResult opaque = op->walk([](Operation *inner) {
    bool pointers = isa<CallOpInterface>(inner) ||
                    inner->getDialect()->getNamespace() == "llvm";
    return pointers && !touchesNoMemory(inner) ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (opaque.wasInterrupted())
    return true;
  SmallVector<Value> used = buffersUsedBy(op);
  return used.empty() ||
         llvm::any_of(used, [&](Value v) { return tcc::mayShareBytes(v, buffer); });
}

/// The fill of `op`'s output that its accumulators can start from: the last
/// fill of exactly that buffer before it, with no op in between that may
/// touch the buffer's bytes; or null.
linalg::FillOp foldableFill(linalg::GenericOp op) {
  Value out = op.getDpsInitOperand(0)->get();
  Operation *prev = op->getPrevNode();
  for (int i = 0; prev && i < kFillLookBack; prev = prev->getPrevNode(), ++i) {
    auto fill = dyn_cast<linalg::FillOp>(prev);
    if (fill && fill.hasPureBufferSemantics() && fill.getOutputs()[0] == out)
      return fill.getInputs()[0].getType() == getElementTypeOrSelf(out.getType()) ? fill
                                                                                  : nullptr;
    if (mayTouch(prev, out))
      return nullptr;
  }
  return nullptr;
}

/// The parallel dims' static sizes of `op`'s loops (the first `n`), or none.
std::optional<SmallVector<int64_t>> staticLeadingRanges(linalg::GenericOp op, unsigned n) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.size() < n)
    return std::nullopt;
  ranges.resize(n);
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  return ranges;
}

/// A pointwise generic right after `op` (past ops touching no memory) that
/// can run in `op`'s threads: the same parallel dims, reading `op`'s output
/// only element by element as `op` writes it, writing no byte that `op`'s
/// other threads still read; or null.
linalg::GenericOp fusableEpilogue(linalg::GenericOp op) {
  Operation *next = op->getNextNode();
  while (next && touchesNoMemory(next))
    next = next->getNextNode();
  auto epilogue = dyn_cast_or_null<linalg::GenericOp>(next);
  // (Its body is cloned outside any linalg op: no linalg.index in it.)
  if (!epilogue || !epilogue.hasPureBufferSemantics() || epilogue.getNumDpsInits() != 1 ||
      epilogue.getNumLoops() != epilogue.getNumParallelLoops() || epilogue.hasIndexSemantics())
    return nullptr;
  unsigned numParallel = op.getNumParallelLoops();
  auto ours = staticLeadingRanges(op, numParallel);
  auto theirs = staticLeadingRanges(epilogue, epilogue.getNumLoops());
  if (!ours || !theirs || *ours != *theirs)
    return nullptr;
  OpOperand *init = op.getDpsInitOperand(0);
  Value out = init->get();
  AffineMap outMap = op.getMatchingIndexingMap(init);
  AffineMap elementwise =
      AffineMap::get(numParallel, 0, outMap.getResults(), op.getContext());
  bool readsOut = false;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    Value v = input->get();
    if (v == out) {
      if (epilogue.getMatchingIndexingMap(input) != elementwise)
        return nullptr;
      readsOut = true;
    } else if (isa<BaseMemRefType>(v.getType()) && tcc::mayShareBytes(v, out)) {
      return nullptr;
    }
  }
  // Nested reads (a gather in the body) are not followed.
  for (Operation &inner : epilogue.getRegion().front())
    if (inner.getNumRegions() || isa<memref::LoadOp, memref::StoreOp>(inner))
      return nullptr;
  OpOperand *result = epilogue.getDpsInitOperand(0);
  Value written = result->get();
  if (written == out) {
    if (epilogue.getMatchingIndexingMap(result) != elementwise)
      return nullptr;
  } else if (tcc::mayShareBytes(written, out)) {
    return nullptr;
  }
  for (Value input : op.getDpsInputs())
    if (isa<BaseMemRefType>(input.getType()) && tcc::mayShareBytes(written, input))
      return nullptr;
  return readsOut ? epilogue : nullptr;
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
  linalg::FillOp fill = foldableFill(op);
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
  // The epilogue's body at the parallel ivs, its reads of `out` the total.
  auto finish = [&](OpBuilder &b, ValueRange parallelIvs, Value total) {
    IRMapping map;
    Location l = epilogue.getLoc();
    for (OpOperand *input : epilogue.getDpsInputOperands()) {
      Value v = input->get();
      if (v == out)
        v = total;
      else if (isa<MemRefType>(v.getType()))
        v = memref::LoadOp::create(b, l, v,
                                   indices(b, epilogue.getMatchingIndexingMap(input), parallelIvs));
      map.map(epilogue.getMatchingBlockArgument(input), v);
    }
    OpOperand *result = epilogue.getDpsInitOperand(0);
    SmallVector<Value> at = indices(b, epilogue.getMatchingIndexingMap(result), parallelIvs);
    BlockArgument resultArg = epilogue.getMatchingBlockArgument(result);
    if (!resultArg.use_empty())
      map.map(resultArg, result->get() == out
                             ? total
                             : memref::LoadOp::create(b, l, result->get(), at).getResult());
    Block &epilogueBody = epilogue.getRegion().front();
    for (Operation &inner : epilogueBody.without_terminator())
      b.clone(inner, map);
    memref::StoreOp::create(b, l, map.lookupOrDefault(epilogueBody.getTerminator()->getOperand(0)),
                            result->get(), at);
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
                              finish(b, parallelIvs, total);
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
      linalg::GenericOp epilogue = fusableEpilogue(op);
      rewriter.setInsertionPoint(epilogue ? epilogue.getOperation() : op.getOperation());
      lowerRegisterReduction(rewriter, op, epilogue);
    }
  }
};
} // namespace
