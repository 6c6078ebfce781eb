//===- BlockedSum.cpp - float sums of many terms, summed in blocks --------===//
//
// A float sum accumulated term by term loses about one rounding per term: over
// a million values near 100 in f32 the running total's ulp grows to 8 and the
// mean comes out percents off (and a variance built on it is wrong by the
// square of that). PyTorch sums in cascades. Here a reduction of more than
// kMaxSerialTerms terms per output is split: blocks of at most kBlock terms
// are summed first, then their partial sums (recursively), so each value is
// rounded in O(kBlock + N / kBlock) additions instead of O(N). The blocks are
// one more parallel dim, which also gives the GPU more outputs to spread.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/TccGraphToLinalg/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {
/// Sums of at most this many terms stay one loop (the rows of common
/// models): their rounding error, typically sqrt(n) ulps, stays far below
/// fp32's 1e-5 relative tolerance.
constexpr int64_t kMaxSerialTerms = 2048;
/// The largest block; a divisor of the term count at least kMinBlock is
/// preferred, so the blocks are a reshape and producers still fuse.
constexpr int64_t kBlock = 1024;
constexpr int64_t kMinBlock = 64;

/// linalg.reduce adding `src`'s trailing `n` dims into `init`.
Value plainSum(OpBuilder &b, Location loc, Value src, int64_t n, Value init) {
  int64_t rank = cast<RankedTensorType>(src.getType()).getRank();
  SmallVector<int64_t> dims;
  for (int64_t i = rank - n; i < rank; ++i)
    dims.push_back(i);
  return b
      .create<linalg::ReduceOp>(loc, ValueRange{src}, ValueRange{init}, dims,
                                [](OpBuilder &nb, Location l, ValueRange a) {
                                  Value s = nb.create<arith::AddFOp>(l, a[0], a[1]);
                                  nb.create<linalg::YieldOp>(l, s);
                                })
      .getResult(0);
}

/// The largest divisor of `n` in [kMinBlock, kBlock], or 0.
int64_t dividingBlock(int64_t n) {
  for (int64_t d = kBlock; d >= kMinBlock; --d)
    if (n % d == 0)
      return d;
  return 0;
}

/// `x[..., from : from + size]` along the last dim.
Value lastDimSlice(OpBuilder &b, Location loc, Value x, int64_t from, int64_t size) {
  auto t = cast<RankedTensorType>(x.getType());
  int64_t rank = t.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), strides(rank, b.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  offsets.back() = b.getIndexAttr(from);
  sizes.back() = b.getIndexAttr(size);
  return b.create<tensor::ExtractSliceOp>(loc, x, offsets, sizes, strides);
}

/// Adds the last dim of `x` (static size `n`) into `init`.
Value sumLastDim(OpBuilder &b, Location loc, Value x, int64_t n, Value init) {
  if (n <= kMaxSerialTerms)
    return plainSum(b, loc, x, 1, init);
  auto t = cast<RankedTensorType>(x.getType());
  Type elt = t.getElementType();
  int64_t block = dividingBlock(n);
  if (!block)
    block = kBlock;
  int64_t blocks = n / block, rest = n % block;
  Value whole = rest ? lastDimSlice(b, loc, x, 0, blocks * block) : x;

  // [..., blocks * block] -> [..., blocks, block], summed over the block.
  SmallVector<int64_t> shape(t.getShape().drop_back());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  sizes.pop_back();
  SmallVector<ReassociationIndices> re;
  for (int64_t i = 0; i + 1 < t.getRank(); ++i)
    re.push_back({i});
  re.push_back({t.getRank() - 1, t.getRank()});
  SmallVector<int64_t> expandedShape(shape);
  expandedShape.append({blocks, block});
  SmallVector<OpFoldResult> expandedSizes(sizes);
  expandedSizes.append({b.getIndexAttr(blocks), b.getIndexAttr(block)});
  Value expanded = b.create<tensor::ExpandShapeOp>(
      loc, RankedTensorType::get(expandedShape, elt), whole, re, expandedSizes);
  SmallVector<int64_t> partialShape(shape);
  partialShape.push_back(blocks);
  SmallVector<OpFoldResult> partialSizes(sizes);
  partialSizes.push_back(b.getIndexAttr(blocks));
  Value zeros = tcc::makeFilled(b, loc, RankedTensorType::get(partialShape, elt), partialSizes,
                                tcc::floatAttr(b, elt, 0.0));
  Value partials = plainSum(b, loc, expanded, 1, zeros);
  Value total = sumLastDim(b, loc, partials, blocks, init);
  // The terms past the last whole block, added on top.
  if (rest)
    total = plainSum(b, loc, lastDimSlice(b, loc, x, blocks * block, rest), 1, total);
  return total;
}
} // namespace

Value tcc::sumTrailingDims(OpBuilder &b, Location loc, Value src, int64_t numDims,
                           Value init) {
  auto t = cast<RankedTensorType>(src.getType());
  int64_t rank = t.getRank(), terms = 1;
  for (int64_t d : t.getShape().drop_front(rank - numDims))
    terms = ShapedType::isDynamic(d) ? ShapedType::kDynamic : terms * d;
  // Symbolic sizes keep one loop: their block count is not known here.
  if (ShapedType::isDynamic(terms) || terms <= kMaxSerialTerms || numDims == 0)
    return plainSum(b, loc, src, numDims, init);
  Value flat = src;
  if (numDims > 1) {
    SmallVector<ReassociationIndices> re;
    for (int64_t i = 0; i < rank - numDims; ++i)
      re.push_back({i});
    ReassociationIndices last;
    for (int64_t i = rank - numDims; i < rank; ++i)
      last.push_back(i);
    re.push_back(last);
    flat = b.create<tensor::CollapseShapeOp>(loc, src, re);
  }
  return sumLastDim(b, loc, flat, terms, init);
}
