//===- Elementwise.cpp - pointwise tcc_graph ops to linalg.generic --------===//
//
// Every pointwise op becomes one all-parallel linalg.generic whose indexing
// maps encode broadcasting (a static size-1 operand dim maps to constant 0).
// Chains of them are then merged into one loop nest by upstream
// linalg elementwise fusion.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TccGraphToLinalg/Patterns.h"

#include "dialects/TccGraph/IR/SourceLocation.h"
#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using ScalarFn = std::function<Value(OpBuilder &, Location, ValueRange)>;

/// Builds the broadcasting generic for `operands` into `resultType`. Its
/// symbolic sizes come from `dynamicSizes` (one per dynamic dim) when given,
/// else from an operand with that dim.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange operands, const ScalarFn &body,
                       ValueRange dynamicSizes = {}) {
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
  Value init;
  if (!dynamicSizes.empty()) {
    init = b.create<tensor::EmptyOp>(loc, resultType, dynamicSizes);
  } else {
    auto sizes = tcc::mixedSizes(b, loc, resultType, dynamicFrom);
    if (failed(sizes))
      return nullptr;
    init = b.create<tensor::EmptyOp>(loc, *sizes, resultType.getElementType());
  }
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

/// Which element types an op's scalar function handles.
enum class Elements { Float, Any };

bool isUnsignedElement(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return (tensor ? tensor.getElementType() : t).isUnsignedInteger();
}

/// The same bits as a signless integer (arith takes no `ui8`), or `v`.
Value asSignless(OpBuilder &b, Location loc, Value v) {
  if (!v.getType().isUnsignedInteger())
    return v;
  Type bits = b.getIntegerType(v.getType().getIntOrFloatBitWidth());
  return b.create<UnrealizedConversionCastOp>(loc, bits, v).getResult(0);
}

/// `fn` computing on unsigned elements (torch.uint8 is `ui8` in tensors) as
/// the signless integers of the same bits, its result cast back to
/// `resultElement`. Only for functions whose integer form ignores signedness
/// (+, -, *, negation, bitwise and/or, select): tcc-legalize-graph refuses
/// other ops on uint8 tensors.
ScalarFn onUnsignedBits(ScalarFn fn, Type resultElement) {
  return [fn = std::move(fn), resultElement](OpBuilder &b, Location loc, ValueRange a) -> Value {
    SmallVector<Value> bits;
    for (Value v : a)
      bits.push_back(asSignless(b, loc, v));
    Value r = fn(b, loc, bits);
    if (resultElement.isUnsignedInteger() && r.getType() != resultElement)
      r = b.create<UnrealizedConversionCastOp>(loc, resultElement, r).getResult(0);
    return r;
  };
}

template <typename SrcOp>
struct ElementwisePattern : OpConversionPattern<SrcOp> {
  ElementwisePattern(MLIRContext *ctx, ScalarFn fn, Elements elements = Elements::Float)
      : OpConversionPattern<SrcOp>(ctx), fn(std::move(fn)), elements(elements) {}
  LogicalResult matchAndRewrite(SrcOp op, typename SrcOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    for (Value v : adaptor.getOperands())
      if (elements == Elements::Float &&
          !isa<FloatType>(cast<RankedTensorType>(v.getType()).getElementType()))
        return rewriter.notifyMatchFailure(op, "only floating-point operands");
    bool unsignedBits = isUnsignedElement(type) ||
                        llvm::any_of(adaptor.getOperands(),
                                     [](Value v) { return isUnsignedElement(v.getType()); });
    Value result =
        buildElementwise(rewriter, op.getLoc(), type, adaptor.getOperands(),
                         unsignedBits ? onUnsignedBits(fn, type.getElementType()) : fn);
    if (!result)
      return rewriter.notifyMatchFailure(op, "dynamic result size without a source");
    rewriter.replaceOp(op, result);
    return success();
  }
  ScalarFn fn;
  Elements elements;
};

template <typename ArithOp>
ScalarFn binaryFn() {
  return [](OpBuilder &b, Location loc, ValueRange a) -> Value {
    return b.create<ArithOp>(loc, a[0], a[1]);
  };
}
/// A binary function with a float and an integer form (i1 and unsigned
/// types only reach the ops whose integer form ignores signedness).
template <typename FloatOp, typename IntOp>
ScalarFn numericFn() {
  return [](OpBuilder &b, Location loc, ValueRange a) -> Value {
    if (isa<FloatType>(a[0].getType()))
      return b.create<FloatOp>(loc, a[0], a[1]);
    return b.create<IntOp>(loc, a[0], a[1]);
  };
}
template <typename MathOp>
ScalarFn unaryFn() {
  return [](OpBuilder &b, Location loc, ValueRange a) -> Value {
    return b.create<MathOp>(loc, a[0]);
  };
}

/// A signed integer divisor made safe for arith.divsi/remsi, which LLVM
/// leaves undefined for a zero divisor and for INT_MIN / -1 (x86 traps on
/// both: SIGFPE): a zero divisor fails a check (on the CPU path a run error
/// naming the source line, as PyTorch raises ZeroDivisionError; a device
/// assertion on the CUDA path); `safe` is 1 where the divisor is 0 or -1,
/// whose results the caller selects itself.
struct SafeDivisor {
  Value zero, byMinusOne, special, safe;
};
SafeDivisor guardDivisor(OpBuilder &b, Location loc, Value y, StringRef what) {
  Type t = y.getType();
  Value zero = b.create<arith::ConstantOp>(loc, b.getIntegerAttr(t, 0));
  Value one = b.create<arith::ConstantOp>(loc, b.getIntegerAttr(t, 1));
  Value minusOne = b.create<arith::ConstantOp>(loc, b.getIntegerAttr(t, -1));
  Value nonzero = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, y, zero);
  std::string where = formatSourceLocation(loc);
  b.create<cf::AssertOp>(loc, nonzero,
                         (where.empty() ? std::string() : where + ": ") +
                             "integer division by zero (" + what.str() + ")");
  Value byMinusOne = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, y, minusOne);
  Value byZero = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, y, zero);
  Value special = b.create<arith::OrIOp>(loc, byMinusOne, byZero);
  Value safe = b.create<arith::SelectOp>(loc, special, one, y);
  return {zero, byMinusOne, special, safe};
}

/// fmod of integers, as PyTorch computes it: x % -1 is 0, also for INT_MIN.
Value checkedIntegerRemainder(OpBuilder &b, Location loc, ValueRange a) {
  SafeDivisor d = guardDivisor(b, loc, a[1], "a remainder or fmod");
  Value r = b.create<arith::RemSIOp>(loc, a[0], d.safe);
  return b.create<arith::SelectOp>(loc, d.special, d.zero, r);
}

/// x / y rounding toward zero, for signed integers: a divisor of -1 negates
/// instead (INT_MIN / -1 wraps to INT_MIN, as in PyTorch).
Value checkedTruncDivide(OpBuilder &b, Location loc, ValueRange a) {
  SafeDivisor d = guardDivisor(b, loc, a[1], "a division with rounding");
  Value q = b.create<arith::DivSIOp>(loc, a[0], d.safe);
  Value negated = b.create<arith::SubIOp>(loc, d.zero, a[0]);
  return b.create<arith::SelectOp>(loc, d.byMinusOne, negated, q);
}

ScalarFn compareFn(StringRef predicate, bool isUnsigned = false) {
  using F = arith::CmpFPredicate;
  using I = arith::CmpIPredicate;
  // ne is unordered: NaN != x is true in PyTorch.
  auto fp = llvm::StringSwitch<F>(predicate)
                .Case("eq", F::OEQ).Case("ne", F::UNE).Case("lt", F::OLT)
                .Case("le", F::OLE).Case("gt", F::OGT).Default(F::OGE);
  auto ip = isUnsigned ? llvm::StringSwitch<I>(predicate)
                             .Case("eq", I::eq).Case("ne", I::ne).Case("lt", I::ult)
                             .Case("le", I::ule).Case("gt", I::ugt).Default(I::uge)
                       : llvm::StringSwitch<I>(predicate)
                             .Case("eq", I::eq).Case("ne", I::ne).Case("lt", I::slt)
                             .Case("le", I::sle).Case("gt", I::sgt).Default(I::sge);
  return [fp, ip](OpBuilder &b, Location loc, ValueRange a) -> Value {
    if (isa<FloatType>(a[0].getType()))
      return b.create<arith::CmpFOp>(loc, fp, a[0], a[1]);
    Value lhs = asSignless(b, loc, a[0]);
    Value rhs = asSignless(b, loc, a[1]);
    return b.create<arith::CmpIOp>(loc, ip, lhs, rhs);
  };
}

/// One signless element converted as PyTorch's .to(dtype) does
/// (`fromUnsigned`: its bits are an unsigned integer's).
Value convertSignless(OpBuilder &b, Location loc, Value v, Type to, bool fromUnsigned) {
  Type from = v.getType();
  if (from == to)
    return v;
  bool fromBool = from.isInteger(1) || fromUnsigned;
  if (to.isInteger(1)) {  // nonzero is true
    if (auto ft = dyn_cast<FloatType>(from))
      return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, v,
                                     b.create<arith::ConstantOp>(loc, b.getFloatAttr(ft, 0.0)));
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, v,
                                   b.create<arith::ConstantOp>(loc, b.getIntegerAttr(from, 0)));
  }
  if (auto tf = dyn_cast<FloatType>(to)) {
    if (auto ff = dyn_cast<FloatType>(from)) {
      if (ff.getWidth() == tf.getWidth()) // f16 <-> bf16, through f32 as PyTorch does
        return b.create<arith::TruncFOp>(loc, to,
                                         b.create<arith::ExtFOp>(loc, b.getF32Type(), v));
      return ff.getWidth() < tf.getWidth() ? b.create<arith::ExtFOp>(loc, to, v).getResult()
                                           : b.create<arith::TruncFOp>(loc, to, v).getResult();
    }
    return fromBool ? b.create<arith::UIToFPOp>(loc, to, v).getResult()
                    : b.create<arith::SIToFPOp>(loc, to, v).getResult();
  }
  if (isa<FloatType>(from)) { // truncates toward zero
    // Narrower than 32 bits through i64, so that values out of range wrap
    // around as PyTorch's CPU conversion does (fptosi to i8 would be poison).
    if (to.getIntOrFloatBitWidth() >= 32)
      return b.create<arith::FPToSIOp>(loc, to, v);
    Value wide = b.create<arith::FPToSIOp>(loc, b.getI64Type(), v);
    return b.create<arith::TruncIOp>(loc, to, wide);
  }
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw == tw)
    return b.create<arith::BitcastOp>(loc, to, v);
  if (fw > tw)
    return b.create<arith::TruncIOp>(loc, to, v);
  return fromBool ? b.create<arith::ExtUIOp>(loc, to, v).getResult()
                  : b.create<arith::ExtSIOp>(loc, to, v).getResult();
}

/// One element converted as PyTorch's .to(dtype) does. torch.uint8 is `ui8`
/// in tensors, which arith does not take: such an element is computed on as
/// the signless integer of the same bits (an unrealized cast, which the
/// lowering to LLVM resolves, where both are i8).
Value convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto cast = [&](Value x, Type type) -> Value {
    return b.create<UnrealizedConversionCastOp>(loc, type, x).getResult(0);
  };
  bool fromUnsigned = from.isUnsignedInteger(), toUnsigned = to.isUnsignedInteger();
  if (fromUnsigned)
    v = cast(v, b.getIntegerType(from.getIntOrFloatBitWidth()));
  Type target = toUnsigned ? b.getIntegerType(to.getIntOrFloatBitWidth()) : to;
  Value r = convertSignless(b, loc, v, target, fromUnsigned);
  return toUnsigned ? cast(r, to) : r;
}

/// An elementwise op whose scalar function depends on the op itself (its
/// predicate, its result element type).
template <typename SrcOp>
struct AttributedElementwisePattern : OpConversionPattern<SrcOp> {
  using FnOf = std::function<ScalarFn(SrcOp)>;
  AttributedElementwisePattern(MLIRContext *ctx, FnOf fnOf)
      : OpConversionPattern<SrcOp>(ctx), fnOf(std::move(fnOf)) {}
  LogicalResult matchAndRewrite(SrcOp op, typename SrcOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value result = buildElementwise(rewriter, op.getLoc(), op.getType(), adaptor.getOperands(),
                                    fnOf(op));
    if (!result)
      return rewriter.notifyMatchFailure(op, "dynamic result size without a source");
    rewriter.replaceOp(op, result);
    return success();
  }
  FnOf fnOf;
};

struct ConstantPattern : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // A splat (full, zeros, ...) becomes a fill: computed where it is used
    // rather than stored in the object and copied to the device.
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    auto type = cast<RankedTensorType>(op.getType());
    if (dense && dense.isSplat() && type.getRank() > 0 && type.hasStaticShape() &&
        !isUnsignedElement(type)) {
      SmallVector<OpFoldResult> sizes;
      for (int64_t s : type.getShape())
        sizes.push_back(rewriter.getIndexAttr(s));
      rewriter.replaceOp(op, tcc::makeFilled(rewriter, op.getLoc(), type, sizes,
                                             dense.getSplatValue<TypedAttr>()));
      return success();
    }
    // arith's scalars are signless: an unsigned constant (torch.uint8's
    // `ui8`) is held as the signless integers of the same bits, reinterpreted
    // elementwise, so that no pass folding it into a loop body makes an
    // unsigned scalar.
    if (dense && isUnsignedElement(type)) {
      Type bits = rewriter.getIntegerType(type.getElementTypeBitWidth());
      Value held = rewriter.create<arith::ConstantOp>(op.getLoc(), dense.bitcast(bits));
      rewriter.replaceOp(op, tcc::convertElements(rewriter, op.getLoc(), held,
                                                  type.getElementType()));
      return success();
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, cast<TypedAttr>(op.getValue()));
    return success();
  }
};
} // namespace

Value tcc::broadcastTo(OpBuilder &b, Location loc, Value v, RankedTensorType type,
                       ValueRange dynamicSizes) {
  return buildElementwise(b, loc, type, v,
                          [](OpBuilder &, Location, ValueRange a) { return a[0]; },
                          dynamicSizes);
}

Value tcc::buildPointwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                          ValueRange operands,
                          const std::function<Value(OpBuilder &, Location, ValueRange)> &body) {
  return buildElementwise(b, loc, resultType, operands, body);
}

Value tcc::convertElements(OpBuilder &b, Location loc, Value v, Type elementType) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == elementType)
    return v;
  return buildElementwise(b, loc, RankedTensorType::get(type.getShape(), elementType), v,
                          [elementType](OpBuilder &b, Location loc, ValueRange a) {
                            return convertScalar(b, loc, a[0], elementType);
                          });
}

Type tcc::accumulatorType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

void tcc::populateElementwiseToLinalgPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ConstantPattern>(ctx);
  patterns.add<AttributedElementwisePattern<CompareOp>>(
      ctx, [](CompareOp op) {
        return compareFn(op.getPredicate(), isUnsignedElement(op.getLhs().getType()));
      });
  patterns.add<AttributedElementwisePattern<CastOp>>(ctx, [](CastOp op) -> ScalarFn {
    Type to = op.getType().getElementType();
    return [to](OpBuilder &b, Location loc, ValueRange a) {
      return convertScalar(b, loc, a[0], to);
    };
  });
  patterns.add<ElementwisePattern<AddOp>>(ctx, numericFn<arith::AddFOp, arith::AddIOp>(),
                                          Elements::Any);
  patterns.add<ElementwisePattern<SubOp>>(ctx, numericFn<arith::SubFOp, arith::SubIOp>(),
                                          Elements::Any);
  patterns.add<ElementwisePattern<MulOp>>(ctx, numericFn<arith::MulFOp, arith::MulIOp>(),
                                          Elements::Any);
  patterns.add<ElementwisePattern<DivOp>>(ctx, binaryFn<arith::DivFOp>());
  patterns.add<ElementwisePattern<MaximumOp>>(
      ctx, numericFn<arith::MaximumFOp, arith::MaxSIOp>(), Elements::Any);
  patterns.add<ElementwisePattern<MinimumOp>>(
      ctx, numericFn<arith::MinimumFOp, arith::MinSIOp>(), Elements::Any);
  patterns.add<ElementwisePattern<PowOp>>(ctx, binaryFn<math::PowFOp>());
  patterns.add<ElementwisePattern<BitwiseAndOp>>(ctx, binaryFn<arith::AndIOp>(), Elements::Any);
  patterns.add<ElementwisePattern<BitwiseOrOp>>(ctx, binaryFn<arith::OrIOp>(), Elements::Any);
  patterns.add<ElementwisePattern<TruncDivOp>>(ctx, checkedTruncDivide, Elements::Any);
  patterns.add<ElementwisePattern<FmodOp>>(
      ctx,
      [](OpBuilder &b, Location loc, ValueRange a) -> Value {
        if (isa<FloatType>(a[0].getType()))
          return b.create<arith::RemFOp>(loc, a[0], a[1]);
        return checkedIntegerRemainder(b, loc, a);
      },
                                           Elements::Any);
  patterns.add<AttributedElementwisePattern<CheckOp>>(ctx, [](CheckOp op) -> ScalarFn {
    std::string where = formatSourceLocation(op.getLoc());
    std::string message = (where.empty() ? std::string() : where + ": ") + op.getMessage().str();
    return [message](OpBuilder &b, Location loc, ValueRange a) -> Value {
      b.create<cf::AssertOp>(loc, a[0], message);
      return a[1];
    };
  });
  patterns.add<ElementwisePattern<SelectOp>>(
      ctx,
      [](OpBuilder &b, Location loc, ValueRange a) -> Value {
        return b.create<arith::SelectOp>(loc, a[0], a[1], a[2]);
      },
      Elements::Any);
  patterns.add<ElementwisePattern<TanhOp>>(ctx, unaryFn<math::TanhOp>());
  patterns.add<ElementwisePattern<ErfOp>>(ctx, unaryFn<math::ErfOp>());
  patterns.add<ElementwisePattern<LogOp>>(ctx, unaryFn<math::LogOp>());
  patterns.add<ElementwisePattern<Log1pOp>>(ctx, unaryFn<math::Log1pOp>());
  patterns.add<ElementwisePattern<FloorOp>>(ctx, unaryFn<math::FloorOp>());
  patterns.add<ElementwisePattern<CeilOp>>(ctx, unaryFn<math::CeilOp>());
  // trunc as ceil below zero, floor above: the CUDA path's math lowering
  // (libdevice) has no math.trunc, and this form lowers on every path.
  patterns.add<ElementwisePattern<TruncOp>>(ctx, [](OpBuilder &b, Location loc,
                                                    ValueRange a) -> Value {
    Value zero = b.create<arith::ConstantOp>(loc, b.getFloatAttr(a[0].getType(), 0.0));
    Value negative = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, a[0], zero);
    Value up = b.create<math::CeilOp>(loc, a[0]);
    Value down = b.create<math::FloorOp>(loc, a[0]);
    return b.create<arith::SelectOp>(loc, negative, up, down);
  });
  patterns.add<ElementwisePattern<RoundOp>>(ctx, unaryFn<math::RoundEvenOp>());
  patterns.add<ElementwisePattern<TanOp>>(ctx, unaryFn<math::TanOp>());
  patterns.add<ElementwisePattern<AsinOp>>(ctx, unaryFn<math::AsinOp>());
  patterns.add<ElementwisePattern<AcosOp>>(ctx, unaryFn<math::AcosOp>());
  patterns.add<ElementwisePattern<AtanOp>>(ctx, unaryFn<math::AtanOp>());
  patterns.add<ElementwisePattern<SinhOp>>(ctx, unaryFn<math::SinhOp>());
  patterns.add<ElementwisePattern<CoshOp>>(ctx, unaryFn<math::CoshOp>());
  patterns.add<ElementwisePattern<AsinhOp>>(ctx, unaryFn<math::AsinhOp>());
  patterns.add<ElementwisePattern<AcoshOp>>(ctx, unaryFn<math::AcoshOp>());
  patterns.add<ElementwisePattern<AtanhOp>>(ctx, unaryFn<math::AtanhOp>());
  patterns.add<ElementwisePattern<Exp2Op>>(ctx, unaryFn<math::Exp2Op>());
  patterns.add<ElementwisePattern<Expm1Op>>(ctx, unaryFn<math::ExpM1Op>());
  patterns.add<ElementwisePattern<Log2Op>>(ctx, unaryFn<math::Log2Op>());
  patterns.add<ElementwisePattern<Log10Op>>(ctx, unaryFn<math::Log10Op>());
  patterns.add<ElementwisePattern<ErfcOp>>(ctx, unaryFn<math::ErfcOp>());
  patterns.add<ElementwisePattern<Atan2Op>>(ctx, binaryFn<math::Atan2Op>());
  patterns.add<ElementwisePattern<CopysignOp>>(ctx, binaryFn<math::CopySignOp>());
  patterns.add<ElementwisePattern<AbsOp>>(
      ctx,
      [](OpBuilder &b, Location loc, ValueRange a) -> Value {
        if (isa<FloatType>(a[0].getType()))
          return b.create<math::AbsFOp>(loc, a[0]);
        // select(x < 0, -x, x): plain arith, which every code path lowers.
        Value zero = b.create<arith::ConstantOp>(loc, b.getIntegerAttr(a[0].getType(), 0));
        Value negative = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, a[0], zero);
        return b.create<arith::SelectOp>(loc, negative,
                                         b.create<arith::SubIOp>(loc, zero, a[0]), a[0]);
      },
      Elements::Any);
  patterns.add<ElementwisePattern<SinOp>>(ctx, unaryFn<math::SinOp>());
  patterns.add<ElementwisePattern<CosOp>>(ctx, unaryFn<math::CosOp>());
  patterns.add<ElementwisePattern<ExpOp>>(ctx, unaryFn<math::ExpOp>());
  patterns.add<ElementwisePattern<SqrtOp>>(ctx, unaryFn<math::SqrtOp>());
  patterns.add<ElementwisePattern<RsqrtOp>>(ctx, unaryFn<math::RsqrtOp>());
  patterns.add<ElementwisePattern<NegOp>>(
      ctx,
      [](OpBuilder &b, Location loc, ValueRange a) -> Value {
        if (isa<FloatType>(a[0].getType()))
          return b.create<arith::NegFOp>(loc, a[0]);
        Value zero = b.create<arith::ConstantOp>(loc, b.getIntegerAttr(a[0].getType(), 0));
        return b.create<arith::SubIOp>(loc, zero, a[0]);
      },
      Elements::Any);
  patterns.add<ElementwisePattern<ReluOp>>(
      ctx, [](OpBuilder &b, Location loc, ValueRange a) -> Value {
        Value zero = b.create<arith::ConstantOp>(loc, b.getFloatAttr(a[0].getType(), 0.0));
        return b.create<arith::MaximumFOp>(loc, a[0], zero);
      });
}
