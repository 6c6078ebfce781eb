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
#include "StridedViews.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccGraph/Transforms/Decompositions.h"
#include "dialects/TccGraph/Transforms/SimplifyAttentionMasks.h"
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

/// A view the kernel can read: the head dim contiguous.
bool kernelView(const std::optional<StridedView> &view) {
  return view && view->sizes.size() == 4 && (view->strides[3] == 1 || view->sizes[3] == 1);
}

/// Whether the view is just the [B, L, H, D] ↔ [B, H, L, D] transpose, which
/// `bshd` says more plainly.
bool onlySwapsSeqHeads(const std::optional<StridedView> &view) {
  if (!view || view->chain.size() != 1)
    return false;
  auto t = dyn_cast<graph::TransposeOp>(view->chain.front());
  return t && t.getPermutation() == ArrayRef<int64_t>(kSwapSeqHeads);
}

/// Scores seen through a windowed mask (torchvision's shifted windows):
/// reshape(reshape(x, [B, P, H, L, S]) + mask5, [B·P, H, L, S]). `scores` is
/// x; `mask` the 5-D additive mask, broadcasting to [B, P, H, L, S].
struct WindowMask {
  Value scores, mask;
  SmallVector<Operation *> ops; ///< outer reshape, add, inner reshape
};

std::optional<WindowMask> windowMask(Value s) {
  auto st = typeOf(s);
  auto outer = s.getDefiningOp<graph::ReshapeOp>();
  if (!outer || !s.hasOneUse() || !st.hasStaticShape())
    return std::nullopt;
  auto add = outer.getInput().getDefiningOp<graph::AddOp>();
  auto at = typeOf(outer.getInput());
  if (!add || !add->hasOneUse() || at.getRank() != 5 || at.getShape()[0] * at.getShape()[1] != st.getShape()[0] ||
      at.getShape().drop_front(2) != st.getShape().drop_front(1))
    return std::nullopt;
  for (auto [x, m] : {std::pair{add.getLhs(), add.getRhs()}, std::pair{add.getRhs(), add.getLhs()}}) {
    auto inner = x.getDefiningOp<graph::ReshapeOp>();
    if (!inner || !x.hasOneUse() || typeOf(x) != at || typeOf(inner.getInput()) != st ||
        typeOf(m).getRank() != 5 || typeOf(m).getElementType() != st.getElementType())
      continue;
    return WindowMask{inner.getInput(), m, {outer, add, inner}};
  }
  return std::nullopt;
}

/// `mask5` plus an optional 4-D (or lower) `extra` added to the same scores,
/// as the 4-D mask [B·P, H, L, S] of `scores` type `st`: the reshape of a
/// broadcast of one 5-D sum, so kernel formation can hand the 5-D tensor to
/// the kernel (its batch split as [B, P]) and nothing is materialized.
Value windowedMask(OpBuilder &b, Location loc, RankedTensorType st, Value mask5, Value extra) {
  auto mt = typeOf(mask5);
  SmallVector<int64_t> full = {st.getShape()[0] / mt.getShape()[1], mt.getShape()[1]};
  full.append(st.getShape().begin() + 1, st.getShape().end());
  if (extra) {
    auto et = typeOf(extra);
    SmallVector<int64_t> shape5(5 - et.getRank(), 1);
    shape5.append(et.getShape().begin(), et.getShape().end());
    if (shape5[1] != 1) { // a full batch dim splits as the scores' does
      shape5[0] = full[0];
      shape5[1] = full[1];
    }
    Value e5 = graph::ReshapeOp::create(b, loc, RankedTensorType::get(shape5, et.getElementType()), extra);
    SmallVector<int64_t> sum;
    for (auto [x, y] : llvm::zip(shape5, mt.getShape()))
      sum.push_back(std::max(x, y));
    mask5 = graph::AddOp::create(b, loc, RankedTensorType::get(sum, mt.getElementType()), mask5, e5);
  }
  Value wide = graph::BroadcastOp::create(b, loc, RankedTensorType::get(full, mt.getElementType()), mask5);
  return graph::ReshapeOp::create(b, loc, st, wide);
}

/// The 5-D mask a windowed 4-D mask comes from (see windowedMask): for the
/// kernel, which splits the batch as [B, P] when its mask has 5 dims.
Value windowMaskSource(Value mask) {
  auto merge = mask.getDefiningOp<graph::ReshapeOp>();
  if (!merge || typeOf(mask).getRank() != 4 || typeOf(merge.getInput()).getRank() != 5)
    return nullptr;
  auto wt = typeOf(merge.getInput()), mt = typeOf(mask);
  if (!wt.hasStaticShape() || !mt.hasStaticShape() || wt.getShape()[0] * wt.getShape()[1] != mt.getShape()[0] ||
      wt.getShape().drop_front(2) != mt.getShape().drop_front(1))
    return nullptr;
  Value source = merge.getInput();
  if (auto broadcast = source.getDefiningOp<graph::BroadcastOp>())
    source = broadcast.getInput();
  auto st = typeOf(source);
  // The kernel reads P from dim 1: a broadcast one there is an ordinary mask.
  if (st.getRank() != 5 || st.getShape()[1] == 1)
    return nullptr;
  return source;
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
  OpBuilder b(op);
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue(), mask = op.getMask();
  // Grouped-query heads written out as a repeat: share the heads instead.
  if (Value k0 = repeatedHeads(k))
    if (Value v0 = repeatedHeads(v))
      if (typeOf(k0).getShape()[1] == typeOf(v0).getShape()[1]) {
        k = k0;
        v = v0;
      }
  // Each operand: a strided view of the tensor its views start from (static
  // shapes), else a [B, L, H, D] tensor transposed (symbolic lengths too).
  SmallVector<bool> bshd(4, false);
  SmallVector<Attribute> views(4, b.getUnitAttr());
  bool anyView = false;
  for (auto [i, x] : llvm::enumerate(SmallVector<Value *>{&q, &k, &v})) {
    std::optional<StridedView> view = viewOfProducers(*x);
    if (kernelView(view) && !onlySwapsSeqHeads(view)) {
      *x = view->base;
      views[i] = viewAttr(b, *view);
      anyView = true;
    } else if (Value t = transposeInput(*x, kSwapSeqHeads)) {
      *x = t;
      bshd[i] = true;
    }
  }
  if (mask) {
    if (Value source = windowMaskSource(mask))
      mask = source;
    else if (auto broadcast = mask.getDefiningOp<graph::BroadcastOp>())
      mask = broadcast.getInput();
  }
  // The result: written straight into the tensor its reshapes and transposes
  // lead to, else transposed to [B, L, H, D] for its one reader.
  Value replaced = op.getResult();
  std::optional<StridedView> out = viewInConsumers(op.getResult());
  if (kernelView(out) && !onlySwapsSeqHeads(out)) {
    replaced = out->base;
    views[3] = viewAttr(b, *out);
    anyView = true;
  } else if (op.getResult().hasOneUse()) {
    if (auto t = dyn_cast<graph::TransposeOp>(*op.getResult().getUsers().begin());
        t && t.getPermutation() == ArrayRef<int64_t>(kSwapSeqHeads)) {
      replaced = t.getResult();
      bshd[3] = true;
    }
  }

  b.setInsertionPoint(replaced.getDefiningOp());
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
      op.getCausal() ? b.getUnitAttr() : nullptr, b.getDenseBoolArrayAttr(bshd),
      anyView ? b.getArrayAttr(views) : nullptr);
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] attention at " << loc << "\n");
  replaced.replaceAllUsesWith(attention.getResult(0));
  SmallVector<Value> operands = {op.getQuery(), op.getKey(), op.getValue(), op.getMask()};
  SmallVector<Operation *> dead = {op.getOperation()};
  if (out && replaced == out->base)
    dead.append(out->chain.begin(), out->chain.end());
  else if (replaced != op.getResult())
    dead.push_back(replaced.getDefiningOp());
  llvm::sort(dead, [](Operation *a, Operation *c) { return a->isBeforeInBlock(c); });
  eraseDead(dead);
  // Views of the operands that only the attention read, producers first.
  llvm::SetVector<Operation *> viewOps;
  for (Value x : operands) {
    SmallVector<Operation *> chain;
    for (Operation *def = x ? x.getDefiningOp() : nullptr;
         def && isa<graph::TransposeOp, graph::ReshapeOp, graph::BroadcastOp, graph::SliceOp>(def);
         def = def->getOperand(0).getDefiningOp())
      chain.push_back(def);
    for (Operation *def : llvm::reverse(chain))
      viewOps.insert(def);
  }
  SmallVector<Operation *> ordered = viewOps.takeVector();
  llvm::sort(ordered, [](Operation *a, Operation *c) { return a->isBeforeInBlock(c); });
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
graph::AttentionOp raiseWrittenOutAttention(graph::SoftmaxOp softmax) {
  auto st = typeOf(softmax.getInput());
  if (st.getRank() != 4 || softmax.getDim() != 3 || softmax.getLog() ||
      typeOf(softmax.getResult()) != st || !softmax->hasOneUse())
    return {};
  auto pv = dyn_cast<graph::MatmulOp>(*softmax->getUsers().begin());
  if (!pv || pv.getLhs() != softmax.getResult() || typeOf(pv.getRhs()).getRank() != 4)
    return {};
  Value s = softmax.getInput();
  Value keep, additive, cond;
  SmallVector<Operation *> chain = {softmax};
  std::optional<WindowMask> window = windowMask(s);
  if (window) {
    s = window->scores;
    chain.append(window->ops);
  }
  auto negInf = [](Value v) {
    std::optional<double> c = splatConstant(v);
    return c && std::isinf(*c) && *c < 0;
  };
  if (auto select = s.getDefiningOp<graph::SelectOp>(); select && select->hasOneUse()) {
    if (window)
      return {}; // a bool mask and a windowed float mask: not one kernel mask
    if (negInf(select.getLhs()) && typeOf(select.getRhs()) == st) { // masked_fill(m, -inf)
      cond = select.getCondition();
      s = select.getRhs();
    } else if (negInf(select.getRhs()) && typeOf(select.getLhs()) == st) { // where(m, s, -inf)
      keep = select.getCondition();
      s = select.getLhs();
    } else {
      return {};
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
      return {};
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
      return {};
    scale = isDiv ? 1.0 / *k : *k;
    s = x;
    chain.push_back(op);
  }
  auto qk = s.getDefiningOp<graph::MatmulOp>();
  if (!qk || !s.hasOneUse())
    return {};
  Value k = transposeInput(qk.getRhs(), {0, 1, 3, 2});
  if (!k || typeOf(qk.getLhs()).getRank() != 4)
    return {};
  chain.push_back(qk);
  // A constant scale on the query (q * d^-0.5, as torchvision writes it):
  // the kernel's scale, so the query is read where its linear layer wrote it.
  Value q = qk.getLhs();
  if (auto mul = q.getDefiningOp<graph::MulOp>(); mul && q.hasOneUse()) {
    Value x = mul.getLhs(), c = mul.getRhs();
    if (!splatConstant(c))
      std::swap(x, c);
    if (std::optional<double> factor = splatConstant(c);
        factor && *factor != 0.0 && typeOf(x) == typeOf(q)) {
      scale *= *factor;
      q = x;
      chain.push_back(mul);
    }
  }
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
    return {};
  if (window)
    mask = windowedMask(b, loc, st, window->mask, mask);
  auto attention = graph::AttentionOp::create(b, loc, typeOf(pv.getResult()), q, k,
                                              pv.getRhs(), mask, b.getF64FloatAttr(scale),
                                              nullptr);
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] written-out attention at " << loc << "\n");
  auto kt = qk.getRhs().getDefiningOp<graph::TransposeOp>();
  pv.getResult().replaceAllUsesWith(attention.getResult());
  pv->erase();
  eraseDead(llvm::to_vector(llvm::reverse(chain)));
  if (kt && kt->use_empty())
    kt->erase();
  return attention;
}

/// Whether every use of `v` reaches an attention operand through reshapes,
/// transposes and slices (or is an attention operand).
bool feedsOnlyAttention(Value v, int depth = 0) {
  if (v.use_empty() || depth > 8)
    return false;
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (auto attention = dyn_cast<graph::AttentionOp>(user)) {
      if (use.getOperandNumber() > 2)
        return false; // the mask
      continue;
    }
    if (!isa<graph::ReshapeOp, graph::TransposeOp, graph::SliceOp>(user) ||
        !feedsOnlyAttention(user->getResult(0), depth + 1))
      return false;
  }
  return true;
}

/// Whether `v` is an attention result seen through reshapes and transposes.
bool comesFromAttention(Value v) {
  for (int depth = 0; depth < 8; ++depth) {
    Operation *def = v.getDefiningOp();
    if (isa_and_nonnull<graph::AttentionOp>(def))
      return true;
    if (!isa_and_nonnull<graph::ReshapeOp, graph::TransposeOp>(def))
      return false;
    v = def->getOperand(0);
  }
  return false;
}

/// A permutation that keeps the last dim (it only reorders rows).
bool permutesRows(ArrayRef<int64_t> perm) {
  return !perm.empty() && perm.back() == static_cast<int64_t>(perm.size()) - 1;
}

/// The bias operand of `add`, the other one being `product`.
Value biasOperand(graph::AddOp add, Value product) {
  return add.getLhs() == product ? add.getRhs() : add.getLhs();
}

/// The add of a rank-1 bias that is `product`'s only use, if any.
graph::AddOp rowBiasAdd(Value product) {
  if (!product.hasOneUse())
    return {};
  auto add = dyn_cast<graph::AddOp>(*product.getUsers().begin());
  if (!add || typeOf(add.getResult()) != typeOf(product) || typeOf(biasOperand(add, product)).getRank() != 1)
    return {};
  return add;
}

/// Row-wise matrix products commute with row permutations: move those
/// transposes to the attention side, where its views absorb them.
///   matmul(transpose(x, P), W) → transpose(matmul(x, W), P)
///     when the product only feeds attention (torchvision's [L, B] input);
///   transpose(reshape(matmul(A, W) [+ b]), P) → matmul(transpose(reshape(A), P), W) [+ b]
///     when A comes from an attention (its output projection back to [B, L]).
void moveRowTransposesTowardAttention(func::FuncOp func) {
  SmallVector<graph::MatmulOp> matmuls;
  func.walk([&](graph::MatmulOp op) { matmuls.push_back(op); });
  for (graph::MatmulOp mm : matmuls) {
    Value w = mm.getRhs();
    if (typeOf(w).getRank() != 2 || !typeOf(mm.getResult()).hasStaticShape())
      continue;
    auto in = mm.getLhs().getDefiningOp<graph::TransposeOp>();
    // The product, or its bias add (nn.Linear), is what reaches attention.
    graph::AddOp inBias = rowBiasAdd(mm.getResult());
    Value product = inBias ? inBias.getResult() : mm.getResult();
    if (in && permutesRows(in.getPermutation()) && feedsOnlyAttention(product)) {
      OpBuilder b(inBias ? inBias.getOperation() : mm.getOperation());
      Value x = in.getInput();
      auto xt = typeOf(x);
      SmallVector<int64_t> shape(xt.getShape());
      shape.back() = typeOf(w).getShape().back();
      auto yt = RankedTensorType::get(shape, xt.getElementType());
      Value y = graph::MatmulOp::create(b, mm.getLoc(), yt, x, w);
      if (inBias)
        y = graph::AddOp::create(b, inBias.getLoc(), yt, y, biasOperand(inBias, mm.getResult()));
      Value t = graph::TransposeOp::create(b, in.getLoc(), typeOf(product), y, in.getPermutationAttr());
      product.replaceAllUsesWith(t);
      if (inBias)
        inBias.erase();
      mm.erase();
      if (in->use_empty())
        in.erase();
      continue;
    }
    // transpose(reshape(mm [+ bias])) at the output.
    if (!comesFromAttention(mm.getLhs()) || !mm->hasOneUse())
      continue;
    graph::AddOp bias = inBias && inBias->hasOneUse() ? inBias : graph::AddOp();
    Value cur = bias ? bias.getResult() : mm.getResult();
    if (!cur.hasOneUse())
      continue;
    auto reshape = dyn_cast<graph::ReshapeOp>(*cur.getUsers().begin());
    if (!reshape || !reshape->hasOneUse() || !reshape.getDynamicSizes().empty())
      continue;
    auto out = dyn_cast<graph::TransposeOp>(*reshape->getUsers().begin());
    auto rt = typeOf(reshape.getResult());
    if (!out || !permutesRows(out.getPermutation()) || rt.getShape().back() != typeOf(cur).getShape().back())
      continue;
    OpBuilder b(out);
    Location loc = out.getLoc();
    Value a = mm.getLhs();
    auto at = typeOf(a);
    SmallVector<int64_t> rows(rt.getShape());
    rows.back() = at.getShape().back();
    Value a1 = graph::ReshapeOp::create(b, loc, RankedTensorType::get(rows, at.getElementType()), a);
    SmallVector<int64_t> permuted;
    for (int64_t p : out.getPermutation())
      permuted.push_back(rows[p]);
    Value a2 = graph::TransposeOp::create(b, loc, RankedTensorType::get(permuted, at.getElementType()),
                                          a1, out.getPermutationAttr());
    Value y = graph::MatmulOp::create(b, mm.getLoc(), out.getType(), a2, w);
    if (bias) {
      y = graph::AddOp::create(b, bias.getLoc(), out.getType(), y, biasOperand(bias, mm.getResult()));
    }
    out.getResult().replaceAllUsesWith(y);
    out.erase();
    reshape.erase();
    if (bias)
      bias.erase();
    mm.erase();
  }
}

} // namespace

void tcc::formation::formAttentionKernels(func::FuncOp func) {
  moveRowTransposesTowardAttention(func);
  SmallVector<graph::SoftmaxOp> softmaxes;
  func.walk([&](graph::SoftmaxOp op) { softmaxes.push_back(op); });
  SmallVector<graph::AttentionOp> raised;
  for (graph::SoftmaxOp op : softmaxes)
    if (graph::AttentionOp attention = raiseWrittenOutAttention(op))
      raised.push_back(attention);
  // The raised ones' masks, as tcc-simplify-attention-masks did sdpa's.
  graph::simplifyKnownAttentionMasks(raised);
  SmallVector<graph::AttentionOp> ops;
  func.walk([&](graph::AttentionOp op) { ops.push_back(op); });
  for (graph::AttentionOp op : ops)
    formAttention(op);
}
