//===- ShareConcatBuffers.cpp - concatenations extending one another ------===//
//
// Implements `tcc-share-concat-buffers` (Passes.td says what and why).
//
//===----------------------------------------------------------------------===//
#include "tcc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace tcc {
#define GEN_PASS_DEF_SHARECONCATBUFFERSPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

/// One concatenation as convert-tcc-graph-to-linalg builds it: static
/// insert_slices filling a tensor.empty along `dim`, in order.
struct Concat {
  tensor::EmptyOp empty;
  SmallVector<tensor::InsertSliceOp> inserts;
  SmallVector<Value> inputs;
  int64_t dim = 0;
  RankedTensorType type;
  Value result() { return inserts.back().getResult(); }
};

/// The concatenation that `empty` begins, if it is one.
std::optional<Concat> matchConcat(tensor::EmptyOp empty) {
  auto type = cast<RankedTensorType>(empty.getType());
  if (!type.hasStaticShape() || !empty->hasOneUse())
    return std::nullopt;
  Concat c{empty, {}, {}, -1, type};
  Value dest = empty.getResult();
  int64_t filled = 0;
  while (dest.hasOneUse()) {
    auto insert = dyn_cast<tensor::InsertSliceOp>(*dest.getUsers().begin());
    if (!insert || insert.getDest() != dest || !insert.hasUnitStride())
      break;
    auto sourceType = insert.getSourceType();
    if (!sourceType.hasStaticShape() || sourceType.getRank() != type.getRank() ||
        !insert.getStaticOffsets().size())
      return std::nullopt;
    // Along one dim, the slices follow each other from 0; elsewhere full.
    int64_t dim = -1;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (sourceType.getDimSize(i) != type.getDimSize(i) || insert.getStaticOffsets()[i] != 0)
        dim = dim == -1 ? i : -2;
    if (dim == -1)  // a single input covering all: no concatenation
      return std::nullopt;
    if (dim < 0 || (c.dim != -1 && dim != c.dim) ||
        insert.getStaticOffsets()[dim] != filled || ShapedType::isDynamic(filled))
      return std::nullopt;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (i != dim && insert.getStaticOffsets()[i] != 0)
        return std::nullopt;
    c.dim = dim;
    filled += sourceType.getDimSize(dim);
    c.inserts.push_back(insert);
    c.inputs.push_back(insert.getSource());
    dest = insert.getResult();
  }
  if (c.inserts.size() < 2 || filled != type.getDimSize(c.dim))
    return std::nullopt;
  return c;
}

/// Whether `small`'s inputs are the first ones of `large` (same dim, same
/// sizes across it, one block).
bool isPrefix(const Concat &small, const Concat &large) {
  if (small.dim != large.dim || small.inputs.size() >= large.inputs.size() ||
      small.type.getElementType() != large.type.getElementType() ||
      small.empty->getBlock() != large.empty->getBlock())
    return false;
  for (int64_t i = 0; i < small.type.getRank(); ++i)
    if (i != small.dim && small.type.getDimSize(i) != large.type.getDimSize(i))
      return false;
  return llvm::equal(small.inputs, ArrayRef<Value>(large.inputs).take_front(small.inputs.size()));
}

struct ShareConcatBuffersPass
    : public tcc::impl::ShareConcatBuffersPassBase<ShareConcatBuffersPass> {
  void runOnOperation() override {
    SmallVector<Concat> concats;
    getOperation().walk([&](tensor::EmptyOp empty) {
      if (std::optional<Concat> c = matchConcat(empty))
        concats.push_back(std::move(*c));
    });
    // Program order (the walk's): each concatenation extends at most one
    // earlier one (the longest prefix), and is extended by at most one.
    size_t n = concats.size();
    SmallVector<int64_t> next(n, -1), prev(n, -1);
    for (size_t j = 0; j < n; ++j) {
      int64_t best = -1;
      for (size_t i = 0; i < j; ++i)
        if (next[i] == -1 && isPrefix(concats[i], concats[j]) &&
            concats[i].inserts.back()->isBeforeInBlock(concats[j].inserts.back()) &&
            (best == -1 || concats[i].inputs.size() > concats[best].inputs.size()))
          best = static_cast<int64_t>(i);
      if (best != -1) {
        next[best] = static_cast<int64_t>(j);
        prev[j] = best;
      }
    }
    IRRewriter rewriter(&getContext());
    for (size_t first = 0; first < n; ++first) {
      if (prev[first] != -1 || next[first] == -1)
        continue;
      SmallVector<int64_t> family;
      for (int64_t k = static_cast<int64_t>(first); k != -1; k = next[k])
        family.push_back(k);
      shareFamily(rewriter, concats, family);
    }
  }

  /// Rebuilds `family` (each a prefix of the next) in the last one's buffer.
  void shareFamily(IRRewriter &rewriter, SmallVector<Concat> &concats,
                   ArrayRef<int64_t> family) {
    Concat &largest = concats[family.back()];
    int64_t dim = largest.dim, rank = largest.type.getRank();
    Concat &firstConcat = concats[family.front()];
    rewriter.setInsertionPoint(firstConcat.empty);
    Value buffer = tensor::EmptyOp::create(rewriter, firstConcat.empty.getLoc(),
                                           largest.type.getShape(),
                                           largest.type.getElementType());
    size_t inserted = 0;
    int64_t filled = 0;
    for (int64_t k : family) {
      Concat &c = concats[k];
      // The new inputs go in where this concatenation completed (all of
      // them are defined there).
      rewriter.setInsertionPoint(c.inserts.back());
      for (; inserted < c.inputs.size(); ++inserted) {
        tensor::InsertSliceOp old = c.inserts[inserted];
        SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
        offsets[dim] = rewriter.getIndexAttr(filled);
        buffer = tensor::InsertSliceOp::create(rewriter, old.getLoc(), old.getSource(), buffer,
                                               offsets, old.getMixedSizes(),
                                               old.getMixedStrides());
        filled += old.getSourceType().getDimSize(dim);
      }
      Value value = buffer;
      if (k != family.back()) {
        SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)), sizes, strides(
            rank, rewriter.getIndexAttr(1));
        for (int64_t i = 0; i < rank; ++i)
          sizes.push_back(rewriter.getIndexAttr(c.type.getDimSize(i)));
        value = tensor::ExtractSliceOp::create(rewriter, c.inserts.back().getLoc(), c.type,
                                               buffer, offsets, sizes, strides);
      }
      rewriter.replaceAllUsesWith(c.result(), value);
      for (tensor::InsertSliceOp insert : llvm::reverse(c.inserts))
        rewriter.eraseOp(insert);
      rewriter.eraseOp(c.empty);
    }
  }
};
} // namespace
