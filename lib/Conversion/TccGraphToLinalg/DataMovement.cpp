//===- DataMovement.cpp - transpose, reshape and concat to linalg/tensor --===//
#include "lib/Conversion/TccGraphToLinalg/Patterns.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
/// A permutation as an all-parallel generic (not linalg.transpose), so that
/// elementwise fusion can fold it into its consumer's indexing map.
struct TransposePattern : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> perm = op.getPermutation();
    int64_t rank = resultType.getRank();
    // input dim perm[i] is iterated by loop i.
    SmallVector<AffineExpr> inExprs(rank);
    SmallVector<std::pair<Value, int64_t>> from;
    for (int64_t i = 0; i < rank; ++i) {
      inExprs[perm[i]] = rewriter.getAffineDimExpr(i);
      from.push_back({adaptor.getInput(), perm[i]});
    }
    AffineMap inMap = AffineMap::get(rank, 0, inExprs, rewriter.getContext());
    auto sizes = tcc::mixedSizes(rewriter, loc, resultType, from);
    if (failed(sizes))
      return rewriter.notifyMatchFailure(op, "dynamic size without a source");
    Value init = rewriter.create<tensor::EmptyOp>(loc, *sizes, resultType.getElementType());
    Value result =
        rewriter
            .create<linalg::GenericOp>(
                loc, TypeRange{init.getType()}, ValueRange{adaptor.getInput()}, ValueRange{init},
                ArrayRef<AffineMap>{inMap, rewriter.getMultiDimIdentityMap(rank)},
                SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
                [](OpBuilder &b, Location l, ValueRange a) { b.create<linalg::YieldOp>(l, a[0]); })
            .getResult(0);
    if (result.getType() != resultType)
      result = rewriter.create<tensor::CastOp>(loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Expands a rank-1 tensor to `type` (at most one dynamic dim, derived from
/// the element count).
Value expandFromFlat(OpBuilder &b, Location loc, Value flat, RankedTensorType type) {
  if (type.getRank() == 0)
    return b.create<tensor::CollapseShapeOp>(loc, type, flat, ArrayRef<ReassociationIndices>{});
  SmallVector<OpFoldResult> sizes;
  int64_t staticProduct = 1;
  for (int64_t s : type.getShape())
    if (!ShapedType::isDynamic(s))
      staticProduct *= s;
  for (int64_t s : type.getShape()) {
    if (!ShapedType::isDynamic(s)) {
      sizes.push_back(b.getIndexAttr(s));
      continue;
    }
    Value n = b.create<tensor::DimOp>(loc, flat, 0);
    sizes.push_back(b.create<arith::DivUIOp>(
                         loc, n, b.create<arith::ConstantIndexOp>(loc, staticProduct))
                        .getResult());
  }
  ReassociationIndices all;
  for (int64_t i = 0; i < type.getRank(); ++i)
    all.push_back(i);
  return b.create<tensor::ExpandShapeOp>(loc, type, flat, ArrayRef<ReassociationIndices>{all},
                                         sizes);
}

/// Row-major reshape: collapse everything to 1-D, then expand. The pair of
/// reshapes is free after bufferization (both are views of the same buffer).
struct ReshapePattern : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto inT = cast<RankedTensorType>(x.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    // A rank-0 input has exactly one element: expand it straight to the
    // (all-unit) result; collapse_shape cannot raise the rank to 1.
    if (inT.getRank() == 0) {
      SmallVector<OpFoldResult> ones(resultType.getRank(), rewriter.getIndexAttr(1));
      auto type = RankedTensorType::get(SmallVector<int64_t>(resultType.getRank(), 1),
                                        inT.getElementType());
      Value result = rewriter.create<tensor::ExpandShapeOp>(
          loc, type, x, ArrayRef<ReassociationIndices>{}, ones);
      if (result.getType() != resultType)
        result = rewriter.create<tensor::CastOp>(loc, resultType, result);
      rewriter.replaceOp(op, result);
      return success();
    }
    Value flat = tcc::flatten(rewriter, loc, x);
    Value result =
        resultType.getRank() == 1 ? flat : expandFromFlat(rewriter, loc, flat, resultType);
    if (result.getType() != resultType)
      result = rewriter.create<tensor::CastOp>(loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Concatenation as insert_slices into one destination, which bufferization
/// turns into copies into subviews of a single buffer.
struct ConcatPattern : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t rank = resultType.getRank(), dim = op.getDim();
    ValueRange inputs = adaptor.getInputs();
    // Sizes: the first input's along every dim but `dim`, whose size is the
    // sum of the inputs' sizes.
    SmallVector<OpFoldResult> sizes;
    for (int64_t i = 0; i < rank; ++i) {
      if (!ShapedType::isDynamic(resultType.getShape()[i])) {
        sizes.push_back(rewriter.getIndexAttr(resultType.getShape()[i]));
      } else if (i != dim) {
        sizes.push_back(rewriter.create<tensor::DimOp>(loc, inputs[0], i).getResult());
      } else {
        Value total = rewriter.create<arith::ConstantIndexOp>(loc, 0);
        for (Value v : inputs)
          total = rewriter.create<arith::AddIOp>(loc, total,
                                                 rewriter.create<tensor::DimOp>(loc, v, dim));
        sizes.push_back(total);
      }
    }
    Value dest = rewriter.create<tensor::EmptyOp>(loc, sizes, resultType.getElementType());
    OpFoldResult offset = rewriter.getIndexAttr(0);
    for (Value v : inputs) {
      auto t = cast<RankedTensorType>(v.getType());
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[dim] = offset;
      SmallVector<OpFoldResult> vsizes;
      for (int64_t i = 0; i < rank; ++i)
        vsizes.push_back(ShapedType::isDynamic(t.getShape()[i])
                             ? OpFoldResult(rewriter.create<tensor::DimOp>(loc, v, i).getResult())
                             : OpFoldResult(rewriter.getIndexAttr(t.getShape()[i])));
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      dest = rewriter.create<tensor::InsertSliceOp>(loc, v, dest, offsets, vsizes, strides);
      // offset += size along dim
      if (auto a = getConstantIntValue(offset); a && !ShapedType::isDynamic(t.getShape()[dim]))
        offset = rewriter.getIndexAttr(*a + t.getShape()[dim]);
      else
        offset = rewriter
                     .create<arith::AddIOp>(
                         loc, getValueOrCreateConstantIndexOp(rewriter, loc, offset),
                         getValueOrCreateConstantIndexOp(rewriter, loc, vsizes[dim]))
                     .getResult();
    }
    Value result = dest;
    if (result.getType() != resultType)
      result = rewriter.create<tensor::CastOp>(loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace


namespace {
/// A strided slice along one static dim is a tensor.extract_slice (a view
/// after bufferization when the consumer allows).
struct SlicePattern : OpConversionPattern<tcc::graph::SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tcc::graph::SliceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto inT = cast<RankedTensorType>(x.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t rank = inT.getRank(), dim = op.getDim();
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes;
    for (int64_t i = 0; i < rank; ++i)
      sizes.push_back(ShapedType::isDynamic(inT.getShape()[i])
                          ? OpFoldResult(rewriter.create<tensor::DimOp>(loc, x, i).getResult())
                          : OpFoldResult(rewriter.getIndexAttr(inT.getShape()[i])));
    offsets[dim] = rewriter.getIndexAttr(op.getStart());
    strides[dim] = rewriter.getIndexAttr(op.getStep());
    sizes[dim] = rewriter.getIndexAttr(resultType.getShape()[dim]);
    Value result = rewriter.create<tensor::ExtractSliceOp>(loc, x, offsets, sizes, strides);
    if (result.getType() != resultType)
      result = rewriter.create<tensor::CastOp>(loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void tcc::populateDataMovementToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<TransposePattern, ReshapePattern, ConcatPattern, SlicePattern>(
      patterns.getContext());
}
