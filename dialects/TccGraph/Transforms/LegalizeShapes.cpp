//===- LegalizeShapes.cpp - transposes, reshapes, concatenation -----------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

Results makePermute(OperatorArgs &args, OpBuilder &b, SmallVector<int64_t> perm) {
  Value x = args.tensor("self");
  return SmallVector<Value>{b.create<TransposeOp>(args.getOp().getLoc(), args.resultType(),
                                                  x, b.getDenseI64ArrayAttr(perm))};
}

Results legalizeTranspose(OperatorArgs &args, OpBuilder &b) {
  Value x = args.tensor("self");
  if (!x)
    return args.getOp().emitError("expected a tensor operand 'self'");
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    perm.push_back(i);
  if (rank < 2)
    return SmallVector<Value>{x};  // t() of a vector is the vector
  // transpose/swapdims name the dims dim0, dim1; swapaxes axis0, axis1.
  int64_t d0 = normalizeDim(args.getInt("dim0").value_or(args.getInt("axis0").value_or(0)), rank);
  int64_t d1 = normalizeDim(args.getInt("dim1").value_or(args.getInt("axis1").value_or(1)), rank);
  if (d0 < 0 || d0 >= rank || d1 < 0 || d1 >= rank)
    return args.getOp().emitError("transpose dims out of range for rank ") << rank;
  std::swap(perm[d0], perm[d1]);
  return makePermute(args, b, perm);
}

/// movedim(self, source, destination): the source dims at the destination
/// positions, the others in their order in the remaining ones.
Results legalizeMovedim(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self");
  std::optional<SmallVector<int64_t>> source = args.getInts("source"),
                                      destination = args.getInts("destination");
  if (failed(x))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  if (!source || !destination || source->size() != destination->size())
    return args.getOp().emitError("movedim expects as many source as destination dims");
  SmallVector<int64_t> perm(rank, -1);
  SmallVector<bool> moved(rank, false);
  for (auto [s, d] : llvm::zip(*source, *destination)) {
    int64_t from = normalizeDim(s, rank), to = normalizeDim(d, rank);
    if (from < 0 || from >= rank || to < 0 || to >= rank || perm[to] != -1 || moved[from])
      return args.getOp().emitError("movedim: dims out of range or repeated for rank ") << rank;
    perm[to] = from;
    moved[from] = true;
  }
  int64_t next = 0;
  for (int64_t &p : perm) {
    if (p != -1)
      continue;
    while (moved[next])
      ++next;
    p = next++;
  }
  if (rank < 2)
    return SmallVector<Value>{*x};
  return makePermute(args, b, perm);
}

Results legalizePermute(OperatorArgs &args, OpBuilder &b) {
  Value x = args.tensor("self");
  std::optional<SmallVector<int64_t>> dims = args.getInts("dims");
  if (!x || !dims)
    return args.getOp().emitError("permute expects 'self' and 'dims'");
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  if ((int64_t)dims->size() != rank)
    return args.getOp().emitError("permute has ") << dims->size() << " dims for a rank-" << rank
                                                   << " tensor";
  for (int64_t &d : *dims) {
    d = normalizeDim(d, rank);
    if (d < 0 || d >= rank)
      return args.getOp().emitError("permute dim out of range for rank ") << rank;
  }
  return makePermute(args, b, *dims);
}

/// `x` reshaped to the result's shape, which the export knows.
Results reshapeToResult(OperatorArgs &args, OpBuilder &b, Value x) {
  RankedTensorType type = args.resultType();
  SmallVector<Value> sizes;
  if (type.getNumDynamicDims() > 1) {  // the export's expressions give them
    FailureOr<SmallVector<Value>> symbolic = symbolicSizes(args, b);
    if (failed(symbolic))
      return failure();
    sizes = *symbolic;
  }
  return SmallVector<Value>{b.create<ReshapeOp>(args.getOp().getLoc(), type, x, sizes)};
}

/// view/reshape/flatten.
Results legalizeReshape(OperatorArgs &args, OpBuilder &b) {
  Value x = args.tensor("self");
  if (!x)
    return args.getOp().emitError("expected a tensor operand 'self'");
  return reshapeToResult(args, b, x);
}

/// prims.collapse(a, start, end) / collapse_view: dims start..end (both
/// included) as one; the export knows the result's shape.
Results legalizeCollapse(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> a = requiredTensor(args, "a");
  if (failed(a))
    return failure();
  return reshapeToResult(args, b, *a);
}

Results legalizeCat(OperatorArgs &args, OpBuilder &b) {
  SmallVector<Value> inputs = args.tensorList("tensors");
  if (inputs.empty())
    return args.getOp().emitError("cat expects a list of tensors");
  RankedTensorType type = args.resultType();
  int64_t dim = normalizeDim(args.getInt("dim").value_or(0), type.getRank());
  // PyTorch skips 1-D empty tensors of any other rank (a legacy allowance).
  if (type.getRank() != 1)
    llvm::erase_if(inputs, [](Value v) {
      auto t = cast<RankedTensorType>(v.getType());
      return t.getRank() == 1 && t.getDimSize(0) == 0;
    });
  if (inputs.empty())
    return args.getOp().emitError("cat of empty tensors only");
  // PyTorch promotes the inputs to one dtype (the result's).
  for (Value &v : inputs)
    v = makeCast(b, args.getOp().getLoc(), v, type.getElementType());
  if (inputs.size() == 1)
    return SmallVector<Value>{inputs[0]};
  return SmallVector<Value>{b.create<ConcatOp>(args.getOp().getLoc(), type, inputs,
                                               b.getI64IntegerAttr(dim))};
}

/// _chunk_cat(tensors, dim, num_chunks): each tensor padded with zeros at
/// the end of `dim` to a multiple of num_chunks, viewed as [pre.., num_chunks,
/// rest] (rest: its chunk of `dim` and every later dim, flattened), and the
/// views concatenated along that last dim.
Results legalizeChunkCat(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  SmallVector<Value> inputs = args.tensorList("tensors");
  int64_t chunks = args.getInt("num_chunks").value_or(1);
  RankedTensorType type = args.resultType();
  if (inputs.empty() || chunks < 1 || !type.hasStaticShape())
    return operatorError(args) << "needs tensors, a positive num_chunks and a static result";
  int64_t raw = args.getInt("dim").value_or(0);
  SmallVector<Value> parts;
  for (Value v : inputs) {
    auto t = cast<RankedTensorType>(v.getType());
    int64_t dim = normalizeDim(raw, t.getRank());
    if (dim < 0 || dim >= t.getRank() || !t.hasStaticShape())
      return operatorError(args) << "dim " << raw << " for a tensor of type " << t;
    int64_t size = t.getShape()[dim];
    int64_t padded = (size + chunks - 1) / chunks * chunks;
    Value p = padded == size ? v : padConstant(b, loc, v, dim, 0, padded - size);
    SmallVector<int64_t> shape(t.getShape().take_front(dim));
    int64_t rest = padded / chunks;
    for (int64_t d = dim + 1; d < t.getRank(); ++d)
      rest *= t.getShape()[d];
    shape.push_back(chunks);
    shape.push_back(rest);
    parts.push_back(makeReshape(b, loc, p, shape));
  }
  int64_t catDim = type.getRank() - 1;
  for (Value p : parts)
    if (cast<RankedTensorType>(p.getType()).getRank() != type.getRank())
      return operatorError(args) << "tensors of different ranks before dim";
  if (parts.size() == 1)
    return SmallVector<Value>{parts.front()};
  return SmallVector<Value>{b.create<ConcatOp>(loc, type, parts, b.getI64IntegerAttr(catDim))};
}
} // namespace

Value tcc::graph::takeRange(OpBuilder &b, Location loc, Value x, int64_t dim, Value start,
                            Value length, RankedTensorType type) {
  Type i64 = b.getI64Type();
  int64_t staticLength = type.getDimSize(dim);
  SmallVector<Value> lengths;
  if (ShapedType::isDynamic(staticLength))
    lengths.push_back(length);
  Value i = b.create<IotaOp>(loc, RankedTensorType::get({staticLength}, i64),
                             b.getF64FloatAttr(0), b.getF64FloatAttr(1), lengths);
  Value at = makeBinary<AddOp>(b, loc, i, start);
  return b.create<TakeOp>(loc, type, x, at, b.getI64IntegerAttr(dim));
}

Value tcc::graph::makeSlice(OpBuilder &b, Location loc, Value x, int64_t dim, int64_t start,
                            int64_t end, int64_t step) {
  auto t = cast<RankedTensorType>(x.getType());
  int64_t size = t.getShape()[dim];
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  SmallVector<int64_t> shape(t.getShape());
  shape[dim] = (end - start + step - 1) / step;
  return b.create<SliceOp>(loc, RankedTensorType::get(shape, t.getElementType()), x,
                           b.getI64IntegerAttr(dim), b.getI64IntegerAttr(start),
                           b.getI64IntegerAttr(end), b.getI64IntegerAttr(step));
}

namespace {

/// The operand `self` and its dimension `dim` (normalized), which must be
/// static: slicing along a symbolic dimension is not supported yet.
struct SlicedDim {
  Value x;
  int64_t dim, size;
};
FailureOr<SlicedDim> slicedDim(OperatorArgs &args) {
  Value x = args.tensor("self");
  if (!x)
    return args.getOp().emitError("expected a tensor operand 'self'");
  auto t = cast<RankedTensorType>(x.getType());
  int64_t dim = normalizeDim(args.getInt("dim").value_or(0), t.getRank());
  if (dim < 0 || dim >= t.getRank())
    return args.getOp().emitError("dim ") << dim << " out of range for rank " << t.getRank();
  int64_t size = t.getShape()[dim];
  if (ShapedType::isDynamic(size))
    return args.getOp().emitError("slicing along a symbolic dimension is not supported yet");
  return SlicedDim{x, dim, size};
}

/// `self` and its normalized `dim` when that dim is symbolic (null
/// otherwise, or when out of range: slicedDim reports that).
std::pair<Value, int64_t> symbolicDim(OperatorArgs &args) {
  Value x = args.tensor("self");
  if (!x)
    return {nullptr, 0};
  auto t = typeOf(x);
  int64_t dim = normalizeDim(args.getInt("dim").value_or(0), t.getRank());
  if (dim < 0 || dim >= t.getRank() || !t.isDynamicDim(dim))
    return {nullptr, 0};
  return {x, dim};
}

/// The size along `dim` of result `result`: static, or the export's
/// expression for it as an index value.
FailureOr<Value> resultSizeAlong(OperatorArgs &args, OpBuilder &b, unsigned result, int64_t dim) {
  RankedTensorType type = args.resultType(result);
  if (!type.isDynamicDim(dim))
    return b.create<arith::ConstantIndexOp>(args.getOp().getLoc(), type.getDimSize(dim))
        .getResult();
  FailureOr<SmallVector<Value>> sizes = symbolicSizes(args, b, result);
  if (failed(sizes))
    return failure();
  return (*sizes)[llvm::count_if(type.getShape().take_front(dim), ShapedType::isDynamic)];
}

/// The operator's results as consecutive pieces of `x` along a symbolic
/// `dim`, each as long as the export says: a slice while the start is
/// static (the first piece, and those after static ones), else a take from
/// the start read at run time (the sizes of the pieces before it).
Results splitSymbolic(OperatorArgs &args, OpBuilder &b, Value x, int64_t dim) {
  Location loc = args.getOp().getLoc();
  Type i64 = b.getI64Type();
  auto scalarI64 = RankedTensorType::get({}, i64);
  int64_t staticStart = 0;
  Value start;  // the run-time start once a piece before was symbolic
  SmallVector<Value> parts;
  for (unsigned r = 0; r < args.getOp().getNumResults(); ++r) {
    RankedTensorType type = args.resultType(r);
    if (type.getRank() != typeOf(x).getRank())
      return operatorError(args) << "result #" << r << " of type " << type
                                 << " is not a piece of " << typeOf(x);
    type = RankedTensorType::get(type.getShape(), typeOf(x).getElementType());
    FailureOr<Value> length = resultSizeAlong(args, b, r, dim);
    if (failed(length))
      return failure();
    Value piece;
    if (!start) {
      SmallVector<Value> dynamicSize;
      if (type.isDynamicDim(dim))
        dynamicSize.push_back(*length);
      int64_t end = type.isDynamicDim(dim) ? std::numeric_limits<int64_t>::max()
                                           : staticStart + type.getDimSize(dim);
      piece = b.create<SliceOp>(loc, type, x, b.getI64IntegerAttr(dim),
                                b.getI64IntegerAttr(staticStart), b.getI64IntegerAttr(end),
                                b.getI64IntegerAttr(1), dynamicSize);
    } else {
      piece = takeRange(b, loc, x, dim, start, *length, type);
    }
    parts.push_back(piece);
    if (!start && !type.isDynamicDim(dim)) {
      staticStart += type.getDimSize(dim);
      continue;
    }
    Value size = b.create<DimSizeOp>(loc, scalarI64, piece, b.getI64IntegerAttr(dim));
    if (!start && staticStart == 0) {
      start = size;
      continue;
    }
    if (!start)
      start = makeScalar(b, loc, i64, (double)staticStart);
    start = makeBinary<AddOp>(b, loc, start, size);
  }
  // PyTorch's pieces cover the dim; the export's sizes say so, the call checks.
  Value n = b.create<DimSizeOp>(loc, scalarI64, x, b.getI64IntegerAttr(dim));
  Value covered = start ? start : makeScalar(b, loc, i64, (double)staticStart);
  Value whole = makeCompare(b, loc, "eq", covered, n);
  std::string message =
      (operatorName(args) + ": the pieces do not cover dim " + std::to_string(dim)).str();
  for (Value &p : parts)
    p = b.create<CheckOp>(loc, p.getType(), whole, p, b.getStringAttr(message));
  return parts;
}

/// A slice whose result or input is symbolic along `dim` (x[:, :seq] of a
/// position buffer, x[:, 1:] of a sequence): a non-negative start, and the
/// result's size from the export's expression for it.
Results legalizeSymbolicSlice(OperatorArgs &args, OpBuilder &b, Value x, int64_t dim) {
  Location loc = args.getOp().getLoc();
  RankedTensorType type = args.resultType();
  std::optional<int64_t> start = args.has("start") ? args.getInt("start") : 0;
  std::optional<int64_t> end = args.has("end") ? args.getInt("end") : INT64_MAX;
  int64_t step = args.getInt("step").value_or(1);
  if (!start || *start < 0 || step < 1)
    return args.getOp().emitError("a slice of a symbolic size needs a non-negative literal "
                                  "start and a positive step");
  SmallVector<Value> dynamicSize;
  if (ShapedType::isDynamic(type.getShape()[dim])) {
    FailureOr<SmallVector<Value>> sizes = symbolicSizes(args, b);
    if (failed(sizes))
      return failure();
    int64_t before = llvm::count_if(type.getShape().take_front(dim), ShapedType::isDynamic);
    dynamicSize.push_back((*sizes)[before]);
    end = INT64_MAX;  // the size bounds the slice
  } else if (!end || *end < 0) {
    return args.getOp().emitError("a static slice of a symbolic dimension needs a "
                                  "non-negative literal end");
  }
  auto slice = b.create<SliceOp>(loc, type, x, b.getI64IntegerAttr(dim),
                                 b.getI64IntegerAttr(*start), b.getI64IntegerAttr(*end),
                                 b.getI64IntegerAttr(step), dynamicSize);
  return SmallVector<Value>{slice.getResult()};
}

Results legalizeSlice(OperatorArgs &args, OpBuilder &b) {
  if (Value x = args.tensor("self")) {
    auto t = cast<RankedTensorType>(x.getType());
    int64_t dim = normalizeDim(args.getInt("dim").value_or(0), t.getRank());
    if (dim >= 0 && dim < t.getRank() &&
        (ShapedType::isDynamic(t.getShape()[dim]) ||
         ShapedType::isDynamic(args.resultType().getShape()[dim])))
      return legalizeSymbolicSlice(args, b, x, dim);
  }
  FailureOr<SlicedDim> d = slicedDim(args);
  if (failed(d))
    return failure();
  int64_t step = args.getInt("step").value_or(1);
  if (step < 1)
    return args.getOp().emitError("slice step must be positive");
  return SmallVector<Value>{makeSlice(b, args.getOp().getLoc(), d->x, d->dim,
                                      args.getInt("start").value_or(0),
                                      args.getInt("end").value_or(d->size), step)};
}

/// tensor_split.indices(self, indices, dim) (slices between the split
/// points, clamped as slices are) and tensor_split.sections(self, sections,
/// dim) (the first size % sections parts one longer).
Results legalizeTensorSplit(OperatorArgs &args, OpBuilder &b) {
  if (auto [x, dim] = symbolicDim(args); x) {
    // Consecutive pieces when the split points are non-negative and
    // non-decreasing; other points (from the end, backwards) are not.
    std::optional<SmallVector<int64_t>> indices = args.getInts("indices");
    if (indices && (llvm::any_of(*indices, [](int64_t i) { return i < 0; }) ||
                    !llvm::is_sorted(*indices)))
      return operatorError(args) << "split points that are negative or decreasing along a "
                                    "symbolic dimension are not supported yet";
    return splitSymbolic(args, b, x, dim);
  }
  FailureOr<SlicedDim> d = slicedDim(args);
  if (failed(d))
    return failure();
  Location loc = args.getOp().getLoc();
  SmallVector<int64_t> bounds{0};
  if (std::optional<SmallVector<int64_t>> indices = args.getInts("indices")) {
    bounds.append(indices->begin(), indices->end());
  } else {
    int64_t sections = args.getInt("sections").value_or(0);
    if (sections < 1)
      return operatorError(args) << "needs a positive number of sections";
    for (int64_t i = 0, at = 0; i + 1 < sections; ++i) {
      at += d->size / sections + (i < d->size % sections ? 1 : 0);
      bounds.push_back(at);
    }
  }
  bounds.push_back(d->size);
  SmallVector<Value> parts;
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    // A negative split point counts from the end, as a slice bound does.
    auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + d->size : v, 0, d->size); };
    int64_t start = clamp(bounds[i]), end = std::max(start, clamp(bounds[i + 1]));
    parts.push_back(makeSlice(b, loc, d->x, d->dim, start, end, 1));
  }
  if (parts.size() != args.getOp().getNumResults())
    return operatorError(args) << "split into " << parts.size() << " parts for "
                               << args.getOp().getNumResults() << " results";
  return parts;
}

/// repeat_interleave(self, repeats: int, dim): each element repeated in
/// place, a take at i / repeats; without dim over the flattened tensor.
Results legalizeRepeatInterleave(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> self = requiredTensor(args, "self");
  std::optional<int64_t> repeats = args.getInt("repeats");
  if (failed(self))
    return failure();
  RankedTensorType t = typeOf(*self);
  if (!repeats || *repeats < 0)
    return operatorError(args) << "needs a number of repeats";
  Value x = *self;
  int64_t dim = 0;
  if (std::optional<int64_t> given = args.getInt("dim"))
    dim = normalizeDim(*given, std::max<int64_t>(t.getRank(), 1));
  if (!args.getInt("dim") || t.getRank() == 0)
    x = makeReshape(b, loc, x, {elementCount(x)});
  // A symbolic size repeats to a length read at run time.
  int64_t size = typeOf(x).getShape()[dim];
  int64_t n = ShapedType::isDynamic(size) ? size : size * *repeats;
  SmallVector<Value> length;
  if (ShapedType::isDynamic(size)) {
    Value times = b.create<arith::ConstantIndexOp>(loc, *repeats);
    Value have = dimIndex(b, loc, x, dim);
    length.push_back(b.create<arith::MulIOp>(loc, have, times));
  }
  Type f64 = b.getF64Type();
  Value i = b.create<IotaOp>(loc, RankedTensorType::get({n}, f64), b.getF64FloatAttr(0),
                             b.getF64FloatAttr(1), length);
  Value source = b.create<FloorOp>(loc, makeBinary<DivOp>(b, loc, i, makeScalar(b, loc, f64, double(*repeats))));
  Value index = makeCast(b, loc, source, b.getI64Type());
  Value r = b.create<TakeOp>(loc, RankedTensorType::get(withDimSize(typeOf(x).getShape(), dim, n), t.getElementType()),
                             x, index, b.getI64IntegerAttr(dim));
  if (typeOf(r).getRank() == args.resultType().getRank())
    return SmallVector<Value>{r};
  return SmallVector<Value>{makeReshape(b, loc, r, args.resultType().getShape())};
}

/// atleast_1d/2d/3d of a list of tensors: each reshaped to its result.
Results legalizeAtLeastSequence(OperatorArgs &args, OpBuilder &b) {
  SmallVector<Value> inputs = args.tensorList("tensors"), results;
  if (inputs.size() != args.getOp().getNumResults())
    return operatorError(args) << "needs one result per tensor";
  for (auto [i, v] : llvm::enumerate(inputs))
    results.push_back(makeReshape(b, args.getOp().getLoc(), v, args.resultType(i).getShape()));
  return results;
}

/// narrow(self, dim, start, length) = self[start : start + length] along
/// dim; a negative start counts from the end.
Results legalizeNarrow(OperatorArgs &args, OpBuilder &b) {
  if (auto [x, dim] = symbolicDim(args); x) {
    // start and length literal; a negative start counts from the size read
    // at run time. A range past the end fails the call, as PyTorch raises.
    std::optional<int64_t> start = args.getInt("start"), length = args.getInt("length");
    if (!start || !length || *length < 0)
      return operatorError(args) << "needs a literal start and length along a symbolic dimension";
    Location loc = args.getOp().getLoc();
    Type i64 = b.getI64Type();
    auto t = typeOf(x);
    RankedTensorType type = RankedTensorType::get(withDimSize(t.getShape(), dim, *length),
                                                  t.getElementType());
    Value n = b.create<DimSizeOp>(loc, RankedTensorType::get({}, i64), x, b.getI64IntegerAttr(dim));
    Value from = makeScalar(b, loc, i64, (double)*start);
    Value piece;
    if (*start >= 0) {
      piece = b.create<SliceOp>(loc, type, x, b.getI64IntegerAttr(dim), b.getI64IntegerAttr(*start),
                                b.getI64IntegerAttr(*start + *length), b.getI64IntegerAttr(1));
    } else {
      from = makeBinary<AddOp>(b, loc, n, from);
      piece = takeRange(b, loc, x, dim, from, /*length=*/Value(), type);
    }
    Value notBefore = makeCompare(b, loc, "ge", from, makeScalar(b, loc, i64, 0.0));
    Value to = makeBinary<AddOp>(b, loc, from, makeScalar(b, loc, i64, (double)*length));
    Value notPast = makeCompare(b, loc, "le", to, n);
    Value inRange = makeBinary<BitwiseAndOp>(b, loc, notBefore, notPast);
    std::string message = (operatorName(args) + ": start " + std::to_string(*start) +
                           " and length " + std::to_string(*length) +
                           " out of range for dim " + std::to_string(dim))
                              .str();
    piece = b.create<CheckOp>(loc, type, inRange, piece, b.getStringAttr(message));
    return SmallVector<Value>{piece};
  }
  FailureOr<SlicedDim> d = slicedDim(args);
  if (failed(d))
    return failure();
  std::optional<int64_t> start = args.getInt("start"), length = args.getInt("length");
  if (!start || !length || ShapedType::isDynamic(d->size))
    return operatorError(args) << "needs a static start, length and size";
  int64_t from = *start < 0 ? *start + d->size : *start;
  if (from < 0 || *length < 0 || from + *length > d->size)
    return operatorError(args) << "start " << *start << " and length " << *length
                               << " out of range for size " << d->size;
  return SmallVector<Value>{makeSlice(b, args.getOp().getLoc(), d->x, d->dim, from, from + *length, 1)};
}

/// chunk / split / split_with_sizes: consecutive slices along dim.
Results splitInto(OperatorArgs &args, OpBuilder &b, ArrayRef<int64_t> sizes, Value x,
                  int64_t dim) {
  SmallVector<Value> parts;
  int64_t start = 0;
  for (int64_t s : sizes) {
    parts.push_back(makeSlice(b, args.getOp().getLoc(), x, dim, start, start + s, 1));
    start += s;
  }
  if (parts.size() != args.getOp().getNumResults())
    return args.getOp().emitError("split produced ")
           << parts.size() << " parts, the graph expects " << args.getOp().getNumResults();
  return parts;
}

Results legalizeSplit(OperatorArgs &args, OpBuilder &b) {
  if (auto [x, dim] = symbolicDim(args); x)
    return splitSymbolic(args, b, x, dim);
  FailureOr<SlicedDim> d = slicedDim(args);
  if (failed(d))
    return failure();
  SmallVector<int64_t> sizes;
  if (auto explicitSizes = args.getInts("split_sizes")) {
    sizes = *explicitSizes;
  } else {
    int64_t each;
    if (auto chunks = args.getInt("chunks"))
      each = (d->size + *chunks - 1) / std::max<int64_t>(*chunks, 1);
    else
      each = args.getInt("split_size").value_or(d->size);
    if (each < 1)
      return args.getOp().emitError("split size must be positive");
    for (int64_t s = 0; s < d->size; s += each)
      sizes.push_back(std::min(each, d->size - s));
  }
  return splitInto(args, b, sizes, d->x, d->dim);
}

/// select(x, dim, i) = slice of length 1, reshaped without the dim. Along a
/// symbolic dim, a non-negative index (x[0] of a prompt's positions): a
/// slice of static length 1, the index checked against the size at run time.
Results legalizeSelect(OperatorArgs &args, OpBuilder &b) {
  if (Value x = args.tensor("self")) {
    auto t = cast<RankedTensorType>(x.getType());
    int64_t dim = normalizeDim(args.getInt("dim").value_or(0), t.getRank());
    std::optional<int64_t> index = args.getInt("index");
    if (dim >= 0 && dim < t.getRank() && t.isDynamicDim(dim)) {
      if (!index || *index < 0)
        return operatorError(args) << "selects along a symbolic dimension by a negative or "
                                      "symbolic index, which is not supported yet";
      Location loc = args.getOp().getLoc();
      SmallVector<int64_t> shape(t.getShape());
      shape[dim] = 1;
      Value s = b.create<SliceOp>(loc, RankedTensorType::get(shape, t.getElementType()), x,
                                  b.getI64IntegerAttr(dim), b.getI64IntegerAttr(*index),
                                  b.getI64IntegerAttr(*index + 1), b.getI64IntegerAttr(1));
      // PyTorch raises on an index past the size: so does the call.
      Value size = b.create<DimSizeOp>(loc, RankedTensorType::get({}, b.getI64Type()), x,
                                       b.getI64IntegerAttr(dim));
      Value inRange = makeCompare(b, loc, "gt", size, makeScalar(b, loc, b.getI64Type(),
                                                                 static_cast<double>(*index)));
      s = b.create<CheckOp>(loc, s.getType(), inRange, s,
                            b.getStringAttr(operatorName(args).str() + ": index " +
                                            std::to_string(*index) + " out of range for dim " +
                                            std::to_string(dim)));
      return SmallVector<Value>{makeReshape(b, loc, s, args.resultType().getShape())};
    }
  }
  FailureOr<SlicedDim> d = slicedDim(args);
  if (failed(d))
    return failure();
  int64_t index = args.getInt("index").value_or(0);
  if (index < 0) index += d->size;
  if (index < 0 || index >= d->size)
    return args.getOp().emitError("select index out of range");
  Location loc = args.getOp().getLoc();
  Value s = makeSlice(b, loc, d->x, d->dim, index, index + 1, 1);
  return SmallVector<Value>{makeReshape(b, loc, s, args.resultType().getShape())};
}
/// unbind(x, dim) = select(x, dim, i) for every i.
Results legalizeUnbind(OperatorArgs &args, OpBuilder &b) {
  FailureOr<SlicedDim> d = slicedDim(args);
  if (failed(d))
    return failure();
  if (static_cast<int64_t>(args.getOp().getNumResults()) != d->size)
    return args.getOp().emitError("unbind of ") << d->size << " slices, the graph expects "
                                                << args.getOp().getNumResults();
  Location loc = args.getOp().getLoc();
  SmallVector<Value> parts;
  for (int64_t i = 0; i < d->size; ++i)
    parts.push_back(
        makeReshape(b, loc, makeSlice(b, loc, d->x, d->dim, i, i + 1, 1),
                    args.resultType(i).getShape()));
  return parts;
}

/// pixel_shuffle(x, r): (*, C*r*r, H, W) -> (*, C, r, r, H, W) ->
/// (*, C, H, r, W, r) -> (*, C, H*r, W*r).
/// x reshaped to `split` (of run-time sizes `splitSizes` where symbolic),
/// its dims permuted (`perm` after the first `lead` dims, which stay), and
/// reshaped to `out` (`outSizes`).
Value regroup(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> split,
              ArrayRef<Value> splitSizes, int64_t lead, ArrayRef<int64_t> perm,
              ArrayRef<int64_t> out, ArrayRef<Value> outSizes) {
  Value v = makeReshape(b, loc, x, split, splitSizes);
  SmallVector<int64_t> order, permuted;
  for (int64_t i = 0; i < lead; ++i)
    order.push_back(i);
  for (int64_t i : perm)
    order.push_back(lead + i);
  for (int64_t p : order)
    permuted.push_back(split[p]);
  v = b.create<TransposeOp>(loc, RankedTensorType::get(permuted, typeOf(x).getElementType()), v,
                            b.getDenseI64ArrayAttr(order));
  return makeReshape(b, loc, v, out, outSizes);
}

/// pixel_shuffle(self, r): (*, C*r*r, H, W) -> (*, C, H*r, W*r);
/// pixel_unshuffle(self, r) the inverse. C static; the leading dims, H and
/// W may be symbolic (an unshuffled H or W not divisible by r fails the
/// call, as PyTorch raises).
Results legalizePixelShuffle(OperatorArgs &args, OpBuilder &b, bool unshuffle) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self");
  std::optional<int64_t> r = args.getInt(unshuffle ? "downscale_factor" : "upscale_factor");
  if (!x || !r || *r < 1 || cast<RankedTensorType>(x.getType()).getRank() < 3)
    return operatorError(args) << "expects a (*, C, H, W) 'self' and a positive factor";
  auto t = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> shape = t.getShape();
  int64_t rank = t.getRank(), lead = rank - 3;
  int64_t c = shape[lead], h = shape[lead + 1], w = shape[lead + 2], rr = *r * *r;
  auto dyn = [](int64_t v) { return ShapedType::isDynamic(v); };
  if (dyn(c))
    return operatorError(args) << "needs a static number of channels, not a symbolic one";
  if ((!unshuffle && c % rr != 0) || (unshuffle && ((!dyn(h) && h % *r) || (!dyn(w) && w % *r))))
    return operatorError(args) << (unshuffle ? "needs H and W divisible by the factor "
                                             : "needs C divisible by the factor squared ")
                               << *r;
  auto scaled = [&](int64_t v, bool up) {
    return dyn(v) ? ShapedType::kDynamic : up ? v * *r : v / *r;
  };
  Value R = b.create<arith::ConstantIndexOp>(loc, *r);
  Value H = dimIndex(b, loc, x, lead + 1), W = dimIndex(b, loc, x, lead + 2);
  SmallVector<int64_t> split(shape.take_front(lead)), out(shape.take_front(lead));
  SmallVector<Value> splitSizes, outSizes;
  for (int64_t d = 0; d < lead; ++d)
    splitSizes.push_back(dimIndex(b, loc, x, d));
  outSizes = splitSizes;
  auto index = [&](int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v).getResult(); };
  if (unshuffle) {
    if (dyn(h) || dyn(w)) {
      // PyTorch raises on H or W not divisible by the factor: so does the call.
      auto i64 = RankedTensorType::get({}, b.getI64Type());
      Value factor = makeScalar(b, loc, b.getI64Type(), static_cast<double>(*r));
      Value zero = makeScalar(b, loc, b.getI64Type(), 0.0);
      for (int64_t d : {lead + 1, lead + 2}) {
        Value size = b.create<DimSizeOp>(loc, i64, x, b.getI64IntegerAttr(d));
        Value divisible = makeCompare(b, loc, "eq", makeBinary<FmodOp>(b, loc, size, factor),
                                      zero);
        x = b.create<CheckOp>(loc, x.getType(), divisible, x,
                              b.getStringAttr(operatorName(args).str() + ": dim " +
                                              std::to_string(d) + " is not divisible by " +
                                              std::to_string(*r)));
      }
    }
    Value Hr = b.create<arith::DivUIOp>(loc, H, R), Wr = b.create<arith::DivUIOp>(loc, W, R);
    split.append({c, scaled(h, false), *r, scaled(w, false), *r});
    llvm::append_range(splitSizes, SmallVector<Value>{index(c), Hr, R, Wr, R});
    out.append({c * rr, scaled(h, false), scaled(w, false)});
    llvm::append_range(outSizes, SmallVector<Value>{index(c * rr), Hr, Wr});
    return SmallVector<Value>{
        regroup(b, loc, x, split, splitSizes, lead, {0, 2, 4, 1, 3}, out, outSizes)};
  }
  split.append({c / rr, *r, *r, h, w});
  llvm::append_range(splitSizes, SmallVector<Value>{index(c / rr), R, R, H, W});
  out.append({c / rr, scaled(h, true), scaled(w, true)});
  llvm::append_range(outSizes, SmallVector<Value>{index(c / rr), b.create<arith::MulIOp>(loc, H, R),
                                                  b.create<arith::MulIOp>(loc, W, R)});
  return SmallVector<Value>{
      regroup(b, loc, x, split, splitSizes, lead, {0, 3, 1, 4, 2}, out, outSizes)};
}

/// channel_shuffle(self, groups): (N, g * k, *) -> (N, k * g, *), the
/// channels of each group interleaved.
Results legalizeChannelShuffle(OperatorArgs &args, OpBuilder &b) {
  Value x = args.tensor("self");
  std::optional<int64_t> g = args.getInt("groups");
  if (!x || !g || *g < 1 || typeOf(x).getRank() < 2 || !typeOf(x).hasStaticShape() ||
      typeOf(x).getShape()[1] % *g != 0)
    return operatorError(args) << "needs a static (N, C, *) input with C divisible by groups";
  ArrayRef<int64_t> shape = typeOf(x).getShape();
  SmallVector<int64_t> split{shape[0], *g, shape[1] / *g}, perm{0, 2, 1};
  for (int64_t i = 2; i < (int64_t)shape.size(); ++i) {
    split.push_back(shape[i]);
    perm.push_back(i + 1);
  }
  return SmallVector<Value>{regroup(b, args.getOp().getLoc(), x, split, {}, 0, perm, shape, {})};
}

/// meshgrid(tensors, indexing): each 1-D (or 0-d) tensor stretched along its
/// own dim of the grid; `xy` indexing swaps the first two.
Results legalizeMeshgrid(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  SmallVector<Value> inputs = args.tensorList("tensors");
  auto indexing = dyn_cast_or_null<StringAttr>(args.getOp().getArgs().get("indexing"));
  bool xy = indexing && indexing.getValue() == "xy";
  if (inputs.size() != args.getOp().getNumResults())
    return operatorError(args) << "needs one result per tensor";
  SmallVector<Value> results;
  for (auto [i, v] : llvm::enumerate(inputs)) {
    RankedTensorType out = args.resultType(i);
    if (typeOf(v).getRank() > 1 || !out.hasStaticShape())
      return operatorError(args) << "needs static 0-d or 1-D tensors";
    int64_t at = xy && inputs.size() >= 2 && i < 2 ? 1 - (int64_t)i : (int64_t)i;
    SmallVector<int64_t> line(out.getRank(), 1);
    line[at] = out.getShape()[at];
    Value lined = makeReshape(b, loc, v, line);
    results.push_back(b.create<BroadcastOp>(loc, out, lined));
  }
  return results;
}

/// stack(tensors, dim) = cat of each tensor with a size-1 dim inserted at dim.
Results legalizeStack(OperatorArgs &args, OpBuilder &b) {
  SmallVector<Value> inputs = args.tensorList("tensors");
  if (inputs.empty())
    return args.getOp().emitError("stack expects a list of tensors");
  RankedTensorType type = args.resultType();
  int64_t dim = normalizeDim(args.getInt("dim").value_or(0), type.getRank());
  if (dim < 0 || dim >= type.getRank())
    return args.getOp().emitError("stack dim out of range for rank ") << type.getRank();
  Location loc = args.getOp().getLoc();
  SmallVector<Value> expanded;
  for (Value v : inputs) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getRank() + 1 != type.getRank())
      return args.getOp().emitError("stack input of rank ") << t.getRank() << " for a rank-"
                                                             << type.getRank() << " result";
    SmallVector<int64_t> shape(t.getShape());
    shape.insert(shape.begin() + dim, 1);
    // PyTorch promotes the inputs to one dtype (the result's).
    expanded.push_back(makeReshape(b, loc, makeCast(b, loc, v, type.getElementType()), shape));
  }
  if (expanded.size() == 1)
    return SmallVector<Value>{expanded[0]};
  return SmallVector<Value>{b.create<ConcatOp>(loc, type, expanded, b.getI64IntegerAttr(dim))};
}

/// mT / mH / matrix_H (.H) / adjoint (real tensors): the last two dims swapped.
Results legalizeMatrixTranspose(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self");
  if (failed(x))
    return failure();
  if (typeOf(*x).getRank() < 2)
    return args.getOp().emitError("operator '") << operatorName(args)
                                                << "' needs a tensor of rank 2 or more";
  return SmallVector<Value>{transposeLast2(b, args.getOp().getLoc(), *x)};
}

/// x.T (numpy_T): all dims reversed.
Results legalizeReverseDims(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self");
  if (failed(x))
    return failure();
  auto t = typeOf(*x);
  if (t.getRank() < 2)
    return SmallVector<Value>{*x};
  SmallVector<int64_t> perm, shape;
  for (int64_t i = t.getRank() - 1; i >= 0; --i) {
    perm.push_back(i);
    shape.push_back(t.getDimSize(i));
  }
  return SmallVector<Value>{b.create<TransposeOp>(args.getOp().getLoc(),
                                                  RankedTensorType::get(shape, t.getElementType()),
                                                  *x, b.getDenseI64ArrayAttr(perm))};
}

/// broadcast_tensors(tensors): each stretched to the common shape.
Results legalizeBroadcastTensors(OperatorArgs &args, OpBuilder &b) {
  SmallVector<Value> inputs = args.tensorList("tensors");
  if (inputs.size() != args.getOp().getNumResults())
    return args.getOp().emitError("broadcast_tensors expects one result per tensor");
  SmallVector<Value> results;
  for (auto [i, v] : llvm::enumerate(inputs)) {
    RankedTensorType type = args.resultType(i);
    if (v.getType() == type) {
      results.push_back(v);
      continue;
    }
    // Symbolic result sizes: the export's expressions for them.
    FailureOr<SmallVector<Value>> sizes = symbolicSizes(args, b, i);
    if (failed(sizes))
      return failure();
    results.push_back(b.create<BroadcastOp>(args.getOp().getLoc(), type, v, *sizes).getResult());
  }
  return results;
}

/// repeat(self, repeats), and tile(self, dims) whose counts get leading 1s
/// up to self's rank: self (with leading unit dims up to the count of
/// counts) viewed as [1, d0, 1, d1, ...], stretched to [r0, d0, r1, d1, ...]
/// and flattened pairwise to [r0 d0, r1 d1, ...].
Results legalizeRepeat(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self");
  bool isTile = operatorName(args).starts_with("aten.tile.");
  std::optional<SmallVector<int64_t>> counts = args.getInts(isTile ? "dims" : "repeats");
  if (failed(x))
    return failure();
  auto t = typeOf(*x);
  SmallVector<int64_t> repeats;
  if (counts && isTile)
    repeats.assign(std::max<int64_t>(t.getRank() - (int64_t)counts->size(), 0), 1);
  if (counts)
    repeats.append(counts->begin(), counts->end());
  if (!counts || static_cast<int64_t>(repeats.size()) < t.getRank())
    return args.getOp().emitError("operator '") << operatorName(args)
                                                << "' needs at least one repeat count per dim";
  Location loc = args.getOp().getLoc();
  SmallVector<int64_t> shape(repeats.size() - t.getRank(), 1);
  shape.append(t.getShape().begin(), t.getShape().end());
  // Symbolic sizes (a batch repeated along channels): d at run time, the
  // result's dims r * d.
  int64_t lead = repeats.size() - t.getRank();
  SmallVector<Value> sizes, stretchedSizes, resultSizes;
  SmallVector<int64_t> paired, stretched;
  for (auto [i, pair] : llvm::enumerate(llvm::zip(repeats, shape))) {
    auto [r, d] = pair;
    paired.append({1, d});
    stretched.append({r, d});
    Value size = (int64_t)i < lead ? b.create<arith::ConstantIndexOp>(loc, 1).getResult()
                                   : dimIndex(b, loc, *x, i - lead);
    if (ShapedType::isDynamic(d)) {
      stretchedSizes.push_back(size);
      resultSizes.push_back(
          b.create<arith::MulIOp>(loc, size, b.create<arith::ConstantIndexOp>(loc, r)));
    } else {
      resultSizes.push_back(b.create<arith::ConstantIndexOp>(loc, r * d));
    }
  }
  Value v = makeReshape(b, loc, *x, paired);
  auto stretchedType = RankedTensorType::get(stretched, t.getElementType());
  if (v.getType() != stretchedType)
    v = b.create<BroadcastOp>(loc, stretchedType, v, stretchedSizes);
  return SmallVector<Value>{makeReshape(b, loc, v, args.resultType().getShape(), resultSizes)};
}

/// sum_to_size(self, size): sums over the leading dims `size` lacks and over
/// the dims where `size` has 1 and self does not, then takes `size`'s shape.
Results legalizeSumToSize(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self");
  std::optional<SmallVector<int64_t>> size = args.getInts("size");
  if (failed(x))
    return failure();
  auto t = typeOf(*x);
  int64_t lead = t.getRank() - (size ? (int64_t)size->size() : 0);
  if (!size || lead < 0)
    return args.getOp().emitError("sum_to_size needs a size of at most the tensor's rank");
  SmallVector<int64_t> dims = llvm::to_vector(llvm::seq<int64_t>(0, lead));
  for (auto [i, s] : llvm::enumerate(*size)) {
    int64_t have = t.getDimSize(lead + i);
    if (s == 1 && have != 1)
      dims.push_back(lead + i);
    else if (s != have)
      return args.getOp().emitError("sum_to_size: size ")
             << s << " of dim " << i << " does not divide the tensor's " << have;
  }
  Location loc = args.getOp().getLoc();
  Value v = *x;
  if (!dims.empty())
    v = makeReduce<ReduceSumOp>(b, loc, v, dims, /*keepdim=*/true);
  return SmallVector<Value>{makeReshape(b, loc, v, *size)};
}

/// vstack / hstack / dstack / column_stack: each tensor reshaped to the rank
/// the stacking needs (atleast_2d, atleast_1d, atleast_3d, or a column for
/// column_stack), converted to the result's type and concatenated.
enum class StackKind { Vertical, Horizontal, Depth, Column };

/// The shape a `kind` stacking gives an input of shape `s`.
SmallVector<int64_t> stackedShape(StackKind kind, ArrayRef<int64_t> s) {
  SmallVector<int64_t> shape(s);
  switch (kind) {
  case StackKind::Vertical:  // atleast_2d: [] -> [1, 1], [n] -> [1, n]
    while (shape.size() < 2)
      shape.insert(shape.begin(), 1);
    break;
  case StackKind::Horizontal:  // atleast_1d
    if (shape.empty())
      shape.push_back(1);
    break;
  case StackKind::Depth:  // atleast_3d: [] -> [1, 1, 1], [n] -> [1, n, 1], [m, n] -> [m, n, 1]
    if (shape.empty())
      shape.push_back(1);
    if (shape.size() == 1)
      shape.insert(shape.begin(), 1);
    if (shape.size() == 2)
      shape.push_back(1);
    break;
  case StackKind::Column:  // [] -> [1, 1], [n] -> [n, 1]
    if (shape.size() <= 1)
      shape = {shape.empty() ? 1 : shape[0], 1};
    break;
  }
  return shape;
}

LegalizeFn stackAlong(StackKind kind) {
  return [kind](OperatorArgs &args, OpBuilder &b) -> Results {
    SmallVector<Value> inputs = args.tensorList("tensors");
    if (inputs.empty())
      return args.getOp().emitError("operator '") << operatorName(args)
                                                  << "' expects a list of tensors";
    Location loc = args.getOp().getLoc();
    RankedTensorType type = args.resultType();
    SmallVector<Value> parts;
    for (Value v : inputs) {
      Value part = makeCast(b, loc, v, type.getElementType());
      parts.push_back(makeReshape(b, loc, part, stackedShape(kind, typeOf(v).getShape())));
    }
    int64_t dim = kind == StackKind::Vertical ? 0 : kind == StackKind::Depth ? 2 : 1;
    if (kind == StackKind::Horizontal && typeOf(parts[0]).getRank() == 1)
      dim = 0;
    if (parts.size() == 1)
      return SmallVector<Value>{parts[0]};
    return SmallVector<Value>{b.create<ConcatOp>(loc, type, parts, b.getI64IntegerAttr(dim))
                                  .getResult()};
  };
}

/// vsplit / hsplit / dsplit: .int(self, sections) in equal parts, .array(self,
/// indices) at those positions (tensor_split's: x[:i0], x[i0:i1], ..., x[ik:],
/// clamped), along dim 0, 1 (0 for a 1-D hsplit) or 2.
LegalizeFn splitAlong(int64_t axis) {
  return [axis](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Value> x = requiredTensor(args, "self");
    if (failed(x))
      return failure();
    auto t = typeOf(*x);
    int64_t dim = axis == 1 && t.getRank() == 1 ? 0 : axis;
    if (t.getRank() <= dim)
      return args.getOp().emitError("operator '") << operatorName(args) << "' of a rank-"
                                                  << t.getRank() << " tensor";
    int64_t size = t.getDimSize(dim);
    if (ShapedType::isDynamic(size)) {
      // Equal sections (the export's sizes; PyTorch raises where they do not
      // divide, and the export guards it) or non-negative, non-decreasing
      // indices: consecutive pieces.
      std::optional<SmallVector<int64_t>> indices = args.getInts("indices");
      if (indices && (llvm::any_of(*indices, [](int64_t i) { return i < 0; }) ||
                      !llvm::is_sorted(*indices)))
        return operatorError(args) << "split points that are negative or decreasing along a "
                                      "symbolic dimension are not supported yet";
      return splitSymbolic(args, b, *x, dim);
    }
    SmallVector<int64_t> bounds;
    if (std::optional<int64_t> sections = args.getInt("sections")) {
      if (*sections < 1 || size % *sections != 0)
        return args.getOp().emitError("operator '") << operatorName(args) << "': " << size
                                                    << " does not split in " << *sections;
      for (int64_t i = 1; i < *sections; ++i)
        bounds.push_back(i * (size / *sections));
    } else if (std::optional<SmallVector<int64_t>> indices = args.getInts("indices")) {
      bounds = *indices;
    } else {
      return args.getOp().emitError("operator '") << operatorName(args)
                                                  << "' needs sections or indices";
    }
    Location loc = args.getOp().getLoc();
    SmallVector<Value> parts;
    int64_t start = 0;
    for (int64_t end : bounds) {
      parts.push_back(makeSlice(b, loc, *x, dim, start, end, 1));
      start = end;
    }
    parts.push_back(makeSlice(b, loc, *x, dim, start, size, 1));
    if (parts.size() != args.getOp().getNumResults())
      return args.getOp().emitError("operator '") << operatorName(args) << "' gives "
                                                  << parts.size() << " parts, the graph expects "
                                                  << args.getOp().getNumResults();
    return parts;
  };
}
} // namespace

void tcc::graph::populateShapeLegalizers(LegalizerTable &t) {
  t["aten.mT.default"] = legalizeMatrixTranspose;
  t["aten.numpy_T.default"] = legalizeReverseDims;
  t["aten.mH.default"] = legalizeMatrixTranspose;
  t["aten.matrix_H.default"] = legalizeMatrixTranspose;
  t["aten.adjoint.default"] = legalizeMatrixTranspose;
  t["aten.broadcast_tensors.default"] = legalizeBroadcastTensors;
  t["aten.repeat.default"] = legalizeRepeat;
  t["aten.tile.default"] = legalizeRepeat;
  t["aten.sum_to_size.default"] = legalizeSumToSize;
  t["aten.vstack.default"] = stackAlong(StackKind::Vertical);
  t["aten.hstack.default"] = stackAlong(StackKind::Horizontal);
  t["aten.dstack.default"] = stackAlong(StackKind::Depth);
  t["aten.column_stack.default"] = stackAlong(StackKind::Column);
  for (auto [name, axis] : {std::pair{"vsplit", 0}, {"hsplit", 1}, {"dsplit", 2}})
    for (const char *v : {".int", ".array"})
      t[std::string("aten.") + name + v] = splitAlong(axis);
  for (const char *n : {"aten.atleast_1d.default", "aten.atleast_2d.default",
                        "aten.atleast_3d.default"})
    t[n] = legalizeReshape;
  t["aten.t.default"] = legalizeTranspose;
  t["aten.transpose.int"] = legalizeTranspose;
  t["aten.swapaxes.default"] = legalizeTranspose;
  t["aten.swapdims.default"] = legalizeTranspose;
  t["aten.permute.default"] = legalizePermute;
  t["aten.movedim.intlist"] = legalizeMovedim;
  t["aten.movedim.int"] = legalizeMovedim;
  t["aten.view.default"] = legalizeReshape;
  t["prims.collapse.default"] = legalizeCollapse;
  t["prims.collapse_view.default"] = legalizeCollapse;
  t["aten.reshape.default"] = legalizeReshape;
  t["aten._unsafe_view.default"] = legalizeReshape;
  t["aten.flatten.using_ints"] = legalizeReshape;
  t["aten.ravel.default"] = legalizeReshape;
  t["aten.reshape_as.default"] = legalizeReshape;
  t["aten.view_as.default"] = legalizeReshape;
  t["aten.narrow.default"] = legalizeNarrow;
  t["aten.tensor_split.indices"] = legalizeTensorSplit;
  t["aten.tensor_split.sections"] = legalizeTensorSplit;
  t["aten.repeat_interleave.self_int"] = legalizeRepeatInterleave;
  for (const char *n : {"aten.atleast_1d.Sequence", "aten.atleast_2d.Sequence", "aten.atleast_3d.Sequence"})
    t[n] = legalizeAtLeastSequence;
  t["aten.narrow_copy.default"] = legalizeNarrow;
  t["aten.cat.default"] = legalizeCat;
  t["aten._chunk_cat.default"] = legalizeChunkCat;
  t["aten.stack.default"] = legalizeStack;
  t["aten.unsqueeze.default"] = legalizeReshape;
  t["aten.squeeze.dim"] = legalizeReshape;
  t["aten.squeeze.dims"] = legalizeReshape;
  t["aten.squeeze.default"] = legalizeReshape;
  t["aten.slice.Tensor"] = legalizeSlice;
  t["aten.chunk.default"] = legalizeSplit;
  t["aten.split.Tensor"] = legalizeSplit;
  t["aten.split_with_sizes.default"] = legalizeSplit;
  t["aten.unsafe_chunk.default"] = legalizeSplit;
  t["aten.unsafe_split.Tensor"] = legalizeSplit;
  t["aten.unsafe_split_with_sizes.default"] = legalizeSplit;
  t["aten.select.int"] = legalizeSelect;
  t["aten.unbind.int"] = legalizeUnbind;
  t["aten.pixel_shuffle.default"] = [](OperatorArgs &a, OpBuilder &b) { return legalizePixelShuffle(a, b, false); };
  t["aten.pixel_unshuffle.default"] = [](OperatorArgs &a, OpBuilder &b) { return legalizePixelShuffle(a, b, true); };
  t["aten.channel_shuffle.default"] = legalizeChannelShuffle;
  t["aten.meshgrid.indexing"] = legalizeMeshgrid;
  t["aten.meshgrid.default"] = legalizeMeshgrid;
  // The _copy variants of views: tcc's values are never views.
  for (const char *view : {"t.default", "transpose.int", "permute.default", "view.default",
                           "unsqueeze.default", "squeeze.default", "squeeze.dim", "squeeze.dims",
                           "split_with_sizes.default", "unbind.int", "select.int", "slice.Tensor"}) {
    auto [base, overload] = StringRef(view).split('.');
    t[("aten." + base + "_copy." + overload).str()] = t[(StringRef("aten.") + view).str()];
  }
}
