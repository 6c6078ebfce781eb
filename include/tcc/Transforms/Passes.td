//===- Passes.td - tcc transformation passes ---------------*- tablegen -*-===//
//
// Passes over upstream dialects that are not tied to one tcc dialect
// (memory planning, ...). Generated with
// `mlir-tblgen -gen-pass-decls -name TccTransforms`.
//
//===----------------------------------------------------------------------===//

#ifndef TCC_TRANSFORMS_PASSES
#define TCC_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def PlanMemoryPass : Pass<"tcc-plan-memory", "mlir::ModuleOp"> {
  let summary = "Place every memref.alloc in one liveness-planned arena";
  let description = [{
    Runs after one-shot bufferization on each `func.func` of the module whose
    body is one block. Every `memref.alloc` in that block gets an offset in a
    single arena: a buffer is live from its alloc to the last use of it or of
    any alias of it (followed transitively: every memref or tensor result of
    an op using it, which covers subview, view, cast, reshape and
    collapse/expand_shape; a use inside a nested region counts at its
    enclosing top-level op, whose results are aliases too), and buffers with
    intersecting lifetimes never overlap. `memref.dealloc` is not a use. Placement is greedy by
    size (`tcc::planMemoryGreedyBySize`), every offset a multiple of
    `alignment`.

    Dynamic sizes are planned at their upper bound. A bound comes from
    constants, `memref.dim`/`tensor.dim` of a function argument (its
    `tcc.sizes` argument attribute, whose symbols take their maximum from the
    module's `tcc.symbols = {s77 = [min, max]}`) or of another alloc, integer
    arith (`addi`, `subi`, `muli`, `divui`, `divsi`, `ceildivsi`,
    `floordivsi`, `remui`, `remsi`, min/max, index casts, `select`) and
    `affine.apply`/`affine.min`/`affine.max`, evaluated with interval
    arithmetic.

    The function gets a new last argument `%arena: memref<?xi8>
    {tcc.arena}`; each alloc becomes a `memref.view` of it at a constant
    offset and its `memref.dealloc`s are erased. The plan is recorded as
    `tcc.memory_plan` on the function (one `{offset, bytes, first, last}`
    dictionary per alloc, in program order; `first`/`last` are positions of
    ops in the body) and `tcc.arena_size` (i64) on the function and on the
    module (the largest over its functions).

    Example:

    ```mlir
    func.func @f(%x: memref<16xf32>, %out: memref<16xf32>) {
      %a = memref.alloc() : memref<16xf32>
      linalg.copy ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
      %b = memref.alloc() : memref<16xf32>
      linalg.copy ins(%a : memref<16xf32>) outs(%b : memref<16xf32>)
      linalg.copy ins(%b : memref<16xf32>) outs(%out : memref<16xf32>)
      return
    }
    ```

    becomes

    ```mlir
    func.func @f(%x: memref<16xf32>, %out: memref<16xf32>,
                 %arena: memref<?xi8> {tcc.arena})
        attributes {tcc.arena_size = 128 : i64, tcc.memory_plan = [
          {bytes = 64 : i64, first = 0 : i64, last = 3 : i64, offset = 0 : i64},
          {bytes = 64 : i64, first = 2 : i64, last = 4 : i64, offset = 64 : i64}
        ]} {
      %c0 = arith.constant 0 : index
      %a = memref.view %arena[%c0][] : memref<?xi8> to memref<16xf32>
      ...
    }
    ```

    Refused with an error naming the op: allocs in nested regions, with a
    non-identity layout, a non-default memory space or an alignment above
    `alignment`; sizes that cannot be bounded; buffers that escape (an alias
    returned or stored); allocs in a function that has callers in the module.
  }];
  let options = [
    Option<"alignment", "alignment", "uint64_t", /*default=*/"64",
           "Byte alignment of every buffer offset (a power of two; the "
           "arena itself is 64-byte aligned by the calling convention)">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::memref::MemRefDialect",
  ];
}

def SplitTargetsPass : Pass<"tcc-split-targets", "mlir::ModuleOp"> {
  let summary = "One copy of the planned entry per target path (cpu, cuda)";
  let description = [{
    After memory planning the program is the same for every target. The
    planned `forward` stays for the CPU path and is cloned as `forward_cuda`
    for the CUDA path (renamed instead when CUDA is the only target); each
    gets `tcc.target = "cpu"` or `"cuda"`. Every target-specific pass after
    this one works only on the functions of its target, so both lowerings
    run in one pipeline on one module and the host LLVM tail runs once.

    Before:
    ```mlir
    func.func @forward(%x: memref<4xf32>, %out: memref<4xf32>, %arena: memref<?xi8> {tcc.arena})
    ```
    After (`targets=cpu,cuda`):
    ```mlir
    func.func @forward(...) attributes {tcc.target = "cpu"}
    func.func @forward_cuda(...) attributes {tcc.target = "cuda"}
    ```

    `targets` has no default: a test says which paths it splits, as
    `tcc compile --target` does (whose default is cpu,cuda).
  }];
  let options = [
    Option<"targets", "targets", "tcc::TargetSet", "tcc::TargetSet()",
           "The paths, as tcc compile's --target: cpu, cuda or cpu,cuda (required)">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def LowerAssertsToRuntimePass : Pass<"tcc-lower-asserts-to-runtime", "mlir::ModuleOp"> {
  let summary = "Run-time checks (cf.assert) of the CPU path as calls that record an error";
  let description = [{
    The compiler checks with `cf.assert` where PyTorch raises on a value only
    known at run time (an index out of range). MLIR's lowering of cf.assert
    prints and aborts the process; a model's caller must get an error
    instead. Each cf.assert outside a GPU module becomes, where its
    condition is false, a call of the runtime's `tcc_assert_failed` with its
    message (a constant global string); the runtime keeps the first message
    of a run and the run fails with it. Execution goes on after the call:
    the code a check guards reads only values it made safe. Asserts inside
    GPU kernels are left to the NVVM lowering (a device-side assert).

    Before:
    ```mlir
    cf.assert %ok, "model.py:3: index out of range ..."
    ```
    After:
    ```mlir
    llvm.mlir.global internal constant @tcc_check_message_1("model.py:3: index out of range ...\00")
    func.func private @tcc_assert_failed(!llvm.ptr)
    ...
    %failed = arith.xori %ok, %true : i1
    scf.if %failed {
      %m = llvm.mlir.addressof @tcc_check_message_1 : !llvm.ptr
      func.call @tcc_assert_failed(%m) : (!llvm.ptr) -> ()
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect"];
}

def ParallelizeCpuLoopsPass : Pass<"tcc-parallelize-cpu-loops", "mlir::ModuleOp"> {
  let summary = "Run the CPU path's parallel loops on the runtime's thread pool";
  let description = [{
    Each top-level `scf.parallel` of a CPU-path function (the row kernels'
    loop over rows, convert-linalg-to-parallel-loops' nests of pointwise
    kernels and reductions) becomes a call of the runtime's
    `tcc_parallel_for` (CpuParallel.h) with an outlined body
    `@<function>_parallel_<N>(%context: !llvm.ptr, %begin: i64, %end: i64)`.
    The parallel iterations are numbered 0 .. count: all the loop's dims
    but the innermost (kept whole, contiguous, for LLVM's vectorizer), or
    all of them for a 1-d loop and for a row kernel (a body that loops)
    whose leading dims have fewer than 16 iterations; the body runs iterations [%begin, %end) and reads what the loop
    captured (memref descriptors, indices, scalars) from a context struct
    the caller builds on its stack. Constants are cloned in.

    A loop stays as it is when its whole work (operations times trip
    counts, statically known) is below twice `min-work` (one thread is
    faster), when it carries reductions, or when its body calls a function
    or holds a run-time check (their state is per thread). `grain`, the
    fewest iterations a thread takes, is min-work divided by one
    iteration's estimated work.

    Before:
    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c128, %c768) step (%c1, %c1) {
      %x = memref.load %in[%i, %j] : memref<128x768xf32>
      memref.store %x, %out[%i, %j] : memref<128x768xf32>
    }
    ```
    After:
    ```mlir
    %ctx = llvm.alloca ... -> !llvm.ptr      // { %in, %out } descriptors
    %fn = func.constant @k_parallel_0 : (!llvm.ptr, i64, i64) -> ()
    func.call @tcc_parallel_for(%fnptr, %ctx, %c0_i64, %c128_i64, %grain) : ...
    func.func private @k_parallel_0(%ctx: !llvm.ptr, %begin: i64, %end: i64) {
      scf.for %i = %b to %e step %c1 {
        scf.parallel (%j) = (%c0) to (%c768) step (%c1) { ... }
      }
    }
    ```
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"32768",
           "Estimated operations a thread must get for a loop to be split">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
                           "::mlir::affine::AffineDialect"];
}

def OutlineKernelsPass : Pass<"tcc-outline-kernels", "mlir::ModuleOp"> {
  let summary = "Move each structured op of an entry into its own private function";
  let description = [{
    After memory planning, every top-level `linalg` op of each planned
    function (one with a `tcc.arena` argument) becomes a call to a private
    `@<function>_kernel_<N>` that holds just that op. Constants the op's
    region captures are cloned inside; other captured values become
    arguments. Each kernel is then optimized by LLVM on its own (and marked
    `no_inline`), which keeps host-code optimization time linear in the
    number of kernels instead of superlinear in one huge function, and gives
    later passes (GPU launch, threading) a unit to work on.

    Before:
    ```mlir
    func.func @forward(%x: memref<4xf32>, %out: memref<4xf32>, %arena: memref<?xi8> {tcc.arena}) {
      linalg.generic ... ins(%x) outs(%out) { ... }
      return
    }
    ```
    After:
    ```mlir
    func.func @forward(...) {
      call @forward_kernel_0(%x, %out) : (memref<4xf32>, memref<4xf32>) -> ()
      return
    }
    func.func private @forward_kernel_0(%arg0: memref<4xf32>, %arg1: memref<4xf32>) attributes {no_inline} {
      linalg.generic ... ins(%arg0) outs(%arg1) { ... }
      return
    }
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def InstrumentKernelsPass : Pass<"tcc-instrument-kernels", "mlir::ModuleOp"> {
  let summary = "Call tcc_profile_mark before every kernel of the planned entries (tcc compile --profile)";
  let description = [{
    For `tcc compile --profile`. In every planned function (one with a
    `tcc.arena` argument), inserts `func.call @tcc_profile_mark(k)` before
    kernel `k` (the ops `tcc::isKernelOp` accepts, numbered in block order:
    the indices of the manifest's `kernels`) and `tcc_profile_mark(N)`, N the
    number of kernels, before the return; declares the private external
    function once. The runtime (lib/Runtime/Profile.cpp) records a time per
    mark while profiling is on, so kernel k took mark k+1 - mark k; with
    profiling off a mark returns at once.

    Runs after tcc-plan-memory and its canonicalization (the module the
    manifest's kernels are read from) and before tcc-split-targets, so the CPU
    and the CUDA entries both carry the marks; the later passes keep calls to
    an external function where they are.

    Before:
    ```mlir
    func.func @forward(%x: memref<4xf32>, %y: memref<4xf32>, %arena: memref<?xi8> {tcc.arena}) {
      memref.copy %x, %y : memref<4xf32> to memref<4xf32>
      return
    }
    ```
    After:
    ```mlir
    func.func @forward(...) {
      %c0 = arith.constant 0 : i32
      call @tcc_profile_mark(%c0) : (i32) -> ()
      memref.copy %x, %y : memref<4xf32> to memref<4xf32>
      %c1 = arith.constant 1 : i32
      call @tcc_profile_mark(%c1) : (i32) -> ()
      return
    }
    func.func private @tcc_profile_mark(i32)
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::arith::ArithDialect"];
}

def ShareConcatBuffersPass : Pass<"tcc-share-concat-buffers", "mlir::func::FuncOp"> {
  let summary = "Build concatenations that extend one another in one buffer";
  let description = [{
    A concatenation is a chain of `tensor.insert_slice`s into a
    `tensor.empty` (convert-tcc-graph-to-linalg). Where a later one's inputs
    begin with all of an earlier one's (DenseNet: every layer concatenates
    all features of its block so far), the family is built once: the
    largest one's buffer is created where the first begins, each input is
    inserted once, and every earlier concatenation is a leading
    `tensor.extract_slice` of the buffer as it stands then. A block of n
    layers then copies n feature maps instead of n (n + 1) / 2, and with
    empty-tensor elimination (tcc-bufferize) the producers of the inserted
    values write straight into their slice.

    ```mlir
    %a = tensor.insert_slice %x0 into %e0[0, 0] [2, 8] [1, 1]
    %c1 = tensor.insert_slice %x1 into %a[0, 8] [2, 4] [1, 1]   // cat(x0, x1)
    ...                                                            // x2 = f(%c1)
    %b = tensor.insert_slice %x0 into %e1[0, 0] [2, 8] [1, 1]
    %d = tensor.insert_slice %x1 into %b[0, 8] [2, 4] [1, 1]
    %c2 = tensor.insert_slice %x2 into %d[0, 12] [2, 4] [1, 1]  // cat(x0, x1, x2)
    ```
    becomes one [2, 16] buffer holding x0, x1, then x2, and `%c1` its
    [2, 12] leading slice taken before x2 is inserted.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def FuseElementwisePass : Pass<"tcc-fuse-elementwise"> {
  let summary = "Fuse elementwise linalg producers into consumers, keeping computed operands out of contractions";
  let description = [{
    Upstream's `linalg-fuse-elementwise-ops` (elementwise fusion of
    single-use producers, reshape folding by expansion, constant folding and
    the same canonicalizations), with one rule more: a producer that computes
    (its body is more than a `linalg.yield` of its inputs) is not fused into
    an operand of a consumer with reduction loops when that operand's map
    leaves out some of the consumer's loops. There the producer's value would
    be recomputed for every iteration of the missing loops, e.g. an
    activation fused into a matmul's A[m, k] runs n times per element.
    Transposes and broadcasts (pure data movement) still
    fuse, so a linear layer's weight^T folds into the matmul's map.

    ```mlir
    %h = linalg.generic ... ins(%x) { math.tanh }            // [m, k]
    %y = linalg.generic {maps = [(m,n,k) -> (m,k), (m,n,k) -> (k,n), ...]}
           ins(%h, %w) outs(%acc) { mulf, addf }
    ```
    stays two ops (upstream fuses tanh into the matmul body).
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect",
    "mlir::linalg::LinalgDialect",
    "mlir::tensor::TensorDialect",
  ];
}

def GpuVectorizeElementwisePass
    : Pass<"tcc-gpu-vectorize-elementwise", "mlir::func::FuncOp"> {
  let summary = "Pointwise linalg.generic ops to one loop over 16-byte vector chunks";
  let description = [{
    On the CUDA path, a pointwise `linalg.generic` (all loops parallel,
    identity-layout outputs with identity maps, no `linalg.index`) becomes one
    `scf.parallel` over 16-byte chunks of its flattened outputs: each
    iteration loads one vector per input the body reads (`vector.load` with
    16-byte alignment, an `ld.global.v4.f32` for f32), runs the body once per
    lane and stores one vector per output. An input read through a broadcast
    qualifies when the innermost loop size is static and a multiple of the
    width (no chunk straddles two rows): if the innermost loop dim is also its
    innermost, contiguous dim (a bias row), one vector at the chunk's first
    indices; if its map ignores that dim (a per-row max), one scalar per
    chunk. Any other input (a strided view such as a slice of padded rows,
    a transpose, and every non-contiguous input where chunks straddle rows)
    is gathered: one scalar load per lane at the lane's own indices, so that
    a thread has the chunk's loads in flight at once and stores one vector;
    an input that is also an output is never gathered (it would race the
    stores). A `linalg.copy` is generalized first (a copy out of GPT-2's
    16-byte padded logits rows: 102 -> 64 us on an H200). The last chunk, when the element
    count is not a multiple of the vector width, and every chunk when some
    buffer does not start on a 16-byte boundary (checked once on the host,
    from the buffers' addresses), take a scalar loop instead. The width is 16
    bytes over the widest element type (4 for f32, 2 for i64). Ops inside an
    `scf.parallel` and static buffers smaller than one vector are left alone.

    Before:
    ```mlir
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%x : memref<8x1024xf32>) outs(%y : memref<8x1024xf32>) { math.sin }
    ```
    After:
    ```mlir
    %xf = memref.collapse_shape %x [[0, 1]] : memref<8x1024xf32> into memref<8192xf32>
    %aligned = ... // both buffers' addresses % 16 == 0
    scf.parallel (%c) = (%c0) to (%c2048) step (%c1) {
      %base = arith.muli %c, %c4 : index
      scf.if %fast {   // %base + 4 <= 8192 and %aligned
        %v = vector.load %xf[%base] {alignment = 16 : i64} : memref<8192xf32>, vector<4xf32>
        ... math.sin on each of the 4 lanes, vector.from_elements ...
        vector.store %r, %yf[%base] {alignment = 16 : i64} : memref<8192xf32>, vector<4xf32>
      } else {
        scf.for %i = %base to %last step %c1 { ... scalar ... }
      }
    }
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect",
    "mlir::vector::VectorDialect",
  ];
}

def NarrowF64ToBF16ThroughF32Pass : Pass<"tcc-narrow-f64-to-bf16-through-f32"> {
  let summary = "Round f64 to bf16 in two steps, f64 to f32 to bf16, as PyTorch does";
  let description = [{
    PyTorch converts a double to bfloat16 through float (c10::BFloat16 is
    built from a float, on the CPU and on CUDA), so `x.double().bfloat16()`
    rounds twice. Each `arith.truncf` from f64 (or vectors of it) to bf16
    becomes a truncf to f32 and one to bf16: the same answer as PyTorch, and
    on the CPU path no call to `__truncdfbf2`, which libgcc 12 lacks (a
    model.so calling it would not load). The f32 to bf16 step is then
    expanded to integer operations like every other (arith-expand).

    Before:
    ```mlir
    %b = arith.truncf %d : f64 to bf16
    ```
    After:
    ```mlir
    %f = arith.truncf %d : f64 to f32
    %b = arith.truncf %f : f32 to bf16
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def ExpandCpuMathPass : Pass<"tcc-expand-cpu-math"> {
  let summary = "The CPU path's math in forms LLVM's loop vectorizer takes";
  let description = [{
    LLVM vectorizes the CPU path's loops only when every operation in them
    has a vector form. Three did not (`-pass-remarks-missed=loop-vectorize`
    on a softmax and a GELU): `exp` and `erf` became calls to libm's `expf`
    and `erff` (scalar: the vectorizer refuses `erff`, and `llvm.exp.v4f32`
    is split into four `expf` calls by the x86 backend), and `arith-expand`
    turned a row's `arith.maximumf` into compares and selects LLVM does not
    see as a max reduction. This pass, in place of `arith-expand`:

    - rewrites f32 `math.exp`, `expm1`, `log`, `log1p`, `log2`, `tanh` and
      `erf` as MLIR's polynomial approximations (Cephes and Eigen: within a
      few ulp; arithmetic, compares and selects, which vectorize). Other
      functions and f64 stay libm calls;
    - with `fma=false` (x86-64-v2 has no FMA instruction, and `llvm.fma`
      there is a call to `fmaf`), the approximations' fused multiply-adds
      become a multiply and an add;
    - expands what `arith-expand` must (ceil/floor division, bf16
      conversions as integer operations) and leaves float min/max to LLVM's
      `llvm.maximum`/`llvm.minnum` intrinsics, which the vectorizer reduces.

    Before:
    ```mlir
    %e = math.exp %x : f32
    %m = arith.maximumf %acc, %e : f32
    ```
    After (abridged):
    ```mlir
    %k = math.floor ...            // x = k ln2 + r
    %p = math.fma %r, %c5, %c4 : f32
    ...                            // the polynomial, 2^k as exponent bits
    %m = arith.maximumf %acc, %e : f32
    ```
  }];
  let options = [
    Option<"fma", "fma", "bool", /*default=*/"true",
           "The target has fused multiply-add (x86-64-v3 and up)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::math::MathDialect",
                           "mlir::vector::VectorDialect"];
}

def GpuWrapSerialOpsPass : Pass<"tcc-gpu-wrap-serial-ops", "mlir::func::FuncOp"> {
  let summary = "Wrap linalg ops without parallel dimensions in a one-iteration scf.parallel";
  let description = [{
    On the CUDA path, a linalg op without a parallel dimension (a rank-0
    result, a full reduction) would lower to loops on the host, over device
    memory. Each such op not already inside an `scf.parallel` is wrapped in a
    one-iteration `scf.parallel`, so it becomes a (one-thread) kernel too.

    Before:
    ```mlir
    linalg.generic {iterator_types = ["reduction"]}
        ins(%x : memref<16xf32>) outs(%r : memref<f32>) { ... }
    ```
    After:
    ```mlir
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
      linalg.generic {iterator_types = ["reduction"]}
          ins(%x : memref<16xf32>) outs(%r : memref<f32>) { ... }
    }
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::scf::SCFDialect",
  ];
}

def GpuWarpReductionsPass : Pass<"tcc-gpu-warp-reductions", "mlir::func::FuncOp"> {
  let summary = "Compute each output of a row reduction with one warp of 32 lanes";
  let description = [{
    On the CUDA path, before `convert-linalg-to-parallel-loops`, a
    `linalg.generic` reduction otherwise runs one thread per output element
    with a serial loop over the reduced dims. Here one warp computes one
    output: each lane combines every 32nd element of the (linearized)
    reduced dims, a butterfly of `gpu.shuffle xor` (offsets 16, 8, 4, 2, 1)
    combines the 32 partials, and lane 0 combines the total into the output
    buffer (its initial value counts, as in linalg).

    The lanes are the innermost dim of the new `scf.parallel`, 32 long, so
    after tcc-gpu-map-parallel-loops (row-major collapse, 256-thread blocks)
    each warp is one output and its lanes are all in bounds or all out.

    A generic qualifies when it is not inside an `scf.parallel`, has one
    f32 or i32 output buffer and no `linalg.index`, its reduction dims all
    come after its parallel dims, its output map is a permutation of the
    parallel dims, it reduces 32 or more elements (or a dynamic number), no
    input is the output buffer, and its body yields `combine(x, acc)` (either
    order) of its output block argument `acc`, used only there, with
    `combine` one of `addf`, `mulf`, `maximumf`, `minimumf`, `maxnumf`,
    `minnumf`, `addi`, `muli`, `maxsi`, `minsi`. Every other op is left
    as it is.

    Before:
    ```mlir
    linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)],
                    iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<64x768xf32>) outs(%sum : memref<64xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
    ```
    After:
    ```mlir
    scf.parallel (%i, %lane) = (%c0, %c0) to (%c64, %c32) step (%c1, %c1) {
      %partial = scf.for %k = %lane to %c768 step %c32 iter_args(%acc = %neg_zero) -> (f32) {
        %in = memref.load %x[%i, %k] : memref<64x768xf32>
        %0 = arith.addf %in, %acc : f32
        scf.yield %0 : f32
      }
      %s16, %v16 = gpu.shuffle xor %partial, %c16_i32, %c32_i32 : f32
      %1 = arith.addf %s16, %partial : f32
      ...                                   // offsets 8, 4, 2, 1
      %lead = arith.cmpi eq, %lane, %c0 : index
      scf.if %lead {
        %old = memref.load %sum[%i] : memref<64xf32>
        %total = arith.addf %5, %old : f32
        memref.store %total, %sum[%i] : memref<64xf32>
      }
      scf.reduce
    }
    ```
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect",
    "mlir::arith::ArithDialect",
    "mlir::gpu::GPUDialect",
    "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect",
  ];
}

def GpuRegisterReductionsPass
    : Pass<"tcc-gpu-register-reductions", "mlir::func::FuncOp"> {
  let summary = "The CUDA path's reductions as loops that accumulate in a register, "
                "with the fill before and the pointwise op after in the same kernel";
  let description = [{
    On the CUDA path's functions, each linalg.generic with one output whose
    reduced dims are its innermost loops and whose output is indexed by
    exactly its parallel dims becomes `scf.parallel` over the parallel dims
    around `scf.for` loops over the reduced ones; the accumulator is a loop
    value, stored once per output (upstream's loops load and store the
    output at every term). Two neighbours join the loop nest, so they are not
    kernels of their own:

    - the `linalg.fill` of exactly the output before it, where no op in
      between may touch the output's bytes (tcc::mayShareBytes: views of the
      planned arena at constant offsets): the fill's value starts each
      accumulator;
    - a pointwise `linalg.generic` right after it (ops touching no memory in
      between) over the same static parallel dims that reads the output only
      at the element the thread computed, and writes no byte the reduction
      reads: its body runs on the total, in the same thread (a mean's
      division, a cast of an f32 sum back to bf16).

    ```mlir
    linalg.fill ins(%zero : f32) outs(%sum : memref<2x8xf32>)
    linalg.generic {... iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x : memref<2x8x49xbf16>) outs(%sum : memref<2x8xf32>) {...}
    linalg.generic {... iterator_types = ["parallel", "parallel"]}
        ins(%sum : memref<2x8xf32>) outs(%mean : memref<2x8xbf16>) {...}
    // becomes one loop nest
    scf.parallel (%n, %c) = ... {
      %total = scf.for %k = ... iter_args(%acc = %zero) -> (f32) {...}
      memref.store %total, %sum[%n, %c]
      %m = arith.divf %total, %cst : f32
      %b = arith.truncf %m : f32 to bf16
      memref.store %b, %mean[%n, %c]
    }
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect"];
}

def GpuLinalgToParallelLoopsPass
    : Pass<"tcc-gpu-linalg-to-parallel-loops", "mlir::func::FuncOp"> {
  let summary = "The CUDA path's linalg ops as scf.parallel (+ scf.for) loop nests";
  let description = [{
    Upstream's `convert-linalg-to-parallel-loops` on the CUDA path's
    functions only (`tcc.target = "cuda"`, or unmarked): parallel dims become
    one `scf.parallel`, reduction dims sequential `scf.for` inside, ready for
    tcc-gpu-map-parallel-loops. The CPU path's functions keep their linalg
    ops for its own lowering in the same pipeline. Reductions that
    accumulate in a register are lowered before, by
    tcc-gpu-register-reductions.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect"];
}

def GpuMapParallelLoopsPass : Pass<"tcc-gpu-map-parallel-loops", "mlir::func::FuncOp"> {
  let summary = "Map each outermost scf.parallel to a 1-D grid of 256-thread blocks";
  let description = [{
    Collapses each outermost `scf.parallel` to one dimension (row-major, so
    consecutive threads touch consecutive elements), tiles it by the block
    size (`tcc::kCudaBlockSize`, 256) with the inner loop bounds-checked by
    an `scf.if`, and maps the outer loop to block x and the inner one to
    thread x; parallel loops nested deeper (below a reduction loop) are mapped
    sequential. The thread body becomes an `scf.for` that strides over the
    grid (by `gpu.grid_dim x` blocks), so the kernel is correct for any grid of
    at least one block: the runtime launches at most as many blocks as the
    device holds at once. `convert-parallel-loops-to-gpu` then turns the
    result into a `gpu.launch`.

    Refused with an error: a `memref.get_global` in the function (a constant
    left in host memory, which a kernel cannot read).

    Before:
    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
      ...
    }
    ```
    After:
    ```mlir
    scf.parallel (%b) = (%c0) to (%c32) step (%c256) {
      scf.parallel (%t) = (%c0) to (%c256) step (%c1) {
        %grid = gpu.grid_dim x
        %span = arith.muli %grid, %c256 : index
        scf.for %s = %b to %c32 step %span {
          %k = arith.addi %t, %s : index
          %in = arith.cmpi ult, %k, %c32 : index
          scf.if %in { ... }
        }
      } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
    } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
    ```
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect",
    "mlir::arith::ArithDialect",
    "mlir::gpu::GPUDialect",
    "mlir::scf::SCFDialect",
  ];
}

def GpuFinalizeLaunchesPass : Pass<"tcc-gpu-finalize-launches", "mlir::ModuleOp"> {
  let summary = "Merge the outlined kernels into one gpu.module and launch them on the stream argument of forward_cuda";
  let description = [{
    Runs after `gpu-kernel-outlining`. Every kernel moves into one
    `gpu.module @tcc_kernels` (one PTX, one module load; clashing names are
    renamed), `forward` is renamed `forward_cuda` and gets a trailing
    `!llvm.ptr {tcc.stream}` argument (unless convert-tcc-kernel-to-cuda added
    it already), and every `gpu.launch_func` becomes async on that stream, seen
    as a `!gpu.async.token`: no stream is created, nothing is synchronized.

    Refused with an error: no `forward` function; a `memref.load`,
    `memref.store`, `memref.copy` or linalg op left in `forward` (it would
    access device memory from the host); a launch that is already async.

    Before:
    ```mlir
    func.func @forward(%x: memref<4xf32>, ...) {
      gpu.launch_func @forward_kernel::@forward_kernel blocks in (...) threads in (...) args(...)
      return
    }
    gpu.module @forward_kernel { gpu.func @forward_kernel(...) kernel { ... } }
    ```
    After:
    ```mlir
    func.func @forward_cuda(%x: memref<4xf32>, ..., %s: !llvm.ptr {tcc.stream}) {
      %t = builtin.unrealized_conversion_cast %s : !llvm.ptr to !gpu.async.token
      %0 = gpu.launch_func async [%t] @tcc_kernels::@forward_kernel blocks in (...) threads in (...) args(...)
      return
    }
    gpu.module @tcc_kernels { gpu.func @forward_kernel(...) kernel { ... } }
    ```
  }];
  let dependentDialects = [
    "mlir::gpu::GPUDialect",
    "mlir::LLVM::LLVMDialect",
  ];
}

def GpuCompactKernelArgumentsPass
    : Pass<"tcc-gpu-compact-kernel-arguments", "mlir::ModuleOp"> {
  let summary = "Pass each strided memref to a kernel as one pointer plus its dynamic offset, sizes and strides";
  let description = [{
    Runs after `tcc-gpu-finalize-launches`. A memref kernel argument would
    otherwise be passed as its whole descriptor (two pointers, offset, sizes,
    strides: 40 bytes at rank 1, 88 at rank 4), and a fused kernel over a
    hundred buffers exceeds the 4352 bytes of parameters PTX allows: ptxas,
    run by the driver when the model loads, refuses it. Each memref argument
    of a strided layout in the default memory space becomes an `!llvm.ptr`
    (its aligned pointer) followed by an `index` for each dynamic offset,
    size and stride; the kernel rebuilds the descriptor from them and the
    static values of its type (8 bytes per static buffer). The launches pass
    `memref.extract_aligned_pointer_as_index` and
    `memref.extract_strided_metadata` values instead of the memref.

    A kernel that still takes more than 4352 bytes of parameters is an
    error at compile time, naming it, instead of a model that cannot load.

    Before:
    ```mlir
    gpu.launch_func async [%t] @tcc_kernels::@k blocks in (...) threads in (...)
        args(%x : memref<100xf32>, %n : index)
    gpu.func @k(%x: memref<100xf32>, %n: index) kernel { ... }
    ```
    After:
    ```mlir
    %p = memref.extract_aligned_pointer_as_index %x : memref<100xf32> -> index
    ...
    gpu.launch_func async [%t] @tcc_kernels::@k blocks in (...) threads in (...)
        args(%ptr : !llvm.ptr, %n : index)
    gpu.func @k(%ptr: !llvm.ptr, %n: index) kernel {
      %d = ... llvm.insertvalue ... : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
      %x = builtin.unrealized_conversion_cast %d : ... to memref<100xf32>
      ...
    }
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::gpu::GPUDialect",
    "mlir::LLVM::LLVMDialect",
    "mlir::memref::MemRefDialect",
  ];
}

def GpuAwaitPreviousGridPass : Pass<"tcc-gpu-await-previous-grid", "mlir::gpu::GPUModuleOp"> {
  let summary = "Let each kernel start before the previous one ends, waiting for it at entry (sm_90+)";
  let description = [{
    Every kernel of the module begins with `nvvm.griddepcontrol wait` (it
    returns once the previous kernel on the stream has finished and its
    writes are visible) and then `nvvm.griddepcontrol launch_dependents`
    (the next kernel may be scheduled); the module defines the global
    `tcc_awaits_previous_grid` (include/tcc/Runtime/GridDependency.h), by
    which the runtime knows that it may launch these kernels with
    programmatic stream serialization. Launched the usual way, the wait
    returns at once. For sm_90 and later only (griddepcontrol).

    After:
    ```mlir
    gpu.module @tcc_kernels {
      llvm.mlir.global external @tcc_awaits_previous_grid(1 : i32) {addr_space = 1 : i32} : i32
      gpu.func @k(...) kernel {
        nvvm.griddepcontrol wait
        nvvm.griddepcontrol launch_dependents
        ...
    ```
  }];
  let dependentDialects = [
    "mlir::LLVM::LLVMDialect",
    "mlir::NVVM::NVVMDialect",
  ];
}

#endif // TCC_TRANSFORMS_PASSES
