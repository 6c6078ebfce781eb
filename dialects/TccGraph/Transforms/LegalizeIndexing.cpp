//===- LegalizeIndexing.cpp - expand, gathers by index, as_strided --------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <cmath>

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// `made` if it verifies; otherwise erases it and reports the verifier's
/// reason under the operator's name, since the user knows the ATen call.
template <typename OpTy>
Results verified(OperatorArgs &args, OpTy made) {
  std::string reason;
  LogicalResult ok = [&] {
    ScopedDiagnosticHandler capture(made->getContext(), [&](Diagnostic &d) {
      reason = d.str();
      return success();
    });
    return mlir::verify(made);
  }();
  if (succeeded(ok))
    return SmallVector<Value>{made.getResult()};
  made->erase();
  return args.getOp().emitError("operator '") << operatorName(args) << "': " << reason;
}

int64_t rankOf(Value v) { return cast<RankedTensorType>(v.getType()).getRank(); }

/// expand / expand_as: the export's result type already resolved -1 sizes.
Results legalizeExpand(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self");
  if (failed(x))
    return failure();
  RankedTensorType type = args.resultType();
  // Symbolic result sizes (expand to a sequence length) come from the
  // export's expressions rather than from the input.
  FailureOr<SmallVector<Value>> sizes = symbolicSizes(args, b);
  if (failed(sizes))
    return failure();
  return verified(args, b.create<BroadcastOp>(args.getOp().getLoc(), type, *x, *sizes));
}

/// `dim` argument normalized against `rank`, or an error naming the operator.
FailureOr<int64_t> dimArg(OperatorArgs &args, int64_t rank, int64_t fallback = 0) {
  int64_t raw = args.getInt("dim").value_or(fallback);
  int64_t dim = normalizeDim(raw, rank);
  if (dim < 0 || dim >= rank)
    return args.getOp().emitError("operator '") << operatorName(args) << "': dim " << raw
                                                << " out of range for rank " << rank;
  return dim;
}

Results makeTake(OperatorArgs &args, OpBuilder &b, Value x, Value index, int64_t dim) {
  if (!isa<IntegerType>(cast<RankedTensorType>(index.getType()).getElementType()) ||
      cast<RankedTensorType>(index.getType()).getElementType().isInteger(1))
    return args.getOp().emitError("operator '")
           << operatorName(args) << "': only integer index tensors are supported "
           << "(boolean masks are not)";
  return verified(args, b.create<TakeOp>(args.getOp().getLoc(), args.resultType(), x, index,
                                         b.getI64IntegerAttr(dim)));
}

/// The source, the index tensor and (when `hasDim`) the normalized `dim`.
struct Indexed {
  Value x, index;
  int64_t dim = 0;
};
FailureOr<Indexed> indexedArgs(OperatorArgs &args, StringRef source, StringRef indexName,
                               bool hasDim) {
  FailureOr<Value> x = requiredTensor(args, source), index = requiredTensor(args, indexName);
  if (failed(x) || failed(index))
    return failure();
  Indexed r{*x, *index};
  if (hasDim) {
    FailureOr<int64_t> dim = dimArg(args, rankOf(*x));
    if (failed(dim))
      return failure();
    r.dim = *dim;
  }
  return r;
}

Results legalizeEmbedding(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Indexed> in = indexedArgs(args, "weight", "indices", /*hasDim=*/false);
  if (failed(in))
    return failure();
  return makeTake(args, b, in->x, in->index, 0);
}

/// gather / index_select on a 0-d self (dim 0 or -1, which PyTorch accepts
/// there): every index must be 0 (PyTorch rejects even -1), and each result
/// element is self.
/// Also any result with no elements.
std::optional<Results> scalarOrEmptyIndexing(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  RankedTensorType type = args.resultType();
  if (type.hasStaticShape() && type.getNumElements() == 0)
    return Results(SmallVector<Value>{makeSplat(b, loc, type, 0.0)});
  Value x = args.tensor("self"), index = args.tensor("index");
  if (!x || !index || rankOf(x) != 0)
    return std::nullopt;
  int64_t raw = args.getInt("dim").value_or(0);
  if (raw != 0 && raw != -1)
    return Results(operatorError(args) << "dim " << raw << " out of range for rank 0");
  RankedTensorType it = cast<RankedTensorType>(index.getType());
  if (!isa<IntegerType>(it.getElementType()) || it.getElementType().isInteger(1) ||
      !it.hasStaticShape() || it.getNumElements() != type.getNumElements())
    return Results(operatorError(args) << "index of type " << it << " for a 0-d self");
  Type i64 = b.getI64Type();
  Value wide = makeCast(b, loc, index, i64);
  Value ok = makeCompare(b, loc, "eq", wide, makeScalar(b, loc, i64, 0));
  ok = makeReshape(b, loc, ok, type.getShape());
  Value spread = b.create<BroadcastOp>(loc, type, x);
  return Results(SmallVector<Value>{b.create<CheckOp>(
      loc, type, ok, spread,
      b.getStringAttr(operatorName(args) + ": index out of range for a 0-d tensor"))});
}

/// embedding_bag(weight, indices, offsets, ..., mode, ..., per_sample_weights,
/// include_last_offset, padding_idx) in sum (0) or mean (1) mode: bag b
/// holds the indices at positions [offsets[b], offsets[b + 1]) (the last bag
/// runs to the end; include_last_offset only drops the final offset); their rows, scaled by
/// per_sample_weights, are summed over the bag, an index equal to
/// padding_idx (negative counts from the end) left out; mean divides by the bag's count of others,
/// and an empty bag is 0. A [bags, n] membership mask and one reduction.
/// Only the first result (the bags) may be used.
Results legalizeEmbeddingBag(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> weight = requiredTensor(args, "weight"),
                   indices = requiredTensor(args, "indices"),
                   offsets = requiredTensor(args, "offsets");
  if (failed(weight) || failed(indices) || failed(offsets))
    return failure();
  int64_t mode = args.getInt("mode").value_or(0);
  if (mode != 0 && mode != 1)
    return operatorError(args) << "mode " << mode << " (max) is not supported";
  RankedTensorType wt = typeOf(*weight), it = typeOf(*indices), ot = typeOf(*offsets);
  RankedTensorType type = args.resultType();
  Type elt = wt.getElementType();
  if (wt.getRank() != 2 || it.getRank() != 1 || ot.getRank() != 1 || !wt.hasStaticShape() ||
      !it.hasStaticShape() || !ot.hasStaticShape() || !type.hasStaticShape() ||
      !isa<FloatType>(elt))
    return operatorError(args) << "needs a static float weight, 1-D indices and offsets";
  bool lastOffset = args.getBool("include_last_offset").value_or(false);
  int64_t n = it.getShape()[0], dim = wt.getShape()[1];
  int64_t bags = ot.getShape()[0] - (lastOffset ? 1 : 0);
  if (bags < 0 || type.getShape() != ArrayRef<int64_t>{bags, dim})
    return operatorError(args) << "result of type " << type << " for " << bags << " bags";
  if (type.getNumElements() == 0)
    return SmallVector<Value>{makeSplat(b, loc, type, 0.0)};
  if (n == 0)
    return SmallVector<Value>{makeSplat(b, loc, type, 0.0)};
  Type i64 = b.getI64Type();
  Value bound = makeCast(b, loc, *offsets, i64);
  Value start = makeSlice(b, loc, bound, 0, 0, bags, 1);
  // The last bag runs to the end of the indices, even with
  // include_last_offset (ATen's CPU kernel ignores the final offset's value).
  Value later = makeSlice(b, loc, bound, 0, 1, bags, 1);
  Value total = makeScalar(b, loc, i64, n);
  Value last = makeReshape(b, loc, total, {1});
  Value end = b.create<ConcatOp>(loc, RankedTensorType::get({bags}, i64),
                                 ValueRange{later, last}, b.getI64IntegerAttr(0));
  start = makeReshape(b, loc, start, {bags, 1});
  end = makeReshape(b, loc, end, {bags, 1});
  Value position = makeIotaAt(b, loc, n, i64, 2, 1);
  Value fromStart = makeCompare(b, loc, "ge", position, start);
  Value beforeEnd = makeCompare(b, loc, "lt", position, end);
  Value member = makeBinary<BitwiseAndOp>(b, loc, fromStart, beforeEnd);
  Value index = makeCast(b, loc, *indices, i64);
  // None means no padding row; a negative padding_idx counts from the end
  // (ATen wraps it, as the export passes F.embedding_bag's -1 through).
  std::optional<int64_t> padding = args.getInt("padding_idx");
  if (padding && *padding < 0)
    *padding += wt.getShape()[0];
  if (padding && *padding >= 0) {
    Value kept = makeCompare(b, loc, "ne", index, makeScalar(b, loc, i64, *padding));
    Value keptRow = makeReshape(b, loc, kept, {1, n});
    member = makeBinary<BitwiseAndOp>(b, loc, member, keptRow);
  }
  Value rows = b.create<TakeOp>(loc, RankedTensorType::get({n, dim}, elt), *weight, index,
                                b.getI64IntegerAttr(0));
  if (Value scale = args.tensor("per_sample_weights")) {
    if (mode != 0 || typeOf(scale).getShape() != it.getShape())
      return operatorError(args) << "per_sample_weights need sum mode and one weight per index";
    Value column = makeReshape(b, loc, makeCast(b, loc, scale, elt), {n, 1});
    rows = makeBinary<MulOp>(b, loc, rows, column);
  }
  Value member3 = makeReshape(b, loc, member, {bags, n, 1});
  Value rows3 = makeReshape(b, loc, rows, {1, n, dim});
  Value picked = b.create<SelectOp>(loc, RankedTensorType::get({bags, n, dim}, elt), member3,
                                    rows3, makeScalar(b, loc, elt, 0.0));
  Value out = makeReduce<ReduceSumOp>(b, loc, picked, {1}, false);
  if (mode == 1) {
    Value ones = makeCast(b, loc, member, elt);
    Value count = makeReduce<ReduceSumOp>(b, loc, ones, {1}, true);
    Value mean = makeBinary<DivOp>(b, loc, out, count);
    Value empty = makeCompare(b, loc, "eq", count, makeScalar(b, loc, elt, 0.0));
    out = b.create<SelectOp>(loc, type, empty, makeScalar(b, loc, elt, 0.0), mean);
  }
  SmallVector<Value> results{out};
  results.resize(args.getOp()->getNumResults(), nullptr);
  return results;
}

Results legalizeIndexSelect(OperatorArgs &args, OpBuilder &b) {
  if (std::optional<Results> r = scalarOrEmptyIndexing(args, b))
    return *r;
  FailureOr<Indexed> in = indexedArgs(args, "self", "index", /*hasDim=*/true);
  if (failed(in))
    return failure();
  if (rankOf(in->index) > 1)
    return args.getOp().emitError("operator '") << operatorName(args)
                                                << "': the index must be 1-D";
  return makeTake(args, b, in->x, in->index, in->dim);
}

/// `x` taken along `dim` at `index` (i64): the result has `index`'s shape in
/// place of that dim (TakeOp's rule).
Value takeAlong(OpBuilder &b, Location loc, Value x, Value index, int64_t dim) {
  auto t = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> shape = t.getShape();
  SmallVector<int64_t> taken(shape.take_front(dim));
  llvm::append_range(taken, cast<RankedTensorType>(index.getType()).getShape());
  taken.append(shape.begin() + dim + 1, shape.end());
  return b.create<TakeOp>(loc, RankedTensorType::get(taken, t.getElementType()), x, index,
                          b.getI64IntegerAttr(dim));
}

/// `v` read backwards along `raw` (a take of n−1, ..., 0); a 0-d tensor or a
/// dim of size 0 or 1 is itself.
FailureOr<Value> flipDim(OperatorArgs &args, OpBuilder &b, Value v, int64_t raw) {
  int64_t rank = rankOf(v);
  int64_t d = normalizeDim(raw, rank);
  bool inRange = d >= 0 && d < std::max<int64_t>(rank, 1);
  int64_t n = rank && inRange ? cast<RankedTensorType>(v.getType()).getDimSize(d) : 1;
  if (!inRange)
    return args.getOp().emitError("operator '") << operatorName(args) << "': flip of dim "
                                                << raw << " out of range for a rank-" << rank
                                                << " tensor";
  // (kDynamic is negative: a symbolic size is not "at most 1".)
  if (rank == 0 || (!ShapedType::isDynamic(n) && n <= 1))
    return v;
  Location loc = args.getOp().getLoc();
  if (ShapedType::isDynamic(n)) {
    // A symbolic size: n - 1 - i over an iota of the size read at run time.
    Type i64 = b.getI64Type();
    Value length = b.create<tensor::DimOp>(loc, v, d);
    Value i = b.create<IotaOp>(loc, RankedTensorType::get({n}, i64), b.getF64FloatAttr(0),
                               b.getF64FloatAttr(1), ValueRange{length});
    Value size = b.create<DimSizeOp>(loc, RankedTensorType::get({}, i64), v,
                                     b.getI64IntegerAttr(d));
    Value last = makeBinary<SubOp>(b, loc, size, makeScalar(b, loc, i64, 1.0));
    Value backwards = makeBinary<SubOp>(b, loc, last, i);
    return takeAlong(b, loc, v, backwards, d);
  }
  Value index = b.create<IotaOp>(loc, RankedTensorType::get({n}, b.getI64Type()),
                                 b.getF64FloatAttr(static_cast<double>(n - 1)),
                                 b.getF64FloatAttr(-1), ValueRange{});
  return takeAlong(b, loc, v, index, d);
}

/// flip(self, dims): each dim read backwards.
Results legalizeFlip(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self");
  std::optional<SmallVector<int64_t>> dims = args.getInts("dims");
  if (failed(x) || !dims)
    return args.getOp().emitError("flip expects a tensor and its dims");
  Value v = *x;
  for (int64_t raw : *dims) {
    FailureOr<Value> flipped = flipDim(args, b, v, raw);
    if (failed(flipped))
      return failure();
    v = *flipped;
  }
  return SmallVector<Value>{v};
}

/// fliplr (dim 1 of a tensor of rank >= 2) and flipud (dim 0, rank >= 1).
LegalizeFn flipOne(int64_t dim) {
  return [dim](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Value> x = requiredTensor(args, "self");
    if (failed(x))
      return failure();
    if (rankOf(*x) <= dim)
      return args.getOp().emitError("operator '") << operatorName(args) << "' needs a tensor of rank "
                                                  << dim + 1 << " or more";
    FailureOr<Value> flipped = flipDim(args, b, *x, dim);
    if (failed(flipped))
      return failure();
    return SmallVector<Value>{*flipped};
  };
}

/// rot90(self, k, dims=[d0, d1]): PyTorch's composition, k taken modulo 4:
/// k = 1 flips d1 then swaps d0 and d1, k = 2 flips both, k = 3 flips d0
/// then swaps.
Results legalizeRot90(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self");
  if (failed(x))
    return failure();
  SmallVector<int64_t> dims = args.getInts("dims").value_or(SmallVector<int64_t>{0, 1});
  int64_t rank = rankOf(*x);
  if (dims.size() != 2 || rank < 2)
    return args.getOp().emitError("operator '") << operatorName(args)
                                                << "' needs two dims of a tensor of rank 2 or more";
  int64_t d0 = normalizeDim(dims[0], rank), d1 = normalizeDim(dims[1], rank);
  if (d0 < 0 || d0 >= rank || d1 < 0 || d1 >= rank || d0 == d1)
    return args.getOp().emitError("operator '") << operatorName(args) << "': dims [" << dims[0]
                                                << ", " << dims[1] << "] for a rank-" << rank
                                                << " tensor";
  int64_t k = ((args.getInt("k").value_or(1) % 4) + 4) % 4;
  SmallVector<int64_t> flips;
  if (k == 1) flips = {d1};
  if (k == 2) flips = {d0, d1};
  if (k == 3) flips = {d0};
  Value v = *x;
  for (int64_t d : flips) {
    FailureOr<Value> flipped = flipDim(args, b, v, d);
    if (failed(flipped))
      return failure();
    v = *flipped;
  }
  if (k % 2 == 0)
    return SmallVector<Value>{v};
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[d0], perm[d1]);
  return SmallVector<Value>{b.create<TransposeOp>(args.getOp().getLoc(), args.resultType(), v,
                                                  b.getDenseI64ArrayAttr(perm))
                                .getResult()};
}

/// unfold(self, dimension, size, step): the windows
/// self[..., i*step : i*step + size, ...] along `dimension`, their elements
/// in a new last dim: a take by the [count, size] index i*step + j, then
/// that `size` dim moved to the end. A 0-d self is one window of itself.
Results legalizeUnfold(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self");
  std::optional<int64_t> rawDim = args.getInt("dimension"), size = args.getInt("size"),
                         step = args.getInt("step");
  if (failed(x))
    return failure();
  if (!rawDim || !size || !step || *size < 0 || *step < 1)
    return args.getOp().emitError("operator '") << operatorName(args)
                                                << "' needs a dimension, a size >= 0 and a step >= 1";
  Location loc = args.getOp().getLoc();
  int64_t rank = rankOf(*x);
  if (rank == 0)
    return SmallVector<Value>{makeReshape(b, loc, *x, args.resultType().getShape())};
  int64_t dim = normalizeDim(*rawDim, rank);
  if (dim < 0 || dim >= rank)
    return args.getOp().emitError("operator '") << operatorName(args) << "': dimension "
                                                << *rawDim << " out of range for rank " << rank;
  int64_t n = cast<RankedTensorType>(x->getType()).getDimSize(dim);
  if (!ShapedType::isDynamic(n) && *size > n)
    return args.getOp().emitError("operator '") << operatorName(args) << "': windows of "
                                                << *size << " along a dim of size " << n;
  auto i64 = b.getI64Type();
  Value self = *x;
  int64_t count = ShapedType::kDynamic;
  SmallVector<Value> countSize;
  if (ShapedType::isDynamic(n)) {
    // A symbolic size: max(floor((n - size) / step) + 1, 0) windows, read at
    // run time; a size longer than n fails the call, as PyTorch raises (and
    // no window is read).
    Value extent = sizeTensor(b, loc, self, dim);
    Value least = makeScalar(b, loc, i64, static_cast<double>(*size));
    Value ok = makeCompare(b, loc, "ge", extent, least);
    self = b.create<CheckOp>(loc, self.getType(), ok, self,
                             b.getStringAttr(operatorName(args) + ": windows of " +
                                             std::to_string(*size) + " along dim " +
                                             std::to_string(dim) + " are longer than it"));
    Value nIndex = dimIndex(b, loc, self, dim);
    Value sizeIndex = b.create<arith::ConstantIndexOp>(loc, *size);
    Value stepIndex = b.create<arith::ConstantIndexOp>(loc, *step);
    Value rest = b.create<arith::SubIOp>(loc, nIndex, sizeIndex);
    Value steps = b.create<arith::FloorDivSIOp>(loc, rest, stepIndex);
    Value one = b.create<arith::ConstantIndexOp>(loc, 1);
    Value windows = b.create<arith::AddIOp>(loc, steps, one);
    Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
    countSize.push_back(b.create<arith::MaxSIOp>(loc, windows, zero));
  } else {
    count = (n - *size) / *step + 1;
  }
  Value starts = b.create<IotaOp>(loc, RankedTensorType::get({count}, i64), b.getF64FloatAttr(0),
                                  b.getF64FloatAttr(static_cast<double>(*step)), countSize);
  Value offsets = b.create<IotaOp>(loc, RankedTensorType::get({*size}, i64), b.getF64FloatAttr(0),
                                   b.getF64FloatAttr(1), ValueRange{});
  Value column = makeReshape(b, loc, starts, {count, 1});
  Value row = makeReshape(b, loc, offsets, {1, *size});
  Value index = makeBinary<AddOp>(b, loc, column, row);
  Value windows = takeAlong(b, loc, self, index, dim);
  if (dim == rank - 1)
    return SmallVector<Value>{windows};
  // [..., count, size, rest...] -> [..., count, rest..., size]
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i <= rank; ++i)
    if (i != dim + 1)
      perm.push_back(i);
  perm.push_back(dim + 1);
  return SmallVector<Value>{b.create<TransposeOp>(loc, args.resultType(), windows,
                                                  b.getDenseI64ArrayAttr(perm))
                                .getResult()};
}

/// The diagonal of `x` (static shape) at `offset` between dims d1 and d2: the
/// other dims in order, then the diagonal's, as a strided read of x's
/// row-major storage (stride(d1) + stride(d2) along the diagonal).
Value takeDiagonal(OpBuilder &b, Location loc, Value x, int64_t offset, int64_t d1, int64_t d2) {
  auto t = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> shape = t.getShape();
  int64_t rank = t.getRank();
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t i = rank - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  int64_t length = offset >= 0 ? std::min(shape[d1], shape[d2] - offset)
                               : std::min(shape[d1] + offset, shape[d2]);
  length = std::max<int64_t>(length, 0);
  SmallVector<int64_t> outShape, outStrides;
  for (int64_t i = 0; i < rank; ++i)
    if (i != d1 && i != d2) {
      outShape.push_back(shape[i]);
      outStrides.push_back(strides[i]);
    }
  outShape.push_back(length);
  outStrides.push_back(strides[d1] + strides[d2]);
  int64_t start = length == 0 ? 0 : offset >= 0 ? offset * strides[d2] : -offset * strides[d1];
  return b.create<AsStridedOp>(loc, RankedTensorType::get(outShape, t.getElementType()), x,
                               b.getDenseI64ArrayAttr(outStrides), b.getI64IntegerAttr(start));
}

/// takeDiagonal of a tensor of symbolic sizes: d1 and d2 moved last and
/// flattened to m·n, the diagonal a take at start + i·(n + 1) for i below
/// L = max(0, min(m, n - offset)) (min(m + offset, n) for a negative
/// offset), start = offset (-offset·n), with m and n read at run time.
Value takeDiagonalSymbolic(OpBuilder &b, Location loc, Value x, int64_t offset, int64_t d1,
                           int64_t d2) {
  RankedTensorType t = typeOf(x);
  int64_t rank = t.getRank();
  SmallVector<int64_t> perm, movedShape;
  for (int64_t i = 0; i < rank; ++i)
    if (i != d1 && i != d2)
      perm.push_back(i);
  perm.append({d1, d2});
  for (int64_t i : perm)
    movedShape.push_back(t.getShape()[i]);
  Value moved = x;
  if (!llvm::equal(perm, llvm::seq<int64_t>(0, rank)))
    moved = b.create<TransposeOp>(loc, RankedTensorType::get(movedShape, t.getElementType()), x,
                                  b.getDenseI64ArrayAttr(perm));
  int64_t m = movedShape[rank - 2], n = movedShape[rank - 1];
  bool staticMatrix = !ShapedType::isDynamic(m) && !ShapedType::isDynamic(n);
  SmallVector<int64_t> flatShape(ArrayRef<int64_t>(movedShape).drop_back(2));
  flatShape.push_back(staticMatrix ? m * n : ShapedType::kDynamic);
  SmallVector<Value> flatSizes;
  if (llvm::count_if(flatShape, ShapedType::isDynamic) > 1) {
    for (int64_t i = 0; i + 2 < rank; ++i)
      flatSizes.push_back(dimIndex(b, loc, moved, i));
    flatSizes.push_back(dimProduct(b, loc, moved, rank - 2, rank));
  }
  Value flat = makeReshape(b, loc, moved, flatShape, flatSizes);
  // The diagonal's length, static where the matrix is.
  int64_t length = ShapedType::kDynamic;
  Value lengthIndex;
  if (staticMatrix) {
    length = std::max<int64_t>(offset >= 0 ? std::min(m, n - offset) : std::min(m + offset, n), 0);
  } else {
    Value rows = dimIndex(b, loc, moved, rank - 2);
    Value cols = dimIndex(b, loc, moved, rank - 1);
    Value shift = b.create<arith::ConstantIndexOp>(loc, std::abs(offset));
    if (offset >= 0)
      cols = b.create<arith::SubIOp>(loc, cols, shift);
    else
      rows = b.create<arith::SubIOp>(loc, rows, shift);
    Value shorter = b.create<arith::MinSIOp>(loc, rows, cols);
    Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
    lengthIndex = b.create<arith::MaxSIOp>(loc, shorter, zero);
  }
  Type i64 = b.getI64Type();
  Value i = makeIotaAt(b, loc, length, i64, 1, 0, lengthIndex);
  Value columns = sizeTensor(b, loc, moved, rank - 1);
  Value one = makeScalar(b, loc, i64, 1.0);
  Value step = makeBinary<AddOp>(b, loc, columns, one);
  Value along = makeBinary<MulOp>(b, loc, i, step);
  Value start = makeScalar(b, loc, i64, static_cast<double>(std::abs(offset)));
  if (offset < 0)
    start = makeBinary<MulOp>(b, loc, start, columns);
  Value index = makeBinary<AddOp>(b, loc, along, start);
  return takeAlong(b, loc, flat, index, rank - 2);
}

/// The operands named `first` and `second`, or failure after an error.
FailureOr<std::pair<Value, Value>> requiredPair(OperatorArgs &args, StringRef first,
                                                StringRef second) {
  FailureOr<Value> a = requiredTensor(args, first);
  FailureOr<Value> b = requiredTensor(args, second);
  if (failed(a) || failed(b))
    return failure();
  return std::make_pair(*a, *b);
}

/// The size of one input dim for grid sampling: static, or `value` (the
/// size read at run time, in the grid's element type). at(a, b) is
/// a * size + b (exact in either: small integers and halves).
struct AxisSize {
  int64_t size;
  Value value;
  Value at(PointwiseBuilder &p, double a, double b) const {
    if (!value)
      return p.c(a * static_cast<double>(size) + b);
    Value scaled = a == 1.0 ? value : p.bin<MulOp>(value, p.c(a));
    return b == 0.0 ? scaled : p.bin<AddOp>(scaled, p.c(b));
  }
};

/// A grid coordinate in [-1, 1] as a pixel position along a dim of `size`,
/// with ATen's padding: border clips to [0, size - 1]; reflection reflects
/// about the edges (the pixels' centers with align_corners, else their outer
/// borders), then clips. `scalar`: in the arithmetic of ATen's scalar
/// kernels (3-D: ((g + 1) / 2) * (size - 1), fmod and the flips' parity),
/// else of its vectorized 2-D kernel ((g + 1) * (size - 1) / 2).
Value gridSourceIndex(PointwiseBuilder &p, Value g, const AxisSize &size, bool align,
                      int64_t padding, bool scalar) {
  Value shifted = p.bin<AddOp>(g, p.c(1));
  Value c;
  if (scalar && align) {
    Value half = p.bin<DivOp>(shifted, p.c(2));
    c = p.bin<MulOp>(half, size.at(p, 1, -1));
  } else if (scalar) {
    Value scaled = p.bin<MulOp>(shifted, size.at(p, 1, 0));
    Value less = p.bin<SubOp>(scaled, p.c(1));
    c = p.bin<DivOp>(less, p.c(2));
  } else {
    // (size - 1) / 2 with align_corners, else size / 2.
    c = p.bin<MulOp>(shifted, align ? size.at(p, 0.5, -0.5) : size.at(p, 0.5, 0));
    if (!align)
      c = p.bin<SubOp>(c, p.c(0.5));
  }
  if (padding == 2) {
    // align_corners over one pixel: position 0 (a symbolic size: chosen at
    // run time).
    bool single = align && !size.value && size.size <= 1;
    Value reflected;
    if (single) {
      reflected = p.bin<MulOp>(c, p.c(0));
    } else if (scalar) {
      // ATen's reflect_coordinates(c, twice_low, twice_high).
      double low = align ? 0.0 : -0.5;
      auto span = [&] { return align ? size.at(p, 1, -1) : size.at(p, 1, 0); };
      Value from = p.bin<SubOp>(c, p.c(low));
      Value a = p.un<AbsOp>(from);
      Value extra = p.bin<FmodOp>(a, span());
      Value ratio = p.bin<DivOp>(a, span());
      Value flips = p.un<FloorOp>(ratio);
      Value parity = p.bin<FmodOp>(flips, p.c(2));
      Value even = makeCompare(p.b, p.loc, "eq", parity, p.c(0));
      Value up = p.bin<AddOp>(extra, p.c(low));
      Value back = p.bin<SubOp>(span(), extra);
      Value down = p.bin<AddOp>(back, p.c(low));
      reflected = p.b.create<SelectOp>(p.loc, typeOf(up), even, up, down);
    } else {
      auto twice = [&] { return align ? size.at(p, 2, -2) : size.at(p, 2, 0); };
      Value from = align ? c : p.bin<AddOp>(c, p.c(0.5));
      Value a = p.un<AbsOp>(from);
      Value ratio = p.bin<DivOp>(a, twice());
      Value flips = p.un<TruncOp>(ratio);
      Value whole = p.bin<MulOp>(flips, twice());
      Value extra = p.bin<SubOp>(a, whole);
      Value mirrored = p.bin<SubOp>(twice(), extra);
      reflected = p.bin<MinimumOp>(extra, mirrored);
      if (!align)
        reflected = p.bin<SubOp>(reflected, p.c(0.5));
    }
    if (align && size.value) {
      Value one = makeCompare(p.b, p.loc, "le", size.value, p.c(1));
      Value zeroed = p.bin<MulOp>(c, p.c(0));
      reflected = p.b.create<SelectOp>(p.loc, typeOf(reflected), one, zeroed, reflected);
    }
    c = reflected;
  }
  if (padding != 0) {
    Value low = p.bin<MaximumOp>(c, p.c(0));
    c = p.bin<MinimumOp>(low, size.at(p, 1, -1));
  }
  return c;
}

/// grid_sampler_2d/3d and grid_sampler on [N, C, (D,) H, W] by a grid
/// [N, (Do,) Ho, Wo, 2 or 3] of (x, y (, z)) in [-1, 1]: bilinear (mode 0;
/// ATen's corner weights, in its 2-D kernel's order nw, ne, sw, se and its
/// 3-D kernel's tnw .. bse) or nearest (mode 1: round half to even), padding
/// zeros (0: corners outside read 0), border (1) or reflection (2). Each
/// corner is one gather from the flattened image.
Results legalizeGridSample(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<std::pair<Value, Value>> operands = requiredPair(args, "input", "grid");
  if (failed(operands))
    return failure();
  auto [input, grid] = *operands;
  auto xt = typeOf(input), gt = typeOf(grid);
  int64_t mode = args.getInt("interpolation_mode").value_or(0);
  int64_t padding = args.getInt("padding_mode").value_or(0);
  bool align = args.getBool("align_corners").value_or(false);
  int64_t nd = xt.getRank() - 2;
  if ((nd != 2 && nd != 3) || gt.getRank() != nd + 2 || gt.getShape().back() != nd ||
      !isa<FloatType>(xt.getElementType()) ||
      (!xt.isDynamicDim(0) && !gt.isDynamicDim(0) && gt.getShape()[0] != xt.getShape()[0]))
    return operatorError(args) << "needs a float [N, C, (D,) H, W] input and [N, (Do,) "
                                  "Ho, Wo, 2 or 3] grid";
  if (mode != 0 && mode != 1)
    return operatorError(args) << "mode 'bicubic' is not supported yet (bilinear and nearest are)";
  if (padding < 0 || padding > 2)
    return operatorError(args) << "unknown padding_mode " << padding;
  // Symbolic sizes are read at run time; the grid's batch is the input's
  // in the export, else the call checks it (and the grid is read fitted).
  bool symbolic = !xt.hasStaticShape() || !gt.hasStaticShape();
  Value fits;
  if (xt.isDynamicDim(0) != gt.isDynamicDim(0) ||
      (xt.isDynamicDim(0) && !sameSize(args, input, 0, grid, 0))) {
    Value leftSize = sizeTensor(b, loc, grid, 0);
    Value rightSize = sizeTensor(b, loc, input, 0);
    fits = makeCompare(b, loc, "eq", leftSize, rightSize);
    grid = fitDim(b, loc, grid, 0, input, 0, 0.0);
    gt = typeOf(grid);
  }
  auto product = [](ArrayRef<int64_t> shape) {
    return llvm::any_of(shape, ShapedType::isDynamic) ? ShapedType::kDynamic
                                                      : ShapedType::getNumElements(shape);
  };
  int64_t n = xt.getShape()[0], ch = xt.getShape()[1];
  int64_t l = product(gt.getShape().slice(1, nd)), pixels = product(xt.getShape().drop_front(2));
  Value nSize, chSize, lSize, pixelSize;
  if (symbolic) {
    nSize = dimIndex(b, loc, input, 0);
    chSize = dimIndex(b, loc, input, 1);
    lSize = dimProduct(b, loc, grid, 1, nd + 1);
    pixelSize = dimProduct(b, loc, input, 2, xt.getRank());
  }
  Type elt = xt.getElementType();
  PointwiseBuilder p{b, loc, elt};
  // Coordinate k (x, y, z) runs along input dim rank - 1 - k.
  SmallVector<AxisSize> sizes;
  for (int64_t k = 0; k < nd; ++k) {
    int64_t d = xt.getRank() - 1 - k, size = xt.getShape()[d];
    Value value = ShapedType::isDynamic(size) ? makeCast(b, loc, sizeTensor(b, loc, input, d), elt)
                                              : Value();
    sizes.push_back({size, value});
  }
  Value g = makeCast(b, loc, grid, elt);
  SmallVector<Value> at;
  for (int64_t k = 0; k < nd; ++k) {
    Value gk = makeReshape(b, loc, makeSlice(b, loc, g, nd + 1, k, k + 1, 1), {n, 1, l},
                           {nSize, Value(), lSize});
    at.push_back(gridSourceIndex(p, gk, sizes[k], align, padding, nd == 3));
  }
  Value flat = makeReshape(b, loc, input, {n, ch, pixels}, {nSize, chSize, pixelSize});
  auto gatherType = RankedTensorType::get({n, ch, l}, elt);
  SmallVector<Value> gatherSizes;
  for (auto [size, value] : llvm::zip_equal(gatherType.getShape(),
                                            SmallVector<Value>{nSize, chSize, lSize}))
    if (ShapedType::isDynamic(size))
      gatherSizes.push_back(value);
  Value zero = p.c(0), one = p.c(1);
  // 1 where `cond`, else 0 (one op per statement: argument order is the
  // compiler's, issue 17).
  auto indicator = [&](StringRef predicate, Value v, Value bound) {
    Value cond = makeCompare(b, loc, predicate, v, bound);
    return b.create<SelectOp>(loc, typeOf(v), cond, one, zero).getResult();
  };
  // The input at pixel position `pos` ([N, 1, L] per coordinate, exact
  // integers), 0 outside.
  auto read = [&](ArrayRef<Value> pos) {
    Value ok, linear;
    for (int64_t k = nd - 1; k >= 0; --k) {
      Value last = sizes[k].at(p, 1, -1);
      Value low = indicator("ge", pos[k], zero);
      Value high = indicator("le", pos[k], last);
      Value inside = p.bin<MulOp>(low, high);
      ok = ok ? p.bin<MulOp>(ok, inside) : inside;
      Value above = p.bin<MaximumOp>(pos[k], zero);
      Value clamped = p.bin<MinimumOp>(above, last);
      if (linear) {
        Value scaled = p.bin<MulOp>(linear, sizes[k].at(p, 1, 0));
        linear = p.bin<AddOp>(scaled, clamped);
      } else {
        linear = clamped;
      }
    }
    Value index = makeCast(b, loc, linear, b.getI64Type());
    Value idx = b.create<BroadcastOp>(loc, RankedTensorType::get({n, ch, l}, b.getI64Type()),
                                      index, gatherSizes);
    Value v = b.create<GatherOp>(loc, gatherType, flat, idx, b.getI64IntegerAttr(2));
    Value inside = makeCompare(b, loc, "ne", ok, zero);
    return b.create<SelectOp>(loc, gatherType, inside, v, zero).getResult();
  };
  Value y;
  if (mode == 1) {
    SmallVector<Value> rounded;
    for (Value c : at)
      rounded.push_back(p.un<RoundOp>(c));
    y = read(rounded);
  } else if (nd == 2) {
    Value ix = at[0], iy = at[1];
    Value xw = p.un<FloorOp>(ix), yn = p.un<FloorOp>(iy);
    Value xe = p.bin<AddOp>(xw, one), ys = p.bin<AddOp>(yn, one);
    Value we = p.bin<SubOp>(ix, xw);
    Value ea = p.bin<SubOp>(one, we);
    Value no = p.bin<SubOp>(iy, yn);
    Value so = p.bin<SubOp>(one, no);
    Value nw = p.bin<MulOp>(so, ea), ne = p.bin<MulOp>(so, we);
    Value sw = p.bin<MulOp>(no, ea), se = p.bin<MulOp>(no, we);
    Value vnw = read({xw, yn}), vne = read({xe, yn}), vsw = read({xw, ys}), vse = read({xe, ys});
    Value t0 = p.bin<MulOp>(vnw, nw);
    Value t1 = p.bin<MulOp>(vne, ne);
    y = p.bin<AddOp>(t0, t1);
    Value t2 = p.bin<MulOp>(vsw, sw);
    y = p.bin<AddOp>(y, t2);
    Value t3 = p.bin<MulOp>(vse, se);
    y = p.bin<AddOp>(y, t3);
  } else {
    // ATen's 3-D kernel: per coordinate the floor corner c0 and c0 + 1,
    // weights (c0 + 1 - c) and (c - c0), multiplied x * y * z; corners
    // summed z-major (t/b), then y (n/s), then x (w/e).
    SmallVector<Value> lo, hi, wLo, wHi;
    for (Value c : at) {
      lo.push_back(p.un<FloorOp>(c));
      hi.push_back(p.bin<AddOp>(lo.back(), one));
      wLo.push_back(p.bin<SubOp>(hi.back(), c));
      wHi.push_back(p.bin<SubOp>(c, lo.back()));
    }
    for (int corner = 0; corner < 8; ++corner) {
      bool zHigh = corner & 4, yHigh = corner & 2, xHigh = corner & 1;
      Value wxy = p.bin<MulOp>(xHigh ? wHi[0] : wLo[0], yHigh ? wHi[1] : wLo[1]);
      Value weight = p.bin<MulOp>(wxy, zHigh ? wHi[2] : wLo[2]);
      Value v = read({xHigh ? hi[0] : lo[0], yHigh ? hi[1] : lo[1], zHigh ? hi[2] : lo[2]});
      Value term = p.bin<MulOp>(v, weight);
      y = y ? p.bin<AddOp>(y, term) : term;
    }
  }
  SmallVector<int64_t> outShape{n, ch};
  SmallVector<Value> outSizes{nSize, chSize};
  for (int64_t d = 1; d <= nd; ++d) {
    outShape.push_back(gt.getShape()[d]);
    outSizes.push_back(symbolic ? dimIndex(b, loc, grid, d) : Value());
  }
  Value result = makeReshape(b, loc, y, outShape, outSizes);
  if (fits)
    result = b.create<CheckOp>(loc, typeOf(result), fits, result,
                               b.getStringAttr(operatorName(args) +
                                               ": the grid's batch is not the input's"));
  return SmallVector<Value>{result};
}

/// histc(self, bins, min, max) as ATen's CPU kernel counts: edges lo and hi
/// (the data's min and max where min == max, then widened by 1 each way
/// where they are equal too; a run-time error where those are not finite,
/// as PyTorch raises); an element in [lo, hi] (not NaN) falls in bin
/// trunc((x - lo) * bins / (hi - lo)) in the input's type, the last bin
/// also holding x == hi. One comparison per element and bin, summed.
Results legalizeHistc(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> self = requiredTensor(args, "self");
  if (failed(self))
    return failure();
  auto xt = cast<RankedTensorType>(self->getType());
  Type elt = xt.getElementType();
  int64_t bins = args.getInt("bins").value_or(100);
  if (!isa<FloatType>(elt) || !xt.hasStaticShape() || bins < 1 || bins > (1 << 24))
    return operatorError(args) << "needs a floating-point tensor of static shape and 1 to 2^24 "
                                  "bins";
  double minArg = args.getFloat("min").value_or(0), maxArg = args.getFloat("max").value_or(0);
  if (!(minArg <= maxArg) || !std::isfinite(minArg) || !std::isfinite(maxArg))
    return operatorError(args) << "needs finite min <= max";
  Value flat = makeReshape(b, loc, *self, {xt.getNumElements()});
  auto c = [&](double v) { return makeScalar(b, loc, elt, v); };
  Value lo = c(minArg), hi = c(maxArg);
  if (minArg == maxArg) {
    if (xt.getNumElements() > 0) {
      // PyTorch raises where the data's range is not finite (an infinity,
      // or a NaN: its aminmax is NaN then).
      Value difference = makeBinary<SubOp>(b, loc, flat, flat);
      Value finite = makeCompare(b, loc, "eq", difference, c(0));
      std::string message =
          (operatorName(args) + ": the range of the data is not finite (an infinity or NaN "
                                "in it, with min == max), where PyTorch raises")
              .str();
      flat = b.create<CheckOp>(loc, flat.getType(), finite, flat, b.getStringAttr(message));
      hi = makeReduce<ReduceMaxOp>(b, loc, flat, {0}, false);
      Value negated = b.create<NegOp>(loc, flat);
      lo = b.create<NegOp>(loc, makeReduce<ReduceMaxOp>(b, loc, negated, {0}, false));
      Value same = makeCompare(b, loc, "eq", lo, hi);
      Value loWide = makeBinary<SubOp>(b, loc, lo, c(1));
      Value hiWide = makeBinary<AddOp>(b, loc, hi, c(1));
      lo = b.create<SelectOp>(loc, typeOf(lo), same, loWide, lo);
      hi = b.create<SelectOp>(loc, typeOf(hi), same, hiWide, hi);
    } else {
      lo = c(minArg - 1);
      hi = c(maxArg + 1);
    }
  }
  Value shifted = makeBinary<SubOp>(b, loc, flat, lo);
  Value scaled = makeBinary<MulOp>(b, loc, shifted, c(static_cast<double>(bins)));
  Value width = makeBinary<SubOp>(b, loc, hi, lo);
  Value pos = b.create<FloorOp>(loc, makeBinary<DivOp>(b, loc, scaled, width));
  pos = makeBinary<MinimumOp>(b, loc, pos, c(static_cast<double>(bins - 1)));
  Value one = c(1), zero = c(0);
  auto indicator = [&](Value cond) {
    auto t = RankedTensorType::get(typeOf(cond).getShape(), elt);
    return b.create<SelectOp>(loc, t, cond, one, zero).getResult();
  };
  // One op per statement: argument order is the compiler's (issue 17).
  Value aboveLo = indicator(makeCompare(b, loc, "ge", flat, lo));
  Value belowHi = indicator(makeCompare(b, loc, "le", flat, hi));
  Value inRange = makeBinary<MulOp>(b, loc, aboveLo, belowHi);
  int64_t n = xt.getNumElements();
  Value column = makeReshape(b, loc, pos, {n, 1});
  Value binIds = makeIotaAt(b, loc, bins, elt, 2, 1);
  Value hits = indicator(makeCompare(b, loc, "eq", column, binIds));
  hits = makeBinary<MulOp>(b, loc, hits, makeReshape(b, loc, inRange, {n, 1}));
  return SmallVector<Value>{makeReduce<ReduceSumOp>(b, loc, hits, {0}, false)};
}

/// diagonal_scatter(self, src, offset, dim1, dim2): self with its diagonal
/// (as diagonal() reads it) replaced by src ([other dims.., L]). src is laid
/// out in self's dims (L where the diagonal's row index runs: dim1 for
/// offset >= 0, else dim2; 1 at the other), padded by zeros to that dim's
/// size, and selected where idx(dim2) - idx(dim1) == offset.
Results legalizeDiagonalScatter(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<std::pair<Value, Value>> operands = requiredPair(args, "self", "src");
  if (failed(operands))
    return failure();
  Value x = operands->first, src = operands->second;
  auto xt = typeOf(x);
  int64_t rank = xt.getRank();
  int64_t d1 = normalizeDim(args.getInt("dim1").value_or(0), std::max<int64_t>(rank, 1));
  int64_t d2 = normalizeDim(args.getInt("dim2").value_or(1), std::max<int64_t>(rank, 1));
  int64_t offset = args.getInt("offset").value_or(0);
  auto st = cast<RankedTensorType>(src.getType());
  if (rank < 2 || d1 < 0 || d1 >= rank || d2 < 0 || d2 >= rank || d1 == d2 ||
      st.getRank() != rank - 1)
    return operatorError(args) << "needs two distinct dims of self and a src of one rank less";
  ArrayRef<int64_t> shape = xt.getShape();
  bool staticMatrix = !ShapedType::isDynamic(shape[d1]) && !ShapedType::isDynamic(shape[d2]);
  int64_t length = ShapedType::kDynamic;
  if (staticMatrix) {
    length = offset >= 0 ? std::min(shape[d1], shape[d2] - offset)
                         : std::min(shape[d1] + offset, shape[d2]);
    if (length <= 0)
      return SmallVector<Value>{x};
    if (!ShapedType::isDynamic(st.getShape().back()) && st.getShape().back() != length)
      return operatorError(args) << "expects a src whose last dim is the diagonal's length "
                                 << length;
  }
  Value v = makeCast(b, loc, src, xt.getElementType());
  SmallVector<int64_t> withUnit(st.getShape());
  withUnit.push_back(1);
  SmallVector<Value> unitSizes;
  for (int64_t d = 0; d < st.getRank(); ++d)
    unitSizes.push_back(st.isDynamicDim(d) ? dimIndex(b, loc, v, d) : Value());
  unitSizes.push_back(Value());
  v = makeReshape(b, loc, v, withUnit, unitSizes);
  int64_t row = offset >= 0 ? d1 : d2, other = offset >= 0 ? d2 : d1;
  SmallVector<int64_t> perm, laid;
  int64_t next = 0;
  for (int64_t p = 0; p < rank; ++p) {
    perm.push_back(p == row ? rank - 2 : p == other ? rank - 1 : next++);
    laid.push_back(withUnit[perm.back()]);
  }
  v = b.create<TransposeOp>(loc, RankedTensorType::get(laid, xt.getElementType()), v,
                            b.getDenseI64ArrayAttr(perm));
  // Over symbolic sizes src is read fitted to the row dim: a src whose length
  // is not the diagonal's reads nothing outside it.
  if (xt.hasStaticShape() && st.hasStaticShape()) {
    v = padConstant(b, loc, v, row, 0, shape[row] - length);
  } else {
    Value rowSize = ShapedType::isDynamic(shape[row]) ? dimIndex(b, loc, x, row) : Value();
    v = fitDimTo(b, loc, v, row, shape[row], rowSize, 0.0);
  }
  auto iotaAlong = [&](int64_t d) {
    Value size = xt.isDynamicDim(d) ? dimIndex(b, loc, x, d) : Value();
    return makeIotaAt(b, loc, shape[d], b.getI64Type(), rank, d, size);
  };
  Value i1 = iotaAlong(d1);
  Value i2 = iotaAlong(d2);
  Value diff = makeBinary<SubOp>(b, loc, i2, i1);
  Value mask = makeCompare(b, loc, "eq", diff, makeScalar(b, loc, b.getI64Type(), offset));
  return SmallVector<Value>{b.create<SelectOp>(loc, xt, mask, v, x).getResult()};
}

/// diagonal(self, offset, dim1, dim2) (and diagonal_copy); linalg_diagonal(A,
/// offset, dim1=-2, dim2=-1).
Results legalizeDiagonal(OperatorArgs &args, OpBuilder &b) {
  bool linalg = args.has("A");
  FailureOr<Value> x = requiredTensor(args, linalg ? "A" : "self");
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  int64_t d1 = normalizeDim(args.getInt("dim1").value_or(linalg ? -2 : 0), std::max<int64_t>(rank, 1));
  int64_t d2 = normalizeDim(args.getInt("dim2").value_or(linalg ? -1 : 1), std::max<int64_t>(rank, 1));
  if (rank < 2 || d1 < 0 || d1 >= rank || d2 < 0 || d2 >= rank || d1 == d2)
    return args.getOp().emitError("operator '") << operatorName(args)
                                                << "' needs two distinct dims";
  int64_t offset = args.getInt("offset").value_or(0);
  if (!typeOf(*x).hasStaticShape())
    return SmallVector<Value>{takeDiagonalSymbolic(b, args.getOp().getLoc(), *x, offset, d1, d2)};
  return verified(args, cast<AsStridedOp>(takeDiagonal(b, args.getOp().getLoc(), *x, offset, d1,
                                                       d2)
                                              .getDefiningOp()));
}

/// The vectors along v's last dim ([..., n]) on diagonal k of
/// [..., side, side] matrices, side = n + |k|: select(j - i == k, v at row i
/// (k >= 0) or column j (k < 0), 0), v padded with zeros to the side. Any
/// size may be symbolic: the side is then read at run time.
Value diagonalMatrices(OpBuilder &b, Location loc, Value v, int64_t k) {
  RankedTensorType t = typeOf(v);
  SmallVector<int64_t> batch(t.getShape().drop_back());
  int64_t last = batch.size();
  int64_t n = t.getShape().back();
  int64_t side = ShapedType::isDynamic(n) ? n : n + std::abs(k);
  if (!t.hasStaticShape()) {
    if (k != 0)
      v = padConstant(b, loc, v, last, 0, std::abs(k));
  } else if (side > n) {
    SmallVector<int64_t> padShape(batch), fullShape(batch);
    padShape.push_back(side - n);
    fullShape.push_back(side);
    Value zeros = makeSplat(b, loc, RankedTensorType::get(padShape, t.getElementType()), 0.0);
    v = b.create<ConcatOp>(loc, RankedTensorType::get(fullShape, t.getElementType()),
                           ValueRange{v, zeros}, b.getI64IntegerAttr(batch.size()));
  }
  SmallVector<Value> sideSize;
  if (ShapedType::isDynamic(side))
    sideSize.push_back(dimIndex(b, loc, v, last));
  auto i64 = b.getI64Type();
  Value rows = b.create<IotaOp>(loc, RankedTensorType::get({side}, i64), b.getF64FloatAttr(0),
                                b.getF64FloatAttr(1), sideSize);
  Value i = makeReshape(b, loc, rows, {side, 1});
  Value j = makeReshape(b, loc, rows, {1, side});
  Value offset = makeBinary<SubOp>(b, loc, j, i);
  Value onDiagonal = makeCompare(b, loc, "eq", offset, makeScalar(b, loc, i64, k));
  SmallVector<int64_t> valueShape(batch);
  valueShape.append(k >= 0 ? SmallVector<int64_t>{side, 1} : SmallVector<int64_t>{1, side});
  // The symbolic sizes of the values' shape, where there are several.
  SmallVector<Value> valueSizes;
  for (int64_t d = 0; d < last; ++d)
    valueSizes.push_back(t.isDynamicDim(d) ? dimIndex(b, loc, v, d) : Value());
  Value sideValue = sideSize.empty() ? Value() : sideSize[0];
  valueSizes.append(k >= 0 ? SmallVector<Value>{sideValue, Value()}
                           : SmallVector<Value>{Value(), sideValue});
  Value values = makeReshape(b, loc, v, valueShape, valueSizes);
  Value zero = makeScalar(b, loc, t.getElementType(), 0.0);
  SmallVector<int64_t> outShape(batch);
  outShape.append({side, side});
  return b.create<SelectOp>(loc, RankedTensorType::get(outShape, t.getElementType()), onDiagonal,
                            values, zero);
}

/// diag(self, diagonal) of a matrix: its diagonal; of a vector v (and
/// diagflat of any tensor, flattened): the square matrix of side n + |k| with
/// v on diagonal k, built as select(j - i == k, v at row i (k >= 0) or
/// column j (k < 0), 0) from v padded with zeros to the side.
Results legalizeDiag(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self");
  if (failed(x))
    return failure();
  Location loc = args.getOp().getLoc();
  auto t = cast<RankedTensorType>(x->getType());
  bool flat = operatorName(args).starts_with("aten.diagflat.");
  int64_t k = args.getInt(flat ? "offset" : "diagonal").value_or(0);
  if (!flat && t.getRank() != 1 && t.getRank() != 2)
    return args.getOp().emitError("operator '") << operatorName(args)
                                                << "' needs a vector or matrix";
  if (!flat && t.getRank() == 2 && !t.hasStaticShape())
    return SmallVector<Value>{takeDiagonalSymbolic(b, loc, *x, k, 0, 1)};
  if (!flat && t.getRank() == 2)
    return verified(args, cast<AsStridedOp>(takeDiagonal(b, loc, *x, k, 0, 1).getDefiningOp()));
  Value v = makeReshape(b, loc, *x, {elementCount(*x)});
  return SmallVector<Value>{diagonalMatrices(b, loc, v, k)};
}

/// diag_embed(self, offset, dim1=-2, dim2=-1): each vector along self's last
/// dim on diagonal `offset` of a matrix whose rows and columns become dims
/// dim1 and dim2 of the result.
Results legalizeDiagEmbed(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self");
  if (failed(x))
    return failure();
  Location loc = args.getOp().getLoc();
  RankedTensorType t = typeOf(*x);
  if (t.getRank() < 1)
    return operatorError(args) << "needs a tensor of rank >= 1";
  int64_t rank = t.getRank() + 1;
  int64_t d1 = normalizeDim(args.getInt("dim1").value_or(-2), rank);
  int64_t d2 = normalizeDim(args.getInt("dim2").value_or(-1), rank);
  if (d1 < 0 || d1 >= rank || d2 < 0 || d2 >= rank || d1 == d2)
    return operatorError(args) << "needs two distinct dims of the result";
  Value m = diagonalMatrices(b, loc, *x, args.getInt("offset").value_or(0));
  // Rows (dim rank-2 of m) go to d1, columns to d2, the rest in order.
  SmallVector<int64_t> perm, shape;
  for (int64_t p = 0, batch = 0; p < rank; ++p)
    perm.push_back(p == d1 ? rank - 2 : p == d2 ? rank - 1 : batch++);
  for (int64_t p : perm)
    shape.push_back(typeOf(m).getShape()[p]);
  return SmallVector<Value>{b.create<TransposeOp>(
      loc, RankedTensorType::get(shape, t.getElementType()), m, b.getDenseI64ArrayAttr(perm))};
}

/// take(self, index): self flattened, read at index (negative from the end).
Results legalizeTakeFlat(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self"), index = requiredTensor(args, "index");
  if (failed(x) || failed(index))
    return failure();
  Value flat = makeReshape(b, args.getOp().getLoc(), *x, {elementCount(*x)});
  return makeTake(args, b, flat, *index, 0);
}

/// take_along_dim(self, indices, dim): self and indices broadcast against
/// each other except along dim, then gathered; without dim both flattened.
/// A symbolic size stretches nothing: it is the other side's where the
/// export says so, else the call checks that they agree (and indices are
/// read fitted to self's).
Results legalizeTakeAlongDim(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> x = requiredTensor(args, "self"), index = requiredTensor(args, "indices");
  if (failed(x) || failed(index))
    return failure();
  RankedTensorType xt = typeOf(*x), it = typeOf(*index);
  if (!isa<IntegerType>(it.getElementType()))
    return operatorError(args) << "needs integer indices";
  Value self = *x, idx = *index, fits;
  int64_t dim = 0;
  if (std::optional<int64_t> given = args.getInt("dim")) {
    if (xt.getRank() != it.getRank())
      return operatorError(args) << "self and indices need one rank";
    dim = normalizeDim(*given, xt.getRank());
    SmallVector<int64_t> selfShape(xt.getShape()), indexShape(it.getShape());
    // Symbolic sizes of the stretched results: the other side's.
    SmallVector<Value> selfSizes(xt.getRank()), indexSizes(xt.getRank());
    for (int64_t i = 0; i < xt.getRank(); ++i) {
      int64_t s = selfShape[i], t = indexShape[i];
      if (i == dim) {
        selfSizes[i] = ShapedType::isDynamic(s) ? dimIndex(b, loc, self, i) : Value();
        indexSizes[i] = ShapedType::isDynamic(t) ? dimIndex(b, loc, idx, i) : Value();
        continue;
      }
      if (!ShapedType::isDynamic(s) && !ShapedType::isDynamic(t)) {
        int64_t both = std::max(s, t);
        if ((s != both && s != 1) || (t != both && t != 1))
          return operatorError(args) << "self " << xt << " and indices " << it << " do not broadcast";
        selfShape[i] = indexShape[i] = both;
        continue;
      }
      if (s == 1 || t == 1) { // a static 1 stretches to the other's symbolic size
        Value size = s == 1 ? dimIndex(b, loc, idx, i) : dimIndex(b, loc, self, i);
        selfShape[i] = indexShape[i] = ShapedType::kDynamic;
        selfSizes[i] = indexSizes[i] = size;
        continue;
      }
      if (!sameSize(args, *x, i, *index, i)) {
        Value leftSize = sizeTensor(b, loc, *index, i);
        Value rightSize = sizeTensor(b, loc, *x, i);
        Value eq = makeCompare(b, loc, "eq", leftSize, rightSize);
        fits = conjoin(b, loc, fits, eq);
        idx = fitDim(b, loc, idx, i, self, i, 0.0);
        indexShape[i] = selfShape[i];
      }
      Value size = dimIndex(b, loc, self, i);
      selfSizes[i] = ShapedType::isDynamic(selfShape[i]) ? size : Value();
      indexSizes[i] = ShapedType::isDynamic(indexShape[i]) ? size : Value();
    }
    auto stretch = [&](Value v, ArrayRef<int64_t> shape, ArrayRef<Value> sizes) -> Value {
      if (typeOf(v).getShape() == shape)
        return v;
      SmallVector<Value> dynamic;
      for (auto [size, value] : llvm::zip_equal(shape, sizes))
        if (ShapedType::isDynamic(size))
          dynamic.push_back(value);
      return b.create<BroadcastOp>(loc, RankedTensorType::get(shape, typeOf(v).getElementType()),
                                   v, dynamic);
    };
    self = stretch(self, selfShape, selfSizes);
    idx = stretch(idx, indexShape, indexSizes);
  } else {
    self = makeReshape(b, loc, self, {elementCount(self)});
    idx = makeReshape(b, loc, idx, {elementCount(idx)});
  }
  Results gathered = verified(args, b.create<GatherOp>(loc, args.resultType(), self, idx,
                                                      b.getI64IntegerAttr(dim)));
  if (failed(gathered) || !fits)
    return gathered;
  return SmallVector<Value>{b.create<CheckOp>(
      loc, args.resultType(), fits, gathered->front(),
      b.getStringAttr(operatorName(args) + ": self and indices do not broadcast"))};
}

/// `index` as i64 with negative entries counted from the end of a dim whose
/// size is the rank-0 tensor `size`.
Value wrappedIndex(OpBuilder &b, Location loc, Value index, Value size) {
  index = makeCast(b, loc, index, b.getI64Type());
  Value zero = makeScalar(b, loc, b.getI64Type(), 0.0);
  Value negative = makeCompare(b, loc, "lt", index, zero);
  Value shifted = makeBinary<AddOp>(b, loc, index, size);
  return b.create<SelectOp>(loc, index.getType(), negative, shifted, index);
}

/// `index` wrapped by the static size `size`.
Value wrappedIndex(OpBuilder &b, Location loc, Value index, int64_t size) {
  return wrappedIndex(b, loc, index, makeScalar(b, loc, b.getI64Type(), size));
}

/// x[i0, i1, ...] with several index tensors (None entries elsewhere). The
/// indices broadcast together; the indexed dims, moved to the front unless
/// they are adjacent, collapse into one whose linear index
/// `sum_j wrap(i_j) * stride_j` a take reads along.
Results takeMany(OperatorArgs &args, OpBuilder &b, Value x,
                 ArrayRef<std::pair<int64_t, Value>> indices) {
  OperatorOp op = args.getOp();
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank(), n = indices.size();
  SmallVector<int64_t> positions;
  for (auto [position, index] : indices) {
    auto it = cast<RankedTensorType>(index.getType());
    if (!isa<IntegerType>(it.getElementType()) || it.getElementType().isInteger(1))
      return op.emitError("operator '") << operatorName(args) << "': only integer index "
                                        << "tensors are supported (boolean masks are not)";
    positions.push_back(position);
  }
  bool adjacent = positions.back() - positions.front() == n - 1;
  if (!adjacent) {  // the indexed dims first, the others after in order
    SmallVector<int64_t> perm(positions), shape;
    for (int64_t d = 0; d < rank; ++d)
      if (!llvm::is_contained(positions, d))
        perm.push_back(d);
    for (int64_t d : perm)
      shape.push_back(type.getShape()[d]);
    type = RankedTensorType::get(shape, type.getElementType());
    x = b.create<TransposeOp>(loc, type, x, b.getDenseI64ArrayAttr(perm));
  }
  int64_t first = adjacent ? positions.front() : 0;
  // Symbolic indexed sizes (a sequence length) enter the index arithmetic as
  // dim_size tensors; the collapsed dim is then symbolic.
  ArrayRef<int64_t> sizes = type.getShape().slice(first, n);
  Value linear, strideT;
  int64_t stride = 1;
  for (int64_t j = n - 1; j >= 0; --j) {
    Value sizeT = sizeTensor(b, loc, x, first + j);
    Value term = wrappedIndex(b, loc, indices[j].second, sizeT);
    if (strideT)
      term = makeBinary<MulOp>(b, loc, term, strideT);
    linear = linear ? makeBinary<AddOp>(b, loc, term, linear) : term;
    strideT = strideT ? makeBinary<MulOp>(b, loc, strideT, sizeT) : sizeT;
    stride = ShapedType::isDynamic(sizes[j]) || ShapedType::isDynamic(stride)
                 ? ShapedType::kDynamic
                 : stride * sizes[j];
  }
  SmallVector<int64_t> collapsed(type.getShape().take_front(first));
  collapsed.push_back(stride);
  llvm::append_range(collapsed, type.getShape().drop_front(first + n));
  if (llvm::count_if(collapsed, ShapedType::isDynamic) > 1)
    return op.emitError("operator '") << operatorName(args) << "': more than one symbolic "
                                      << "dim besides the indexed ones is not supported yet";
  return verified(args, b.create<TakeOp>(loc, args.resultType(),
                                         makeReshape(b, loc, x, collapsed), linear,
                                         b.getI64IntegerAttr(first)));
}

/// x[idx] / x[:, :, idx] / x[i0, i1]: index tensors at the positions their
/// operand names (`indices.<i>`) record; None entries are full slices.
Results legalizeIndexTensor(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self");
  if (failed(x))
    return failure();
  FailureOr<SmallVector<std::pair<int64_t, Value>>> indices = indexOperands(args, *x);
  if (failed(indices))
    return failure();
  return indexTensors(args, b, *x, *indices);
}
} // namespace

FailureOr<SmallVector<std::pair<int64_t, Value>>>
tcc::graph::indexOperands(OperatorArgs &args, Value x) {
  OperatorOp op = args.getOp();
  SmallVector<std::pair<int64_t, Value>> indices;
  for (auto [v, n] : llvm::zip(op.getOperands(), op.getOperandNames())) {
    StringRef name = cast<StringAttr>(n).getValue();
    if (!name.consume_front("indices."))
      continue;
    int64_t position;
    if (name.getAsInteger(10, position))
      return op.emitError("operator '") << operatorName(args) << "': bad operand name";
    if (position >= rankOf(x))
      return op.emitError("operator '") << operatorName(args) << "': index at position "
                                        << position << " of a rank-" << rankOf(x)
                                        << " tensor";
    indices.push_back({position, v});
  }
  if (indices.empty())
    return op.emitError("operator '") << operatorName(args) << "': no index tensors";
  llvm::sort(indices, [](auto &l, auto &r) { return l.first < r.first; });
  return indices;
}

FailureOr<SmallVector<Value>>
tcc::graph::indexTensors(OperatorArgs &args, OpBuilder &b, Value x,
                         ArrayRef<std::pair<int64_t, Value>> indices) {
  if (indices.size() == 1)
    return makeTake(args, b, x, indices.front().second, indices.front().first);
  return takeMany(args, b, x, indices);
}

namespace {

Results legalizeGather(OperatorArgs &args, OpBuilder &b) {
  if (std::optional<Results> r = scalarOrEmptyIndexing(args, b))
    return *r;
  FailureOr<Indexed> in = indexedArgs(args, "self", "index", /*hasDim=*/true);
  if (failed(in))
    return failure();
  return verified(args, b.create<GatherOp>(args.getOp().getLoc(), args.resultType(), in->x,
                                           in->index, b.getI64IntegerAttr(in->dim)));
}

/// as_strided reads storage: the importer (StridedStorage.h) points it at a
/// tensor holding what it reads, with the offset from that tensor's first
/// element and, unless row-major, the tensor's dims in memory order
/// (tcc.storage_order), or says why none holds it (tcc.storage_error).
Results legalizeAsStrided(OperatorArgs &args, OpBuilder &b) {
  Operation *op = args.getOp();
  if (auto error = op->getAttrOfType<StringAttr>(TccGraphDialect::getStorageErrorAttrName()))
    return op->emitError("operator '") << operatorName(args) << "': " << error.getValue();
  FailureOr<Value> x = requiredTensor(args, "self");
  std::optional<SmallVector<int64_t>> strides = args.getInts("stride");
  if (failed(x))
    return failure();
  if (!strides)
    return op->emitError("operator '") << operatorName(args) << "' needs static strides";
  int64_t offset = args.getInt("storage_offset").value_or(0);
  Value storage = *x;
  if (auto order = op->getAttrOfType<DenseI64ArrayAttr>(TccGraphDialect::getStorageOrderAttrName())) {
    auto t = cast<RankedTensorType>(storage.getType());
    SmallVector<int64_t> shape;
    for (int64_t d : order.asArrayRef())
      shape.push_back(t.getShape()[d]);
    storage = b.create<TransposeOp>(op->getLoc(), RankedTensorType::get(shape, t.getElementType()),
                                    storage, order);
  }
  return verified(args, b.create<AsStridedOp>(op->getLoc(), args.resultType(), storage,
                                              b.getDenseI64ArrayAttr(*strides),
                                              b.getI64IntegerAttr(offset)));
}

/// as_strided_scatter(self, src, size, stride, storage_offset): a clone of
/// self (contiguous, checked by the importer) whose elements at
/// offset + sum_k i_k * stride[k] are src[i..].
Results legalizeAsStridedScatter(OperatorArgs &args, OpBuilder &b) {
  Operation *op = args.getOp();
  Location loc = op->getLoc();
  if (auto error = op->getAttrOfType<StringAttr>(TccGraphDialect::getStorageErrorAttrName()))
    return operatorError(args) << error.getValue();
  FailureOr<Value> self = requiredTensor(args, "self"), src = requiredTensor(args, "src");
  if (failed(self) || failed(src))
    return failure();
  std::optional<SmallVector<int64_t>> sizes = args.getInts("size"), strides = args.getInts("stride");
  auto st = cast<RankedTensorType>(self->getType()), rt = cast<RankedTensorType>(src->getType());
  if (!sizes || !strides || sizes->size() != strides->size() || !st.hasStaticShape() ||
      !rt.hasStaticShape())
    return operatorError(args) << "needs static shapes, sizes and strides";
  int64_t offset = args.getInt("storage_offset").value_or(0);
  int64_t n = st.getNumElements(), count = 1;
  for (int64_t s : *sizes)
    count *= s;
  if (count != rt.getNumElements())
    return operatorError(args) << "src of type " << rt << " for a view of " << count
                               << " elements";
  if (count == 0 || n == 0)
    return SmallVector<Value>{*self};
  // Every position the view reaches must lie in self (PyTorch checks it).
  SmallVector<int64_t> at(sizes->size(), 0);
  for (int64_t k = 0; k < count; ++k) {
    int64_t p = offset;
    for (size_t d = 0; d < at.size(); ++d)
      p += at[d] * (*strides)[d];
    if (p < 0 || p >= n)
      return operatorError(args) << "the view reaches storage element " << p << " of " << n;
    for (int64_t d = (int64_t)at.size() - 1; d >= 0; --d) {
      if (++at[d] < (*sizes)[d])
        break;
      at[d] = 0;
    }
  }
  // src element k lands at offset + sum_d i_d(k) * stride[d], i_d(k) its
  // coordinates: iota arithmetic, then a scatter into flattened self (the
  // last of several writes to one element wins).
  Type i64 = b.getI64Type();
  Value k = b.create<IotaOp>(loc, RankedTensorType::get({count}, i64), b.getF64FloatAttr(0),
                             b.getF64FloatAttr(1));
  Value position = makeScalar(b, loc, i64, offset);
  int64_t inner = 1;
  for (int64_t d = (int64_t)sizes->size() - 1; d >= 0; --d) {
    int64_t size = (*sizes)[d];
    Value coordinate = k;
    if (inner != 1)
      coordinate = makeBinary<TruncDivOp>(b, loc, coordinate, makeScalar(b, loc, i64, inner));
    if (inner * size != count)
      coordinate = makeBinary<FmodOp>(b, loc, coordinate, makeScalar(b, loc, i64, size));
    Value term = makeBinary<MulOp>(b, loc, coordinate, makeScalar(b, loc, i64, (*strides)[d]));
    position = makeBinary<AddOp>(b, loc, position, term);
    inner *= size;
  }
  if (typeOf(position).getRank() == 0)
    position = b.create<BroadcastOp>(loc, RankedTensorType::get({count}, i64), position);
  Type elt = st.getElementType();
  Value flatSrc = makeReshape(b, loc, makeCast(b, loc, *src, elt), {count});
  Value flatSelf = makeReshape(b, loc, *self, {n});
  FailureOr<Value> out = scatterAlongDim(args, b, flatSelf, 0, position, flatSrc, false);
  if (failed(out))
    return failure();
  return SmallVector<Value>{makeReshape(b, loc, *out, st.getShape())};
}

/// What the interpolate modes read: the (N, C, spatial...) input, the result
/// type, and the scale factors when given instead of a size.
struct Interpolation {
  Value x;
  RankedTensorType in, out;
  std::optional<SmallVector<double>> factors;
  /// The result's size along each dim as an index value where symbolic
  /// (the export's expression of the input sizes), else null.
  SmallVector<Value> outSizes;

  bool symbolic(int64_t d) const {
    return ShapedType::isDynamic(in.getShape()[d]) || ShapedType::isDynamic(out.getShape()[d]);
  }

  /// The spatial dims: 2 .. rank - 1 of (N, C, spatial...).
  auto spatialDims() const { return llvm::seq<int64_t>(2, in.getRank()); }
  /// 1 / factor when a factor was given, else in / out: PyTorch's scale.
  float scale(int64_t d) const {
    return factors && (int64_t)factors->size() == in.getRank() - 2
               ? float(1.0 / (*factors)[d - 2])
               : float(in.getShape()[d]) / float(out.getShape()[d]);
  }
};

/// `anyType`: nearest modes copy elements, so any element type; the others
/// compute in f32 and take f16, bf16 and f32 (the caller converts).
FailureOr<Interpolation> interpolation(OperatorArgs &args, bool anyType) {
  FailureOr<Value> x = requiredTensor(args, "input");
  if (failed(x))
    return failure();
  Interpolation r{*x, cast<RankedTensorType>(x->getType()), args.resultType(), std::nullopt};
  Type elt = r.in.getElementType();
  bool typeOk = anyType || elt.isF32() || elt.isF16() || elt.isBF16();
  if (r.in.getRank() < 3 || r.in.getRank() > 5 || r.out.getRank() != r.in.getRank() || !typeOk)
    return args.getOp().emitError("operator '")
           << operatorName(args)
           << (anyType ? "': expects an (N, C, spatial...) tensor"
                       : "': expects an f32, f16 or bf16 (N, C, spatial...) tensor");
  if (auto f = dyn_cast_or_null<DenseF64ArrayAttr>(args.getOp().getArgs().get("scale_factors")))
    r.factors = SmallVector<double>(f.asArrayRef());
  r.outSizes.assign(r.out.getRank(), Value());
  if (!r.out.hasStaticShape()) {
    OpBuilder b(args.getOp());
    FailureOr<SmallVector<Value>> sizes = symbolicSizes(args, b);
    if (failed(sizes))
      return failure();
    size_t k = 0;
    for (int64_t d = 0; d < r.out.getRank(); ++d)
      if (ShapedType::isDynamic(r.out.getShape()[d]))
        r.outSizes[d] = (*sizes)[k++];
  }
  return r;
}

/// resampleAxis along `d` of `y`, the result's size from the export.
ResampleAxis symbolicAxis(OpBuilder &b, Location loc, const Interpolation &ip, Value y, int64_t d,
                          double start) {
  return resampleAxis(b, loc, y, d, ip.out.getShape()[d], ip.outSizes[d], start);
}

/// The scale factor given for spatial dim `d`, if any.
std::optional<double> givenFactor(const Interpolation &ip, int64_t d) {
  if (ip.factors && (int64_t)ip.factors->size() == ip.in.getRank() - 2)
    return (*ip.factors)[d - 2];
  return std::nullopt;
}

/// `v` where `cond` holds, else `otherwise` (f32 scalars).
Value pick(OpBuilder &b, Location loc, Value cond, Value v, Value otherwise) {
  return b.create<SelectOp>(loc, typeOf(v), cond, v, otherwise);
}

/// upsampleNearest's steps along a symbolic dim `d`, with n and in read at
/// run time (the same f32 arithmetic, its cases chosen by selects).
Value nearestAlongSymbolic(OpBuilder &b, Location loc, const Interpolation &ip, Value y,
                           int64_t d, bool exact) {
  Type f32 = b.getF32Type(), i64 = b.getI64Type();
  auto c = [&](double v) { return makeScalar(b, loc, f32, v); };
  ResampleAxis axis = symbolicAxis(b, loc, ip, y, d, exact ? 0.5 : 0.0);
  bool twoD = ip.in.getRank() == 4;
  bool given = givenFactor(ip, d).has_value();
  Value scale = runtimePixelScale(b, loc, axis, /*alignCorners=*/false, givenFactor(ip, d));
  // One op per statement: argument order is the compiler's (issue 17).
  if (!exact && (twoD || !given)) {  // out == in reads i
    Value same = makeCompare(b, loc, "eq", axis.outF, axis.inF);
    Value one = c(1.0);
    scale = pick(b, loc, same, one, scale);
  }
  if (!exact && twoD) {  // out == 2 in reads i / 2
    Value twice = makeBinary<MulOp>(b, loc, axis.inF, c(2.0));
    Value doubled = makeCompare(b, loc, "eq", axis.outF, twice);
    Value half = c(0.5);
    scale = pick(b, loc, doubled, half, scale);
  }
  Value scaled = makeBinary<MulOp>(b, loc, axis.positions, scale);
  Value src = makeCast(b, loc, scaled, i64); // truncation is floor: src >= 0
  src = makeBinary<MinimumOp>(b, loc, src, axis.lastIndex);
  SmallVector<int64_t> shape(typeOf(y).getShape());
  shape[d] = ip.out.getShape()[d];
  return b.create<TakeOp>(loc, RankedTensorType::get(shape, typeOf(y).getElementType()), y, src,
                          b.getI64IntegerAttr(d));
}

/// interpolate(mode="nearest") over the spatial dims: output index i reads
/// input index min(floor(i * scale), in - 1) with scale = 1 / scale_factor
/// (or in / out), computed in f32, except where PyTorch's 2-D kernel
/// (nearest_idx) does not compute: i where out == in, i / 2 where out ==
/// 2 in, whatever the factor (its 1-D and 3-D kernels always compute).
/// nearest-exact always reads min(floor((i + 0.5) * scale), in - 1). Each
/// dim is one take.
LegalizeFn upsampleNearest(bool exact) {
  return [exact](OperatorArgs &args, OpBuilder &b) -> Results {
    Location loc = args.getOp().getLoc();
    FailureOr<Interpolation> ip = interpolation(args, /*anyType=*/true);
    if (failed(ip))
      return failure();
    Value y = ip->x;
    Type elt = ip->in.getElementType();
    for (int64_t d : ip->spatialDims()) {
      if (ip->symbolic(d)) {
        y = nearestAlongSymbolic(b, loc, *ip, y, d, exact);
        continue;
      }
      int64_t in = ip->in.getShape()[d], n = ip->out.getShape()[d];
      float scale = ip->scale(d);
      bool twoD = ip->in.getRank() == 4;
      if (!exact && (twoD || !ip->factors) && n == in)
        continue;
      if (!exact && twoD && n == 2 * in)
        scale = 0.5f;
      Type f32 = b.getF32Type();
      Value pos = b.create<IotaOp>(loc, RankedTensorType::get({n}, f32),
                                   b.getF64FloatAttr(exact ? 0.5 : 0.0), b.getF64FloatAttr(1));
      Value scaled = makeBinary<MulOp>(b, loc, pos, makeScalar(b, loc, f32, scale));
      Value src = makeCast(b, loc, scaled, b.getI64Type()); // truncation is floor: src >= 0
      src = makeBinary<MinimumOp>(b, loc, src, makeScalar(b, loc, b.getI64Type(), in - 1));
      SmallVector<int64_t> shape(cast<RankedTensorType>(y.getType()).getShape());
      shape[d] = n;
      y = b.create<TakeOp>(loc, RankedTensorType::get(shape, elt), y, src,
                           b.getI64IntegerAttr(d));
    }
    return SmallVector<Value>{y};
  };
}

/// interpolate(mode="linear"/"bilinear"/"trilinear"), one spatial dim at a
/// time: output i reads src = (i + 0.5) * scale - 0.5 (clamped at 0), or
/// i * (in - 1) / (out - 1) with align_corners, in f32 as PyTorch's
/// area_pixel_compute_source_index; the result is the lerp of the two takes
/// at floor(src) and the next index.
Results legalizeUpsampleLinear(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Interpolation> ip = interpolation(args, /*anyType=*/false);
  if (failed(ip))
    return failure();
  Type f32 = b.getF32Type(), i64 = b.getI64Type(), elt = f32;
  bool alignCorners = args.getBool("align_corners").value_or(false);
  // f16/bf16 are computed in f32 and rounded once, as PyTorch's kernels do.
  Value y = makeCast(b, loc, ip->x, f32);
  int64_t rank = ip->in.getRank();
  for (int64_t d : ip->spatialDims()) {
    int64_t in = ip->in.getShape()[d], n = ip->out.getShape()[d];
    auto c = [&](double v) { return makeScalar(b, loc, f32, v); };
    Value pos, scaleV, lastIndex;
    if (ip->symbolic(d)) {
      // The same f32 arithmetic with n and in read at run time.
      ResampleAxis axis = symbolicAxis(b, loc, *ip, y, d, 0.0);
      pos = axis.positions;
      lastIndex = axis.lastIndex;
      scaleV = runtimePixelScale(b, loc, axis, alignCorners, givenFactor(*ip, d));
    } else {
      float scale = alignCorners ? (n > 1 ? float(in - 1) / float(n - 1) : 0.0f) : ip->scale(d);
      pos = b.create<IotaOp>(loc, RankedTensorType::get({n}, f32), b.getF64FloatAttr(0),
                             b.getF64FloatAttr(1));
      scaleV = c(scale);
      lastIndex = makeScalar(b, loc, i64, in - 1);
    }
    // One op per statement: C++ leaves argument order unspecified, and the
    // IR must not depend on the compiler that built tcc.
    Value src;
    if (alignCorners) {
      src = makeBinary<MulOp>(b, loc, pos, scaleV);
    } else {
      Value center = makeBinary<AddOp>(b, loc, pos, c(0.5));
      Value scaled = makeBinary<MulOp>(b, loc, center, scaleV);
      Value shifted = makeBinary<SubOp>(b, loc, scaled, c(0.5));
      src = makeBinary<MaximumOp>(b, loc, shifted, c(0.0));
    }
    Value i0 = makeCast(b, loc, src, i64);  // floor: src >= 0
    i0 = makeBinary<MinimumOp>(b, loc, i0, lastIndex);
    Value next = makeBinary<AddOp>(b, loc, i0, makeScalar(b, loc, i64, 1));
    Value i1 = makeBinary<MinimumOp>(b, loc, next, lastIndex);
    Value w1 = makeBinary<SubOp>(b, loc, src, makeCast(b, loc, i0, f32));
    SmallVector<int64_t> shape(cast<RankedTensorType>(y.getType()).getShape());
    shape[d] = n;
    auto type = RankedTensorType::get(shape, elt);
    // The weights along dim d broadcast against [N, C, spatial...].
    SmallVector<int64_t> wshape(rank, 1);
    wshape[d] = n;
    w1 = makeReshape(b, loc, w1, wshape);
    Value w0 = makeBinary<SubOp>(b, loc, c(1.0), w1);
    Value lo = b.create<TakeOp>(loc, type, y, i0, b.getI64IntegerAttr(d));
    Value hi = b.create<TakeOp>(loc, type, y, i1, b.getI64IntegerAttr(d));
    Value low = makeBinary<MulOp>(b, loc, lo, w0);
    Value high = makeBinary<MulOp>(b, loc, hi, w1);
    y = makeBinary<AddOp>(b, loc, low, high);
  }
  return SmallVector<Value>{makeCast(b, loc, y, ip->in.getElementType())};
}
} // namespace

void tcc::graph::populateIndexingLegalizers(LegalizerTable &t) {
  for (const char *d : {"1d", "2d", "3d"})
    for (const char *v : {".vec", ".default"}) {
      t[std::string("aten.upsample_nearest") + d + v] = upsampleNearest(false);
      t[std::string("aten._upsample_nearest_exact") + d + v] = upsampleNearest(true);
    }
  for (const char *name : {"upsample_linear1d", "upsample_bilinear2d", "upsample_trilinear3d"})
    for (const char *v : {".vec", ".default"})
      t[std::string("aten.") + name + v] = legalizeUpsampleLinear;
  t["aten.expand.default"] = legalizeExpand;
  t["aten.expand_as.default"] = legalizeExpand;
  t["aten.expand_copy.default"] = legalizeExpand;
  t["aten.flip.default"] = legalizeFlip;
  t["aten.fliplr.default"] = flipOne(1);
  t["aten.flipud.default"] = flipOne(0);
  t["aten.rot90.default"] = legalizeRot90;
  t["aten.unfold.default"] = legalizeUnfold;
  t["aten.unfold_copy.default"] = legalizeUnfold;
  t["aten.diagonal.default"] = legalizeDiagonal;
  t["aten.diagonal_copy.default"] = legalizeDiagonal;
  t["aten.diagonal_scatter.default"] = legalizeDiagonalScatter;
  t["aten.histc.default"] = legalizeHistc;
  t["aten.grid_sampler_2d.default"] = legalizeGridSample;
  t["aten.grid_sampler.default"] = legalizeGridSample;
  t["aten.grid_sampler_3d.default"] = legalizeGridSample;
  t["aten.linalg_diagonal.default"] = legalizeDiagonal;
  t["aten.diag_embed.default"] = legalizeDiagEmbed;
  t["aten.take.default"] = legalizeTakeFlat;
  t["aten.take_along_dim.default"] = legalizeTakeAlongDim;
  t["aten.diag.default"] = legalizeDiag;
  t["aten.diagflat.default"] = legalizeDiag;
  t["aten.broadcast_to.default"] = legalizeExpand;
  t["aten.embedding.default"] = legalizeEmbedding;
  t["aten.embedding_bag.padding_idx"] = legalizeEmbeddingBag;
  t["aten._embedding_bag.default"] = legalizeEmbeddingBag;
  t["aten.embedding_bag.default"] = legalizeEmbeddingBag;
  t["aten.index_select.default"] = legalizeIndexSelect;
  t["aten.index.Tensor"] = legalizeIndexTensor;
  t["aten.gather.default"] = legalizeGather;
  t["aten.as_strided.default"] = legalizeAsStrided;
  t["aten.as_strided_copy.default"] = legalizeAsStrided;
  t["aten.as_strided_scatter.default"] = legalizeAsStridedScatter;
}
