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
    shift, scalar arguments → rank-0 constants). Softmax, the norms,
    attention and recurrent layers stay whole (`tcc_graph.softmax`, ...) for
    kernel formation; tcc-decompose-graph spells out those it leaves. Any
    operator left over is reported once per name at the node's Python source
    line, listing every unsupported operator before the pass fails:

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
  let options = [
    Option<"recordRefusals", "record-refusals", "bool", /*default=*/"false",
           "Also leave every refused operator (each occurrence, not only the first "
           "of a name) in place with a `tcc.refusal` string attribute giving the "
           "reason, for `tcc explain`; the pass still fails">
  ];
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
    `tcc_graph.quantize`/`dequantize` that no int8 kernel took become
    PyTorch's arithmetic on floats (multiply, round half to even, add the
    zero point, clamp, convert).

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

def FoldEmptyTensorsPass : Pass<"tcc-fold-empty-tensors", "mlir::ModuleOp"> {
  let summary = "Give values with no elements as constants, drop empty concat inputs";
  let description = [{
    A tensor with a static size 0 holds nothing to compute: every tcc_graph
    op whose result has no elements is replaced by a zero-element constant,
    and concat inputs of size 0 along the concatenated dim are dropped. The
    lowerings then never see slices of size 0 (tensor.insert_slice and
    extract_slice reject their offset), and the model still returns its
    empty outputs.

    Before:
    ```mlir
    %c = tcc_graph.concat %a, %b {dim = 0 : i64} : (tensor<0x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %e = tcc_graph.exp %z : tensor<2x0xf32>
    ```
    After:
    ```mlir
    %e = tcc_graph.constant dense<0.000000e+00> : tensor<2x0xf32>
    ```
    (and `%c` is `%b`).
  }];
  let dependentDialects = ["::tcc::graph::TccGraphDialect"];
}

def SimplifyAttentionMasksPass : Pass<"tcc-simplify-attention-masks", "mlir::ModuleOp"> {
  let summary = "Attention masks known at compile time: dropped, or the causal flag";
  let description = [{
    transformers models build their attention mask from positions on every
    call (an iota, comparisons, a cumulative sum over packed-sequence
    boundaries, gathers): a dozen small kernels whose result depends on no
    input, and a mask the attention kernel then loads for every score. Here
    each `tcc_graph.attention` mask that depends only on constants and iotas
    is evaluated on the host (ConstantEvaluator: static shapes, at most 2^22
    elements per value); a mask that keeps every key (all true, or all 0.0
    when added) is dropped, one that keeps exactly key `j <= i` for query
    `i` (all false/-inf above the diagonal: at most -1e30 counts as -inf,
    since no causal row is fully masked) becomes the `causal` flag. Any
    other mask stays as it is; the ops that computed a dropped mask become
    dead. Kernel formation applies the same to attention written out
    (matmul, mask, softmax, matmul), which it raises only then.

    Before:
    ```mlir
    %i = tcc_graph.iota {start = 0.0 : f64, step = 1.0 : f64} : tensor<16xi64>
    %r = tcc_graph.reshape %i : (tensor<16xi64>) -> tensor<16x1xi64>
    %m = tcc_graph.compare %i, %r {predicate = "le"} : (tensor<16xi64>, tensor<16x1xi64>) -> tensor<16x16xi1>
    %o = tcc_graph.attention %q, %k, %v, mask %m {scale = 0.125 : f64} : ...
    ```
    After:
    ```mlir
    %o = tcc_graph.attention %q, %k, %v {causal, scale = 0.125 : f64} : ...
    ```
  }];
  let dependentDialects = ["::tcc::graph::TccGraphDialect"];
}

def FoldConvAffinePass : Pass<"tcc-fold-conv-affine", "mlir::ModuleOp"> {
  let summary = "Fold per-channel scales and shifts of weights into the convolution (or "
                "linear layer) before them";
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

    A product by a weight `x · w (+ b)` followed (through at most one
    transpose) by a multiply with a weight expression that varies along the
    product's columns only takes the scale the same way:
    `x · (w · s[None, :]) (+ b · s)`. That is ConvNeXt's layer scale after
    its second linear layer (the result permuted back to NCHW); the residual
    add after it then joins the GEMM's epilogue (tcc-form-kernels).
  }];
  let dependentDialects = ["::tcc::graph::TccGraphDialect"];
}

def FuseSiblingMatmulsPass : Pass<"tcc-fuse-sibling-matmuls", "mlir::ModuleOp"> {
  let summary = "Join linear layers that read the same input into one product";
  let description = [{
    Linear layers `x · Wᵢᵀ (+ bᵢ)` over one input `x`, with bound weights
    `Wᵢ` of one dtype and inner size `k` (query, key and value projections; a
    gated MLP's gate and up projections), all with a bias or all without,
    become one product over the concatenated weights, and each layer's result
    a column slice of it. One GEMM of `Σnᵢ` columns fills the GPU where each
    of its parts did not (and is one launch); the slices are read in place
    through strides. The concatenations are weight expressions, made derived
    weights by `tcc-hoist-weight-expressions`; a group is cut where its
    joined weight would exceed what a derived weight may hold.

    Before:
    ```mlir
    %wqt = tcc_graph.transpose %wq {permutation = array<i64: 1, 0>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %q0 = tcc_graph.matmul %x, %wqt : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
    %q = tcc_graph.add %q0, %bq : (tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
    %wkt = tcc_graph.transpose %wk {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %k0 = tcc_graph.matmul %x, %wkt : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %k = tcc_graph.add %k0, %bk : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    ```
    After:
    ```mlir
    %w = tcc_graph.concat %wq, %wk {dim = 0 : i64} : (tensor<16x8xf32>, tensor<4x8xf32>) -> tensor<20x8xf32>
    %wt = tcc_graph.transpose %w {permutation = array<i64: 1, 0>} : (tensor<20x8xf32>) -> tensor<8x20xf32>
    %p = tcc_graph.matmul %x, %wt : (tensor<2x8xf32>, tensor<8x20xf32>) -> tensor<2x20xf32>
    %b = tcc_graph.concat %bq, %bk {dim = 0 : i64} : (tensor<16xf32>, tensor<4xf32>) -> tensor<20xf32>
    %pb = tcc_graph.add %p, %b : (tensor<2x20xf32>, tensor<20xf32>) -> tensor<2x20xf32>
    %q = tcc_graph.slice %pb {dim = 1 : i64, start = 0 : i64, end = 16 : i64, step = 1 : i64} : (tensor<2x20xf32>) -> tensor<2x16xf32>
    %k = tcc_graph.slice %pb {dim = 1 : i64, start = 16 : i64, end = 20 : i64, step = 1 : i64} : (tensor<2x20xf32>) -> tensor<2x4xf32>
    ```
  }];
  let dependentDialects = ["::tcc::graph::TccGraphDialect"];
}

def HoistWeightExpressionsPass : Pass<"tcc-hoist-weight-expressions", "mlir::ModuleOp"> {
  let summary = "Turn arithmetic on weights alone into derived weights the runtime computes";
  let description = [{
    A value computed only from weight arguments, constants and positions
    (a value known at compile time, ConstantEvaluator, whose elements are
    start, start + step, ...: an iota, offset, reshaped or cast; written as
    one `iota` token), by elementwise
    arithmetic (add, sub, mul, div, pow, maximum, minimum, neg, rsqrt, sqrt,
    exp, log, abs, cos, sin, casts between float types), views (reshape, broadcast,
    transpose), slices, concatenation, comparisons, selects and takes indexed
    by an integer weight (a relative-position bias table), all of static
    shape, is a weight expression (a comparison only inside one: the derived
    weight is a float). Weights are bound
    by name at run time, so it cannot be folded here; left in the graph it
    would run as a kernel on every call (inference batch norm's
    `rsqrt(var + eps) * weight`). Each weight expression that an op outside
    the expressions uses, that reads a weight and that contains arithmetic
    becomes a new `weight` argument, appended after the others, with a
    unique `tcc.name` (`derived:<first source weight>:<k>`) and its program
    in `tcc.derived`: postfix tokens over the source weights' names that the
    runtime evaluates once per binding (docs/ARTIFACT.md). Views above the
    arithmetic stay in the graph, on the new argument, as for any weight; a
    bare view of a weight or constant is never derived (with
    `materialize-transposes`, run after kernel formation, a transpose that
    moves data is computed in the program instead). A weight argument
    the function no longer reads gets `tcc.host_only`: the runtime keeps it
    on the host.

    Before:
    ```mlir
    func.func @forward(%x: tensor<2x8xf32> {tcc.role = "input", ...},
                       %var: tensor<8xf32> {tcc.name = "bn.running_var", tcc.role = "weight", ...}) -> tensor<2x8xf32> {
      %eps = tcc_graph.constant dense<1.0e-05> : tensor<f32>
      %a = tcc_graph.add %var, %eps : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
      %s = tcc_graph.rsqrt %a : tensor<8xf32>
      %y = tcc_graph.mul %x, %s : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
      return %y : tensor<2x8xf32>
    }
    ```
    After:
    ```mlir
    func.func @forward(%x: tensor<2x8xf32> {tcc.role = "input", ...},
                       %var: tensor<8xf32> {tcc.host_only, tcc.name = "bn.running_var", tcc.role = "weight", ...},
                       %s: tensor<8xf32> {tcc.derived = ["weight:bn.running_var", "const:9.9999997473787516e-06", "add", "rsqrt"],
                                          tcc.name = "derived:bn.running_var:0", tcc.role = "weight", tcc.sizes = [8]}) -> tensor<2x8xf32> {
      %y = tcc_graph.mul %x, %s : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
      return %y : tensor<2x8xf32>
    }
    ```
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"::tcc::kMaxDerivedElements",
           "Largest tensor (in elements) a weight expression may hold at any step">,
    Option<"maxTokens", "max-tokens", "int64_t", /*default=*/"4096",
           "Longest program a derived weight may have (a value read twice is kept and recalled)">,
    Option<"materializeTransposes", "materialize-transposes", "bool", /*default=*/"false",
           "A transpose of a weight that moves data is derived too, with the arithmetic "
           "below it (after kernel formation, which leaves transposes only where a kernel "
           "needs the bytes moved: channels-last filters)">,
  ];
  let dependentDialects = ["::tcc::graph::TccGraphDialect"];
}

#endif // TCC_GRAPH_TRANSFORMS_PASSES
