//===- ConcatRotation.cpp - cat(x[s:], x[:s]) as one generic --------------===//
//
// cat(x[..., s:], x[..., :s]) along one dim is x rotated by s: torch.roll
// (Swin's shifted windows roll each block's input and output by 3 rows and 3
// columns) and rotary embeddings' rotate_half(x) = cat(-x[..., h:], x[..., :h])
// (LLaMA, GPT-NeoX, Qwen, Mistral...) are spelled this way. As insert_slices
// that is two copies per dim, and the rotated tensor is written out before
// the op that reads it. As one generic whose element i reads element
// (i + s) mod n (an affine map), elementwise fusion folds it, and what feeds
// it, into its consumer: a roll over two dims and the window partition after
// it are one kernel.
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

/// One input of the concat: the part [start, end) of `source` along the
/// concat dim, possibly negated.
struct Part {
  Value source;
  int64_t start = 0, end = 0;
  bool negated = false;
};

std::optional<Part> matchPart(Value v, int64_t dim) {
  Part part;
  if (auto neg = v.getDefiningOp<NegOp>()) {
    part.negated = true;
    v = neg.getInput();
  }
  auto slice = v.getDefiningOp<SliceOp>();
  if (!slice || slice.getDim() != dim || slice.getStep() != 1 || !slice.getDynamicSizes().empty())
    return std::nullopt;
  auto in = cast<RankedTensorType>(slice.getInput().getType());
  auto out = cast<RankedTensorType>(slice.getType());
  int64_t size = in.getShape()[dim], length = out.getShape()[dim];
  if (ShapedType::isDynamic(size) || ShapedType::isDynamic(length) || slice.getStart() < 0 ||
      slice.getStart() + length > size)
    return std::nullopt;
  part.source = slice.getInput();
  part.start = slice.getStart();
  part.end = slice.getStart() + length;
  return part;
}

struct ConcatRotationPattern : OpConversionPattern<ConcatOp> {
  ConcatRotationPattern(MLIRContext *context) : OpConversionPattern(context, /*benefit=*/3) {}

  LogicalResult matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    int64_t dim = op.getDim();
    if (op.getInputs().size() != 2)
      return failure();
    std::optional<Part> first = matchPart(op.getInputs()[0], dim);
    std::optional<Part> second = matchPart(op.getInputs()[1], dim);
    if (!first || !second || first->source != second->source)
      return failure();
    auto sourceType = cast<RankedTensorType>(first->source.getType());
    int64_t size = sourceType.getShape()[dim];
    // [s, n) then [0, s): rotated by s; [0, s) then [s, n): in order (only
    // worth a generic for the negation of one part).
    bool rotated = first->end == size && second->start == 0 && second->end == first->start &&
                   first->start > 0;
    bool inOrder = first->start == 0 && second->start == first->end && second->end == size &&
                   (first->negated || second->negated);
    if (!rotated && !inOrder)
      return failure();
    Value source = rewriter.getRemappedValue(first->source);
    auto type = cast<RankedTensorType>(source.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!source || type.getShape() != resultType.getShape() ||
        ((first->negated || second->negated) && !isa<FloatType>(type.getElementType())))
      return failure();
    Location loc = op.getLoc();
    int64_t rank = type.getRank();
    int64_t firstLength = first->end - first->start;

    // Output element i reads (i + s) mod n when rotated by s, else i.
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d) {
      AffineExpr i = rewriter.getAffineDimExpr(d);
      exprs.push_back(d == dim && rotated ? (i + first->start) % size : i);
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
              Value boundary = arith::ConstantIndexOp::create(b, l, firstLength);
              Value inFirst = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, i, boundary);
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

void tcc::populateConcatRotationToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ConcatRotationPattern>(patterns.getContext());
}
