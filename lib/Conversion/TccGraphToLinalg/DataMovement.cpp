//===- DataMovement.cpp - transpose, reshape and concat to linalg/tensor --===//
#include "lib/Conversion/TccGraphToLinalg/Patterns.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

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

/// Expands a rank-1 tensor to `type`: its dynamic sizes are `dynamicSizes`,
/// or else (at most one) the element count divided by the static sizes.
Value expandFromFlat(OpBuilder &b, Location loc, Value flat, RankedTensorType type,
                     ValueRange dynamicSizes = {}) {
  if (type.getRank() == 0)
    return b.create<tensor::CollapseShapeOp>(loc, type, flat, ArrayRef<ReassociationIndices>{});
  SmallVector<OpFoldResult> sizes;
  if (!dynamicSizes.empty())  // given: every dynamic size in order
    sizes = getMixedValues(type.getShape(), dynamicSizes, b);
  int64_t staticProduct = 1;
  for (int64_t s : type.getShape())
    if (!ShapedType::isDynamic(s))
      staticProduct *= s;
  for (int64_t s : dynamicSizes.empty() ? type.getShape() : ArrayRef<int64_t>{}) {
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

/// Groups input and output dims of a reshape that keeps its symbolic dims:
/// each symbolic input dim pairs with one symbolic output dim, and runs of
/// static dims pair by equal products. Fails when the dims do not line up
/// that way (a symbolic dim merged with others).
std::optional<std::pair<SmallVector<ReassociationIndices>, SmallVector<ReassociationIndices>>>
groupKeepingSymbolicDims(ArrayRef<int64_t> in, ArrayRef<int64_t> out) {
  SmallVector<ReassociationIndices> inGroups, outGroups;
  size_t i = 0, j = 0;
  while (i < in.size() && j < out.size()) {
    if (ShapedType::isDynamic(in[i]) || ShapedType::isDynamic(out[j])) {
      if (!ShapedType::isDynamic(in[i]) || !ShapedType::isDynamic(out[j]))
        return std::nullopt;
      inGroups.push_back({(int64_t)i++});
      outGroups.push_back({(int64_t)j++});
      continue;
    }
    ReassociationIndices ig{(int64_t)i}, og{(int64_t)j};
    int64_t pin = in[i++], pout = out[j++];
    while (pin != pout) {
      bool growIn = pin < pout;
      size_t &k = growIn ? i : j;
      ArrayRef<int64_t> shape = growIn ? in : out;
      if (k >= shape.size() || ShapedType::isDynamic(shape[k]))
        return std::nullopt;
      (growIn ? ig : og).push_back(k);
      (growIn ? pin : pout) *= shape[k++];
    }
    inGroups.push_back(ig);
    outGroups.push_back(og);
  }
  // Trailing unit dims join the last group.
  for (; i < in.size(); ++i) {
    if (in[i] != 1 || inGroups.empty())
      return std::nullopt;
    inGroups.back().push_back(i);
  }
  for (; j < out.size(); ++j) {
    if (out[j] != 1 || outGroups.empty())
      return std::nullopt;
    outGroups.back().push_back(j);
  }
  return std::make_pair(inGroups, outGroups);
}

/// A reshape with symbolic dims as collapse + expand by matching groups: no
/// group ever holds two symbolic dims (upstream expand-strided-metadata
/// crashes on an expand_shape that does).
Value reshapeKeepingSymbolicDims(OpBuilder &b, Location loc, Value x, RankedTensorType type,
                                 ValueRange dynamicSizes) {
  auto inT = cast<RankedTensorType>(x.getType());
  auto groups = groupKeepingSymbolicDims(inT.getShape(), type.getShape());
  if (!groups)
    return nullptr;
  auto [inGroups, outGroups] = *groups;
  Value mid = x;
  if (inGroups.size() != (size_t)inT.getRank())
    mid = b.create<tensor::CollapseShapeOp>(loc, x, inGroups);
  if (outGroups.size() == (size_t)type.getRank())
    return mid;
  SmallVector<OpFoldResult> sizes;
  if (!dynamicSizes.empty()) {
    sizes = getMixedValues(type.getShape(), dynamicSizes, b);
  } else {
    for (auto [g, group] : llvm::enumerate(outGroups))
      for (int64_t d : group)
        sizes.push_back(ShapedType::isDynamic(type.getShape()[d])
                            ? OpFoldResult(b.create<tensor::DimOp>(loc, mid, g).getResult())
                            : OpFoldResult(b.getIndexAttr(type.getShape()[d])));
  }
  return b.create<tensor::ExpandShapeOp>(loc, type, mid, outGroups, sizes);
}

/// A reshape that splits or merges several symbolic dims at once ([1, B*T,
/// 256] to [B, T, 4, 64]) as a copy: element i of the result, in row-major
/// order, is element i of the input. An expand_shape whose group holds two
/// symbolic dims would be a view, but upstream expand-strided-metadata
/// crashes on it (see reshapeKeepingSymbolicDims).
Value reshapeByCopy(OpBuilder &b, Location loc, Value x, RankedTensorType type,
                    ValueRange dynamicSizes) {
  SmallVector<OpFoldResult> sizes = getMixedValues(type.getShape(), dynamicSizes, b);
  SmallVector<Value> extent;
  for (OpFoldResult size : sizes)
    extent.push_back(getValueOrCreateConstantIndexOp(b, loc, size));
  Value flat = tcc::flatten(b, loc, x);
  Value init = b.create<tensor::EmptyOp>(loc, sizes, type.getElementType());
  int64_t rank = type.getRank();
  Value result =
      b.create<linalg::GenericOp>(
           loc, TypeRange{init.getType()}, ValueRange{}, ValueRange{init},
           SmallVector<AffineMap>{b.getMultiDimIdentityMap(rank)},
           SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
           [&](OpBuilder &nb, Location l, ValueRange) {
             Value at = nb.create<linalg::IndexOp>(l, 0);
             for (int64_t d = 1; d < rank; ++d) {
               Value scaled = nb.create<arith::MulIOp>(l, at, extent[d]);
               Value index = nb.create<linalg::IndexOp>(l, d);
               at = nb.create<arith::AddIOp>(l, scaled, index);
             }
             nb.create<linalg::YieldOp>(l, nb.create<tensor::ExtractOp>(l, flat, at).getResult());
           })
          .getResult(0);
  if (result.getType() != type)
    result = b.create<tensor::CastOp>(loc, type, result);
  return result;
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
    if (!resultType.hasStaticShape() && inT.getRank() > 0) {
      if (Value r = reshapeKeepingSymbolicDims(rewriter, loc, x, resultType,
                                               adaptor.getDynamicSizes())) {
        if (r.getType() != resultType)
          r = rewriter.create<tensor::CastOp>(loc, resultType, r);
        rewriter.replaceOp(op, r);
        return success();
      }
      if (resultType.getNumDynamicDims() > 1) {
        if (adaptor.getDynamicSizes().empty())
          return op.emitOpError("reshape that merges symbolic dimensions with others needs "
                                "its symbolic sizes: ")
                 << inT << " to " << resultType;
        rewriter.replaceOp(op, reshapeByCopy(rewriter, loc, x, resultType,
                                             adaptor.getDynamicSizes()));
        return success();
      }
    }
    Value flat = tcc::flatten(rewriter, loc, x);
    Value result =
        resultType.getRank() == 1 && adaptor.getDynamicSizes().empty()
            ? flat
            : expandFromFlat(rewriter, loc, flat, resultType, adaptor.getDynamicSizes());
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
    // No elements (a static 0 beside symbolic sizes: an empty batch of an
    // adaptive pool's pieces): nothing to insert, and insert_slice's verifier
    // rejects offset 0 of a dim of 0.
    if (llvm::is_contained(resultType.getShape(), 0)) {
      Value empty = dest;
      if (empty.getType() != resultType)
        empty = rewriter.create<tensor::CastOp>(loc, resultType, empty);
      rewriter.replaceOp(op, empty);
      return success();
    }
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
    // An empty slice starts at 0: its start may be the dim's size (the last
    // piece of split_with_sizes [.., 0]), which extract_slice's verifier
    // rejects. FoldEmptyTensors takes such slices only when every size is
    // static.
    bool empty = adaptor.getDynamicSizes().empty() && resultType.getShape()[dim] == 0;
    offsets[dim] = rewriter.getIndexAttr(empty ? 0 : op.getStart());
    strides[dim] = rewriter.getIndexAttr(empty ? 1 : op.getStep());
    sizes[dim] = adaptor.getDynamicSizes().empty()
                     ? OpFoldResult(rewriter.getIndexAttr(resultType.getShape()[dim]))
                     : OpFoldResult(adaptor.getDynamicSizes()[0]);
    // Another dim of static size 0 (beside symbolic ones, which
    // FoldEmptyTensors leaves): the result holds nothing, and extract_slice's
    // verifier rejects any offset into that dim.
    if (llvm::is_contained(inT.getShape(), 0)) {
      Value nothing = rewriter.create<tensor::EmptyOp>(loc, sizes, resultType.getElementType());
      if (nothing.getType() != resultType)
        nothing = rewriter.create<tensor::CastOp>(loc, resultType, nothing);
      rewriter.replaceOp(op, nothing);
      return success();
    }
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
