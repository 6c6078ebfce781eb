//===- GpuWarpReductions.cpp - one warp per output of a row reduction -----===//
//
// Without this pass a reduction (softmax's max and sum, layer_norm's mean, a
// matmul that stays a kernel) runs one thread per output element with a
// serial loop over the reduced dims. Here 32 lanes share each output: every
// lane combines a strided slice of the reduced elements, a butterfly of
// gpu.shuffle xor combines the 32 partials, and lane 0 combines the total
// into the output buffer.
//
//===----------------------------------------------------------------------===//
#include "InnermostReduction.h"
#include "ReductionNeighbours.h"
#include "tcc/Transforms/GpuConventions.h"
#include "tcc/Transforms/Passes.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tcc-gpu-warp-reductions"

namespace tcc {
#define GEN_PASS_DEF_GPUWARPREDUCTIONSPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

/// Lanes of a warp; one warp computes one output element.
constexpr int64_t kWarpSize = 32;
static_assert(tcc::kCudaBlockSize % kWarpSize == 0, "a warp's lanes must not straddle two blocks");
/// Outputs enough for a thread each to keep the GPU busy with serial loops.
constexpr int64_t kMinSerialOutputs = 8192;

/// A linalg.generic that one warp per output can compute, and the parts of
/// its body the rewrite uses.
struct WarpReduction {
  linalg::GenericOp op;
  /// The op the body yields: combine(element, acc), in either order.
  Operation *combine;
  /// The output's block argument.
  BlockArgument acc;
  /// combine's other operand: the value one iteration contributes.
  Value element;
  /// combine's neutral element, where each lane's partial starts.
  TypedAttr identity;
  unsigned numParallel;

  /// A copy of `combine` with `acc` → `newAcc` and `element` → `newElement`
  /// (same operand order, same fastmath flags).
  Value combineAt(OpBuilder &b, Value newAcc, Value newElement) const {
    IRMapping map;
    map.map(acc, newAcc);
    map.map(element, newElement);
    return b.clone(*combine, map)->getResult(0);
  }
};

FailureOr<WarpReduction> matchWarpReduction(linalg::GenericOp op) {
  auto reject = [&](const char *why) -> FailureOr<WarpReduction> {
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] kept at " << op.getLoc() << ": " << why << "\n");
    return failure();
  };
  // A nested scf.parallel would be mapped sequential: the shuffles would not
  // run across a warp.
  if (op->getParentOfType<scf::ParallelOp>())
    return reject("inside an scf.parallel");
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1)
    return reject("not exactly one output buffer");
  if (op.hasIndexSemantics())
    return reject("linalg.index in the body");
  OpOperand *init = op.getDpsInitOperand(0);
  // Lane 0 writes once at the end.
  if (const char *why = tcc::whyNotInnermostReduction(op))
    return reject(why);
  Type elementType = getElementTypeOrSelf(init->get().getType());
  // What gpu.shuffle lowers to one shfl.sync.
  if (!elementType.isF32() && !elementType.isInteger(32))
    return reject("output element type not f32 or i32");

  unsigned numParallel = op.getNumParallelLoops();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  // Lanes stride over the reduced elements: worth it where they are
  // side by side in memory. Where every input's innermost dim is a parallel
  // one (a sum over H and W of a channels-last image), side-by-side threads
  // of the serial form read side-by-side elements instead.
  bool lanesContiguous = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.getNumResults() == 0)
      continue;
    auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!last || iterators[last.getPosition()] != utils::IteratorType::parallel)
      lanesContiguous = true;
  }
  SmallVector<int64_t> staticRanges = op.getStaticLoopRanges();
  ArrayRef<int64_t> kept = ArrayRef(staticRanges).take_front(numParallel);
  if (!lanesContiguous && !llvm::is_contained(kept, ShapedType::kDynamic) &&
      computeProduct(kept) >= kMinSerialOutputs)
    return reject("every input's innermost dim is a parallel one (threads read it coalesced)");
  ArrayRef<int64_t> reduced = ArrayRef(staticRanges).drop_front(numParallel);
  // Fewer elements than lanes: the serial loop of one thread is faster.
  if (!llvm::is_contained(reduced, ShapedType::kDynamic) && computeProduct(reduced) < kWarpSize)
    return reject("fewer than 32 reduced elements");

  Block *body = op.getBlock();
  BlockArgument acc = op.getMatchingBlockArgument(init);
  Operation *combine = body->getTerminator()->getOperand(0).getDefiningOp();
  if (!combine || combine->getBlock() != body ||
      !isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
           arith::MinNumFOp, arith::AddIOp, arith::MulIOp, arith::MaxSIOp, arith::MinSIOp>(combine))
    return reject("the body does not yield a supported combine op");
  // Only then is every other op of the body independent of the accumulator,
  // and the combine the last word on it.
  if (!acc.hasOneUse() || !combine->getResult(0).hasOneUse() ||
      !llvm::is_contained(combine->getOperands(), acc))
    return reject("the accumulator is not used exactly once, by the combine op");
  Value element = combine->getOperand(combine->getOperand(0) == acc ? 1 : 0);
  std::optional<TypedAttr> identity = arith::getNeutralElement(combine);
  if (!identity)
    return reject("no neutral element");
  // Upstream's +0.0 would turn a sum of -0.0 into +0.0; -0.0 + x == x for all x.
  if (isa<arith::AddFOp>(combine))
    identity = FloatAttr::get(
        elementType,
        APFloat::getZero(cast<FloatType>(elementType).getFloatSemantics(), /*Negative=*/true));
  return WarpReduction{op, combine, acc, element, *identity, numParallel};
}

/// Replaces `r.op` by `scf.parallel (parallel dims..., lane)`, each lane
/// reducing every 32nd element, a shuffle butterfly and lane 0's store;
/// lane 0 starts from the output's fill and computes its epilogue where
/// they join the kernel (ReductionNeighbours.h).
void rewriteAsWarpReduction(RewriterBase &rewriter, const WarpReduction &r) {
  linalg::GenericOp op = r.op;
  Location loc = op.getLoc();
  linalg::FillOp fill = tcc::foldableFill(op);
  linalg::GenericOp epilogue = tcc::fusableEpilogue(op);
  // With an epilogue, where the epilogue was: the views it writes may be
  // defined after the reduction (only ops touching no memory are between).
  rewriter.setInsertionPoint(epilogue ? epilogue.getOperation() : op.getOperation());
  SmallVector<OpFoldResult> sizes =
      llvm::map_to_vector(cast<linalg::LinalgOp>(*op).createLoopRanges(rewriter, loc),
                          [](const Range &range) { return range.size; });
  ArrayRef<OpFoldResult> parallelSizes = ArrayRef(sizes).take_front(r.numParallel);
  ArrayRef<OpFoldResult> reducedSizes = ArrayRef(sizes).drop_front(r.numParallel);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value warp = arith::ConstantIndexOp::create(rewriter, loc, kWarpSize);
  // The lanes stride over the reduced dims linearized: s0 * s1 * ... elements.
  AffineExpr product = rewriter.getAffineConstantExpr(1);
  for (unsigned i = 0; i < reducedSizes.size(); ++i)
    product = product * rewriter.getAffineSymbolExpr(i);
  Value reducedCount = getValueOrCreateConstantIndexOp(
      rewriter, loc, affine::makeComposedFoldedAffineApply(rewriter, loc, product, reducedSizes));

  // The lane is the innermost dim: after the row-major collapse, 32
  // consecutive threads (one warp) share the parallel indices.
  SmallVector<Value> upper = getValueOrCreateConstantIndexOp(rewriter, loc, parallelSizes);
  upper.push_back(warp);
  SmallVector<Value> lower(upper.size(), zero), steps(upper.size(), one);
  auto loop = scf::ParallelOp::create(rewriter, loc, lower, upper, steps);
  rewriter.setInsertionPoint(loop.getBody()->getTerminator());
  SmallVector<Value> loopIvs = loop.getInductionVars();
  ArrayRef<Value> parallelIvs = ArrayRef(loopIvs).drop_back();
  Value lane = loopIvs.back();

  Value identity = arith::ConstantOp::create(rewriter, loc, r.identity);
  auto strided = scf::ForOp::create(
      rewriter, loc, lane, reducedCount, warp, ValueRange{identity},
      [&](OpBuilder &b, Location loc, Value linear, ValueRange partial) {
        SmallVector<Value> ivs(parallelIvs);
        if (reducedSizes.size() == 1)
          ivs.push_back(linear);
        else
          llvm::append_range(
              ivs,
              affine::AffineDelinearizeIndexOp::create(b, loc, linear, reducedSizes).getResults());
        IRMapping map;
        for (OpOperand *input : op.getDpsInputOperands()) {
          BlockArgument arg = op.getMatchingBlockArgument(input);
          if (arg.use_empty())
            continue;
          if (!isa<MemRefType>(input->get().getType())) {
            map.map(arg, input->get()); // a scalar operand
            continue;
          }
          SmallVector<OpFoldResult> indices = affine::makeComposedFoldedMultiResultAffineApply(
              b, loc, op.getMatchingIndexingMap(input), getAsOpFoldResult(ivs));
          map.map(arg, memref::LoadOp::create(b, loc, input->get(),
                                              getValueOrCreateConstantIndexOp(b, loc, indices)));
        }
        for (Operation &bodyOp : op.getBlock()->without_terminator())
          if (&bodyOp != r.combine)
            b.clone(bodyOp, map);
        Value next = r.combineAt(b, partial.front(), map.lookupOrDefault(r.element));
        scf::YieldOp::create(b, loc, next);
      });

  // After offsets 16, 8, 4, 2, 1 every lane holds the combination of all 32.
  Value total = strided.getResult(0);
  for (int32_t offset = kWarpSize / 2; offset > 0; offset /= 2) {
    auto shuffle =
        gpu::ShuffleOp::create(rewriter, loc, total, offset, kWarpSize, gpu::ShuffleMode::XOR);
    total = r.combineAt(rewriter, total, shuffle.getShuffleResult());
  }

  Value isFirstLane = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, lane, zero);
  auto firstLane = scf::IfOp::create(rewriter, loc, isFirstLane, /*withElseRegion=*/false);
  rewriter.setInsertionPoint(firstLane.thenBlock()->getTerminator());
  Value output = op.getDpsInitOperand(0)->get();
  SmallVector<Value> outputIndices = llvm::map_to_vector(
      op.getMatchingIndexingMap(op.getDpsInitOperand(0)).getResults(),
      [&](AffineExpr e) -> Value { return parallelIvs[cast<AffineDimExpr>(e).getPosition()]; });
  Value initial = fill ? fill.getInputs()[0]
                       : memref::LoadOp::create(rewriter, loc, output, outputIndices).getResult();
  Value result = r.combineAt(rewriter, initial, total);
  memref::StoreOp::create(rewriter, loc, result, output, outputIndices);
  if (epilogue)
    tcc::emitReductionEpilogue(rewriter, epilogue, output, parallelIvs, result);
  rewriter.eraseOp(op);
  if (epilogue)
    rewriter.eraseOp(epilogue);
  if (fill)
    rewriter.eraseOp(fill);
}

struct GpuWarpReductionsPass : tcc::impl::GpuWarpReductionsPassBase<GpuWarpReductionsPass> {
  void runOnOperation() override {
    // Only the CUDA path's functions (tcc-split-targets).
    if (!tcc::isCudaFunction(getOperation()))
      return;
    SmallVector<WarpReduction> reductions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (FailureOr<WarpReduction> r = matchWarpReduction(op); succeeded(r))
        reductions.push_back(*r);
    });
    IRRewriter rewriter(&getContext());
    for (const WarpReduction &r : reductions)
      rewriteAsWarpReduction(rewriter, r);
  }
};

} // namespace
