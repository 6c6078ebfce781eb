//===- Matmul.cpp - tcc_graph.matmul to a linalg contraction --------------===//
//
// A batched matmul with broadcast batch dims is one linalg.generic
// (parallel batch..., m, n; reduction k). Being a generic, a transposing
// producer (linear's weight^T) fuses into its indexing map instead of moving
// bytes.
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
struct MatmulPattern : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = cast<RankedTensorType>(lhs.getType());
    auto rt = cast<RankedTensorType>(rhs.getType());
    int64_t rank = resultType.getRank();          // batch... m n
    int64_t numLoops = rank + 1;                  // + k
    int64_t batch = rank - 2;
    AffineExpr m = rewriter.getAffineDimExpr(batch);
    AffineExpr n = rewriter.getAffineDimExpr(batch + 1);
    AffineExpr k = rewriter.getAffineDimExpr(batch + 2);
    SmallVector<std::pair<Value, int64_t>> dynamicFrom(rank, {nullptr, -1});

    auto operandMap = [&](Value v, RankedTensorType t, AffineExpr row, AffineExpr col,
                          int64_t rowResultDim, int64_t colResultDim) {
      SmallVector<AffineExpr> exprs;
      int64_t tb = t.getRank() - 2, offset = batch - tb;
      for (int64_t i = 0; i < tb; ++i) {
        int64_t s = t.getShape()[i], r = resultType.getShape()[offset + i];
        if (s == 1 && r != 1) {
          exprs.push_back(rewriter.getAffineConstantExpr(0));
        } else {
          exprs.push_back(rewriter.getAffineDimExpr(offset + i));
          if (ShapedType::isDynamic(s) && !dynamicFrom[offset + i].first)
            dynamicFrom[offset + i] = {v, i};
        }
      }
      exprs.push_back(row);
      exprs.push_back(col);
      if (rowResultDim >= 0 && ShapedType::isDynamic(t.getShape()[tb]))
        dynamicFrom[rowResultDim] = {v, tb};
      if (colResultDim >= 0 && ShapedType::isDynamic(t.getShape()[tb + 1]))
        dynamicFrom[colResultDim] = {v, tb + 1};
      return AffineMap::get(numLoops, 0, exprs, rewriter.getContext());
    };
    AffineMap lhsMap = operandMap(lhs, lt, m, k, batch, -1);
    AffineMap rhsMap = operandMap(rhs, rt, k, n, -1, batch + 1);
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < rank; ++i)
      outExprs.push_back(rewriter.getAffineDimExpr(i));
    AffineMap outMap = AffineMap::get(numLoops, 0, outExprs, rewriter.getContext());

    // f16/bf16 products accumulate in f32, as PyTorch's do, and are rounded once.
    Type elt = tcc::accumulatorType(resultType.getElementType());
    auto accType = RankedTensorType::get(resultType.getShape(), elt);
    auto sizes = tcc::mixedSizes(rewriter, loc, accType, dynamicFrom);
    if (failed(sizes))
      return rewriter.notifyMatchFailure(op, "dynamic size without a source");
    Value init = tcc::makeFilled(rewriter, loc, accType, *sizes, tcc::floatAttr(rewriter, elt, 0.0));
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{init.getType()}, ValueRange{lhs, rhs}, ValueRange{init},
        ArrayRef<AffineMap>{lhsMap, rhsMap, outMap}, iters,
        [&](OpBuilder &b, Location l, ValueRange a) {
          auto widen = [&](Value v) {
            return v.getType() == elt ? v : b.create<arith::ExtFOp>(l, elt, v).getResult();
          };
          // One widening per statement: argument order is the compiler's.
          Value lhsElement = widen(a[0]);
          Value rhsElement = widen(a[1]);
          Value p = b.create<arith::MulFOp>(l, lhsElement, rhsElement);
          b.create<linalg::YieldOp>(l, ValueRange{b.create<arith::AddFOp>(l, a[2], p)});
        });
    Value result = tcc::convertElements(rewriter, loc, generic.getResult(0),
                                        resultType.getElementType());
    if (result.getType() != resultType)
      result = rewriter.create<tensor::CastOp>(loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void tcc::populateMatmulToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<MatmulPattern>(patterns.getContext());
}
