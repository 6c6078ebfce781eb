//===- LegalizeCombinatorics.cpp - cartesian_prod, combinations -----------===//
//
// Products and combinations of 1-D tensors of static length: every column is
// one take, and the columns are stacked. cartesian_prod's indices are iota
// arithmetic; combinations' (known when compiling) are constant vectors, so
// it compiles for the CPU path only (torch.export records its row count as
// an unbacked symbol anyway, which is refused).
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// A 1-D i64 constant.
Value indexConstant(OpBuilder &b, Location loc, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({(int64_t)values.size()}, b.getI64Type());
  return b.create<ConstantOp>(loc, type, cast<ElementsAttr>(DenseElementsAttr::get(type, values)));
}

/// [rows, columns.size()]: column j is `x` (1-D) read at columns[j].
Value stackColumns(OpBuilder &b, Location loc, ArrayRef<Value> sources,
                   ArrayRef<SmallVector<int64_t>> columns) {
  int64_t rows = columns.front().size();
  Type elt = typeOf(sources.front()).getElementType();
  SmallVector<Value> parts;
  for (auto [x, column] : llvm::zip(sources, columns)) {
    Value index = indexConstant(b, loc, column);
    Value taken = b.create<TakeOp>(loc, RankedTensorType::get({rows}, elt), x, index,
                                   b.getI64IntegerAttr(0));
    parts.push_back(makeReshape(b, loc, taken, {rows, 1}));
  }
  if (parts.size() == 1)
    return parts.front();
  return b.create<ConcatOp>(loc, RankedTensorType::get({rows, (int64_t)parts.size()}, elt), parts,
                            b.getI64IntegerAttr(1));
}

/// The operands, each 1-D of static length and one element type.
FailureOr<SmallVector<Value>> vectors(OperatorArgs &args, SmallVector<Value> inputs) {
  if (inputs.empty())
    return operatorError(args) << "needs at least one tensor";
  for (Value v : inputs)
    if (typeOf(v).getRank() != 1 || !typeOf(v).hasStaticShape() ||
        typeOf(v).getElementType() != typeOf(inputs.front()).getElementType())
      return operatorError(args) << "expects 1-D tensors of static length and one dtype, got "
                                 << v.getType();
  return inputs;
}

/// The result as a constant when it has no elements.
std::optional<Value> emptyResult(OperatorArgs &args, OpBuilder &b) {
  RankedTensorType type = args.resultType();
  if (type.hasStaticShape() && type.getNumElements() == 0)
    return makeSplat(b, args.getOp().getLoc(), type, 0.0);
  return std::nullopt;
}

/// cartesian_prod(tensors): the rows of itertools.product (the last tensor
/// varies fastest); one tensor gives itself.
Results legalizeCartesianProd(OperatorArgs &args, OpBuilder &b) {
  FailureOr<SmallVector<Value>> in = vectors(args, args.tensorList("tensors"));
  if (failed(in))
    return failure();
  if (in->size() == 1)
    return SmallVector<Value>{in->front()};
  if (std::optional<Value> empty = emptyResult(args, b))
    return SmallVector<Value>{*empty};
  // Row r reads tensor j at (r / stride_j) mod n_j, stride_j the product of
  // the later tensors' lengths: iota arithmetic, no constant tables (which
  // the CUDA path cannot read).
  Location loc = args.getOp().getLoc();
  Type i64 = b.getI64Type();
  int64_t rows = 1;
  for (Value v : *in)
    rows *= typeOf(v).getShape()[0];
  Value r = b.create<IotaOp>(loc, RankedTensorType::get({rows}, i64), b.getF64FloatAttr(0),
                             b.getF64FloatAttr(1));
  Type elt = typeOf(in->front()).getElementType();
  SmallVector<Value> parts(in->size());
  int64_t stride = 1;
  for (int64_t j = in->size() - 1; j >= 0; --j) {
    int64_t n = typeOf((*in)[j]).getShape()[0];
    Value index = r;
    if (stride != 1)
      index = makeBinary<TruncDivOp>(b, loc, index, makeScalar(b, loc, i64, stride));
    if (stride * n != rows)
      index = makeBinary<FmodOp>(b, loc, index, makeScalar(b, loc, i64, n));
    Value taken = b.create<TakeOp>(loc, RankedTensorType::get({rows}, elt), (*in)[j], index,
                                   b.getI64IntegerAttr(0));
    parts[j] = makeReshape(b, loc, taken, {rows, 1});
    stride *= n;
  }
  Value out = b.create<ConcatOp>(loc, RankedTensorType::get({rows, (int64_t)parts.size()}, elt),
                                 parts, b.getI64IntegerAttr(1));
  if (failed(verifyCompatibleShape(typeOf(out), args.resultType())))
    return operatorError(args) << "computed " << out.getType() << " for result "
                               << args.resultType();
  return SmallVector<Value>{out};
}

/// combinations(self, r, with_replacement): the rows of
/// itertools.combinations (or combinations_with_replacement) of self's
/// elements, in that order; r = 0 gives an empty 1-D tensor.
Results legalizeCombinations(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> self = requiredTensor(args, "self");
  if (failed(self))
    return failure();
  FailureOr<SmallVector<Value>> in = vectors(args, {*self});
  if (failed(in))
    return failure();
  // torch.export leaves combinations' row count an unbacked symbol, which
  // no input binds: the artifact could not state its output's size.
  if (!args.resultType().hasStaticShape())
    return operatorError(args) << "a result of data-dependent size "
                               << args.resultType() << " is not supported";
  if (std::optional<Value> empty = emptyResult(args, b))
    return SmallVector<Value>{*empty};
  int64_t r = args.getInt("r").value_or(2);
  bool replace = args.getBool("with_replacement").value_or(false);
  int64_t n = typeOf(*self).getShape()[0];
  if (r < 1)
    return operatorError(args) << "r must be positive, got " << r;
  SmallVector<SmallVector<int64_t>> columns(r);
  // The index tuples in lexicographic order, each non-decreasing
  // (with_replacement) or increasing.
  SmallVector<int64_t> pick(r);
  for (int64_t j = 0; j < r; ++j)
    pick[j] = replace ? 0 : j;
  bool any = replace ? n > 0 : r <= n;
  while (any) {
    for (int64_t j = 0; j < r; ++j)
      columns[j].push_back(pick[j]);
    int64_t j = r - 1;
    // The rightmost position that can still grow.
    while (j >= 0 && pick[j] == (replace ? n - 1 : n - r + j))
      --j;
    if (j < 0)
      break;
    ++pick[j];
    for (int64_t k = j + 1; k < r; ++k)
      pick[k] = replace ? pick[j] : pick[k - 1] + 1;
  }
  if (columns.front().empty())
    return operatorError(args) << "no combinations of " << r << " of " << n
                               << " elements, yet a non-empty result";
  SmallVector<Value> sources(r, *self);
  Value out = stackColumns(b, args.getOp().getLoc(), sources, columns);
  if (failed(verifyCompatibleShape(typeOf(out), args.resultType())))
    return operatorError(args) << "computed " << out.getType() << " for result "
                               << args.resultType();
  return SmallVector<Value>{out};
}
} // namespace

void tcc::graph::populateCombinatoricsLegalizers(LegalizerTable &t) {
  t["aten.cartesian_prod.default"] = legalizeCartesianProd;
  t["aten.combinations.default"] = legalizeCombinations;
}
