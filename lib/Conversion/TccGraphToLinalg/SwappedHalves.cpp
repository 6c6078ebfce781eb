//===- SwappedHalves.cpp - concat of a tensor's two halves as one generic --===//
//
// Rotary position embeddings (LLaMA, GPT-NeoX, Qwen, Mistral...) spell
// rotate_half(x) as cat(-x[..., h:], x[..., :h]). As insert_slices that is two
// copies plus the negation, and the rotated tensor is written out before the
// multiply-add that reads it. As one generic whose element i reads element
// (i + h) mod 2h (an affine map), elementwise fusion folds it, and what feeds
// it, into its consumer.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TccGraphToLinalg/Patterns.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace tcc::graph;

namespace {

/// One input of the concat: a half of `source` along the concat dim,
/// possibly negated.
struct Half {
  Value source;
  int64_t index = 0; ///< 0: [0, h), 1: [h, 2h)
  bool negated = false;
};

std::optional<Half> matchHalf(Value v, int64_t dim) {
  Half half;
  if (auto neg = v.getDefiningOp<NegOp>()) {
    half.negated = true;
    v = neg.getInput();
  }
  auto slice = v.getDefiningOp<SliceOp>();
  if (!slice || slice.getDim() != dim || slice.getStep() != 1 || !slice.getDynamicSizes().empty())
    return std::nullopt;
  auto in = cast<RankedTensorType>(slice.getInput().getType());
  auto out = cast<RankedTensorType>(slice.getType());
  int64_t size = in.getShape()[dim], h = out.getShape()[dim];
  if (ShapedType::isDynamic(size) || size != 2 * h || (slice.getStart() != 0 && slice.getStart() != h))
    return std::nullopt;
  half.source = slice.getInput();
  half.index = slice.getStart() == 0 ? 0 : 1;
  return half;
}

struct SwappedHalvesPattern : OpConversionPattern<ConcatOp> {
  SwappedHalvesPattern(MLIRContext *context) : OpConversionPattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    int64_t dim = op.getDim();
    if (op.getInputs().size() != 2)
      return failure();
    std::optional<Half> first = matchHalf(op.getInputs()[0], dim);
    std::optional<Half> second = matchHalf(op.getInputs()[1], dim);
    if (!first || !second || first->source != second->source || first->index == second->index)
      return failure();
    Value source = rewriter.getRemappedValue(first->source);
    auto type = cast<RankedTensorType>(source.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!source || type.getShape() != resultType.getShape() ||
        ((first->negated || second->negated) && !isa<FloatType>(type.getElementType())))
      return failure();
    Location loc = op.getLoc();
    int64_t rank = type.getRank(), size = type.getShape()[dim], h = size / 2;

    // Output half 0 reads input half first->index: element i reads i when the
    // halves keep their order, else (i + h) mod 2h.
    bool swapped = first->index == 1;
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d) {
      AffineExpr i = rewriter.getAffineDimExpr(d);
      exprs.push_back(d == dim && swapped ? (i + h) % size : i);
    }
    AffineMap inMap = AffineMap::get(rank, 0, exprs, rewriter.getContext());
    AffineMap outMap = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(type.isDynamicDim(d)
                          ? OpFoldResult(tensor::DimOp::create(rewriter, loc, source, d).getResult())
                          : OpFoldResult(rewriter.getIndexAttr(type.getShape()[d])));
    Value init = tensor::EmptyOp::create(rewriter, loc, sizes, type.getElementType());
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    bool negFirst = first->negated, negSecond = second->negated;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, ValueRange{source}, ValueRange{init},
        ArrayRef<AffineMap>{inMap, outMap}, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0];
          Value result = x;
          if (negFirst || negSecond) {
            Value neg = arith::NegFOp::create(b, l, x);
            if (negFirst && negSecond) {
              result = neg;
            } else {
              Value i = linalg::IndexOp::create(b, l, dim);
              Value half = arith::ConstantIndexOp::create(b, l, h);
              Value inFirst = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, i, half);
              result = negFirst ? arith::SelectOp::create(b, l, inFirst, neg, x)
                                : arith::SelectOp::create(b, l, inFirst, x, neg);
            }
          }
          linalg::YieldOp::create(b, l, result);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void tcc::populateSwappedHalvesToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<SwappedHalvesPattern>(patterns.getContext());
}
