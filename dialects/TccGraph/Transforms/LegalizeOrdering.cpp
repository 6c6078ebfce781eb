//===- LegalizeOrdering.cpp - scans and sorting along a dim ---------------===//
//
// Operators that relate every element along a dim to every other one, built
// from a pairwise view: x with element i at `dim` and element j at dim + 1
// (shapes [.., n, 1, ..] and [.., 1, n, ..] broadcast to n x n).
//
// - Scans (cumprod, cummax/cummin with their indices, logcumsumexp): element
//   i reduces the j <= i, in order, so a product rounds as PyTorch's loop.
// - Sorting (sort, argsort, msort, topk, kthvalue, median, nanmedian, mode):
//   element i's rank is the number of j that come before it (smaller, NaN
//   last; ties in index order: a stable sort, as PyTorch's); position p then
//   takes the i of rank p. Where PyTorch leaves the index of tied values
//   unspecified (topk, kthvalue, median with a dim) this gives the first.
//
// The work is n * n per line, so dims longer than kMaxPairwise are refused.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <limits>

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

constexpr int64_t kMaxPairwise = 4096;

/// x (rank >= 1) seen pairwise along dim: element i at `dim`,
/// element j at dim + 1, with their positions as f32 iotas.
struct Pairwise {
  Value xi, xj, i, j;
  int64_t dim, n;
};

Pairwise pairwise(OpBuilder &b, Location loc, Value x, int64_t dim) {
  RankedTensorType t = typeOf(x);
  SmallVector<int64_t> iShape(t.getShape()), jShape(t.getShape());
  iShape.insert(iShape.begin() + dim + 1, 1);
  jShape.insert(jShape.begin() + dim, 1);
  int64_t n = t.getShape()[dim], rank = t.getRank() + 1;
  Value xi = makeReshape(b, loc, x, iShape);
  Value xj = makeReshape(b, loc, x, jShape);
  Value length = t.isDynamicDim(dim) ? dimIndex(b, loc, x, dim) : Value();
  Value i = makeIotaAt(b, loc, n, b.getF32Type(), rank, dim, length);
  Value j = makeIotaAt(b, loc, n, b.getF32Type(), rank, dim + 1, length);
  return {xi, xj, i, j, dim, n};
}

/// `v` reduced over the j dim of a pairwise view (dropped).
template <typename ReduceOp> Value overJ(OpBuilder &b, Location loc, Value v, const Pairwise &p) {
  return makeReduce<ReduceOp>(b, loc, v, {p.dim + 1}, false);
}

/// select(cond, v, otherwise) with a scalar `otherwise` of v's element type.
Value where(OpBuilder &b, Location loc, Value cond, Value v, double otherwise) {
  Type elt = typeOf(v).getElementType();
  auto shape = broadcastShapes(typeOf(cond).getShape(), typeOf(v).getShape());
  return b.create<SelectOp>(loc, RankedTensorType::get(*shape, elt), cond, v,
                            makeScalar(b, loc, elt, otherwise));
}

/// The operand `self` (float, at most kMaxPairwise along dim) and the
/// normalized `dim` (default `dflt`); a 0-d self is taken as [1]. A
/// symbolic size along dim is checked against kMaxPairwise at run time.
struct Line {
  Value x;
  int64_t dim;
  bool scalar;
};
FailureOr<Line> lineArgs(OperatorArgs &args, OpBuilder &b, int64_t dflt) {
  FailureOr<Value> self = requiredTensor(args, "self");
  if (failed(self))
    return failure();
  RankedTensorType t = typeOf(*self);
  if (!isa<FloatType>(t.getElementType()))
    return operatorError(args) << "needs a floating-point tensor, not " << t;
  int64_t rank = std::max<int64_t>(t.getRank(), 1);
  int64_t raw = args.getInt("dim").value_or(dflt);
  int64_t dim = normalizeDim(raw, rank);
  if (dim < 0 || dim >= rank)
    return operatorError(args) << "dim " << raw << " out of range for rank " << t.getRank();
  // The other dims may be symbolic (a batch, a sequence): each line is
  // ordered on its own.
  Location loc = args.getOp().getLoc();
  Value x = t.getRank() == 0 ? makeReshape(b, loc, *self, {1}) : *self;
  if (typeOf(x).isDynamicDim(dim)) {
    std::optional<int64_t> largest = largestSize(args, *self, t.getRank() == 0 ? 0 : dim);
    if (largest && *largest > kMaxPairwise)
      return operatorError(args) << "dim " << raw << " is symbolic with up to " << *largest
                                 << " elements; at most " << kMaxPairwise
                                 << " are supported (export it with a smaller maximum)";
    // Where the export states no maximum here, the size is checked at run time.
    Type i64 = b.getI64Type();
    Value n = b.create<DimSizeOp>(loc, RankedTensorType::get({}, i64), x, b.getI64IntegerAttr(dim));
    Value most = makeScalar(b, loc, i64, (double)kMaxPairwise);
    Value fits = makeCompare(b, loc, "le", n, most);
    std::string message = (operatorName(args) + ": a dim of more than " +
                           std::to_string(kMaxPairwise) + " elements is not supported")
                              .str();
    x = b.create<CheckOp>(loc, x.getType(), fits, x, b.getStringAttr(message));
    return Line{x, dim, false};
  }
  if (typeOf(x).getShape()[dim] > kMaxPairwise)
    return operatorError(args) << "a dim of " << typeOf(x).getShape()[dim]
                               << " elements is longer than the " << kMaxPairwise
                               << " supported";
  return Line{x, dim, t.getRank() == 0};
}

/// Whether v is NaN (v != v).
Value isNan(OpBuilder &b, Location loc, Value v) { return makeCompare(b, loc, "ne", v, v); }

//===----------------------------------------------------------------------===//
// Scans
//===----------------------------------------------------------------------===//

enum class Scan { Prod, Max, Min, LogSumExp };

/// cumprod / cummax / cummin / logcumsumexp along dim. cummax and cummin
/// also give the last position of the running extremum (of the last NaN
/// once one is seen), as PyTorch's loop, which replaces on >= / <=.
LegalizeFn scan(Scan kind) {
  return [kind](OperatorArgs &args, OpBuilder &b) -> Results {
    Location loc = args.getOp().getLoc();
    FailureOr<Line> line = lineArgs(args, b, 0);
    if (failed(line))
      return failure();
    RankedTensorType out = args.resultType();
    Value x = makeCast(b, loc, line->x, out.getElementType());
    bool withIndices = args.getOp().getNumResults() == 2;
    if (typeOf(x).hasStaticShape() && typeOf(x).getNumElements() == 0) {
      SmallVector<Value> r{makeReshape(b, loc, x, out.getShape())};
      if (withIndices)
        r.push_back(makeSplat(b, loc, args.resultType(1), 0.0));
      return r;
    }
    Pairwise p = pairwise(b, loc, x, line->dim);
    Value upto = makeCompare(b, loc, "le", p.j, p.i);
    const double inf = std::numeric_limits<double>::infinity();
    Value v;
    switch (kind) {
    case Scan::Prod:
      v = overJ<ReduceProdOp>(b, loc, where(b, loc, upto, p.xj, 1.0), p);
      break;
    case Scan::Max:
      v = overJ<ReduceMaxOp>(b, loc, where(b, loc, upto, p.xj, -inf), p);
      break;
    case Scan::Min: {
      Value negated = b.create<NegOp>(loc, p.xj);
      Value most = overJ<ReduceMaxOp>(b, loc, where(b, loc, upto, negated, -inf), p);
      v = b.create<NegOp>(loc, most);
      break;
    }
    case Scan::LogSumExp: {
      Value lse = makeLogSumExp(b, loc, where(b, loc, upto, p.xj, -inf), {p.dim + 1});
      v = makeReshape(b, loc, lse, typeOf(x).getShape());
      break;
    }
    }
    SmallVector<Value> results{makeReshape(b, loc, v, out.getShape())};
    if (withIndices) {
      Value vi = makeReshape(b, loc, v, typeOf(p.xi).getShape());
      Value same = makeCompare(b, loc, "eq", p.xj, vi);
      Value bothNan = makeBinary<BitwiseAndOp>(b, loc, isNan(b, loc, p.xj), isNan(b, loc, vi));
      Value hit = makeBinary<BitwiseAndOp>(b, loc, upto, makeBinary<BitwiseOrOp>(b, loc, same, bothNan));
      Value last = overJ<ReduceMaxOp>(b, loc, where(b, loc, hit, p.j, -1.0), p);
      Value index = makeCast(b, loc, last, b.getI64Type());
      results.push_back(makeReshape(b, loc, index, args.resultType(1).getShape()));
    }
    return results;
  };
}

//===----------------------------------------------------------------------===//
// Sorting
//===----------------------------------------------------------------------===//

/// The stable sorting permutation of x along dim (float):
/// ascending with NaN last, or descending with NaN first; i64, x's shape.
Value sortPermutation(OpBuilder &b, Location loc, Value x, int64_t dim, bool descending) {
  Pairwise p = pairwise(b, loc, x, dim);
  Value nanI = isNan(b, loc, p.xi), nanJ = isNan(b, loc, p.xj);
  // j comes strictly before i: smaller (larger), or a number before a NaN
  // (a NaN before a number).
  Value order = makeCompare(b, loc, descending ? "gt" : "lt", p.xj, p.xi);
  Value numberJ = makeCompare(b, loc, "eq", p.xj, p.xj), numberI = makeCompare(b, loc, "eq", p.xi, p.xi);
  Value nanOrder = descending ? makeBinary<BitwiseAndOp>(b, loc, nanJ, numberI)
                              : makeBinary<BitwiseAndOp>(b, loc, numberJ, nanI);
  Value strictly = makeBinary<BitwiseOrOp>(b, loc, order, nanOrder);
  Value equal = makeCompare(b, loc, "eq", p.xj, p.xi);
  Value tie = makeBinary<BitwiseOrOp>(b, loc, equal, makeBinary<BitwiseAndOp>(b, loc, nanJ, nanI));
  Value earlier = makeCompare(b, loc, "lt", p.j, p.i);
  Value before = makeBinary<BitwiseOrOp>(b, loc, strictly, makeBinary<BitwiseAndOp>(b, loc, tie, earlier));
  Value rank = overJ<ReduceSumOp>(b, loc, makeCast(b, loc, before, b.getF32Type()), p);
  // Position p (at dim) takes the i (now at dim + 1) whose rank is p.
  Value rankJ = makeReshape(b, loc, rank, typeOf(p.xj).getShape());
  Value chosen = makeCompare(b, loc, "eq", rankJ, p.i);
  Value index = overJ<ReduceSumOp>(b, loc, where(b, loc, chosen, p.j, 0.0), p);
  return makeCast(b, loc, index, b.getI64Type());
}

/// `v` gathered along dim at `index`.
Value gatherAt(OpBuilder &b, Location loc, Value v, Value index, int64_t dim) {
  return b.create<GatherOp>(loc,
                            RankedTensorType::get(typeOf(index).getShape(), typeOf(v).getElementType()),
                            v, index, b.getI64IntegerAttr(dim));
}

/// sort / sort.stable (values, indices), argsort (indices), msort (values
/// along dim 0): always stable, which sort with stable=False may be too.
LegalizeFn sortLike(bool values, bool indices, std::optional<int64_t> fixedDim) {
  return [=](OperatorArgs &args, OpBuilder &b) -> Results {
    Location loc = args.getOp().getLoc();
    // msort has no dim argument: its line (checked as any) is dim 0's.
    FailureOr<Line> line = lineArgs(args, b, fixedDim.value_or(-1));
    if (failed(line))
      return failure();
    int64_t dim = line->dim;
    Value index = sortPermutation(b, loc, line->x, dim, args.getBool("descending").value_or(false));
    SmallVector<Value> results;
    if (values)
      results.push_back(makeReshape(b, loc, gatherAt(b, loc, line->x, index, dim),
                                    args.resultType(0).getShape()));
    if (indices)
      results.push_back(makeReshape(b, loc, index, args.resultType(results.size()).getShape()));
    return results;
  };
}

/// Positions [from, to) of the stable sort of the line (values, indices),
/// shaped as the operator's two results.
Results sortedRange(OperatorArgs &args, OpBuilder &b, const Line &line, int64_t from, int64_t to,
                    bool descending) {
  Location loc = args.getOp().getLoc();
  Value index = sortPermutation(b, loc, line.x, line.dim, descending);
  // [from, to) lies within the dim (kSmallest checks it): a slice of static
  // size, also of a symbolic dim.
  RankedTensorType it = typeOf(index);
  index = b.create<SliceOp>(loc,
                            RankedTensorType::get(withDimSize(it.getShape(), line.dim, to - from),
                                                  it.getElementType()),
                            index, b.getI64IntegerAttr(line.dim), b.getI64IntegerAttr(from),
                            b.getI64IntegerAttr(to), b.getI64IntegerAttr(1));
  Value v = gatherAt(b, loc, line.x, index, line.dim);
  return SmallVector<Value>{makeReshape(b, loc, v, args.resultType(0).getShape()),
                            makeReshape(b, loc, index, args.resultType(1).getShape())};
}

/// topk(self, k, dim, largest, sorted): the first k of the stable sort
/// (descending when largest), always sorted; kthvalue(self, k, dim,
/// keepdim): the k-th smallest (1-based), NaN last.
LegalizeFn kSmallest(bool topk) {
  return [topk](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Line> line = lineArgs(args, b, -1);
    if (failed(line))
      return failure();
    int64_t k = args.getInt("k").value_or(1), n = typeOf(line->x).getShape()[line->dim];
    bool symbolic = ShapedType::isDynamic(n);
    if (k < (topk ? 0 : 1) || (!symbolic && k > n))
      return operatorError(args) << "k " << k << " out of range for a dim of " << n;
    if (symbolic) {
      // PyTorch raises for k past the size read at run time; so does the call.
      Location loc = args.getOp().getLoc();
      Type i64 = b.getI64Type();
      Value size = b.create<DimSizeOp>(loc, RankedTensorType::get({}, i64), line->x,
                                       b.getI64IntegerAttr(line->dim));
      Value enough = makeCompare(b, loc, "ge", size, makeScalar(b, loc, i64, (double)k));
      std::string message = (operatorName(args) + ": k " + std::to_string(k) +
                             " out of range for dim " + std::to_string(line->dim))
                                .str();
      line->x = b.create<CheckOp>(loc, line->x.getType(), enough, line->x,
                                  b.getStringAttr(message));
    }
    if (topk)
      return sortedRange(args, b, *line, 0, k, args.getBool("largest").value_or(true));
    return sortedRange(args, b, *line, k - 1, k, false);
  };
}

/// median / nanmedian, over every element or along dim (with indices): the
/// lower median, position (c - 1) / 2 of the ascending sort, c the number of
/// elements (median: any NaN makes it NaN, at the first NaN) or of non-NaN
/// ones (nanmedian: NaN, at the first NaN, where there are none).
LegalizeFn median(bool ignoreNan) {
  return [ignoreNan](OperatorArgs &args, OpBuilder &b) -> Results {
    Location loc = args.getOp().getLoc();
    bool whole = !args.has("dim");
    FailureOr<Value> self = requiredTensor(args, "self");
    if (failed(self))
      return failure();
    Value source = *self;
    if (whole && typeOf(source).hasStaticShape())
      source = makeReshape(b, loc, source, {typeOf(source).getNumElements()});
    if (typeOf(source).hasStaticShape() && typeOf(source).getNumElements() == 0)
      return operatorError(args) << "of no elements is not defined";
    // Read the reshaped source as self.
    FailureOr<Line> line = [&]() -> FailureOr<Line> {
      if (whole) {
        RankedTensorType t = typeOf(source);
        if (!isa<FloatType>(t.getElementType()) || !t.hasStaticShape() ||
            t.getShape()[0] > kMaxPairwise)
          return operatorError(args) << "needs a floating-point tensor of static shape and at most "
                                     << kMaxPairwise << " elements";
        return Line{source, 0, false};
      }
      return lineArgs(args, b, 0);
    }();
    if (failed(line))
      return failure();
    Value x = line->x;
    int64_t dim = line->dim;
    Value index = sortPermutation(b, loc, x, dim, false);
    Value nan = isNan(b, loc, x);
    Value nanCount = makeReduce<ReduceSumOp>(b, loc, makeCast(b, loc, nan, b.getF32Type()), {dim}, true);
    Type f32 = b.getF32Type();
    int64_t n = typeOf(x).getShape()[dim];
    // The line's length as f32 (exact: n <= kMaxPairwise), read at run time
    // where symbolic.
    auto length = [&]() -> Value {
      if (!ShapedType::isDynamic(n))
        return makeScalar(b, loc, f32, (double)n);
      Value size = b.create<DimSizeOp>(loc, RankedTensorType::get({}, b.getI64Type()), x,
                                       b.getI64IntegerAttr(dim));
      return makeCast(b, loc, size, f32);
    };
    // The position in the sorted line, as f32.
    Value position;
    Value total = length();
    Value counted = ignoreNan ? makeBinary<SubOp>(b, loc, total, nanCount) : total;
    Value lessOne = makeBinary<SubOp>(b, loc, counted, makeScalar(b, loc, f32, 1.0));
    Value half = makeBinary<DivOp>(b, loc, lessOne, makeScalar(b, loc, f32, 2.0));
    position = b.create<FloorOp>(loc, half);
    // No numbers to take a median of (median: any NaN): the first NaN, which
    // sorts at position n - nanCount.
    Value noMedian = ignoreNan ? makeCompare(b, loc, "eq", counted, makeScalar(b, loc, f32, 0.0))
                               : makeCompare(b, loc, "gt", nanCount, makeScalar(b, loc, f32, 0.0));
    Value lineLength = length();
    Value firstNan = makeBinary<SubOp>(b, loc, lineLength, nanCount);
    position = b.create<SelectOp>(loc, typeOf(firstNan), noMedian, firstNan, position);
    Value at = makeCast(b, loc, position, b.getI64Type());
    Value picked = gatherAt(b, loc, index, at, dim);
    Value v = gatherAt(b, loc, x, picked, dim);
    SmallVector<Value> results{makeReshape(b, loc, v, args.resultType(0).getShape())};
    if (args.getOp().getNumResults() == 2)
      results.push_back(makeReshape(b, loc, picked, args.resultType(1).getShape()));
    return results;
  };
}
/// mode(self, dim, keepdim) = (values, indices): the value that occurs most
/// often along dim (each element's count of equal elements, pairwise), the
/// smallest of those tied, as ATen's kernel keeps the first of the longest
/// runs in the sorted line; its index the last position holding it (ATen's
/// unstable sort leaves which one unspecified where the value repeats). A
/// line with a NaN, where ATen's sort order is unspecified, is a run-time
/// error.
Results legalizeMode(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Line> line = lineArgs(args, b, -1);
  if (failed(line))
    return failure();
  Value x = line->x;
  int64_t dim = line->dim;
  if (typeOf(x).getShape()[dim] == 0)
    return operatorError(args) << "of an empty dim is not defined";
  Value number = makeCompare(b, loc, "eq", x, x);
  std::string message =
      (operatorName(args) + ": a NaN in the line, whose mode PyTorch leaves unspecified").str();
  x = b.create<CheckOp>(loc, x.getType(), number, x, b.getStringAttr(message));
  Pairwise p = pairwise(b, loc, x, dim);
  Type f32 = b.getF32Type();
  Value equal = makeCompare(b, loc, "eq", p.xj, p.xi);
  Value count = overJ<ReduceSumOp>(b, loc, makeCast(b, loc, equal, f32), p);
  Value most = makeReduce<ReduceMaxOp>(b, loc, count, {dim}, true);
  Value candidate = makeCompare(b, loc, "eq", count, most);
  const double inf = std::numeric_limits<double>::infinity();
  Value negated = b.create<NegOp>(loc, x);
  Value largestNegated =
      makeReduce<ReduceMaxOp>(b, loc, where(b, loc, candidate, negated, -inf), {dim}, true);
  Value value = b.create<NegOp>(loc, largestNegated);
  Value at = makeCompare(b, loc, "eq", x, value);
  Value length = typeOf(x).isDynamicDim(dim) ? dimIndex(b, loc, x, dim) : Value();
  Value positions = makeIotaAt(b, loc, typeOf(x).getShape()[dim], f32, typeOf(x).getRank(), dim,
                               length);
  Value last = makeReduce<ReduceMaxOp>(b, loc, where(b, loc, at, positions, -1.0), {dim}, true);
  Value index = makeCast(b, loc, last, b.getI64Type());
  return SmallVector<Value>{makeReshape(b, loc, value, args.resultType(0).getShape()),
                            makeReshape(b, loc, index, args.resultType(1).getShape())};
}

/// bucketize(self, boundaries, out_int32, right) and searchsorted(
/// sorted_sequence, self, out_int32, right, side, sorter): for each value,
/// the number of sorted entries b with !(b >= v) (!(b > v) for right), which
/// is the binary search's insertion point, NaN values going last as in
/// PyTorch's. A sequence of rank > 1 is searched row by row.
LegalizeFn insertionPoints(bool bucketize) {
  return [bucketize](OperatorArgs &args, OpBuilder &b) -> Results {
    Location loc = args.getOp().getLoc();
    FailureOr<Value> seqArg = requiredTensor(args, bucketize ? "boundaries" : "sorted_sequence");
    if (failed(seqArg))
      return failure();
    Value seq = *seqArg;
    Value values = args.tensor("self");
    if (!values) {
      std::optional<double> scalar = args.getFloat("self");
      if (!scalar)
        return operatorError(args) << "needs values to search";
      values = makeScalar(b, loc, typeOf(seq).getElementType(), *scalar);
    }
    RankedTensorType st = typeOf(seq), vt = typeOf(values);
    if (!st.hasStaticShape() || !vt.hasStaticShape() || st.getRank() < 1 ||
        (st.getRank() > 1 && st.getRank() != vt.getRank()) ||
        st.getShape().back() > kMaxPairwise)
      return operatorError(args) << "needs a static 1-D sequence (or rows matching the values) of at most "
                                 << kMaxPairwise << " entries";
    if (Value sorter = args.tensor("sorter"))
      seq = gatherAt(b, loc, seq, sorter, st.getRank() - 1);
    Type common = isa<FloatType>(st.getElementType()) ? st.getElementType() : vt.getElementType();
    if (!isa<FloatType>(common))
      common = b.getF64Type();
    seq = makeCast(b, loc, seq, common);
    values = makeCast(b, loc, values, common);
    auto side = dyn_cast_or_null<StringAttr>(args.getOp().getArgs().get("side"));
    bool right = args.getBool("right").value_or(false) || (side && side.getValue() == "right");
    // values [..., n, 1] against entries [..., 1, m] (a 1-D sequence: [m]).
    SmallVector<int64_t> vShape(vt.getShape());
    vShape.push_back(1);
    Value v = makeReshape(b, loc, values, vShape);
    Value e = seq;
    if (st.getRank() > 1) {
      SmallVector<int64_t> eShape(st.getShape());
      eShape.insert(eShape.end() - 1, 1);
      e = makeReshape(b, loc, seq, eShape);
    }
    Value notBefore = makeCompare(b, loc, right ? "gt" : "ge", e, v);
    Value before = makeCompare(b, loc, "eq", notBefore, makeScalar(b, loc, b.getI1Type(), 0.0));
    int64_t last = typeOf(before).getRank() - 1;
    Value count = makeReduce<ReduceSumOp>(b, loc, makeCast(b, loc, before, b.getF32Type()), {last}, false);
    return SmallVector<Value>{makeReshape(b, loc, makeCast(b, loc, count, args.resultType().getElementType()),
                                          args.resultType().getShape())};
  };
}
} // namespace

void tcc::graph::populateOrderingLegalizers(LegalizerTable &t) {
  t["aten.bucketize.Tensor"] = insertionPoints(true);
  t["aten.bucketize.Scalar"] = insertionPoints(true);
  t["aten.searchsorted.Tensor"] = insertionPoints(false);
  t["aten.searchsorted.Scalar"] = insertionPoints(false);
  t["aten.cumprod.default"] = scan(Scan::Prod);
  t["aten.cummax.default"] = scan(Scan::Max);
  t["aten.cummin.default"] = scan(Scan::Min);
  t["aten.logcumsumexp.default"] = scan(Scan::LogSumExp);
  t["aten.sort.default"] = sortLike(true, true, std::nullopt);
  t["aten.sort.stable"] = sortLike(true, true, std::nullopt);
  t["aten.argsort.default"] = sortLike(false, true, std::nullopt);
  t["aten.argsort.stable"] = sortLike(false, true, std::nullopt);
  t["aten.msort.default"] = sortLike(true, false, 0);
  t["aten.topk.default"] = kSmallest(true);
  t["aten.kthvalue.default"] = kSmallest(false);
  t["aten.median.default"] = median(false);
  t["aten.mode.default"] = legalizeMode;
  t["aten.median.dim"] = median(false);
  t["aten.nanmedian.default"] = median(true);
  t["aten.nanmedian.dim"] = median(true);
}
