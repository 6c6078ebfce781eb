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
// backward (max_pool2d/3d_with_indices_backward). A plain write with
// several hits on one position takes the last (the highest k), as PyTorch's
// CPU loop does. Static shapes only; the work is index.numel() * size(dim).
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include "llvm/ADT/StringSwitch.h"

#include <limits>

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// How the source elements that hit one position combine with it.
enum class Combine { Set, Sum, Prod, Mean, Amax, Amin };

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

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

/// `v` (static shape) extended at the end of each dim to `shape` with `fill`.
Value padEnd(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape, double fill) {
  for (int64_t i = 0; i < (int64_t)shape.size(); ++i) {
    RankedTensorType t = typeOf(v);
    int64_t have = t.getShape()[i];
    if (have == shape[i])
      continue;
    Value extra = makeSplat(
        b, loc, RankedTensorType::get(withDimSize(t.getShape(), i, shape[i] - have), t.getElementType()),
        fill);
    v = b.create<ConcatOp>(loc, RankedTensorType::get(withDimSize(t.getShape(), i, shape[i]), t.getElementType()),
                           ValueRange{v, extra}, b.getI64IntegerAttr(i));
  }
  return v;
}

/// self with `src` scattered along `dim` at `index` (see the file comment).
/// `src` is a 0-d value for every index element, or at least index's shape.
FailureOr<Value> scatterDense(OperatorArgs &args, OpBuilder &b, Value self, int64_t dim,
                              Value index, Value src, Combine how, bool includeSelf) {
  Location loc = args.getOp().getLoc();
  RankedTensorType st = typeOf(self), it = typeOf(index);
  Type elt = st.getElementType();
  if (!st.hasStaticShape() || !it.hasStaticShape() || !typeOf(src).hasStaticShape())
    return operatorError(args) << "only static shapes are supported";
  if (!isa<IntegerType>(it.getElementType()))
    return operatorError(args) << "the index must be an integer tensor, not " << it;
  if (how != Combine::Set && !isa<FloatType>(elt))
    return operatorError(args) << "reducing into a tensor of " << elt
                         << " is not supported (floating-point only)";
  if (st.getRank() == 0) {
    // A 0-d self is one position along dim 0.
    SmallVector<int64_t> one{1};
    Value s = typeOf(src).getRank() == 0 ? src : makeReshape(b, loc, src, one);
    Value self1 = makeReshape(b, loc, self, one);
    Value index1 = makeReshape(b, loc, index, one);
    FailureOr<Value> r = scatterDense(args, b, self1, 0, index1, s, how, includeSelf);
    if (failed(r))
      return failure();
    return makeReshape(b, loc, *r, {});
  }
  int64_t rank = st.getRank();
  ArrayRef<int64_t> selfShape = st.getShape(), idxShape = it.getShape();
  if (it.getRank() != rank)
    return operatorError(args) << "index of type " << it << " for self " << st
                         << " (the same rank is needed)";
  for (int64_t i = 0; i < rank; ++i)
    if (i != dim && idxShape[i] > selfShape[i])
      return operatorError(args) << "index of type " << it << " is larger than self " << st;
  if (numElements(idxShape) == 0 || numElements(selfShape) == 0)
    return self;
  int64_t n = selfShape[dim];

  // The source cut to index's shape, in self's element type.
  Value s = makeCast(b, loc, src, elt);
  if (typeOf(s).getRank() == 0) {
    s = b.create<BroadcastOp>(loc, RankedTensorType::get(idxShape, elt), s);
  } else {
    if (typeOf(s).getRank() != rank)
      return operatorError(args) << "source of type " << src.getType() << " for index " << it;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t have = typeOf(s).getShape()[i];
      if (have < idxShape[i])
        return operatorError(args) << "source of type " << src.getType() << " is smaller than index " << it;
      if (have > idxShape[i])
        s = makeSlice(b, loc, s, i, 0, idxShape[i], 1);
    }
  }

  // Index and source with a unit dim at `dim` for the targets j; the index
  // elements' own positions k move to dim + 1.
  SmallVector<int64_t> unitShape(idxShape);
  unitShape.insert(unitShape.begin() + dim, 1);
  Type i64 = b.getI64Type(), f32 = b.getF32Type();
  Value idx = makeCast(b, loc, index, i64);
  Value negative = makeCompare(b, loc, "lt", idx, makeScalar(b, loc, i64, 0));
  Value wrapped = makeBinary<AddOp>(b, loc, idx, makeScalar(b, loc, i64, (double)n));
  idx = b.create<SelectOp>(loc, typeOf(idx), negative, wrapped, idx);
  // PyTorch raises on an index outside [-n, n): so does the call (a write
  // that lands nowhere would be a silent wrong answer, e.g. a key/value
  // cache written past its end).
  Value zero = makeScalar(b, loc, i64, 0), size = makeScalar(b, loc, i64, (double)n);
  Value notBelow = makeCompare(b, loc, "ge", idx, zero);
  Value below = makeCompare(b, loc, "lt", idx, size);
  Value inRange = makeBinary<BitwiseAndOp>(b, loc, notBelow, below);
  idx = b.create<CheckOp>(loc, typeOf(idx), inRange, idx,
                          b.getStringAttr(operatorName(args) + ": index out of range for dim " +
                                          std::to_string(dim) + " of size " +
                                          std::to_string(n)));
  idx = makeReshape(b, loc, idx, unitShape);
  Value targets = makeIotaAt(b, loc, n, i64, rank + 1, dim);
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
  Value reduced;
  switch (how) {
  case Combine::Set: {
    Value positions = makeIotaAt(b, loc, idxShape[dim], f32, rank + 1, dim + 1);
    Value last = makeReduce<ReduceMaxOp>(b, loc, hitsOr(positions, -1.0), kDim, false);
    last = makeBinary<MaximumOp>(b, loc, last, makeScalar(b, loc, f32, 0.0));
    Value at = makeCast(b, loc, last, i64);
    reduced = b.create<GatherOp>(loc, RankedTensorType::get(typeOf(at).getShape(), elt), s, at,
                                 b.getI64IntegerAttr(dim));
    break;
  }
  case Combine::Sum:
  case Combine::Mean:
    reduced = makeReduce<ReduceSumOp>(b, loc, hitsOr(srcK, 0.0), kDim, false);
    break;
  case Combine::Prod:
    reduced = makeReduce<ReduceProdOp>(b, loc, hitsOr(srcK, 1.0), kDim, false);
    break;
  case Combine::Amax:
    reduced = makeReduce<ReduceMaxOp>(b, loc, hitsOr(srcK, -inf), kDim, false);
    break;
  case Combine::Amin: {
    Value negated = b.create<NegOp>(loc, srcK);
    Value most = makeReduce<ReduceMaxOp>(b, loc, hitsOr(negated, -inf), kDim, false);
    reduced = b.create<NegOp>(loc, most);
    break;
  }
  }
  // Index may cover less than self along the other dims.
  reduced = padEnd(b, loc, reduced, selfShape, 0.0);
  count = padEnd(b, loc, count, selfShape, 0.0);
  Value hit = makeCompare(b, loc, "gt", count, makeScalar(b, loc, f32, 0.0));
  Value out = reduced;
  if (how == Combine::Mean) {
    Value divisor = makeCast(b, loc, count, elt);
    if (includeSelf) {
      out = makeBinary<AddOp>(b, loc, self, reduced);
      divisor = makeBinary<AddOp>(b, loc, divisor, makeScalar(b, loc, elt, 1.0));
    }
    out = makeBinary<DivOp>(b, loc, out, divisor);
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
  return Value(b.create<SelectOp>(loc, st, hit, out, self));
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
    if (it.getRank() > 1 || !it.hasStaticShape() || !st.hasStaticShape())
      return operatorError(args) << "needs a static 1-D index and self, not " << it << " and " << st;
    int64_t length = it.getRank() == 0 ? 1 : it.getShape()[0];
    SmallVector<int64_t> selfShape(st.getShape());
    if (selfShape.empty())
      selfShape.push_back(1);
    SmallVector<int64_t> srcShape = withDimSize(selfShape, *dim, length);
    Value source;
    if (args.has("source")) {
      source = args.tensor("source");
      if (!source || numElements(typeOf(source).getShape()) != numElements(srcShape))
        return operatorError(args) << "source must have self's shape with " << length << " at dim " << *dim;
      source = makeReshape(b, loc, source, srcShape);
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
    Value line = makeReshape(b, loc, *index, lineShape);
    Value spread = b.create<BroadcastOp>(
        loc, RankedTensorType::get(srcShape, typeOf(*index).getElementType()), line);
    Value target = makeReshape(b, loc, *self, selfShape);
    bool includeSelf = args.getBool("include_self").value_or(true);
    FailureOr<Value> r = scatterDense(args, b, target, *dim, spread, source, *how, includeSelf);
    if (failed(r))
      return failure();
    return SmallVector<Value>{makeReshape(b, loc, *r, st.getShape())};
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

/// put(self, index, source, accumulate): a scatter into flattened self.
Results legalizePut(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> self = requiredTensor(args, "self"), index = requiredTensor(args, "index"),
                   source = requiredTensor(args, "source");
  if (failed(self) || failed(index) || failed(source))
    return failure();
  RankedTensorType st = typeOf(*self);
  if (!st.hasStaticShape() || !typeOf(*index).hasStaticShape() ||
      !typeOf(*source).hasStaticShape())
    return operatorError(args) << "only static shapes are supported";
  int64_t count = numElements(typeOf(*index).getShape());
  if (numElements(typeOf(*source).getShape()) != count)
    return operatorError(args) << "source and index must have as many elements";
  Value flat = makeReshape(b, loc, *self, {numElements(st.getShape())});
  Value idx = makeReshape(b, loc, *index, {count});
  Value src = makeReshape(b, loc, *source, {count});
  Combine how = args.getBool("accumulate").value_or(false) ? Combine::Sum : Combine::Set;
  FailureOr<Value> r = scatterDense(args, b, flat, 0, idx, src, how, true);
  if (failed(r))
    return failure();
  return SmallVector<Value>{makeReshape(b, loc, *r, st.getShape())};
}

/// `values` combined (`how`) at `indices` (of one shape, [planes.., spatial..])
/// into the flattened spatial plane of each leading position of a zero
/// tensor shaped as the result.
Results scatterIntoPlanes(OperatorArgs &args, OpBuilder &b, int64_t spatial, StringRef valuesName,
                          Combine how) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> self = requiredTensor(args, valuesName),
                   indices = requiredTensor(args, "indices");
  if (failed(self) || failed(indices))
    return failure();
  RankedTensorType st = typeOf(*self), out = args.resultType();
  if (!st.hasStaticShape() || !out.hasStaticShape() || st.getRank() != out.getRank() ||
      st.getRank() < spatial + 1 || typeOf(*indices).getShape() != st.getShape())
    return operatorError(args) << "needs static " << valuesName
                               << " and indices of one shape and rank " << spatial + 1
                               << " or " << spatial + 2;
  int64_t lead = st.getRank() - spatial;
  int64_t planes = numElements(st.getShape().take_front(lead));
  int64_t inPlane = numElements(st.getShape().drop_front(lead));
  int64_t outPlane = numElements(out.getShape().drop_front(lead));
  Value values = makeReshape(b, loc, *self, {planes, inPlane});
  Value idx = makeReshape(b, loc, *indices, {planes, inPlane});
  Value zeros =
      makeSplat(b, loc, RankedTensorType::get({planes, outPlane}, st.getElementType()), 0.0);
  FailureOr<Value> r = scatterDense(args, b, zeros, 1, idx, values, how, true);
  if (failed(r))
    return failure();
  return SmallVector<Value>{makeReshape(b, loc, *r, out.getShape())};
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
                                             bool accumulate) {
  return scatterDense(args, b, self, dim, index, src, accumulate ? Combine::Sum : Combine::Set,
                      /*includeSelf=*/true);
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
