//===- ChannelsLast.cpp - layout changes moved to the model's edges -------===//
//
// A channels-last convolution (FormConv.cpp) sits between an NCHW → NHWC
// transpose of its input and an NHWC → NCHW transpose of its result. Left
// there, every convolution would cost two copies. Walking the program in
// order, each NHWC → NCHW transpose is moved below the ops that read it:
//   - pointwise ops (unary, binary, compare, select, cast) whose other
//     operands are channels-last too, or broadcast along the channels only
//     (a per-channel [C, 1, 1] or a scalar: a reshape makes them [1, 1, 1, C]);
//   - a concatenation along the channels (dim 1 → dim 3), other inputs
//     transposed on their way in;
//   - a reduction (dims renumbered; without keepdim only when the kept dims
//     stay in order, as a global average pool's [N, C] does);
//   - max and average pooling (which then pool NHWC);
// and a transpose of a transpose is one transpose, or none. What a transpose
// cannot pass (a flatten before a linear layer) reads it as a copy: once at
// the model's edges rather than around every convolution.
//
//===----------------------------------------------------------------------===//
#include "FormKernels.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tcc-form-kernels"

using namespace mlir;
using namespace tcc::formation;
namespace graph = tcc::graph;

namespace {

constexpr int64_t kToLast[4] = {0, 2, 3, 1};  ///< NCHW → NHWC
constexpr int64_t kToFirst[4] = {0, 3, 1, 2}; ///< NHWC → NCHW

SmallVector<int64_t> permuted(ArrayRef<int64_t> shape, const int64_t (&perm)[4]) {
  return {shape[perm[0]], shape[perm[1]], shape[perm[2]], shape[perm[3]]};
}

/// Whether permuting `shape` by `perm` keeps the order of the dims that are
/// not statically 1 (then the permutation moves no bytes: a reshape).
bool movesOnlyUnitDims(ArrayRef<int64_t> shape, ArrayRef<int64_t> perm) {
  int64_t last = -1;
  for (int64_t p : perm) {
    if (shape[p] == 1)
      continue;
    if (p < last)
      return false;
    last = p;
  }
  return true;
}

Value relayout(OpBuilder &b, Location loc, Value v, const int64_t (&perm)[4]) {
  RankedTensorType t = typeOf(v);
  auto type = RankedTensorType::get(permuted(t.getShape(), perm), t.getElementType());
  if (movesOnlyUnitDims(t.getShape(), perm) && type.getNumDynamicDims() == 0)
    return graph::ReshapeOp::create(b, loc, type, v);
  return graph::TransposeOp::create(b, loc, type, v, b.getDenseI64ArrayAttr(perm));
}

/// The NHWC value `v` is the NCHW view of (a transpose or reshape made by
/// toChannelsFirst), or null.
Value channelsLastSource(Value v) {
  auto t = typeOf(v);
  if (t.getRank() != 4)
    return nullptr;
  if (Value in = transposeInput(v, kToFirst))
    return in;
  if (auto reshape = v.getDefiningOp<graph::ReshapeOp>()) {
    Value in = reshape.getInput();
    auto it = typeOf(in);
    if (it.getRank() == 4 && it.hasStaticShape() && t.hasStaticShape() &&
        permuted(it.getShape(), kToFirst) == t.getShape() &&
        movesOnlyUnitDims(it.getShape(), kToFirst))
      return in;
  }
  return nullptr;
}

/// `v` for a pointwise op computed channels-last: its channels-last source,
/// a per-channel or scalar operand reshaped to broadcast over NHWC, or null.
Value channelsLastOperand(OpBuilder &b, Location loc, Value v) {
  if (Value source = channelsLastSource(v))
    return source;
  RankedTensorType t = typeOf(v);
  if (t.getRank() == 0)
    return v;
  if (t.getRank() > 4 || !t.hasStaticShape())
    return nullptr;
  SmallVector<int64_t> shape(4 - t.getRank(), 1);
  shape.append(t.getShape().begin(), t.getShape().end());
  if (!movesOnlyUnitDims(shape, kToLast))
    return nullptr;
  return graph::ReshapeOp::create(
      b, loc, RankedTensorType::get(permuted(shape, kToLast), t.getElementType()), v);
}

} // namespace

bool tcc::formation::isPointwise(Operation *op) {
  return isa<graph::SinOp, graph::CosOp, graph::ExpOp, graph::SqrtOp, graph::RsqrtOp,
             graph::NegOp, graph::ReluOp, graph::TanhOp, graph::ErfOp, graph::LogOp,
             graph::Log1pOp, graph::AbsOp, graph::AddOp, graph::SubOp, graph::MulOp,
             graph::DivOp, graph::MaximumOp, graph::MinimumOp, graph::PowOp,
             graph::BitwiseAndOp, graph::BitwiseOrOp, graph::FmodOp, graph::CompareOp,
             graph::SelectOp, graph::CastOp, graph::FloorOp, graph::CeilOp, graph::TruncOp,
             graph::RoundOp, graph::TanOp, graph::AsinOp, graph::AcosOp, graph::AtanOp,
             graph::SinhOp, graph::CoshOp, graph::AsinhOp, graph::AcoshOp, graph::AtanhOp,
             graph::Exp2Op, graph::Expm1Op, graph::Log2Op, graph::Log10Op, graph::ErfcOp,
             graph::Atan2Op, graph::CopysignOp>(op);
}

namespace {

/// Replaces `op`'s result with the NCHW view of `nhwc`.
void replaceWithChannelsLast(Operation *op, Value nhwc) {
  OpBuilder b(op);
  b.setInsertionPointAfterValue(nhwc);
  op->getResult(0).replaceAllUsesWith(toChannelsFirst(b, op->getLoc(), nhwc));
  op->erase();
}

/// A transpose of a transpose as one (or none).
bool composeTransposes(graph::TransposeOp outer) {
  auto inner = outer.getInput().getDefiningOp<graph::TransposeOp>();
  if (!inner)
    return false;
  ArrayRef<int64_t> p0 = inner.getPermutation(), p1 = outer.getPermutation();
  SmallVector<int64_t> composed;
  for (int64_t i : p1)
    composed.push_back(p0[i]);
  Value result = inner.getInput();
  if (!llvm::equal(composed, llvm::seq<int64_t>(0, composed.size()))) {
    OpBuilder b(outer);
    result = graph::TransposeOp::create(b, outer.getLoc(), outer.getType(), result,
                                        b.getDenseI64ArrayAttr(composed));
  }
  outer.getResult().replaceAllUsesWith(result);
  outer.erase();
  return true;
}

bool sinkThroughPointwise(Operation *op) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || type.getRank() != 4 ||
      llvm::none_of(op->getOperands(), [](Value v) { return channelsLastSource(v); }))
    return false;
  OpBuilder b(op);
  SmallVector<Value> operands;
  for (Value v : op->getOperands()) {
    Value nhwc = channelsLastOperand(b, op->getLoc(), v);
    if (!nhwc)
      return false; // the reshapes made so far die with canonicalization
    operands.push_back(nhwc);
  }
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(operands);
  state.addTypes(RankedTensorType::get(permuted(type.getShape(), kToLast), type.getElementType()));
  state.addAttributes(op->getAttrs());
  replaceWithChannelsLast(op, b.create(state)->getResult(0));
  return true;
}

/// A concatenation along the channels with one channels-last input is
/// computed channels-last; another input is transposed on its way in (once:
/// DenseNet concatenates a block's first input in every layer, and CSE
/// merges the equal transposes).
bool sinkThroughConcat(graph::ConcatOp concat) {
  if (typeOf(concat.getResult()).getRank() != 4 || concat.getDim() != 1 ||
      llvm::none_of(concat.getInputs(), [](Value v) { return channelsLastSource(v); }))
    return false;
  OpBuilder b(concat);
  SmallVector<Value> sources;
  for (Value v : concat.getInputs()) {
    Value source = channelsLastSource(v);
    sources.push_back(source ? source : toChannelsLast(b, concat.getLoc(), v));
  }
  RankedTensorType t = typeOf(concat.getResult());
  auto nhwc = graph::ConcatOp::create(
      b, concat.getLoc(), RankedTensorType::get(permuted(t.getShape(), kToLast), t.getElementType()),
      sources, b.getI64IntegerAttr(3));
  replaceWithChannelsLast(concat, nhwc);
  return true;
}

/// A pooling op on a channels-last value pools it channels-last.
template <typename PoolOp> bool sinkThroughPool(PoolOp pool) {
  Value source = channelsLastSource(pool.getInput());
  if (!source || pool.getChannelsLast())
    return false;
  RankedTensorType t = typeOf(pool.getResult());
  OpBuilder b(pool);
  auto nhwc = PoolOp::create(
      b, pool.getLoc(), RankedTensorType::get(permuted(t.getShape(), kToLast), t.getElementType()),
      source, pool.getKernelAttr(), pool.getStrideAttr(), pool.getPaddingAttr(),
      pool.getDilationAttr(), pool.getCeilModeAttr(), pool.getCountIncludePadAttr(),
      b.getUnitAttr());
  replaceWithChannelsLast(pool, nhwc);
  return true;
}

template <typename ReduceOp> bool sinkThroughReduce(ReduceOp reduce) {
  Value source = channelsLastSource(reduce.getInput());
  if (!source)
    return false;
  constexpr int64_t position[4] = {0, 3, 1, 2}; // NCHW dim → NHWC dim
  SmallVector<int64_t> dims;
  for (int64_t d : reduce.getDims())
    dims.push_back(position[d]);
  llvm::sort(dims);
  OpBuilder b(reduce);
  RankedTensorType t = typeOf(reduce.getResult());
  if (reduce.getKeepdim()) {
    auto nhwc = ReduceOp::create(
        b, reduce.getLoc(), RankedTensorType::get(permuted(t.getShape(), kToLast), t.getElementType()),
        source, b.getDenseI64ArrayAttr(dims), reduce.getKeepdimAttr());
    replaceWithChannelsLast(reduce, nhwc);
    return true;
  }
  // Without keepdim the result has no layout of its own when the kept dims
  // come in the same order in both layouts.
  int64_t last = -1;
  for (int64_t d = 0; d < 4; ++d) {
    if (llvm::is_contained(reduce.getDims(), d))
      continue;
    if (position[d] < last)
      return false;
    last = position[d];
  }
  auto same = ReduceOp::create(b, reduce.getLoc(), t, source, b.getDenseI64ArrayAttr(dims),
                               reduce.getKeepdimAttr());
  reduce.getResult().replaceAllUsesWith(same.getResult());
  reduce.erase();
  return true;
}

} // namespace

SmallVector<int64_t> tcc::formation::channelsLastShape(ArrayRef<int64_t> nchw) {
  return permuted(nchw, kToLast);
}

SmallVector<int64_t> tcc::formation::channelsFirstShape(ArrayRef<int64_t> nhwc) {
  return permuted(nhwc, kToFirst);
}

Value tcc::formation::toChannelsLast(OpBuilder &b, Location loc, Value v) {
  return relayout(b, loc, v, kToLast);
}

Value tcc::formation::toChannelsFirst(OpBuilder &b, Location loc, Value v) {
  return relayout(b, loc, v, kToFirst);
}

void tcc::formation::sinkLayoutTransposes(func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "tcc_graph")
      ops.push_back(op);
  });
  int64_t moved = 0;
  for (Operation *op : ops) {
    bool changed = false;
    if (auto t = dyn_cast<graph::TransposeOp>(op))
      changed = composeTransposes(t);
    else if (auto c = dyn_cast<graph::ConcatOp>(op))
      changed = sinkThroughConcat(c);
    else if (auto r = dyn_cast<graph::ReduceSumOp>(op))
      changed = sinkThroughReduce(r);
    else if (auto r = dyn_cast<graph::ReduceMeanOp>(op))
      changed = sinkThroughReduce(r);
    else if (auto r = dyn_cast<graph::ReduceMaxOp>(op))
      changed = sinkThroughReduce(r);
    else if (auto p = dyn_cast<graph::MaxPool2dOp>(op))
      changed = sinkThroughPool(p);
    else if (auto p = dyn_cast<graph::AvgPool2dOp>(op))
      changed = sinkThroughPool(p);
    else if (isPointwise(op))
      changed = sinkThroughPointwise(op);
    moved += changed;
  }
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << moved << " layout changes moved or cancelled\n");
}
