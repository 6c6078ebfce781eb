//===- ConvPool.cpp - conv2d and 2-D pooling to linalg named ops ----------===//
//
// Padding is an explicit tensor.pad (zero for convolution and average
// pooling, -inf for max pooling over large windows); ceil_mode adds the extra
// trailing padding that makes the last window exist, computed at run time
// over symbolic sizes. Max pooling over small
// windows reads each window directly, with bounds checks (windowedMaxPool). The bias initialises the convolution's
// accumulator, so it costs no separate pass. f16/bf16 convolutions
// accumulate in f32 (the named ops widen their inputs to the output's type)
// and are rounded once, as PyTorch's.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TccGraphToLinalg/Patterns.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "tcc/Conversion/WindowCount.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <limits>

using namespace mlir;
using namespace tcc::graph;

namespace {
/// Pads the two spatial dims of an NCHW tensor (NHWC with `channelsLast`):
/// `low` before, `high` after (a size computed at run time where the input's
/// size is symbolic and ceil_mode adds a window).
Value padSpatial(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> low,
                 ArrayRef<OpFoldResult> high, TypedAttr padValue, bool channelsLast = false) {
  auto isZero = [](OpFoldResult v) {
    std::optional<int64_t> c = getConstantIntValue(v);
    return c && *c == 0;
  };
  if (llvm::all_of(low, [](int64_t v) { return v == 0; }) && llvm::all_of(high, isZero))
    return x;
  auto t = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(t.getShape());
  SmallVector<OpFoldResult> lo(4, b.getIndexAttr(0)), hi(4, b.getIndexAttr(0));
  int64_t first = channelsLast ? 1 : 2;
  for (int i = 0; i < 2; ++i) {
    lo[first + i] = b.getIndexAttr(low[i]);
    hi[first + i] = high[i];
    std::optional<int64_t> constantHigh = getConstantIntValue(high[i]);
    if (!constantHigh)
      shape[first + i] = ShapedType::kDynamic;
    else if (!ShapedType::isDynamic(shape[first + i]))
      shape[first + i] += low[i] + *constantHigh;
  }
  Value pad = b.create<arith::ConstantOp>(loc, padValue);
  auto type = RankedTensorType::get(shape, t.getElementType());
  return b.create<tensor::PadOp>(loc, type, x, lo, hi, pad);
}

Value padSpatial(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> low,
                 ArrayRef<int64_t> high, TypedAttr padValue, bool channelsLast = false) {
  SmallVector<OpFoldResult> hi;
  for (int64_t v : high)
    hi.push_back(b.getIndexAttr(v));
  return padSpatial(b, loc, x, low, hi, padValue, channelsLast);
}

/// Trailing padding needed so that `outSize` windows fit (ceil_mode): at
/// least `pad`, more where ceil_mode's last window runs past the padded input.
/// Computed at run time from the symbolic sizes `inSize` and `outSize` (the
/// window count) where the input's size is symbolic.
OpFoldResult extraHighPad(OpBuilder &b, Location loc, OpFoldResult inSize,
                          OpFoldResult outSize, int64_t kernel, int64_t stride,
                          int64_t dilation, int64_t pad) {
  std::optional<int64_t> in = getConstantIntValue(inSize), out = getConstantIntValue(outSize);
  int64_t span = dilation * (kernel - 1) + 1;
  if (in && out)
    return b.getIndexAttr(std::max(pad, (*out - 1) * stride + span - *in - pad));
  auto value = [&](OpFoldResult v) {
    return getValueOrCreateConstantIndexOp(b, loc, v);
  };
  auto index = [&](int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); };
  // (out - 1) * stride + span - in - pad
  Value lastStart = b.create<arith::MulIOp>(loc, value(outSize), index(stride));
  Value needed = b.create<arith::AddIOp>(loc, lastStart, index(span - stride - pad));
  Value extra = b.create<arith::SubIOp>(loc, needed, value(inSize));
  return b.create<arith::MaxSIOp>(loc, extra, index(pad)).getResult();
}

SmallVector<std::pair<Value, int64_t>> batchFrom(Value x, int64_t rank) {
  SmallVector<std::pair<Value, int64_t>> from(rank, {nullptr, -1});
  from[0] = {x, 0};
  return from;
}

struct Conv2dPattern : OpConversionPattern<Conv2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(Conv2dOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!resultType.hasStaticShape() &&
        (resultType.getNumDynamicDims() > 1 || !ShapedType::isDynamic(resultType.getShape()[0])))
      return rewriter.notifyMatchFailure(op, "only the batch dimension may be dynamic");
    Type elt = resultType.getElementType();
    auto pads = op.getPadding();
    Value x = padSpatial(rewriter, loc, adaptor.getInput(), pads, pads,
                         tcc::floatAttr(rewriter, elt, 0.0));
    Value w = adaptor.getWeight();
    auto sizesOr = tcc::mixedSizes(rewriter, loc, resultType, batchFrom(adaptor.getInput(), 4));
    if (failed(sizesOr))
      return rewriter.notifyMatchFailure(op, "only the batch dimension may be dynamic");
    SmallVector<OpFoldResult> sizes = *sizesOr;
    Type acc = tcc::accumulatorType(elt);
    auto accType = RankedTensorType::get(resultType.getShape(), acc);
    Value init;
    if (Value bias = adaptor.getBias()) {
      // out[n, f, h, w] = bias[f], widened to the accumulator.
      Value empty = rewriter.create<tensor::EmptyOp>(loc, sizes, acc);
      auto ctx = rewriter.getContext();
      AffineMap biasMap = AffineMap::get(4, 0, {rewriter.getAffineDimExpr(1)}, ctx);
      init = rewriter.create<linalg::GenericOp>(
          loc, TypeRange{empty.getType()}, ValueRange{bias}, ValueRange{empty},
          ArrayRef<AffineMap>{biasMap, rewriter.getMultiDimIdentityMap(4)},
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          [acc](OpBuilder &b, Location l, ValueRange a) {
            Value v = a[0];
            if (v.getType() != acc)
              v = b.create<arith::ExtFOp>(l, acc, v);
            b.create<linalg::YieldOp>(l, v);
          })
                 .getResult(0);
    } else {
      init = tcc::makeFilled(rewriter, loc, accType, sizes, tcc::floatAttr(rewriter, acc, 0.0));
    }
    auto strides = rewriter.getI64VectorAttr(op.getStride());
    auto dilations = rewriter.getI64VectorAttr(op.getDilation());
    int64_t groups = op.getGroups();
    Value result;
    if (groups == 1) {
      result = rewriter
                   .create<linalg::Conv2DNchwFchwOp>(loc, init.getType(), ValueRange{x, w},
                                                     ValueRange{init}, strides, dilations)
                   .getResult(0);
    } else {
      // [N, G*C, H, W] -> [N, G, C, H, W]; [G*F, C, kh, kw] -> [G, F, C, kh, kw].
      // PyTorch's weight is group-major, hence the _gfchw (not _fgchw) op.
      auto split = [&](Value v, int64_t dim) {
        auto t = cast<RankedTensorType>(v.getType());
        SmallVector<int64_t> shape(t.getShape());
        SmallVector<ReassociationIndices> re;
        SmallVector<int64_t> out;
        for (int64_t i = 0, r = 0; i < t.getRank(); ++i) {
          if (i == dim) {
            re.push_back({r, r + 1});
            out.push_back(groups);
            out.push_back(shape[i] == ShapedType::kDynamic ? shape[i] : shape[i] / groups);
            r += 2;
          } else {
            re.push_back({r});
            out.push_back(shape[i]);
            r += 1;
          }
        }
        auto type = RankedTensorType::get(out, t.getElementType());
        SmallVector<OpFoldResult> outSizes;
        for (int64_t i = 0, src = 0; i < (int64_t)out.size(); ++i) {
          if (ShapedType::isDynamic(out[i]))
            outSizes.push_back(rewriter.create<tensor::DimOp>(loc, v, src).getResult());
          else
            outSizes.push_back(rewriter.getIndexAttr(out[i]));
          if (!(i == dim)) ++src; // the split dim consumes two result dims
        }
        return rewriter.create<tensor::ExpandShapeOp>(loc, type, v, re, outSizes).getResult();
      };
      Value xg = split(x, 1), wg = split(w, 0), ig = split(init, 1);
      Value conv = rewriter
                       .create<linalg::Conv2DNgchwGfchwOp>(loc, ig.getType(), ValueRange{xg, wg},
                                                           ValueRange{ig}, strides, dilations)
                       .getResult(0);
      SmallVector<ReassociationIndices> re{{0}, {1, 2}, {3}, {4}};
      result = rewriter.create<tensor::CollapseShapeOp>(loc, init.getType(), conv, re);
    }
    result = tcc::convertElements(rewriter, loc, result, elt);
    if (result.getType() != resultType)
      result = rewriter.create<tensor::CastOp>(loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The pooling's input padded for its windows; `sizes` are the result's
/// (the window counts, read at run time where symbolic).
template <typename PoolOp>
Value poolInput(ConversionPatternRewriter &rewriter, PoolOp op, Value input,
                ArrayRef<OpFoldResult> sizes, TypedAttr padValue) {
  Location loc = op.getLoc();
  SmallVector<int64_t> low(op.getPadding());
  SmallVector<OpFoldResult> high;
  for (int i = 0; i < 2; ++i) {
    int64_t d = op.getSpatialDim(i);
    high.push_back(op.getCeilMode()
                       ? extraHighPad(rewriter, loc, tensor::getMixedSize(rewriter, loc, input, d),
                                      sizes[d], op.getKernel()[i], op.getStride()[i],
                                      op.getDilation()[i], low[i])
                       : rewriter.getIndexAttr(low[i]));
  }
  return padSpatial(rewriter, loc, input, low, high, padValue, op.getChannelsLast());
}

/// Size `d` of tensor `t` read at run time where it is symbolic; null
/// where it is static (the caller uses the constant).
Value symbolicSize(OpBuilder &b, Location loc, Value t, int64_t d) {
  if (!cast<RankedTensorType>(t.getType()).isDynamicDim(d))
    return nullptr;
  return b.create<tensor::DimOp>(loc, t, d);
}

/// The sizes of a pooling's result: symbolic spatial ones are the number of
/// windows over the input's size at run time, the others the input's.
template <typename PoolOp>
SmallVector<OpFoldResult> poolSizes(OpBuilder &b, Location loc, PoolOp op, Value input) {
  auto resultType = cast<RankedTensorType>(op.getType());
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < resultType.getRank(); ++d) {
    if (!resultType.isDynamicDim(d)) {
      sizes.push_back(b.getIndexAttr(resultType.getDimSize(d)));
      continue;
    }
    Value in = symbolicSize(b, loc, input, d);
    if (!in)
      in = b.create<arith::ConstantIndexOp>(
          loc, cast<RankedTensorType>(input.getType()).getDimSize(d));
    for (int i = 0; i < 2; ++i)
      if (d == op.getSpatialDim(i))
        in = tcc::windowCount(b, loc, in, op.getKernel()[i], op.getPadding()[i],
                              op.getStride()[i], op.getDilation()[i], op.getCeilMode());
    sizes.push_back(in);
  }
  return sizes;
}

/// Windows of at most this many elements are read as one expression per
/// output (below); larger ones stay a padded copy and a pooling loop nest.
constexpr int64_t kMaxUnrolledWindow = 64;

/// Max pooling as one parallel generic over the output: each output element
/// reads its window's kh x kw input elements directly, the ones in the
/// padding (or past the end, with ceil_mode) replaced by -inf. No padded copy
/// of the input and no -inf-filled accumulator: one kernel on the GPU where
/// the padded form was four (fill, copy, fill, pool), and the window's loads
/// are independent. NaN propagates as in PyTorch (arith.maximumf).
Value windowedMaxPool(OpBuilder &b, Location loc, MaxPool2dOp op, Value x,
                      ArrayRef<OpFoldResult> sizes, TypedAttr lowest) {
  auto resultType = cast<RankedTensorType>(op.getType());
  int64_t hd = op.getSpatialDim(0), wd = op.getSpatialDim(1);
  // The input's spatial sizes: static, or read at run time.
  auto inT = cast<RankedTensorType>(x.getType());
  int64_t in[2] = {inT.getShape()[hd], inT.getShape()[wd]};
  Value symbolicIn[2] = {symbolicSize(b, loc, x, hd), symbolicSize(b, loc, x, wd)};
  auto k = op.getKernel(), s = op.getStride(), p = op.getPadding(), d = op.getDilation();
  Value empty = b.create<tensor::EmptyOp>(loc, sizes, resultType.getElementType());
  auto id = b.getMultiDimIdentityMap(4);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{empty.getType()}, ValueRange{}, ValueRange{empty}, ArrayRef<AffineMap>{id},
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange) {
            auto index = [&](int64_t v) { return nb.create<arith::ConstantIndexOp>(l, v); };
            Value zero = index(0);
            // Per spatial dim and window offset: the input coordinate, clamped
            // into the input, and whether it lies inside.
            SmallVector<Value> at[2], inside[2];
            for (int i = 0; i < 2; ++i) {
              Value o = nb.create<linalg::IndexOp>(l, i == 0 ? hd : wd);
              Value scaled = nb.create<arith::MulIOp>(l, o, index(s[i]));
              Value start = nb.create<arith::SubIOp>(l, scaled, index(p[i]));
              for (int64_t j = 0; j < k[i]; ++j) {
                Value c = nb.create<arith::AddIOp>(l, start, index(j * d[i]));
                Value notBefore = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::sge, c, zero);
                Value notAfter =
                    nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, c,
                                             symbolicIn[i] ? symbolicIn[i] : index(in[i]));
                Value ok = nb.create<arith::AndIOp>(l, notBefore, notAfter);
                at[i].push_back(nb.create<arith::SelectOp>(l, ok, c, zero));
                inside[i].push_back(ok);
              }
            }
            Value lowestValue = nb.create<arith::ConstantOp>(l, lowest);
            SmallVector<Value> coords(4);
            coords[0] = nb.create<linalg::IndexOp>(l, 0);
            int64_t cd = op.getChannelsLast() ? 3 : 1;
            coords[cd] = nb.create<linalg::IndexOp>(l, cd);
            Value acc;
            for (int64_t r = 0; r < k[0]; ++r)
              for (int64_t c = 0; c < k[1]; ++c) {
                coords[hd] = at[0][r];
                coords[wd] = at[1][c];
                Value v = nb.create<tensor::ExtractOp>(l, x, coords);
                Value ok = nb.create<arith::AndIOp>(l, inside[0][r], inside[1][c]);
                v = nb.create<arith::SelectOp>(l, ok, v, lowestValue);
                acc = acc ? nb.create<arith::MaximumFOp>(l, acc, v).getResult() : v;
              }
            nb.create<linalg::YieldOp>(l, acc);
          })
      .getResult(0);
}

struct MaxPool2dPattern : OpConversionPattern<MaxPool2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MaxPool2dOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elt = resultType.getElementType();
    TypedAttr lowest = tcc::floatAttr(rewriter, elt, -std::numeric_limits<double>::infinity());
    SmallVector<OpFoldResult> sizes = poolSizes(rewriter, loc, op, adaptor.getInput());
    bool smallWindows = op.getKernel()[0] * op.getKernel()[1] <= kMaxUnrolledWindow;
    Value result;
    if (smallWindows) {
      result = windowedMaxPool(rewriter, loc, op, adaptor.getInput(), sizes, lowest);
    } else {
      Value x = poolInput(rewriter, op, adaptor.getInput(), sizes, lowest);
      Value init = tcc::makeFilled(rewriter, loc, resultType, sizes, lowest);
      Value window = rewriter.create<tensor::EmptyOp>(loc, op.getKernel(), elt);
      auto strides = rewriter.getI64VectorAttr(op.getStride());
      auto dilations = rewriter.getI64VectorAttr(op.getDilation());
      result = op.getChannelsLast()
                   ? rewriter
                         .create<linalg::PoolingNhwcMaxOp>(loc, init.getType(),
                                                           ValueRange{x, window}, ValueRange{init},
                                                           strides, dilations)
                         .getResult(0)
                   : rewriter
                         .create<linalg::PoolingNchwMaxOp>(loc, init.getType(),
                                                           ValueRange{x, window}, ValueRange{init},
                                                           strides, dilations)
                         .getResult(0);
    }
    if (result.getType() != resultType)
      result = rewriter.create<tensor::CastOp>(loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Sum pooling, then a division by each window's element count computed from
/// the output position exactly as PyTorch does (padding counted or not; a
/// ceil_mode window that runs past the padded input counts only what it covers).
struct AvgPool2dPattern : OpConversionPattern<AvgPool2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AvgPool2dOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    auto inT = cast<RankedTensorType>(adaptor.getInput().getType());
    int64_t hd = op.getSpatialDim(0), wd = op.getSpatialDim(1);
    Type elt = resultType.getElementType();
    // f16/bf16 windows are summed and divided in f32, then rounded once, as
    // PyTorch's kernels do (acc_type): a bf16 running sum loses a bit per term.
    Type acc = tcc::accumulatorType(elt);
    TypedAttr zero = tcc::floatAttr(rewriter, elt, 0.0);
    SmallVector<OpFoldResult> sizes = poolSizes(rewriter, loc, op, adaptor.getInput());
    Value x = poolInput(rewriter, op, adaptor.getInput(), sizes, zero);
    Value init = tcc::makeFilled(rewriter, loc, RankedTensorType::get(resultType.getShape(), acc),
                                 sizes, tcc::floatAttr(rewriter, acc, 0.0));
    Value window = rewriter.create<tensor::EmptyOp>(loc, op.getKernel(), elt);
    auto strides = rewriter.getI64VectorAttr(op.getStride());
    auto dilations = rewriter.getI64VectorAttr(op.getDilation());
    Value sum =
        op.getChannelsLast()
            ? rewriter
                  .create<linalg::PoolingNhwcSumOp>(loc, init.getType(), ValueRange{x, window},
                                                    ValueRange{init}, strides, dilations)
                  .getResult(0)
            : rewriter
                  .create<linalg::PoolingNchwSumOp>(loc, init.getType(), ValueRange{x, window},
                                                    ValueRange{init}, strides, dilations)
                  .getResult(0);
    // divisor(oh, ow) = countH(oh) * countW(ow)
    // The input's spatial sizes: static, or read at run time.
    int64_t in[2] = {inT.getShape()[hd], inT.getShape()[wd]};
    Value symbolicIn[2] = {symbolicSize(rewriter, loc, adaptor.getInput(), hd),
                           symbolicSize(rewriter, loc, adaptor.getInput(), wd)};
    auto k = op.getKernel(), s = op.getStride(), p = op.getPadding();
    bool includePad = op.getCountIncludePad();
    Value empty = rewriter.create<tensor::EmptyOp>(loc, sizes, elt);
    auto id = rewriter.getMultiDimIdentityMap(4);
    Value result =
        rewriter
            .create<linalg::GenericOp>(
                loc, TypeRange{empty.getType()}, ValueRange{sum}, ValueRange{empty},
                ArrayRef<AffineMap>{id, id},
                SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
                [&](OpBuilder &b, Location l, ValueRange a) {
                  auto cst = [&](int64_t v) {
                    return b.create<arith::ConstantIndexOp>(l, v).getResult();
                  };
                  Value count = cst(1);
                  for (int i = 0; i < 2; ++i) {
                    Value o = b.create<linalg::IndexOp>(l, i == 0 ? hd : wd);
                    // One op per statement: C++ leaves argument order
                    // unspecified, and the IR must not depend on the compiler.
                    Value scaled = b.create<arith::MulIOp>(l, o, cst(s[i]));
                    Value start = b.create<arith::SubIOp>(l, scaled, cst(p[i]));
                    Value past = b.create<arith::AddIOp>(l, start, cst(k[i]));
                    // The end of the padded input.
                    Value padEnd = symbolicIn[i]
                                       ? b.create<arith::AddIOp>(l, symbolicIn[i], cst(p[i]))
                                       : cst(in[i] + p[i]);
                    Value end = b.create<arith::MinSIOp>(l, past, padEnd);
                    if (!includePad) {
                      start = b.create<arith::MaxSIOp>(l, start, cst(0));
                      end = b.create<arith::MinSIOp>(l, end,
                                                     symbolicIn[i] ? symbolicIn[i] : cst(in[i]));
                    }
                    count = b.create<arith::MulIOp>(l, count,
                                                    b.create<arith::SubIOp>(l, end, start));
                  }
                  Value c = b.create<arith::IndexCastOp>(l, b.getI64Type(), count);
                  Value f = b.create<arith::SIToFPOp>(l, acc, c);
                  Value mean = b.create<arith::DivFOp>(l, a[0], f);
                  if (acc != elt)
                    mean = b.create<arith::TruncFOp>(l, elt, mean);
                  b.create<linalg::YieldOp>(l, ValueRange{mean});
                })
            .getResult(0);
    if (result.getType() != resultType)
      result = rewriter.create<tensor::CastOp>(loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void tcc::populateConvPoolToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<Conv2dPattern, MaxPool2dPattern, AvgPool2dPattern>(patterns.getContext());
}
