//===- LegalizeRearrange.cpp - pad, roll, fill/copy, slice_scatter --------===//
//
// Operators that move or overwrite parts of a tensor, composed from slices,
// concatenations, broadcasts and selects: constant padding, roll (and
// fftshift/ifftshift, rolls by half the size), fill and
// copy (a value stretched to self's shape), slice_scatter and unflatten.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace tcc::graph;

namespace {
/// The most row runs tril_indices/triu_indices builds (one concatenated
/// piece each).
constexpr size_t kMaxTriangleRuns = 1024;

using Results = FailureOr<SmallVector<Value>>;

/// `value` converted to `like`'s element type and stretched to its shape.
/// Symbolic sizes come from `like` through a select whose condition is true.
Value broadcastLike(OpBuilder &b, Location loc, Value value, Value like) {
  RankedTensorType type = typeOf(like);
  value = makeCast(b, loc, value, type.getElementType());
  if (value.getType() == type)
    return value;
  if (type.hasStaticShape())
    return b.create<BroadcastOp>(loc, type, value);
  Value yes = makeScalar(b, loc, b.getI1Type(), 1.0);
  return b.create<SelectOp>(loc, type, yes, value, like);
}

Value concat(OpBuilder &b, Location loc, ArrayRef<Value> parts, int64_t dim) {
  if (parts.size() == 1)
    return parts.front();
  RankedTensorType first = typeOf(parts.front());
  SmallVector<int64_t> shape(first.getShape());
  shape[dim] = 0;
  for (Value p : parts) {
    int64_t size = typeOf(p).getShape()[dim];
    if (ShapedType::isDynamic(size) || ShapedType::isDynamic(shape[dim]))
      shape[dim] = ShapedType::kDynamic;
    else
      shape[dim] += size;
  }
  return b.create<ConcatOp>(loc, RankedTensorType::get(shape, first.getElementType()), parts,
                            b.getI64IntegerAttr(dim));
}

/// fill.Scalar / fill.Tensor: `value` at every position of self's shape.
Results legalizeFill(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> self = requiredTensor(args, "self");
  if (failed(self))
    return failure();
  FailureOr<Value> value = tensorOrScalar(args, b, "value", *self);
  if (failed(value))
    return failure();
  if (typeOf(*value).getRank() != 0)
    return operatorError(args) << "the fill value must be a scalar";
  return SmallVector<Value>{broadcastLike(b, args.getOp().getLoc(), *value, *self)};
}

/// copy(self, src): src broadcast to self's shape and converted to its dtype.
Results legalizeCopy(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> self = requiredTensor(args, "self"), src = requiredTensor(args, "src");
  if (failed(self) || failed(src))
    return failure();
  auto shape = broadcastShapes(typeOf(*src).getShape(), typeOf(*self).getShape());
  if (failed(shape) || typeOf(*src).getRank() > typeOf(*self).getRank())
    return operatorError(args) << "src of type " << src->getType()
                         << " does not broadcast to " << self->getType();
  return SmallVector<Value>{broadcastLike(b, args.getOp().getLoc(), *src, *self)};
}

/// unflatten(self, dim, sizes): a reshape to the export's result shape.
Results legalizeUnflatten(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> self = requiredTensor(args, "self");
  if (failed(self))
    return failure();
  RankedTensorType type = args.resultType();
  if (type.getNumDynamicDims() > 1)
    return operatorError(args) << "a result with more than one symbolic size is not supported yet";
  return SmallVector<Value>{makeReshape(b, args.getOp().getLoc(), *self, type.getShape())};
}

/// The positions that reflect, replicate or circular padding reads along a
/// dim of size `n` (a rank-0 i64 tensor) for the output positions `j`
/// (i - before for each output position i, an i64 iota): j brought into
/// [0, n) by mirroring at the ends (without repeating them), clamping, or
/// wrapping once. From an iota, not a constant table (the CUDA path reads no
/// host tables), so that n may be symbolic.
Value paddedPositions(OpBuilder &b, Location loc, StringRef mode, Value j, Value n) {
  Type i64 = b.getI64Type();
  auto c = [&](int64_t v) { return makeScalar(b, loc, i64, (double)v); };
  Value last = makeBinary<SubOp>(b, loc, n, c(1));
  if (mode == "replicate") {
    Value low = makeBinary<MaximumOp>(b, loc, j, c(0));
    return makeBinary<MinimumOp>(b, loc, low, last);
  }
  if (mode == "reflect") {
    // |j| mirrors the front; n-1 - |n-1 - |j|| the back.
    Value front = b.create<AbsOp>(loc, j);
    Value fromEnd = makeBinary<SubOp>(b, loc, last, front);
    Value back = b.create<AbsOp>(loc, fromEnd);
    return makeBinary<SubOp>(b, loc, last, back);
  }
  // circular: j + n before the start, j - n past the end.
  Value below = makeCompare(b, loc, "lt", j, c(0));
  Value above = makeCompare(b, loc, "ge", j, n);
  Value up = makeBinary<AddOp>(b, loc, j, n);
  Value down = makeBinary<SubOp>(b, loc, j, n);
  Value wrapped = b.create<SelectOp>(loc, typeOf(j), above, down, j);
  return b.create<SelectOp>(loc, typeOf(j), below, up, wrapped);
}

/// constant_pad_nd(self, pad, value) and pad(self, pad, mode, value): `pad`
/// holds (before, after) pairs from the last dim backwards; negative amounts
/// crop. Modes other than constant read self at paddedPositions (reflect's
/// pads non-negative and smaller than the dim, circular's at most it after
/// the crop); reflection_pad/replication_pad take theirs as `padding`.
Results legalizePad(OperatorArgs &args, OpBuilder &b, StringRef fixedMode) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> self = requiredTensor(args, "self");
  std::optional<SmallVector<int64_t>> pad = args.getInts(fixedMode.empty() ? "pad" : "padding");
  if (failed(self))
    return failure();
  if (!pad)
    return operatorError(args) << "needs a static 'pad' list";
  StringRef mode = fixedMode.empty() ? "constant" : fixedMode;
  if (auto given = dyn_cast_or_null<StringAttr>(args.getOp().getArgs().get("mode")))
    mode = given.getValue();
  if (mode != "constant" && mode != "reflect" && mode != "replicate" && mode != "circular")
    return operatorError(args) << "padding mode '" << mode << "' is not supported";
  Value x = *self;
  int64_t rank = typeOf(x).getRank();
  if (pad->size() % 2 != 0 || (int64_t)pad->size() > 2 * rank)
    return operatorError(args) << "a pad list of " << pad->size() << " entries for a rank-" << rank
                               << " tensor";
  double value = args.getFloat("value").value_or(0.0);
  for (size_t i = 0; i < pad->size() / 2; ++i) {
    int64_t dim = rank - 1 - (int64_t)i, before = (*pad)[2 * i], after = (*pad)[2 * i + 1];
    if (before == 0 && after == 0)
      continue;
    RankedTensorType t = typeOf(x);
    if (mode == "constant") {
      x = padConstant(b, loc, x, dim, before, after, value);
      continue;
    }
    // Circular padding wraps around what negative amounts leave.
    if (mode == "circular" && (before < 0 || after < 0)) {
      x = cropDim(b, loc, x, dim, std::max<int64_t>(0, -before), std::max<int64_t>(0, -after));
      t = typeOf(x);
      before = std::max<int64_t>(before, 0);
      after = std::max<int64_t>(after, 0);
    }
    int64_t size = t.getShape()[dim];
    bool symbolic = ShapedType::isDynamic(size);
    // The least size each mode reads within: reflect's amounts below the
    // size, circular's at most it, replicate one element and a result of
    // at least none.
    int64_t least = mode == "reflect"    ? std::max(before, after) + 1
                    : mode == "circular" ? std::max<int64_t>({1, before, after})
                                         : std::max<int64_t>(1, -(before + after));
    if ((mode == "reflect" && (before < 0 || after < 0)) || (!symbolic && size < least))
      return operatorError(args) << mode << " padding of " << before << " and " << after
                                 << " for a dim of size "
                                 << (symbolic ? std::string("?") : std::to_string(size))
                                 << " is not supported";
    Type i64 = b.getI64Type();
    auto scalarI64 = RankedTensorType::get({}, i64);
    SmallVector<Value> length;
    Value n;
    if (symbolic) {
      Value grow = b.create<arith::ConstantIndexOp>(loc, before + after);
      Value dimSize = dimIndex(b, loc, x, dim);
      length.push_back(b.create<arith::AddIOp>(loc, dimSize, grow));
      n = b.create<DimSizeOp>(loc, scalarI64, x, b.getI64IntegerAttr(dim));
    } else {
      n = makeScalar(b, loc, i64, (double)size);
    }
    int64_t outSize = symbolic ? ShapedType::kDynamic : size + before + after;
    Value j = b.create<IotaOp>(loc, RankedTensorType::get({outSize}, i64),
                               b.getF64FloatAttr(-before), b.getF64FloatAttr(1), length);
    Value at = paddedPositions(b, loc, mode, j, n);
    x = b.create<TakeOp>(loc,
                         RankedTensorType::get(withDimSize(t.getShape(), dim, outSize),
                                               t.getElementType()),
                         x, at, b.getI64IntegerAttr(dim));
    if (symbolic) {
      // PyTorch raises for a size the amounts do not fit; so does the call.
      Value enough = makeCompare(b, loc, "ge", n, makeScalar(b, loc, i64, (double)least));
      std::string message = (operatorName(args) + ": " + mode + " padding of " +
                             std::to_string(before) + " and " + std::to_string(after) +
                             " needs a size of at least " + std::to_string(least) + " in dim " +
                             std::to_string(dim))
                                .str();
      x = b.create<CheckOp>(loc, x.getType(), enough, x, b.getStringAttr(message));
    }
  }
  return SmallVector<Value>{x};
}

/// x rolled along a symbolic `dim` of size `n` (a rank-0 i64 tensor) by
/// `shift` (one too, of any sign): a take at (i + n - s) mod n, s = shift mod
/// n brought into [0, n). The divisor is at least 1, so an empty dim takes
/// nothing instead of dividing by zero.
Value rollSymbolic(OpBuilder &b, Location loc, Value x, int64_t dim, Value n, Value shift) {
  Type i64 = b.getI64Type();
  Value one = makeScalar(b, loc, i64, 1.0);
  Value divisor = makeBinary<MaximumOp>(b, loc, n, one);
  Value rem = makeBinary<FmodOp>(b, loc, shift, divisor);
  Value positive = makeBinary<AddOp>(b, loc, rem, divisor);
  Value s = makeBinary<FmodOp>(b, loc, positive, divisor);
  Value offset = makeBinary<SubOp>(b, loc, divisor, s);
  SmallVector<Value> length{dimIndex(b, loc, x, dim)};
  Value i = b.create<IotaOp>(loc, RankedTensorType::get({ShapedType::kDynamic}, i64),
                             b.getF64FloatAttr(0), b.getF64FloatAttr(1), length);
  Value moved = makeBinary<AddOp>(b, loc, i, offset);
  Value at = makeBinary<FmodOp>(b, loc, moved, divisor);
  return b.create<TakeOp>(loc, typeOf(x), x, at, b.getI64IntegerAttr(dim));
}

/// The size of `x` along a symbolic `dim` as a rank-0 i64 tensor.
Value symbolicSize(OpBuilder &b, Location loc, Value x, int64_t dim) {
  return b.create<DimSizeOp>(loc, RankedTensorType::get({}, b.getI64Type()), x,
                             b.getI64IntegerAttr(dim));
}

/// x rolled by `shift` along `dim`: x[n-s:] followed by x[:n-s].
FailureOr<Value> rollDim(OperatorArgs &args, OpBuilder &b, Value x, int64_t shift,
                         int64_t dim) {
  Location loc = args.getOp().getLoc();
  int64_t size = typeOf(x).getShape()[dim];
  if (ShapedType::isDynamic(size)) {
    Value n = symbolicSize(b, loc, x, dim);
    return rollSymbolic(b, loc, x, dim, n, makeScalar(b, loc, b.getI64Type(), (double)shift));
  }
  if (size == 0)
    return x;
  int64_t s = ((shift % size) + size) % size;
  if (s == 0)
    return x;
  return concat(b, loc,
                {makeSlice(b, loc, x, dim, size - s, size, 1),
                 makeSlice(b, loc, x, dim, 0, size - s, 1)},
                dim);
}

/// fft_fftshift / fft_ifftshift(self, dim): a roll by size/2 (forward) or
/// -(size/2) along each dim given, all dims without one.
LegalizeFn legalizeFFTShift(bool inverse) {
  return [inverse](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Value> self = requiredTensor(args, "self");
    if (failed(self))
      return failure();
    Value x = *self;
    int64_t rank = typeOf(x).getRank();
    SmallVector<int64_t> dims;
    if (std::optional<SmallVector<int64_t>> given = args.getInts("dim"))
      dims = *given;
    else
      for (int64_t i = 0; i < rank; ++i)
        dims.push_back(i);
    for (int64_t raw : dims) {
      int64_t dim = normalizeDim(raw, rank);
      if (dim < 0 || dim >= rank)
        return operatorError(args) << "dim " << raw << " out of range for rank " << rank;
      int64_t size = typeOf(x).getShape()[dim];
      if (ShapedType::isDynamic(size)) {
        // A roll by n // 2 (forward) or -(n // 2), n read at run time.
        Location loc = args.getOp().getLoc();
        Value n = symbolicSize(b, loc, x, dim);
        Value half = makeBinary<TruncDivOp>(b, loc, n, makeScalar(b, loc, b.getI64Type(), 2.0));
        Value shift = inverse ? b.create<NegOp>(loc, half).getResult() : half;
        x = rollSymbolic(b, loc, x, dim, n, shift);
        continue;
      }
      FailureOr<Value> rolled = rollDim(args, b, x, inverse ? -(size / 2) : size / 2, dim);
      if (failed(rolled))
        return failure();
      x = *rolled;
    }
    return SmallVector<Value>{x};
  };
}

/// roll(self, shifts, dims): each (shift, dim) pair in turn; without dims,
/// the flattened tensor rolls and keeps its shape.
Results legalizeRoll(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> self = requiredTensor(args, "self");
  std::optional<SmallVector<int64_t>> shifts = args.getInts("shifts");
  SmallVector<int64_t> dims = args.getInts("dims").value_or(SmallVector<int64_t>{});
  if (failed(self))
    return failure();
  if (!shifts)
    return operatorError(args) << "needs static 'shifts'";
  Value x = *self;
  RankedTensorType type = typeOf(x);
  if (dims.empty()) {
    if (shifts->size() != 1)
      return operatorError(args) << "without dims, shifts must hold one value";
    int64_t count = type.hasStaticShape() ? type.getNumElements() : ShapedType::kDynamic;
    FailureOr<Value> rolled = rollDim(args, b, makeReshape(b, loc, x, {count}), shifts->front(), 0);
    if (failed(rolled))
      return failure();
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      sizes.push_back(dimIndex(b, loc, x, d));
    return SmallVector<Value>{makeReshape(b, loc, *rolled, type.getShape(), sizes)};
  }
  if (dims.size() != shifts->size())
    return operatorError(args) << shifts->size() << " shifts for " << dims.size() << " dims";
  for (auto [shift, raw] : llvm::zip(*shifts, dims)) {
    int64_t dim = normalizeDim(raw, type.getRank());
    if (dim < 0 || dim >= type.getRank())
      return operatorError(args) << "dim " << raw << " out of range for rank " << type.getRank();
    FailureOr<Value> rolled = rollDim(args, b, x, shift, dim);
    if (failed(rolled))
      return failure();
    x = *rolled;
  }
  return SmallVector<Value>{x};
}

/// slice_scatter(self, src, dim, start, end, step): self with
/// self[start:end:step] along dim replaced by src: concatenations of self's
/// kept parts around src (interleaved through a reshape for step > 1), with
/// no constant tables, which the CUDA path could not read.
/// What slice_scatter and select_scatter write into: self, src, and the
/// normalized dim with its (static) size.
struct ScatterTarget {
  Value self, src;
  RankedTensorType type;
  int64_t dim, size;
};

FailureOr<ScatterTarget> scatterTarget(OperatorArgs &args) {
  FailureOr<Value> self = requiredTensor(args, "self"), src = requiredTensor(args, "src");
  if (failed(self) || failed(src))
    return failure();
  RankedTensorType type = typeOf(*self);
  int64_t rank = type.getRank();
  int64_t rawDim = args.getInt("dim").value_or(0);
  int64_t dim = normalizeDim(rawDim, rank);
  if (dim < 0 || dim >= rank)
    return operatorError(args) << "dim " << rawDim << " out of range for rank " << rank;
  // A symbolic size (kDynamic) takes literal, non-negative bounds
  // (replaceSymbolicRange).
  return ScatterTarget{*self, *src, type, dim, type.getShape()[dim]};
}

/// `self` with [start, end) along a symbolic `dim` replaced by `update`
/// (end kDynamic: to the end): self[:start], update and self[end:] (of
/// symbolic size n - end) concatenated. The call checks that the bounds lie
/// within n and that the result keeps it, as PyTorch raises for an update
/// of another size.
Value replaceSymbolicRange(OperatorArgs &args, OpBuilder &b, Value self, Value update,
                           int64_t dim, int64_t start, int64_t end) {
  Location loc = args.getOp().getLoc();
  auto scalarI64 = RankedTensorType::get({}, b.getI64Type());
  // The start within the size before any slice reads there (PyTorch would
  // clamp it to n, leaving an empty update: not supported).
  Type i64 = b.getI64Type();
  Value n = b.create<DimSizeOp>(loc, scalarI64, self, b.getI64IntegerAttr(dim));
  Value within = makeCompare(b, loc, "ge", n, makeScalar(b, loc, i64, (double)start));
  std::string outside = (operatorName(args) + ": start " + std::to_string(start) +
                         " past the size of dim " + std::to_string(dim))
                            .str();
  self = b.create<CheckOp>(loc, self.getType(), within, self, b.getStringAttr(outside));
  SmallVector<Value> parts;
  RankedTensorType t = typeOf(self);
  if (start > 0)
    parts.push_back(b.create<SliceOp>(
        loc, RankedTensorType::get(withDimSize(t.getShape(), dim, start), t.getElementType()),
        self, b.getI64IntegerAttr(dim), b.getI64IntegerAttr(0), b.getI64IntegerAttr(start),
        b.getI64IntegerAttr(1)));
  parts.push_back(update);
  if (!ShapedType::isDynamic(end)) {
    // self[min(end, n):], of max(n - end, 0) elements: the end clamps to
    // the size read at run time, as PyTorch's.
    Value endValue = makeScalar(b, loc, i64, (double)end);
    Value from = makeBinary<MinimumOp>(b, loc, endValue, n);
    Value size = dimIndex(b, loc, self, dim);
    Value endIndex = b.create<arith::ConstantIndexOp>(loc, end);
    Value rest = b.create<arith::SubIOp>(loc, size, endIndex);
    Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
    Value length = b.create<arith::MaxSIOp>(loc, rest, zero);
    parts.push_back(takeRange(b, loc, self, dim, from, length, t));
  }
  Value result = concat(b, loc, parts, dim);
  Value have = b.create<DimSizeOp>(loc, scalarI64, result, b.getI64IntegerAttr(dim));
  Value same = makeCompare(b, loc, "eq", have, n);
  std::string message = (operatorName(args) + ": the update does not fit dim " +
                         std::to_string(dim) + " at " + std::to_string(start))
                            .str();
  return b.create<CheckOp>(loc, result.getType(), same, result, b.getStringAttr(message));
}

/// `self` with [start, end) along `dim` (of size `size`) replaced by `update`.
Value replaceRange(OpBuilder &b, Location loc, Value self, Value update, int64_t dim,
                   int64_t start, int64_t end, int64_t size) {
  SmallVector<Value> parts;
  if (start > 0)
    parts.push_back(makeSlice(b, loc, self, dim, 0, start, 1));
  parts.push_back(update);
  if (end < size)
    parts.push_back(makeSlice(b, loc, self, dim, end, size, 1));
  return concat(b, loc, parts, dim);
}

Results legalizeSliceScatter(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<ScatterTarget> target = scatterTarget(args);
  if (failed(target))
    return failure();
  Value self = target->self, src = target->src;
  RankedTensorType type = target->type;
  int64_t rank = type.getRank(), dim = target->dim, size = target->size;
  int64_t step = args.getInt("step").value_or(1);
  if (step < 1)
    return operatorError(args) << "step must be positive";
  int64_t start = args.getInt("start").value_or(0);
  int64_t end = args.getInt("end").value_or(std::numeric_limits<int64_t>::max());
  if (ShapedType::isDynamic(size)) {
    if (step != 1 || start < 0 || end < start)
      return operatorError(args) << "dimension " << dim << " is symbolic; only a slice ["
                                 << start << ":" << end << ":" << step
                                 << "] of literal non-negative bounds and step 1 is supported";
    Value update = makeCast(b, loc, src, type.getElementType());
    bool toEnd = end == std::numeric_limits<int64_t>::max();
    return SmallVector<Value>{replaceSymbolicRange(args, b, self, update, dim, start,
                                                   toEnd ? ShapedType::kDynamic : end)};
  }
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  int64_t count = (end - start + step - 1) / step;
  RankedTensorType srcType = typeOf(src);
  if (srcType.getRank() != rank || (!ShapedType::isDynamic(srcType.getShape()[dim]) &&
                                    srcType.getShape()[dim] != count))
    return operatorError(args) << "src of type " << srcType << " does not match the slice ["
                         << start << ":" << end << ":" << step << "] of " << type;
  Value update = makeCast(b, loc, src, type.getElementType());
  if (count == 0)
    return SmallVector<Value>{self};
  if (step == 1)
    return SmallVector<Value>{replaceRange(b, loc, self, update, dim, start, end, size)};
  // Step > 1: view self[start : start + count*step] (padded past the end when
  // the last stride overhangs) as [count, step] along dim, put src in column 0
  // and view it back.
  int64_t stop = start + count * step;
  Value base = self;
  if (stop > size) {
    SmallVector<int64_t> tail(type.getShape());
    tail[dim] = stop - size;
    if (llvm::any_of(tail, ShapedType::isDynamic))
      return operatorError(args) << "a strided slice_scatter on a tensor of symbolic shape " << type
                           << " is not supported yet";
    base = concat(b, loc, {base, makeSplat(b, loc, RankedTensorType::get(tail,
                                                   type.getElementType()), 0.0)}, dim);
  }
  Value region = makeSlice(b, loc, base, dim, start, stop, 1);
  SmallVector<int64_t> split(typeOf(region).getShape());
  if (llvm::count_if(split, ShapedType::isDynamic) > 1)
    return operatorError(args) << "more than one symbolic dim is not supported yet";
  split[dim] = step;
  split.insert(split.begin() + dim, count);
  Value columns = makeSlice(b, loc, makeReshape(b, loc, region, split), dim + 1, 1, step, 1);
  SmallVector<int64_t> updateShape(typeOf(update).getShape());
  updateShape.insert(updateShape.begin() + dim + 1, 1);
  Value merged = concat(b, loc, {makeReshape(b, loc, update, updateShape), columns}, dim + 1);
  Value result = replaceRange(b, loc, self, makeReshape(b, loc, merged, typeOf(region).getShape()),
                              dim, start, stop, size);
  if (stop > size)
    result = makeSlice(b, loc, result, dim, 0, size, 1);
  return SmallVector<Value>{result};
}

/// select_scatter(self, src, dim, index): self with self.select(dim, index)
/// replaced by src, i.e. a slice_scatter of src with a unit dim at `dim`.
Results legalizeSelectScatter(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<ScatterTarget> t = scatterTarget(args);
  if (failed(t))
    return failure();
  int64_t index = args.getInt("index").value_or(0);
  bool symbolic = ShapedType::isDynamic(t->size);
  if (symbolic && index < 0)
    return operatorError(args) << "dimension " << t->dim
                               << " is symbolic; only a non-negative literal index is supported";
  if (!symbolic && (index < -t->size || index >= t->size))
    return operatorError(args) << "index " << index << " out of range for size " << t->size;
  if (index < 0)
    index += t->size;
  SmallVector<int64_t> unit(typeOf(t->src).getShape());
  if ((int64_t)unit.size() != t->type.getRank() - 1)
    return operatorError(args) << "src of type " << typeOf(t->src) << " does not match a select of "
                         << t->type;
  unit.insert(unit.begin() + t->dim, 1);
  Value update = makeReshape(b, loc, makeCast(b, loc, t->src, t->type.getElementType()), unit);
  if (symbolic)  // an index past the size leaves a result too long: checked
    return SmallVector<Value>{
        replaceSymbolicRange(args, b, t->self, update, t->dim, index, index + 1)};
  return SmallVector<Value>{
      replaceRange(b, loc, t->self, update, t->dim, index, index + 1, t->size)};
}
} // namespace

namespace {
/// tril(x, k) keeps x[..., i, j] where j - i <= k, triu where j - i >= k;
/// the rest is 0. Rows and columns as iota vectors compared once.
Results legalizeTriangle(OperatorArgs &args, OpBuilder &b, bool lower) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self");
  if (!x || typeOf(x).getRank() < 2)
    return args.getOp().emitError(lower ? "tril" : "triu") << " expects a tensor 'self' of rank >= 2";
  auto t = typeOf(x);
  int64_t r = t.getRank(), rows = t.getShape()[r - 2], cols = t.getShape()[r - 1];
  int64_t k = args.getInt("diagonal").value_or(0);
  auto i64 = b.getI64Type();
  // j - i as an [rows, cols] i64 tensor: iota(cols) - iota(rows)[:, None]
  // (symbolic lengths read at run time).
  auto lengthOf = [&](int64_t size, int64_t d) {
    return ShapedType::isDynamic(size) ? SmallVector<Value>{dimIndex(b, loc, x, d)}
                                       : SmallVector<Value>{};
  };
  Value i = b.create<IotaOp>(loc, RankedTensorType::get({rows}, i64), b.getF64FloatAttr(0),
                             b.getF64FloatAttr(1), lengthOf(rows, r - 2));
  i = makeReshape(b, loc, i, {rows, 1});
  Value j = b.create<IotaOp>(loc, RankedTensorType::get({cols}, i64), b.getF64FloatAttr(0),
                             b.getF64FloatAttr(1), lengthOf(cols, r - 1));
  Value offset = makeBinary<SubOp>(b, loc, j, i);
  Value keep = makeCompare(b, loc, lower ? "le" : "ge", offset, makeScalar(b, loc, i64, k));
  Value zero = makeScalar(b, loc, t.getElementType(), 0.0);
  return SmallVector<Value>{b.create<SelectOp>(loc, t, keep, x, zero).getResult()};
}
/// tril_indices(row, col, offset) / triu_indices: the coordinates of the
/// lower (upper) triangle of a row x col matrix, row by row, as a [2, count]
/// tensor (the export knows count). Each row's run is a splat of its row
/// number over an iota of its columns, concatenated: no dense constant,
/// which the CUDA path could not read.
Results legalizeTriangleIndices(OperatorArgs &args, OpBuilder &b, bool lower) {
  std::optional<int64_t> rows = args.getInt("row"), cols = args.getInt("col");
  int64_t offset = args.getInt("offset").value_or(0);
  RankedTensorType type = args.resultType();
  if (!rows || !cols || *rows < 0 || *cols < 0 || !type.hasStaticShape() || type.getRank() != 2 ||
      !type.getElementType().isSignlessInteger() || type.getElementType().isInteger(1))
    return operatorError(args) << "needs whole row and col and an integer [2, n] result";
  Location loc = args.getOp().getLoc();
  Type elt = type.getElementType();
  SmallVector<Value> rowParts, colParts;
  int64_t count = 0;
  for (int64_t r = 0; r < *rows; ++r) {
    int64_t first = lower ? 0 : std::clamp<int64_t>(r + offset, 0, *cols);
    int64_t end = lower ? std::clamp<int64_t>(r + offset + 1, 0, *cols) : *cols;
    if (end <= first)
      continue;
    if (rowParts.size() == kMaxTriangleRuns)
      return operatorError(args) << "more than " << kMaxTriangleRuns << " rows";
    auto runType = RankedTensorType::get({1, end - first}, elt);
    rowParts.push_back(makeSplat(b, loc, runType, static_cast<double>(r)));
    Value columns = b.create<IotaOp>(loc, RankedTensorType::get({end - first}, elt),
                                     b.getF64FloatAttr(static_cast<double>(first)),
                                     b.getF64FloatAttr(1), ValueRange{});
    colParts.push_back(makeReshape(b, loc, columns, {1, end - first}));
    count += end - first;
  }
  if (count != type.getDimSize(1))
    return operatorError(args) << count << " coordinates for a result of type " << type;
  if (count == 0)
    return SmallVector<Value>{makeSplat(b, loc, type, 0.0)};
  auto lineType = RankedTensorType::get({1, count}, elt);
  auto line = [&](SmallVector<Value> &parts) -> Value {
    if (parts.size() == 1)
      return parts.front();
    return b.create<ConcatOp>(loc, lineType, parts, b.getI64IntegerAttr(1));
  };
  Value rowLine = line(rowParts);
  Value colLine = line(colParts);
  return SmallVector<Value>{
      b.create<ConcatOp>(loc, type, ValueRange{rowLine, colLine}, b.getI64IntegerAttr(0))
          .getResult()};
}
} // namespace

Value tcc::graph::cropDim(OpBuilder &b, Location loc, Value x, int64_t dim, int64_t front,
                         int64_t back) {
  RankedTensorType t = typeOf(x);
  int64_t size = t.getShape()[dim];
  if (front == 0 && back == 0)
    return x;
  if (!ShapedType::isDynamic(size))
    return makeSlice(b, loc, x, dim, front, size - back, 1);
  Value n = dimIndex(b, loc, x, dim);
  Value cut = b.create<arith::ConstantIndexOp>(loc, front + back);
  Value length = b.create<arith::SubIOp>(loc, n, cut);
  return b.create<SliceOp>(loc, t, x, b.getI64IntegerAttr(dim), b.getI64IntegerAttr(front),
                           b.getI64IntegerAttr(std::numeric_limits<int64_t>::max()),
                           b.getI64IntegerAttr(1), ValueRange{length});
}

void tcc::graph::populateRearrangeLegalizers(LegalizerTable &t) {
  t["aten.tril.default"] = [](OperatorArgs &a, OpBuilder &b) { return legalizeTriangle(a, b, true); };
  t["aten.triu.default"] = [](OperatorArgs &a, OpBuilder &b) { return legalizeTriangle(a, b, false); };
  t["aten.tril_indices.default"] = [](OperatorArgs &a, OpBuilder &b) {
    return legalizeTriangleIndices(a, b, true);
  };
  t["aten.triu_indices.default"] = [](OperatorArgs &a, OpBuilder &b) {
    return legalizeTriangleIndices(a, b, false);
  };
  t["aten.fill.Scalar"] = legalizeFill;
  t["aten.fill.Tensor"] = legalizeFill;
  t["aten.copy.default"] = legalizeCopy;
  t["aten.unflatten.int"] = legalizeUnflatten;
  t["aten.pad.default"] = [](OperatorArgs &a, OpBuilder &b) { return legalizePad(a, b, ""); };
  t["aten.constant_pad_nd.default"] = t["aten.pad.default"];
  for (const char *d : {"1d", "2d", "3d"}) {
    t[std::string("aten.reflection_pad") + d + ".default"] = [](OperatorArgs &a, OpBuilder &b) {
      return legalizePad(a, b, "reflect");
    };
    t[std::string("aten.replication_pad") + d + ".default"] = [](OperatorArgs &a, OpBuilder &b) {
      return legalizePad(a, b, "replicate");
    };
  }
  t["aten.roll.default"] = legalizeRoll;
  t["aten.fft_fftshift.default"] = legalizeFFTShift(/*inverse=*/false);
  t["aten.fft_ifftshift.default"] = legalizeFFTShift(/*inverse=*/true);
  t["aten.slice_scatter.default"] = legalizeSliceScatter;
  t["aten.select_scatter.default"] = legalizeSelectScatter;
}
