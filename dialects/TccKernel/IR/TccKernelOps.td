//===- TccKernelOps.td - tcc_kernel operations ------------*- tablegen -*-===//
//
// One op per kernel or library call. Every op is in destination-passing
// style and works on tensors (before tcc-bufferize: `outs` operands, results
// of their types) or on memrefs (after: no results). Verifiers check shapes
// on both.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_KERNEL_OPS
#define TCC_KERNEL_OPS

include "TccKernelDialect.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class TccKernel_DpsOp<string mnemonic, list<Trait> traits = []> :
    TccKernel_Op<mnemonic, !listconcat(traits, [
      DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
      DestinationStyleOpInterface])> {
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// gemm
//===----------------------------------------------------------------------===//

def TccKernel_GemmOp : TccKernel_DpsOp<"gemm", [AttrSizedOperandSegments]> {
  let summary = "A (batched) matrix product with its epilogue: one library call";
  let description = [{
    ```
    result = activation(alpha · op(a) · op(b) + bias) + residual
    ```

    `op(a)` is `[batch..., M, K]`: `a` itself, or with `transpose_a` its
    transpose stored `[batch..., K, M]`; likewise `op(b)` is `[batch..., K,
    N]`, stored `[batch..., N, K]` with `transpose_b` (a linear layer's
    weight). Batch dims broadcast as torch.matmul's do (a missing or size-1
    dim repeats one matrix); `init` and the result have the broadcast batch
    shape followed by `M, N`. `bias` is `[N]`, added to every row; `residual`
    has the result's shape. An activation and a residual do not combine: the
    libraries add the residual before the activation, PyTorch after it.

    Operands, bias, residual and result have one element type (f32, f16 or
    bf16); products accumulate in f32 and the result is rounded once. On the
    CUDA path this is one cuBLASLt call with bias, activation and residual as
    its epilogue (or tcc's GEMV kernels for a few rows); on the CPU path one
    tcc_cpu_gemm call (oneDNN or OpenBLAS) for f32, else a loop nest.

    ```mlir
    %y = tcc_kernel.gemm ins(%x, %w : tensor<8x128x768xf32>, tensor<3072x768xf32>)
           bias(%b : tensor<3072xf32>) outs(%e : tensor<8x128x3072xf32>)
           transpose_b activation(gelu_tanh) -> tensor<8x128x3072xf32>
    ```
  }];
  let arguments = (ins AnyShaped:$a, AnyShaped:$b, Optional<AnyShaped>:$bias,
                       Optional<AnyShaped>:$residual, AnyShaped:$init,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       DefaultValuedAttr<TccKernel_Activation, "::tcc::kernel::Activation::none">:$activation,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha);
  let assemblyFormat = [{
    `ins` `(` $a `,` $b `:` type($a) `,` type($b) `)`
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`residual` `(` $residual^ `:` type($residual) `)`)?
    `outs` `(` $init `:` type($init) `)`
    (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)?
    (`activation` `(` $activation^ `)`)?
    attr-dict (`->` type($results)^)?
  }];
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    /// Rank of the batch shape of the result (its rank minus 2).
    int64_t getNumBatchDims() {
      return ::llvm::cast<::mlir::ShapedType>(getInit().getType()).getRank() - 2;
    }
  }];
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

def TccKernel_AttentionOp : TccKernel_DpsOp<"attention"> {
  let summary = "Scaled dot-product attention as one fused kernel";
  let description = [{
    ```
    result[b, h, i, :] = softmax_j(scale · q[b, h, i, :] · k[b, g(h), j, :]
                                   + mask[b, h, i, j]) · v[b, g(h), j, :]
    ```

    `query` is `[B, H, Lq, D]`, `key` `[B, Hkv, Lk, D]`, `value`
    `[B, Hkv, Lk, Dv]` and the result `[B, H, Lq, Dv]`, with `Hkv` dividing
    `H` (grouped-query attention: `g(h) = h / (H / Hkv)`). For each of the
    four tensors, `bshd` may say that it is stored with sequence and heads
    swapped, `[B, L, H, D]`: what a linear layer's output viewed per head is
    before the transpose attention needs, so neither side moves bytes.

    `mask`, when given, broadcasts to `[B, H, Lq, Lk]`: an `i1` mask keeps
    the keys where it is true; a float mask (the query's element type) is
    added to the scores. A 5-D mask splits the batch: `[B / P, P, H, Lq, Lk]`
    with `P` its static dim 1 (above 1), so batch `b` reads
    `mask[b / P, b % P, ...]` — a mask per window shared by all images, as
    Swin's shifted windows add through a 5-D view of the scores. `causal` keeps key `j` for query `i` only when
    `j <= i`. A query that keeps no key gets 0. Softmax and products are
    computed in f32, the result rounded once; no `Lq x Lk` matrix is
    materialized on the GPU.

    `views`, when given, has one entry per tensor (query, key, value,
    result): `unit`, or `{sizes, strides, offset}` saying that the operand
    (or the init and result) is a base tensor of any shape whose row-major
    storage holds the canonical `[B, H, L, D]` tensor at
    `offset + b·strides[0] + h·strides[1] + l·strides[2] + d·strides[3]`
    (`strides[3]` is 1). Kernel formation folds the reshapes, transposes and
    slices around an attention into them (torchvision's multi-head attention
    reaches each head through seven), and bufferization turns each into a
    memref view, so no copy is made. A tensor with a view is not `bshd`.

    ```mlir
    %o = tcc_kernel.attention ins(%q, %k, %v : tensor<8x128x12x64xbf16>,
           tensor<8x128x12x64xbf16>, tensor<8x128x12x64xbf16>)
           outs(%e : tensor<8x128x12x64xbf16>)
           {bshd = array<i1: true, true, true, true>, causal, scale = 0.125 : f64}
           -> tensor<8x128x12x64xbf16>
    ```
  }];
  let arguments = (ins AnyShaped:$query, AnyShaped:$key, AnyShaped:$value,
                       Optional<AnyShaped>:$mask, AnyShaped:$init,
                       F64Attr:$scale, UnitAttr:$causal,
                       DefaultValuedAttr<DenseBoolArrayAttr, "{false, false, false, false}">:$bshd,
                       OptionalAttr<ArrayAttr>:$views);
  let assemblyFormat = [{
    `ins` `(` $query `,` $key `,` $value `:` type($query) `,` type($key) `,` type($value) `)`
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    `outs` `(` $init `:` type($init) `)`
    attr-dict (`->` type($results)^)?
  }];
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    /// Which tensor `bshd` describes.
    enum Tensor { QueryTensor = 0, KeyTensor = 1, ValueTensor = 2, ResultTensor = 3 };
    /// Sizes of `tensor` in the canonical [B, H, L, D] order.
    ::llvm::SmallVector<int64_t> getCanonicalShape(Tensor tensor);
    /// The view of `tensor` (`views` entry), or null when it has none.
    ::mlir::DictionaryAttr getView(Tensor tensor);
  }];
}

//===----------------------------------------------------------------------===//
// row
//===----------------------------------------------------------------------===//

def TccKernel_RowOp : TccKernel_DpsOp<"row", [AttrSizedOperandSegments]> {
  let summary = "Softmax or a normalization over rows, one read and one write each";
  let description = [{
    A row is the trailing `num_dims` dims of `input`, flattened. For each row

    ```
    h      = input + residual                  (residual given)
    result = kind(h) [· weight] [+ bias]       (first init and result)
    sum    = h                                 (second init and result, if any)
    ```

    with `kind` one of `softmax`, `log_softmax`, `layer_norm` ((h - mean) ·
    rsqrt(var + eps), biased variance) and `rms_norm` (h · rsqrt(mean(h²) +
    eps)). `residual` and the `sum` output have the input's type: fusing a
    residual add that a later layer reads again keeps the residual stream one
    write. `weight` and `bias` (norms only) have the row's shape. The result
    may have another float type than the input (softmax's `dtype`). All
    arithmetic is f32; `h` is rounded to the input's type first, as PyTorch
    computes the unfused graph.

    ```mlir
    %y, %h = tcc_kernel.row layer_norm ins(%x : tensor<1024x768xf32>)
               residual(%r : tensor<1024x768xf32>) weight(%w : tensor<768xf32>)
               bias(%b : tensor<768xf32>) outs(%e, %e2 : tensor<1024x768xf32>, tensor<1024x768xf32>)
               {eps = 1.0e-05 : f64}
               -> tensor<1024x768xf32>, tensor<1024x768xf32>
    ```
  }];
  let arguments = (ins TccKernel_RowKind:$kind, AnyShaped:$input,
                       Optional<AnyShaped>:$residual, Optional<AnyShaped>:$weight,
                       Optional<AnyShaped>:$bias, Variadic<AnyShaped>:$inits,
                       DefaultValuedAttr<F64Attr, "0.0">:$eps,
                       DefaultValuedAttr<I64Attr, "1">:$num_dims);
  let assemblyFormat = [{
    $kind `ins` `(` $input `:` type($input) `)`
    (`residual` `(` $residual^ `:` type($residual) `)`)?
    (`weight` `(` $weight^ `:` type($weight) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    `outs` `(` $inits `:` type($inits) `)`
    attr-dict (`->` type($results)^)?
  }];
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() { return getInitsMutable(); }
    /// The normalized (or softmax) output's destination.
    ::mlir::Value getInit() { return getInits()[0]; }
    /// The destination of h = input + residual, when the op writes it.
    ::mlir::Value getSumInit() { return getInits().size() > 1 ? getInits()[1] : ::mlir::Value(); }
    /// Whether this kind normalizes (takes eps, weight and bias).
    bool isNormalization() {
      return getKind() == ::tcc::kernel::RowKind::layer_norm ||
             getKind() == ::tcc::kernel::RowKind::rms_norm;
    }
  }];
}

//===----------------------------------------------------------------------===//
// scatter
//===----------------------------------------------------------------------===//

def TccKernel_ScatterOp : TccKernel_DpsOp<"scatter", [AttrSizedOperandSegments]> {
  let summary = "Slices of each source written into its init at the positions `index` names";
  let description = [{
    ```
    result_t = init_t;  result_t[i.., index[j], k..] = source_t[i.., j, k..]
    ```
    along `dim` for each pair t of `sources` and `inits` (tcc_graph.index_copy;
    a decoder's key and value caches written at one step's positions are one
    op): one kernel over the sources' elements (every source has one shape),
    which writes only them; the rest of each init is kept (the init is read,
    as its buffer is the result's: a key/value cache written in place). A
    negative index counts from the end; one outside `[-n, n)` fails the call
    with `message` (a run error on the CPU path, a device assertion on the
    CUDA path) and writes nothing.

    `source_views`, when given, has one entry per source: `unit`, or
    `{sizes, strides, offset}` saying that the operand is a base tensor of
    any shape whose row-major storage holds the source (shape `sizes`) at
    `offset + sum_d i_d * strides[d]`. Kernel formation folds the slices,
    reshapes and transposes before a scatter into it (a value projection's
    head view, written into a cache), and bufferization turns it into a
    memref view, so the source is not copied first.

    ```mlir
    %k, %v = tcc_kernel.scatter ins(%key, %value : tensor<1x4x1x64xbf16>, tensor<1x4x1x64xbf16>)
           index(%pos : tensor<1xi64>)
           outs(%kcache, %vcache : tensor<1x4x2048x64xbf16>, tensor<1x4x2048x64xbf16>)
           {dim = 2 : i64, message = "..."} -> tensor<1x4x2048x64xbf16>, tensor<1x4x2048x64xbf16>
    ```
  }];
  let arguments = (ins Variadic<AnyShaped>:$sources, AnyShaped:$index, Variadic<AnyShaped>:$inits,
                       I64Attr:$dim, StrAttr:$message, OptionalAttr<ArrayAttr>:$source_views);
  let assemblyFormat = [{
    `ins` `(` $sources `:` type($sources) `)` `index` `(` $index `:` type($index) `)`
    `outs` `(` $inits `:` type($inits) `)` attr-dict (`->` type($results)^)?
  }];
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() { return getInitsMutable(); }
    /// The view of source `t` (`source_views` entry), or null.
    ::mlir::DictionaryAttr getSourceView(unsigned t);
    /// The shape of the slices written: source 0's, or its view's sizes
    /// (every source has it).
    ::llvm::SmallVector<int64_t> getSourceShape(unsigned t = 0);
  }];
}

//===----------------------------------------------------------------------===//
// conv
//===----------------------------------------------------------------------===//

def TccKernel_ConvOp : TccKernel_DpsOp<"conv", [AttrSizedOperandSegments]> {
  let summary = "A 2-D convolution with its epilogue: one library call";
  let description = [{
    ```
    result = activation(conv2d(input_activation(input), weight) + bias + residual)
    ```

    `input` is `[N, C, H, W]`, `weight` `[F, C / groups, R, S]`, `init` and
    the result `[N, F, OH, OW]`, as torch.nn.functional.conv2d with
    `stride`, symmetric `padding` (zeros, read by the kernel: no padded copy
    of the input is made) and `dilation` per spatial dim. `bias` is `[F]`;
    `residual` has the result's shape and is added before the activation,
    which is how a residual block ends (`relu(bn(conv(x)) + x)`) and how
    cuDNN's fused epilogue computes it. A batch norm after the convolution
    is folded into `weight` and `bias` before formation
    (tcc-fold-conv-affine).

    With `channels_last`, input, init, result and residual are NHWC
    (`[N, H, W, C]`, `[N, OH, OW, F]`) and the weight `[F, R, S, C / groups]`:
    the layout tensor cores run without transposing (kernel formation puts
    the layout changes at the model's edges, not around every convolution).

    `activation` is relu, relu6, silu or hardswish. The CPU path computes
    each (oneDNN's post-ops); cuDNN takes relu only, so on the CUDA path the
    other three are formed only where tcc's own depthwise kernel computes the
    convolution (one filter per channel, windows up to 7x7, strides and
    dilations up to 4; include/tcc/Runtime/DepthwiseKernel.h). There alone,
    `input_activation` (the same three, or relu) is applied
    to each input element before the window sums (the zero padding is not
    activated): the activation before a MobileNet or EfficientNet depthwise
    layer, which would otherwise be a kernel of its own over its largest
    tensor.

    Operands and result have one element type (f32, f16 or bf16); products
    accumulate in f32 and the result is rounded once. The innermost three
    dims of input, init and residual must be packed (channels-last, for tcc's
    depthwise kernel, only the channels); their batch stride is free (a
    channel slice of a larger buffer). On the CUDA path this is one call of
    cuDNN or of tcc's depthwise kernel; on the CPU path a library call or a
    loop nest.

    ```mlir
    %y = tcc_kernel.conv ins(%x, %w : tensor<32x64x56x56xf32>, tensor<64x64x3x3xf32>)
           bias(%b : tensor<64xf32>) residual(%r : tensor<32x64x56x56xf32>)
           outs(%e : tensor<32x64x56x56xf32>) activation(relu)
           {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
            dilation = array<i64: 1, 1>, groups = 1 : i64}
           -> tensor<32x64x56x56xf32>
    ```
  }];
  let arguments = (ins AnyShaped:$input, AnyShaped:$weight, Optional<AnyShaped>:$bias,
                       Optional<AnyShaped>:$residual, AnyShaped:$init,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, I64Attr:$groups,
                       DefaultValuedAttr<TccKernel_Activation, "::tcc::kernel::Activation::none">:$activation,
                       DefaultValuedAttr<TccKernel_Activation, "::tcc::kernel::Activation::none">:$input_activation,
                       UnitAttr:$channels_last);
  let assemblyFormat = [{
    `ins` `(` $input `,` $weight `:` type($input) `,` type($weight) `)`
    (`input_activation` `(` $input_activation^ `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`residual` `(` $residual^ `:` type($residual) `)`)?
    `outs` `(` $init `:` type($init) `)`
    (`activation` `(` $activation^ `)`)?
    attr-dict (`->` type($results)^)?
  }];
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    /// Positions of the channel and the two spatial dims in the input, init
    /// and residual (NCHW: 1, 2, 3; NHWC: 3, 1, 2); the weight's spatial
    /// dims are at the same positions, its input channels at the channel's.
    int64_t getChannelDim() { return getChannelsLast() ? 3 : 1; }
    int64_t getSpatialDim(int64_t i) { return (getChannelsLast() ? 1 : 2) + i; }
    /// Whether tcc's own depthwise kernel computes it (tcc::depthwiseKernelTakes
    /// of its shapes; false while the input's channels are dynamic).
    bool isDepthwiseKernelConv();
  }];
}

//===----------------------------------------------------------------------===//
// qconv
//===----------------------------------------------------------------------===//

def TccKernel_QConvOp : TccKernel_DpsOp<"qconv", [AttrSizedOperandSegments]> {
  let summary = "An int8 2-D convolution (PT2E's QDQ pattern): one library call";
  let description = [{
    What PyTorch 2 export quantization writes as dequantize → conv2d (or
    linear) → [relu] → [quantize], computed on the integers:

    ```
    acc[n, f, i, j] = sum (input - input_zero_point) · (weight - weight_zero_points[f])  (i32)
    v = activation(acc · scales[f] + bias[f] + residual[n, f, i, j])
    result = clamp(round(v · output_scale) + output_zero_point, quant_min, quant_max)
    ```

    or `v` itself (f32) without `output_scale`. `input` is NCHW u8 or s8,
    `weight` `[F, C / groups, R, S]` s8, `scales` the f32 product of the
    input's scale and each filter's (`[F]`), `weight_zero_points` `[F]` and
    `input_zero_point` (rank 0) i64, `bias` f32 `[F]`, `output_scale` the f32
    inverse of the quantize's scale and `output_zero_point` i64 (both rank
    0), `residual` f32 of the result's shape (a ResNet block's identity, a
    transformer's skip connection), added before the activation as in
    `relu(conv(x) + identity)`. A linear layer is the 1x1 convolution of
    `[M, K, 1, 1]`. The result
    is u8 or s8 with `output_scale`, f32 without. `activation` is none,
    relu or gelu_erf. Stride, symmetric padding, dilation and groups as
    tcc_kernel.conv.
    With `channels_last`, input, init, result and residual are NHWC (oneDNN's
    int8 kernels' layout: no reorder around the call; kernel formation moves
    the layout changes to the network's edges), the weight stays
    `[F, C / groups, R, S]`.
    On the CPU path one call of tcc_cpu_qconv2d (oneDNN's int8 convolution,
    u8/s8 × s8 → s32 with per-channel output scales, or tcc's loops);
    formed for the CPU path alone.

    ```mlir
    %y = tcc_kernel.qconv ins(%x, %w : tensor<2x16x8x8xui8>, tensor<32x16x3x3xi8>)
           scales(%s : tensor<32xf32>) zero_points(%wz, %xz : tensor<32xi64>, tensor<i64>)
           bias(%b : tensor<32xf32>)
           requantize(%ys, %yz : tensor<f32>, tensor<i64>)
           outs(%e : tensor<2x32x8x8xui8>) activation(relu)
           {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
            dilation = array<i64: 1, 1>, groups = 1 : i64,
            quant_min = 0 : i64, quant_max = 255 : i64}
           -> tensor<2x32x8x8xui8>
    ```
  }];
  let arguments = (ins AnyShaped:$input, AnyShaped:$weight, AnyShaped:$scales,
                       AnyShaped:$weight_zero_points, AnyShaped:$input_zero_point,
                       Optional<AnyShaped>:$bias, Optional<AnyShaped>:$residual,
                       Optional<AnyShaped>:$output_scale,
                       Optional<AnyShaped>:$output_zero_point, AnyShaped:$init,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, I64Attr:$groups,
                       DefaultValuedAttr<TccKernel_Activation, "::tcc::kernel::Activation::none">:$activation,
                       I64Attr:$quant_min, I64Attr:$quant_max, UnitAttr:$channels_last);
  let assemblyFormat = [{
    `ins` `(` $input `,` $weight `:` type($input) `,` type($weight) `)`
    `scales` `(` $scales `:` type($scales) `)`
    `zero_points` `(` $weight_zero_points `,` $input_zero_point `:`
      type($weight_zero_points) `,` type($input_zero_point) `)`
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`residual` `(` $residual^ `:` type($residual) `)`)?
    (`requantize` `(` $output_scale^ `,` $output_zero_point `:` type($output_scale) `,`
      type($output_zero_point) `)`)?
    `outs` `(` $init `:` type($init) `)`
    (`activation` `(` $activation^ `)`)?
    attr-dict (`->` type($results)^)?
  }];
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    /// Positions of the channel and the two spatial dims in the input, init
    /// and residual (NCHW: 1, 2, 3; NHWC: 3, 1, 2). The weight is FCRS in both.
    int64_t getChannelDim() { return getChannelsLast() ? 3 : 1; }
    int64_t getSpatialDim(int64_t i) { return (getChannelsLast() ? 1 : 2) + i; }
  }];
}

//===----------------------------------------------------------------------===//
// rnn
//===----------------------------------------------------------------------===//

def TccKernel_RnnOp : TccKernel_DpsOp<"rnn", [AttrSizedOperandSegments]> {
  let summary = "A recurrent layer stack (LSTM, GRU, RNN): one runtime call";
  let description = [{
    tcc_graph.rnn as one call, whatever the sequence length: per layer and
    direction, the input projection of every step as one GEMM, then per step
    h·W_hhᵀ and the gates. Operands and layout as tcc_graph.rnn
    (tcc/Support/RecurrentShapes.h); `inits` are the output, h_n and, for an
    LSTM, c_n, each written whole. Every operand is read packed (row-major,
    no gaps): bufferization copies a view that is not. f32 only: on the CPU
    path one tcc_cpu_rnn call (tcc/Runtime/CpuRecurrent.h), on the CUDA
    path one tcc_cuda_rnn call, cuDNN's RNN API (tcc/Runtime/CudnnRecurrent.h).

    ```mlir
    %y, %h, %c = tcc_kernel.rnn lstm ins(%x : tensor<?x2x8xf32>)
           weights(%wi, %wh, %bi, %bh : tensor<64x8xf32>, tensor<64x16xf32>, tensor<64xf32>, tensor<64xf32>)
           outs(%e0, %e1, %e2 : tensor<?x2x16xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>)
           {num_layers = 1 : i64, has_biases}
           -> tensor<?x2x16xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>
    ```
  }];
  let arguments = (ins TccKernel_RnnMode:$mode, AnyShaped:$input, Optional<AnyShaped>:$h0,
                       Optional<AnyShaped>:$c0, Variadic<AnyShaped>:$weights,
                       Variadic<AnyShaped>:$inits, I64Attr:$num_layers,
                       UnitAttr:$bidirectional, UnitAttr:$batch_first, UnitAttr:$has_biases);
  let assemblyFormat = [{
    $mode `ins` `(` $input `:` type($input) `)`
    (`h0` `(` $h0^ `:` type($h0) `)`)?
    (`c0` `(` $c0^ `:` type($c0) `)`)?
    `weights` `(` $weights `:` type($weights) `)`
    `outs` `(` $inits `:` type($inits) `)`
    attr-dict (`->` type($results)^)?
  }];
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() { return getInitsMutable(); }
    /// The hidden size H (the rows of w_hh over the gates).
    int64_t getHiddenSize();
    /// The size of h: proj_size with projections, else H.
    int64_t getStateSize();
    /// Whether the LSTM's h is projected (weights w_hr).
    bool hasProjections() { return getStateSize() != getHiddenSize(); }
  }];
}

#endif // TCC_KERNEL_OPS
