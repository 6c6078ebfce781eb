//===- LegalizeConvolution.cpp - 1-D, 2-D and 3-D convolutions ------------===//
//
// conv1d/conv2d/conv3d (int or 'same'/'valid' padding, batched or not) and
// convolution(transposed=False) as tcc_graph.conv2d: 1-D over a height of 1,
// 3-D as a sum over the kernel's depth of 2-D convolutions whose batch holds
// the output's depth (for kernel depth index kd, the input's depth slice
// kd * dilation, + stride, ... padded by zeros along depth), so a 3-D
// convolution takes the same path (the kernel layer on the CPU, cuDNN on
// the GPU) as a 2-D one. im2col (unfold) as strided slices of the padded
// input.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

Value permuted(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> perm) {
  auto t = typeOf(x);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(t.getShape()[p]);
  return b.create<TransposeOp>(loc, RankedTensorType::get(shape, t.getElementType()), x,
                               b.getDenseI64ArrayAttr(perm));
}

/// The 3-D convolution of [N, C, D, H, W] by [O, C/g, KD, KH, KW] (static
/// C, D, H, W and weight) into `resultType` ([N, O, D', H', W']).
Value conv3dAsConv2d(OpBuilder &b, Location loc, Value x, Value w, Value bias,
                     ArrayRef<int64_t> stride, ArrayRef<int64_t> pad, ArrayRef<int64_t> dilation,
                     int64_t groups, RankedTensorType resultType) {
  auto ws = typeOf(w).getShape();
  auto out = resultType.getShape();
  int64_t n = out[0], o = out[1], dOut = out[2], kd = ws[2];
  Type elt = resultType.getElementType();
  // bf16/f16: PyTorch accumulates the whole 3-D window in f32 and rounds
  // once; partial sums rounded per kernel-depth slice were up to 12 ulps off
  // (issue 39). The planes are summed in f32 (exact conversions of the
  // operands) and the result rounded once.
  if (kd > 1 && isa<BFloat16Type, Float16Type>(elt)) {
    Type f32 = b.getF32Type();
    Value wideX = makeCast(b, loc, x, f32);
    Value wideW = makeCast(b, loc, w, f32);
    Value wideBias = bias ? makeCast(b, loc, bias, f32) : Value();
    Value wide = conv3dAsConv2d(b, loc, wideX, wideW, wideBias, stride, pad, dilation, groups,
                                resultType.clone(f32));
    return makeCast(b, loc, wide, elt);
  }
  // [N, C, D + 2p, H, W] -> [N, D + 2p, C, H, W]
  Value xt = permuted(b, loc, padConstant(b, loc, x, 2, pad[0], pad[0]), {0, 2, 1, 3, 4});
  auto xs = typeOf(xt).getShape();
  int64_t batch = ShapedType::isDynamic(n) ? ShapedType::kDynamic : n * dOut;
  auto planeType = RankedTensorType::get({batch, o, out[3], out[4]}, elt);
  Value sum;
  for (int64_t k = 0; k < kd; ++k) {
    int64_t start = k * dilation[0];
    Value slice = makeSlice(b, loc, xt, 1, start, start + (dOut - 1) * stride[0] + 1, stride[0]);
    Value planes = makeReshape(b, loc, slice, {batch, xs[2], xs[3], xs[4]});
    Value wk = makeReshape(b, loc, makeSlice(b, loc, w, 2, k, k + 1, 1), {ws[0], ws[1], ws[3], ws[4]});
    Value conv = b.create<Conv2dOp>(
        loc, planeType, planes, wk, k == 0 ? bias : Value(),
        b.getDenseI64ArrayAttr({stride[1], stride[2]}), b.getDenseI64ArrayAttr({pad[1], pad[2]}),
        b.getDenseI64ArrayAttr({dilation[1], dilation[2]}), b.getI64IntegerAttr(groups));
    sum = sum ? b.create<AddOp>(loc, planeType, sum, conv).getResult() : conv;
  }
  Value split = makeReshape(b, loc, sum, {n, dOut, o, out[3], out[4]});
  return permuted(b, loc, split, {0, 2, 1, 3, 4});
}

/// conv1d/2d/3d and convolution(transposed=False).
Results legalizeConvolution(OperatorArgs &args, OpBuilder &b) {
  OperatorOp op = args.getOp();
  Location loc = op.getLoc();
  Value x = args.tensor("input"), w = args.tensor("weight"), bias = args.tensor("bias");
  if (!x || !w)
    return op.emitError("convolution expects 'input' and 'weight' tensors");
  if (args.getBool("transposed").value_or(false))
    return legalizeTransposedConvolution(args, b);
  auto wt = typeOf(w);
  int64_t spatial = wt.getRank() - 2;
  RankedTensorType out = args.resultType();
  if (spatial < 1 || spatial > 3)
    return operatorError(args) << "expects a weight of rank 3 to 5, got " << wt;
  int64_t rank = typeOf(x).getRank();
  if (rank != spatial + 1 && rank != spatial + 2)
    return operatorError(args) << "expects an input of rank " << spatial + 1 << " or "
                               << spatial + 2 << " for a weight of rank " << wt.getRank();
  if (!wt.hasStaticShape())
    return operatorError(args) << "needs a weight of static shape";
  int64_t groups = args.getInt("groups").value_or(1);
  SmallVector<int64_t> stride = perDim(args.getInts("stride"), spatial, 1);
  SmallVector<int64_t> dilation = perDim(args.getInts("dilation"), spatial, 1);
  SmallVector<int64_t> pad;
  // An unbatched input ([C, spatial..]) is a batch of one.
  bool unbatched = rank == spatial + 1;
  if (unbatched) {
    SmallVector<int64_t> shape{1};
    llvm::append_range(shape, typeOf(x).getShape());
    x = makeReshape(b, loc, x, shape);
  }
  auto xt = typeOf(x);
  if (auto mode = dyn_cast_or_null<StringAttr>(op.getArgs().get("padding"))) {
    if (mode.getValue() == "valid") {
      pad.assign(spatial, 0);
    } else if (mode.getValue() == "same") {
      // ATen's _convolution_mode: dilation * (k - 1) split with the odd one
      // after, as explicit zeros.
      for (int64_t i = 0; i < spatial; ++i) {
        int64_t total = dilation[i] * (wt.getShape()[2 + i] - 1);
        pad.push_back(total / 2);
        if (total % 2) {
          if (ShapedType::isDynamic(xt.getShape()[2 + i]))
            return operatorError(args) << "padding='same' needs static spatial sizes";
          x = padConstant(b, loc, x, 2 + i, 0, 1);
        }
      }
      xt = typeOf(x);
    } else {
      return operatorError(args) << "padding='" << mode.getValue() << "' is not supported";
    }
  } else {
    pad = perDim(args.getInts("padding"), spatial, 0);
  }
  // 'same' keeps the input's size, the asymmetric zero padded above.
  auto mode = dyn_cast_or_null<StringAttr>(op.getArgs().get("padding"));
  if (!mode || mode.getValue() == "valid")
    recordWindowChecks(args, "input", wt.getShape().drop_front(2), stride, pad, dilation, false);
  SmallVector<int64_t> batchedOut(out.getShape());
  if (unbatched)
    batchedOut.insert(batchedOut.begin(), 1);
  Type elt = out.getElementType();
  Value y;
  if (spatial == 1) {
    // [N, C, L] -> [N, C, 1, L], [O, C/g, K] -> [O, C/g, 1, K].
    auto xs = xt.getShape();
    Value x4 = makeReshape(b, loc, x, {xs[0], xs[1], 1, xs[2]});
    auto ws = wt.getShape();
    Value w4 = makeReshape(b, loc, w, {ws[0], ws[1], 1, ws[2]});
    y = b.create<Conv2dOp>(
        loc, RankedTensorType::get({batchedOut[0], batchedOut[1], 1, batchedOut[2]}, elt), x4, w4,
        bias, b.getDenseI64ArrayAttr({1, stride[0]}), b.getDenseI64ArrayAttr({0, pad[0]}),
        b.getDenseI64ArrayAttr({1, dilation[0]}), b.getI64IntegerAttr(groups));
  } else if (spatial == 2) {
    y = b.create<Conv2dOp>(loc, RankedTensorType::get(batchedOut, elt), x, w, bias,
                           b.getDenseI64ArrayAttr(stride), b.getDenseI64ArrayAttr(pad),
                           b.getDenseI64ArrayAttr(dilation), b.getI64IntegerAttr(groups));
  } else {
    auto xs = xt.getShape();
    for (int64_t i = 1; i < 5; ++i)
      if (ShapedType::isDynamic(xs[i]))
        return operatorError(args) << "3-D convolution needs static channel and spatial sizes";
    for (int64_t i = 1; i < 5; ++i)
      if (ShapedType::isDynamic(batchedOut[i]))
        return operatorError(args) << "3-D convolution needs a static result";
    y = conv3dAsConv2d(b, loc, x, w, bias, stride, pad, dilation, groups,
                       RankedTensorType::get(batchedOut, elt));
  }
  if (typeOf(y).getShape() != out.getShape())
    y = makeReshape(b, loc, y, out.getShape());
  return SmallVector<Value>{y};
}

/// im2col of `x` ([N, C, H, W]) with symbolic sizes: per spatial dim the
/// windows' positions k * dilation + o * stride ([kernel, windows], the
/// window count read at run time, the call checking there is one), two
/// takes giving [N, C, kh, oh, kw, ow], then [N, C * kh * kw, oh * ow].
Results im2colSymbolic(OperatorArgs &args, OpBuilder &b, Value x, ArrayRef<int64_t> k,
                       ArrayRef<int64_t> dil, ArrayRef<int64_t> pad, ArrayRef<int64_t> stride) {
  Location loc = args.getOp().getLoc();
  RankedTensorType out = args.resultType();
  Type i64 = b.getI64Type();
  SmallVector<Value> counts, indices;
  for (int64_t i = 0; i < 2; ++i) {
    int64_t d = 2 + i, span = dil[i] * (k[i] - 1) + 1;
    x = padConstant(b, loc, x, d, pad[i], pad[i]);
    int64_t padded = typeOf(x).getDimSize(d), count = ShapedType::kDynamic;
    SmallVector<Value> countSize;
    if (!ShapedType::isDynamic(padded)) {
      count = (padded - span) / stride[i] + 1;
      if (count <= 0)
        return operatorError(args) << "has no output windows";
      counts.push_back(b.create<arith::ConstantIndexOp>(loc, count));
    } else {
      // max(floor((n - span) / stride) + 1, 0) windows; none fails the call,
      // as PyTorch raises.
      Value extent = sizeTensor(b, loc, x, d);
      Value least = makeScalar(b, loc, i64, static_cast<double>(span));
      Value ok = makeCompare(b, loc, "ge", extent, least);
      x = b.create<CheckOp>(loc, x.getType(), ok, x,
                            b.getStringAttr(operatorName(args) + ": no window of " +
                                            std::to_string(span) + " fits spatial dim " +
                                            std::to_string(i)));
      Value spanIndex = b.create<arith::ConstantIndexOp>(loc, span);
      Value rest = b.create<arith::SubIOp>(loc, dimIndex(b, loc, x, d), spanIndex);
      Value strideIndex = b.create<arith::ConstantIndexOp>(loc, stride[i]);
      Value steps = b.create<arith::FloorDivSIOp>(loc, rest, strideIndex);
      Value one = b.create<arith::ConstantIndexOp>(loc, 1);
      Value number = b.create<arith::AddIOp>(loc, steps, one);
      Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
      countSize.push_back(b.create<arith::MaxSIOp>(loc, number, zero));
      counts.push_back(countSize.back());
    }
    Value offsets = b.create<IotaOp>(loc, RankedTensorType::get({k[i]}, i64), b.getF64FloatAttr(0),
                                     b.getF64FloatAttr(static_cast<double>(dil[i])), ValueRange{});
    Value starts = b.create<IotaOp>(loc, RankedTensorType::get({count}, i64), b.getF64FloatAttr(0),
                                    b.getF64FloatAttr(static_cast<double>(stride[i])), countSize);
    Value column = makeReshape(b, loc, offsets, {k[i], 1});
    Value row = makeReshape(b, loc, starts, {1, count});
    indices.push_back(makeBinary<AddOp>(b, loc, column, row));
  }
  // [N, C, kh, oh, W] then [N, C, kh, oh, kw, ow].
  auto take = [&](Value v, Value index, int64_t dim) -> Value {
    ArrayRef<int64_t> shape = typeOf(v).getShape();
    SmallVector<int64_t> taken(shape.take_front(dim));
    llvm::append_range(taken, typeOf(index).getShape());
    taken.append(shape.begin() + dim + 1, shape.end());
    return b.create<TakeOp>(loc, RankedTensorType::get(taken, typeOf(v).getElementType()), v,
                            index, b.getI64IntegerAttr(dim));
  };
  Value rows = take(x, indices[0], 2);
  Value tiles = take(rows, indices[1], 4);
  ArrayRef<int64_t> ts = typeOf(tiles).getShape();
  SmallVector<int64_t> perm{0, 1, 2, 4, 3, 5}, moved;
  for (int64_t p : perm)
    moved.push_back(ts[p]);
  Value ordered = b.create<TransposeOp>(
      loc, RankedTensorType::get(moved, typeOf(tiles).getElementType()), tiles,
      b.getDenseI64ArrayAttr(perm));
  // The result's sizes: N (where kept), C * kh * kw, oh * ow.
  Value kernel = b.create<arith::ConstantIndexOp>(loc, k[0] * k[1]);
  Value channels = b.create<arith::MulIOp>(loc, dimIndex(b, loc, x, 1), kernel);
  Value length = b.create<arith::MulIOp>(loc, counts[0], counts[1]);
  SmallVector<Value> sizes;
  if (out.getRank() == 3)
    sizes.push_back(dimIndex(b, loc, x, 0));
  sizes.push_back(channels);
  sizes.push_back(length);
  return SmallVector<Value>{makeReshape(b, loc, ordered, out.getShape(), sizes)};
}

/// im2col (nn.functional.unfold): [N, C, H, W] (or [C, H, W]) to
/// [N, C * kh * kw, L], row c * kh * kw + i * kw + j holding the input at
/// kernel offset (i, j) of each window: the input padded by zeros, one
/// strided slice per kernel offset, stacked after the channel dim.
Results legalizeIm2col(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self");
  if (!x)
    return operatorError(args) << "expects a 'self' tensor";
  auto xt = typeOf(x);
  RankedTensorType out = args.resultType();
  if (xt.getRank() != 3 && xt.getRank() != 4)
    return operatorError(args) << "needs an (N, C, H, W) or (C, H, W) input";
  if (out.hasStaticShape() && out.getNumElements() == 0)  // an empty batch
    return SmallVector<Value>{makeSplat(b, loc, out, 0.0)};
  if (xt.getRank() == 3) {
    SmallVector<int64_t> shape{1};
    llvm::append_range(shape, xt.getShape());
    x = makeReshape(b, loc, x, shape);
    xt = typeOf(x);
  }
  SmallVector<int64_t> k = pair(args.getInts("kernel_size"), 1);
  SmallVector<int64_t> dil = pair(args.getInts("dilation"), 1);
  SmallVector<int64_t> pad = pair(args.getInts("padding"), 0);
  SmallVector<int64_t> stride = pair(args.getInts("stride"), 1);
  for (int i = 0; i < 2; ++i)
    if (k[i] <= 0 || stride[i] <= 0 || dil[i] <= 0 || pad[i] < 0)
      return operatorError(args) << "has no output windows";
  if (!xt.hasStaticShape() || !out.hasStaticShape())
    return im2colSymbolic(args, b, x, k, dil, pad, stride);
  int64_t n = xt.getShape()[0], c = xt.getShape()[1];
  int64_t oh[2];
  for (int i = 0; i < 2; ++i) {
    x = padConstant(b, loc, x, 2 + i, pad[i], pad[i]);
    oh[i] = (typeOf(x).getShape()[2 + i] - dil[i] * (k[i] - 1) - 1) / stride[i] + 1;
    if (oh[i] <= 0 || k[i] <= 0 || stride[i] <= 0 || dil[i] <= 0)
      return operatorError(args) << "has no output windows";
  }
  if (out.getNumElements() != n * c * k[0] * k[1] * oh[0] * oh[1])
    return operatorError(args) << "result " << out << " is not the windows' size";
  SmallVector<Value> parts;
  for (int64_t i = 0; i < k[0]; ++i)
    for (int64_t j = 0; j < k[1]; ++j) {
      Value rows = makeSlice(b, loc, x, 2, i * dil[0], i * dil[0] + (oh[0] - 1) * stride[0] + 1,
                             stride[0]);
      Value tile = makeSlice(b, loc, rows, 3, j * dil[1],
                             j * dil[1] + (oh[1] - 1) * stride[1] + 1, stride[1]);
      parts.push_back(makeReshape(b, loc, tile, {n, c, 1, oh[0], oh[1]}));
    }
  Value stacked = parts.size() == 1
                      ? parts[0]
                      : b.create<ConcatOp>(loc,
                                           RankedTensorType::get({n, c, k[0] * k[1], oh[0], oh[1]},
                                                                 xt.getElementType()),
                                           parts, b.getI64IntegerAttr(2))
                            .getResult();
  return SmallVector<Value>{makeReshape(b, loc, stacked, out.getShape())};
}
} // namespace

/// `before` and `after` elements of `value` along `dim` (negative amounts
/// crop). Symbolic sizes: the blocks of `value` stretched to x's other
/// sizes, a symbolic `dim` cropped to n - crops.
Value tcc::graph::padConstant(OpBuilder &b, Location loc, Value x, int64_t dim, int64_t before,
                              int64_t after, double value) {
  x = cropDim(b, loc, x, dim, std::max<int64_t>(0, -before), std::max<int64_t>(0, -after));
  auto t = typeOf(x);
  Value scalar;  // stretched where the blocks have symbolic sizes
  auto fill = [&](int64_t count) -> Value {
    auto type = RankedTensorType::get(withDimSize(t.getShape(), dim, count), t.getElementType());
    if (type.hasStaticShape())
      return makeSplat(b, loc, type, value);
    if (!scalar)
      scalar = makeScalar(b, loc, t.getElementType(), value);
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != dim && t.isDynamicDim(d))
        sizes.push_back(dimIndex(b, loc, x, d));
    return b.create<BroadcastOp>(loc, type, scalar, sizes);
  };
  SmallVector<Value> parts;
  if (before > 0)
    parts.push_back(fill(before));
  parts.push_back(x);
  if (after > 0)
    parts.push_back(fill(after));
  if (parts.size() == 1)
    return x;
  int64_t size = t.getShape()[dim];
  int64_t total = ShapedType::isDynamic(size)
                      ? ShapedType::kDynamic
                      : size + std::max<int64_t>(0, before) + std::max<int64_t>(0, after);
  return b.create<ConcatOp>(
      loc, RankedTensorType::get(withDimSize(t.getShape(), dim, total), t.getElementType()), parts,
      b.getI64IntegerAttr(dim));
}

/// A plain convolution of [N, C, spatial..] (2-D or 3-D), for the transposed
/// convolution's legalizer.
Value tcc::graph::makeConvolution(OpBuilder &b, Location loc, Value x, Value w, Value bias,
                                  ArrayRef<int64_t> stride, ArrayRef<int64_t> pad,
                                  ArrayRef<int64_t> dilation, int64_t groups,
                                  RankedTensorType resultType) {
  if (resultType.getRank() == 5)
    return conv3dAsConv2d(b, loc, x, w, bias, stride, pad, dilation, groups, resultType);
  return b.create<Conv2dOp>(loc, resultType, x, w, bias, b.getDenseI64ArrayAttr(stride),
                            b.getDenseI64ArrayAttr(pad), b.getDenseI64ArrayAttr(dilation),
                            b.getI64IntegerAttr(groups));
}

void tcc::graph::populateConvolutionLegalizers(LegalizerTable &t) {
  for (StringRef name :
       {"aten.conv1d.default", "aten.conv2d.default", "aten.conv3d.default", "aten.conv1d.padding",
        "aten.conv2d.padding", "aten.conv3d.padding", "aten.convolution.default",
        // TorchScript's and the eager dispatcher's form: convolution's
        // arguments and backend flags (benchmark, cudnn_enabled, ...) that
        // change no result.
        "aten._convolution.default", "aten._convolution.deprecated"})
    t[name] = legalizeConvolution;
  t["aten.im2col.default"] = legalizeIm2col;
}
