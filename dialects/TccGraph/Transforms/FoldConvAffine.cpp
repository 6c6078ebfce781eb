//===- FoldConvAffine.cpp - per-channel scale and shift into a convolution ===//
//
// Implements `tcc-fold-conv-affine`. An inference batch norm after a
// convolution is legalized to `conv · scale + shift` with per-channel
// `scale` and `shift` computed from weights only. Folded into the
// convolution, `weight · scale` and `bias · scale + shift` are weight
// arithmetic again (tcc-hoist-weight-expressions computes it once per weight
// binding), and the convolution's epilogue no longer needs a pass over its
// output. The same holds for any per-channel scale or shift by weight
// expressions, batch norm or not. A per-column scale of a product by a
// weight (ConvNeXt's layer scale) folds into the weight's columns likewise.
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
    if (!isa<AddOp, SubOp, MulOp, DivOp, NegOp, RsqrtOp, SqrtOp, ReshapeOp, BroadcastOp,
             TransposeOp>(op))
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

/// `v` as an [N] vector when it broadcasts against a tensor of `rank` along
/// dim `dim` only (aligned right: [N, 1, 1] against dim 1 of a rank-4
/// tensor), or null.
Value alongDim(OpBuilder &b, Location loc, Value v, int64_t rank, int64_t dim, int64_t n) {
  auto t = typeOf(v);
  if (!t.hasStaticShape() || t.getRank() > rank || t.getNumElements() != n)
    return nullptr;
  int64_t at = dim - (rank - t.getRank());
  if (at < 0)
    return nullptr;
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (d != at && t.getDimSize(d) != 1)
      return nullptr;
  return makeReshape(b, loc, v, {n});
}

/// A per-column scale of a product by weights: `x · w (+ b)`, seen through
/// one transpose, times a weight expression that varies along the product's
/// columns only (ConvNeXt's layer scale after its second linear layer, the
/// result permuted back to NCHW) becomes `x · (w · s) (+ b · s)`: weight
/// arithmetic again, and the add after it (the residual) then follows the
/// product (through the transpose), as the GEMM's epilogue takes it.
/// Returns whether it folded.
bool foldInto(MatmulOp matmul, WeightOnly &weightOnly) {
  Value w = matmul.getRhs();
  auto wt = typeOf(w);
  RankedTensorType yt = typeOf(matmul.getResult());
  if (wt.getRank() != 2 || !wt.hasStaticShape() || !weightOnly(w) || yt.getRank() < 2)
    return false;
  int64_t n = wt.getDimSize(1), rank = yt.getRank();
  Value current = matmul.getResult();
  AddOp biasAdd;
  Value bias;
  if (current.hasOneUse())
    if (auto add = dyn_cast<AddOp>(*current.getUsers().begin())) {
      Value other = otherOperand(add, current);
      auto ot = other ? typeOf(other) : RankedTensorType();
      if (other && other != current && weightOnly(other) && typeOf(add.getResult()) == yt &&
          ot.hasStaticShape() && ot.getNumElements() == n && ot.getShape().back() == n) {
        biasAdd = add;
        bias = other;
        current = add.getResult();
      }
    }
  // Where the columns are after an optional transpose.
  int64_t columns = rank - 1;
  TransposeOp transpose;
  if (current.hasOneUse())
    if (auto t = dyn_cast<TransposeOp>(*current.getUsers().begin())) {
      transpose = t;
      ArrayRef<int64_t> perm = t.getPermutation();
      columns = std::find(perm.begin(), perm.end(), rank - 1) - perm.begin();
      current = t.getResult();
    }
  if (!current.hasOneUse())
    return false;
  auto mul = dyn_cast<MulOp>(*current.getUsers().begin());
  if (!mul || typeOf(mul.getResult()) != typeOf(current))
    return false;
  Value other = otherOperand(mul, current);
  if (!other || other == current || !weightOnly(other))
    return false;
  // The scale is computed where the product was: it must exist there.
  if (Operation *def = other.getDefiningOp();
      def && (def->getBlock() != matmul->getBlock() || !def->isBeforeInBlock(matmul)))
    return false;
  OpBuilder b(matmul);
  Location loc = mul.getLoc();
  Value scale = alongDim(b, loc, other, rank, columns, n);
  if (!scale)
    return false;
  // x · w · s = x · (w · s[None, :]); (x · w + b) · s = x · (w · s) + b · s.
  Value scaledW = makeBinary<MulOp>(b, loc, w, makeReshape(b, loc, scale, {1, n}));
  Value folded = MatmulOp::create(b, matmul.getLoc(), yt, matmul.getLhs(), scaledW).getResult();
  if (biasAdd) {
    b.setInsertionPoint(biasAdd);
    Value scaledBias = makeBinary<MulOp>(b, loc, makeReshape(b, loc, bias, {n}), scale);
    folded = AddOp::create(b, biasAdd.getLoc(), yt, folded, scaledBias).getResult();
  }
  if (transpose) {
    b.setInsertionPoint(transpose);
    folded = TransposeOp::create(b, transpose.getLoc(), typeOf(transpose.getResult()), folded,
                                 transpose.getPermutationAttr())
                 .getResult();
  }
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] a per-column scale into the product at "
                          << matmul.getLoc() << "\n");
  mul.getResult().replaceAllUsesWith(folded);
  mul.erase();
  if (transpose)
    transpose.erase();
  if (biasAdd)
    biasAdd.erase();
  matmul.erase();
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
      SmallVector<MatmulOp> matmuls;
      func.walk([&](MatmulOp op) { matmuls.push_back(op); });
      for (MatmulOp matmul : matmuls)
        foldInto(matmul, weightOnly);
    }
  }
};

} // namespace
