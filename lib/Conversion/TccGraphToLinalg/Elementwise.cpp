//===- Elementwise.cpp - pointwise tcc_graph ops to linalg.generic --------===//
//
// Every pointwise op becomes one all-parallel linalg.generic whose indexing
// maps encode broadcasting (a static size-1 operand dim maps to constant 0).
// Chains of them are then merged into one loop nest by upstream
// linalg elementwise fusion.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TccGraphToLinalg/Patterns.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using ScalarFn = std::function<Value(OpBuilder &, Location, ValueRange)>;

/// Builds the broadcasting generic for `operands` into `resultType`.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange operands, const ScalarFn &body) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps;
  SmallVector<std::pair<Value, int64_t>> dynamicFrom(rank, {nullptr, -1});
  for (Value v : operands) {
    auto t = cast<RankedTensorType>(v.getType());
    int64_t offset = rank - t.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < t.getRank(); ++i) {
      int64_t s = t.getShape()[i], r = resultType.getShape()[offset + i];
      if (s == 1 && r != 1) {
        exprs.push_back(b.getAffineConstantExpr(0));
        continue;
      }
      exprs.push_back(b.getAffineDimExpr(offset + i));
      if (ShapedType::isDynamic(s) && !dynamicFrom[offset + i].first)
        dynamicFrom[offset + i] = {v, i};
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, b.getContext()));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  auto sizes = tcc::mixedSizes(b, loc, resultType, dynamicFrom);
  if (failed(sizes))
    return nullptr;
  Value init = b.create<tensor::EmptyOp>(loc, *sizes, resultType.getElementType());
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto generic = b.create<linalg::GenericOp>(
      loc, TypeRange{init.getType()}, operands, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value r = body(nb, nl, args.drop_back());
        nb.create<linalg::YieldOp>(nl, r);
      });
  Value result = generic.getResult(0);
  if (result.getType() != resultType)
    result = b.create<tensor::CastOp>(loc, resultType, result);
  return result;
}

template <typename SrcOp>
struct ElementwisePattern : OpConversionPattern<SrcOp> {
  ElementwisePattern(MLIRContext *ctx, ScalarFn fn)
      : OpConversionPattern<SrcOp>(ctx), fn(std::move(fn)) {}
  LogicalResult matchAndRewrite(SrcOp op, typename SrcOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (!isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "only floating-point elementwise ops");
    Value result = buildElementwise(rewriter, op.getLoc(), type, adaptor.getOperands(), fn);
    if (!result)
      return rewriter.notifyMatchFailure(op, "dynamic result size without a source");
    rewriter.replaceOp(op, result);
    return success();
  }
  ScalarFn fn;
};

template <typename ArithOp>
ScalarFn binaryFn() {
  return [](OpBuilder &b, Location loc, ValueRange a) -> Value {
    return b.create<ArithOp>(loc, a[0], a[1]);
  };
}
template <typename MathOp>
ScalarFn unaryFn() {
  return [](OpBuilder &b, Location loc, ValueRange a) -> Value {
    return b.create<MathOp>(loc, a[0]);
  };
}

struct ConstantPattern : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, cast<TypedAttr>(op.getValue()));
    return success();
  }
};
} // namespace

Value tcc::broadcastTo(OpBuilder &b, Location loc, Value v, RankedTensorType type) {
  return buildElementwise(b, loc, type, v,
                          [](OpBuilder &, Location, ValueRange a) { return a[0]; });
}

void tcc::populateElementwiseToLinalgPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ConstantPattern>(ctx);
  patterns.add<ElementwisePattern<AddOp>>(ctx, binaryFn<arith::AddFOp>());
  patterns.add<ElementwisePattern<SubOp>>(ctx, binaryFn<arith::SubFOp>());
  patterns.add<ElementwisePattern<MulOp>>(ctx, binaryFn<arith::MulFOp>());
  patterns.add<ElementwisePattern<DivOp>>(ctx, binaryFn<arith::DivFOp>());
  patterns.add<ElementwisePattern<MaximumOp>>(ctx, binaryFn<arith::MaximumFOp>());
  patterns.add<ElementwisePattern<MinimumOp>>(ctx, binaryFn<arith::MinimumFOp>());
  patterns.add<ElementwisePattern<TanhOp>>(ctx, unaryFn<math::TanhOp>());
  patterns.add<ElementwisePattern<ErfOp>>(ctx, unaryFn<math::ErfOp>());
  patterns.add<ElementwisePattern<LogOp>>(ctx, unaryFn<math::LogOp>());
  patterns.add<ElementwisePattern<Log1pOp>>(ctx, unaryFn<math::Log1pOp>());
  patterns.add<ElementwisePattern<AbsOp>>(ctx, unaryFn<math::AbsFOp>());
  patterns.add<ElementwisePattern<SinOp>>(ctx, unaryFn<math::SinOp>());
  patterns.add<ElementwisePattern<CosOp>>(ctx, unaryFn<math::CosOp>());
  patterns.add<ElementwisePattern<ExpOp>>(ctx, unaryFn<math::ExpOp>());
  patterns.add<ElementwisePattern<SqrtOp>>(ctx, unaryFn<math::SqrtOp>());
  patterns.add<ElementwisePattern<RsqrtOp>>(ctx, unaryFn<math::RsqrtOp>());
  patterns.add<ElementwisePattern<NegOp>>(ctx, unaryFn<arith::NegFOp>());
  patterns.add<ElementwisePattern<ReluOp>>(
      ctx, [](OpBuilder &b, Location loc, ValueRange a) -> Value {
        Value zero = b.create<arith::ConstantOp>(loc, b.getFloatAttr(a[0].getType(), 0.0));
        return b.create<arith::MaximumFOp>(loc, a[0], zero);
      });
}
