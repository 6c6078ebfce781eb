//===- Indexing.cpp - broadcast, take, gather, as_strided to linalg -------===//
//
// The gathers are all-parallel linalg.generics over the result whose body
// reads the source with tensor.extract at computed coordinates; the index
// operand (if any) is an ordinary generic input, so it fuses like any
// elementwise producer. Both the CPU and the GPU pipelines take such loads.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TccGraphToLinalg/Patterns.h"

#include "dialects/TccGraph/IR/SourceLocation.h"
#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// An all-parallel generic producing `resultType` from `inputs` (read through
/// `inputMaps`); `body` gets the input elements and returns the result element.
FailureOr<Value> buildGather(OpBuilder &b, Location loc, RankedTensorType resultType,
                             ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                             ArrayRef<std::pair<Value, int64_t>> dynamicFrom, BodyFn body) {
  int64_t rank = resultType.getRank();
  auto sizes = tcc::mixedSizes(b, loc, resultType, dynamicFrom);
  if (failed(sizes))
    return failure();
  Value init = b.create<tensor::EmptyOp>(loc, *sizes, resultType.getElementType());
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(rank));
  Value result =
      b.create<linalg::GenericOp>(
           loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
           SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
           [&](OpBuilder &nb, Location nl, ValueRange args) {
             nb.create<linalg::YieldOp>(nl, body(nb, nl, args.drop_back()));
           })
          .getResult(0);
  if (result.getType() != resultType)
    result = b.create<tensor::CastOp>(loc, resultType, result);
  return result;
}

/// An index element as `index`, a negative one counted from `size` (PyTorch).
Value wrapIndex(OpBuilder &b, Location loc, Value element, Value size) {
  Value i = b.create<arith::IndexCastOp>(loc, b.getIndexType(), element);
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value negative = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, i, zero);
  Value wrapped = b.create<arith::AddIOp>(loc, i, size);
  return b.create<arith::SelectOp>(loc, negative, wrapped, i);
}

/// `element` wrapped as by wrapIndex, checked against [-size, size): where
/// PyTorch raises IndexError, a cf.assert names the op's source (the CPU
/// path records it and the call fails; on the GPU it is a device-side
/// assert, as in PyTorch), and the read goes to index 0 instead of outside
/// the tensor.
Value checkedIndex(OpBuilder &b, Location loc, Value element, Value size, StringRef what) {
  Value i = wrapIndex(b, loc, element, size);
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value notNegative = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, i, zero);
  Value belowSize = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, i, size);
  Value inRange = b.create<arith::AndIOp>(loc, notNegative, belowSize);
  b.create<cf::AssertOp>(loc, inRange, what);
  return b.create<arith::SelectOp>(loc, inRange, i, zero);
}

/// The assertion message of an index into dim `dim` of `x` read at `loc`.
std::string indexErrorMessage(Location loc, Value x, int64_t dim) {
  std::string where = formatSourceLocation(loc);
  int64_t size = cast<RankedTensorType>(x.getType()).getDimSize(dim);
  std::string message = (where.empty() ? std::string() : where + ": ") +
                        "index out of range for dim " + std::to_string(dim) + " of a tensor";
  if (!ShapedType::isDynamic(size))
    message += " of size " + std::to_string(size);
  return message + " (an indexing operation, embedding, gather or index_select)";
}

Value dimSize(OpBuilder &b, Location loc, Value v, int64_t dim) {
  return getValueOrCreateConstantIndexOp(b, loc, tensor::getMixedSize(b, loc, v, dim));
}

struct BroadcastPattern : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value result = tcc::broadcastTo(rewriter, op.getLoc(), adaptor.getInput(),
                                    cast<RankedTensorType>(op.getType()),
                                    adaptor.getDynamicSizes());
    if (!result)
      return rewriter.notifyMatchFailure(op, "dynamic result size without a source");
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// take and gather: the index tensor is read at loops [first, first + its
/// rank); input dim `dim` is the wrapped index element and every other input
/// dim k is loop k before `dim`, loop k + shift after it.
///   take:   first = dim, shift = index rank - 1 (index dims replace `dim`);
///   gather: first = 0, shift = 0 (the index has the result's shape).
template <typename OpTy>
LogicalResult lowerIndexed(OpTy op, Value x, Value index, int64_t first, int64_t shift,
                           ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  auto resultType = cast<RankedTensorType>(op.getType());
  int64_t dim = op.getDim(), rank = resultType.getRank();
  int64_t inputRank = cast<RankedTensorType>(x.getType()).getRank();
  int64_t indexRank = cast<RankedTensorType>(index.getType()).getRank();
  SmallVector<std::pair<Value, int64_t>> from;
  for (int64_t i = 0; i < rank; ++i)
    from.push_back(i >= first && i < first + indexRank ? std::make_pair(index, i - first)
                   : i < dim                           ? std::make_pair(x, i)
                                                       : std::make_pair(x, i - shift));
  SmallVector<AffineExpr> indexExprs;
  for (int64_t i = 0; i < indexRank; ++i)
    indexExprs.push_back(rewriter.getAffineDimExpr(first + i));
  AffineMap indexMap = AffineMap::get(rank, 0, indexExprs, rewriter.getContext());
  Value size = dimSize(rewriter, loc, x, dim);
  std::string what = indexErrorMessage(loc, x, dim);
  auto result = buildGather(
      rewriter, loc, resultType, index, indexMap, from,
      [&](OpBuilder &b, Location l, ValueRange args) -> Value {
        SmallVector<Value> coords;
        for (int64_t k = 0; k < inputRank; ++k)
          coords.push_back(k == dim ? checkedIndex(b, l, args[0], size, what)
                                    : b.create<linalg::IndexOp>(l, k < dim ? k : k + shift)
                                          .getResult());
        return b.create<tensor::ExtractOp>(l, x, coords);
      });
  if (failed(result))
    return rewriter.notifyMatchFailure(op, "dynamic result size without a source");
  rewriter.replaceOp(op, *result);
  return success();
}

struct TakePattern : OpConversionPattern<TakeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TakeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    int64_t indexRank = cast<RankedTensorType>(adaptor.getIndex().getType()).getRank();
    return lowerIndexed(op, adaptor.getInput(), adaptor.getIndex(), op.getDim(),
                        indexRank - 1, rewriter);
  }
};

struct GatherPattern : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    return lowerIndexed(op, adaptor.getInput(), adaptor.getIndex(), 0, 0, rewriter);
  }
};

/// result[i..] = flat(input)[offset + sum i_k * stride_k], on the input
/// collapsed to 1-D (free after bufferization: tcc tensors are row-major).
struct AsStridedPattern : OpConversionPattern<AsStridedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AsStridedOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (cast<RankedTensorType>(adaptor.getInput().getType()).getRank() == 0)
      return rewriter.notifyMatchFailure(op, "rank-0 input"); // cannot collapse to 1-D
    Value flat = tcc::flatten(rewriter, loc, adaptor.getInput());
    auto resultType = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> strides = op.getStrides();
    int64_t offset = op.getStorageOffset();
    auto result = buildGather(
        rewriter, loc, resultType, ValueRange{}, {}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          Value at = b.create<arith::ConstantIndexOp>(l, offset);
          for (auto [i, stride] : llvm::enumerate(strides)) {
            Value s = b.create<arith::ConstantIndexOp>(l, stride);
            Value term = b.create<arith::MulIOp>(l, b.create<linalg::IndexOp>(l, i), s);
            at = b.create<arith::AddIOp>(l, at, term);
          }
          return b.create<tensor::ExtractOp>(l, flat, at);
        });
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "dynamic result size");
    rewriter.replaceOp(op, *result);
    return success();
  }
};
} // namespace

void tcc::populateIndexingToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<BroadcastPattern, TakePattern, GatherPattern, AsStridedPattern>(
      patterns.getContext());
}
