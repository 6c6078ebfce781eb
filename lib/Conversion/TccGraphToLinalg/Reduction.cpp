//===- Reduction.cpp - reduce_sum/max/mean/prod to linalg.reduce ----------===//
#include "lib/Conversion/TccGraphToLinalg/Patterns.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace tcc::graph;

namespace {
enum class Kind { Sum, Max, Mean, Prod };

template <typename SrcOp, Kind kind>
struct ReducePattern : OpConversionPattern<SrcOp> {
  using OpConversionPattern<SrcOp>::OpConversionPattern;
  LogicalResult matchAndRewrite(SrcOp op, typename SrcOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto resultType = cast<RankedTensorType>(op.getType());
    // f16/bf16 sums, means and products accumulate in f32, as PyTorch's do.
    if (kind != Kind::Max)
      x = tcc::convertElements(rewriter, loc, x,
                               tcc::accumulatorType(resultType.getElementType()));
    auto inT = cast<RankedTensorType>(x.getType());
    Type elt = inT.getElementType();
    SmallVector<int64_t> dims(op.getDims());
    llvm::sort(dims);
    int64_t rank = inT.getRank();

    // Shape without the reduced dims.
    SmallVector<int64_t> kept;
    SmallVector<std::pair<Value, int64_t>> from;
    for (int64_t i = 0; i < inT.getRank(); ++i)
      if (!llvm::is_contained(dims, i)) {
        kept.push_back(inT.getShape()[i]);
        from.push_back({x, i});
      }
    auto keptType = RankedTensorType::get(kept, elt);
    auto sizesOr = tcc::mixedSizes(rewriter, loc, keptType, from);
    if (failed(sizesOr))
      return rewriter.notifyMatchFailure(op, "dynamic size without a source");
    SmallVector<OpFoldResult> sizes = *sizesOr;
    // An integer sum (an i64 sum the legalizer could not bound below 2^53,
    // which f64 would round) adds integers: exact in any order, so no blocks.
    if (kind == Kind::Sum && isa<IntegerType>(elt)) {
      Value zero = tcc::makeFilled(rewriter, loc, keptType, sizes, rewriter.getIntegerAttr(elt, 0));
      Value summed = tcc::reduceDims(rewriter, loc, x, dims, zero,
                                     [](OpBuilder &b, Location l, Value element, Value acc) {
                                       return b.create<arith::AddIOp>(l, element, acc).getResult();
                                     });
      if (op.getKeepdim() || summed.getType() != resultType)
        return rewriter.notifyMatchFailure(op, "an integer sum with keepdim");
      rewriter.replaceOp(op, summed);
      return success();
    }
    double initValue = kind == Kind::Max    ? -std::numeric_limits<double>::infinity()
                       : kind == Kind::Prod ? 1.0
                                            : 0.0;
    Value init = tcc::makeFilled(rewriter, loc, keptType, sizes,
                                 tcc::floatAttr(rewriter, elt, initValue));
    // Sums of many terms are summed in blocks (BlockedSum.cpp); a max is
    // exact, and a product's rounding does not cancel as a sum's does. The
    // reduced dims are the innermost loops (what the GPU mapping takes),
    // wherever they are in memory.
    Value reduced =
        kind == Kind::Sum || kind == Kind::Mean
            ? tcc::sumDims(rewriter, loc, x, dims, init)
            : tcc::reduceDims(rewriter, loc, x, dims, init,
                              [&](OpBuilder &b, Location l, Value element, Value acc) -> Value {
                                if (kind == Kind::Max)
                                  return b.create<arith::MaximumFOp>(l, element, acc);
                                return b.create<arith::MulFOp>(l, element, acc);
                              });

    if (kind == Kind::Mean) {
      // Divide by the number of reduced elements (known only at run time for
      // symbolic dims).
      Value count = rewriter.create<arith::ConstantIndexOp>(loc, 1);
      for (int64_t d : dims)
        count = rewriter.create<arith::MulIOp>(loc, count,
                                               rewriter.create<tensor::DimOp>(loc, x, d));
      Value countF = rewriter.create<arith::SIToFPOp>(
          loc, elt, rewriter.create<arith::IndexCastOp>(loc, rewriter.getI64Type(), count));
      int64_t keptRank = keptType.getRank();
      auto id = rewriter.getMultiDimIdentityMap(keptRank);
      Value empty = rewriter.create<tensor::EmptyOp>(loc, sizes, elt);
      reduced = rewriter
                    .create<linalg::GenericOp>(
                        loc, TypeRange{empty.getType()}, ValueRange{reduced}, ValueRange{empty},
                        ArrayRef<AffineMap>{id, id},
                        SmallVector<utils::IteratorType>(keptRank, utils::IteratorType::parallel),
                        [&](OpBuilder &b, Location l, ValueRange a) {
                          b.create<linalg::YieldOp>(
                              l, ValueRange{b.create<arith::DivFOp>(l, a[0], countF)});
                        })
                    .getResult(0);
    }

    Value result = reduced;
    if (op.getKeepdim()) {
      // Re-insert the reduced dims as size 1: expand each kept dim, attaching
      // the unit dims to a neighbour.
      SmallVector<ReassociationIndices> re;
      if (keptType.getRank() == 0) {
        re.clear();
      } else {
        ReassociationIndices current;
        int64_t keptSeen = 0;
        for (int64_t i = 0; i < rank; ++i) {
          current.push_back(i);
          bool isKept = !llvm::is_contained(dims, i);
          if (isKept) ++keptSeen;
          // Close a group after a kept dim unless only unit dims follow.
          bool restAreUnit = true;
          for (int64_t j = i + 1; j < rank; ++j)
            if (!llvm::is_contained(dims, j)) restAreUnit = false;
          if (isKept && !restAreUnit) {
            re.push_back(current);
            current.clear();
          }
        }
        if (!current.empty())
          re.push_back(current);
      }
      SmallVector<int64_t> shape;
      SmallVector<OpFoldResult> outSizes;
      for (int64_t i = 0, k = 0; i < rank; ++i) {
        if (llvm::is_contained(dims, i)) {
          shape.push_back(1);
          outSizes.push_back(rewriter.getIndexAttr(1));
        } else {
          shape.push_back(kept[k]);
          outSizes.push_back(sizes[k]);
          ++k;
        }
      }
      auto type = RankedTensorType::get(shape, elt);
      result = rewriter.create<tensor::ExpandShapeOp>(loc, type, reduced, re, outSizes);
    }
    result = tcc::convertElements(rewriter, loc, result, resultType.getElementType());
    if (result.getType() != resultType)
      result = rewriter.create<tensor::CastOp>(loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void tcc::populateReductionToLinalgPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ReducePattern<ReduceSumOp, Kind::Sum>>(ctx);
  patterns.add<ReducePattern<ReduceMaxOp, Kind::Max>>(ctx);
  patterns.add<ReducePattern<ReduceMeanOp, Kind::Mean>>(ctx);
  patterns.add<ReducePattern<ReduceProdOp, Kind::Prod>>(ctx);
}
