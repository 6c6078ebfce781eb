//===- HoistWeightExpressions.cpp - weight-only arithmetic as derived weights =//
//
// Implements `tcc-hoist-weight-expressions`. Weights are bound by name at run
// time, so arithmetic on weights alone (inference batch norm's scale and
// shift, a cast of a weight, later batch norm folded into a convolution's
// weights) cannot be folded by the compiler; left in the graph it runs as a
// kernel on every call. Here each such expression becomes a new weight
// argument carrying a postfix program (include/tcc/Support/
// DerivedWeightProgram.h, docs/ARTIFACT.md) that the runtime evaluates once
// per binding of its sources.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccGraph/Transforms/ConstantEvaluator.h"
#include "dialects/TccGraph/Transforms/DerivedWeightArguments.h"
#include "dialects/TccGraph/Transforms/Passes.h"
#include "tcc/Support/DType.h"
#include "tcc/Support/DerivedWeightProgram.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#include <cstdio>

#define DEBUG_TYPE "tcc-hoist-weight-expressions"

namespace tcc::graph {
#define GEN_PASS_DEF_HOISTWEIGHTEXPRESSIONSPASS
#include "dialects/TccGraph/Transforms/Passes.h.inc"
} // namespace tcc::graph

using namespace mlir;
using namespace tcc;
using namespace tcc::graph;

namespace {

/// The dtype a derived weight (or a step of its program) may have.
std::optional<DType> floatDType(Type t) {
  if (t.isF32()) return DType::Float32;
  if (t.isF64()) return DType::Float64;
  if (t.isF16()) return DType::Float16;
  if (t.isBF16()) return DType::BFloat16;
  return std::nullopt;
}

/// The elementwise operation `op` computes, if the runtime's evaluator has it.
std::optional<DerivedOp> arithmeticOf(Operation *op) {
  using R = std::optional<DerivedOp>;
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case([](AddOp) { return DerivedOp::Add; })
      .Case([](SubOp) { return DerivedOp::Sub; })
      .Case([](MulOp) { return DerivedOp::Mul; })
      .Case([](DivOp) { return DerivedOp::Div; })
      .Case([](PowOp) { return DerivedOp::Pow; })
      .Case([](MaximumOp) { return DerivedOp::Maximum; })
      .Case([](MinimumOp) { return DerivedOp::Minimum; })
      .Case([](NegOp) { return DerivedOp::Neg; })
      .Case([](RsqrtOp) { return DerivedOp::Rsqrt; })
      .Case([](SqrtOp) { return DerivedOp::Sqrt; })
      .Case([](ExpOp) { return DerivedOp::Exp; })
      .Case([](LogOp) { return DerivedOp::Log; })
      .Case([](AbsOp) { return DerivedOp::Abs; })
      .Case([](CosOp) { return DerivedOp::Cos; })
      .Case([](SinOp) { return DerivedOp::Sin; })
      .Case([](CastOp c) -> R {
        // Between float types only: the runtime's values are doubles.
        if (floatDType(cast<RankedTensorType>(c.getInput().getType()).getElementType()))
          return DerivedOp::Cast;
        return std::nullopt;
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// The view `op` is, if its result shape is static and stated by the op.
std::optional<DerivedOp> viewOf(Operation *op) {
  using R = std::optional<DerivedOp>;
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case([](ReshapeOp r) -> R {
        return r.getDynamicSizes().empty() ? R(DerivedOp::Reshape) : std::nullopt;
      })
      .Case([](BroadcastOp r) -> R {
        return r.getDynamicSizes().empty() ? R(DerivedOp::Broadcast) : std::nullopt;
      })
      .Case([](TransposeOp) { return DerivedOp::Transpose; })
      .Default([](Operation *) { return std::nullopt; });
}

/// Whether `op` is a transpose that moves bytes: one that keeps the order of
/// the dims larger than 1 is a reshape in disguise.
bool movesData(Operation *op) {
  auto t = dyn_cast<TransposeOp>(op);
  if (!t)
    return false;
  ArrayRef<int64_t> shape = cast<RankedTensorType>(t.getInput().getType()).getShape();
  int64_t last = -1;
  for (int64_t p : t.getPermutation()) {
    if (shape[p] == 1)
      continue;
    if (p < last)
      return true;
    last = p;
  }
  return false;
}

/// The value of a float constant whose elements are all equal.
std::optional<double> splatValue(ConstantOp c) {
  auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
  if (!dense || !isa<FloatType>(dense.getElementType()) || !dense.isSplat())
    return std::nullopt;
  return dense.getSplatValue<APFloat>().convertToDouble();
}

/// start, start + step, ... in row-major order, step not 0: the (start,
/// step) of a value known at compile time whose elements are such a
/// sequence (positions: an iota, reshaped, cast or offset). Splats are
/// numbers, written as such.
std::optional<std::pair<double, double>> arithmeticSequence(const KnownTensor &t) {
  auto at = [&](int64_t i) {
    return t.isFloat() ? t.floats[i] : static_cast<double>(t.ints[i]);
  };
  int64_t n = t.numElements();
  if (n < 2 || t.elementType.isInteger(1) || at(1) == at(0))
    return std::nullopt;
  double start = at(0), step = at(1) - start;
  for (int64_t i = 0; i < n; ++i)
    if (at(i) != start + static_cast<double>(i) * step)
      return std::nullopt;
  return std::make_pair(start, step);
}

/// "%.17g": a double that reads back exactly.
std::string numberText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

/// The weight expressions of one function and their hoisting.
class WeightExpressions {
public:
  WeightExpressions(func::FuncOp func, int64_t maxElements, int64_t maxTokens,
                    bool materializeTransposes)
      : func(func), maxElements(maxElements), maxTokens(maxTokens),
        materializeTransposes(materializeTransposes), names(func) {}

  void run() {
    collect();
    // The values read by ops outside the expressions, found before any is
    // replaced.
    SmallVector<Value> exits;
    for (Operation &op : func.getBody().front())
      if (isMember(&op) && !isa<ConstantOp>(op) &&
          llvm::any_of(op.getUsers(), [&](Operation *user) { return !isMember(user); }))
        exits.push_back(op.getResult(0));
    for (Value v : exits)
      hoist(v);
    eraseDeadMembers();
    markHostOnlyWeights();
  }

private:
  bool isMember(Operation *op) const {
    return op->getNumResults() == 1 && members.contains(op->getResult(0));
  }

  /// A static float tensor small enough to be a step of a program; with
  /// `orBool`, an i1 tensor too (a comparison a select reads: the program
  /// holds it as 0 and 1).
  bool fits(Type t, bool orBool = false) const {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && rt.hasStaticShape() &&
           (floatDType(rt.getElementType()) || (orBool && rt.getElementType().isInteger(1))) &&
           rt.getNumElements() <= maxElements;
  }

  /// An integer weight a take may index with (a relative-position table's
  /// index buffer): read by the program as exact doubles.
  bool isIndexWeight(BlockArgument arg) const {
    auto rt = dyn_cast<RankedTensorType>(arg.getType());
    return rt && rt.hasStaticShape() && rt.getElementType().isSignlessInteger() &&
           rt.getElementType().getIntOrFloatBitWidth() > 1 && rt.getNumElements() <= maxElements;
  }

  /// Ops the program has a token for beyond arithmetic and views.
  static bool isSelection(Operation *op) {
    return isa<ConcatOp, SliceOp, CompareOp, SelectOp>(op);
  }

  StringRef argString(unsigned i, StringRef attr) {
    return argumentString(func, func.getArgument(i), attr);
  }

  /// The weight arguments, splat constants and the ops computing only from
  /// them, in block order (operands come first).
  void collect() {
    for (BlockArgument arg : func.getArguments()) {
      if (argString(arg.getArgNumber(), TccGraphDialect::getRoleAttrName()) != "weight")
        continue;
      if (fits(arg.getType()))
        members.insert(arg);
      else if (isIndexWeight(arg))
        indexWeights.insert(arg);
    }
    for (Operation &op : func.getBody().front()) {
      if (op.getNumResults() != 1)
        continue;
      if (!fits(op.getResult(0).getType(), /*orBool=*/true) && !isPositions(op.getResult(0)))
        continue;
      bool member = false;
      if (isPositions(op.getResult(0)))
        member = true;
      else if (auto c = dyn_cast<ConstantOp>(op))
        member = splatValue(c).has_value();
      else if (arithmeticOf(&op) || viewOf(&op) || isSelection(&op))
        member = llvm::all_of(op.getOperands(), [&](Value v) { return members.contains(v); });
      else if (auto take = dyn_cast<TakeOp>(op))
        member = members.contains(take.getInput()) && indexWeights.contains(take.getIndex());
      // i1 only from a comparison of floats, or a view of one.
      if (member && !fits(op.getResult(0).getType()) && !isa<CompareOp>(op) && !viewOf(&op) &&
          !positions.contains(op.getResult(0)))
        member = false;
      if (member)
        members.insert(op.getResult(0));
    }
  }

  /// Whether `v` is a sequence of positions known here (not a constant:
  /// splats are numbers already); records its (start, step).
  bool isPositions(Value v) {
    if (v.getDefiningOp<ConstantOp>())
      return false;
    if (positions.contains(v))
      return true;
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape() || type.getNumElements() > maxElements ||
        type.getElementType().isInteger(1))
      return false;
    const KnownTensor *known = evaluator.evaluate(v);
    if (!known)
      return false;
    std::optional<std::pair<double, double>> sequence = arithmeticSequence(*known);
    if (!sequence)
      return false;
    positions[v] = *sequence;
    return true;
  }

  /// How often each op result below `root` is read within its expression:
  /// those read more than once are computed once (keep/recall).
  DenseMap<Value, int> sharedValues(Value root) const {
    DenseMap<Value, int> reads;
    SmallVector<Value> work{root};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      Operation *op = v.getDefiningOp();
      if (!op || isa<ConstantOp>(op) || positions.contains(v))
        continue;
      for (Value operand : op->getOperands())
        if (++reads[operand] == 1)
          work.push_back(operand);
    }
    return reads;
  }

  /// Appends the postfix program of `v` to `tokens`; false once it grows
  /// past maxTokens. A value `reads` counts more than once is written once,
  /// kept in a slot and recalled after.
  bool emit(Value v, SmallVector<std::string> &tokens, SmallVector<BlockArgument> &sources,
            const DenseMap<Value, int> &reads, DenseMap<Value, int> &slots) {
    if (static_cast<int64_t>(tokens.size()) >= maxTokens)
      return false;
    bool shared = v.getDefiningOp() && !v.getDefiningOp<ConstantOp>() && reads.lookup(v) > 1;
    if (shared) {
      if (auto it = slots.find(v); it != slots.end()) {
        tokens.push_back(derivedToken(DerivedOp::Recall, std::to_string(it->second)));
        return true;
      }
      if (!emitOnce(v, tokens, sources, reads, slots))
        return false;
      int slot = static_cast<int>(slots.size());
      slots[v] = slot;
      tokens.push_back(derivedToken(DerivedOp::Keep, std::to_string(slot)));
      return true;
    }
    return emitOnce(v, tokens, sources, reads, slots);
  }

  bool emitOnce(Value v, SmallVector<std::string> &tokens, SmallVector<BlockArgument> &sources,
                const DenseMap<Value, int> &reads, DenseMap<Value, int> &slots) {
    auto operand = [&](Value x) { return emit(x, tokens, sources, reads, slots); };
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      tokens.push_back(derivedToken(
          DerivedOp::Weight, argString(arg.getArgNumber(), TccGraphDialect::getPublicNameAttrName())));
      if (!llvm::is_contained(sources, arg))
        sources.push_back(arg);
      return true;
    }
    Operation *op = v.getDefiningOp();
    auto type = cast<RankedTensorType>(v.getType());
    if (auto it = positions.find(v); it != positions.end()) {
      tokens.push_back(derivedToken(
          DerivedOp::Iota, std::to_string(type.getNumElements()) + "," +
                               numberText(it->second.first) + "," + numberText(it->second.second)));
      if (type.getRank() != 1)
        tokens.push_back(derivedToken(DerivedOp::Reshape, derivedIntList(type.getShape())));
      return true;
    }
    if (auto c = dyn_cast<ConstantOp>(op)) {
      tokens.push_back(derivedToken(DerivedOp::Const, numberText(*splatValue(c))));
      if (type.getRank() != 0)
        tokens.push_back(derivedToken(DerivedOp::Broadcast, derivedIntList(type.getShape())));
      return true;
    }
    if (auto concat = dyn_cast<ConcatOp>(op)) {
      // Joined pairwise, left to right: "concat:d" pops two.
      for (auto [i, input] : llvm::enumerate(concat.getInputs())) {
        if (!operand(input))
          return false;
        if (i > 0)
          tokens.push_back(derivedToken(DerivedOp::Concat, std::to_string(concat.getDim())));
      }
      return true;
    }
    for (Value x : op->getOperands())
      if (!operand(x))
        return false;
    if (auto slice = dyn_cast<SliceOp>(op)) {
      int64_t dim = slice.getDim(), start = slice.getStart(), step = slice.getStep();
      tokens.push_back(derivedToken(
          DerivedOp::Slice,
          derivedIntList(SmallVector<int64_t>{dim, start, step, type.getDimSize(dim)})));
      return true;
    }
    if (auto compare = dyn_cast<CompareOp>(op)) {
      tokens.push_back(derivedToken(DerivedOp::Compare, compare.getPredicate()));
      return true;
    }
    if (isa<SelectOp>(op)) {
      tokens.push_back(derivedToken(DerivedOp::Select));
      return true;
    }
    if (auto take = dyn_cast<TakeOp>(op)) {
      tokens.push_back(derivedToken(DerivedOp::Take, std::to_string(take.getDim())));
      return true;
    }
    if (std::optional<DerivedOp> view = viewOf(op)) {
      auto t = dyn_cast<TransposeOp>(op);
      tokens.push_back(derivedToken(
          *view, derivedIntList(t ? t.getPermutation() : type.getShape())));
      return true;
    }
    DerivedOp arithmetic = *arithmeticOf(op);
    tokens.push_back(arithmetic == DerivedOp::Cast
                         ? derivedToken(arithmetic, dtypeName(*floatDType(type.getElementType())))
                         : derivedToken(arithmetic));
    return true;
  }

  /// The argument holding `root`'s value, appended on first use; null if its
  /// program is too long or reads no weight (arithmetic on constants alone
  /// stays a constant expression, for the kernels to inline).
  BlockArgument derive(Value root) {
    if (auto it = derived.find(root); it != derived.end())
      return it->second;
    SmallVector<std::string> tokens;
    SmallVector<BlockArgument> sources;
    DenseMap<Value, int> slots;
    if (!emit(root, tokens, sources, sharedValues(root), slots) || sources.empty()) {
      LLVM_DEBUG(llvm::dbgs() << "not derived (program over " << maxTokens
                              << " tokens, or no weight): " << root << "\n");
      return derived[root] = BlockArgument();
    }
    // Named after its source that comes first in the signature.
    BlockArgument first = *llvm::min_element(sources, [](BlockArgument a, BlockArgument b) {
      return a.getArgNumber() < b.getArgNumber();
    });
    StringRef source = argString(first.getArgNumber(), TccGraphDialect::getPublicNameAttrName());
    auto type = cast<RankedTensorType>(root.getType());
    std::string name = names.fresh(source);
    BlockArgument arg = appendDerivedWeight(func, type, name, tokens, root.getLoc());
    if (!arg)
      return derived[root] = BlockArgument();
    LLVM_DEBUG(llvm::dbgs() << "derived weight '" << name << "': " << tokens.size() << " tokens\n");
    return derived[root] = arg;
  }

  /// Reads `v` from a derived weight in every op outside the expressions.
  /// Views above the arithmetic are applied to the new argument in the graph
  /// (a broadcast stays a broadcast, a transposed weight stays recognisable to
  /// GEMM formation); a bare view of a weight or constant is left alone.
  void hoist(Value v) {
    auto outside = [&](OpOperand &use) {
      return !isMember(use.getOwner()) && !isa<func::ReturnOp>(use.getOwner());
    };
    if (llvm::none_of(v.getUses(), outside))
      return; // only returned: an output must not alias a weight
    SmallVector<Operation *> views;
    Value root = v;
    while (Operation *def = root.getDefiningOp()) {
      if (!viewOf(def) || (materializeTransposes && movesData(def)))
        break;
      views.push_back(def);
      root = def->getOperand(0);
    }
    // A program computes floats: a comparison read outside stays in the graph.
    if (isa<BlockArgument>(root) || root.getDefiningOp<ConstantOp>() || !fits(root.getType()))
      return;
    BlockArgument arg = derive(root);
    if (!arg)
      return;
    OpBuilder b(v.getDefiningOp()->getNextNode());
    IRMapping map;
    map.map(root, arg);
    Value replacement = arg;
    for (Operation *view : llvm::reverse(views))
      replacement = b.clone(*view, map)->getResult(0);
    v.replaceUsesWithIf(replacement, outside);
  }

  void eraseDeadMembers() {
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(func.getBody().front())))
      if (isMember(&op) && op.use_empty()) {
        members.erase(op.getResult(0));
        op.erase();
      }
  }

  /// A weight the function does not read needs no device copy.
  void markHostOnlyWeights() {
    for (BlockArgument arg : func.getArguments())
      if (arg.use_empty() &&
          argString(arg.getArgNumber(), TccGraphDialect::getRoleAttrName()) == "weight" &&
          !func.getArgAttr(arg.getArgNumber(), TccGraphDialect::getDerivedAttrName()))
        func.setArgAttr(arg.getArgNumber(), TccGraphDialect::getHostOnlyAttrName(),
                        UnitAttr::get(func.getContext()));
  }

  func::FuncOp func;
  int64_t maxElements, maxTokens;
  bool materializeTransposes;
  DenseSet<Value> members;
  DenseSet<Value> indexWeights;
  /// Values known here that are sequences (start, step): a program's iota.
  DenseMap<Value, std::pair<double, double>> positions;
  ConstantEvaluator evaluator;
  DenseMap<Value, BlockArgument> derived;
  DerivedWeightNames names;
};

struct HoistWeightExpressionsPass
    : tcc::graph::impl::HoistWeightExpressionsPassBase<HoistWeightExpressionsPass> {
  using HoistWeightExpressionsPassBase::HoistWeightExpressionsPassBase;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        WeightExpressions(func, maxElements, maxTokens, materializeTransposes).run();
  }
};

} // namespace
