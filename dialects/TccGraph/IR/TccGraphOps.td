//===- TccGraphOps.td - tcc_graph operations --------------*- tablegen -*-===//
//
// The generic import op plus the compact typed op set that legalization
// produces. Shapes come from the export (every value's tensor_meta), so the
// typed ops carry result types from the importer and verify consistency
// rather than infer.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_GRAPH_OPS
#define TCC_GRAPH_OPS

include "TccGraphDialect.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def TccGraph_Tensor : RankedTensorOf<[AnyType]>;
def TccGraph_FloatTensor : RankedTensorOf<[AnyFloat]>;

//===----------------------------------------------------------------------===//
// Import
//===----------------------------------------------------------------------===//

def TccGraph_OperatorOp : TccGraph_Op<"operator"> {
  let summary = "An ATen operator as imported, before legalization";
  let description = [{
    Carries the operator's qualified name (`aten.linear.default`), its tensor
    and symbolic-integer operands in schema order (`operand_names` gives each
    operand's schema argument name) and every other argument in `args`.
    Arguments that were `None` are absent. `tcc-legalize-graph` replaces it
    with typed ops or reports it as unsupported at its source location.

    ```mlir
    %0 = tcc_graph.operator "aten.linear.default"(%x, %w, %b)
           {operand_names = ["input", "weight", "bias"], args = {}}
           : (tensor<10x100xf32>, tensor<10x100xf32>, tensor<10xf32>) -> tensor<10x10xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, Variadic<AnyType>:$operands,
                       StrArrayAttr:$operand_names, DictionaryAttr:$args);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $name `(` $operands `)` attr-dict `:` functional-type($operands, $results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def TccGraph_ConstantOp : TccGraph_Op<"constant",
    [Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "A tensor constant (scalars become rank-0 constants)";
  let description = [{
    ```mlir
    %c = tcc_graph.constant dense<2.0> : tensor<f32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class TccGraph_UnaryOp<string mnemonic, string what> :
    TccGraph_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "Elementwise " # what;
  let description = [{
    Applies the function to every element; shape and type are unchanged.
  }];
  let arguments = (ins TccGraph_Tensor:$input);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def TccGraph_SinOp : TccGraph_UnaryOp<"sin", "sine">;
def TccGraph_CosOp : TccGraph_UnaryOp<"cos", "cosine">;
def TccGraph_ExpOp : TccGraph_UnaryOp<"exp", "exponential">;
def TccGraph_SqrtOp : TccGraph_UnaryOp<"sqrt", "square root">;
def TccGraph_RsqrtOp : TccGraph_UnaryOp<"rsqrt", "reciprocal square root">;
def TccGraph_NegOp : TccGraph_UnaryOp<"neg", "negation">;
def TccGraph_ReluOp : TccGraph_UnaryOp<"relu", "max(x, 0)">;
def TccGraph_TanhOp : TccGraph_UnaryOp<"tanh", "hyperbolic tangent">;
def TccGraph_ErfOp : TccGraph_UnaryOp<"erf", "error function">;
def TccGraph_LogOp : TccGraph_UnaryOp<"log", "natural logarithm">;
def TccGraph_Log1pOp : TccGraph_UnaryOp<"log1p", "log(1 + x)">;
def TccGraph_AbsOp : TccGraph_UnaryOp<"abs", "absolute value">;
def TccGraph_FloorOp : TccGraph_UnaryOp<"floor", "round toward -inf (floats)">;
def TccGraph_CeilOp : TccGraph_UnaryOp<"ceil", "round toward +inf (floats)">;
def TccGraph_TruncOp : TccGraph_UnaryOp<"trunc", "round toward zero (floats)">;
def TccGraph_RoundOp : TccGraph_UnaryOp<"round", "round half to even, as torch.round (floats)">;
def TccGraph_TanOp : TccGraph_UnaryOp<"tan", "tangent">;
def TccGraph_AsinOp : TccGraph_UnaryOp<"asin", "arcsine">;
def TccGraph_AcosOp : TccGraph_UnaryOp<"acos", "arccosine">;
def TccGraph_AtanOp : TccGraph_UnaryOp<"atan", "arctangent">;
def TccGraph_SinhOp : TccGraph_UnaryOp<"sinh", "hyperbolic sine">;
def TccGraph_CoshOp : TccGraph_UnaryOp<"cosh", "hyperbolic cosine">;
def TccGraph_AsinhOp : TccGraph_UnaryOp<"asinh", "inverse hyperbolic sine">;
def TccGraph_AcoshOp : TccGraph_UnaryOp<"acosh", "inverse hyperbolic cosine">;
def TccGraph_AtanhOp : TccGraph_UnaryOp<"atanh", "inverse hyperbolic tangent">;
def TccGraph_Exp2Op : TccGraph_UnaryOp<"exp2", "2 ** x">;
def TccGraph_Expm1Op : TccGraph_UnaryOp<"expm1", "exp(x) - 1">;
def TccGraph_Log2Op : TccGraph_UnaryOp<"log2", "base-2 logarithm">;
def TccGraph_Log10Op : TccGraph_UnaryOp<"log10", "base-10 logarithm">;
def TccGraph_ErfcOp : TccGraph_UnaryOp<"erfc", "complementary error function">;

class TccGraph_BinaryOp<string mnemonic, string what> :
    TccGraph_Op<mnemonic, [Pure]> {
  let summary = "Elementwise " # what # " with NumPy broadcasting";
  let description = [{
    Operands broadcast against each other as in PyTorch: shapes align on the
    trailing dimension and a static size 1 stretches. The result type is the
    broadcast shape; all element types are equal (the importer converts
    Python scalars into rank-0 `tcc_graph.constant`s of the tensor's type).

    ```mlir
    %r = tcc_graph.add %a, %b : (tensor<4x12xf32>, tensor<12xf32>) -> tensor<4x12xf32>
    ```
  }];
  let arguments = (ins TccGraph_Tensor:$lhs, TccGraph_Tensor:$rhs);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TccGraph_AddOp : TccGraph_BinaryOp<"add", "addition">;
def TccGraph_SubOp : TccGraph_BinaryOp<"sub", "subtraction">;
def TccGraph_MulOp : TccGraph_BinaryOp<"mul", "multiplication">;
def TccGraph_DivOp : TccGraph_BinaryOp<"div", "true division">;
def TccGraph_MaximumOp : TccGraph_BinaryOp<"maximum", "maximum">;
def TccGraph_MinimumOp : TccGraph_BinaryOp<"minimum", "minimum">;
def TccGraph_PowOp : TccGraph_BinaryOp<"pow", "power (lhs ** rhs)">;
def TccGraph_BitwiseAndOp : TccGraph_BinaryOp<"bitwise_and", "bitwise and (logical and on i1)">;
def TccGraph_BitwiseOrOp : TccGraph_BinaryOp<"bitwise_or", "bitwise or (logical or on i1)">;
def TccGraph_Atan2Op : TccGraph_BinaryOp<"atan2", "two-argument arctangent atan2(lhs, rhs) (floats)">;
def TccGraph_CopysignOp : TccGraph_BinaryOp<"copysign", "lhs's magnitude with rhs's sign (floats)">;

def TccGraph_CompareOp : TccGraph_Op<"compare", [Pure]> {
  let summary = "Elementwise comparison with NumPy broadcasting, giving i1";
  let description = [{
    `predicate` is one of eq, ne, lt, le, gt, ge. Operands have one element
    type; floats compare ordered (NaN is unequal to everything, as PyTorch).

    ```mlir
    %m = tcc_graph.compare %a, %b {predicate = "lt"}
           : (tensor<4x12xi64>, tensor<i64>) -> tensor<4x12xi1>
    ```
  }];
  let arguments = (ins TccGraph_Tensor:$lhs, TccGraph_Tensor:$rhs, StrAttr:$predicate);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TccGraph_SelectOp : TccGraph_Op<"select", [Pure]> {
  let summary = "torch.where: elements of `lhs` where `condition`, else of `rhs`";
  let description = [{
    All three operands broadcast against each other; `condition` is i1 and
    `lhs`/`rhs` have the result's element type.

    ```mlir
    %r = tcc_graph.select %c, %a, %b
           : (tensor<1x1x5x5xi1>, tensor<f32>, tensor<2x2x5x5xf32>) -> tensor<2x2x5x5xf32>
    ```
  }];
  let arguments = (ins TccGraph_Tensor:$condition, TccGraph_Tensor:$lhs,
                       TccGraph_Tensor:$rhs);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TccGraph_CastOp : TccGraph_Op<"cast", [Pure]> {
  let summary = "Elementwise conversion to the result's element type";
  let description = [{
    PyTorch's conversion rules: float to integer truncates toward zero, any
    value to i1 is `value != 0`, i1 to a number is 0 or 1.

    ```mlir
    %f = tcc_graph.cast %ids : (tensor<2x16xi64>) -> tensor<2x16xf32>
    ```
  }];
  let arguments = (ins TccGraph_Tensor:$input);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def TccGraph_IotaOp : TccGraph_Op<"iota", [Pure]> {
  let summary = "start, start + step, ... (torch.arange) as a 1-D tensor";
  let description = [{
    The length is the result's size: static, or the one `dynamic_sizes`
    value (torch.arange(seq_len) of a symbolic length). Integer results take
    the integer values of `start` and `step`.

    ```mlir
    %p = tcc_graph.iota {start = 0.0 : f64, step = 1.0 : f64} : tensor<16xi64>
    ```
  }];
  let arguments = (ins F64Attr:$start, F64Attr:$step, Variadic<Index>:$dynamic_sizes);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = "(`sizes` `(` $dynamic_sizes^ `)`)? attr-dict `:` type($result)";
  let builders = [
    OpBuilder<(ins "::mlir::Type":$type, "::mlir::FloatAttr":$start, "::mlir::FloatAttr":$step), [{
      build($_builder, $_state, type, start, step, ::mlir::ValueRange{});
    }]>
  ];
  let hasVerifier = 1;
}

def TccGraph_RandomOp : TccGraph_Op<"random", [Pure]> {
  let summary = "uniform random numbers, a hash of the state, the stream and each position";
  let description = [{
    Element i (row-major) of the result is drawn from the 64 bits
    tcc::randomBits(state[0], stream, i) (tcc/Support/RandomState.h): for a
    float result, uniform on [0, 1) in steps of 2^-p, p the type's precision
    (24 for f32, 53 for f64, 8 for bf16, 11 for f16), so every value is
    exact in the type; for an i64 result, uniform on [0, 2^63). The same
    state, stream and shape give the same numbers (so the op is pure); the
    frontend advances the state once per call (lib/Frontend/RandomState.h).
    Symbolic sizes come from `dynamic_sizes`, as for iota.

    ```mlir
    %u = tcc_graph.random %state {stream = 3 : i64} : (tensor<1xi64>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins TccGraph_Tensor:$state, I64Attr:$stream, Variadic<Index>:$dynamic_sizes);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = [{
    $state (`sizes` `(` $dynamic_sizes^ `)`)? attr-dict `:` functional-type($state, $result)
  }];
  let hasVerifier = 1;
}

def TccGraph_DimSizeOp : TccGraph_Op<"dim_size", [Pure]> {
  let summary = "The size of dimension `dim` of `input`, as a rank-0 i64 tensor";
  let description = [{
    Lets index arithmetic use a symbolic size (x[i, j] on a tensor whose
    dim 1 is a sequence length computes i * size(x, 1) + j).

    ```mlir
    %n = tcc_graph.dim_size %x {dim = 1 : i64} : (tensor<2x?xi64>) -> tensor<i64>
    ```
  }];
  let arguments = (ins TccGraph_Tensor:$input, I64Attr:$dim);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def TccGraph_CumsumOp : TccGraph_Op<"cumsum", [Pure, SameOperandsAndResultType]> {
  let summary = "Inclusive prefix sum along `dim`";
  let description = [{
    ```mlir
    %c = tcc_graph.cumsum %m {dim = 1 : i64} : tensor<2x16xi64>
    ```
  }];
  let arguments = (ins TccGraph_Tensor:$input, I64Attr:$dim);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra, convolution, pooling
//===----------------------------------------------------------------------===//

def TccGraph_MatmulOp : TccGraph_Op<"matmul", [Pure]> {
  let summary = "Matrix product with batch broadcasting (torch.matmul on rank >= 2)";
  let description = [{
    `lhs` is `[..., M, K]`, `rhs` is `[..., K, N]`; leading batch dims
    broadcast. The result is `[..., M, N]`.

    ```mlir
    %y = tcc_graph.matmul %x, %wt : (tensor<?x100xf32>, tensor<100x10xf32>) -> tensor<?x10xf32>
    ```
  }];
  let arguments = (ins TccGraph_FloatTensor:$lhs, TccGraph_FloatTensor:$rhs);
  let results = (outs TccGraph_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TccGraph_Conv2dOp : TccGraph_Op<"conv2d", [Pure]> {
  let summary = "2-D convolution, NCHW input, FCHW weight, optional bias";
  let description = [{
    ```mlir
    %y = tcc_graph.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
           dilation = array<i64: 1, 1>, groups = 1 : i64}
           : (tensor<2x3x16x16xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x16x16xf32>
    ```
  }];
  let arguments = (ins TccGraph_FloatTensor:$input, TccGraph_FloatTensor:$weight,
                       Optional<TccGraph_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, I64Attr:$groups);
  let results = (outs TccGraph_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

class TccGraph_Pool2dOp<string mnemonic, string what> :
    TccGraph_Op<mnemonic, [Pure]> {
  let summary = "2-D " # what # " pooling over NCHW";
  let description = [{
    Window `kernel`, `stride`, symmetric `padding` and `dilation` per spatial
    dim. `ceil_mode` rounds the output size up as PyTorch does. For average
    pooling, `count_include_pad` counts padded elements in the divisor.
    `channels_last` (set by kernel formation, between channels-last
    convolutions) says input and result are NHWC.
  }];
  let arguments = (ins TccGraph_FloatTensor:$input,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding, DenseI64ArrayAttr:$dilation,
                       BoolAttr:$ceil_mode, BoolAttr:$count_include_pad,
                       UnitAttr:$channels_last);
  let results = (outs TccGraph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Position of spatial dim `i` (0: height, 1: width) in input and result.
    int64_t getSpatialDim(int64_t i) { return (getChannelsLast() ? 1 : 2) + i; }
  }];
}

def TccGraph_MaxPool2dOp : TccGraph_Pool2dOp<"max_pool2d", "max">;
def TccGraph_AvgPool2dOp : TccGraph_Pool2dOp<"avg_pool2d", "average">;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class TccGraph_ReduceOp<string mnemonic, string what, Type tensor = TccGraph_FloatTensor> :
    TccGraph_Op<mnemonic, [Pure]> {
  let summary = what # " over `dims`";
  let description = [{
    Reduces the listed dimensions (non-negative, sorted). With `keepdim` they
    stay as size 1, otherwise they are dropped.

    ```mlir
    %s = tcc_graph.reduce_sum %x {dims = array<i64: 1>, keepdim = true}
           : (tensor<4x18xf32>) -> tensor<4x1xf32>
    ```
  }];
  let arguments = (ins tensor:$input, DenseI64ArrayAttr:$dims, BoolAttr:$keepdim);
  let results = (outs tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

// Integer sums too: an i64 sum that f64 cannot hold exactly adds integers.
def TccGraph_ReduceSumOp : TccGraph_ReduceOp<"reduce_sum", "Sum", TccGraph_Tensor>;
def TccGraph_ReduceMaxOp : TccGraph_ReduceOp<"reduce_max", "Maximum">;
def TccGraph_ReduceMeanOp : TccGraph_ReduceOp<"reduce_mean", "Arithmetic mean">;
def TccGraph_ReduceProdOp : TccGraph_ReduceOp<"reduce_prod", "Product">;

//===----------------------------------------------------------------------===//
// Operators kept whole for kernel formation
//===----------------------------------------------------------------------===//
//
// tcc-form-kernels turns these into one tcc_kernel op each (row kernels,
// fused attention); tcc-decompose-graph rewrites whatever it left into the
// primitive ops above, computed in f32 for f16/bf16 inputs.

def TccGraph_SoftmaxOp : TccGraph_Op<"softmax", [Pure]> {
  let summary = "softmax along `dim` (log_softmax with `log`)";
  let description = [{
    `exp(x - max) / sum(exp(x - max))` along `dim`, or with `log`
    `(x - max) - log(sum(exp(x - max)))`, computed in f32 and rounded once to
    the result's float type, which may differ from the input's (softmax's
    `dtype`, `half_to_float`).

    ```mlir
    %p = tcc_graph.softmax %s {dim = 3 : i64} : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
    ```
  }];
  let arguments = (ins TccGraph_FloatTensor:$input, I64Attr:$dim, UnitAttr:$log);
  let results = (outs TccGraph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def TccGraph_LayerNormOp : TccGraph_Op<"layer_norm", [Pure, AttrSizedOperandSegments]> {
  let summary = "Layer normalization over the trailing `num_dims` dims";
  let description = [{
    `(x - mean) · rsqrt(var + eps) · weight + bias` per row of the trailing
    `num_dims` dims, with the biased variance; `weight` and `bias` (the
    row's shape) are optional.

    ```mlir
    %y = tcc_graph.layer_norm %x, %w, %b {eps = 1.0e-05 : f64, num_dims = 1 : i64}
           : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins TccGraph_FloatTensor:$input, Optional<TccGraph_FloatTensor>:$weight,
                       Optional<TccGraph_FloatTensor>:$bias, I64Attr:$num_dims, F64Attr:$eps);
  let results = (outs TccGraph_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`,` `weight` $weight^)? (`,` `bias` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TccGraph_RmsNormOp : TccGraph_Op<"rms_norm", [Pure]> {
  let summary = "RMS normalization over the trailing `num_dims` dims";
  let description = [{
    `x · rsqrt(mean(x²) + eps) · weight` per row; the normalized value is
    rounded to the input's type before `weight` multiplies it (PyTorch's
    rms_norm and the usual hand-written RMSNorm both do).

    ```mlir
    %y = tcc_graph.rms_norm %x, %w {eps = 1.0e-06 : f64, num_dims = 1 : i64}
           : (tensor<2x16x64xbf16>, tensor<64xbf16>) -> tensor<2x16x64xbf16>
    ```
  }];
  let arguments = (ins TccGraph_FloatTensor:$input, Optional<TccGraph_FloatTensor>:$weight,
                       I64Attr:$num_dims, F64Attr:$eps);
  let results = (outs TccGraph_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`,` $weight^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TccGraph_AttentionOp : TccGraph_Op<"attention", [Pure]> {
  let summary = "scaled_dot_product_attention";
  let description = [{
    `softmax(scale · q · kᵀ + mask) · v` over the last two dims, with batch
    dims in front. At rank 4 (`[B, H, L, D]`) key and value may have fewer
    heads than the query, dividing them (grouped-query attention). `mask`
    broadcasts to the scores: `i1` keeps where true, a float mask is added.
    `causal` keeps key `j` for query `i` when `j <= i`. A query that keeps no
    key gets 0.

    ```mlir
    %o = tcc_graph.attention %q, %k, %v {causal, scale = 2.500000e-01 : f64}
           : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
    ```
  }];
  let arguments = (ins TccGraph_FloatTensor:$query, TccGraph_FloatTensor:$key,
                       TccGraph_FloatTensor:$value, Optional<TccGraph_Tensor>:$mask,
                       F64Attr:$scale, UnitAttr:$causal);
  let results = (outs TccGraph_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`,` `mask` $mask^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TccGraph_RnnOp : TccGraph_Op<"rnn", [Pure, AttrSizedOperandSegments]> {
  let summary = "A recurrent layer stack: nn.LSTM, nn.GRU or nn.RNN (tanh or relu)";
  let description = [{
    aten.lstm.input, gru.input, rnn_tanh.input and rnn_relu.input as one op,
    so that the recurrence over a symbolic sequence length reaches a runtime
    call whole (it is never unrolled). `input` is `[T, B, I]` (`[B, T, I]`
    with `batch_first`); `weights` are PyTorch's flat parameter list, per
    layer and direction `w_ih, w_hh[, b_ih, b_hh][, w_hr]`
    (tcc/Support/RecurrentShapes.h states the shapes). `h0` (and, for an
    LSTM, `c0`) are `[L·D, B, P]` (`[L·D, B, H]`); absent, zeros. Results:
    the last layer's `h` at every step `[T, B, D·P]`, then `h_n` and, for an
    LSTM, `c_n`. Gates in PyTorch's order (LSTM i, f, g, o; GRU r, z, n with
    n = tanh(W_in x + b_in + r·(W_hn h + b_hn))). Inference only: no dropout
    between layers.

    ```mlir
    %y, %h = tcc_graph.rnn %x, weights %wi, %wh, %bi, %bh {mode = "gru", num_layers = 1 : i64, has_biases}
           : (tensor<?x2x8xf32>, tensor<48x8xf32>, tensor<48x16xf32>, tensor<48xf32>, tensor<48xf32>)
           -> (tensor<?x2x16xf32>, tensor<1x2x16xf32>)
    ```
  }];
  let arguments = (ins TccGraph_FloatTensor:$input, Optional<TccGraph_FloatTensor>:$h0,
                       Optional<TccGraph_FloatTensor>:$c0,
                       Variadic<TccGraph_FloatTensor>:$weights, StrAttr:$mode,
                       I64Attr:$num_layers, UnitAttr:$bidirectional, UnitAttr:$batch_first,
                       UnitAttr:$has_biases);
  let results = (outs Variadic<TccGraph_FloatTensor>:$results);
  let assemblyFormat = [{
    $input (`h0` $h0^)? (`c0` $c0^)? `weights` $weights attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def TccGraph_TransposeOp : TccGraph_Op<"transpose", [Pure]> {
  let summary = "Permutes dimensions: result dim i is input dim permutation[i]";
  let description = [{
    ```mlir
    %t = tcc_graph.transpose %w {permutation = array<i64: 1, 0>}
           : (tensor<10x100xf32>) -> tensor<100x10xf32>
    ```
  }];
  let arguments = (ins TccGraph_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def TccGraph_ReshapeOp : TccGraph_Op<"reshape", [Pure]> {
  let summary = "Row-major reshape to the result type's shape";
  let description = [{
    Covers view, reshape and flatten. A single dynamic result dimension is
    the element count divided by the static sizes; with several (attention
    scores of a symbolic sequence length), `dynamic_sizes` holds them all.

    ```mlir
    %f = tcc_graph.reshape %x : (tensor<?x16x1x1xf32>) -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins TccGraph_Tensor:$input, Variadic<Index>:$dynamic_sizes);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = [{
    $input (`sizes` `(` $dynamic_sizes^ `)`)? attr-dict `:` functional-type($input, $result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$type, "::mlir::Value":$input), [{
      build($_builder, $_state, type, input, ::mlir::ValueRange{});
    }]>
  ];
  let hasVerifier = 1;
  // A reshape to the input's own type is the input; a reshape of a reshape
  // reshapes the first input (kernel formation then sees through views).
  let hasFolder = 1;
}

def TccGraph_SliceOp : TccGraph_Op<"slice", [Pure]> {
  let summary = "Elements start, start+step, ... (< end) along `dim`";
  let description = [{
    Covers slice, chunk, split and select (with a reshape). `start` and `end`
    are non-negative and clamped to the dim size by the legalizer. When the
    result's size along `dim` is symbolic, `dynamic_sizes` holds it and `end`
    is only an upper bound.

    ```mlir
    %q = tcc_graph.slice %qkv {dim = 2 : i64, start = 0 : i64, end = 16 : i64, step = 1 : i64}
           : (tensor<2x5x48xf32>) -> tensor<2x5x16xf32>
    ```
  }];
  let arguments = (ins TccGraph_Tensor:$input, I64Attr:$dim, I64Attr:$start,
                       I64Attr:$end, I64Attr:$step, Variadic<Index>:$dynamic_sizes);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = [{
    $input (`sizes` `(` $dynamic_sizes^ `)`)? attr-dict `:` functional-type($input, $result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$type, "::mlir::Value":$input, "::mlir::IntegerAttr":$dim, "::mlir::IntegerAttr":$start,
                   "::mlir::IntegerAttr":$end, "::mlir::IntegerAttr":$step), [{
      build($_builder, $_state, type, input, dim, start, end, step, ::mlir::ValueRange{});
    }]>
  ];
  let hasVerifier = 1;
}

def TccGraph_ConcatOp : TccGraph_Op<"concat", [Pure]> {
  let summary = "Concatenates tensors along `dim`";
  let description = [{
    ```mlir
    %c = tcc_graph.concat %a, %b {dim = 1 : i64}
           : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x16x8x8xf32>
    ```
  }];
  let arguments = (ins Variadic<TccGraph_Tensor>:$inputs, I64Attr:$dim);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

def TccGraph_BroadcastOp : TccGraph_Op<"broadcast", [Pure]> {
  let summary = "Stretches size-1 dims (NumPy rules) to the result shape";
  let description = [{
    Covers expand and expand_as. Input dims align with the trailing result
    dims; each is 1 (stretched) or equal to the result's. Leading result dims
    the input lacks are new. `dynamic_sizes`, when given, holds every
    symbolic result size in order (expand to a sequence length).

    ```mlir
    %e = tcc_graph.broadcast %cls : (tensor<1x1x16xf32>) -> tensor<2x1x16xf32>
    ```
  }];
  let arguments = (ins TccGraph_Tensor:$input, Variadic<Index>:$dynamic_sizes);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = [{
    $input (`sizes` `(` $dynamic_sizes^ `)`)? attr-dict `:` functional-type($input, $result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$type, "::mlir::Value":$input), [{
      build($_builder, $_state, type, input, ::mlir::ValueRange{});
    }]>
  ];
  let hasVerifier = 1;
}

def TccGraph_TakeOp : TccGraph_Op<"take", [Pure]> {
  let summary = "Picks slices of `input` along `dim` by an integer index tensor";
  let description = [{
    `result[i.., j.., k..] = input[i.., index[j..], k..]` with `i..` the dims
    before `dim` and `k..` those after: the result shape is
    `input.shape[:dim] + index.shape + input.shape[dim+1:]` (numpy.take).
    Covers embedding, index_select and index.Tensor with one index tensor.
    Negative indices count from the end, as in PyTorch.

    ```mlir
    %e = tcc_graph.take %table, %ids {dim = 0 : i64}
           : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins TccGraph_Tensor:$input, RankedTensorOf<[AnySignlessInteger]>:$index,
                       I64Attr:$dim);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = "$input `,` $index attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def TccGraph_GatherOp : TccGraph_Op<"gather", [Pure]> {
  let summary = "torch.gather: `result[i] = input[i with i[dim] = index[i]]`";
  let description = [{
    `index` has the input's rank and the result's shape; along every other
    dim it may be smaller than the input. Negative indices count from the end.

    ```mlir
    %g = tcc_graph.gather %x, %idx {dim = 1 : i64}
           : (tensor<3x5xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins TccGraph_Tensor:$input, RankedTensorOf<[AnySignlessInteger]>:$index,
                       I64Attr:$dim);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = "$input `,` $index attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def TccGraph_IndexCopyOp : TccGraph_Op<"index_copy", [Pure]> {
  let summary = "`self` with `source`'s slices along `dim` at the positions `index` names";
  let description = [{
    `result = self; result[i.., index[j], k..] = source[i.., j, k..]` with
    `i..` the dims before `dim` and `k..` those after (torch.index_copy;
    also index_put with one index tensor and whole slices elsewhere). Only
    the written slices are touched: a key/value cache updated at a step's
    positions costs what the step writes, not the cache's size. Negative
    indices count from the end; one outside `[-n, n)` fails the call with
    `message` (after the op's source line), as PyTorch raises. Where an
    index repeats, which slice lands there is unspecified (as in PyTorch).

    ```mlir
    %k = tcc_graph.index_copy %cache[%pos], %new {dim = 2 : i64, message = "..."}
           : (tensor<1x4x2048x64xbf16>, tensor<?xi64>, tensor<1x4x?x64xbf16>)
           -> tensor<1x4x2048x64xbf16>
    ```
  }];
  let arguments = (ins TccGraph_Tensor:$self, RankedTensorOf<[AnySignlessInteger]>:$index,
                       TccGraph_Tensor:$source, I64Attr:$dim, StrAttr:$message);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = [{
    $self `[` $index `]` `,` $source attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TccGraph_AsStridedOp : TccGraph_Op<"as_strided", [Pure]> {
  let summary = "A strided view of the input's row-major storage";
  let description = [{
    `result[i..] = flat(input)[storage_offset + sum_k i_k * strides[k]]`,
    where `flat(input)` is the input in row-major order (tcc tensors are
    always contiguous). The result shape is static.

    ```mlir
    %v = tcc_graph.as_strided %x {strides = array<i64: 768, 1, 768, 768>, storage_offset = 0 : i64}
           : (tensor<1x768x1x1xf32>) -> tensor<1x768x1x1xf32>
    ```
  }];
  let arguments = (ins TccGraph_Tensor:$input, DenseI64ArrayAttr:$strides,
                       I64Attr:$storage_offset);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Remainders
//===----------------------------------------------------------------------===//

def TccGraph_FmodOp : TccGraph_BinaryOp<"fmod",
    "C fmod: the remainder of truncated division, with the sign of `lhs`"> {
  let description = [{
    Floats lower to `arith.remf`, integers to `arith.remsi`. Operands
    broadcast as for the other binary ops. torch.remainder (Python modulo,
    sign of `rhs`) is built from it by the legalizer.

    ```mlir
    %r = tcc_graph.fmod %a, %b : (tensor<4x12xi64>, tensor<i64>) -> tensor<4x12xi64>
    ```
  }];
}

def TccGraph_TruncDivOp : TccGraph_BinaryOp<"trunc_div",
    "integer division rounding toward zero (signed integers)"> {
  let description = [{
    `div(x, y, rounding_mode="trunc")` of integers; floor division is built
    from it and `fmod` by the legalizer. Lowers to `arith.divsi` behind the
    checks LLVM needs: a zero divisor fails a run-time check (PyTorch raises
    ZeroDivisionError) and the most negative value divided by -1 wraps to
    itself, as PyTorch computes it.

    ```mlir
    %q = tcc_graph.trunc_div %a, %b : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Special functions
//===----------------------------------------------------------------------===//

def TccGraph_SpecialFunctionOp : TccGraph_Op<"special_function", [Pure]> {
  let summary = "An ATen special function whose scalar code loops a data-dependent number of times";
  let description = [{
    `function` names ATen's scalar function, computed per element exactly as
    ATen/native/Math.h does, its special cases and loop exits included:
    the orthogonal polynomials `chebyshev_polynomial_{t,u,v,w}`,
    `shifted_chebyshev_polynomial_{t,u,v,w}`, `hermite_polynomial_{h,he}`,
    `laguerre_polynomial_l`, `legendre_polynomial_p` of operands (x, n),
    where n is truncated to an integer and the recurrence runs n steps; and
    the Hurwitz `zeta` of operands (x, q), whose series runs until q + i > 9
    (in f64, as ATen's CPU kernel accumulates); the regularized incomplete
    gamma functions `igamma` (P) and `igammac` (Q) of operands (a, x,
    lgamma(a), lgamma(1 + a)), whose series and continued fraction run until
    a term is negligible. Operands broadcast; operand and result element
    types are one float type.

    ```mlir
    %t = tcc_graph.special_function "chebyshev_polynomial_t"(%x, %n)
           : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<TccGraph_FloatTensor>:$inputs, StrAttr:$function);
  let results = (outs TccGraph_FloatTensor:$result);
  let assemblyFormat = "$function `(` $inputs `)` attr-dict `:` functional-type($inputs, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Run-time checks
//===----------------------------------------------------------------------===//

def TccGraph_CheckOp : TccGraph_Op<"check", [Pure]> {
  let summary = "`input` itself, after checking that `condition` holds everywhere";
  let description = [{
    Where PyTorch raises on a value it computed (a singular matrix given to
    `linalg.inv`, a matrix that is not positive-definite given to
    `linalg.cholesky`), the legalizer checks that value: `condition` (i1,
    broadcast to `input`) false anywhere fails the call with `message`
    after the op's source line (a run error on the CPU path, a device
    assertion on the CUDA path). The result is `input`; a check whose result
    is unused goes with it.

    ```mlir
    %r = tcc_graph.check %ok, %inv "linalg.inv: the input is singular"
           : (tensor<2x1x1xi1>, tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
    ```
  }];
  let arguments = (ins TccGraph_Tensor:$condition, TccGraph_Tensor:$input, StrAttr:$message);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $input $message attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Quantization (PT2E's quantized_decomposed operators)
//===----------------------------------------------------------------------===//

class TccGraph_QuantizationOp<string mnemonic, string what> :
    TccGraph_Op<mnemonic, [Pure]> {
  let summary = what;
  let arguments = (ins TccGraph_Tensor:$input, TccGraph_FloatTensor:$scale,
                       TccGraph_Tensor:$zero_point, OptionalAttr<I64Attr>:$axis,
                       I64Attr:$quant_min, I64Attr:$quant_max);
  let results = (outs TccGraph_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $zero_point attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the scale and zero point are per slice along `axis`.
    bool isPerChannel() { return getAxis().has_value(); }
  }];
}

def TccGraph_QuantizeOp : TccGraph_QuantizationOp<"quantize",
    "Affine quantization to integers, as quantized_decomposed.quantize_per_*"> {
  let description = [{
    Per tensor (no `axis`: `scale` and `zero_point` are rank 0) or per
    channel (`scale` and `zero_point` are 1-D, one entry per slice of
    `input` along `axis`). PyTorch's arithmetic, in its order: in a compute
    type C (f32 per tensor, where PyTorch reads the scale as a Python float;
    the scale's type per channel, so f64 scales compute in f64),
    `clamp(round(C(x) * C(1 / f64(scale))) + C(zero_point), quant_min,
    quant_max)` with round half to even, converted to the result's integer
    type. f16/bf16 inputs are widened to f32 first.

    ```mlir
    %q = tcc_graph.quantize %x, %s, %zp {quant_min = 0 : i64, quant_max = 255 : i64}
           : (tensor<2x3x8x8xf32>, tensor<f64>, tensor<i64>) -> tensor<2x3x8x8xui8>
    ```
  }];
}

def TccGraph_DequantizeOp : TccGraph_QuantizationOp<"dequantize",
    "Affine dequantization to f32, as quantized_decomposed.dequantize_per_*"> {
  let description = [{
    `(C(q) - C(zero_point)) * C(scale)` converted to the result type, with C
    as for `tcc_graph.quantize` (f32 per tensor, the scale's type per
    channel). `quant_min`/`quant_max` are the range the producer recorded;
    PyTorch does not clamp here, nor does this op.

    ```mlir
    %w = tcc_graph.dequantize %q, %s, %zp {axis = 0 : i64, quant_min = -128 : i64,
           quant_max = 127 : i64} : (tensor<8x3x3x3xi8>, tensor<8xf32>, tensor<8xi64>)
           -> tensor<8x3x3x3xf32>
    ```
  }];
}

#endif // TCC_GRAPH_OPS
