//===- FormRecurrences.cpp - recurrent layers as one runtime call ---------===//
//
// Every tcc_graph.rnn becomes a tcc_kernel.rnn whose inits are fresh
// tensors of its results' shapes (the sequence length and batch read from
// the input at run time). Only the CPU path computes one (tcc_cpu_rnn): for
// a program with a CUDA path the recurrence is refused here, at its source
// line, until that path has its own.
//
//===----------------------------------------------------------------------===//
#include "FormKernels.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccKernel/IR/TccKernelOps.h"
#include "tcc/Support/RecurrentShapes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

LogicalResult tcc::formation::formRecurrentKernels(func::FuncOp func, bool cpuOnly) {
  SmallVector<graph::RnnOp> ops;
  func.walk([&](graph::RnnOp op) { ops.push_back(op); });
  bool refused = false;
  for (graph::RnnOp op : ops) {
    if (!cpuOnly) {
      op.emitError() << tcc::recurrentOperatorName(op.getMode())
                     << " on the CUDA target is not supported yet: compile with --target cpu";
      refused = true;
      continue;
    }
    std::optional<kernel::RnnMode> mode = kernel::symbolizeRnnMode(op.getMode());
    if (!mode) {
      op.emitOpError("has no kernel for mode '") << op.getMode() << "'";
      refused = true;
      continue;
    }
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value x = op.getInput();
    int64_t batchDim = op.getBatchFirst() ? 0 : 1;
    SmallVector<Value> inits;
    for (auto [i, result] : llvm::enumerate(op.getResults()))
      // The output's dims 0 and 1 are the input's; h_n's and c_n's dim 1 is
      // the batch. The rest are static.
      inits.push_back(emptyTensor(b, loc, typeOf(result), [&](int64_t d) -> Value {
        return tensor::DimOp::create(b, loc, x, i == 0 ? d : batchDim);
      }));
    auto rnn = kernel::RnnOp::create(
        b, loc, op.getResultTypes(), kernel::RnnModeAttr::get(b.getContext(), *mode), x,
        op.getH0(), op.getC0(), op.getWeights(), inits, op.getNumLayersAttr(),
        op.getBidirectionalAttr(), op.getBatchFirstAttr(), op.getHasBiasesAttr());
    op.replaceAllUsesWith(rnn.getResults());
    op.erase();
  }
  return failure(refused);
}
