//===- Passes.td - tcc's dialect conversions --------------*- tablegen -*-===//
#ifndef TCC_CONVERSION_PASSES
#define TCC_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def FormKernelsPass : Pass<"tcc-form-kernels", "mlir::ModuleOp"> {
  let summary = "Decide the kernels: matmuls, attention and row ops into tcc_kernel ops";
  let description = [{
    Kernel formation, on tcc_graph while every op's meaning is known:
    - each `tcc_graph.attention` whose element type and head size the fused
      kernel takes becomes `tcc_kernel.attention`, with the [0, 2, 1, 3]
      transposes of its operands and result, a written-out repeat of
      key/value heads and a broadcast of the mask folded in;
    - each `tcc_graph.matmul` becomes `tcc_kernel.gemm`, with operand
      transposes folded into its flags and its epilogue (a constant scale, a
      bias over the last dim, ReLU or GELU-tanh, a residual add) followed
      through single-use chains and reshapes that keep the last dim;
    - softmax/log_softmax over the last dim, layer_norm, rms_norm and the
      hand-written RMSNorm become `tcc_kernel.row`, with a residual add
      producing their input folded in (written as a second result when it is
      read again later);
    - each 2-D `tcc_graph.conv2d` becomes `tcc_kernel.conv` with its padding
      and epilogue (residual add, ReLU); where tensor cores compute it
      (f16/bf16, or f32 under `f32-tensor-cores`) channels-last, and the
      NCHW ↔ NHWC transposes around it are then moved through pointwise ops,
      concatenations and reductions until they cancel or reach the model's
      edges;
    - each `tcc_graph.rnn` (LSTM, GRU, RNN) becomes one `tcc_kernel.rnn`,
      one runtime call on either path (tcc_cpu_rnn, tcc_cuda_rnn);
    - each `tcc_graph.index_copy` becomes a `tcc_kernel.scatter` that
      writes only the copied slices (a key/value cache updated where it
      lies), with the views before its source folded in; scatters at one
      index (a layer's key and value caches) become one op.
    A whole op that no kernel takes is decomposed as tcc-decompose-graph does.

    A large GEMM whose rows are not a multiple of 16 bytes (a vocabulary of
    50257 logits, which sends cuBLASLt to kernels 4-6x slower) is written
    into rows padded to 16 bytes: always for f16/bf16, and for f32 under
    `f32-tensor-cores`.

    Before:
    ```mlir
    %wt = tcc_graph.transpose %w {permutation = array<i64: 1, 0>} : (tensor<10x100xf32>) -> tensor<100x10xf32>
    %mm = tcc_graph.matmul %x, %wt : (tensor<?x100xf32>, tensor<100x10xf32>) -> tensor<?x10xf32>
    %y = tcc_graph.add %mm, %b : (tensor<?x10xf32>, tensor<10xf32>) -> tensor<?x10xf32>
    %r = tcc_graph.relu %y : tensor<?x10xf32>
    ```
    After:
    ```mlir
    %d = tensor.dim %x, %c0 : tensor<?x100xf32>
    %e = tensor.empty(%d) : tensor<?x10xf32>
    %r = tcc_kernel.gemm ins(%x, %w : tensor<?x100xf32>, tensor<10x100xf32>) bias(%b : tensor<10xf32>)
           outs(%e : tensor<?x10xf32>) transpose_b activation(relu) -> tensor<?x10xf32>
    ```
  }];
  let options = [
    Option<"f32TensorCores", "f32-tensor-cores", "bool", "false",
           "f32 GEMMs and convolutions run on tensor cores (--precision tf32 or bf16): "
           "align the GEMMs too, and form the convolutions channels-last">,
    Option<"cpuOnly", "cpu-only", "bool", "false",
           "the program is compiled for the CPU path alone (--target cpu): f32 "
           "convolutions form channels-last, the layout of oneDNN's fastest kernels, "
           "with any activation that follows them in their epilogue (oneDNN's post-ops), "
           "and an exact (erf) GELU after an f32 product in the product's epilogue">,
  ];
  let dependentDialects = [
    "::tcc::kernel::TccKernelDialect", "::tcc::graph::TccGraphDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def PadAttentionMasksPass : Pass<"tcc-pad-attention-masks", "mlir::ModuleOp"> {
  let summary = "Attention masks that are weights, in rows of 16 bytes";
  let description = [{
    The GPU's fused attention copies a mask's tiles into shared memory with
    16-byte copies only when every row starts on 16 bytes; other masks are
    loaded element by element (Swin-T's window masks, rows of 49 bf16 keys:
    twice the kernel's time). A float weight argument, bound or derived
    (`tcc-hoist-weight-expressions`: computed once per binding), that is
    read only as attention masks (directly or through reshapes that keep its
    rows) and whose rows are not a multiple of 16 bytes is replaced by a
    derived weight of padded rows (its program, or `weight:NAME`, then zeros
    joined along the last dim) that each mask reads through a slice: a view
    with the padded row stride, nothing computed per call. A derived
    argument is replaced in place (same name, appended last); a bound
    weight gets a new `derived:NAME:k` and, no longer read, `tcc.host_only`.
    For the CUDA target (run after the hoisting).

    Before:
    ```mlir
    func.func @f(..., %m: tensor<3x49x49xbf16> {tcc.role = "weight", tcc.name = "bias", ...}) {
      %r = tcc_graph.reshape %m : (tensor<3x49x49xbf16>) -> tensor<1x3x49x49xbf16>
      %o = tcc_kernel.attention ins(%q, %k, %v : ...) mask(%r : tensor<1x3x49x49xbf16>) ...
    ```
    After:
    ```mlir
    func.func @f(..., %m: tensor<3x49x49xbf16> {..., tcc.host_only},
                 %p: tensor<3x49x56xbf16> {tcc.name = "derived:bias:0",
                   tcc.derived = ["weight:bias", "const:0", "broadcast:3,49,7", "concat:2"], ...}) {
      %r = tcc_graph.reshape %p : (tensor<3x49x56xbf16>) -> tensor<1x3x49x56xbf16>
      %s = tcc_graph.slice %r {dim = 3, start = 0, end = 49, step = 1} : ... -> tensor<1x3x49x49xbf16>
      %o = tcc_kernel.attention ins(%q, %k, %v : ...) mask(%s : tensor<1x3x49x49xbf16>) ...
    ```
  }];
  let dependentDialects = ["::tcc::graph::TccGraphDialect"];
}

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
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::cf::ControlFlowDialect", "::mlir::scf::SCFDialect"
  ];
}

def ConvertTccKernelToLoopsPass
    : Pass<"convert-tcc-kernel-to-loops", "mlir::ModuleOp"> {
  let summary = "The CPU path's kernels: tcc_kernel ops on memrefs as scf loop nests";
  let description = [{
    Each bufferized `tcc_kernel` op becomes loops that compute in f32 and
    round once to the output's type: `gemm` a parallel loop over the result
    with a dot product over k and its epilogue; `attention` a parallel loop
    over (batch, head, query) with an online softmax over the keys and a
    stack buffer of Dv floats; `row` a parallel loop over rows with up to
    three passes over each.

    Before:
    ```mlir
    tcc_kernel.row softmax ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>)
    ```
    After: `scf.parallel (%r) = (%c0) to (%c4)` around an `scf.for` for the
    maximum, one for the sum of exponentials and one writing `%y`.

    With `library-calls` (the default), an f32 `gemm` is instead one call of
    `tcc_cpu_gemm` (oneDNN or OpenBLAS's sgemm with the epilogue,
    tcc/Runtime/CpuGemm.h), with the arguments the CUDA path's `tcc_gemm`
    call takes; an f32 `attention` one call of `tcc_cpu_attention` with
    `tcc_attention`'s; an f32 `conv` (any layout) one call of
    `tcc_cpu_conv2d` (oneDNN, tcc/Runtime/OneDnnConv.h) with `tcc_conv2d`'s.
    `scatter` is a parallel loop nest; `rnn` is always one call of
    `tcc_cpu_rnn` (tcc/Runtime/CpuRecurrent.h).
  }];
  let options = [
    Option<"libraryCalls", "library-calls", "bool", /*default=*/"true",
           "f32 GEMMs and NCHW convolutions as BLAS-backed runtime calls instead of loop nests">
  ];
  let dependentDialects = [
    "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::affine::AffineDialect",
    "::mlir::LLVM::LLVMDialect"
  ];
}

def ConvertTccKernelToCudaPass
    : Pass<"convert-tcc-kernel-to-cuda", "mlir::ModuleOp"> {
  let summary = "The CUDA path's kernels: tcc_kernel ops on memrefs as runtime calls";
  let description = [{
    In every planned entry, each bufferized `tcc_kernel` op becomes one call
    on the entry's stream argument (added if missing): `gemm` → `tcc_gemm`
    (cuBLASLt, include/tcc/Runtime/CublasLtGemm.h), `attention` →
    `tcc_attention` and `row` → `tcc_row` (tcc's kernel library,
    AttentionKernels.h and RowKernels.h), `conv` → `tcc_conv2d` (cuDNN or
    tcc's kernels, CudnnConv.h), `rnn` → `tcc_cuda_rnn` (cuDNN,
    CudnnRecurrent.h). A `scatter` becomes the loop nest the CPU path
    uses, which the loop mapping makes a kernel. Each memref is passed as its
    first-element pointer, sizes and strides; batch dims a call cannot take
    become host loops around it.

    Before:
    ```mlir
    tcc_kernel.gemm ins(%x, %w : memref<?x100xf32>, memref<10x100xf32>) outs(%y : memref<?x10xf32>) transpose_b
    ```
    After: `func.call @tcc_gemm(%dtype, %compute, %c1, %c1, %m, %c10, %c100, %xptr, ...)`.
  }];
  let options = [
    Option<"tf32", "tf32", "bool", "false",
           "f32 products (GEMMs, attention) on TF32 tensor cores (--precision tf32)">,
    Option<"bf16", "bf16", "bool", "false",
           "f32 GEMMs with bf16 inputs, attention on TF32 (--precision bf16)">,
  ];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::LLVM::LLVMDialect", "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"
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

    Before bufferizing, static pads become a fill and an insert_slice, and
    empty-tensor elimination lets a value that is computed into a
    tensor.empty and then inserted into a larger tensor (a slice of a
    concatenation's buffer, the interior of a padded one) be computed in
    place: its producer writes the slice. Producers that index their output
    by its strides qualify: linalg ops, and convolutions where the slice
    keeps what they need packed (an NCHW image: a channel slice; NHWC
    channels: a channel slice or a padded interior). Before:

      %e = tensor.empty() : tensor<2x6x6x4xf32>
      %y = tcc_kernel.conv ins(%x, %w ...) outs(%e ...) {channels_last, ...}
      %c = tensor.insert_slice %y into %a[0, 0, 0, 8] [2, 6, 6, 4] [1, 1, 1, 1]

    after (no copy):

      %s = memref.subview %buf[0, 0, 0, 8] [2, 6, 6, 4] [1, 1, 1, 1]
             : ... to memref<2x6x6x4xf32, strided<[432, 72, 12, 1], offset: 8>>
      tcc_kernel.conv ins(%x, %w ...) outs(%s ...) {channels_last, ...}
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect", "::mlir::memref::MemRefDialect",
    "::mlir::linalg::LinalgDialect"
  ];
}

#endif // TCC_CONVERSION_PASSES
