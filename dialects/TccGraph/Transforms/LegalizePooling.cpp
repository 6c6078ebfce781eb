//===- LegalizePooling.cpp - adaptive pooling, 3-D pooling ----------------===//
//
// Both are separable. Adaptive pooling from n to m along a dim takes output
// i's window [floor(i*n/m), ceil((i+1)*n/m)); the mean or max over a box of
// such windows is the mean or max along one dim after another. An evenly
// dividing dim is a reshape [.., m, n/m, ..] and one reduction; an uneven
// one is m slices, each reduced, concatenated; a symbolic one is m masked
// reductions of the whole dim (the bounds known only at run time),
// concatenated.
//
// A 3-D max or average pool is a 2-D pool over (H, W) with D folded into the
// channels, then a 2-D pool over (D, 1) with H*W folded into the width. For
// averages this holds with and without count_include_pad: the elements a
// window counts form a box, so its mean is the mean of its per-dim means.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include <limits>
#include <type_traits>

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// `x` pooled adaptively along `dim`, whose size n is symbolic, to `out`
/// entries: window i is [floor(i n / out), ceil((i + 1) n / out)), bounds
/// computed at run time from n (f64: exact for these integers). Each
/// window is a reduction of the whole dim with the elements outside it
/// replaced (0 for the sum, -inf for the max: a NaN or infinity outside
/// stays out), then the windows are concatenated. Averages of f16/bf16
/// sum in f32 and round once, as ATen's kernels do.
template <typename ReduceOp>
FailureOr<Value> adaptiveAlongSymbolic(OpBuilder &b, Location loc, Operation *op, Value x,
                                       int64_t dim, int64_t out) {
  constexpr bool isMax = std::is_same_v<ReduceOp, ReduceMaxOp>;
  RankedTensorType t = typeOf(x);
  Type elt = t.getElementType();
  if (!isa<FloatType>(elt))
    return op->emitError("adaptive pooling over a symbolic size expects a floating-point "
                         "tensor, got ")
           << elt;
  Type f64 = b.getF64Type(), i64 = b.getI64Type();
  Type work = isMax || elt.isF32() || elt.isF64() ? elt : b.getF32Type();
  Value xw = work == elt ? x : makeCast(b, loc, x, work);
  // The positions j along the dim, shaped to broadcast against x.
  auto scalarI64 = RankedTensorType::get({}, i64);
  Value n = b.create<DimSizeOp>(loc, scalarI64, x, b.getI64IntegerAttr(dim));
  Value length = dimIndex(b, loc, x, dim);
  Value j = b.create<IotaOp>(loc, RankedTensorType::get({ShapedType::kDynamic}, i64),
                             b.getF64FloatAttr(0), b.getF64FloatAttr(1), ValueRange{length});
  SmallVector<int64_t> along(t.getRank(), 1);
  along[dim] = ShapedType::kDynamic;
  j = makeReshape(b, loc, j, along);
  Value nf = makeCast(b, loc, n, f64);
  Value outF = makeScalar(b, loc, f64, static_cast<double>(out));
  Value fill = makeScalar(b, loc, work, isMax ? -std::numeric_limits<double>::infinity() : 0.0);
  SmallVector<Value> windows;
  for (int64_t i = 0; i < out; ++i) {
    // One op per statement: argument order is the compiler's (issue 17).
    Value iF = makeScalar(b, loc, f64, double(i));
    Value lo = makeBinary<MulOp>(b, loc, iF, nf);
    lo = makeBinary<DivOp>(b, loc, lo, outF);
    Value loFloor = b.create<FloorOp>(loc, typeOf(lo), lo);
    Value start = makeCast(b, loc, loFloor, i64);
    Value nextF = makeScalar(b, loc, f64, double(i + 1));
    Value hi = makeBinary<MulOp>(b, loc, nextF, nf);
    hi = makeBinary<DivOp>(b, loc, hi, outF);
    Value hiCeil = b.create<CeilOp>(loc, typeOf(hi), hi);
    Value end = makeCast(b, loc, hiCeil, i64);
    Value above = makeCompare(b, loc, "ge", j, start);
    Value below = makeCompare(b, loc, "lt", j, end);
    Value inside = makeBinary<BitwiseAndOp>(b, loc, above, below);
    Value kept = b.create<SelectOp>(loc, RankedTensorType::get(t.getShape(), work), inside, xw,
                                    fill);
    Value window;
    if constexpr (isMax) {
      window = makeReduce<ReduceMaxOp>(b, loc, kept, {dim}, true);
    } else {
      Value sum = makeReduce<ReduceSumOp>(b, loc, kept, {dim}, true);
      Value width = makeBinary<SubOp>(b, loc, end, start);
      Value count = makeCast(b, loc, width, work);
      window = makeBinary<DivOp>(b, loc, sum, count);
    }
    windows.push_back(work == elt ? window : makeCast(b, loc, window, elt));
  }
  return b
      .create<ConcatOp>(
          loc, RankedTensorType::get(withDimSize(t.getShape(), dim, out), elt), windows,
          b.getI64IntegerAttr(dim))
      .getResult();
}

/// `x` pooled adaptively along `dim` to `out` entries.
template <typename ReduceOp>
FailureOr<Value> adaptiveAlong(OpBuilder &b, Location loc, Operation *op, Value x, int64_t dim,
                               int64_t out) {
  RankedTensorType t = typeOf(x);
  int64_t in = t.getShape()[dim];
  if (ShapedType::isDynamic(in))
    return out > 0 ? adaptiveAlongSymbolic<ReduceOp>(b, loc, op, x, dim, out)
                   : FailureOr<Value>(op->emitError("adaptive pooling to ")
                                      << out << " entries");
  if (out <= 0 || in <= 0)
    return op->emitError("adaptive pooling from ") << in << " to " << out << " entries";
  if (in % out == 0) {
    SmallVector<int64_t> split = withDimSize(t.getShape(), dim, out);
    split.insert(split.begin() + dim + 1, in / out);
    return makeReduce<ReduceOp>(b, loc, makeReshape(b, loc, x, split), {dim + 1}, false);
  }
  SmallVector<Value> windows;
  for (int64_t i = 0; i < out; ++i) {
    int64_t start = i * in / out, end = ((i + 1) * in + out - 1) / out;
    windows.push_back(
        makeReduce<ReduceOp>(b, loc, makeSlice(b, loc, x, dim, start, end, 1), {dim}, true));
  }
  return b.create<ConcatOp>(
                 loc, RankedTensorType::get(withDimSize(t.getShape(), dim, out), t.getElementType()),
                 windows, b.getI64IntegerAttr(dim))
      .getResult();
}

template <typename ReduceOp> constexpr bool isAvg() {
  return std::is_same_v<ReduceOp, ReduceMeanOp>;
}

/// adaptive_{avg,max}_pool{1,2,3}d over the trailing `spatial` dims. The
/// max variants' indices result is not produced (an error if it is used).
/// f16/bf16 averages are taken in f32 and rounded once, as PyTorch's kernels
/// do: a mean per dim, each rounded, was an ulp off (the sweep's bf16 column).
template <typename ReduceOp>
Results legalizeAdaptivePool(OperatorArgs &args, OpBuilder &b, int64_t spatial) {
  Operation *op = args.getOp();
  Location loc = op->getLoc();
  Value x = args.tensor("self");
  std::optional<SmallVector<int64_t>> size = args.getInts("output_size");
  if (!x || !size || typeOf(x).getRank() < spatial + 1)
    return op->emitError("adaptive pooling expects a tensor with ")
           << spatial << " spatial dims and output_size";
  SmallVector<int64_t> out = perDim(size, spatial, 1);
  int64_t first = typeOf(x).getRank() - spatial;
  Type elt = typeOf(x).getElementType();
  bool widen = isAvg<ReduceOp>() && (elt.isBF16() || elt.isF16());
  if (widen)
    x = makeCast(b, loc, x, b.getF32Type());
  if (llvm::all_of(out, [](int64_t s) { return s == 1; })) { // global: one reduction
    SmallVector<int64_t> dims;
    for (int64_t d = first; d < first + spatial; ++d)
      dims.push_back(d);
    Value pooled = makeReduce<ReduceOp>(b, loc, x, dims, true);
    SmallVector<Value> results{widen ? makeCast(b, loc, pooled, elt) : pooled};
    results.resize(op->getNumResults(), nullptr);
    return results;
  }
  for (int64_t i = 0; i < spatial; ++i) {
    FailureOr<Value> pooled = adaptiveAlong<ReduceOp>(b, loc, op, x, first + i, out[i]);
    if (failed(pooled))
      return failure();
    x = *pooled;
  }
  SmallVector<Value> results{widen ? makeCast(b, loc, x, elt) : x};
  results.resize(op->getNumResults(), nullptr);
  return results;
}

/// max_pool3d / avg_pool3d over [N, C, D, H, W] (or [C, D, H, W]) as two
/// 2-D pools.
template <typename PoolOp>
Results legalizePool3d(OperatorArgs &args, OpBuilder &b, bool isAvg) {
  Operation *op = args.getOp();
  Location loc = op->getLoc();
  Value x = args.tensor("self");
  if (!x || (typeOf(x).getRank() != 5 && typeOf(x).getRank() != 4))
    return op->emitError("3-D pooling expects an NCDHW or CDHW tensor");
  SmallVector<int64_t> kernel = perDim(args.getInts("kernel_size"), 3, 1);
  SmallVector<int64_t> stride = perDim(args.getInts("stride"), 3, 0);
  if (stride[0] == 0)
    stride = kernel;
  SmallVector<int64_t> padding = perDim(args.getInts("padding"), 3, 0);
  SmallVector<int64_t> dilation = perDim(args.getInts("dilation"), 3, 1);
  bool ceilMode = args.getBool("ceil_mode").value_or(false);
  bool countPad = isAvg ? countIncludePad(args) : false;

  RankedTensorType out = args.resultType();
  if (isAvg && ceilModeByPadding(args)) {
    if (!typeOf(x).hasStaticShape() || !out.hasStaticShape())
      return operatorError(args) << "divisor_override with ceil_mode needs static shapes";
    x = padForCeilMode(b, loc, x, out.getShape().take_back(3), kernel, stride, padding, dilation);
    ceilMode = false;
  }
  int64_t n = typeOf(x).getRank() == 5 ? typeOf(x).getShape()[0] : 1;
  ArrayRef<int64_t> cdhw = typeOf(x).getShape().take_back(4);
  ArrayRef<int64_t> odhw = out.getShape().take_back(3);
  int64_t c = cdhw[0], d = cdhw[1], h = cdhw[2], w = cdhw[3];
  if (ShapedType::isDynamic(c) || ShapedType::isDynamic(d) || ShapedType::isDynamic(h) ||
      ShapedType::isDynamic(w) || ShapedType::isDynamic(odhw[1]) ||
      ShapedType::isDynamic(odhw[2]))
    return op->emitError("3-D pooling over symbolic channel or spatial sizes is not supported yet");
  // An f16/bf16 average as two pools in f32, rounded once (PyTorch's kernel
  // sums the whole window in f32).
  Type elt = out.getElementType();
  Type poolElt = isAvg && (elt.isBF16() || elt.isF16()) ? b.getF32Type() : elt;
  if (poolElt != elt)
    x = makeCast(b, loc, x, poolElt);
  auto pool = [&](Value v, SmallVector<int64_t> shape, ArrayRef<int64_t> k,
                  ArrayRef<int64_t> s, ArrayRef<int64_t> p, ArrayRef<int64_t> dl) {
    return b.create<PoolOp>(loc, RankedTensorType::get(shape, poolElt), v,
                            b.getDenseI64ArrayAttr(k), b.getDenseI64ArrayAttr(s),
                            b.getDenseI64ArrayAttr(p), b.getDenseI64ArrayAttr(dl),
                            b.getBoolAttr(ceilMode), b.getBoolAttr(countPad));
  };
  int64_t oh = odhw[1], ow = odhw[2], od = odhw[0];
  // (H, W), with D among the channels.
  Value hw = pool(makeReshape(b, loc, x, {n, c * d, h, w}), {n, c * d, oh, ow},
                  {kernel[1], kernel[2]}, {stride[1], stride[2]}, {padding[1], padding[2]},
                  {dilation[1], dilation[2]});
  // (D, 1), with H*W as the width.
  Value dd = pool(makeReshape(b, loc, hw, {n, c, d, oh * ow}), {n, c, od, oh * ow},
                  {kernel[0], 1}, {stride[0], 1}, {padding[0], 0}, {dilation[0], 1});
  FailureOr<Value> scaled = applyDivisorOverride(args, b, dd, kernel[0] * kernel[1] * kernel[2]);
  if (failed(scaled))
    return failure();
  Value pooled = makeReshape(b, loc, *scaled, out.getShape());
  SmallVector<Value> results{poolElt != elt ? makeCast(b, loc, pooled, elt) : pooled};
  results.resize(op->getNumResults(), nullptr);
  return results;
}

} // namespace

void tcc::graph::populatePoolingLegalizers(LegalizerTable &t) {
  for (int64_t spatial : {1, 2, 3}) {
    std::string d = std::to_string(spatial) + "d";
    auto avg = [spatial](OperatorArgs &a, OpBuilder &b) {
      return legalizeAdaptivePool<ReduceMeanOp>(a, b, spatial);
    };
    auto max = [spatial](OperatorArgs &a, OpBuilder &b) {
      return legalizeAdaptivePool<ReduceMaxOp>(a, b, spatial);
    };
    t["aten.adaptive_avg_pool" + d + ".default"] = avg;
    t["aten._adaptive_avg_pool" + d + ".default"] = avg;
    t["aten.adaptive_max_pool" + d + ".default"] = max;
  }
  t["aten.max_pool3d.default"] = [](OperatorArgs &a, OpBuilder &b) {
    return legalizePool3d<MaxPool2dOp>(a, b, false);
  };
  t["aten.max_pool3d_with_indices.default"] = t["aten.max_pool3d.default"];
  t["aten.avg_pool3d.default"] = [](OperatorArgs &a, OpBuilder &b) {
    return legalizePool3d<AvgPool2dOp>(a, b, true);
  };
}
