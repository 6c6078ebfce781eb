//===- FoldEmptyTensors.cpp - values with no elements as constants --------===//
//
// Implements `tcc-fold-empty-tensors` (Passes.td says what and why).
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccGraph/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace tcc::graph {
#define GEN_PASS_DEF_FOLDEMPTYTENSORSPASS
#include "dialects/TccGraph/Transforms/Passes.h.inc"
} // namespace tcc::graph

using namespace mlir;
using namespace tcc::graph;

namespace {
bool isEmpty(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && t.hasStaticShape() && t.getNumElements() == 0;
}

/// A splat of zero of `type`'s element type (splats lower to fills, which
/// every path handles, also with no elements).
Value emptyConstant(OpBuilder &b, Location loc, RankedTensorType type) {
  Type elt = type.getElementType();
  Attribute zero = isa<FloatType>(elt) ? Attribute(b.getFloatAttr(elt, 0.0))
                                       : Attribute(b.getIntegerAttr(elt, 0));
  return ConstantOp::create(b, loc, type, cast<ElementsAttr>(DenseElementsAttr::get(type, zero)));
}

struct FoldEmptyTensorsPass
    : public tcc::graph::impl::FoldEmptyTensorsPassBase<FoldEmptyTensorsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<TccGraphDialect>(op->getDialect()) && !isa<ConstantOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      if (auto concat = dyn_cast<ConcatOp>(op)) {
        int64_t dim = concat.getDim();
        SmallVector<Value> kept;
        for (Value v : concat.getInputs())
          if (cast<RankedTensorType>(v.getType()).getDimSize(dim) != 0)
            kept.push_back(v);
        if (!kept.empty() && kept.size() < concat.getInputs().size()) {
          Value r = kept.size() == 1
                        ? kept[0]
                        : ConcatOp::create(b, op->getLoc(), concat.getType(), kept,
                                           concat.getDimAttr())
                              .getResult();
          if (r.getType() != concat.getType())
            r = tensor::CastOp::create(b, op->getLoc(), concat.getType(), r);
          concat.replaceAllUsesWith(r);
          concat.erase();
          continue;
        }
      }
      if (op->getNumResults() == 0 || !llvm::all_of(op->getResultTypes(), isEmpty))
        continue;
      for (Value result : op->getResults())
        result.replaceAllUsesWith(
            emptyConstant(b, op->getLoc(), cast<RankedTensorType>(result.getType())));
      if (isMemoryEffectFree(op))
        op->erase();
    }
  }
};
} // namespace
