//===- FormScatters.cpp - index_copy as one scatter kernel ----------------===//
//
// Every tcc_graph.index_copy becomes a tcc_kernel.scatter whose init is the
// tensor written: bufferized, it writes the copied slices into that
// tensor's buffer and nothing else (a key/value cache that is the model's
// state is updated where it lies). The index check's message names the
// op's source line. A source that is a chain of slices, reshapes and
// transposes of another tensor (a value projection viewed per head, then
// swapped to [B, H, L, D]) is read through that view (`source_view`): the
// scatter's loops index through strides, so the view is not copied first.
//
//===----------------------------------------------------------------------===//
#include "FormKernels.h"
#include "StridedViews.h"

#include "dialects/TccGraph/IR/SourceLocation.h"
#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccKernel/IR/TccKernelOps.h"

using namespace mlir;

void tcc::formation::formScatterKernels(func::FuncOp func) {
  SmallVector<graph::IndexCopyOp> ops;
  func.walk([&](graph::IndexCopyOp op) { ops.push_back(op); });
  for (graph::IndexCopyOp op : ops) {
    OpBuilder b(op);
    std::string where = graph::formatSourceLocation(op.getLoc());
    std::string message = (where.empty() ? std::string() : where + ": ") + op.getMessage().str();
    Value source = op.getSource();
    DictionaryAttr sourceView;
    // Not a view of the tensor written: the copy keeps the read apart from
    // the writes.
    std::optional<StridedView> view = viewOfProducers(source);
    if (view && view->base == op.getSelf())
      view.reset();
    if (view) {
      source = view->base;
      sourceView = viewAttr(b, *view);
    }
    auto scatter = kernel::ScatterOp::create(
        b, op.getLoc(), TypeRange{op.getType()}, source, op.getIndex(), op.getSelf(),
        b.getI64IntegerAttr(op.getDim()), b.getStringAttr(message), sourceView);
    op.replaceAllUsesWith(scatter.getResult(0));
    op.erase();
    // The views only the scatter read go with it.
    if (view)
      eraseDead(view->chain);
  }
}
