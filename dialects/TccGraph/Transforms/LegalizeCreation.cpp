//===- LegalizeCreation.cpp - new tensors, dtype conversions, scans -------===//
//
// full/zeros/ones (and their _like/new_ forms), arange, scalar_tensor, the
// .to(dtype) family, cumsum, diff and gradient, and the export's shape assertions
// (checked by the guards, so they produce nothing here). The export already
// knows every result's shape and dtype, so these read the result type rather
// than re-deriving it from size and dtype arguments.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// A tensor of the result's type with every element `value`.
Results splat(OperatorArgs &args, OpBuilder &b, double value) {
  RankedTensorType type = args.resultType();
  Location loc = args.getOp().getLoc();
  if (!type.hasStaticShape()) {  // a scalar broadcast to the symbolic shape
    FailureOr<SmallVector<Value>> sizes = symbolicSizes(args, b);
    if (failed(sizes))
      return failure();
    Value scalar = makeScalar(b, loc, type.getElementType(), value);
    return SmallVector<Value>{b.create<BroadcastOp>(loc, type, scalar, *sizes).getResult()};
  }
  return SmallVector<Value>{makeSplat(b, loc, type, value)};
}

LegalizeFn filledWith(double value) {
  return [value](OperatorArgs &args, OpBuilder &b) { return splat(args, b, value); };
}

/// full(size, fill_value), full_like(self, fill_value), new_full, scalar_tensor(s).
Results legalizeFull(OperatorArgs &args, OpBuilder &b) {
  // An integer fill of an integer tensor exactly (a double holds 2^53 at most).
  RankedTensorType type = args.resultType();
  auto integer = dyn_cast_or_null<IntegerAttr>(args.getOp().getArgs().get(
      args.has("fill_value") ? "fill_value" : "s"));
  if (integer && type.hasStaticShape() && type.getElementType().isSignlessInteger() &&
      !type.getElementType().isInteger(1)) {
    APInt value(type.getElementType().getIntOrFloatBitWidth(), integer.getInt(), /*isSigned=*/true);
    auto attr = cast<ElementsAttr>(DenseElementsAttr::get(type, value));
    return SmallVector<Value>{b.create<ConstantOp>(args.getOp().getLoc(), type, attr).getResult()};
  }
  std::optional<double> v = args.getFloat("fill_value");
  if (!v)
    v = args.getFloat("s");
  if (!v)
    return args.getOp().emitError("expected a numeric 'fill_value'");
  return splat(args, b, *v);
}

/// item(self) / _local_scalar_dense(self): the one element of self as a
/// rank-0 tensor of the Python number's type (the frontend made the result a
/// tensor: int64, float64 or bool).
Results legalizeItem(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> self = requiredTensor(args, "self");
  if (failed(self))
    return failure();
  RankedTensorType t = typeOf(*self), type = args.resultType();
  if (!t.hasStaticShape() || t.getNumElements() != 1 || type.getRank() != 0)
    return operatorError(args) << "needs a tensor of one element (static sizes), not " << t;
  Location loc = args.getOp().getLoc();
  Value one = makeReshape(b, loc, *self, {});
  return SmallVector<Value>{makeCast(b, loc, one, type.getElementType())};
}

/// arange(end), arange(start, end), arange(start, end, step).
Results legalizeArange(OperatorArgs &args, OpBuilder &b) {
  RankedTensorType type = args.resultType();
  std::optional<double> start = args.has("start") ? args.getFloat("start") : 0.0;
  std::optional<double> step = args.has("step") ? args.getFloat("step") : 1.0;
  if (!start || !step)
    return args.getOp().emitError("arange with a symbolic start or step is not supported yet");
  FailureOr<SmallVector<Value>> sizes = symbolicSizes(args, b);  // a symbolic end
  if (failed(sizes))
    return failure();
  return SmallVector<Value>{b.create<IotaOp>(args.getOp().getLoc(), type,
                                             b.getF64FloatAttr(*start), b.getF64FloatAttr(*step),
                                             *sizes)};
}

/// linspace(start, end, steps) and logspace (base ** linspace), with start
/// and end numbers or 0-d tensors (the Tensor overloads): PyTorch's
/// symmetric form, start + i·step for the first half and end − (steps−1−i)·step
/// for the rest, in f64, rounded once to the result type.
LegalizeFn legalizeLinspace(bool log) {
  return [log](OperatorArgs &args, OpBuilder &b) -> Results {
    Location loc = args.getOp().getLoc();
    RankedTensorType type = args.resultType();
    Type f64 = b.getF64Type();
    // start and end as 0-d f64 values, from a number or a 0-d tensor.
    auto bound = [&](StringRef name) -> Value {
      if (Value v = args.tensor(name))
        return typeOf(v).getRank() == 0 ? makeCast(b, loc, v, f64) : nullptr;
      std::optional<double> number = args.getFloat(name);
      return number ? makeScalar(b, loc, f64, *number) : nullptr;
    };
    Value start = bound("start");
    Value end = bound("end");
    std::optional<int64_t> steps = args.getInt("steps");
    if (!start || !end || !steps || type.getRank() != 1 || !type.hasStaticShape())
      return operatorError(args) << "needs number or 0-d start and end, and steps";
    if (!isa<FloatType>(type.getElementType()))
      return operatorError(args) << "with an integer dtype is not supported yet";
    int64_t n = *steps;
    Value step = makeScalar(b, loc, f64, 0.0);
    if (n > 1) {
      Value span = makeBinary<SubOp>(b, loc, end, start);
      step = makeBinary<DivOp>(b, loc, span, makeScalar(b, loc, f64, double(n - 1)));
    }
    auto vector = RankedTensorType::get({n}, f64);
    Value i = b.create<IotaOp>(loc, vector, b.getF64FloatAttr(0), b.getF64FloatAttr(1), ValueRange{});
    Value fromStart = makeBinary<MulOp>(b, loc, i, step);
    Value forward = makeBinary<AddOp>(b, loc, start, fromStart);
    Value left = b.create<IotaOp>(loc, vector, b.getF64FloatAttr(double(n - 1)), b.getF64FloatAttr(-1),
                                  ValueRange{});
    Value fromEnd = makeBinary<MulOp>(b, loc, left, step);
    Value backward = makeBinary<SubOp>(b, loc, end, fromEnd);
    // One step is start itself (PyTorch's special case), not end.
    double halfway = n == 1 ? 1.0 : static_cast<double>(n / 2);
    Value firstHalf = makeCompare(b, loc, "lt", i, makeScalar(b, loc, f64, halfway));
    Value v = b.create<SelectOp>(loc, vector, firstHalf, forward, backward);
    if (log) {
      double base = args.getFloat("base").value_or(10.0);
      v = makeBinary<PowOp>(b, loc, makeScalar(b, loc, f64, base), v);
    }
    return SmallVector<Value>{makeCast(b, loc, v, type.getElementType())};
  };
}

/// eye(n[, m]): 1 where the row index equals the column index.
Results legalizeEye(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  RankedTensorType type = args.resultType();
  if (type.getRank() != 2 || !type.hasStaticShape())
    return args.getOp().emitError("eye with symbolic sizes is not supported yet");
  int64_t n = type.getDimSize(0), m = type.getDimSize(1);
  auto i64 = b.getI64Type();
  Value rows = makeReshape(b, loc, b.create<IotaOp>(loc, RankedTensorType::get({n}, i64),
                                                    b.getF64FloatAttr(0), b.getF64FloatAttr(1),
                                                    ValueRange{}), {n, 1});
  Value cols = makeReshape(b, loc, b.create<IotaOp>(loc, RankedTensorType::get({m}, i64),
                                                    b.getF64FloatAttr(0), b.getF64FloatAttr(1),
                                                    ValueRange{}), {1, m});
  return SmallVector<Value>{
      makeCast(b, loc, makeCompare(b, loc, "eq", rows, cols), type.getElementType())};
}

/// .to(dtype), _to_copy, type conversions: a cast to the result's element type
/// (device, layout and memory format change nothing in a compiled graph).
Results legalizeTo(OperatorArgs &args, OpBuilder &b) {
  Value x = args.tensor("self");
  if (!x)
    return args.getOp().emitError("expected a tensor operand 'self'");
  return SmallVector<Value>{
      makeCast(b, args.getOp().getLoc(), x, args.resultType().getElementType())};
}

Results legalizeCumsum(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self");
  std::optional<int64_t> dim = args.getInt("dim");
  if (!x || !dim)
    return args.getOp().emitError("cumsum expects 'self' and 'dim'");
  RankedTensorType type = args.resultType();
  int64_t d = normalizeDim(*dim, type.getRank());
  if (type.getRank() > 0 && (d < 0 || d >= type.getRank()))
    return args.getOp().emitError("cumsum dim ") << *dim << " out of range for rank "
                                                 << type.getRank();
  x = makeCast(b, loc, x, type.getElementType());
  return SmallVector<Value>{b.create<CumsumOp>(loc, x.getType(), x, b.getI64IntegerAttr(d))};
}

/// diff with n != 1: x itself for n = 0 (prepend and append ignored, as
/// PyTorch; any shape), else (static shapes) prepend, x and append
/// concatenated and differenced n times, empty once nothing is left.
Results legalizeRepeatedDiff(OperatorArgs &args, OpBuilder &b, Value x, int64_t order) {
  Location loc = args.getOp().getLoc();
  RankedTensorType t = typeOf(x), out = args.resultType();
  int64_t dim = normalizeDim(args.getInt("dim").value_or(-1), t.getRank());
  bool validDim = dim >= 0 && dim < t.getRank();
  if (order == 0 && validDim)
    return SmallVector<Value>{x};
  if (order < 0 || !validDim || !out.hasStaticShape() || !isa<FloatType>(t.getElementType()))
    return operatorError(args) << "n = " << order
                               << " needs a float tensor of static shape and a valid dim";
  SmallVector<Value> parts;
  for (Value part : {args.tensor("prepend"), x, args.tensor("append")})
    if (part)
      parts.push_back(makeCast(b, loc, part, t.getElementType()));
  Value y = parts.front();
  if (parts.size() > 1) {
    SmallVector<int64_t> shape(t.getShape());
    shape[dim] = 0;
    for (Value part : parts)
      shape[dim] += typeOf(part).getShape()[dim];
    if (llvm::any_of(shape, ShapedType::isDynamic))
      return operatorError(args) << "n = " << order << " needs static shapes";
    y = b.create<ConcatOp>(loc, RankedTensorType::get(shape, t.getElementType()), parts,
                           b.getI64IntegerAttr(dim));
  }
  for (int64_t k = 0; k < order; ++k) {
    int64_t size = typeOf(y).getShape()[dim];
    if (size <= 1)
      return SmallVector<Value>{makeSplat(b, loc, out, 0.0)};
    Value later = makeSlice(b, loc, y, dim, 1, size, 1);
    Value earlier = makeSlice(b, loc, y, dim, 0, size - 1, 1);
    y = makeBinary<SubOp>(b, loc, later, earlier);
  }
  return SmallVector<Value>{y};
}

/// The spacing of a gradient: h per dim, or coordinate tensors.
struct GradientSpacing {
  SmallVector<double> steps;
  SmallVector<Value> coordinates;
};

/// torch.gradient (every overload) as ATen's gradient_helper_float (scalar
/// steps h: (x[i+1] - x[i-1]) / h / 2 inside, one-sided differences of
/// edge_order 1 or 2 at the ends) and gradient_helper (coordinate tensors:
/// the nonuniform three-point weights from their differences), one result
/// per dim, each the ends and the inside concatenated along it. A dim
/// shorter than edge_order + 1 is refused (PyTorch raises).
Results legalizeGradient(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> self = requiredTensor(args, "self");
  if (failed(self))
    return failure();
  RankedTensorType t = typeOf(*self);
  Type elt = t.getElementType();
  if (!isa<FloatType>(elt) || !t.hasStaticShape() || t.getRank() == 0)
    return operatorError(args) << "needs a floating-point tensor of static shape and rank >= 1";
  int64_t rank = t.getRank();
  int64_t edgeOrder = args.getInt("edge_order").value_or(1);
  if (edgeOrder != 1 && edgeOrder != 2)
    return operatorError(args) << "supports edge_order 1 and 2, not " << edgeOrder;
  // dims: an int list, one int, or every dim.
  SmallVector<int64_t> dims;
  Attribute dimAttr = args.getOp().getArgs().get("dim");
  if (std::optional<SmallVector<int64_t>> given = args.getInts("dim")) {
    for (int64_t d : *given)
      dims.push_back(normalizeDim(d, rank));
  } else if (!dimAttr || isa<UnitAttr>(dimAttr)) {
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
  } else {
    return operatorError(args) << "needs dim as an int or a list of ints";
  }
  for (int64_t d : dims)
    if (d < 0 || d >= rank)
      return operatorError(args) << "dim out of range for rank " << rank;
  // spacing: coordinate tensors, a list of numbers, one number, or 1.
  GradientSpacing spacing;
  spacing.coordinates = args.tensorList("spacing");
  Attribute spacingAttr = args.getOp().getArgs().get("spacing");
  if (!spacing.coordinates.empty()) {
  } else if (auto list = dyn_cast_or_null<DenseF64ArrayAttr>(spacingAttr)) {
    spacing.steps.assign(list.asArrayRef().begin(), list.asArrayRef().end());
  } else if (auto ints = dyn_cast_or_null<DenseI64ArrayAttr>(spacingAttr)) {
    for (int64_t v : ints.asArrayRef())
      spacing.steps.push_back(static_cast<double>(v));
  } else {
    spacing.steps.assign(dims.size(), args.getFloat("spacing").value_or(1.0));
  }
  size_t count = spacing.coordinates.empty() ? spacing.steps.size() : spacing.coordinates.size();
  if (count != dims.size())
    return operatorError(args) << "needs one spacing per dim: " << count << " for "
                               << dims.size() << " dims";
  if (args.getOp().getNumResults() != dims.size())
    return operatorError(args) << "has " << args.getOp().getNumResults() << " results for "
                               << dims.size() << " dims";
  SmallVector<Value> results;
  for (size_t k = 0; k < dims.size(); ++k) {
    int64_t dim = dims[k];
    int64_t n = t.getShape()[dim];
    if (n < edgeOrder + 1)
      return operatorError(args) << "needs each dim at least edge_order + 1 = "
                                 << edgeOrder + 1 << " long (dim " << dim << " is " << n
                                 << "), where PyTorch raises";
    Value x = *self;
    auto slice = [&](int64_t start, int64_t end) {
      return makeSlice(b, loc, x, dim, start < 0 ? n + start : start, end <= 0 ? n + end : end,
                       1);
    };
    auto c = [&](double v) { return makeScalar(b, loc, elt, v); };
    auto mul = [&](Value l, Value r) { return makeBinary<MulOp>(b, loc, l, r); };
    auto add = [&](Value l, Value r) { return makeBinary<AddOp>(b, loc, l, r); };
    auto sub = [&](Value l, Value r) { return makeBinary<SubOp>(b, loc, l, r); };
    auto div = [&](Value l, Value r) { return makeBinary<DivOp>(b, loc, l, r); };
    // One op per statement: argument order is the compiler's (issue 17).
    auto difference = [&](int64_t a0, int64_t a1, int64_t b0, int64_t b1) {
      Value later = slice(a0, a1);
      Value earlier = slice(b0, b1);
      return sub(later, earlier);
    };
    // w0 x[s0] + w1 x[s1] + w2 x[s2], the slices [s, s + 1) or s..n-2+s.
    auto weighted = [&](Value w0, std::pair<int64_t, int64_t> s0, Value w1,
                        std::pair<int64_t, int64_t> s1, Value w2, std::pair<int64_t, int64_t> s2) {
      Value x0 = slice(s0.first, s0.second);
      Value t0 = mul(w0, x0);
      Value x1 = slice(s1.first, s1.second);
      Value t1 = mul(w1, x1);
      Value sum01 = add(t0, t1);
      Value x2 = slice(s2.first, s2.second);
      Value t2 = mul(w2, x2);
      return add(sum01, t2);
    };
    Value center, prepend, append;
    if (spacing.coordinates.empty()) {
      Value h = c(spacing.steps[k]);
      Value diff = difference(2, 0, 0, -2);
      Value scaled = div(diff, h);
      center = div(scaled, c(2.0));
      if (edgeOrder == 1) {
        Value first = difference(1, 2, 0, 1);
        prepend = div(first, h);
        Value last = difference(-1, 0, -2, -1);
        append = div(last, h);
      } else {
        // (-1.5 x0 + 2 x1 - 0.5 x2) / h and (0.5 x[-3] - 2 x[-2] + 1.5 x[-1]) / h.
        Value x0 = slice(0, 1);
        Value first = mul(c(-1.5), x0);
        Value x1 = slice(1, 2);
        Value second = mul(c(2.0), x1);
        Value x2 = slice(2, 3);
        Value third = mul(c(0.5), x2);
        Value firstTwo = add(first, second);
        Value front = sub(firstTwo, third);
        prepend = div(front, h);
        Value y3 = slice(-3, -2);
        Value last3 = mul(c(0.5), y3);
        Value y2 = slice(-2, -1);
        Value last2 = mul(c(2.0), y2);
        Value y1 = slice(-1, 0);
        Value last1 = mul(c(1.5), y1);
        Value lastTwo = sub(last3, last2);
        Value back = add(lastTwo, last1);
        append = div(back, h);
      }
    } else {
      Value coord = spacing.coordinates[k];
      RankedTensorType ct = typeOf(coord);
      if (ct.getRank() != 1 || ct.getElementType() != elt || ct.getShape()[0] != n)
        return operatorError(args) << "needs each spacing tensor 1-D, of the input's type and "
                                      "as long as its dim";
      // dx = diff(coord), dx1 = dx[:-1], dx2 = dx[1:], shaped along dim.
      Value coordLater = makeSlice(b, loc, coord, 0, 1, n, 1);
      Value coordEarlier = makeSlice(b, loc, coord, 0, 0, n - 1, 1);
      Value dx = sub(coordLater, coordEarlier);
      SmallVector<int64_t> shape(rank, 1);
      shape[dim] = n - 2;
      Value dxFront = makeSlice(b, loc, dx, 0, 0, n - 2, 1);
      Value dx1 = makeReshape(b, loc, dxFront, shape);
      Value dxBack = makeSlice(b, loc, dx, 0, 1, n - 1, 1);
      Value dx2 = makeReshape(b, loc, dxBack, shape);
      Value sum = add(dx1, dx2);
      // a = -dx2 / (dx1 (dx1 + dx2)), b = (dx2 - dx1) / (dx1 dx2),
      // c = dx1 / (dx2 (dx1 + dx2)).
      Value negDx2 = b.create<NegOp>(loc, dx2);
      Value aBottom = mul(dx1, sum);
      Value wa = div(negDx2, aBottom);
      Value bTop = sub(dx2, dx1);
      Value bBottom = mul(dx1, dx2);
      Value wb = div(bTop, bBottom);
      Value cBottom = mul(dx2, sum);
      Value wc = div(dx1, cBottom);
      center = weighted(wa, {0, -2}, wb, {1, -1}, wc, {2, 0});
      auto at = [&](int64_t i) {
        Value one = makeSlice(b, loc, dx, 0, i, i + 1, 1);
        return makeReshape(b, loc, one, {});
      };
      Value d0 = at(0);
      Value dLast = at(n - 2);
      if (edgeOrder == 1) {
        Value first = difference(1, 2, 0, 1);
        prepend = div(first, d0);
        Value last = difference(-1, 0, -2, -1);
        append = div(last, dLast);
      } else {
        Value d1 = at(1);
        Value dPrev = at(n - 3);
        // a = -(2 d0 + d1) / (d0 (d0 + d1)), b = (d0 + d1) / (d0 d1),
        // c = -d0 / (d1 (d0 + d1)).
        Value s01 = add(d0, d1);
        Value twoD0 = mul(c(2.0), d0);
        Value paTop = add(twoD0, d1);
        Value paNeg = b.create<NegOp>(loc, paTop);
        Value paBottom = mul(d0, s01);
        Value pa = div(paNeg, paBottom);
        Value pbBottom = mul(d0, d1);
        Value pb = div(s01, pbBottom);
        Value negD0 = b.create<NegOp>(loc, d0);
        Value pcBottom = mul(d1, s01);
        Value pc = div(negD0, pcBottom);
        prepend = weighted(pa, {0, 1}, pb, {1, 2}, pc, {2, 3});
        // a = dl / (dp (dl + dp)), b = -(dl + dp) / (dl dp),
        // c = (2 dl + dp) / (dl (dl + dp)).
        Value sLast = add(dLast, dPrev);
        Value aaBottom = mul(dPrev, sLast);
        Value aa = div(dLast, aaBottom);
        Value abNeg = b.create<NegOp>(loc, sLast);
        Value abBottom = mul(dLast, dPrev);
        Value ab = div(abNeg, abBottom);
        Value twoDLast = mul(c(2.0), dLast);
        Value acTop = add(twoDLast, dPrev);
        Value acBottom = mul(dLast, sLast);
        Value ac = div(acTop, acBottom);
        append = weighted(aa, {-3, -2}, ab, {-2, -1}, ac, {-1, 0});
      }
    }
    SmallVector<Value> parts{prepend};
    if (n > 2)
      parts.push_back(center);
    parts.push_back(append);
    results.push_back(
        b.create<ConcatOp>(loc, t, parts, b.getI64IntegerAttr(dim)).getResult());
  }
  return results;
}

/// diff(x, n=1, dim, prepend, append) = y[1:] - y[:-1] along dim, where y is
/// prepend, x and append concatenated.
Results legalizeDiff(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self");
  if (!x)
    return args.getOp().emitError("expected a tensor operand 'self'");
  int64_t order = args.getInt("n").value_or(1);
  auto t = cast<RankedTensorType>(x.getType());
  if (order != 1)
    return legalizeRepeatedDiff(args, b, x, order);
  if (t.getElementType().isInteger(1))
    return args.getOp().emitError("diff of a bool tensor is not supported yet");
  int64_t dim = normalizeDim(args.getInt("dim").value_or(-1), t.getRank());
  if (dim < 0 || dim >= t.getRank())
    return args.getOp().emitError("diff dim out of range for rank ") << t.getRank();
  SmallVector<Value> parts;
  int64_t size = 0;  // kDynamic once a part is symbolic along dim
  for (Value part : {args.tensor("prepend"), x, args.tensor("append")}) {
    if (!part)
      continue;
    part = makeCast(b, loc, part, t.getElementType());
    int64_t n = cast<RankedTensorType>(part.getType()).getShape()[dim];
    parts.push_back(part);
    size = ShapedType::isDynamic(n) || ShapedType::isDynamic(size) ? ShapedType::kDynamic
                                                                   : size + n;
  }
  SmallVector<int64_t> shape(t.getShape());
  shape[dim] = size;
  Value y = parts.size() == 1 ? x
                              : b.create<ConcatOp>(loc, RankedTensorType::get(shape, t.getElementType()),
                                                   parts, b.getI64IntegerAttr(dim)).getResult();
  if (size == 0)
    return args.getOp().emitError("diff of an empty dimension is not supported");
  // Both slices have the result's shape; a symbolic length is the export's
  // expression for the result's size along dim.
  RankedTensorType part = args.resultType();
  SmallVector<Value> partSize;
  if (ShapedType::isDynamic(part.getShape()[dim])) {
    FailureOr<SmallVector<Value>> sizes = symbolicSizes(args, b);
    if (failed(sizes))
      return failure();
    partSize.push_back((*sizes)[llvm::count_if(part.getShape().take_front(dim),
                                               ShapedType::isDynamic)]);
  }
  int64_t end = ShapedType::isDynamic(size) ? INT64_MAX : size;
  auto slice = [&](int64_t start, int64_t stop) {
    return b.create<SliceOp>(loc, part, y, b.getI64IntegerAttr(dim), b.getI64IntegerAttr(start),
                             b.getI64IntegerAttr(stop), b.getI64IntegerAttr(1), partSize)
        .getResult();
  };
  return SmallVector<Value>{makeBinary<SubOp>(b, loc, slice(1, end), slice(0, end == INT64_MAX ? end : end - 1))};
}

/// The export's metadata and range assertions: facts the guards check on
/// every call, so nothing to compute.
Results noResults(OperatorArgs &, OpBuilder &) { return SmallVector<Value>{}; }
} // namespace

void tcc::graph::populateCreationLegalizers(LegalizerTable &t) {
  for (const char *name : {"aten.zeros.default", "aten.zeros_like.default", "aten.zero.default",
                           "aten.new_zeros.default", "aten.empty.memory_format",
                           "aten.empty_like.default", "aten.new_empty.default"})
    t[name] = filledWith(0.0);
  for (const char *name : {"aten.ones.default", "aten.ones_like.default", "aten.new_ones.default"})
    t[name] = filledWith(1.0);
  for (const char *name : {"aten.full.default", "aten.full_like.default",
                           "aten.new_full.default", "aten.scalar_tensor.default"})
    t[name] = legalizeFull;
  for (const char *name : {"aten.arange.default", "aten.arange.start", "aten.arange.start_step"})
    t[name] = legalizeArange;
  for (const char *name : {"aten.to.dtype", "aten.to.dtype_layout", "aten.to.device",
                           "aten._to_copy.default", "aten.type_as.default",
                           "aten.lift_fresh_copy.default"})
    t[name] = legalizeTo;
  t["aten.cumsum.default"] = legalizeCumsum;
  t["aten.linspace.default"] = legalizeLinspace(false);
  for (const char *v : {"Tensor_Tensor", "Tensor_Scalar", "Scalar_Tensor"}) {
    t[std::string("aten.linspace.") + v] = legalizeLinspace(false);
    t[std::string("aten.logspace.") + v] = legalizeLinspace(true);
  }
  t["aten.logspace.default"] = legalizeLinspace(true);
  t["aten.eye.default"] = legalizeEye;
  t["aten.eye.m"] = legalizeEye;
  t["aten.diff.default"] = legalizeDiff;
  for (const char *v : {"scalarint", "scalararray", "array", "scalarrayint", "scalarrayarray",
                        "tensorarrayint", "tensorarray"})
    t[std::string("aten.gradient.") + v] = legalizeGradient;
  t["aten.item.default"] = legalizeItem;
  t["aten._local_scalar_dense.default"] = legalizeItem;
  for (const char *name : {"aten._assert_tensor_metadata.default",
                           "aten.sym_constrain_range_for_size.default"})
    t[name] = noResults;
}
