//===- LegalizeMaskedIndexing.cpp - index_put, masks read in order --------===//
//
// Two kinds of indexing whose positions are data, on tensors of static shape:
//
// - Writes through index tensors (index_put, _unsafe_masked_index_put_
//   accumulate): the indexed dims collapse into one whose linear index the
//   broadcast index tensors give, and the values scatter along it
//   (LegalizeScatter.cpp). Reads (_unsafe_masked_index) are aten.index.Tensor
//   with clamped indices, masked.
// - A mask read in row-major order (masked_scatter, nonzero_static): the
//   k-th true element is the one where the running count of true elements
//   (a cumsum) reaches k.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;
using IndexList = SmallVector<std::pair<int64_t, Value>>;

/// Whether a tensor of `type` has no elements: a size of 0 (a symbolic size
/// is not known to be 0, and the product of two symbolic sizes' kDynamic
/// markers wraps to 0).
bool hasNoElements(RankedTensorType type) { return llvm::is_contained(type.getShape(), 0); }

/// The result as a constant when it has no elements.
std::optional<Value> emptyResult(OperatorArgs &args, OpBuilder &b) {
  RankedTensorType type = args.resultType();
  if (type.hasStaticShape() && type.getNumElements() == 0)
    return makeSplat(b, args.getOp().getLoc(), type, 0.0);
  return std::nullopt;
}

/// Each index clamped to [-size, size - 1] of the dim it indexes (negative
/// ones then count from the end), as ATen's CPU kernels of
/// _unsafe_masked_index and its put compute: -1 reads the last element,
/// where the Python decomposition of the read would clamp it to 0.
FailureOr<IndexList> clampIndices(OperatorArgs &args, OpBuilder &b, Value x, IndexList indices) {
  Location loc = args.getOp().getLoc();
  Type i64 = b.getI64Type();
  for (auto &[dim, index] : indices) {
    auto it = typeOf(index);
    if (!isa<IntegerType>(it.getElementType()) || it.getElementType().isInteger(1))
      return operatorError(args) << "only integer index tensors are supported";
    int64_t size = typeOf(x).getShape()[dim];
    Value wide = makeCast(b, loc, index, i64);
    // n - 1 and -n (a symbolic n read at run time).
    Value n = ShapedType::isDynamic(size) ? sizeTensor(b, loc, x, dim) : Value();
    auto plus = [&](int64_t sign, int64_t offset) -> Value {
      if (!n)
        return makeScalar(b, loc, i64, static_cast<double>(sign * size + offset));
      Value c = makeScalar(b, loc, i64, static_cast<double>(offset));
      return sign > 0 ? makeBinary<AddOp>(b, loc, n, c) : makeBinary<SubOp>(b, loc, c, n);
    };
    Value upper = makeBinary<MinimumOp>(b, loc, wide, plus(1, -1));
    index = makeBinary<MaximumOp>(b, loc, upper, plus(-1, 0));
  }
  return indices;
}

/// The product of `sizes` (kDynamic where one is).
int64_t staticProduct(ArrayRef<int64_t> sizes) {
  if (llvm::any_of(sizes, ShapedType::isDynamic))
    return ShapedType::kDynamic;
  return ShapedType::getNumElements(sizes);
}

/// The product of index values (1 for none).
Value indexProduct(OpBuilder &b, Location loc, ArrayRef<Value> sizes) {
  Value product = b.create<arith::ConstantIndexOp>(loc, 1);
  for (Value size : sizes)
    product = b.create<arith::MulIOp>(loc, product, size);
  return product;
}

/// self with `values` written (or added) at self[indices]. Symbolic sizes
/// are read at run time: the broadcast indices' from the index tensors (a
/// symbolic size stretches nothing), the values' checked by the call where
/// they are not those of the indexed shape, and read fitted to it.
FailureOr<Value> indexPut(OperatorArgs &args, OpBuilder &b, Value self,
                          ArrayRef<std::pair<int64_t, Value>> indices, Value values,
                          bool accumulate) {
  Location loc = args.getOp().getLoc();
  RankedTensorType st = typeOf(self);
  int64_t rank = st.getRank();
  bool symbolic = !st.hasStaticShape() || !typeOf(values).hasStaticShape();
  // The index tensors broadcast together, as i64 with negatives wrapped.
  SmallVector<int64_t> bshape;
  for (auto [dim, index] : indices) {
    RankedTensorType it = typeOf(index);
    if (!isa<IntegerType>(it.getElementType()) || it.getElementType().isInteger(1))
      return operatorError(args) << "only integer index tensors are supported (boolean masks are not)";
    symbolic |= !it.hasStaticShape();
    FailureOr<SmallVector<int64_t>> shape = broadcastShapes(bshape, it.getShape());
    if (failed(shape))
      return operatorError(args) << "index shapes do not broadcast";
    bshape = *shape;
  }
  // The broadcast shape's symbolic sizes: an index tensor's own.
  SmallVector<Value> bsizes(bshape.size());
  for (int64_t d = 0; d < (int64_t)bshape.size() && symbolic; ++d) {
    if (!ShapedType::isDynamic(bshape[d]))
      continue;
    for (auto [dim, index] : indices) {
      int64_t at = d - ((int64_t)bshape.size() - typeOf(index).getRank());
      if (at >= 0 && typeOf(index).isDynamicDim(at)) {
        bsizes[d] = dimIndex(b, loc, index, at);
        break;
      }
    }
  }
  SmallVector<int64_t> positions;
  for (auto [dim, index] : indices)
    positions.push_back(dim);
  int64_t n = positions.size();
  bool adjacent = positions.back() - positions.front() == n - 1;
  // Self with the indexed dims first unless adjacent.
  SmallVector<int64_t> perm;
  if (adjacent) {
    for (int64_t d = 0; d < rank; ++d)
      perm.push_back(d);
  } else {
    perm = positions;
    for (int64_t d = 0; d < rank; ++d)
      if (!llvm::is_contained(positions, d))
        perm.push_back(d);
  }
  SmallVector<int64_t> permuted;
  for (int64_t d : perm)
    permuted.push_back(st.getShape()[d]);
  Value x = self;
  if (!adjacent)
    x = b.create<TransposeOp>(loc, RankedTensorType::get(permuted, st.getElementType()), self,
                              b.getDenseI64ArrayAttr(perm));
  int64_t first = adjacent ? positions.front() : 0;
  auto dynamicOf = [](ArrayRef<int64_t> shape, ArrayRef<Value> sizes) {
    SmallVector<Value> dynamic;
    for (auto [size, value] : llvm::zip_equal(shape, sizes))
      if (ShapedType::isDynamic(size))
        dynamic.push_back(value);
    return dynamic;
  };
  // The linear index over the collapsed dims.
  Type i64 = b.getI64Type();
  Value linear, strideT;
  int64_t stride = 1;
  for (int64_t j = n - 1; j >= 0; --j) {
    int64_t size = permuted[first + j];
    Value idx = makeCast(b, loc, indices[j].second, i64);
    Value negative = makeCompare(b, loc, "lt", idx, makeScalar(b, loc, i64, 0));
    Value sizeT = sizeTensor(b, loc, x, first + j);
    Value shifted = makeBinary<AddOp>(b, loc, idx, sizeT);
    idx = b.create<SelectOp>(loc, typeOf(idx), negative, shifted, idx);
    if (typeOf(idx).getShape() != ArrayRef<int64_t>(bshape))
      idx = b.create<BroadcastOp>(loc, RankedTensorType::get(bshape, i64), idx,
                                  dynamicOf(bshape, bsizes));
    if (strideT)
      idx = makeBinary<MulOp>(b, loc, idx, strideT);
    else if (stride != 1)
      idx = makeBinary<MulOp>(b, loc, idx, makeScalar(b, loc, i64, stride));
    linear = linear ? makeBinary<AddOp>(b, loc, idx, linear) : idx;
    if (ShapedType::isDynamic(size) || ShapedType::isDynamic(stride)) {
      Value before = strideT ? strideT : makeScalar(b, loc, i64, stride);
      strideT = makeBinary<MulOp>(b, loc, before, sizeT);
      stride = ShapedType::kDynamic;
    } else {
      stride *= size;
    }
  }
  int64_t count = staticProduct(bshape);
  // Self as [pre.., L, post..]; the values as [pre.., count, post..].
  SmallVector<int64_t> pre(ArrayRef<int64_t>(permuted).take_front(first));
  SmallVector<int64_t> post(ArrayRef<int64_t>(permuted).drop_front(first + n));
  SmallVector<int64_t> collapsed(pre), target(pre), taken(pre);
  collapsed.push_back(stride);
  target.push_back(count);
  llvm::append_range(taken, bshape);
  llvm::append_range(collapsed, post);
  llvm::append_range(target, post);
  llvm::append_range(taken, post);
  // Each dim of `taken` as (the value with that size, its dim).
  SmallVector<std::pair<Value, int64_t>> takenFrom;
  for (int64_t d = 0; d < first; ++d)
    takenFrom.push_back({x, d});
  for (int64_t d = 0; d < (int64_t)bshape.size(); ++d)
    takenFrom.push_back({linear, d});
  for (int64_t d = first + n; d < rank; ++d)
    takenFrom.push_back({x, d});
  // The values broadcast to x[indices]'s shape, then collapsed.
  Value v = makeCast(b, loc, values, st.getElementType());
  if (typeOf(v).getRank() > (int64_t)taken.size())
    return operatorError(args) << "values of type " << values.getType()
                               << " do not broadcast to the indexed shape";
  int64_t lead = taken.size() - typeOf(v).getRank();
  Value fits;
  for (int64_t i = 0; i < typeOf(values).getRank(); ++i) {
    int64_t have = typeOf(values).getDimSize(i), want = taken[lead + i];
    if (have == 1 || (!ShapedType::isDynamic(have) && have == want))
      continue;
    if (!ShapedType::isDynamic(have) && !ShapedType::isDynamic(want))
      return operatorError(args) << "values of type " << values.getType()
                                 << " do not broadcast to the indexed shape";
    auto [like, likeDim] = takenFrom[lead + i];
    if (like == x && x == self && sameSize(args, values, i, self, likeDim))
      continue;
    Value leftSize = sizeTensor(b, loc, values, i);
    Value rightSize = sizeTensor(b, loc, like, likeDim);
    Value eq = makeCompare(b, loc, "eq", leftSize, rightSize);
    fits = conjoin(b, loc, fits, eq);
    v = fitDim(b, loc, v, i, like, likeDim, 0.0);
  }
  SmallVector<Value> takenSizes, targetSizes, collapsedSizes;
  if (symbolic) {
    for (auto [like, likeDim] : takenFrom)
      takenSizes.push_back(dimIndex(b, loc, like, likeDim));
    SmallVector<Value> preSizes(takenSizes.begin(), takenSizes.begin() + first);
    SmallVector<Value> postSizes(takenSizes.begin() + first + bshape.size(), takenSizes.end());
    Value countSize = indexProduct(
        b, loc, ArrayRef<Value>(takenSizes).slice(first, bshape.size()));
    SmallVector<Value> indexed;
    for (int64_t j = 0; j < n; ++j)
      indexed.push_back(dimIndex(b, loc, x, first + j));
    Value strideSize = indexProduct(b, loc, indexed);
    targetSizes = preSizes;
    targetSizes.push_back(countSize);
    llvm::append_range(targetSizes, postSizes);
    collapsedSizes = preSizes;
    collapsedSizes.push_back(strideSize);
    llvm::append_range(collapsedSizes, postSizes);
  } else {
    takenSizes.assign(taken.size(), Value());
    targetSizes.assign(target.size(), Value());
    collapsedSizes.assign(collapsed.size(), Value());
  }
  SmallVector<int64_t> aligned(lead, 1);
  llvm::append_range(aligned, typeOf(v).getShape());
  SmallVector<Value> alignedSizes(lead, Value());
  for (int64_t i = 0; i < typeOf(v).getRank(); ++i)
    alignedSizes.push_back(typeOf(v).isDynamicDim(i) ? dimIndex(b, loc, v, i) : Value());
  v = makeReshape(b, loc, v, aligned, alignedSizes);
  if (aligned != taken)
    v = b.create<BroadcastOp>(loc, RankedTensorType::get(taken, st.getElementType()), v,
                              dynamicOf(taken, takenSizes));
  v = makeReshape(b, loc, v, target, targetSizes);
  SmallVector<int64_t> line(target.size(), 1);
  line[first] = count;
  Value index = makeReshape(b, loc, linear, {count});
  index = makeReshape(b, loc, index, line);
  index = b.create<BroadcastOp>(loc, RankedTensorType::get(target, i64), index,
                                dynamicOf(target, targetSizes));
  Value flat = makeReshape(b, loc, x, collapsed, collapsedSizes);
  FailureOr<Value> written =
      scatterAlongDim(args, b, flat, first, index, v, accumulate, /*shapesFit=*/true);
  if (failed(written))
    return failure();
  SmallVector<Value> permutedSizes;
  for (int64_t d = 0; d < rank; ++d)
    permutedSizes.push_back(symbolic && ShapedType::isDynamic(permuted[d]) ? dimIndex(b, loc, x, d)
                                                                            : Value());
  Value out = makeReshape(b, loc, *written, permuted, permutedSizes);
  if (!adjacent) {
    SmallVector<int64_t> inverse(rank);
    for (int64_t i = 0; i < rank; ++i)
      inverse[perm[i]] = i;
    out = b.create<TransposeOp>(loc, st, out, b.getDenseI64ArrayAttr(inverse));
  }
  if (fits)
    out = b.create<CheckOp>(loc, st, fits, out,
                            b.getStringAttr(operatorName(args) +
                                            ": values do not broadcast to the indexed shape"));
  return out;
}

/// self[mask] = values (or +=) for one boolean mask over self's dims
/// dim .. dim + mask rank, where values do not depend on how many elements
/// the mask selects (at most the trailing dims, or a unit dim for the
/// count): a select between values and self where the mask holds. Symbolic
/// sizes the export does not state as self's are checked by the call, and
/// read fitted to self's.
FailureOr<Value> maskPut(OperatorArgs &args, OpBuilder &b, Value self, int64_t dim, Value mask,
                         Value values, bool accumulate) {
  Location loc = args.getOp().getLoc();
  RankedTensorType st = typeOf(self), mt = typeOf(mask);
  ArrayRef<int64_t> shape = st.getShape();
  int64_t k = mt.getRank();
  if (dim + k > st.getRank())
    return operatorError(args) << "a boolean mask of type " << mt << " for self " << st;
  // `v`'s dim `i` as self's dim `d`: equal where static, else the same
  // expression in the export or checked by the call (and `v` fitted).
  Value fits;
  auto fitTo = [&](Value given, Value &v, int64_t i, int64_t d) -> LogicalResult {
    int64_t have = typeOf(given).getDimSize(i), want = shape[d];
    if (!ShapedType::isDynamic(have) && !ShapedType::isDynamic(want))
      return success(have == want);
    if (sameSize(args, given, i, self, d))
      return success();
    Value leftSize = sizeTensor(b, loc, given, i);
    Value rightSize = sizeTensor(b, loc, self, d);
    Value eq = makeCompare(b, loc, "eq", leftSize, rightSize);
    fits = conjoin(b, loc, fits, eq);
    v = fitDim(b, loc, v, i, self, d, 0.0);
    return success();
  };
  Value m = mask;
  for (int64_t i = 0; i < k; ++i)
    if (failed(fitTo(mask, m, i, dim + i)))
      return operatorError(args) << "a boolean mask of type " << mt << " for self " << st;
  ArrayRef<int64_t> rest = shape.drop_front(dim + k);
  ArrayRef<int64_t> vshape = typeOf(values).getShape();
  // Values broadcast against [count, rest..]: a leading count dim must be 1.
  if (vshape.size() == rest.size() + 1 && vshape.front() == 1)
    vshape = vshape.drop_front();
  if (vshape.size() > rest.size())
    return operatorError(args) << "values of type " << values.getType()
                               << " depend on the number of true mask elements";
  int64_t skipped = typeOf(values).getRank() - vshape.size();
  int64_t offset = st.getRank() - vshape.size();
  Value v = makeCast(b, loc, values, st.getElementType());
  for (auto [j, have] : llvm::enumerate(vshape))
    if (have != 1 && failed(fitTo(values, v, skipped + j, offset + j)))
      return operatorError(args) << "values of type " << values.getType()
                                 << " do not broadcast to the indexed shape";
  SmallVector<int64_t> aligned(offset, 1);
  llvm::append_range(aligned, typeOf(v).getShape().drop_front(skipped));
  v = makeReshape(b, loc, v, aligned);
  SmallVector<int64_t> maskShape(dim, 1);
  llvm::append_range(maskShape, typeOf(m).getShape());
  maskShape.append(rest.size(), 1);
  m = makeReshape(b, loc, m, maskShape);
  Value result;
  if (!accumulate) {
    result = b.create<SelectOp>(loc, st, m, v, self);
  } else {
    Value zero = makeScalar(b, loc, st.getElementType(), 0.0);
    FailureOr<SmallVector<int64_t>> pickedShape = broadcastShapes(maskShape, aligned);
    if (failed(pickedShape))
      return operatorError(args) << "values of type " << values.getType()
                                 << " do not broadcast to the indexed shape";
    Value picked = b.create<SelectOp>(
        loc, RankedTensorType::get(*pickedShape, st.getElementType()), m, v, zero);
    result = makeBinary<AddOp>(b, loc, self, picked);
  }
  if (fits)
    result = b.create<CheckOp>(loc, st, fits, result,
                               b.getStringAttr(operatorName(args) +
                                               ": the mask or the values do not fit self's sizes"));
  return result;
}

/// index_put(self, indices, values, accumulate).
Results legalizeIndexPut(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> self = requiredTensor(args, "self"), values = requiredTensor(args, "values");
  if (failed(self) || failed(values))
    return failure();
  FailureOr<IndexList> indices = indexOperands(args, *self);
  if (failed(indices))
    return failure();
  bool accumulate = args.getBool("accumulate").value_or(false);
  // self[:, :, positions] = values: one index tensor, whole slices along
  // every other dim (a key/value cache written at a step's positions).
  if (!accumulate && indices->size() == 1 && typeOf(*self).getRank() > 0)
    if (std::optional<Value> r = indexCopyAlong(args, b, *self, indices->front().first,
                                                indices->front().second, *values))
      return SmallVector<Value>{*r};
  if (hasNoElements(typeOf(*self)))
    return SmallVector<Value>{*self};
  if (indices->size() == 1 && typeOf(indices->front().second).getElementType().isInteger(1)) {
    FailureOr<Value> r = maskPut(args, b, *self, indices->front().first, indices->front().second,
                                 *values, args.getBool("accumulate").value_or(false));
    if (failed(r))
      return failure();
    return SmallVector<Value>{*r};
  }
  FailureOr<Value> r =
      indexPut(args, b, *self, *indices, *values, args.getBool("accumulate").value_or(false));
  if (failed(r))
    return failure();
  return SmallVector<Value>{*r};
}

/// _unsafe_masked_index_put_accumulate(self, mask, indices, values): the
/// values where mask holds (0 elsewhere) added at the clamped indices.
Results legalizeMaskedIndexPutAccumulate(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> self = requiredTensor(args, "self"), values = requiredTensor(args, "values"),
                   mask = requiredTensor(args, "mask");
  if (failed(self) || failed(values) || failed(mask))
    return failure();
  FailureOr<IndexList> indices = indexOperands(args, *self);
  if (failed(indices))
    return failure();
  if (hasNoElements(typeOf(*self)))
    return SmallVector<Value>{*self};
  FailureOr<IndexList> clamped = clampIndices(args, b, *self, *indices);
  if (failed(clamped))
    return failure();
  Value zero = makeScalar(b, loc, typeOf(*values).getElementType(), 0.0);
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(typeOf(*mask).getShape(), typeOf(*values).getShape());
  if (failed(shape))
    return operatorError(args) << "mask and values do not broadcast";
  Value masked = b.create<SelectOp>(
      loc, RankedTensorType::get(*shape, typeOf(*values).getElementType()),
      makeCast(b, loc, *mask, b.getI1Type()), *values, zero);
  FailureOr<Value> r = indexPut(args, b, *self, *clamped, masked, /*accumulate=*/true);
  if (failed(r))
    return failure();
  return SmallVector<Value>{*r};
}

/// _unsafe_masked_index(self, mask, indices, fill): self[clamped indices]
/// where mask holds, fill elsewhere.
Results legalizeMaskedIndex(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> self = requiredTensor(args, "self"), mask = requiredTensor(args, "mask");
  if (failed(self) || failed(mask))
    return failure();
  if (std::optional<Value> empty = emptyResult(args, b))
    return SmallVector<Value>{*empty};
  FailureOr<IndexList> indices = indexOperands(args, *self);
  if (failed(indices))
    return failure();
  FailureOr<IndexList> clamped = clampIndices(args, b, *self, *indices);
  if (failed(clamped))
    return failure();
  Results taken = indexTensors(args, b, *self, *clamped);
  if (failed(taken))
    return failure();
  FailureOr<Value> fill = tensorOrScalar(args, b, "fill", *self);
  if (failed(fill))
    return failure();
  Value filled = makeCast(b, loc, *fill, typeOf(*self).getElementType());
  Value keep = makeCast(b, loc, *mask, b.getI1Type());
  RankedTensorType type = args.resultType();
  return SmallVector<Value>{b.create<SelectOp>(loc, type, keep, taken->front(), filled)};
}

/// The running count (i64) of true elements of the flattened i1 `mask`.
Value runningCount(OpBuilder &b, Location loc, Value mask) {
  Value counts = makeCast(b, loc, mask, b.getI64Type());
  return b.create<CumsumOp>(loc, typeOf(counts), counts, b.getI64IntegerAttr(0));
}

/// masked_scatter(self, mask, source): the true positions of mask
/// (broadcast with self), in row-major order, take source's elements in
/// order; the others keep self. Fewer source elements than true positions
/// fail the call, as PyTorch raises. Over symbolic sizes, self and mask
/// each stretch only static sizes of 1; a symbolic size must be the
/// result's in the export.
Results legalizeMaskedScatter(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> self = requiredTensor(args, "self"), mask = requiredTensor(args, "mask"),
                   source = requiredTensor(args, "source");
  if (failed(self) || failed(mask) || failed(source))
    return failure();
  RankedTensorType type = args.resultType();
  if (type.hasStaticShape() && type.getNumElements() == 0)
    return SmallVector<Value>{makeSplat(b, loc, type, 0.0)};
  // The result's sizes, each an index value where symbolic.
  SmallVector<Value> sizes(type.getRank());
  if (!type.hasStaticShape()) {
    Value result = args.getOp()->getResult(0);
    for (Value operand : {*self, *mask}) {
      RankedTensorType t = typeOf(operand);
      int64_t lead = type.getRank() - t.getRank();
      for (int64_t i = 0; i < t.getRank(); ++i)
        if (t.isDynamicDim(i) && !sameSize(args, operand, i, result, lead + i))
          return operatorError(args) << "only static shapes are supported (a symbolic size of "
                                     << t << " the export does not state as the result's "
                                     << type << ")";
    }
    FailureOr<SmallVector<Value>> symbolic = symbolicSizes(args, b);
    if (failed(symbolic))
      return failure();
    for (int64_t d = 0, k = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        sizes[d] = (*symbolic)[k++];
  }
  SmallVector<Value> dynamicSizes;
  for (Value size : sizes)
    if (size)
      dynamicSizes.push_back(size);
  int64_t n = elementCount(args.getOp()->getResult(0));
  int64_t available = elementCount(*source);
  Type i64 = b.getI64Type(), elt = type.getElementType();
  Value m = makeCast(b, loc, *mask, b.getI1Type());
  if (typeOf(m).getShape() != type.getShape())
    m = b.create<BroadcastOp>(loc, RankedTensorType::get(type.getShape(), b.getI1Type()), m,
                              dynamicSizes);
  Value s = makeCast(b, loc, *self, elt);
  if (typeOf(s).getShape() != type.getShape())
    s = b.create<BroadcastOp>(loc, type, s, dynamicSizes);
  m = makeReshape(b, loc, m, {n});
  s = makeReshape(b, loc, s, {n});
  Value count = runningCount(b, loc, m);
  // Position k reads source element count[k] - 1 (clamped for the false ones).
  Value at = makeBinary<SubOp>(b, loc, count, makeScalar(b, loc, i64, 1.0));
  at = makeBinary<MaximumOp>(b, loc, at, makeScalar(b, loc, i64, 0.0));
  Value result, availableT;
  if (available == 0) {
    result = s;
  } else {
    Value flatSource, last;
    if (ShapedType::isDynamic(available)) {
      // A count that may be 0 at run time: one more element to read.
      flatSource = makeReshape(b, loc, makeCast(b, loc, *source, elt), {available});
      availableT = sizeTensor(b, loc, flatSource, 0);
      flatSource = padConstant(b, loc, flatSource, 0, 0, 1);
      last = availableT;
    } else {
      last = makeScalar(b, loc, i64, available - 1);
    }
    at = makeBinary<MinimumOp>(b, loc, at, last);
    if (!flatSource)
      flatSource = makeReshape(b, loc, makeCast(b, loc, *source, elt), {available});
    Value taken = b.create<TakeOp>(loc, RankedTensorType::get({n}, elt), flatSource, at,
                                   b.getI64IntegerAttr(0));
    result = b.create<SelectOp>(loc, typeOf(s), m, taken, s);
  }
  Value total = ShapedType::isDynamic(n)
                    ? makeReduce<ReduceSumOp>(b, loc, makeCast(b, loc, m, i64), {0}, false)
                    : makeSlice(b, loc, count, 0, n - 1, n, 1);
  if (!availableT)
    availableT = makeScalar(b, loc, i64, available);
  Value enough = makeCompare(b, loc, "le", total, availableT);
  result = b.create<CheckOp>(loc, typeOf(result), enough, result,
                             b.getStringAttr("masked_scatter: the mask has more true "
                                             "elements than the source has elements"));
  return SmallVector<Value>{makeReshape(b, loc, result, type.getShape(), sizes)};
}

/// nonzero_static(self, size, fill_value): the coordinates ([size, rank],
/// i64) of the first `size` nonzero elements in row-major order (NaN counts
/// as nonzero), rows past the count filled with fill_value. Row r is the
/// element where the running count reaches r + 1: its flat position is the
/// number of elements whose running count is at most r.
Results legalizeNonzeroStatic(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> self = requiredTensor(args, "self");
  if (failed(self))
    return failure();
  RankedTensorType st = typeOf(*self), type = args.resultType();
  if (!st.hasStaticShape() || !type.hasStaticShape() || type.getRank() != 2 ||
      type.getShape()[1] != st.getRank())
    return operatorError(args) << "needs a static input and a [size, rank] result, got "
                               << st << " and " << type;
  if (type.getNumElements() == 0)
    return SmallVector<Value>{makeSplat(b, loc, type, 0.0)};
  int64_t rows = type.getShape()[0], rank = st.getRank();
  int64_t n = st.getNumElements();
  Type i64 = b.getI64Type(), f32 = b.getF32Type();
  double fill = args.getFloat("fill_value").value_or(-1.0);
  if (n == 0)
    return SmallVector<Value>{makeSplat(b, loc, type, fill)};
  Value nonzero = makeCompare(b, loc, "ne", *self, makeScalar(b, loc, st.getElementType(), 0.0));
  nonzero = makeReshape(b, loc, nonzero, {n});
  Value count = makeReshape(b, loc, runningCount(b, loc, nonzero), {1, n});
  Value r = makeIotaAt(b, loc, rows, i64, 2, 0);
  // below[r, k]: count[k] <= r; summed over k (exact in f32 below 2^24).
  if (n >= (1 << 24))
    return operatorError(args) << "more than 2^24 elements are not supported";
  Value below = makeCompare(b, loc, "le", count, r);
  Value position = makeReduce<ReduceSumOp>(b, loc, makeCast(b, loc, below, f32), {1}, false);
  position = makeCast(b, loc, position, i64);
  Value total = makeSlice(b, loc, count, 1, n - 1, n, 1);
  total = makeReshape(b, loc, total, {1});
  Value rowIds = makeIotaAt(b, loc, rows, i64, 1, 0);
  Value valid = makeCompare(b, loc, "lt", rowIds, total);
  // The flat position as coordinates: (position / stride_d) mod size_d.
  SmallVector<Value> columns;
  int64_t stride = n;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = st.getShape()[d];
    stride /= size;
    Value c = makeBinary<TruncDivOp>(b, loc, position, makeScalar(b, loc, i64, stride));
    c = makeBinary<FmodOp>(b, loc, c, makeScalar(b, loc, i64, size));
    columns.push_back(makeReshape(b, loc, c, {rows, 1}));
  }
  Value coords = columns.size() == 1
                     ? columns.front()
                     : b.create<ConcatOp>(loc, type, columns, b.getI64IntegerAttr(1));
  Value validRows = makeReshape(b, loc, valid, {rows, 1});
  validRows = b.create<BroadcastOp>(loc, RankedTensorType::get(type.getShape(), b.getI1Type()),
                                    validRows);
  Value filled = makeScalar(b, loc, i64, fill);
  return SmallVector<Value>{b.create<SelectOp>(loc, type, validRows, coords, filled)};
}
} // namespace

void tcc::graph::populateMaskedIndexingLegalizers(LegalizerTable &t) {
  t["aten.index_put.default"] = legalizeIndexPut;
  t["aten._unsafe_index_put.default"] = legalizeIndexPut;
  // index_put_'s implementation (the importer made the in-place form
  // functional); `unsafe` only skips PyTorch's index checks, which tcc keeps.
  t["aten._index_put_impl.default"] = legalizeIndexPut;
  t["aten._unsafe_masked_index.default"] = legalizeMaskedIndex;
  t["aten._unsafe_masked_index_put_accumulate.default"] = legalizeMaskedIndexPutAccumulate;
  t["aten.masked_scatter.default"] = legalizeMaskedScatter;
  t["aten.nonzero_static.default"] = legalizeNonzeroStatic;
}
