//===- FormScatters.cpp - index_copy as one scatter kernel ----------------===//
//
// Every tcc_graph.index_copy becomes a tcc_kernel.scatter whose init is the
// tensor written: bufferized, it writes the copied slices into that
// tensor's buffer and nothing else (a key/value cache that is the model's
// state is updated where it lies). The index check's message names the
// op's source line.
//
//===----------------------------------------------------------------------===//
#include "FormKernels.h"

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
    auto scatter = kernel::ScatterOp::create(
        b, op.getLoc(), TypeRange{op.getType()}, op.getSource(), op.getIndex(), op.getSelf(),
        b.getI64IntegerAttr(op.getDim()), b.getStringAttr(message));
    op.replaceAllUsesWith(scatter.getResult(0));
    op.erase();
  }
}
