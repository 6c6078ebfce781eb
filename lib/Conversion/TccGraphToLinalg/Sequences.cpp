//===- Sequences.cpp - iota (arange) and cumsum to linalg.generic ---------===//
//
// Both depend on an element's position, so their bodies read linalg.index.
// cumsum is a generic with one extra reduction loop k over the scanned dim
// that adds x[..k..] where k <= j: quadratic in that dim's size, which is
// fine for the position-id and mask scans models do (sequence lengths), and
// keeps the op a plain linalg.generic that both code paths already lower.
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
struct IotaPattern : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(IotaOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type elt = type.getElementType();
    double start = op.getStart().convertToDouble(), step = op.getStep().convertToDouble();
    Value init = rewriter.create<tensor::EmptyOp>(loc, type, adaptor.getDynamicSizes());
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(1)},
        SmallVector<utils::IteratorType>{utils::IteratorType::parallel},
        [&](OpBuilder &b, Location l, ValueRange) {
          Value i = b.create<arith::IndexCastOp>(l, b.getI64Type(),
                                                 b.create<linalg::IndexOp>(l, 0));
          Value r;
          if (isa<FloatType>(elt)) {
            Value f = b.create<arith::SIToFPOp>(l, b.getF64Type(), i);
            auto c = [&](double v) {
              return b.create<arith::ConstantOp>(l, b.getF64FloatAttr(v)).getResult();
            };
            // One op per statement: argument order is the compiler's (issue 17).
            Value first = c(start);
            Value offset = b.create<arith::MulFOp>(l, f, c(step));
            r = b.create<arith::AddFOp>(l, first, offset);
            if (elt != b.getF64Type())
              r = b.create<arith::TruncFOp>(l, elt, r);
          } else {
            auto c = [&](double v) {
              return b.create<arith::ConstantOp>(l, b.getI64IntegerAttr((int64_t)v)).getResult();
            };
            Value first = c(start);
            Value offset = b.create<arith::MulIOp>(l, i, c(step));
            r = b.create<arith::AddIOp>(l, first, offset);
            if (elt.getIntOrFloatBitWidth() < 64)
              r = b.create<arith::TruncIOp>(l, elt, r);
          }
          b.create<linalg::YieldOp>(l, r);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct CumsumPattern : OpConversionPattern<CumsumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CumsumOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    Type elt = type.getElementType();
    int64_t rank = type.getRank(), dim = op.getDim();
    if (rank == 0) {
      rewriter.replaceOp(op, x);
      return success();
    }
    SmallVector<std::pair<Value, int64_t>> from;
    for (int64_t i = 0; i < rank; ++i)
      from.push_back({x, i});
    auto sizes = tcc::mixedSizes(rewriter, loc, type, from);
    if (failed(sizes))
      return rewriter.notifyMatchFailure(op, "dynamic size without a source");
    // f16/bf16 scans accumulate in f32 and are rounded once, as PyTorch's
    // (acc_type): a running sum rounded to 8 bits at every step drifts.
    Type acc = tcc::accumulatorType(elt);
    auto accType = RankedTensorType::get(type.getShape(), acc);
    TypedAttr zero = isa<FloatType>(elt) ? TypedAttr(rewriter.getFloatAttr(acc, 0.0))
                                         : TypedAttr(rewriter.getIntegerAttr(elt, 0));
    Value init = tcc::makeFilled(rewriter, loc, accType, *sizes, zero);
    // Loops d0..d(rank-1) over the result, then k over the scanned dim.
    SmallVector<AffineExpr> inExprs;
    for (int64_t i = 0; i < rank; ++i)
      inExprs.push_back(rewriter.getAffineDimExpr(i == dim ? rank : i));
    MLIRContext *ctx = rewriter.getContext();
    AffineMap inMap = AffineMap::get(rank + 1, 0, inExprs, ctx);
    AffineMap outMap =
        AffineMap::get(rank + 1, 0, AffineMap::getMultiDimIdentityMap(rank, ctx).getResults(), ctx);
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{accType}, ValueRange{x}, ValueRange{init},
        ArrayRef<AffineMap>{inMap, outMap}, iters,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value j = b.create<linalg::IndexOp>(l, dim);
          Value k = b.create<linalg::IndexOp>(l, rank);
          Value inPrefix = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::ule, k, j);
          Value element = a[0];
          if (acc != elt)
            element = b.create<arith::ExtFOp>(l, acc, element);
          Value zeroV = b.create<arith::ConstantOp>(l, zero);
          Value term = b.create<arith::SelectOp>(l, inPrefix, element, zeroV);
          Value sum = isa<FloatType>(elt) ? b.create<arith::AddFOp>(l, a[1], term).getResult()
                                          : b.create<arith::AddIOp>(l, a[1], term).getResult();
          b.create<linalg::YieldOp>(l, sum);
        });
    Value result = tcc::convertElements(rewriter, loc, generic.getResult(0), elt);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A size read on the host (from the buffer's descriptor) and filled into a
/// rank-0 tensor, which kernels then read like any operand.
struct DimSizePattern : OpConversionPattern<DimSizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DimSizeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value size = rewriter.create<tensor::DimOp>(loc, adaptor.getInput(), op.getDim());
    size = rewriter.create<arith::IndexCastOp>(loc, rewriter.getI64Type(), size);
    Value empty = rewriter.create<tensor::EmptyOp>(loc, ArrayRef<int64_t>{},
                                                   rewriter.getI64Type());
    rewriter.replaceOp(op, rewriter.create<linalg::FillOp>(loc, size, empty).getResult(0));
    return success();
  }
};
} // namespace

void tcc::populateSequenceToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<IotaPattern, CumsumPattern, DimSizePattern>(patterns.getContext());
}
