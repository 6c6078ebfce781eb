//===- ConcatGather.cpp - a concatenation as one generic picking inputs --===//
//
// A concatenation is lowered as insert_slices into one buffer, which its
// inputs' producers can often write in place. When every reader of the
// concatenation is a pointwise op, there is a cheaper form: one generic whose
// element picks the input it lies in, so that elementwise fusion folds the
// concatenation into its readers and it is never written out. ViT's
//
//   x = torch.cat([class_token.expand(n, -1, -1), patches], dim=1)
//   x = x + pos_embedding
//
// was a copy of the class token, a copy of the patches and the add (three
// kernels); it is one kernel. Where every input is a view of another tensor
// (slices with steps, a broadcast), the generic reads that tensor through the
// view whatever reads the concatenation: Swin's patch merging (four strided
// slices of one image, concatenated along channels for a layer norm) was four
// copies, each a kernel; it is one. Concatenations of more than a few
// inputs, and those that share inputs with another concatenation or extend
// one (DenseNet's features, which tcc-share-concat-buffers builds in one
// buffer), stay insert_slices.
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

/// The most inputs a gathered concatenation reads: each element loads one
/// element of every input (the others at a clamped index) and selects.
constexpr size_t kMaxGatheredInputs = 4;

/// Whether `op` is computed element by element from operands of (or
/// broadcast to) its result's shape, so that elementwise fusion takes a
/// generic producing one of its operands.
bool isPointwise(Operation *op) {
  return (op->hasTrait<OpTrait::SameOperandsAndResultType>() && !isa<CumsumOp>(op)) ||
         isa<AddOp, SubOp, MulOp, DivOp, MaximumOp, MinimumOp, CastOp, SelectOp>(op);
}

/// How an input is read from the tensor it views: root dim r (result dim
/// r + lead) at offset[r] + step[r] * index, or at 0 where it broadcasts.
struct ViewRead {
  Value root; ///< the original (unconverted) value
  int64_t lead = 0;
  SmallVector<int64_t> offset, step;
  SmallVector<bool> broadcast;
  bool isView = false; ///< a slice chain or a broadcast, not the input itself
};

/// The view `v` is (static slices with steps, or one static broadcast).
ViewRead readThrough(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  ViewRead read;
  read.root = v;
  read.offset.assign(type.getRank(), 0);
  read.step.assign(type.getRank(), 1);
  read.broadcast.assign(type.getRank(), false);
  if (auto broadcast = v.getDefiningOp<BroadcastOp>()) {
    if (!broadcast.getDynamicSizes().empty())
      return read;
    auto in = cast<RankedTensorType>(broadcast.getInput().getType());
    read.root = broadcast.getInput();
    read.lead = type.getRank() - in.getRank();
    read.offset.assign(in.getRank(), 0);
    read.step.assign(in.getRank(), 1);
    read.broadcast.assign(in.getRank(), false);
    for (int64_t r = 0; r < in.getRank(); ++r)
      read.broadcast[r] = in.getShape()[r] == 1 && type.getShape()[r + read.lead] != 1;
    read.isView = true;
    return read;
  }
  // Slice i of a slice of x is x's element start + step * i: compose upward.
  while (auto slice = read.root.getDefiningOp<SliceOp>()) {
    if (!slice.getDynamicSizes().empty() || slice.getStart() < 0 || slice.getStep() < 1)
      break;
    int64_t d = slice.getDim();
    read.offset[d] = slice.getStart() + slice.getStep() * read.offset[d];
    read.step[d] *= slice.getStep();
    read.root = slice.getInput();
    read.isView = true;
  }
  return read;
}

struct ConcatGatherPattern : OpConversionPattern<ConcatOp> {
  ConcatGatherPattern(MLIRContext *context) : OpConversionPattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    int64_t dim = op.getDim();
    auto resultType = cast<RankedTensorType>(op.getType());
    ValueRange inputs = adaptor.getInputs();
    if (inputs.size() < 2 || inputs.size() > kMaxGatheredInputs || !resultType.hasStaticShape() ||
        resultType.getNumElements() == 0)
      return rewriter.notifyMatchFailure(op, "not a few static inputs with elements");
    SmallVector<ViewRead> reads;
    for (Value v : op.getInputs())
      reads.push_back(readThrough(v));
    bool allViews = llvm::all_of(reads, [](const ViewRead &r) { return r.isView; });
    if (op->use_empty() || (!allViews && !llvm::all_of(op->getUsers(), isPointwise)))
      return rewriter.notifyMatchFailure(op, "a reader that is not pointwise");
    // DenseNet's layers concatenate all features so far (each concatenation
    // shares its inputs with the next, or extends it): one buffer holds them.
    auto concatenatedElsewhere = [&](Value v) {
      return v.getDefiningOp<ConcatOp>() || llvm::any_of(v.getUsers(), [&](Operation *u) {
               return u != op.getOperation() && isa<ConcatOp>(u);
             });
    };
    if (llvm::any_of(op.getInputs(), concatenatedElsewhere) ||
        llvm::any_of(op->getUsers(), [](Operation *u) { return isa<ConcatOp>(u); }))
      return rewriter.notifyMatchFailure(op, "shares inputs with another concatenation");
    // Where each input starts along `dim`.
    SmallVector<int64_t> starts;
    int64_t at = 0;
    for (Value v : inputs) {
      starts.push_back(at);
      at += cast<RankedTensorType>(v.getType()).getShape()[dim];
    }
    // Each input is read from the tensor it views (the class token itself,
    // not its broadcast; the image, not its strided slices): a generic
    // reading through tensor.extract cannot fold a view into its indexing
    // map, which would leave the view a kernel (a broadcast) or a copy.
    SmallVector<Value> roots;
    for (auto [k, read] : llvm::enumerate(reads)) {
      Value root = read.isView ? rewriter.getRemappedValue(read.root) : Value(inputs[k]);
      if (!root)
        return rewriter.notifyMatchFailure(op, "a view's source is not converted");
      roots.push_back(root);
    }
    Location loc = op.getLoc();
    int64_t rank = resultType.getRank();
    // An all-parallel generic of no operands: each element reads its input.
    Value gathered = tcc::buildPointwise(
        rewriter, loc, resultType, ValueRange{},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          SmallVector<Value> coords;
          for (int64_t d = 0; d < rank; ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d));
          Value i = coords[dim];
          // The last input whose start is at or before i holds the element;
          // every input is read at an index clamped into it, so no read is
          // out of bounds.
          Value result;
          for (auto [k, v] : llvm::enumerate(inputs)) {
            int64_t length = cast<RankedTensorType>(v.getType()).getShape()[dim];
            if (length == 0)
              continue; // nothing to read (and no index to clamp into)
            Value start = arith::ConstantIndexOp::create(b, l, starts[k]);
            Value last = arith::ConstantIndexOp::create(b, l, length - 1);
            Value zero = arith::ConstantIndexOp::create(b, l, 0);
            Value local = arith::SubIOp::create(b, l, i, start);
            local = arith::MaxSIOp::create(b, l, local, zero);
            local = arith::MinSIOp::create(b, l, local, last);
            SmallVector<Value> at(coords);
            at[dim] = local;
            const ViewRead &read = reads[k];
            SmallVector<Value> rootAt;
            for (int64_t r = 0; r < static_cast<int64_t>(read.offset.size()); ++r) {
              Value index = at[r + read.lead];
              if (read.broadcast[r]) {
                index = zero;
              } else if (read.step[r] != 1 || read.offset[r] != 0) {
                Value step = arith::ConstantIndexOp::create(b, l, read.step[r]);
                Value offset = arith::ConstantIndexOp::create(b, l, read.offset[r]);
                index = arith::AddIOp::create(b, l, arith::MulIOp::create(b, l, index, step),
                                              offset);
              }
              rootAt.push_back(index);
            }
            Value element = tensor::ExtractOp::create(b, l, roots[k], rootAt);
            if (!result) {
              result = element;
              continue;
            }
            Value inside = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, i, start);
            result = arith::SelectOp::create(b, l, inside, element, result);
          }
          return result;
        });
    if (!gathered)
      return rewriter.notifyMatchFailure(op, "no sizes for the result");
    rewriter.replaceOp(op, gathered);
    return success();
  }
};

} // namespace

void tcc::populateConcatGatherToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ConcatGatherPattern>(patterns.getContext());
}
