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
#include "tcc/Support/RandomState.h"

#include <cmath>

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

/// tcc_graph.random: each element hashes (state, stream, its row-major
/// position) as tcc::randomBits does; the state is read inside the generic
/// (a broadcast input), so on the CUDA path the kernel reads it.
struct RandomPattern : OpConversionPattern<RandomOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(RandomOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type elt = type.getElementType();
    int64_t rank = type.getRank();
    auto floatType = dyn_cast<FloatType>(elt);
    // Random bits kept: the type's precision, so k * 2^-p is exact in it.
    int64_t precision = floatType ? floatType.getFPMantissaWidth() : 63;
    Value init = rewriter.create<tensor::EmptyOp>(loc, type, adaptor.getDynamicSizes());
    MLIRContext *ctx = rewriter.getContext();
    AffineMap stateMap = AffineMap::get(rank, 0, {getAffineConstantExpr(0, ctx)}, ctx);
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(rewriter.create<tensor::DimOp>(loc, init, d));
    uint64_t stream = static_cast<uint64_t>(op.getStream());
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, ValueRange{adaptor.getState()}, ValueRange{init},
        ArrayRef<AffineMap>{stateMap, rewriter.getMultiDimIdentityMap(rank)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Type i64 = b.getI64Type();
          auto c = [&](uint64_t v) {
            return b.create<arith::ConstantOp>(l, b.getIntegerAttr(i64, static_cast<int64_t>(v)))
                .getResult();
          };
          // One op per statement: argument order is the compiler's (issue 17).
          auto mix = [&](Value z) {
            Value s30 = b.create<arith::ShRUIOp>(l, z, c(30));
            Value x30 = b.create<arith::XOrIOp>(l, z, s30);
            Value m1 = b.create<arith::MulIOp>(l, x30, c(tcc::kRandomMix1));
            Value s27 = b.create<arith::ShRUIOp>(l, m1, c(27));
            Value x27 = b.create<arith::XOrIOp>(l, m1, s27);
            Value m2 = b.create<arith::MulIOp>(l, x27, c(tcc::kRandomMix2));
            Value s31 = b.create<arith::ShRUIOp>(l, m2, c(31));
            return b.create<arith::XOrIOp>(l, m2, s31).getResult();
          };
          // The row-major position, counted from 1.
          Value position = b.create<arith::ConstantIndexOp>(l, 1);
          Value stride = b.create<arith::ConstantIndexOp>(l, 1);
          for (int64_t d = rank - 1; d >= 0; --d) {
            Value index = b.create<linalg::IndexOp>(l, d);
            Value scaled = b.create<arith::MulIOp>(l, index, stride);
            position = b.create<arith::AddIOp>(l, position, scaled);
            if (d > 0)
              stride = b.create<arith::MulIOp>(l, stride, sizes[d]);
          }
          Value counter = b.create<arith::IndexCastOp>(l, i64, position);
          Value scaledState = b.create<arith::MulIOp>(l, args[0], c(tcc::kRandomStateMultiplier));
          Value streamKey = c(stream * tcc::kRandomStreamMultiplier);
          Value key = mix(b.create<arith::AddIOp>(l, scaledState, streamKey));
          Value step = b.create<arith::MulIOp>(l, counter, c(tcc::kRandomStateMultiplier));
          Value bits = mix(b.create<arith::AddIOp>(l, key, step));
          Value kept = b.create<arith::ShRUIOp>(l, bits, c(64 - precision));
          Value r = kept;
          if (floatType) {
            // Exact in f64 (at most 53 bits), then exact in the type.
            Value f = b.create<arith::UIToFPOp>(l, b.getF64Type(), kept);
            Value unit = b.create<arith::ConstantOp>(
                l, b.getF64FloatAttr(std::ldexp(1.0, -static_cast<int>(precision))));
            r = b.create<arith::MulFOp>(l, f, unit);
            if (!elt.isF64())
              r = b.create<arith::TruncFOp>(l, elt, r);
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
  patterns.add<IotaPattern, RandomPattern, CumsumPattern, DimSizePattern>(patterns.getContext());
}
