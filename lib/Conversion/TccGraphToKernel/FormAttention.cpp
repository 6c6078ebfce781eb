//===- FormAttention.cpp - attention into tcc_kernel.attention ------------===//
//
// tcc_graph.attention becomes one fused kernel when its element type and head
// size are ones the kernels have (AttentionKernels.h); otherwise it is
// decomposed here, so that its products still become GEMMs. Folded in:
//   - `transpose(x, [0, 2, 1, 3])` of the query, key or value, and of the
//     result when that is its only use: the kernel reads and writes
//     [B, L, H, D] directly (`bshd`), so the per-head views of a linear
//     layer's output are never copied;
//   - the repeat of key/value heads of grouped-query attention written out
//     (x[:, :, None].expand(B, Hkv, n, S, D).reshape(B, Hkv·n, S, D), as
//     transformers' repeat_kv): the kernel shares each key/value head among
//     its query heads instead;
//   - a broadcast of the mask: the kernel broadcasts with stride 0.
// Attention written out (q·kᵀ, a constant scale, a bool mask through
// masked_fill/where or an added float mask, softmax, ·v, as older
// transformers code does) is first raised to tcc_graph.attention, so it forms
// the same kernel. One difference: a query whose keys are all masked gets 0
// from the kernel where the written-out softmax gives NaN.
//
//===----------------------------------------------------------------------===//
#include "FormKernels.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccGraph/Transforms/Decompositions.h"
#include "dialects/TccKernel/IR/TccKernelOps.h"
#include "tcc/Runtime/AttentionKernels.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/SetVector.h"
#include <cmath>
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tcc-form-kernels"

using namespace mlir;
using namespace tcc::formation;
namespace graph = tcc::graph;
namespace kernel = tcc::kernel;

namespace {

constexpr int64_t kSwapSeqHeads[] = {0, 2, 1, 3};

/// x0 when `v` is reshape(broadcast(reshape(x0))) repeating each head of
/// x0 [B, Hkv, S, D] n times into [B, Hkv·n, S, D]; else null.
Value repeatedHeads(Value v) {
  auto merge = v.getDefiningOp<graph::ReshapeOp>();
  auto expand = merge ? merge.getInput().getDefiningOp<graph::BroadcastOp>() : nullptr;
  auto split = expand ? expand.getInput().getDefiningOp<graph::ReshapeOp>() : nullptr;
  if (!split)
    return nullptr;
  Value x0 = split.getInput();
  auto s0 = typeOf(x0).getShape(), s1 = typeOf(split.getResult()).getShape(),
       s2 = typeOf(expand.getResult()).getShape(), s3 = typeOf(v).getShape();
  if (s0.size() != 4 || s1.size() != 5 || s2.size() != 5 || s3.size() != 4)
    return nullptr;
  bool static5 = !ShapedType::isDynamic(s2[1]) && !ShapedType::isDynamic(s2[2]);
  if (!static5 || s1[2] != 1 || s1[0] != s0[0] || s1[1] != s0[1] || s1[3] != s0[2] ||
      s1[4] != s0[3] || s2[0] != s0[0] || s2[1] != s0[1] || s2[3] != s0[2] ||
      s2[4] != s0[3] || s3[0] != s0[0] || s3[1] != s2[1] * s2[2] || s3[2] != s0[2] ||
      s3[3] != s0[3])
    return nullptr;
  return x0;
}

void formAttention(graph::AttentionOp op) {
  auto qt = typeOf(op.getQuery());
  if (qt.getRank() != 4 || !kernelElementType(qt.getElementType()) ||
      !tcc::attentionKernelSupports(qt.getShape()[3], typeOf(op.getValue()).getShape()[3]) ||
      (op.getMask() && typeOf(op.getMask()).getRank() > 4)) {
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] attention at " << op.getLoc()
                            << " decomposed (rank, type or head size)\n");
    graph::decomposeWholeOp(op);
    return;
  }
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue(), mask = op.getMask();
  // Grouped-query heads written out as a repeat: share the heads instead.
  if (Value k0 = repeatedHeads(k))
    if (Value v0 = repeatedHeads(v))
      if (typeOf(k0).getShape()[1] == typeOf(v0).getShape()[1]) {
        k = k0;
        v = v0;
      }
  SmallVector<bool> bshd(4, false);
  for (auto [i, x] : llvm::enumerate(SmallVector<Value *>{&q, &k, &v}))
    if (Value t = transposeInput(*x, kSwapSeqHeads)) {
      *x = t;
      bshd[i] = true;
    }
  if (mask)
    if (auto broadcast = mask.getDefiningOp<graph::BroadcastOp>())
      mask = broadcast.getInput();
  Value replaced = op.getResult();
  if (op.getResult().hasOneUse())
    if (auto t = dyn_cast<graph::TransposeOp>(*op.getResult().getUsers().begin());
        t && t.getPermutation() == ArrayRef<int64_t>(kSwapSeqHeads)) {
      replaced = t.getResult();
      bshd[3] = true;
    }

  OpBuilder b(replaced.getDefiningOp());
  SmallVector<Operation *> fused = {op.getOperation()};
  if (replaced != op.getResult())
    fused.push_back(replaced.getDefiningOp());
  Location loc = kernelLocation(fused);
  RankedTensorType resultType = typeOf(replaced);
  // Dynamic dims: B, H and L come from the query (in its own layout).
  auto dynamicSize = [&](int64_t d) -> Value {
    int64_t canonical = bshd[3] && (d == 1 || d == 2) ? 3 - d : d; // dim in [B, H, L, D]
    int64_t inQuery = bshd[0] && (canonical == 1 || canonical == 2) ? 3 - canonical : canonical;
    return tensor::DimOp::create(b, loc, q, inQuery);
  };
  Value init = emptyTensor(b, loc, resultType, dynamicSize);
  auto attention = kernel::AttentionOp::create(
      b, loc, TypeRange{resultType}, q, k, v, mask, init, op.getScaleAttr(),
      op.getCausal() ? b.getUnitAttr() : nullptr, b.getDenseBoolArrayAttr(bshd));
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] attention at " << loc << "\n");
  replaced.replaceAllUsesWith(attention.getResult(0));
  SmallVector<Value> operands = {op.getQuery(), op.getKey(), op.getValue(), op.getMask()};
  SmallVector<Operation *> dead = {op.getOperation()};
  if (replaced != op.getResult())
    dead.push_back(replaced.getDefiningOp());
  eraseDead(dead);
  // Views of the operands that only the attention read, producers first.
  llvm::SetVector<Operation *> views;
  for (Value x : operands) {
    SmallVector<Operation *> chain;
    for (Operation *def = x ? x.getDefiningOp() : nullptr;
         def && isa<graph::TransposeOp, graph::ReshapeOp, graph::BroadcastOp>(def);
         def = def->getOperand(0).getDefiningOp())
      chain.push_back(def);
    for (Operation *def : llvm::reverse(chain))
      views.insert(def);
  }
  SmallVector<Operation *> ordered = views.takeVector();
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  eraseDead(ordered);
}

/// The i1 mask that is true where `cond` is false (x when cond = (x == false)).
Value negated(OpBuilder &b, Location loc, Value cond) {
  if (auto cmp = cond.getDefiningOp<graph::CompareOp>(); cmp && cmp.getPredicate() == "eq")
    if (auto c = cmp.getRhs().getDefiningOp<graph::ConstantOp>())
      if (auto v = dyn_cast<DenseElementsAttr>(c.getValue());
          v && v.isSplat() && v.getElementType().isInteger(1) && !v.getSplatValue<bool>() &&
          typeOf(cmp.getLhs()).getElementType().isInteger(1))
        return cmp.getLhs();
  auto t = typeOf(cond);
  Value no = graph::ConstantOp::create(
      b, loc, DenseElementsAttr::get(RankedTensorType::get({}, b.getI1Type()), false));
  return graph::CompareOp::create(b, loc, t, cond, no, b.getStringAttr("eq"));
}

/// softmax(scale · q·kᵀ [masked]) · v written out, raised to one
/// tcc_graph.attention when every intermediate has one use.
void raiseWrittenOutAttention(graph::SoftmaxOp softmax) {
  auto st = typeOf(softmax.getInput());
  if (st.getRank() != 4 || softmax.getDim() != 3 || softmax.getLog() ||
      typeOf(softmax.getResult()) != st || !softmax->hasOneUse())
    return;
  auto pv = dyn_cast<graph::MatmulOp>(*softmax->getUsers().begin());
  if (!pv || pv.getLhs() != softmax.getResult() || typeOf(pv.getRhs()).getRank() != 4)
    return;
  Value s = softmax.getInput();
  Value keep, additive, cond;
  SmallVector<Operation *> chain = {softmax};
  auto negInf = [](Value v) {
    std::optional<double> c = splatConstant(v);
    return c && std::isinf(*c) && *c < 0;
  };
  if (auto select = s.getDefiningOp<graph::SelectOp>(); select && select->hasOneUse()) {
    if (negInf(select.getLhs()) && typeOf(select.getRhs()) == st) { // masked_fill(m, -inf)
      cond = select.getCondition();
      s = select.getRhs();
    } else if (negInf(select.getRhs()) && typeOf(select.getLhs()) == st) { // where(m, s, -inf)
      keep = select.getCondition();
      s = select.getLhs();
    } else {
      return;
    }
    chain.push_back(select);
  } else if (auto add = s.getDefiningOp<graph::AddOp>(); add && add->hasOneUse()) {
    Value lhs = add.getLhs(), rhs = add.getRhs();
    bool lhsScores = typeOf(lhs) == st && (lhs.getDefiningOp<graph::MatmulOp>() ||
                                           lhs.getDefiningOp<graph::MulOp>() ||
                                           lhs.getDefiningOp<graph::DivOp>());
    s = lhsScores ? lhs : rhs;
    additive = lhsScores ? rhs : lhs;
    if (typeOf(s) != st)
      return;
    chain.push_back(add);
  }
  double scale = 1.0;
  if (isa_and_nonnull<graph::MulOp, graph::DivOp>(s.getDefiningOp()) && s.hasOneUse()) {
    Operation *op = s.getDefiningOp();
    bool isDiv = isa<graph::DivOp>(op);
    Value x = op->getOperand(0), c = op->getOperand(1);
    if (!isDiv && !splatConstant(c))
      std::swap(x, c);
    std::optional<double> k = splatConstant(c);
    if (!k || *k == 0.0 || typeOf(x) != st)
      return;
    scale = isDiv ? 1.0 / *k : *k;
    s = x;
    chain.push_back(op);
  }
  auto qk = s.getDefiningOp<graph::MatmulOp>();
  if (!qk || !s.hasOneUse())
    return;
  Value k = transposeInput(qk.getRhs(), {0, 1, 3, 2});
  if (!k || typeOf(qk.getLhs()).getRank() != 4)
    return;
  chain.push_back(qk);
  OpBuilder b(pv);
  SmallVector<Operation *> fused(llvm::reverse(chain));
  fused.push_back(pv);
  Location loc = kernelLocation(fused);
  Value mask = additive;
  if (cond)
    mask = negated(b, loc, cond);
  else if (keep)
    mask = keep;
  if (mask && typeOf(mask).getElementType() != st.getElementType() &&
      !typeOf(mask).getElementType().isInteger(1))
    return;
  auto attention = graph::AttentionOp::create(b, loc, typeOf(pv.getResult()), qk.getLhs(), k,
                                              pv.getRhs(), mask, b.getF64FloatAttr(scale),
                                              nullptr);
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] written-out attention at " << loc << "\n");
  auto kt = qk.getRhs().getDefiningOp<graph::TransposeOp>();
  pv.getResult().replaceAllUsesWith(attention.getResult());
  pv->erase();
  eraseDead(llvm::to_vector(llvm::reverse(chain)));
  if (kt && kt->use_empty())
    kt->erase();
}

} // namespace

void tcc::formation::formAttentionKernels(func::FuncOp func) {
  SmallVector<graph::SoftmaxOp> softmaxes;
  func.walk([&](graph::SoftmaxOp op) { softmaxes.push_back(op); });
  for (graph::SoftmaxOp op : softmaxes)
    raiseWrittenOutAttention(op);
  SmallVector<graph::AttentionOp> ops;
  func.walk([&](graph::AttentionOp op) { ops.push_back(op); });
  for (graph::AttentionOp op : ops)
    formAttention(op);
}
