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

def FoldConvAffinePass : Pass<"tcc-fold-conv-affine", "mlir::ModuleOp"> {
  let summary = "Fold per-channel scales and shifts of weights into the convolution before them";
  let description = [{
    An inference batch norm after a convolution is legalized to a per-channel
    `conv · scale + shift`, `scale` and `shift` computed from weights only.
    Each such multiply, add or subtract (of a weight expression shaped
    `[F, 1, 1]`, `[1, F, 1, 1]` or one element) that is the single user of
    the convolution's result moves into the convolution's weight and bias:

    ```
    conv2d(x, w, b) · s + t  →  conv2d(x, w · s[:, None, None, None], b · s + t)
    ```

    The new weight and bias are weight arithmetic, computed once per weight
    binding by `tcc-hoist-weight-expressions`; the convolution's output is
    no longer read and written again by a pointwise kernel.

    Before:
    ```mlir
    %y = tcc_graph.conv2d %x, %w {...} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
    %z = tcc_graph.mul %y, %s : (tensor<2x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<2x4x6x6xf32>
    ```
    After:
    ```mlir
    %s4 = tcc_graph.reshape %s : (tensor<4x1x1xf32>) -> tensor<4xf32>
    %ws = tcc_graph.mul %w, %s41 : (tensor<4x3x3x3xf32>, tensor<4x1x1x1xf32>) -> tensor<4x3x3x3xf32>
    %z = tcc_graph.conv2d %x, %ws {...} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
    ```
  }];
  let dependentDialects = ["::tcc::graph::TccGraphDialect"];
}

#endif // TCC_GRAPH_TRANSFORMS_PASSES
