//===- Passes.td - tcc's dialect conversions --------------*- tablegen -*-===//
#ifndef TCC_CONVERSION_PASSES
#define TCC_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertTccGraphToLinalgPass
    : Pass<"convert-tcc-graph-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower typed tcc_graph ops to linalg, tensor, arith and math";
  let description = [{
    Elementwise ops become `linalg.generic` with broadcasting indexing maps,
    so upstream elementwise fusion can merge chains into one loop nest;
    matmul becomes a batched `linalg.generic` contraction (transposed
    operands fold in through the indexing maps), conv2d
    `linalg.conv_2d_nchw_fchw` (grouped: `_ngchw_gfchw`) on a `tensor.pad`,
    pooling `linalg.pooling_nchw_*`, reductions `linalg.reduce`, reshape
    `tensor.collapse_shape`/`expand_shape`, concat `tensor.insert_slice`.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect"
  ];
}

def BufferizePass : Pass<"tcc-bufferize", "mlir::ModuleOp"> {
  let summary = "Tensors to buffers, with results as caller-provided out-params";
  let description = [{
    Runs One-Shot Bufferize over the whole module (function boundaries with
    identity layouts, copies as `linalg.copy` so they lower to loops like
    every other kernel), then turns returned buffers into trailing output
    arguments. A result allocated inside the function is written in place
    into the caller's output buffer instead of being copied. After this pass
    the entry's signature is: inputs, weights, outputs (see docs/ARTIFACT.md).
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect", "::mlir::memref::MemRefDialect",
    "::mlir::linalg::LinalgDialect"
  ];
}

#endif // TCC_CONVERSION_PASSES
