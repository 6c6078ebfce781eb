//===- LegalizeSegmentReduce.cpp - segment_reduce by lengths or offsets ---===//
//
// segment_reduce(data, reduce, lengths | offsets, axis=0, initial): the
// data's rows along axis 0 fall into consecutive segments whose bounds are
// data (the lengths' running sum, or the offsets). Each segment s covers the
// rows n with start[s] <= n < end[s]; a [segments, rows] membership mask
// selects them and one reduction over the rows gives every segment, as
// ATen's CPU kernel computes it:
//
//   sum  = initial (0) + the rows' sum       prod = initial (1) * their product
//   max  = max(initial (-inf), the rows)     min  = min(initial (+inf), the rows)
//   mean = (initial (0) + sum) / length, or initial (NaN without one) when empty
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

enum class Reduction { Sum, Prod, Max, Min, Mean };

Results legalizeSegmentReduce(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> data = requiredTensor(args, "data");
  if (failed(data))
    return failure();
  auto name = dyn_cast_or_null<StringAttr>(args.getOp().getArgs().get("reduce"));
  std::optional<Reduction> how =
      llvm::StringSwitch<std::optional<Reduction>>(name ? name.getValue() : "")
          .Case("sum", Reduction::Sum)
          .Case("prod", Reduction::Prod)
          .Case("max", Reduction::Max)
          .Case("min", Reduction::Min)
          .Case("mean", Reduction::Mean)
          .Default(std::nullopt);
  if (!how)
    return operatorError(args) << "unknown reduce '" << (name ? name.getValue() : "") << "'";
  Value lengths = args.tensor("lengths"), offsets = args.tensor("offsets");
  RankedTensorType dt = typeOf(*data), type = args.resultType();
  Type elt = dt.getElementType();
  if (!isa<FloatType>(elt))
    return operatorError(args) << "needs floating-point data, not " << elt;
  if (args.getInt("axis").value_or(0) != 0 || dt.getRank() < 1)
    return operatorError(args) << "only axis 0 is supported";
  Value bounds = lengths ? lengths : offsets;
  if (!bounds || typeOf(bounds).getRank() != 1 || !dt.hasStaticShape() ||
      !typeOf(bounds).hasStaticShape() || !type.hasStaticShape())
    return operatorError(args) << "needs 1-D lengths or offsets and static shapes";
  int64_t segments = typeOf(bounds).getShape()[0] - (lengths ? 0 : 1);
  int64_t rows = dt.getShape()[0];
  int64_t rest = dt.getNumElements() / std::max<int64_t>(rows, 1);
  if (segments < 0 || type.getShape()[0] != segments)
    return operatorError(args) << "result of type " << type << " for " << segments << " segments";
  if (type.getNumElements() == 0)
    return SmallVector<Value>{makeSplat(b, loc, type, 0.0)};

  // Each segment's [start, end) and length, as [segments, 1] i64.
  Type i64 = b.getI64Type();
  Value bound = makeCast(b, loc, bounds, i64);
  Value start, end, length;
  if (lengths) {
    end = b.create<CumsumOp>(loc, typeOf(bound), bound, b.getI64IntegerAttr(0));
    start = makeBinary<SubOp>(b, loc, end, bound);
    length = bound;
  } else {
    start = makeSlice(b, loc, bound, 0, 0, segments, 1);
    end = makeSlice(b, loc, bound, 0, 1, segments + 1, 1);
    length = makeBinary<SubOp>(b, loc, end, start);
  }
  start = makeReshape(b, loc, start, {segments, 1});
  end = makeReshape(b, loc, end, {segments, 1});
  length = makeReshape(b, loc, length, {segments, 1});
  // member[s, n, 0]: row n in segment s.
  Value n = makeIotaAt(b, loc, rows, i64, 2, 1);
  Value fromStart = makeCompare(b, loc, "ge", n, start);
  Value beforeEnd = makeCompare(b, loc, "lt", n, end);
  Value member = makeBinary<BitwiseAndOp>(b, loc, fromStart, beforeEnd);
  member = makeReshape(b, loc, member, {segments, rows, 1});
  Value x = makeReshape(b, loc, *data, {1, rows, rest});
  auto masked = [&](double otherwise) -> Value {
    return b.create<SelectOp>(loc, RankedTensorType::get({segments, rows, rest}, elt), member, x,
                              makeScalar(b, loc, elt, otherwise));
  };
  std::optional<double> initial = args.getFloat("initial");
  const double inf = std::numeric_limits<double>::infinity();
  SmallVector<int64_t> rowDim{1};
  Value out;
  switch (*how) {
  case Reduction::Sum:
  case Reduction::Mean: {
    out = makeReduce<ReduceSumOp>(b, loc, masked(0.0), rowDim, false);
    if (initial)
      out = makeBinary<AddOp>(b, loc, makeScalar(b, loc, elt, *initial), out);
    break;
  }
  case Reduction::Prod:
    out = makeReduce<ReduceProdOp>(b, loc, masked(1.0), rowDim, false);
    if (initial)
      out = makeBinary<MulOp>(b, loc, makeScalar(b, loc, elt, *initial), out);
    break;
  case Reduction::Max:
    out = makeReduce<ReduceMaxOp>(b, loc, masked(-inf), rowDim, false);
    if (initial)
      out = makeBinary<MaximumOp>(b, loc, out, makeScalar(b, loc, elt, *initial));
    break;
  case Reduction::Min: {
    Value negated = b.create<NegOp>(loc, masked(inf));
    Value most = makeReduce<ReduceMaxOp>(b, loc, negated, rowDim, false);
    out = b.create<NegOp>(loc, most);
    if (initial)
      out = makeBinary<MinimumOp>(b, loc, out, makeScalar(b, loc, elt, *initial));
    break;
  }
  }
  if (*how == Reduction::Mean) {
    Value count = makeCast(b, loc, length, elt);
    Value mean = makeBinary<DivOp>(b, loc, out, count);
    Value empty = makeCompare(b, loc, "eq", length, makeScalar(b, loc, i64, 0.0));
    Value whenEmpty = makeScalar(b, loc, elt, initial ? *initial : std::nan(""));
    out = b.create<SelectOp>(loc, typeOf(mean), empty, whenEmpty, mean);
  }
  return SmallVector<Value>{makeReshape(b, loc, out, type.getShape())};
}
} // namespace

void tcc::graph::populateSegmentReduceLegalizers(LegalizerTable &t) {
  t["aten.segment_reduce.default"] = legalizeSegmentReduce;
}
