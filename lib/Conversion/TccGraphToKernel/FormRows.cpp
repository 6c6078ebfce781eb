//===- FormRows.cpp - softmax and normalizations into tcc_kernel.row ------===//
//
// One row kernel per softmax/log_softmax over the last dim, layer_norm and
// rms_norm, including RMSNorm as transformers write it by hand
//
//   h = x.to(f32); y = h * rsqrt(h.pow(2).mean(-1, keepdim) + eps)
//   out = weight * y.to(x.dtype)
//
// A residual add producing the row kernel's input is folded in (the kernel
// reads both addends); when the sum is read again later (the residual stream
// of a pre-norm transformer) the kernel writes it as a second result. The
// rest (a softmax over another dim, f64) is decomposed.
//
//===----------------------------------------------------------------------===//
#include "FormKernels.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccGraph/Transforms/Decompositions.h"
#include "dialects/TccKernel/IR/TccKernelOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tcc-form-kernels"

using namespace mlir;
using namespace tcc::formation;
namespace graph = tcc::graph;
namespace kernel = tcc::kernel;

namespace {

/// What one row kernel computes, before it is built.
struct RowPlan {
  kernel::RowKind kind;
  Value input, weight, bias;
  double eps = 0.0;
  int64_t numDims = 1;
  /// The value the kernel's result replaces, and the ops it absorbed.
  Value replaced;
  SmallVector<Operation *> absorbed;
};

/// The other operand of `op` when it has operand `v`.
Value otherOperand(Operation *op, Value v) {
  return op->getOperand(0) == v ? op->getOperand(1) : op->getOperand(0);
}

/// Matches the hand-written RMSNorm from its mean of squares.
std::optional<RowPlan> matchHandWrittenRmsNorm(graph::ReduceMeanOp mean) {
  auto inType = typeOf(mean.getInput());
  int64_t rank = inType.getRank();
  if (mean.getDims() != ArrayRef<int64_t>{rank - 1} || !mean.getKeepdim() ||
      !mean.getResult().hasOneUse())
    return std::nullopt;
  auto square = mean.getInput().getDefiningOp<graph::MulOp>();
  if (!square || square.getLhs() != square.getRhs() || !square->hasOneUse())
    return std::nullopt;
  Value h = square.getLhs();
  RowPlan plan;
  plan.kind = kernel::RowKind::rms_norm;
  plan.absorbed = {square, mean};
  auto addEps = dyn_cast<graph::AddOp>(*mean->getUsers().begin());
  std::optional<double> eps =
      addEps ? splatConstant(otherOperand(addEps, mean.getResult())) : std::nullopt;
  if (!eps || !addEps->hasOneUse())
    return std::nullopt;
  plan.eps = *eps;
  auto rsqrt = dyn_cast<graph::RsqrtOp>(*addEps->getUsers().begin());
  if (!rsqrt || !rsqrt->hasOneUse())
    return std::nullopt;
  auto scaled = dyn_cast<graph::MulOp>(*rsqrt->getUsers().begin());
  if (!scaled || otherOperand(scaled, rsqrt.getResult()) != h || typeOf(scaled.getResult()) != inType)
    return std::nullopt;
  plan.absorbed.append({addEps, rsqrt, scaled});
  Value y = scaled.getResult();
  // h = x.to(f32) for a half x: y must be rounded back to x's type.
  plan.input = h;
  if (auto up = h.getDefiningOp<graph::CastOp>()) {
    Type x = typeOf(up.getInput()).getElementType();
    if ((x.isBF16() || x.isF16()) && inType.getElementType().isF32() && y.hasOneUse())
      if (auto down = dyn_cast<graph::CastOp>(*y.getUsers().begin());
          down && typeOf(down.getResult()).getElementType() == x) {
        plan.input = up.getInput();
        plan.absorbed.push_back(down);
        y = down.getResult();
      }
  }
  if (!kernelElementType(typeOf(plan.input).getElementType()))
    return std::nullopt;
  plan.replaced = y;
  // weight * y over the row.
  if (y.hasOneUse())
    if (auto mul = dyn_cast<graph::MulOp>(*y.getUsers().begin())) {
      Value w = otherOperand(mul, y);
      auto wt = typeOf(w);
      bool rowShaped = wt.getRank() >= 1 && wt.getShape().back() == typeOf(y).getShape().back() &&
                       llvm::all_of(wt.getShape().drop_back(), [](int64_t d) { return d == 1; });
      if (rowShaped && typeOf(mul.getResult()) == typeOf(y) && w != y) {
        plan.weight = w;
        plan.absorbed.push_back(mul);
        plan.replaced = mul.getResult();
      }
    }
  return plan;
}

void formRow(RowPlan plan, Location loc) {
  Operation *last = plan.replaced.getDefiningOp();
  OpBuilder b(last);
  RankedTensorType resultType = typeOf(plan.replaced);
  auto inType = typeOf(plan.input);
  ArrayRef<int64_t> row = inType.getShape().take_back(plan.numDims);
  // A residual add producing the input: every other reader must come after
  // the kernel, which then writes the sum for them.
  Value x = plan.input, residual;
  bool writesSum = false;
  auto add = x.getDefiningOp<graph::AddOp>();
  if (add && add.getLhs() != add.getRhs() && typeOf(add.getLhs()) == inType &&
      typeOf(add.getRhs()) == inType &&
      llvm::all_of(add->getUsers(), [&](Operation *user) {
        return llvm::is_contained(plan.absorbed, user) || user == last ||
               last->isBeforeInBlock(user);
      })) {
    x = add.getLhs();
    residual = add.getRhs();
    writesSum = llvm::any_of(add->getUsers(), [&](Operation *user) {
      return !llvm::is_contained(plan.absorbed, user) && user != last;
    });
  }
  SmallVector<Operation *> fused;
  if (residual)
    fused.push_back(add);
  fused.append(plan.absorbed.begin(), plan.absorbed.end());
  if (!llvm::is_contained(fused, last))
    fused.push_back(last);
  loc = kernelLocation(fused);
  auto dynamicSize = [&](int64_t d) -> Value { return tensor::DimOp::create(b, loc, x, d); };
  SmallVector<Value> inits = {emptyTensor(b, loc, resultType, dynamicSize)};
  SmallVector<Type> types = {resultType};
  if (writesSum) {
    inits.push_back(emptyTensor(b, loc, inType, dynamicSize));
    types.push_back(inType);
  }
  Value weight = plan.weight ? reshapeTo(b, loc, plan.weight, row) : Value();
  Value bias = plan.bias ? reshapeTo(b, loc, plan.bias, row) : Value();
  auto rowOp = kernel::RowOp::create(b, loc, TypeRange(types),
                                     kernel::RowKindAttr::get(b.getContext(), plan.kind), x,
                                     residual, weight, bias, inits,
                                     b.getF64FloatAttr(plan.eps),
                                     b.getI64IntegerAttr(plan.numDims));
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] row " << kernel::stringifyRowKind(plan.kind)
                          << " at " << loc << (residual ? " with its residual add" : "") << "\n");
  plan.replaced.replaceAllUsesWith(rowOp.getResult(0));
  if (writesSum)
    add.getResult().replaceAllUsesWith(rowOp.getResult(1));
  SmallVector<Operation *> dead(plan.absorbed);
  if (!llvm::is_contained(dead, last))
    dead.push_back(last);
  llvm::sort(dead, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  if (residual)
    dead.insert(dead.begin(), add);
  eraseDead(dead);
}

} // namespace

void tcc::formation::formRowKernels(func::FuncOp func) {
  SmallVector<Operation *> candidates;
  func.walk([&](Operation *op) {
    if (isa<graph::SoftmaxOp, graph::LayerNormOp, graph::RmsNormOp, graph::ReduceMeanOp>(op))
      candidates.push_back(op);
  });
  for (Operation *op : candidates) {
    std::optional<RowPlan> plan;
    if (auto softmax = dyn_cast<graph::SoftmaxOp>(op)) {
      auto t = typeOf(softmax.getInput());
      if (softmax.getDim() == t.getRank() - 1 && kernelElementType(t.getElementType()) &&
          kernelElementType(typeOf(softmax.getResult()).getElementType()))
        plan = RowPlan{softmax.getLog() ? kernel::RowKind::log_softmax : kernel::RowKind::softmax,
                       softmax.getInput(), {}, {}, 0.0, 1, softmax.getResult(), {}};
    } else if (auto norm = dyn_cast<graph::LayerNormOp>(op)) {
      if (kernelElementType(typeOf(norm.getInput()).getElementType()))
        plan = RowPlan{kernel::RowKind::layer_norm, norm.getInput(), norm.getWeight(),
                       norm.getBias(), norm.getEps().convertToDouble(), (int64_t)norm.getNumDims(),
                       norm.getResult(), {}};
    } else if (auto norm = dyn_cast<graph::RmsNormOp>(op)) {
      if (kernelElementType(typeOf(norm.getInput()).getElementType()))
        plan = RowPlan{kernel::RowKind::rms_norm, norm.getInput(), norm.getWeight(), {},
                       norm.getEps().convertToDouble(), (int64_t)norm.getNumDims(),
                       norm.getResult(), {}};
    } else if (auto mean = dyn_cast<graph::ReduceMeanOp>(op)) {
      plan = matchHandWrittenRmsNorm(mean);
      if (!plan)
        continue;
    }
    for (Value p : {plan ? plan->weight : Value(), plan ? plan->bias : Value()})
      if (p && !kernelElementType(typeOf(p).getElementType()))
        plan.reset();
    if (plan)
      formRow(*plan, op->getLoc());
    else
      graph::decomposeWholeOp(op);
  }
}
