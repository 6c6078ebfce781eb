//===- ReductionNeighbours.cpp - the fill and epilogue a reduction takes in -===//
#include "ReductionNeighbours.h"

#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

using namespace mlir;

namespace {
/// How far (in ops) the fill before a reduction is looked for.
constexpr int kFillLookBack = 32;

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

} // namespace

/// The fill of `op`'s output that its accumulators can start from: the last
/// fill of exactly that buffer before it, with no op in between that may
/// touch the buffer's bytes; or null.
linalg::FillOp tcc::foldableFill(linalg::GenericOp op) {
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
static std::optional<SmallVector<int64_t>> staticLeadingRanges(linalg::GenericOp op, unsigned n) {
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
linalg::GenericOp tcc::fusableEpilogue(linalg::GenericOp op) {
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

void tcc::emitReductionEpilogue(OpBuilder &b, linalg::GenericOp epilogue, Value out,
                                ValueRange parallelIvs, Value total) {
  Location loc = epilogue.getLoc();
  // map's results at the parallel ivs (the exprs use no other dim).
  auto indices = [&](AffineMap map) {
    SmallVector<Value> at;
    for (AffineExpr e : map.getResults())
      at.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(parallelIvs.size(), 0, e, b.getContext()), parallelIvs));
    return at;
  };
  IRMapping map;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    Value v = input->get();
    if (v == out)
      v = total;
    else if (isa<MemRefType>(v.getType()))
      v = memref::LoadOp::create(b, loc, v, indices(epilogue.getMatchingIndexingMap(input)));
    map.map(epilogue.getMatchingBlockArgument(input), v);
  }
  OpOperand *result = epilogue.getDpsInitOperand(0);
  SmallVector<Value> at = indices(epilogue.getMatchingIndexingMap(result));
  BlockArgument resultArg = epilogue.getMatchingBlockArgument(result);
  if (!resultArg.use_empty())
    map.map(resultArg, result->get() == out
                           ? total
                           : memref::LoadOp::create(b, loc, result->get(), at).getResult());
  Block &body = epilogue.getRegion().front();
  for (Operation &inner : body.without_terminator())
    b.clone(inner, map);
  memref::StoreOp::create(b, loc, map.lookupOrDefault(body.getTerminator()->getOperand(0)),
                          result->get(), at);
}
