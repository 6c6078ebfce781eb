//===- LegalizeResampling.cpp - bicubic and antialiased interpolation -----===//
//
// Interpolations whose taps and weights depend only on the sizes: both are
// computed by graph ops on an iota, in float as ATen's CPU kernels compute
// them (UpSample.h, UpSampleKernel.cpp), and each spatial dim becomes a
// weighted sum of takes, the width first, then the height:
//
//   y[.., o] = sum_k x[.., index_k[o]] * weight_k[o]
//
// - bicubic (upsample_bicubic2d): 4 taps at floor(src) - 1 .. + 2, clamped
//   to the input, with the cubic convolution weights (A = -0.75);
// - antialiased bilinear (_upsample_bilinear2d_aa): the triangle filter
//   stretched by the scale when downsampling, over a window of up to
//   2 * ceil(support) + 1 taps, normalized per output.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include <cmath>

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// The taps of one spatial dim, as [out] vectors over the output index o:
/// for tap k, the input index it reads (i64), its weight (f32) and, where
/// some outputs' windows are shorter, whether output o uses it (i1; its
/// product is then left out rather than weighted by 0, so an infinite input
/// outside the window stays out). Computed by graph ops on an iota, not
/// constant tables, which the CUDA path cannot read.
struct Tap {
  Value index, weight, used;
};

/// compute_scales_value / area_pixel_compute_scale, in float.
float pixelScale(int64_t in, int64_t out, bool alignCorners, std::optional<double> factor) {
  if (alignCorners)
    return out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f;
  if (factor && *factor > 0)
    return static_cast<float>(1.0 / *factor);
  return static_cast<float>(in) / static_cast<float>(out);
}

/// Scalar constants and elementwise steps in one element type.
struct Arith {
  OpBuilder &b;
  Location loc;
  Value c(Type t, double v) { return makeScalar(b, loc, t, v); }
  template <typename OpTy> Value op(Value l, Value r) { return makeBinary<OpTy>(b, loc, l, r); }
  Value cast(Value v, Type t) { return makeCast(b, loc, v, t); }
};

/// ATen's bicubic taps (UpSample.h): real = scale * o (align_corners) or
/// scale * (o + 0.5) - 0.5, base = min(floor(real), in - 1), t = real - base
/// clamped to [0, 1]; tap k reads base - 1 + k clamped to the input, with
/// the cubic convolution weights (A = -0.75) of t + 1, t, 1 - t, 2 - t.
/// One spatial dim of a resampling: the output positions 0 .. out-1 (f32),
/// the scale (an f32 scalar) and the last input index (an i64 scalar), as
/// constants for static sizes or read at run time for symbolic ones.
struct Axis {
  Value positions, scale, lastIndex;
};

Axis staticAxis(OpBuilder &b, Location loc, int64_t in, int64_t out, bool alignCorners,
                std::optional<double> factor) {
  Type f32 = b.getF32Type();
  Value o = b.create<IotaOp>(loc, RankedTensorType::get({out}, f32), b.getF64FloatAttr(0),
                             b.getF64FloatAttr(1));
  return {o, makeScalar(b, loc, f32, pixelScale(in, out, alignCorners, factor)),
          makeScalar(b, loc, b.getI64Type(), static_cast<double>(in - 1))};
}

} // namespace

tcc::graph::ResampleAxis tcc::graph::resampleAxis(OpBuilder &b, Location loc, Value x, int64_t dim,
                                                  int64_t outStatic, Value outSize, double start) {
  Arith a{b, loc};
  Type f32 = b.getF32Type(), i64 = b.getI64Type();
  auto scalarI64 = RankedTensorType::get({}, i64);
  SmallVector<Value> length;
  if (ShapedType::isDynamic(outStatic))
    length.push_back(outSize);
  Value positions = b.create<IotaOp>(loc, RankedTensorType::get({outStatic}, f32),
                                     b.getF64FloatAttr(start), b.getF64FloatAttr(1), length);
  // The output size as a scalar: the length of the positions just made.
  Value outI = b.create<DimSizeOp>(loc, scalarI64, positions, b.getI64IntegerAttr(0));
  Value inI = b.create<DimSizeOp>(loc, scalarI64, x, b.getI64IntegerAttr(dim));
  Value outF = a.cast(outI, f32), inF = a.cast(inI, f32);
  return {positions, outF, inF, a.op<SubOp>(inI, a.c(i64, 1.0))};
}

Value tcc::graph::runtimePixelScale(OpBuilder &b, Location loc, const ResampleAxis &axis,
                                    bool alignCorners, std::optional<double> factor) {
  Arith a{b, loc};
  Type f32 = b.getF32Type();
  if (alignCorners) {
    // One op per statement: argument order is the compiler's (issue 17).
    Value inLess = a.op<SubOp>(axis.inF, a.c(f32, 1.0));
    Value outLess = a.op<SubOp>(axis.outF, a.c(f32, 1.0));
    Value ratio = a.op<DivOp>(inLess, outLess);
    Value many = makeCompare(b, loc, "gt", axis.outF, a.c(f32, 1.0));
    Value zero = a.c(f32, 0.0);
    return b.create<SelectOp>(loc, typeOf(ratio), many, ratio, zero);
  }
  if (factor && *factor > 0)
    return a.c(f32, static_cast<float>(1.0 / *factor));
  return a.op<DivOp>(axis.inF, axis.outF);
}

namespace {
/// The bicubic taps' axis over symbolic sizes: resampleAxis with
/// pixelScale's scale read at run time.
Axis symbolicAxis(OpBuilder &b, Location loc, Value x, int64_t dim, int64_t outStatic, Value out,
                  bool alignCorners, std::optional<double> factor) {
  ResampleAxis axis = resampleAxis(b, loc, x, dim, outStatic, out, 0.0);
  Value scale = runtimePixelScale(b, loc, axis, alignCorners, factor);
  return {axis.positions, scale, axis.lastIndex};
}

SmallVector<Tap> bicubicTaps(OpBuilder &b, Location loc, const Axis &axis, bool alignCorners) {
  Arith a{b, loc};
  Type f32 = b.getF32Type(), i64 = b.getI64Type();
  const double A = -0.75;
  Value o = axis.positions;
  Value real;
  if (alignCorners) {
    real = a.op<MulOp>(axis.scale, o);
  } else {
    Value center = a.op<AddOp>(o, a.c(f32, 0.5));
    Value scaled = a.op<MulOp>(axis.scale, center);
    real = a.op<SubOp>(scaled, a.c(f32, 0.5));
  }
  Value floored = b.create<FloorOp>(loc, real);
  Value whole = a.cast(floored, i64);
  Value base = a.op<MinimumOp>(whole, axis.lastIndex);
  Value offset = a.op<SubOp>(real, a.cast(base, f32));
  Value nonnegative = a.op<MaximumOp>(offset, a.c(f32, 0.0));
  Value t = a.op<MinimumOp>(nonnegative, a.c(f32, 1.0));
  // ((A + 2) x - (A + 3)) x x + 1 and ((A x - 5A) x + 8A) x - 4A.
  auto conv1 = [&](Value x) {
    Value v = a.op<MulOp>(a.c(f32, A + 2), x);
    v = a.op<SubOp>(v, a.c(f32, A + 3));
    v = a.op<MulOp>(v, x);
    v = a.op<MulOp>(v, x);
    return a.op<AddOp>(v, a.c(f32, 1.0));
  };
  auto conv2 = [&](Value x) {
    Value v = a.op<MulOp>(a.c(f32, A), x);
    v = a.op<SubOp>(v, a.c(f32, 5 * A));
    v = a.op<MulOp>(v, x);
    v = a.op<AddOp>(v, a.c(f32, 8 * A));
    v = a.op<MulOp>(v, x);
    return a.op<SubOp>(v, a.c(f32, 4 * A));
  };
  Value oneMinus = a.op<SubOp>(a.c(f32, 1.0), t);
  Value w[4] = {conv2(a.op<AddOp>(t, a.c(f32, 1.0))), conv1(t), conv1(oneMinus),
                conv2(a.op<AddOp>(oneMinus, a.c(f32, 1.0)))};
  SmallVector<Tap> taps;
  for (int64_t k = 0; k < 4; ++k) {
    Value index = a.op<AddOp>(base, a.c(i64, k - 1));
    index = a.op<MaximumOp>(index, a.c(i64, 0));
    index = a.op<MinimumOp>(index, axis.lastIndex);
    taps.push_back({index, w[k], Value()});
  }
  return taps;
}

/// ATen's antialiased bilinear taps (_compute_weights_aa): center =
/// scale * (o + 0.5), support = scale (at least 1), the window
/// [max(trunc(center - support + 0.5), 0), min(trunc(center + support + 0.5),
/// in)), tap j weighted by the triangle filter of
/// (j + lo - center + 0.5) / max(scale, 1) and normalized by the window's
/// sum; in float, with ATen's steps through double.
SmallVector<Tap> antialiasTaps(OpBuilder &b, Location loc, int64_t in, int64_t out,
                               bool alignCorners, std::optional<double> factor) {
  Arith a{b, loc};
  Type f32 = b.getF32Type(), f64 = b.getF64Type(), i64 = b.getI64Type();
  float scale = pixelScale(in, out, alignCorners, factor);
  float support = scale >= 1.0f ? scale : 1.0f;
  int64_t maxTaps = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  float invscale = scale >= 1.0f ? static_cast<float>(1.0 / scale) : 1.0f;
  Value o = b.create<IotaOp>(loc, RankedTensorType::get({out}, f64), b.getF64FloatAttr(0.5),
                             b.getF64FloatAttr(1));
  Value center = a.cast(a.op<MulOp>(a.c(f64, scale), o), f32);
  Value below = a.cast(a.op<SubOp>(center, a.c(f32, support)), f64);
  Value lo = a.cast(a.op<AddOp>(below, a.c(f64, 0.5)), i64);
  lo = a.op<MaximumOp>(lo, a.c(i64, 0));
  Value above = a.cast(a.op<AddOp>(center, a.c(f32, support)), f64);
  Value hi = a.cast(a.op<AddOp>(above, a.c(f64, 0.5)), i64);
  hi = a.op<MinimumOp>(hi, a.c(i64, in));
  Value size = a.op<SubOp>(hi, lo);
  size = a.op<MaximumOp>(size, a.c(i64, 0));
  size = a.op<MinimumOp>(size, a.c(i64, maxTaps));
  SmallVector<Tap> taps;
  Value total;
  for (int64_t k = 0; k < maxTaps; ++k) {
    Value at = a.op<AddOp>(lo, a.c(i64, k));
    Value from = a.op<SubOp>(a.cast(at, f32), center);
    Value wide = a.cast(from, f64);
    Value arg = a.op<AddOp>(wide, a.c(f64, 0.5));
    Value x = a.cast(a.op<MulOp>(arg, a.c(f64, invscale)), f32);
    x = b.create<AbsOp>(loc, x);
    Value inside = makeCompare(b, loc, "lt", x, a.c(f32, 1.0));
    Value falling = a.op<SubOp>(a.c(f32, 1.0), x);
    Value tri = b.create<SelectOp>(loc, typeOf(x), inside, falling, a.c(f32, 0.0));
    Value used = makeCompare(b, loc, "lt", a.c(i64, k), size);
    Value w = b.create<SelectOp>(loc, typeOf(x), used, tri, a.c(f32, 0.0));
    total = total ? a.op<AddOp>(total, w) : w;
    Value index = a.op<MinimumOp>(at, a.c(i64, in - 1));
    taps.push_back({index, w, used});
  }
  Value nonzero = makeCompare(b, loc, "ne", total, a.c(f32, 0.0));
  for (Tap &tap : taps) {
    Value scaled = a.op<DivOp>(tap.weight, total);
    tap.weight = b.create<SelectOp>(loc, typeOf(scaled), nonzero, scaled, tap.weight);
  }
  return taps;
}

/// `y` resampled along `dim` by `taps`: sum_k take(y, index_k) * weight_k,
/// in tap order.
Value resampleAlong(OpBuilder &b, Location loc, Value y, int64_t dim, ArrayRef<Tap> taps) {
  RankedTensorType t = typeOf(y);
  int64_t out = typeOf(taps.front().index).getShape()[0];
  SmallVector<int64_t> shape = withDimSize(t.getShape(), dim, out);
  auto type = RankedTensorType::get(shape, t.getElementType());
  SmallVector<int64_t> line(t.getRank(), 1);
  line[dim] = out;
  Value sum;
  for (const Tap &tap : taps) {
    Value weight = makeReshape(b, loc, tap.weight, line);
    Value taken = b.create<TakeOp>(loc, type, y, tap.index, b.getI64IntegerAttr(dim));
    Value term = makeBinary<MulOp>(b, loc, taken, weight);
    if (tap.used) {
      Value used = makeReshape(b, loc, tap.used, line);
      term = b.create<SelectOp>(loc, type, used, term, makeScalar(b, loc, t.getElementType(), 0.0));
    }
    sum = sum ? makeBinary<AddOp>(b, loc, sum, term) : term;
  }
  return sum;
}

/// upsample_bicubic2d / _upsample_bilinear2d_aa (.vec with scale_factors,
/// or the sized form with scales_h and scales_w) on an f32 [N, C, H, W].
/// Bicubic also over symbolic sizes (its taps are the same graph ops on
/// run-time sizes); the antialiased filter's tap count depends on the
/// scale, so it needs static ones. The antialiased kernel leaves a dim
/// whose size does not change as it is; the bicubic one interpolates it.
LegalizeFn resample2d(bool bicubic) {
  return [bicubic](OperatorArgs &args, OpBuilder &b) -> Results {
    Location loc = args.getOp().getLoc();
    Value x = args.tensor("input") ? args.tensor("input") : args.tensor("self");
    RankedTensorType out = args.resultType();
    bool sized = x && typeOf(x).hasStaticShape() && out.hasStaticShape();
    Type elt = x ? typeOf(x).getElementType() : Type();
    bool half = elt && (elt.isBF16() || elt.isF16());
    if (!x || typeOf(x).getRank() != 4 || !(elt.isF32() || half) || (!bicubic && !sized))
      return operatorError(args)
             << (bicubic ? "expects an f32, f16 or bf16 [N, C, H, W] tensor"
                         : "expects a static f32, f16 or bf16 [N, C, H, W] tensor");
    // f16/bf16: computed in f32 and rounded once at the end (PyTorch's CPU
    // kernels accumulate in float; their bf16 results are within an ulp).
    if (half)
      x = makeCast(b, loc, x, b.getF32Type());
    bool alignCorners = args.getBool("align_corners").value_or(false);
    std::optional<double> factors[2];
    if (auto f = dyn_cast_or_null<DenseF64ArrayAttr>(args.getOp().getArgs().get("scale_factors"));
        f && f.size() == 2) {
      factors[0] = f[0];
      factors[1] = f[1];
    } else {
      factors[0] = args.getFloat("scales_h");
      factors[1] = args.getFloat("scales_w");
    }
    // The result's symbolic sizes (the export's expressions), by dim.
    SmallVector<Value> outSizes(4);
    if (!out.hasStaticShape()) {
      FailureOr<SmallVector<Value>> sizes = symbolicSizes(args, b);
      if (failed(sizes))
        return failure();
      for (int64_t d = 0, k = 0; d < 4; ++d)
        if (out.isDynamicDim(d))
          outSizes[d] = (*sizes)[k++];
    }
    Value y = x;
    for (int64_t d : {3, 2}) {
      int64_t in = typeOf(x).getShape()[d], n = out.getShape()[d];
      bool symbolic = ShapedType::isDynamic(in) || ShapedType::isDynamic(n);
      if (!symbolic && (in == 0 || n == 0))
        return operatorError(args) << "empty spatial sizes are not supported";
      if (!bicubic && in == n)
        continue;
      SmallVector<Tap> taps;
      if (!bicubic)
        taps = antialiasTaps(b, loc, in, n, alignCorners, factors[d - 2]);
      else if (symbolic)
        taps = bicubicTaps(b, loc,
                           symbolicAxis(b, loc, y, d, n, outSizes[d], alignCorners, factors[d - 2]),
                           alignCorners);
      else
        taps = bicubicTaps(b, loc, staticAxis(b, loc, in, n, alignCorners, factors[d - 2]),
                           alignCorners);
      y = resampleAlong(b, loc, y, d, taps);
    }
    if (half)
      y = makeCast(b, loc, y, elt);
    return SmallVector<Value>{y};
  };
}
/// linspace(-1, 1, n) as ATen computes it (the first half from -1 up, the
/// rest from 1 down), scaled by (n - 1) / n without align_corners
/// (affine_grid's linspace_from_neg_one); [0] for n <= 1. In `elt`.
Value linspaceFromNegOne(OpBuilder &b, Location loc, int64_t n, bool alignCorners, Type elt) {
  Arith a{b, loc};
  if (n <= 1)
    return makeReshape(b, loc, a.c(elt, 0.0), {1});
  Value i = b.create<IotaOp>(loc, RankedTensorType::get({n}, elt), b.getF64FloatAttr(0),
                             b.getF64FloatAttr(1));
  // step in the element type, as ATen's kernel computes it.
  double step = elt.isF64() ? 2.0 / double(n - 1) : double(2.0f / float(n - 1));
  // One op per statement: argument order is the compiler's (issue 17).
  Value stepped = a.op<MulOp>(i, a.c(elt, step));
  Value up = a.op<AddOp>(stepped, a.c(elt, -1.0));
  Value fromEnd = a.op<SubOp>(a.c(elt, double(n - 1)), i);
  Value back = a.op<MulOp>(fromEnd, a.c(elt, step));
  Value down = a.op<SubOp>(a.c(elt, 1.0), back);
  Value firstHalf = makeCompare(b, loc, "lt", i, a.c(elt, double(n / 2)));
  Value range = b.create<SelectOp>(loc, typeOf(up), firstHalf, up, down);
  if (alignCorners)
    return range;
  Value scaled = a.op<MulOp>(range, a.c(elt, double(n - 1)));
  return a.op<DivOp>(scaled, a.c(elt, double(n)));
}

/// affine_grid_generator(theta, size, align_corners): theta [N, 2, 3]
/// with size [N, C, H, W], or [N, 3, 4] with [N, C, D, H, W]. Output
/// [N, (D,) H, W, 2 or 3]: the base grid's (x, y, (z,) 1) at each position
/// (x along W, y along H, z along D) times theta's rows, summed in ATen's
/// bmm order (x, y, z, then the constant column).
Results legalizeAffineGrid(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Arith a{b, loc};
  FailureOr<Value> theta = requiredTensor(args, "theta");
  std::optional<SmallVector<int64_t>> size = args.getInts("size");
  if (failed(theta))
    return failure();
  RankedTensorType out = args.resultType();
  int64_t spatial = size ? int64_t(size->size()) - 2 : 0;
  RankedTensorType t = typeOf(*theta);
  if (!size || (spatial != 2 && spatial != 3) || t.getRank() != 3 || !t.hasStaticShape() ||
      t.getShape()[1] != spatial || t.getShape()[2] != spatial + 1 || !out.hasStaticShape() ||
      !isa<FloatType>(t.getElementType()))
    return operatorError(args) << "expects a static float theta of [N, 2, 3] with a 4-d size or "
                                  "[N, 3, 4] with a 5-d size";
  bool alignCorners = args.getBool("align_corners").value_or(false);
  Type elt = t.getElementType().isF64() ? Type(b.getF64Type()) : Type(b.getF32Type());
  Value th = makeCast(b, loc, *theta, elt);
  int64_t n = t.getShape()[0];
  // Output rank: N, spatial dims, then the coordinate.
  int64_t rank = spatial + 2;
  // coordinate k (x, y, z) varies along spatial dim spatial - 1 - k.
  SmallVector<Value> coords;
  for (int64_t k = 0; k < spatial; ++k) {
    int64_t dim = spatial - k;  // the output dim this coordinate varies along
    int64_t length = (*size)[2 + spatial - 1 - k];
    Value line = linspaceFromNegOne(b, loc, length, alignCorners, elt);
    SmallVector<int64_t> shape(rank, 1);
    shape[dim] = length <= 1 ? 1 : length;
    coords.push_back(makeReshape(b, loc, line, shape));
  }
  // theta[:, :, k] as [N, 1.., spatial] to broadcast against the coordinates.
  auto column = [&](int64_t k) {
    Value c = makeSlice(b, loc, th, 2, k, k + 1, 1);
    SmallVector<int64_t> shape(rank, 1);
    shape[0] = n;
    shape[rank - 1] = spatial;
    return makeReshape(b, loc, c, shape);
  };
  Value sum;
  for (int64_t k = 0; k < spatial; ++k) {
    Value term = a.op<MulOp>(coords[k], column(k));
    sum = sum ? a.op<AddOp>(sum, term) : term;
  }
  Value constant = column(spatial);
  Value grid = a.op<AddOp>(sum, constant);
  if (typeOf(grid).getShape() != out.getShape())
    grid = b.create<BroadcastOp>(loc, RankedTensorType::get(out.getShape(), elt), grid,
                                 ValueRange{});
  return SmallVector<Value>{makeCast(b, loc, grid, out.getElementType())};
}
} // namespace

void tcc::graph::populateResamplingLegalizers(LegalizerTable &t) {
  for (const char *v : {".vec", ".default"}) {
    t[std::string("aten.upsample_bicubic2d") + v] = resample2d(/*bicubic=*/true);
    t[std::string("aten._upsample_bilinear2d_aa") + v] = resample2d(/*bicubic=*/false);
  }
  t["aten.affine_grid_generator.default"] = legalizeAffineGrid;
}
