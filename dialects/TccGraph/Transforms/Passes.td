//===- Passes.td - passes on the tcc_graph dialect --------*- tablegen -*-===//
#ifndef TCC_GRAPH_TRANSFORMS_PASSES
#define TCC_GRAPH_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def LegalizeGraphPass : Pass<"tcc-legalize-graph", "mlir::ModuleOp"> {
  let summary = "Turn imported ATen operators into typed tcc_graph ops";
  let description = [{
    Rewrites every `tcc_graph.operator` whose ATen name tcc supports into the
    compact typed op set, decomposing composite operators on the way
    (`linear` → transpose + matmul + add, `batch_norm` → per-channel scale and
    shift, `softmax` → max/sub/exp/sum/div, scalar arguments → rank-0
    constants). Any operator left over is reported once per name at the
    node's Python source line, listing every unsupported operator before the
    pass fails:

    ```
    model.py:12:0: error: unsupported operator 'aten.erfinv.default' (node 'erfinv')
    ```

    Before:
    ```mlir
    %0 = tcc_graph.operator "aten.relu.default"(%x) {operand_names = ["self"], args = {}}
           : (tensor<4xf32>) -> tensor<4xf32>
    ```
    After:
    ```mlir
    %0 = tcc_graph.relu %x : tensor<4xf32>
    ```
  }];
  let dependentDialects = ["::tcc::graph::TccGraphDialect", "::mlir::tensor::TensorDialect"];
}

def DecomposeGraphPass : Pass<"tcc-decompose-graph", "mlir::ModuleOp"> {
  let summary = "Spell out the operators that kernel formation left whole";
  let description = [{
    `tcc_graph.softmax`, `layer_norm`, `rms_norm` and `attention` that
    `tcc-form-kernels` did not turn into kernels (a softmax over a leading
    dim, an attention whose head size the fused kernel lacks) become
    primitive tcc_graph ops, computed in f32 for f16/bf16 inputs and rounded
    once. Attention's softmax gives 0 for a query that keeps no key.

    Before:
    ```mlir
    %p = tcc_graph.softmax %x {dim = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
    After:
    ```mlir
    %m = tcc_graph.reduce_max %x {dims = array<i64: 0>, keepdim = true} : (tensor<4x8xf32>) -> tensor<1x8xf32>
    %d = tcc_graph.sub %x, %m : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
    %e = tcc_graph.exp %d : tensor<4x8xf32>
    %s = tcc_graph.reduce_sum %e {dims = array<i64: 0>, keepdim = true} : (tensor<4x8xf32>) -> tensor<1x8xf32>
    %p = tcc_graph.div %e, %s : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let dependentDialects = ["::tcc::graph::TccGraphDialect", "::mlir::tensor::TensorDialect"];
}

#endif // TCC_GRAPH_TRANSFORMS_PASSES
