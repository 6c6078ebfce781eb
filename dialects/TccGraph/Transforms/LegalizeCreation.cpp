//===- LegalizeCreation.cpp - new tensors, dtype conversions, scans -------===//
//
// full/zeros/ones (and their _like/new_ forms), arange, scalar_tensor, the
// .to(dtype) family, cumsum and diff, and the export's shape assertions
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
  std::optional<double> v = args.getFloat("fill_value");
  if (!v)
    v = args.getFloat("s");
  if (!v)
    return args.getOp().emitError("expected a numeric 'fill_value'");
  return splat(args, b, *v);
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

/// diff with n != 1 (static shapes): x itself for n = 0 (prepend and append
/// ignored, as PyTorch), else prepend, x and append concatenated and
/// differenced n times, empty once nothing is left.
Results legalizeRepeatedDiff(OperatorArgs &args, OpBuilder &b, Value x, int64_t order) {
  Location loc = args.getOp().getLoc();
  RankedTensorType t = typeOf(x), out = args.resultType();
  int64_t dim = normalizeDim(args.getInt("dim").value_or(-1), t.getRank());
  if (order < 0 || dim < 0 || dim >= t.getRank() || !out.hasStaticShape() ||
      !isa<FloatType>(t.getElementType()))
    return operatorError(args) << "n = " << order
                               << " needs a float tensor of static shape and a valid dim";
  if (order == 0)
    return SmallVector<Value>{x};
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
  for (const char *name : {"aten._assert_tensor_metadata.default", "aten._assert_scalar.default",
                           "aten.sym_constrain_range_for_size.default"})
    t[name] = noResults;
}
