//===- FormRecurrences.cpp - recurrent layers as one runtime call ---------===//
//
// Every tcc_graph.rnn becomes a tcc_kernel.rnn whose inits are fresh
// tensors of its results' shapes (the sequence length and batch read from
// the input at run time). Both paths compute it in one runtime call: the
// CPU path's tcc_cpu_rnn, the CUDA path's tcc_cuda_rnn (cuDNN's RNN API).
//
//===----------------------------------------------------------------------===//
#include "FormKernels.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccKernel/IR/TccKernelOps.h"
#include "tcc/Support/RecurrentShapes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

void tcc::formation::formRecurrentKernels(func::FuncOp func) {
  SmallVector<graph::RnnOp> ops;
  func.walk([&](graph::RnnOp op) { ops.push_back(op); });
  for (graph::RnnOp op : ops) {
    // tcc_graph.rnn's verifier admits the four modes tcc_kernel.rnn has.
    std::optional<kernel::RnnMode> mode = kernel::symbolizeRnnMode(op.getMode());
    if (!mode)
      continue;
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
}
