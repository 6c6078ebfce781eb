//===- LegalizeConvTranspose.cpp - conv_transpose1d/2d/3d as convolutions -===//
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

/// The transposed convolution of [N, C, spatial..] x (2 or 3 static spatial
/// dims) by w [Cin, Cout/g, k..], with per-dim stride, padding, dilation,
/// output padding.
Value convTransposeNd(OpBuilder &b, Location loc, Value x, Value w, Value bias,
                      ArrayRef<int64_t> stride, ArrayRef<int64_t> pad, ArrayRef<int64_t> dilation,
                      ArrayRef<int64_t> extra, int64_t groups, RankedTensorType resultType) {
  auto wt = typeOf(w);
  int64_t spatial = wt.getRank() - 2;
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t d = 2 + i, k = wt.getShape()[d];
    x = spread(b, loc, x, d, stride[i]);
    int64_t edge = dilation[i] * (k - 1) - pad[i];
    x = padConstant(b, loc, x, d, edge, edge + extra[i]);
  }
  // Flip the kernel spatially: take with indices k-1, ..., 0.
  for (int64_t d = 2; d < 2 + spatial; ++d) {
    int64_t k = wt.getShape()[d];
    Value reversed = b.create<IotaOp>(loc, RankedTensorType::get({k}, b.getI64Type()),
                                      b.getF64FloatAttr(k - 1), b.getF64FloatAttr(-1));
    w = b.create<TakeOp>(loc, typeOf(w), w, reversed, b.getI64IntegerAttr(d));
  }
  // [Cin, Cout/g, k..] -> [g, Cin/g, Cout/g, k..] -> [g, Cout/g, Cin/g, k..] -> [Cout, Cin/g, k..]
  auto ws = wt.getShape();
  int64_t cin = ws[0] / groups, cout = ws[1];
  SmallVector<int64_t> groupedShape{groups, cin, cout}, swappedShape{groups, cout, cin},
      perm{0, 2, 1}, flatShape{groups * cout, cin};
  for (int64_t i = 0; i < spatial; ++i) {
    groupedShape.push_back(ws[2 + i]);
    swappedShape.push_back(ws[2 + i]);
    perm.push_back(3 + i);
    flatShape.push_back(ws[2 + i]);
  }
  Value grouped = makeReshape(b, loc, w, groupedShape);
  Value swapped = b.create<TransposeOp>(
      loc, RankedTensorType::get(swappedShape, wt.getElementType()), grouped,
      b.getDenseI64ArrayAttr(perm));
  w = makeReshape(b, loc, swapped, flatShape);
  return makeConvolution(b, loc, x, w, bias, SmallVector<int64_t>(spatial, 1),
                         SmallVector<int64_t>(spatial, 0), dilation, groups, resultType);
}

/// conv_transpose2d (batched or not), and conv_transpose1d as the 2-D one
/// over a height of 1 ([N, C, L] or unbatched [C, L]).
Results legalizeConvTranspose(OperatorArgs &args, OpBuilder &b) {
  OperatorOp op = args.getOp();
  Location loc = op.getLoc();
  Value x = args.tensor("input"), w = args.tensor("weight"), bias = args.tensor("bias");
  if (!x || !w)
    return operatorError(args) << "expects 'input' and 'weight' tensors";
  RankedTensorType out = args.resultType();
  int64_t groups = args.getInt("groups").value_or(1);
  int64_t spatial = typeOf(w).getRank() - 2;
  bool oneD = spatial == 1;
  if (!oneD && typeOf(x).getRank() == spatial + 1 && typeOf(x).hasStaticShape()) {
    SmallVector<int64_t> shape{1};
    llvm::append_range(shape, typeOf(x).getShape());
    x = makeReshape(b, loc, x, shape);
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
  bool staticSpatial = xt.getRank() == wt.getRank();
  for (int64_t d = 1; staticSpatial && d < xt.getRank(); ++d)
    staticSpatial = !ShapedType::isDynamic(xt.getShape()[d]);
  if (wt.getRank() < 4 || wt.getRank() > 5 || !staticSpatial || !wt.hasStaticShape() ||
      groups < 1 || wt.getShape()[0] % groups)
    return operatorError(args) << "needs an (N, C, spatial..) input with static channel and "
                                  "spatial sizes and a static weight whose in-channels divide by "
                                  "groups";
  if (!oneD) {
    // An unbatched (C, spatial..) input is one image.
    RankedTensorType batched = out;
    if (out.getRank() == spatial + 1) {
      SmallVector<int64_t> shape{1};
      llvm::append_range(shape, out.getShape());
      batched = RankedTensorType::get(shape, out.getElementType());
    }
    for (int64_t d = 1; d < batched.getRank(); ++d)
      if (ShapedType::isDynamic(batched.getShape()[d]))
        return operatorError(args) << "needs a result of static channel and spatial sizes";
    Value y = convTransposeNd(b, loc, x, w, bias, perDim(args.getInts("stride"), spatial, 1),
                              perDim(args.getInts("padding"), spatial, 0),
                              perDim(args.getInts("dilation"), spatial, 1),
                              perDim(args.getInts("output_padding"), spatial, 0), groups, batched);
    return SmallVector<Value>{makeReshape(b, loc, y, out.getShape())};
  }
  auto first = [&](StringRef name, int64_t dflt) {
    std::optional<SmallVector<int64_t>> v = args.getInts(name);
    return v && !v->empty() ? (*v)[0] : dflt;
  };
  int64_t length = out.getShape().back(), cout = out.getShape()[out.getRank() - 2];
  auto tall = RankedTensorType::get({xt.getShape()[0], cout, 1, length}, out.getElementType());
  Value y = convTransposeNd(b, loc, x, w, bias, {1, first("stride", 1)}, {0, first("padding", 0)},
                            {1, first("dilation", 1)}, {0, first("output_padding", 0)}, groups, tall);
  return SmallVector<Value>{makeReshape(b, loc, y, out.getShape())};
}
} // namespace

void tcc::graph::populateConvTransposeLegalizers(LegalizerTable &t) {
  t["aten.conv_transpose2d.input"] = legalizeConvTranspose;
  t["aten.conv_transpose1d.default"] = legalizeConvTranspose;
  t["aten.conv_transpose3d.input"] = legalizeConvTranspose;
}

/// For convolution(transposed=True), shared with the plain convolution legalizer.
FailureOr<SmallVector<Value>> tcc::graph::legalizeTransposedConvolution(OperatorArgs &args,
                                                                        OpBuilder &b) {
  return legalizeConvTranspose(args, b);
}
