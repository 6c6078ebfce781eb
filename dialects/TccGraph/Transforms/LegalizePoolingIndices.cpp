//===- LegalizePoolingIndices.cpp - max pooling's indices -----------------===//
//
// The indices result of max_pool{1,2,3}d_with_indices and
// adaptive_max_pool{1,2,3}d (the values keep their pooling lowering). The
// window elements are picked with one take by a table of input positions
// computed from iotas (per output position and window offset, in PyTorch's
// scan order, -1 outside the input: padding, ceil_mode's last windows, an
// adaptive window shorter than the longest). The index is the one PyTorch's kernels
// (CPU and CUDA alike) keep with `if (val > maxval || isnan(val))` from
// maxval = -inf: the last NaN of the window if it has one, else the first
// maximum (an all -inf window gives its first position); it counts in the
// flattened spatial dims of one plane.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

#include <limits>

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// Where the windows read along one spatial dim: `position` and `inside`
/// (i1) broadcast over [outs.., windows..] (rank 2 * spatial), the output
/// index at dim d and the window offset at dim spatial + d.
struct Along {
  Value position;
  Value inside;
};

/// The spatial sizes of the input and of the result: static, or kDynamic
/// with the size read at run time (an i64 scalar tensor for the input's, an
/// index value for the result's, whose product `outCount` is).
struct Extent {
  SmallVector<int64_t> ins, outs;
  SmallVector<Value> inSizes, inLengths, outSizes;
  Value outCount;
};

/// The flattened input positions [prod(outs), prod(windows)] of every output
/// position's window, -1 outside the input (row-major in both), computed
/// from iotas (a constant table would sit in host memory on the CUDA path).
Value positionTable(OpBuilder &b, Location loc, const Extent &e, ArrayRef<Along> along,
                    int64_t numOut, int64_t numWindow, Value windowSize) {
  Type i64 = b.getI64Type();
  Value flat = along[0].position, inside = along[0].inside;
  for (size_t d = 1; d < along.size(); ++d) {
    Value scaled = makeBinary<MulOp>(b, loc, flat, e.inSizes[d]);
    flat = makeBinary<AddOp>(b, loc, scaled, along[d].position);
    inside = makeBinary<BitwiseAndOp>(b, loc, inside, along[d].inside);
  }
  Value outside = makeScalar(b, loc, i64, -1);
  Value table = b.create<SelectOp>(loc, typeOf(flat), inside, flat, outside);
  return makeReshape(b, loc, table, {numOut, numWindow}, {e.outCount, windowSize});
}

/// Output index o (at dim `d`) and window offset k (at dim `spatial + d`)
/// as i64 iotas of rank 2 * spatial (the lengths: symbolic `outs`, `window`).
std::pair<Value, Value> outAndOffset(OpBuilder &b, Location loc, int64_t spatial, int64_t d,
                                     int64_t outs, Value outLength, int64_t window,
                                     Value windowLength) {
  Type i64 = b.getI64Type();
  Value o = makeIotaAt(b, loc, outs, i64, 2 * spatial, d, outLength);
  Value k = makeIotaAt(b, loc, window, i64, 2 * spatial, spatial + d, windowLength);
  return {o, k};
}

/// `lo <= v < hi` (i64 scalars).
Value within(OpBuilder &b, Location loc, Value v, Value lo, Value hi) {
  Value above = makeCompare(b, loc, "ge", v, lo);
  Value below = makeCompare(b, loc, "lt", v, hi);
  return makeBinary<BitwiseAndOp>(b, loc, above, below);
}

/// PyTorch's max pooling index of each window of `x` ([lead.., spatial..])
/// given its position table, shaped `resultType` (i64).
/// `values` is the pooled values result, of the indices' shape.
Value windowArgmax(OpBuilder &b, Location loc, Value x, int64_t spatial, Value positions,
                   int64_t numOut, int64_t numWindow, Value windowSize, Value values) {
  RankedTensorType xt = typeOf(x), resultType = typeOf(values);
  Type elt = xt.getElementType();
  Type f32 = b.getF32Type(), i64 = b.getI64Type();
  auto product = [](ArrayRef<int64_t> sizes) -> int64_t {
    if (llvm::any_of(sizes, ShapedType::isDynamic))
      return ShapedType::kDynamic;
    return ShapedType::getNumElements(sizes);
  };
  int64_t leadDims = xt.getRank() - spatial;
  int64_t lead = product(xt.getShape().drop_back(spatial));
  int64_t plane = product(xt.getShape().take_back(spatial));
  Value leadSize, planeSize, outSize;
  if (!xt.hasStaticShape()) {
    leadSize = dimProduct(b, loc, x, 0, leadDims);
    planeSize = dimProduct(b, loc, x, leadDims, xt.getRank());
    outSize = dimIndex(b, loc, positions, 0);
  }
  Value zero = makeScalar(b, loc, i64, 0);
  Value inside = makeCompare(b, loc, "ge", positions, zero);
  Value clamped = makeBinary<MaximumOp>(b, loc, positions, zero);
  // [lead, out, window]: every window's elements.
  Value flat = makeReshape(b, loc, x, {lead, plane}, {leadSize, planeSize});
  Value windows = b.create<TakeOp>(loc, RankedTensorType::get({lead, numOut, numWindow}, elt),
                                   flat, clamped, b.getI64IntegerAttr(1));
  auto full = RankedTensorType::get({lead, numOut, numWindow}, b.getI1Type());
  Value isNaN = makeCompare(b, loc, "ne", windows, windows);
  Value nanInside = b.create<BitwiseAndOp>(loc, full, isNaN, inside);
  // The largest non-NaN value inside the window.
  Value negInf = makeScalar(b, loc, elt, -std::numeric_limits<double>::infinity());
  Value notNaN = b.create<SelectOp>(loc, typeOf(windows), isNaN, negInf, windows);
  Value candidates = b.create<SelectOp>(loc, typeOf(windows), inside, notNaN, negInf);
  Value largest = makeReduce<ReduceMaxOp>(b, loc, candidates, {2}, true);
  Value isLargest = makeCompare(b, loc, "eq", windows, largest);
  Value largestInside = b.create<BitwiseAndOp>(loc, full, isLargest, inside);
  // Offsets as f32 (exact: windows are small): the first maximum is
  // window - max(window - k), the last NaN max(k + 1) - 1.
  Value offsets = makeIotaAt(b, loc, numWindow, f32, 3, 2, windowSize);
  Value size = ShapedType::isDynamic(numWindow)
                   ? makeCast(b, loc, sizeTensor(b, loc, positions, 1), f32)
                   : makeScalar(b, loc, f32, static_cast<double>(numWindow));
  Value zeroF = makeScalar(b, loc, f32, 0.0);
  Value oneF = makeScalar(b, loc, f32, 1.0);
  auto fullF = RankedTensorType::get({lead, numOut, numWindow}, f32);
  Value fromEnd = makeBinary<SubOp>(b, loc, size, offsets);
  Value firstScores = b.create<SelectOp>(loc, fullF, largestInside, fromEnd, zeroF);
  Value firstScore = makeReduce<ReduceMaxOp>(b, loc, firstScores, {2}, true);
  Value first = makeBinary<SubOp>(b, loc, size, firstScore);
  Value plusOne = makeBinary<AddOp>(b, loc, offsets, oneF);
  Value nanScores = b.create<SelectOp>(loc, fullF, nanInside, plusOne, zeroF);
  Value nanScore = makeReduce<ReduceMaxOp>(b, loc, nanScores, {2}, true);
  Value hasNaN = makeCompare(b, loc, "gt", nanScore, zeroF);
  Value lastNaN = makeBinary<SubOp>(b, loc, nanScore, oneF);
  Value chosen = b.create<SelectOp>(loc, typeOf(first), hasNaN, lastNaN, first);
  // The chosen offset's input position.
  Value chosenIndex = makeCast(b, loc, chosen, i64);
  auto leadTable = RankedTensorType::get({lead, numOut, numWindow}, i64);
  SmallVector<Value> tableSizes;
  if (ShapedType::isDynamic(lead))
    tableSizes.push_back(leadSize);
  if (ShapedType::isDynamic(numOut))
    tableSizes.push_back(outSize);
  if (ShapedType::isDynamic(numWindow))
    tableSizes.push_back(windowSize);
  Value everyTable = b.create<BroadcastOp>(loc, leadTable, clamped, tableSizes);
  Value index = b.create<GatherOp>(loc, RankedTensorType::get({lead, numOut, 1}, i64),
                                   everyTable, chosenIndex, b.getI64IntegerAttr(2));
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < resultType.getRank(); ++d)
    sizes.push_back(resultType.isDynamicDim(d) ? dimIndex(b, loc, values, d) : Value());
  return makeReshape(b, loc, index, resultType.getShape(), sizes);
}

/// The spatial sizes of `x`'s trailing `spatial` dims and of the values
/// result's (the indices' shape), symbolic ones read at run time; symbolic
/// result sizes only where `symbolicOuts` (the sliding windows), else an
/// error.
FailureOr<Extent> spatialExtent(OperatorArgs &args, OpBuilder &b, Value x, Value values,
                                int64_t spatial, bool symbolicOuts) {
  Location loc = args.getOp().getLoc();
  ArrayRef<int64_t> xs = typeOf(x).getShape();
  ArrayRef<int64_t> rs = typeOf(values).getShape();
  if (static_cast<int64_t>(xs.size()) < spatial + 1 ||
      static_cast<int64_t>(rs.size()) < spatial + 1)
    return operatorError(args) << "expects " << spatial << " spatial dims after the channels";
  if (!symbolicOuts && ShapedType::isDynamicShape(rs.take_back(spatial)))
    return operatorError(args) << "indices over symbolic output sizes are not supported yet";
  Extent e;
  e.ins.assign(xs.end() - spatial, xs.end());
  e.outs.assign(rs.end() - spatial, rs.end());
  int64_t xLead = xs.size() - spatial, rLead = rs.size() - spatial;
  for (int64_t d = 0; d < spatial; ++d) {
    e.inSizes.push_back(sizeTensor(b, loc, x, xLead + d));
    e.inLengths.push_back(ShapedType::isDynamic(e.ins[d]) ? dimIndex(b, loc, x, xLead + d)
                                                          : Value());
    e.outSizes.push_back(ShapedType::isDynamic(e.outs[d]) ? dimIndex(b, loc, values, rLead + d)
                                                          : Value());
  }
  if (ShapedType::isDynamicShape(e.outs))
    e.outCount = dimProduct(b, loc, values, rLead, rs.size());
  return e;
}

/// A pooling's windows: their position table [outputs, window], the number
/// of outputs and the window's size.
struct Windows {
  Value table;
  int64_t numOut;
  int64_t numWindow;
  Value windowSize; // where numWindow is symbolic
};
using WindowsFn = std::function<Windows(OperatorArgs &, OpBuilder &, const Extent &)>;

/// The values from `values` (the pooling legalizer); where result #1 is
/// read, the indices in the windows `windowsOf` gives (over symbolic output
/// sizes where `symbolicOuts`).
LegalizeFn withIndices(int64_t spatial, LegalizeFn values, WindowsFn windowsOf,
                       bool symbolicOuts) {
  return [spatial, values, windowsOf, symbolicOuts](OperatorArgs &args,
                                                     OpBuilder &b) -> Results {
    Results results = values(args, b);
    if (failed(results) || args.getOp()->getResult(1).use_empty())
      return results;
    Value x = args.tensor("self");
    if (!x)
      return failure();
    Value pooled = (*results)[0];
    FailureOr<Extent> e = spatialExtent(args, b, x, pooled, spatial, symbolicOuts);
    if (failed(e))
      return failure();
    Windows w = windowsOf(args, b, *e);
    Value index = windowArgmax(b, args.getOp().getLoc(), x, spatial, w.table, w.numOut,
                               w.numWindow, w.windowSize, pooled);
    (*results)[1] = makeCast(b, args.getOp().getLoc(), index,
                             args.resultType(1).getElementType());
    return results;
  };
}

/// max_pool{spatial}d_with_indices: the windows of kernel_size, stride,
/// padding and dilation.
Windows slidingWindows(OperatorArgs &args, OpBuilder &b, const Extent &e) {
  int64_t spatial = e.ins.size();
  SmallVector<int64_t> kernel = perDim(args.getInts("kernel_size"), spatial, 1);
  SmallVector<int64_t> stride = perDim(args.getInts("stride"), spatial, 0);
  if (stride[0] == 0)
    stride = kernel;
  SmallVector<int64_t> padding = perDim(args.getInts("padding"), spatial, 0);
  SmallVector<int64_t> dilation = perDim(args.getInts("dilation"), spatial, 1);
  Location loc = args.getOp().getLoc();
  Type i64 = b.getI64Type();
  SmallVector<Along> along;
  int64_t numOut = 1, numWindow = 1;
  for (int64_t d = 0; d < spatial; ++d) {
    // o * stride - padding + k * dilation.
    auto [o, k] = outAndOffset(b, loc, spatial, d, e.outs[d], e.outSizes[d], kernel[d], Value());
    Value start = makeBinary<MulOp>(b, loc, o, makeScalar(b, loc, i64, stride[d]));
    start = makeBinary<SubOp>(b, loc, start, makeScalar(b, loc, i64, padding[d]));
    Value step = makeBinary<MulOp>(b, loc, k, makeScalar(b, loc, i64, dilation[d]));
    Value position = makeBinary<AddOp>(b, loc, start, step);
    Value zero = makeScalar(b, loc, i64, 0);
    Value inside = within(b, loc, position, zero, e.inSizes[d]);
    along.push_back({position, inside});
    numOut = ShapedType::isDynamic(e.outs[d]) || ShapedType::isDynamic(numOut)
                 ? ShapedType::kDynamic
                 : numOut * e.outs[d];
    numWindow *= kernel[d];
  }
  return {positionTable(b, loc, e, along, numOut, numWindow, Value()), numOut, numWindow,
          Value()};
}

/// adaptive_max_pool{spatial}d: output o's window along a dim of n inputs
/// and m outputs is [floor(o n / m), ceil((o + 1) n / m)). Over a symbolic
/// n the window reads n positions from its start, those past its end
/// outside (the longest window depends on n).
Windows adaptiveWindows(OperatorArgs &args, OpBuilder &b, const Extent &e) {
  ArrayRef<int64_t> ins = e.ins, outs = e.outs;
  int64_t spatial = ins.size();
  Location loc = args.getOp().getLoc();
  Type i64 = b.getI64Type(), f64 = b.getF64Type();
  SmallVector<Along> along;
  int64_t numOut = 1, numWindow = 1;
  SmallVector<int64_t> longests;
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t n = ins[d], m = outs[d], longest = 0;
    if (ShapedType::isDynamic(n)) {
      longest = ShapedType::kDynamic;
    } else {
      for (int64_t o = 0; o < m; ++o)
        longest = std::max(longest, ((o + 1) * n + m - 1) / m - o * n / m);
    }
    longests.push_back(longest);
    // start = floor(o n / m) + k, inside below ceil((o + 1) n / m) (f64:
    // exact for these small integers).
    auto [o, k] = outAndOffset(b, loc, spatial, d, m, Value(), longest,
                               ShapedType::isDynamic(n) ? e.inLengths[d] : Value());
    Value nF = ShapedType::isDynamic(n) ? makeCast(b, loc, e.inSizes[d], f64)
                                        : makeScalar(b, loc, f64, static_cast<double>(n));
    Value of = makeCast(b, loc, o, f64);
    Value lo = makeBinary<MulOp>(b, loc, of, nF);
    lo = makeBinary<DivOp>(b, loc, lo, makeScalar(b, loc, f64, static_cast<double>(m)));
    Value start = makeCast(b, loc, b.create<FloorOp>(loc, lo), i64);
    Value next = makeBinary<AddOp>(b, loc, of, makeScalar(b, loc, f64, 1.0));
    Value hi = makeBinary<MulOp>(b, loc, next, nF);
    hi = makeBinary<DivOp>(b, loc, hi, makeScalar(b, loc, f64, static_cast<double>(m)));
    Value end = makeCast(b, loc, b.create<CeilOp>(loc, hi), i64);
    Value position = makeBinary<AddOp>(b, loc, start, k);
    Value zero = makeScalar(b, loc, i64, 0);
    Value inside = within(b, loc, position, zero, end);
    along.push_back({position, inside});
    numOut *= m;
    numWindow = ShapedType::isDynamic(numWindow) || ShapedType::isDynamic(longest)
                    ? ShapedType::kDynamic
                    : numWindow * longest;
  }
  Value windowSize;
  if (ShapedType::isDynamic(numWindow)) {
    for (auto [d, longest] : llvm::enumerate(longests)) {
      Value length = ShapedType::isDynamic(longest)
                         ? e.inLengths[d]
                         : b.create<arith::ConstantIndexOp>(loc, longest).getResult();
      windowSize = windowSize ? b.create<arith::MulIOp>(loc, windowSize, length).getResult()
                              : length;
    }
  }
  return {positionTable(b, loc, e, along, numOut, numWindow, windowSize), numOut, numWindow,
          windowSize};
}
} // namespace

void tcc::graph::populatePoolingIndexLegalizers(LegalizerTable &t) {
  // After the pooling legalizers, whose values these keep.
  for (int64_t spatial : {1, 2, 3}) {
    std::string d = std::to_string(spatial) + "d";
    t["aten.max_pool" + d + "_with_indices.default"] =
        withIndices(spatial, t.lookup("aten.max_pool" + d + ".default"), slidingWindows,
                    /*symbolicOuts=*/true);
    std::string adaptive = "aten.adaptive_max_pool" + d + ".default";
    t[adaptive] = withIndices(spatial, t.lookup(adaptive), adaptiveWindows,
                              /*symbolicOuts=*/false);
  }
}
