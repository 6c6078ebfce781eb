//===- SimplifyAttentionMasks.cpp - masks known at compile time -----------===//
//
// Implements `tcc-simplify-attention-masks` (Passes.td says what and why).
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccGraph/Transforms/ConstantEvaluator.h"
#include "dialects/TccGraph/Transforms/Passes.h"
#include "dialects/TccGraph/Transforms/SimplifyAttentionMasks.h"

#include "mlir/IR/Builders.h"

#include "llvm/Support/Debug.h"

#include <cmath>

#define DEBUG_TYPE "tcc-simplify-attention-masks"

namespace tcc::graph {
#define GEN_PASS_DEF_SIMPLIFYATTENTIONMASKSPASS
#include "dialects/TccGraph/Transforms/Passes.h.inc"
} // namespace tcc::graph

using namespace mlir;
using namespace tcc::graph;

namespace {

/// An added mask value at or below this hides its key as -inf does: a row
/// that keeps at least one key (every causal row keeps its diagonal) gives
/// the hidden ones exp(-1e30 - max) = 0.
constexpr double kHidden = -1e30;

/// What a known mask does to a [L, S] score matrix.
enum class MaskKind { KeepsAll, Causal, Other };

MaskKind classify(const KnownTensor &mask, int64_t l, int64_t s) {
  // The mask's last two dims against [L, S] (a missing or size-1 dim
  // broadcasts); every leading position must agree.
  std::vector<int64_t> shape = mask.shape;
  while (shape.size() < 2)
    shape.insert(shape.begin(), 1);
  int64_t rows = shape[shape.size() - 2], cols = shape.back();
  if ((rows != 1 && rows != l) || (cols != 1 && cols != s))
    return MaskKind::Other;
  int64_t matrices = mask.numElements() / (rows * cols);
  bool all = true, causal = true;
  for (int64_t m = 0; m < matrices && (all || causal); ++m)
    for (int64_t i = 0; i < l && (all || causal); ++i)
      for (int64_t j = 0; j < s; ++j) {
        int64_t at = (m * rows + (rows == 1 ? 0 : i)) * cols + (cols == 1 ? 0 : j);
        bool keeps, hides;
        if (mask.isFloat()) {
          double v = mask.floats[at];
          keeps = v == 0.0;
          hides = v <= kHidden; // -inf too; NaN neither
        } else {
          keeps = mask.ints[at] != 0;
          hides = !keeps;
        }
        all &= keeps;
        causal &= j <= i ? keeps : hides;
        if (!all && !causal)
          break;
      }
  if (all)
    return MaskKind::KeepsAll;
  return causal ? MaskKind::Causal : MaskKind::Other;
}

struct SimplifyAttentionMasksPass
    : public tcc::graph::impl::SimplifyAttentionMasksPassBase<SimplifyAttentionMasksPass> {
  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation().walk([&](AttentionOp op) { ops.push_back(op); });
    simplifyKnownAttentionMasks(ops);
  }
};

} // namespace

void tcc::graph::simplifyKnownAttentionMasks(ArrayRef<AttentionOp> ops) {
  ConstantEvaluator evaluator;
  for (AttentionOp op : ops) {
    if (!op.getMask())
      continue;
    auto qt = cast<RankedTensorType>(op.getQuery().getType());
    auto kt = cast<RankedTensorType>(op.getKey().getType());
    int64_t l = qt.getShape()[qt.getRank() - 2], s = kt.getShape()[kt.getRank() - 2];
    if (ShapedType::isDynamic(l) || ShapedType::isDynamic(s))
      continue;
    const KnownTensor *mask = evaluator.evaluate(op.getMask());
    if (!mask)
      continue;
    MaskKind kind = classify(*mask, l, s);
    if (kind == MaskKind::Other)
      continue;
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] attention at " << op.getLoc() << ": mask "
                            << (kind == MaskKind::Causal ? "is causal" : "keeps all")
                            << "\n");
    OpBuilder b(op);
    bool causal = op.getCausal() || kind == MaskKind::Causal;
    auto simpler = AttentionOp::create(b, op.getLoc(), op.getType(), op.getQuery(), op.getKey(),
                                       op.getValue(), Value(), op.getScaleAttr(),
                                       causal ? b.getUnitAttr() : nullptr);
    op.getResult().replaceAllUsesWith(simpler.getResult());
    op->erase();
  }
}
