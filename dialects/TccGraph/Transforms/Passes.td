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

#endif // TCC_GRAPH_TRANSFORMS_PASSES
