//===- MatchActivation.cpp - activations as legalization decomposed them --===//
//
// tcc-legalize-graph writes relu6, silu and hardswish as pointwise ops:
//   relu6(x)     = minimum(maximum(x, 0), 6)
//   silu(x)      = x * (1 / (1 + exp(-x)))
//   hardswish(x) = x * minimum(maximum(x / 6 + 0.5, 0), 1)
// (commutative operands in either order). A kernel that applies one itself
// (tcc's depthwise convolution, on its input or its result) takes the ops of
// such a pattern when nothing outside it reads their values.
//
//===----------------------------------------------------------------------===//
#include "FormKernels.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"

using namespace mlir;
using namespace tcc::formation;
namespace graph = tcc::graph;
namespace kernel = tcc::kernel;

namespace {

bool isConstant(Value v, double c) {
  std::optional<double> s = splatConstant(v);
  return s && *s == c;
}

/// The operand of binary `op` other than the constant `c`, or null.
template <typename OpTy> Value otherThanConstant(Value v, double c) {
  auto op = v.getDefiningOp<OpTy>();
  if (!op)
    return nullptr;
  if (isConstant(op.getRhs(), c))
    return op.getLhs();
  if (isConstant(op.getLhs(), c))
    return op.getRhs();
  return nullptr;
}

/// clamp(v, 0, hi) = minimum(maximum(v, 0), hi): its input, or null.
Value clampInput(Value v, double hi, SmallVectorImpl<Operation *> &ops) {
  Value max = otherThanConstant<graph::MinimumOp>(v, hi);
  if (!max)
    return nullptr;
  Value in = otherThanConstant<graph::MaximumOp>(max, 0.0);
  if (!in)
    return nullptr;
  ops.push_back(max.getDefiningOp());
  ops.push_back(v.getDefiningOp());
  return in;
}

/// Whether `s` is sigmoid(x) = 1 / (1 + exp(-x)).
bool isSigmoidOf(Value s, Value x, SmallVectorImpl<Operation *> &ops) {
  auto div = s.getDefiningOp<graph::DivOp>();
  if (!div || !isConstant(div.getLhs(), 1.0))
    return false;
  Value e = otherThanConstant<graph::AddOp>(div.getRhs(), 1.0);
  auto exp = e ? e.getDefiningOp<graph::ExpOp>() : nullptr;
  auto neg = exp ? exp.getInput().getDefiningOp<graph::NegOp>() : nullptr;
  if (!neg || neg.getInput() != x)
    return false;
  ops.append({neg, exp, div.getRhs().getDefiningOp(), div});
  return true;
}

/// Whether `h` is hardsigmoid(x) = clamp(x / 6 + 0.5, 0, 1).
bool isHardsigmoidOf(Value h, Value x, SmallVectorImpl<Operation *> &ops) {
  SmallVector<Operation *> clamp;
  Value in = clampInput(h, 1.0, clamp);
  Value scaled = in ? otherThanConstant<graph::AddOp>(in, 0.5) : nullptr;
  auto div = scaled ? scaled.getDefiningOp<graph::DivOp>() : nullptr;
  if (!div || div.getLhs() != x || !isConstant(div.getRhs(), 6.0))
    return false;
  ops.append({div, in.getDefiningOp()});
  ops.append(clamp.begin(), clamp.end());
  return true;
}

/// Whether every value the pattern's ops define, but its result, is read
/// only by the pattern's ops, and the shapes are the input's.
bool selfContained(const ActivationMatch &m) {
  for (Operation *op : m.ops) {
    if (typeOf(op->getResult(0)) != typeOf(m.input))
      return false;
    if (op->getResult(0) == m.result)
      continue;
    for (Operation *user : op->getUsers())
      if (!llvm::is_contained(m.ops, user))
        return false;
  }
  return true;
}

} // namespace

std::optional<ActivationMatch> tcc::formation::matchActivation(Value result) {
  ActivationMatch m;
  m.result = result;
  if (Value in = clampInput(result, 6.0, m.ops)) {
    m.kind = kernel::Activation::relu6;
    m.input = in;
  } else if (auto mul = result.getDefiningOp<graph::MulOp>()) {
    for (auto [x, other] : {std::pair{mul.getLhs(), mul.getRhs()}, {mul.getRhs(), mul.getLhs()}}) {
      SmallVector<Operation *> ops;
      if (isSigmoidOf(other, x, ops))
        m.kind = kernel::Activation::silu;
      else if (isHardsigmoidOf(other, x, ops))
        m.kind = kernel::Activation::hardswish;
      else
        continue;
      m.input = x;
      m.ops = std::move(ops);
      m.ops.push_back(mul);
      break;
    }
  }
  if (!m.input || !selfContained(m))
    return std::nullopt;
  return m;
}

std::optional<ActivationMatch> tcc::formation::matchActivationOf(Value x) {
  // The pattern's last op reads x itself (silu's and hardswish's mul) or the
  // op that reads x (relu6's minimum reads the maximum): try each.
  SmallVector<Operation *> ends;
  for (Operation *user : x.getUsers()) {
    ends.push_back(user);
    if (isa<graph::MaximumOp>(user))
      ends.append(user->getUsers().begin(), user->getUsers().end());
  }
  for (Operation *end : ends) {
    if (!isa<graph::MinimumOp, graph::MulOp>(end))
      continue;
    std::optional<ActivationMatch> m = matchActivation(end->getResult(0));
    if (m && m->input == x &&
        llvm::all_of(x.getUsers(), [&](Operation *u) { return llvm::is_contained(m->ops, u); }))
      return m;
  }
  return std::nullopt;
}
