//===- FormQuantized.cpp - PT2E quantize/dequantize in kernel formation ---===//
//
// tcc_graph.quantize and tcc_graph.dequantize (PT2E's QDQ pairs) stay whole
// through legalization. This family runs first in tcc-form-kernels; every
// one it leaves becomes PyTorch's float arithmetic on the spot
// (Decompositions.h), before the GEMM and convolution families, so that a
// dequantized weight is an expression on weights alone, which
// tcc-hoist-weight-expressions computes once per binding.
//
//===----------------------------------------------------------------------===//
#include "FormKernels.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccGraph/Transforms/Decompositions.h"

using namespace mlir;

void tcc::formation::formQuantizedKernels(func::FuncOp func) {
  SmallVector<Operation *> left;
  func.walk([&](Operation *op) {
    if (isa<graph::QuantizeOp, graph::DequantizeOp>(op))
      left.push_back(op);
  });
  for (Operation *op : left)
    graph::decomposeWholeOp(op);
}
