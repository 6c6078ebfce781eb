//===- FoldConvAffine.cpp - per-channel scale and shift into a convolution ===//
//
// Implements `tcc-fold-conv-affine`. An inference batch norm after a
// convolution is legalized to `conv · scale + shift` with per-channel
// `scale` and `shift` computed from weights only. Folded into the
// convolution, `weight · scale` and `bias · scale + shift` are weight
// arithmetic again (tcc-hoist-weight-expressions computes it once per weight
// binding), and the convolution's epilogue no longer needs a pass over its
// output. The same holds for any per-channel scale or shift by weight
// expressions, batch norm or not.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccGraph/Transforms/Legalizers.h"
#include "dialects/TccGraph/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tcc-fold-conv-affine"

namespace tcc::graph {
#define GEN_PASS_DEF_FOLDCONVAFFINEPASS
#include "dialects/TccGraph/Transforms/Passes.h.inc"
} // namespace tcc::graph

using namespace mlir;
using namespace tcc::graph;

namespace {

/// Whether values depend on weights and constants only (memoized).
class WeightOnly {
public:
  bool operator()(Value v) {
    auto it = known_.find(v);
    if (it != known_.end())
      return it->second;
    known_[v] = false; // no cycles in SSA, but keep the recursion finite
    bool result = compute(v);
    known_[v] = result;
    return result;
  }

private:
  bool compute(Value v) {
    if (isa<BlockArgument>(v))
      return TccGraphDialect::isWeightArgument(v);
    Operation *op = v.getDefiningOp();
    if (isa<ConstantOp>(op))
      return true;
    if (!isa<AddOp, SubOp, MulOp, DivOp, NegOp, RsqrtOp, SqrtOp, ReshapeOp, BroadcastOp>(op))
      return false;
    return llvm::all_of(op->getOperands(), [&](Value o) { return (*this)(o); });
  }

  llvm::DenseMap<Value, bool> known_;
};

/// `v` as a [F] vector when it broadcasts against [N, F, H, W] along the
/// channels only: [F, 1, 1] or [1, F, 1, 1] (what batch norm's reshape
/// gives), or a single element, which is splat to [F].
Value channelVector(OpBuilder &b, Location loc, Value v, int64_t f) {
  auto t = typeOf(v);
  if (!t.hasStaticShape())
    return nullptr;
  ArrayRef<int64_t> s = t.getShape();
  if (t.getNumElements() == 1)
    return BroadcastOp::create(b, loc, RankedTensorType::get({f}, t.getElementType()),
                               makeReshape(b, loc, v, {1}));
  if (t.getNumElements() != f || t.getRank() > 4 || t.getRank() < 3)
    return nullptr;
  // The channel dim is the fourth from the end of [N, F, H, W]: rank 3 → 0, rank 4 → 1.
  int64_t channel = t.getRank() - 3;
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (d != channel && s[d] != 1)
      return nullptr;
  return makeReshape(b, loc, v, {f});
}

/// The other operand of binary `op` when one of them is `v`.
Value otherOperand(Operation *op, Value v) {
  if (op->getNumOperands() != 2)
    return nullptr;
  if (op->getOperand(0) == v)
    return op->getOperand(1);
  if (op->getOperand(1) == v)
    return op->getOperand(0);
  return nullptr;
}

/// Folds the chain of per-channel muls and adds by weight expressions that
/// follows `conv` (each the single user of the previous value) into its
/// weight and bias. Returns whether anything was folded.
bool foldInto(Conv2dOp conv, WeightOnly &weightOnly) {
  RankedTensorType yt = typeOf(conv.getResult());
  auto wt = typeOf(conv.getWeight());
  if (yt.getRank() != 4 || !wt.hasStaticShape())
    return false;
  int64_t f = wt.getDimSize(0);
  Value weight = conv.getWeight(), bias = conv.getBias();
  Value current = conv.getResult();
  SmallVector<Operation *> absorbed;
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  while (current.hasOneUse()) {
    Operation *user = *current.getUsers().begin();
    if (!isa<MulOp, AddOp, SubOp>(user) || typeOf(user->getResult(0)) != yt)
      break;
    Value other = otherOperand(user, current);
    // x - c only (c - x would negate the product).
    if (!other || other == current || !weightOnly(other) ||
        (isa<SubOp>(user) && user->getOperand(1) != other))
      break;
    b.setInsertionPoint(user);
    Value c = channelVector(b, user->getLoc(), other, f);
    if (!c)
      break;
    if (isa<MulOp>(user)) {
      // conv(x, w)·c + b·c = conv(x, w·c) + b·c
      weight = makeBinary<MulOp>(b, loc, weight, makeReshape(b, loc, c, {f, 1, 1, 1}));
      if (bias)
        bias = makeBinary<MulOp>(b, loc, bias, c);
    } else if (isa<AddOp>(user)) {
      bias = bias ? makeBinary<AddOp>(b, loc, bias, c) : c;
    } else {
      bias = bias ? makeBinary<SubOp>(b, loc, bias, c) : NegOp::create(b, loc, typeOf(c), c).getResult();
    }
    absorbed.push_back(user);
    current = user->getResult(0);
  }
  if (absorbed.empty())
    return false;
  b.setInsertionPoint(absorbed.back());
  auto folded = Conv2dOp::create(b, conv.getLoc(), yt, conv.getInput(), weight, bias,
                                 conv.getStrideAttr(), conv.getPaddingAttr(),
                                 conv.getDilationAttr(), conv.getGroupsAttr());
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << absorbed.size()
                          << " per-channel ops into the convolution at " << conv.getLoc() << "\n");
  current.replaceAllUsesWith(folded.getResult());
  for (Operation *op : llvm::reverse(absorbed))
    op->erase();
  conv.erase();
  return true;
}

struct FoldConvAffinePass : tcc::graph::impl::FoldConvAffinePassBase<FoldConvAffinePass> {
  using FoldConvAffinePassBase::FoldConvAffinePassBase;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      WeightOnly weightOnly;
      SmallVector<Conv2dOp> convs;
      func.walk([&](Conv2dOp op) { convs.push_back(op); });
      for (Conv2dOp conv : convs)
        foldInto(conv, weightOnly);
    }
  }
};

} // namespace
