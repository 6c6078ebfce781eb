//===- LegalizeConvTranspose.cpp - conv_transpose2d as a convolution ------===//
//
// A transposed convolution is a plain one over the input with (stride - 1)
// zeros between pixels, padded by dilation * (k - 1) - padding on each side
// (plus output_padding after), with the kernel flipped spatially and its
// in/out channels swapped within each group. Built from typed ops, so the
// convolution takes the same path (cuDNN on the GPU) as any other.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// `n` zeros shaped like `x` except `n` along `dim`.
Value zerosLike(OpBuilder &b, Location loc, Value x, int64_t dim, int64_t n) {
  auto t = typeOf(x);
  return makeSplat(b, loc, RankedTensorType::get(withDimSize(t.getShape(), dim, n), t.getElementType()),
                   0.0);
}

/// (stride - 1) zeros after each element along `dim`, none after the last.
Value spread(OpBuilder &b, Location loc, Value x, int64_t dim, int64_t stride) {
  if (stride == 1)
    return x;
  auto t = typeOf(x);
  int64_t size = t.getShape()[dim];
  SmallVector<int64_t> unit(t.getShape());
  unit.insert(unit.begin() + dim + 1, 1);
  Value one = makeReshape(b, loc, x, unit);
  SmallVector<int64_t> spaced(unit);
  spaced[dim + 1] = stride;
  Value both = b.create<ConcatOp>(loc, RankedTensorType::get(spaced, t.getElementType()),
                                  ValueRange{one, zerosLike(b, loc, one, dim + 1, stride - 1)},
                                  b.getI64IntegerAttr(dim + 1));
  Value flat = makeReshape(b, loc, both, withDimSize(t.getShape(), dim, size * stride));
  return makeSlice(b, loc, flat, dim, 0, (size - 1) * stride + 1, 1);
}

/// `before` and `after` zeros along `dim` (negative amounts crop).
Value padded(OpBuilder &b, Location loc, Value x, int64_t dim, int64_t before, int64_t after) {
  int64_t size = typeOf(x).getShape()[dim];
  if (before < 0 || after < 0)
    x = makeSlice(b, loc, x, dim, std::max<int64_t>(0, -before),
                  size - std::max<int64_t>(0, -after), 1);
  SmallVector<Value> parts;
  if (before > 0)
    parts.push_back(zerosLike(b, loc, x, dim, before));
  parts.push_back(x);
  if (after > 0)
    parts.push_back(zerosLike(b, loc, x, dim, after));
  if (parts.size() == 1)
    return x;
  auto t = typeOf(x);
  int64_t total = t.getShape()[dim] + std::max<int64_t>(0, before) + std::max<int64_t>(0, after);
  return b.create<ConcatOp>(loc, RankedTensorType::get(withDimSize(t.getShape(), dim, total),
                                                       t.getElementType()),
                            parts, b.getI64IntegerAttr(dim));
}

/// The transposed convolution of NCHW x by w [Cin, Cout/g, kh, kw] (static
/// spatial sizes), with per-dim stride, padding, dilation, output padding.
Value convTranspose2d(OpBuilder &b, Location loc, Value x, Value w, Value bias,
                      ArrayRef<int64_t> stride, ArrayRef<int64_t> pad, ArrayRef<int64_t> dilation,
                      ArrayRef<int64_t> extra, int64_t groups, RankedTensorType resultType) {
  auto wt = typeOf(w);
  for (int i = 0; i < 2; ++i) {
    int64_t d = 2 + i, k = wt.getShape()[d];
    x = spread(b, loc, x, d, stride[i]);
    int64_t edge = dilation[i] * (k - 1) - pad[i];
    x = padded(b, loc, x, d, edge, edge + extra[i]);
  }
  // Flip the kernel spatially: take with indices k-1, ..., 0.
  for (int64_t d : {2, 3}) {
    int64_t k = wt.getShape()[d];
    Value reversed = b.create<IotaOp>(loc, RankedTensorType::get({k}, b.getI64Type()),
                                      b.getF64FloatAttr(k - 1), b.getF64FloatAttr(-1));
    w = b.create<TakeOp>(loc, typeOf(w), w, reversed, b.getI64IntegerAttr(d));
  }
  // [Cin, Cout/g, kh, kw] -> [g, Cin/g, Cout/g, kh, kw] -> [g, Cout/g, Cin/g, ...] -> [Cout, Cin/g, ...]
  auto ws = wt.getShape();
  int64_t cin = ws[0] / groups, cout = ws[1];
  Value grouped = makeReshape(b, loc, w, {groups, cin, cout, ws[2], ws[3]});
  Value swapped = b.create<TransposeOp>(
      loc, RankedTensorType::get({groups, cout, cin, ws[2], ws[3]}, wt.getElementType()), grouped,
      b.getDenseI64ArrayAttr({0, 2, 1, 3, 4}));
  w = makeReshape(b, loc, swapped, {groups * cout, cin, ws[2], ws[3]});
  return b.create<Conv2dOp>(loc, resultType, x, w, bias, b.getDenseI64ArrayAttr({1, 1}),
                            b.getDenseI64ArrayAttr({0, 0}),
                            b.getDenseI64ArrayAttr({dilation[0], dilation[1]}),
                            b.getI64IntegerAttr(groups));
}

/// conv_transpose2d (batched or not), and conv_transpose1d as the 2-D one
/// over a height of 1 ([N, C, L] or unbatched [C, L]).
Results legalizeConvTranspose(OperatorArgs &args, OpBuilder &b) {
  OperatorOp op = args.getOp();
  Location loc = op.getLoc();
  Value x = args.tensor("input"), w = args.tensor("weight"), bias = args.tensor("bias");
  if (!x || !w)
    return op.emitError("conv_transpose2d expects 'input' and 'weight' tensors");
  RankedTensorType out = args.resultType();
  int64_t groups = args.getInt("groups").value_or(1);
  bool oneD = typeOf(w).getRank() == 3;
  if (!oneD && typeOf(x).getRank() == 3 && typeOf(x).hasStaticShape()) {
    auto xs = typeOf(x).getShape();
    x = makeReshape(b, loc, x, {1, xs[0], xs[1], xs[2]});
  }
  if (oneD) {
    // [N, C, L] (or [C, L]) -> [N, C, 1, L]; [Cin, Cout/g, K] -> [Cin, Cout/g, 1, K].
    auto xs = typeOf(x).getShape();
    if ((xs.size() != 2 && xs.size() != 3) || !typeOf(x).hasStaticShape() || !out.hasStaticShape())
      return operatorError(args) << "conv_transpose1d needs a static (N, C, L) or (C, L) input";
    int64_t n = xs.size() == 3 ? xs[0] : 1;
    x = makeReshape(b, loc, x, {n, xs[xs.size() - 2], 1, xs.back()});
    auto ws = typeOf(w).getShape();
    w = makeReshape(b, loc, w, {ws[0], ws[1], 1, ws[2]});
  }
  auto xt = typeOf(x), wt = typeOf(w);
  if (xt.getRank() != 4 || wt.getRank() != 4 || !wt.hasStaticShape() ||
      ShapedType::isDynamic(xt.getShape()[2]) || ShapedType::isDynamic(xt.getShape()[3]) ||
      groups < 1 || wt.getShape()[0] % groups)
    return op.emitError("conv_transpose2d needs NCHW input with static spatial sizes and a "
                        "static weight whose in-channels divide by groups");
  if (!oneD) {
    // An unbatched (C, H, W) input is one image.
    RankedTensorType batched = out;
    if (out.getRank() == 3)
      batched = RankedTensorType::get({1, out.getShape()[0], out.getShape()[1], out.getShape()[2]},
                                      out.getElementType());
    Value y = convTranspose2d(b, loc, x, w, bias, pair(args.getInts("stride"), 1),
                              pair(args.getInts("padding"), 0), pair(args.getInts("dilation"), 1),
                              pair(args.getInts("output_padding"), 0), groups, batched);
    return SmallVector<Value>{makeReshape(b, loc, y, out.getShape())};
  }
  auto first = [&](StringRef name, int64_t dflt) {
    std::optional<SmallVector<int64_t>> v = args.getInts(name);
    return v && !v->empty() ? (*v)[0] : dflt;
  };
  int64_t length = out.getShape().back(), cout = out.getShape()[out.getRank() - 2];
  auto tall = RankedTensorType::get({xt.getShape()[0], cout, 1, length}, out.getElementType());
  Value y = convTranspose2d(b, loc, x, w, bias, {1, first("stride", 1)}, {0, first("padding", 0)},
                            {1, first("dilation", 1)}, {0, first("output_padding", 0)}, groups, tall);
  return SmallVector<Value>{makeReshape(b, loc, y, out.getShape())};
}
} // namespace

void tcc::graph::populateConvTransposeLegalizers(LegalizerTable &t) {
  t["aten.conv_transpose2d.input"] = legalizeConvTranspose;
  t["aten.conv_transpose1d.default"] = legalizeConvTranspose;
}

/// For convolution(transposed=True), shared with the plain convolution legalizer.
FailureOr<SmallVector<Value>> tcc::graph::legalizeTransposedConvolution(OperatorArgs &args,
                                                                        OpBuilder &b) {
  return legalizeConvTranspose(args, b);
}
