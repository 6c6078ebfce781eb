//===- LegalizeScatter.cpp - scatter, index_add/reduce, put, max_unpool ---===//
//
// Writes into positions named by an index tensor, composed without a scatter
// op: for each target position j along `dim`, every index element compares
// with j (a tensor with one more dim, of the target size), and the source
// elements that hit j are reduced over that compared dim. Positions no index
// element names keep self. So
//
//   out[.., j, ..] = combine(self[.., j, ..], {src[.., k, ..] : index[.., k, ..] == j})
//
// covers scatter (.src/.value/.reduce), scatter_add, scatter_reduce (sum,
// prod, mean, amax, amin, with or without self), index_add, index_copy,
// index_fill, index_reduce, put, max_unpool1d/2d/3d and max pooling's
// backward (max_pool2d/3d_with_indices_backward), into floats and signed
// integers (an integer mean floors, as PyTorch's). A plain write with
// several hits on one position takes the last (the highest k), as PyTorch's
// CPU loop does. Static shapes only; the work is index.numel() * size(dim).
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/StringSwitch.h"

#include <limits>

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// How the source elements that hit one position combine with it.
enum class Combine { Set, Sum, Prod, Mean, Amax, Amin };

/// The most index positions along dim an integer product or extremum
/// combines one after another (each one is an elementwise op).
constexpr int64_t kMaxUnrolledPositions = 64;

/// PyTorch's reduce names: scatter_reduce's and index_reduce's, and
/// scatter.reduce's add/multiply.
std::optional<Combine> combineNamed(StringRef name) {
  return llvm::StringSwitch<std::optional<Combine>>(name)
      .Cases("sum", "add", Combine::Sum)
      .Cases("prod", "multiply", Combine::Prod)
      .Case("mean", Combine::Mean)
      .Case("amax", Combine::Amax)
      .Case("amin", Combine::Amin)
      .Default(std::nullopt);
}

/// Whether a tensor of `shape` has no elements: a static size of 0 (a
/// symbolic size is not known to be 0; products of kDynamic markers are
/// garbage).
bool hasNoElements(ArrayRef<int64_t> shape) { return llvm::is_contained(shape, 0); }

/// self with `src` scattered along `dim` at `index` (see the file comment).
/// `src` is a 0-d value for every index element, or at least index's shape.
/// Symbolic sizes are read at run time; where the export does not say that
/// index fits self (apart from `dim`) and src, the call checks it, as
/// PyTorch raises. `shapesFit`: the caller made index of self's sizes apart
/// from `dim` and src (unless 0-d) of index's.
FailureOr<Value> scatterDense(OperatorArgs &args, OpBuilder &b, Value self, int64_t dim,
                              Value index, Value src, Combine how, bool includeSelf,
                              bool shapesFit = false) {
  Location loc = args.getOp().getLoc();
  RankedTensorType st = typeOf(self), it = typeOf(index);
  Type elt = st.getElementType();
  if (!isa<IntegerType>(it.getElementType()))
    return operatorError(args) << "the index must be an integer tensor, not " << it;
  bool integer = elt.isSignlessInteger() && !elt.isInteger(1);
  if (how != Combine::Set && !isa<FloatType>(elt) && !integer)
    return operatorError(args) << "reducing into a tensor of " << elt
                         << " is not supported (floating-point and signed integers only)";
  if (st.getRank() == 0) {
    // A 0-d self is one position along dim 0.
    SmallVector<int64_t> one{1};
    Value s = typeOf(src).getRank() == 0 ? src : makeReshape(b, loc, src, one);
    Value self1 = makeReshape(b, loc, self, one);
    Value index1 = makeReshape(b, loc, index, one);
    FailureOr<Value> r = scatterDense(args, b, self1, 0, index1, s, how, includeSelf, shapesFit);
    if (failed(r))
      return failure();
    return makeReshape(b, loc, *r, {});
  }
  int64_t rank = st.getRank();
  ArrayRef<int64_t> selfShape = st.getShape(), idxShape = it.getShape();
  if (it.getRank() != rank)
    return operatorError(args) << "index of type " << it << " for self " << st
                         << " (the same rank is needed)";
  bool srcScalar = typeOf(src).getRank() == 0;
  if (!srcScalar && typeOf(src).getRank() != rank)
    return operatorError(args) << "source of type " << src.getType() << " for index " << it;
  // Index no larger than self apart from dim, and than src: static sizes
  // here, symbolic ones by the call (`fits`) unless the export says so.
  Value fits;
  for (int64_t i = 0; i < rank && !shapesFit; ++i) {
    auto check = [&](Value other, StringRef what) -> LogicalResult {
      int64_t have = typeOf(other).getDimSize(i);
      if (!ShapedType::isDynamic(have) && !ShapedType::isDynamic(idxShape[i])) {
        if (idxShape[i] > have)
          return operatorError(args) << "index of type " << it << " is larger than " << what
                                     << " " << other.getType();
        return success();
      }
      if (sameSize(args, index, i, other, i))
        return success();
      Value leftSize = sizeTensor(b, loc, index, i);
      Value rightSize = sizeTensor(b, loc, other, i);
      Value le = makeCompare(b, loc, "le", leftSize, rightSize);
      fits = conjoin(b, loc, fits, le);
      return success();
    };
    if (i != dim && failed(check(self, "self")))
      return failure();
    if (!srcScalar && failed(check(src, "source")))
      return failure();
  }
  if (hasNoElements(idxShape) || hasNoElements(selfShape))
    return self;
  int64_t n = selfShape[dim];

  // The source cut to index's shape, in self's element type.
  Value s = makeCast(b, loc, src, elt);
  if (srcScalar) {
    SmallVector<Value> sizes;
    for (int64_t i = 0; i < rank; ++i)
      if (it.isDynamicDim(i))
        sizes.push_back(dimIndex(b, loc, index, i));
    s = b.create<BroadcastOp>(loc, RankedTensorType::get(idxShape, elt), s, sizes);
  } else {
    for (int64_t i = 0; i < rank; ++i)
      if (!shapesFit && !sameSize(args, src, i, index, i))
        s = fitDim(b, loc, s, i, index, i, 0.0);
  }

  // Index and source with a unit dim at `dim` for the targets j; the index
  // elements' own positions k move to dim + 1.
  SmallVector<int64_t> unitShape(idxShape);
  unitShape.insert(unitShape.begin() + dim, 1);
  Type i64 = b.getI64Type(), f32 = b.getF32Type();
  Value size = sizeTensor(b, loc, self, dim);
  Value idx = makeCast(b, loc, index, i64);
  Value negative = makeCompare(b, loc, "lt", idx, makeScalar(b, loc, i64, 0));
  Value wrapped = makeBinary<AddOp>(b, loc, idx, size);
  idx = b.create<SelectOp>(loc, typeOf(idx), negative, wrapped, idx);
  // PyTorch raises on an index outside [-n, n): so does the call (a write
  // that lands nowhere would be a silent wrong answer, e.g. a key/value
  // cache written past its end).
  Value zero = makeScalar(b, loc, i64, 0);
  Value notBelow = makeCompare(b, loc, "ge", idx, zero);
  Value below = makeCompare(b, loc, "lt", idx, size);
  Value inRange = makeBinary<BitwiseAndOp>(b, loc, notBelow, below);
  idx = b.create<CheckOp>(loc, typeOf(idx), inRange, idx,
                          b.getStringAttr(operatorName(args) + ": index out of range for dim " +
                                          std::to_string(dim) + " of size " +
                                          (ShapedType::isDynamic(n) ? std::string("?")
                                                                    : std::to_string(n))));
  idx = makeReshape(b, loc, idx, unitShape);
  Value length = ShapedType::isDynamic(n) ? dimIndex(b, loc, self, dim) : Value();
  Value targets = makeIotaAt(b, loc, n, i64, rank + 1, dim, length);
  Value hits = makeCompare(b, loc, "eq", idx, targets);
  RankedTensorType hitType = typeOf(hits);
  Value srcK = makeReshape(b, loc, s, unitShape);
  auto hitsOr = [&](Value v, double otherwise) -> Value {
    Type t = typeOf(v).getElementType();
    Value other = makeScalar(b, loc, t, otherwise);
    return b.create<SelectOp>(loc, RankedTensorType::get(hitType.getShape(), t), hits, v, other);
  };
  SmallVector<int64_t> kDim{dim + 1};
  Value count = makeReduce<ReduceSumOp>(b, loc, makeCast(b, loc, hits, f32), kDim, false);
  const double inf = std::numeric_limits<double>::infinity();
  // Integer products and extrema: tcc_graph's products and maxima take
  // floats, which would round 64-bit integers, so the hits combine in the
  // integer type itself, one index position after another (a static count).
  bool inOrder = integer && (how == Combine::Prod || how == Combine::Amax || how == Combine::Amin);
  int64_t positions = idxShape[dim];
  if (inOrder &&
      (ShapedType::isDynamic(positions) || positions > kMaxUnrolledPositions ||
       !hitType.hasStaticShape()))
    return operatorError(args) << "a product, amax or amin into integers needs static sizes and "
                               << "at most " << kMaxUnrolledPositions
                               << " index positions along dim " << dim;
  auto combineInOrder = [&]() -> Value {
    // What a miss contributes: 1, or the type's least (greatest) value.
    unsigned width = elt.getIntOrFloatBitWidth();
    APInt identity = how == Combine::Prod   ? APInt(width, 1)
                     : how == Combine::Amax ? APInt::getSignedMinValue(width)
                                            : APInt::getSignedMaxValue(width);
    auto scalarType = RankedTensorType::get({}, elt);
    Value other = b.create<ConstantOp>(
        loc, scalarType, cast<ElementsAttr>(DenseElementsAttr::get(scalarType, identity)));
    Value picked =
        b.create<SelectOp>(loc, RankedTensorType::get(hitType.getShape(), elt), hits, srcK, other);
    SmallVector<int64_t> rowShape(hitType.getShape());
    rowShape.erase(rowShape.begin() + dim + 1);
    Value combined;
    for (int64_t j = 0; j < positions; ++j) {
      Value row = makeReshape(b, loc, makeSlice(b, loc, picked, dim + 1, j, j + 1, 1), rowShape);
      if (!combined)
        combined = row;
      else if (how == Combine::Prod)
        combined = makeBinary<MulOp>(b, loc, combined, row);
      else if (how == Combine::Amax)
        combined = makeBinary<MaximumOp>(b, loc, combined, row);
      else
        combined = makeBinary<MinimumOp>(b, loc, combined, row);
    }
    return combined;
  };
  Value reduced;
  switch (how) {
  case Combine::Set: {
    int64_t k = idxShape[dim];
    Value kLength = ShapedType::isDynamic(k) ? dimIndex(b, loc, index, dim) : Value();
    Value positions = makeIotaAt(b, loc, k, f32, rank + 1, dim + 1, kLength);
    Value last = makeReduce<ReduceMaxOp>(b, loc, hitsOr(positions, -1.0), kDim, false);
    last = makeBinary<MaximumOp>(b, loc, last, makeScalar(b, loc, f32, 0.0));
    Value at = makeCast(b, loc, last, i64);
    // Position 0 is read where nothing hits: one more element makes it
    // exist where the index's dim may be empty.
    Value from = ShapedType::isDynamic(k) ? padConstant(b, loc, s, dim, 0, 1) : s;
    reduced = b.create<GatherOp>(loc, RankedTensorType::get(typeOf(at).getShape(), elt), from, at,
                                 b.getI64IntegerAttr(dim));
    break;
  }
  case Combine::Sum:
  case Combine::Mean:
    reduced = makeReduce<ReduceSumOp>(b, loc, hitsOr(srcK, 0.0), kDim, false);
    break;
  case Combine::Prod:
    reduced = inOrder ? combineInOrder()
                      : makeReduce<ReduceProdOp>(b, loc, hitsOr(srcK, 1.0), kDim, false);
    break;
  case Combine::Amax:
    reduced = inOrder ? combineInOrder()
                      : makeReduce<ReduceMaxOp>(b, loc, hitsOr(srcK, -inf), kDim, false);
    break;
  case Combine::Amin: {
    if (inOrder) {
      reduced = combineInOrder();
      break;
    }
    Value negated = b.create<NegOp>(loc, srcK);
    Value most = makeReduce<ReduceMaxOp>(b, loc, hitsOr(negated, -inf), kDim, false);
    reduced = b.create<NegOp>(loc, most);
    break;
  }
  }
  // Index may cover less than self along the other dims.
  for (int64_t i = 0; i < rank; ++i) {
    if (i == dim || shapesFit || sameSize(args, index, i, self, i))
      continue;
    reduced = fitDim(b, loc, reduced, i, self, i, 0.0);
    count = fitDim(b, loc, count, i, self, i, 0.0);
  }
  Value hit = makeCompare(b, loc, "gt", count, makeScalar(b, loc, f32, 0.0));
  Value out = reduced;
  if (how == Combine::Mean) {
    Value divisor = makeCast(b, loc, count, elt);
    if (includeSelf) {
      out = makeBinary<AddOp>(b, loc, self, reduced);
      divisor = makeBinary<AddOp>(b, loc, divisor, makeScalar(b, loc, elt, 1.0));
    }
    if (!integer) {
      out = makeBinary<DivOp>(b, loc, out, divisor);
    } else {
      // PyTorch floors an integer mean. Positions nothing hits divide by 1
      // (their result is self's), so no division is by zero.
      Value one = makeScalar(b, loc, elt, 1.0);
      divisor = makeBinary<MaximumOp>(b, loc, divisor, one);
      Value q = makeBinary<TruncDivOp>(b, loc, out, divisor);
      Value r = makeBinary<FmodOp>(b, loc, out, divisor);
      Value below = makeCompare(b, loc, "lt", r, makeScalar(b, loc, elt, 0.0));
      Value lower = makeBinary<SubOp>(b, loc, q, one);
      out = b.create<SelectOp>(loc, typeOf(q), below, lower, q);
    }
  } else if (includeSelf) {
    switch (how) {
    case Combine::Sum:
      out = makeBinary<AddOp>(b, loc, self, reduced);
      break;
    case Combine::Prod:
      out = makeBinary<MulOp>(b, loc, self, reduced);
      break;
    case Combine::Amax:
      out = makeBinary<MaximumOp>(b, loc, self, reduced);
      break;
    case Combine::Amin:
      out = makeBinary<MinimumOp>(b, loc, self, reduced);
      break;
    default:
      break;
    }
  }
  Value result = b.create<SelectOp>(loc, st, hit, out, self);
  if (fits)
    result = b.create<CheckOp>(loc, st, fits, result,
                               b.getStringAttr(operatorName(args) +
                                               ": index larger than self (apart from dim " +
                                               std::to_string(dim) + ") or than the source"));
  return result;
}

/// The `dim` argument normalized against self's rank (0-d counts as 1).
FailureOr<int64_t> scatterDim(OperatorArgs &args, Value self) {
  int64_t rank = std::max<int64_t>(typeOf(self).getRank(), 1);
  int64_t dim = normalizeDim(args.getInt("dim").value_or(0), rank);
  if (dim < 0 || dim >= rank)
    return operatorError(args) << "dim " << args.getInt("dim").value_or(0) << " out of range for rank "
                         << typeOf(self).getRank();
  return typeOf(self).getRank() == 0 ? 0 : dim;
}

/// `fixed`, or else the `reduce` string argument (a plain write without
/// one), or an error for an unknown name.
FailureOr<Combine> combineArg(OperatorArgs &args, std::optional<Combine> fixed) {
  if (fixed)
    return *fixed;
  if (!args.has("reduce"))
    return Combine::Set;
  auto name = dyn_cast_or_null<StringAttr>(args.getOp().getArgs().get("reduce"));
  std::optional<Combine> how = name ? combineNamed(name.getValue()) : std::nullopt;
  if (!how)
    return operatorError(args) << "unknown reduce '" << (name ? name.getValue() : "") << "'";
  return *how;
}

/// scatter.src/.value/.reduce/.value_reduce, scatter_add and scatter_reduce.two.
LegalizeFn scatterLegalizer(std::optional<Combine> fixed) {
  return [fixed](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Value> self = requiredTensor(args, "self"), index = requiredTensor(args, "index");
    if (failed(self) || failed(index))
      return failure();
    FailureOr<int64_t> dim = scatterDim(args, *self);
    if (failed(dim))
      return failure();
    FailureOr<Value> src = args.has("src") ? tensorOrScalar(args, b, "src", *self)
                                           : tensorOrScalar(args, b, "value", *self);
    if (failed(src))
      return failure();
    FailureOr<Combine> how = combineArg(args, fixed);
    if (failed(how))
      return failure();
    bool includeSelf = args.getBool("include_self").value_or(true);
    FailureOr<Value> r = scatterDense(args, b, *self, *dim, *index, *src, *how, includeSelf);
    if (failed(r))
      return failure();
    return SmallVector<Value>{*r};
  };
}

/// index_add/index_copy/index_fill/index_reduce: a 1-D (or 0-d) index along
/// `dim`, stretched over the source's other dims, as a scatter.
LegalizeFn indexLegalizer(std::optional<Combine> fixed) {
  return [fixed](OperatorArgs &args, OpBuilder &b) -> Results {
    Location loc = args.getOp().getLoc();
    FailureOr<Value> self = requiredTensor(args, "self"), index = requiredTensor(args, "index");
    if (failed(self) || failed(index))
      return failure();
    FailureOr<int64_t> dim = scatterDim(args, *self);
    if (failed(dim))
      return failure();
    RankedTensorType st = typeOf(*self), it = typeOf(*index);
    if (it.getRank() > 1)
      return operatorError(args) << "needs a 1-D index, not " << it;
    Value index1 = it.getRank() == 0 ? makeReshape(b, loc, *index, {1}) : *index;
    int64_t length = typeOf(index1).getShape()[0];
    SmallVector<int64_t> selfShape(st.getShape());
    if (selfShape.empty())
      selfShape.push_back(1);
    Value target = makeReshape(b, loc, *self, selfShape);
    SmallVector<int64_t> srcShape = withDimSize(selfShape, *dim, length);
    bool symbolic = !st.hasStaticShape() || !typeOf(index1).hasStaticShape();
    // Symbolic sizes: the source must have self's sizes with the index's
    // length at dim; where the export does not say so, the call checks it
    // (and the source is read fitted to those sizes).
    Value fits;
    Value source;
    if (args.has("source")) {
      source = args.tensor("source");
      if (source && symbolic && typeOf(source).getRank() == (int64_t)selfShape.size()) {
        // The operands themselves where they have the rank (sameSize reads
        // the export's sizes of operands).
        Value selfLike = st.getRank() == 0 ? target : *self;
        Value indexLike = it.getRank() == 0 ? index1 : *index;
        Value given = source;
        for (int64_t i = 0; i < (int64_t)selfShape.size(); ++i) {
          Value like = i == *dim ? indexLike : selfLike;
          int64_t likeDim = i == *dim ? 0 : i;
          if (sameSize(args, given, i, like, likeDim))
            continue;
          Value leftSize = sizeTensor(b, loc, given, i);
          Value rightSize = sizeTensor(b, loc, like, likeDim);
          Value eq = makeCompare(b, loc, "eq", leftSize, rightSize);
          fits = conjoin(b, loc, fits, eq);
          source = fitDim(b, loc, source, i, like, likeDim, 0.0);
        }
      } else if (!source || symbolic || !typeOf(source).hasStaticShape() ||
                 typeOf(source).getNumElements() != ShapedType::getNumElements(srcShape)) {
        return operatorError(args) << "source must have self's shape with " << length << " at dim " << *dim;
      } else {
        source = makeReshape(b, loc, source, srcShape);
      }
      if (std::optional<double> alpha = args.getFloat("alpha"); alpha && *alpha != 1.0) {
        Value a = makeScalar(b, loc, typeOf(source).getElementType(), *alpha);
        source = makeBinary<MulOp>(b, loc, source, a);
      }
    } else {
      FailureOr<Value> value = tensorOrScalar(args, b, "value", *self);
      if (failed(value))
        return failure();
      if (typeOf(*value).getRank() != 0)
        return operatorError(args) << "the fill value must be a scalar";
      source = *value;
    }
    FailureOr<Combine> how = combineArg(args, fixed);
    if (failed(how))
      return failure();
    SmallVector<int64_t> lineShape(selfShape.size(), 1);
    lineShape[*dim] = length;
    Value line = makeReshape(b, loc, index1, lineShape);
    SmallVector<Value> spreadSizes;
    for (int64_t i = 0; i < (int64_t)srcShape.size(); ++i)
      if (ShapedType::isDynamic(srcShape[i]))
        spreadSizes.push_back(i == *dim ? dimIndex(b, loc, index1, 0) : dimIndex(b, loc, target, i));
    Value spread = b.create<BroadcastOp>(
        loc, RankedTensorType::get(srcShape, typeOf(*index).getElementType()), line, spreadSizes);
    bool includeSelf = args.getBool("include_self").value_or(true);
    FailureOr<Value> r = scatterDense(args, b, target, *dim, spread, source, *how, includeSelf,
                                      /*shapesFit=*/true);
    if (failed(r))
      return failure();
    Value result = makeReshape(b, loc, *r, st.getShape());
    if (fits)
      result = b.create<CheckOp>(loc, st, fits, result,
                                 b.getStringAttr(operatorName(args) +
                                                 ": the source does not have self's sizes with "
                                                 "the index's length at dim " +
                                                 std::to_string(*dim)));
    return SmallVector<Value>{result};
  };
}

/// index_copy(self, dim, index, source): the copied slices alone
/// (tcc_graph.index_copy), whatever the shapes; the dense scatter where the
/// source does not fit the slices as it is.
Results legalizeIndexCopy(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> self = requiredTensor(args, "self"), index = requiredTensor(args, "index"),
                   source = requiredTensor(args, "source");
  if (failed(self) || failed(index) || failed(source))
    return failure();
  FailureOr<int64_t> dim = scatterDim(args, *self);
  if (failed(dim))
    return failure();
  if (typeOf(*self).getRank() > 0)
    if (std::optional<Value> r = indexCopyAlong(args, b, *self, *dim, *index, *source))
      return SmallVector<Value>{*r};
  return indexLegalizer(Combine::Set)(args, b);
}

/// `v` flattened to 1-D.
Value flatten(OpBuilder &b, Location loc, Value v) {
  return makeReshape(b, loc, v, {elementCount(v)});
}

/// put(self, index, source, accumulate): a scatter into flattened self.
Results legalizePut(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> self = requiredTensor(args, "self"), index = requiredTensor(args, "index"),
                   source = requiredTensor(args, "source");
  if (failed(self) || failed(index) || failed(source))
    return failure();
  RankedTensorType st = typeOf(*self);
  int64_t count = elementCount(*index), available = elementCount(*source);
  if (!ShapedType::isDynamic(count) && !ShapedType::isDynamic(available) && count != available)
    return operatorError(args) << "source and index must have as many elements";
  Value flat = flatten(b, loc, *self);
  Value idx = flatten(b, loc, *index);
  Value src = flatten(b, loc, *source);
  // Symbolic counts: the call checks that they agree, as PyTorch raises,
  // and the source is read fitted to the index's count.
  Value same;
  if (ShapedType::isDynamic(count) || ShapedType::isDynamic(available)) {
    Value leftSize = sizeTensor(b, loc, idx, 0);
    Value rightSize = sizeTensor(b, loc, src, 0);
    same = makeCompare(b, loc, "eq", leftSize, rightSize);
    src = fitDim(b, loc, src, 0, idx, 0, 0.0);
  }
  Combine how = args.getBool("accumulate").value_or(false) ? Combine::Sum : Combine::Set;
  FailureOr<Value> r = scatterDense(args, b, flat, 0, idx, src, how, true, /*shapesFit=*/true);
  if (failed(r))
    return failure();
  Value result = reshapeLike(b, loc, *r, *self);
  if (same)
    result = b.create<CheckOp>(loc, st, same, result,
                               b.getStringAttr(operatorName(args) +
                                               ": source and index must have as many elements"));
  return SmallVector<Value>{result};
}

/// `values` combined (`how`) at `indices` (of one shape, [planes.., spatial..])
/// into the flattened spatial plane of each leading position of a zero
/// tensor shaped as the result (symbolic sizes from the export's
/// expressions).
Results scatterIntoPlanes(OperatorArgs &args, OpBuilder &b, int64_t spatial, StringRef valuesName,
                          Combine how) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> self = requiredTensor(args, valuesName),
                   indices = requiredTensor(args, "indices");
  if (failed(self) || failed(indices))
    return failure();
  RankedTensorType st = typeOf(*self), out = args.resultType();
  if (st.getRank() != out.getRank() || st.getRank() < spatial + 1 ||
      typeOf(*indices).getRank() != st.getRank())
    return operatorError(args) << "needs " << valuesName << " and indices of one shape and rank "
                               << spatial + 1 << " or " << spatial + 2;
  int64_t rank = st.getRank(), lead = rank - spatial;
  // Indices of the values' shape: static sizes here, symbolic ones by the
  // call unless the export says so (and read fitted to it).
  Value idxs = *indices, fits;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t have = typeOf(*indices).getDimSize(d), want = st.getDimSize(d);
    if (!ShapedType::isDynamic(have) && !ShapedType::isDynamic(want)) {
      if (have != want)
        return operatorError(args) << "needs " << valuesName << " and indices of one shape, not "
                                   << st << " and " << typeOf(*indices);
      continue;
    }
    if (sameSize(args, *indices, d, *self, d))
      continue;
    Value leftSize = sizeTensor(b, loc, *indices, d);
    Value rightSize = sizeTensor(b, loc, *self, d);
    Value eq = makeCompare(b, loc, "eq", leftSize, rightSize);
    fits = conjoin(b, loc, fits, eq);
    idxs = fitDim(b, loc, idxs, d, *self, d, 0.0);
  }
  FailureOr<SmallVector<Value>> outSizes = symbolicSizes(args, b);
  if (failed(outSizes))
    return failure();
  SmallVector<Value> outDims;
  for (int64_t d = 0, k = 0; d < rank; ++d)
    outDims.push_back(out.isDynamicDim(d) ? (*outSizes)[k++] : Value());
  // The planes, and each plane's input and output elements.
  auto staticProduct = [](ArrayRef<int64_t> sizes) -> int64_t {
    if (llvm::any_of(sizes, ShapedType::isDynamic))
      return ShapedType::kDynamic;
    return ShapedType::getNumElements(sizes);
  };
  int64_t planes = staticProduct(st.getShape().take_front(lead));
  int64_t inPlane = staticProduct(st.getShape().drop_front(lead));
  int64_t outPlane = staticProduct(out.getShape().drop_front(lead));
  Value planesSize, inSize, outSize;
  if (!st.hasStaticShape() || !out.hasStaticShape()) {
    planesSize = dimProduct(b, loc, *self, 0, lead);
    inSize = dimProduct(b, loc, *self, lead, rank);
    outSize = b.create<arith::ConstantIndexOp>(loc, 1);
    for (int64_t d = lead; d < rank; ++d) {
      Value size = out.isDynamicDim(d) ? outDims[d]
                                       : b.create<arith::ConstantIndexOp>(loc, out.getDimSize(d));
      outSize = b.create<arith::MulIOp>(loc, outSize, size);
    }
  }
  Value values = makeReshape(b, loc, *self, {planes, inPlane}, {planesSize, inSize});
  Value idx = makeReshape(b, loc, idxs, {planes, inPlane}, {planesSize, inSize});
  auto zerosType = RankedTensorType::get({planes, outPlane}, st.getElementType());
  Value zeros;
  if (zerosType.hasStaticShape()) {
    zeros = makeSplat(b, loc, zerosType, 0.0);
  } else {
    SmallVector<Value> sizes;
    if (ShapedType::isDynamic(planes))
      sizes.push_back(planesSize);
    if (ShapedType::isDynamic(outPlane))
      sizes.push_back(outSize);
    zeros = b.create<BroadcastOp>(loc, zerosType, makeScalar(b, loc, st.getElementType(), 0.0),
                                  sizes);
  }
  FailureOr<Value> r = scatterDense(args, b, zeros, 1, idx, values, how, true, /*shapesFit=*/true);
  if (failed(r))
    return failure();
  Value result = makeReshape(b, loc, *r, out.getShape(), outDims);
  if (fits)
    result = b.create<CheckOp>(loc, out, fits, result,
                               b.getStringAttr(operatorName(args) + ": needs " + valuesName.str() +
                                               " and indices of one shape"));
  return SmallVector<Value>{result};
}

/// max_unpool2d/3d(self, indices, output_size, ...): each value written at
/// its index into the flattened output plane of its (batch, channel), zeros
/// elsewhere. (max_unpool1d exports as max_unpool2d.)
LegalizeFn maxUnpool(int64_t spatial) {
  return [spatial](OperatorArgs &args, OpBuilder &b) -> Results {
    return scatterIntoPlanes(args, b, spatial, "self", Combine::Set);
  };
}

/// max_pool2d/3d_with_indices_backward(grad_output, self, ..., indices): each
/// output's gradient added at its index into the input plane of its (batch,
/// channel), zeros elsewhere (overlapping windows add up).
LegalizeFn maxPoolBackward(int64_t spatial) {
  return [spatial](OperatorArgs &args, OpBuilder &b) -> Results {
    return scatterIntoPlanes(args, b, spatial, "grad_output", Combine::Sum);
  };
}
} // namespace

//===----------------------------------------------------------------------===//
// Shared helpers for symbolic sizes
//===----------------------------------------------------------------------===//

Value tcc::graph::fitDim(OpBuilder &b, Location loc, Value v, int64_t i, Value target,
                         int64_t like, double fill) {
  int64_t want = typeOf(target).getDimSize(like);
  Value wantSize;
  if (ShapedType::isDynamic(want) || ShapedType::isDynamic(typeOf(v).getDimSize(i)))
    wantSize = dimIndex(b, loc, target, like);
  return fitDimTo(b, loc, v, i, want, wantSize, fill);
}

Value tcc::graph::fitDimTo(OpBuilder &b, Location loc, Value v, int64_t i, int64_t want,
                           Value wantSize, double fill) {
  RankedTensorType t = typeOf(v);
  Type elt = t.getElementType();
  int64_t have = t.getDimSize(i);
  if (!ShapedType::isDynamic(have) && !ShapedType::isDynamic(want)) {
    if (have > want)
      return makeSlice(b, loc, v, i, 0, want, 1);
    if (have == want)
      return v;
    Value extra =
        makeSplat(b, loc, RankedTensorType::get(withDimSize(t.getShape(), i, want - have), elt), fill);
    return b.create<ConcatOp>(loc, RankedTensorType::get(withDimSize(t.getShape(), i, want), elt),
                              ValueRange{v, extra}, b.getI64IntegerAttr(i));
  }
  if (!wantSize)
    wantSize = b.create<arith::ConstantIndexOp>(loc, want);
  Value haveSize = dimIndex(b, loc, v, i);
  Value missing = b.create<arith::SubIOp>(loc, wantSize, haveSize);
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value count = b.create<arith::MaxSIOp>(loc, missing, zero);
  SmallVector<int64_t> pieceShape = withDimSize(t.getShape(), i, ShapedType::kDynamic);
  SmallVector<Value> pieceSizes;
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (ShapedType::isDynamic(pieceShape[d]))
      pieceSizes.push_back(d == i ? count : dimIndex(b, loc, v, d));
  Value piece = b.create<BroadcastOp>(loc, RankedTensorType::get(pieceShape, elt),
                                      makeScalar(b, loc, elt, fill), pieceSizes);
  Value extended = b.create<ConcatOp>(loc, RankedTensorType::get(pieceShape, elt),
                                      ValueRange{v, piece}, b.getI64IntegerAttr(i));
  SmallVector<Value> cutSize;
  if (ShapedType::isDynamic(want))
    cutSize.push_back(wantSize);
  return b.create<SliceOp>(loc, RankedTensorType::get(withDimSize(t.getShape(), i, want), elt),
                           extended, b.getI64IntegerAttr(i), b.getI64IntegerAttr(0),
                           b.getI64IntegerAttr(ShapedType::isDynamic(want)
                                                   ? std::numeric_limits<int64_t>::max()
                                                   : want),
                           b.getI64IntegerAttr(1), cutSize);
}

Value tcc::graph::conjoin(OpBuilder &b, Location loc, Value ok, Value next) {
  return ok ? makeBinary<BitwiseAndOp>(b, loc, ok, next) : next;
}

int64_t tcc::graph::elementCount(Value v) {
  RankedTensorType t = typeOf(v);
  return t.hasStaticShape() ? t.getNumElements() : ShapedType::kDynamic;
}

Value tcc::graph::reshapeLike(OpBuilder &b, Location loc, Value v, Value like) {
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < typeOf(like).getRank(); ++d)
    sizes.push_back(typeOf(like).isDynamicDim(d) ? dimIndex(b, loc, like, d) : Value());
  return makeReshape(b, loc, v, typeOf(like).getShape(), sizes);
}

std::optional<Value> tcc::graph::indexCopyAlong(OperatorArgs &args, OpBuilder &b, Value self,
                                                int64_t dim, Value index, Value source) {
  Location loc = args.getOp().getLoc();
  RankedTensorType st = typeOf(self), it = typeOf(index);
  if (!isa<IntegerType>(it.getElementType()) || it.getElementType().isInteger(1) ||
      it.getRank() > 1)
    return std::nullopt;
  if (it.getRank() == 0)
    index = makeReshape(b, loc, index, {1});
  // The written slices: self's shape with the index's length at dim.
  SmallVector<int64_t> slices(st.getShape());
  slices[dim] = typeOf(index).getShape()[0];
  Value s = makeCast(b, loc, source, st.getElementType());
  auto target = RankedTensorType::get(slices, st.getElementType());
  if (typeOf(s).getShape() != ArrayRef<int64_t>(slices)) {
    if (!target.hasStaticShape() || !typeOf(s).hasStaticShape())
      return std::nullopt;
    // index_copy and index_put take a source of fewer or unit dims too.
    ArrayRef<int64_t> have = typeOf(s).getShape();
    if (have.size() > slices.size())
      return std::nullopt;
    for (auto [h, w] : llvm::zip(have, ArrayRef<int64_t>(slices).take_back(have.size())))
      if (h != 1 && h != w)
        return std::nullopt;
    s = b.create<BroadcastOp>(loc, target, s);
  }
  std::string message = operatorName(args).str() + ": index out of range for dim " +
                        std::to_string(dim) + " of size " +
                        (st.isDynamicDim(dim) ? std::string("?")
                                              : std::to_string(st.getDimSize(dim)));
  return Value(b.create<IndexCopyOp>(loc, st, self, index, s, b.getI64IntegerAttr(dim),
                                     b.getStringAttr(message)));
}

FailureOr<Value> tcc::graph::scatterAlongDim(OperatorArgs &args, OpBuilder &b, Value self,
                                             int64_t dim, Value index, Value src,
                                             bool accumulate, bool shapesFit) {
  return scatterDense(args, b, self, dim, index, src, accumulate ? Combine::Sum : Combine::Set,
                      /*includeSelf=*/true, shapesFit);
}

void tcc::graph::populateScatterLegalizers(LegalizerTable &t) {
  for (const char *n : {"aten.scatter.src", "aten.scatter.value", "aten.scatter.reduce",
                        "aten.scatter.value_reduce", "aten.scatter_reduce.two"})
    t[n] = scatterLegalizer(std::nullopt);
  t["aten.scatter_add.default"] = scatterLegalizer(Combine::Sum);
  t["aten.index_add.default"] = indexLegalizer(Combine::Sum);
  t["aten.index_copy.default"] = legalizeIndexCopy;
  t["aten.index_fill.int_Scalar"] = indexLegalizer(Combine::Set);
  t["aten.index_fill.int_Tensor"] = indexLegalizer(Combine::Set);
  t["aten.index_reduce.default"] = indexLegalizer(std::nullopt);
  t["aten.put.default"] = legalizePut;
  t["aten.max_unpool2d.default"] = maxUnpool(2);
  t["aten.max_unpool3d.default"] = maxUnpool(3);
  t["aten.max_pool2d_with_indices_backward.default"] = maxPoolBackward(2);
  t["aten.max_pool3d_with_indices_backward.default"] = maxPoolBackward(3);
}
