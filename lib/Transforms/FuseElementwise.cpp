//===- FuseElementwise.cpp - elementwise fusion that spares contractions --===//
//
// Upstream's linalg-fuse-elementwise-ops pattern set with a control function
// that keeps computing producers out of broadcast operands of contractions
// (see Passes.td).
//
//===----------------------------------------------------------------------===//
#include "tcc/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "tcc-fuse-elementwise"

namespace tcc {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

/// Whether the generic's body does arithmetic (not just yield its inputs).
bool computes(linalg::GenericOp op) {
  for (Operation &inner : op.getRegion().front().without_terminator())
    if (!inner.hasTrait<OpTrait::ConstantLike>())
      return true;
  return false;
}

bool shouldFuse(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
  auto generic = dyn_cast_or_null<linalg::GenericOp>(producer);
  // Upstream's default fuses single-use producers only. A producer that only
  // moves data (a transpose, a broadcast) costs nothing to read through in
  // each consumer, which saves writing and reading its result.
  if (!producer || (!producer->hasOneUse() && !(generic && !computes(generic))))
    return false;
  if (!consumer || !generic || consumer.getNumReductionLoops() == 0 || !computes(generic))
    return true;
  // A computed operand is fine where each of its elements is read once.
  AffineMap map = consumer.getMatchingIndexingMap(fused);
  for (unsigned d = 0; d < consumer.getNumLoops(); ++d)
    if (!map.isFunctionOfDim(d))
      return false;
  return true;
}

/// Whether `op`, a collapse_shape or expand_shape, merges several symbolic
/// dims into one. Folded by expansion, it would put an expand_shape with such
/// a group on the generic's other operands, which upstream
/// expand-strided-metadata crashes on (a masked_scatter over a tensor of
/// symbolic shape, flattened for its running count).
bool mergesSymbolicDims(Operation *op) {
  auto merges = [](RankedTensorType expanded, ArrayRef<ReassociationIndices> groups) {
    return llvm::any_of(groups, [&](const ReassociationIndices &group) {
      return llvm::count_if(group, [&](int64_t d) { return expanded.isDynamicDim(d); }) > 1;
    });
  };
  if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(op))
    return merges(collapse.getSrcType(), collapse.getReassociationIndices());
  if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(op))
    return merges(expand.getResultType(), expand.getReassociationIndices());
  return false;
}

/// shouldFuse, for folding a reshape into a generic by expanding the
/// generic: never a reshape that merges symbolic dims.
bool shouldFoldReshape(OpOperand *fused) {
  if (mergesSymbolicDims(fused->get().getDefiningOp()) || mergesSymbolicDims(fused->getOwner()))
    return false;
  return shouldFuse(fused);
}

/// A generic nobody reads whose only side effects are run-time checks
/// (cf.assert, as gathers carry): once fused into its consumers, which carry
/// the checks along, it is dead, but the asserts keep it from being erased
/// as trivially dead, and it would still run as a kernel of its own.
struct EraseUnreadCheckedGeneric : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op, PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || !op->use_empty())
      return failure();
    bool onlyChecks = true;
    op.getRegion().walk([&](Operation *inner) {
      if (!isa<cf::AssertOp>(inner) && !isMemoryEffectFree(inner))
        onlyChecks = false;
    });
    if (!onlyChecks)
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct FuseElementwisePass : tcc::impl::FuseElementwisePassBase<FuseElementwisePass> {
  void runOnOperation() override {
    Operation *op = getOperation();
    MLIRContext *context = op->getContext();
    RewritePatternSet patterns(context);
    linalg::ControlFusionFn control = shouldFuse;
    // As upstream's LinalgElementwiseOpFusionPass, with `control`.
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, shouldFoldReshape);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    patterns.add<EraseUnreadCheckedGeneric>(context);
    (void)applyPatternsGreedily(op, std::move(patterns),
                                GreedyRewriteConfig().setUseTopDownTraversal(true));
  }
};

} // namespace
