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

#include <algorithm>

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
/// Where the innermost dim is kept, each block is one thread's serial loop:
/// blocks for about this many threads in all, of at least kMinColumnBlock
/// terms (a block of H x W x C's sum over H and W: a run of rows).
constexpr int64_t kColumnThreads = 131072;
constexpr int64_t kMinColumnBlock = 16;

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

/// `src` reduced over `dims` (sorted) into `init` (the other dims, in
/// src's order) by `combine`, as one generic whose loops are the kept dims,
/// then the reduced ones: a reduction only innermost, as the GPU mapping
/// wants, without moving the reduced dims last in memory first. A reduced
/// dim before a kept one (H and W of a channels-last image) is read through
/// the input's map: side-by-side threads still read side-by-side elements.
Value tcc::reduceDims(OpBuilder &b, Location loc, Value src, ArrayRef<int64_t> dims, Value init,
                      ReduceCombine combine) {
  int64_t rank = cast<RankedTensorType>(src.getType()).getRank();
  int64_t numKept = rank - static_cast<int64_t>(dims.size());
  SmallVector<AffineExpr> inputExprs(rank), outputExprs;
  int64_t nextKept = 0, nextReduced = numKept;
  for (int64_t i = 0; i < rank; ++i) {
    if (llvm::is_contained(dims, i)) {
      inputExprs[i] = b.getAffineDimExpr(nextReduced++);
    } else {
      inputExprs[i] = b.getAffineDimExpr(nextKept);
      outputExprs.push_back(b.getAffineDimExpr(nextKept++));
    }
  }
  SmallVector<AffineMap> maps{AffineMap::get(rank, 0, inputExprs, b.getContext()),
                              AffineMap::get(rank, 0, outputExprs, b.getContext())};
  SmallVector<utils::IteratorType> iterators(numKept, utils::IteratorType::parallel);
  iterators.append(dims.size(), utils::IteratorType::reduction);
  return b
      .create<linalg::GenericOp>(loc, TypeRange{init.getType()}, ValueRange{src},
                                 ValueRange{init}, maps, iterators,
                                 [&](OpBuilder &nb, Location l, ValueRange a) {
                                   nb.create<linalg::YieldOp>(l, combine(nb, l, a[0], a[1]));
                                 })
      .getResult(0);
}

namespace {
Value addCombine(OpBuilder &b, Location loc, Value element, Value acc) {
  return b.create<arith::AddFOp>(loc, element, acc);
}

/// Where a blocked sum splits: reduced dim `dims[split]` into `blocks` x
/// (size / blocks), so that a block (that part times the reduced dims after
/// it) has `terms` terms.
struct BlockSplit {
  size_t split = 0;
  int64_t blocks = 0, terms = 0;
};

/// The split with the largest blocks of at most `maxTerms` terms (at least
/// `minTerms`), or none (`terms` 0). Splitting one dim keeps the blocks a
/// reshape of that dim alone, in whatever order the dims are in memory.
BlockSplit chooseSplit(ArrayRef<int64_t> shape, ArrayRef<int64_t> dims, int64_t maxTerms,
                       int64_t minTerms) {
  BlockSplit best;
  int64_t suffix = 1;
  for (size_t j = dims.size(); j-- > 0;) {
    int64_t size = shape[dims[j]];
    if (suffix > maxTerms)
      break;
    for (int64_t part = std::min(size, maxTerms / suffix); part >= 1; --part) {
      if (size % part || part * suffix < minTerms)
        continue;
      if (part * suffix > best.terms)
        best = {j, size / part, part * suffix};
      break;
    }
    suffix *= size;
  }
  return best;
}
} // namespace

Value tcc::sumDims(OpBuilder &b, Location loc, Value src, ArrayRef<int64_t> dims, Value init) {
  auto t = cast<RankedTensorType>(src.getType());
  int64_t rank = t.getRank(), terms = 1;
  for (int64_t d : dims)
    terms = ShapedType::isDynamic(t.getDimSize(d)) ? ShapedType::kDynamic : terms * t.getDimSize(d);
  // Symbolic sizes keep one loop: their block count is not known here; no
  // term (an empty dim) is no loop.
  if (ShapedType::isDynamic(terms) || dims.empty() || terms == 0)
    return reduceDims(b, loc, src, dims, init, addCombine);
  // Where the innermost dim is kept (a sum over H and W of a channels-last
  // image), each output is a thread's serial loop over strided elements:
  // blocks small enough for kColumnThreads threads in all, so the GPU has
  // loads enough in flight (the sums of the blocks are summed the same way).
  BlockSplit split;
  int64_t outputs = ShapedType::isDynamicShape(t.getShape()) ? 0 : t.getNumElements() / terms;
  if (!llvm::is_contained(dims, rank - 1) && outputs > 0) {
    int64_t want = std::clamp(terms * outputs / kColumnThreads, kMinColumnBlock, kBlock);
    if (terms <= want)
      return reduceDims(b, loc, src, dims, init, addCombine);
    split = chooseSplit(t.getShape(), dims, want, 1);
    if (split.terms >= terms)
      split = {};
  }
  if (split.terms == 0) {
    if (terms <= kMaxSerialTerms)
      return reduceDims(b, loc, src, dims, init, addCombine);
    split = chooseSplit(t.getShape(), dims, kBlock, kMinBlock);
  }
  if (split.terms == 0) {
    // No reshape of one dim gives blocks: the reduced dims moved last (a
    // copy where they were not) and flattened, summed in blocks of kBlock
    // and a rest.
    Value flat = src;
    int64_t numKept = rank - static_cast<int64_t>(dims.size());
    if (llvm::any_of(dims, [&](int64_t d) { return d < numKept; })) {
      SmallVector<int64_t> perm, permShape;
      SmallVector<OpFoldResult> inSizes = tensor::getMixedSizes(b, loc, src), permSizes;
      for (int64_t i = 0; i < rank; ++i)
        if (!llvm::is_contained(dims, i))
          perm.push_back(i);
      perm.append(dims.begin(), dims.end());
      for (int64_t p : perm)
        permSizes.push_back(inSizes[p]);
      Value empty = b.create<tensor::EmptyOp>(loc, permSizes, t.getElementType());
      flat = b.create<linalg::TransposeOp>(loc, src, empty, perm).getResult()[0];
    }
    if (dims.size() > 1) {
      SmallVector<ReassociationIndices> re;
      for (int64_t i = 0; i < numKept; ++i)
        re.push_back({i});
      ReassociationIndices last;
      for (int64_t i = numKept; i < rank; ++i)
        last.push_back(i);
      re.push_back(last);
      flat = b.create<tensor::CollapseShapeOp>(loc, flat, re);
    }
    return sumLastDim(b, loc, flat, terms, init);
  }
  // dims[split] (size s) as [blocks, s / blocks]: the first part and the
  // reduced dims before it stay (as parallel dims) in the partial sums.
  int64_t at = dims[split.split];
  int64_t size = t.getDimSize(at);
  SmallVector<int64_t> expandedShape;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, src), expandedSizes;
  SmallVector<ReassociationIndices> re;
  for (int64_t i = 0, e = 0; i < rank; ++i) {
    if (i == at) {
      expandedShape.append({split.blocks, size / split.blocks});
      expandedSizes.append({b.getIndexAttr(split.blocks), b.getIndexAttr(size / split.blocks)});
      re.push_back({e, e + 1});
      e += 2;
    } else {
      expandedShape.push_back(t.getDimSize(i));
      expandedSizes.push_back(sizes[i]);
      re.push_back({e++});
    }
  }
  Value expanded = split.blocks == 1
                       ? src
                       : b.create<tensor::ExpandShapeOp>(
                             loc, RankedTensorType::get(expandedShape, t.getElementType()), src,
                             re, expandedSizes);
  // In the expanded tensor: the block's dims (the second part of the split
  // dim, the reduced dims after it) and the partial sums' dims (the rest).
  auto inExpanded = [&](int64_t d) { return split.blocks == 1 || d < at ? d : d + 1; };
  SmallVector<int64_t> blockDims, partialShape;
  SmallVector<OpFoldResult> partialSizes;
  SmallVector<int64_t> laterDims; // in the partial sums: what stage two reduces
  int64_t expandedRank = split.blocks == 1 ? rank : rank + 1;
  ArrayRef<int64_t> shapeNow = split.blocks == 1 ? t.getShape() : ArrayRef<int64_t>(expandedShape);
  SmallVector<OpFoldResult> sizesNow = split.blocks == 1 ? sizes : expandedSizes;
  int64_t splitPart = split.blocks == 1 ? at : at + 1; // the within-block part
  for (size_t j = split.split + 1; j < dims.size(); ++j)
    blockDims.push_back(inExpanded(dims[j]));
  blockDims.insert(blockDims.begin(), splitPart);
  for (int64_t i = 0; i < expandedRank; ++i) {
    if (llvm::is_contained(blockDims, i))
      continue;
    bool reducedLater = (split.blocks > 1 && i == at) ||
                        llvm::any_of(ArrayRef(dims).take_front(split.split),
                                     [&](int64_t d) { return inExpanded(d) == i; });
    if (reducedLater)
      laterDims.push_back(static_cast<int64_t>(partialShape.size()));
    partialShape.push_back(shapeNow[i]);
    partialSizes.push_back(sizesNow[i]);
  }
  Type elt = t.getElementType();
  Value zeros = tcc::makeFilled(b, loc, RankedTensorType::get(partialShape, elt), partialSizes,
                                tcc::floatAttr(b, elt, 0.0));
  Value partials = reduceDims(b, loc, expanded, blockDims, zeros, addCombine);
  return sumDims(b, loc, partials, laterDims, init);
}
