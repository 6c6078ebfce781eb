//===- Pipelines.cpp - tcc's pass pipelines, phase by phase ---------------===//
#include "tcc/Pipelines/Pipelines.h"

#include "tcc/Pipelines/CudaPipeline.h"
#include "tcc/Support/CommandLineParsers.h"
#include "tcc/Target/HostObjectEmitter.h"

#include "dialects/TccGraph/Transforms/Passes.h"
#include "tcc/Conversion/Passes.h"
#include "tcc/Transforms/Passes.h"

#include "mlir/Conversion/GPUCommon/GPUToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

const char *tcc::precisionName(Precision precision) {
  switch (precision) {
  case Precision::Fp32:
    return "fp32";
  case Precision::Tf32:
    return "tf32";
  case Precision::Bf16:
    return "bf16";
  }
  return "fp32";
}

bool tcc::parsePrecision(const std::string &name, Precision &precision) {
  for (Precision p : kPrecisions)
    if (name == precisionName(p)) {
      precision = p;
      return true;
    }
  return false;
}

bool tcc::parseCompilePhase(const std::string &name, CompilePhase &phase) {
  static const std::pair<const char *, CompilePhase> names[] = {
      {"graph", CompilePhase::Graph},       {"kernel", CompilePhase::Kernel},
      {"linalg", CompilePhase::Linalg},
      {"bufferized", CompilePhase::Bufferized}, {"planned", CompilePhase::Planned},
      {"llvm", CompilePhase::LLVM},         {"so", CompilePhase::Output}};
  for (auto &[n, p] : names)
    if (name == n) {
      phase = p;
      return true;
    }
  return false;
}

void tcc::buildGraphPassPipeline(OpPassManager &pm, const CompileOptions &) {
  // Typed ops first: every later pass speaks only the compact op set.
  pm.addPass(graph::createLegalizeGraphPass());
  // Tensors with no elements as constants: the lowerings never slice size 0.
  pm.addPass(graph::createFoldEmptyTensorsPass());
  // Removes the decompositions' redundant reshapes/casts and dead values.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Attention masks computed from positions alone: dropped or causal.
  pm.addPass(graph::createSimplifyAttentionMasksPass());
  // Batch norms after convolutions into their weights and biases.
  pm.addPass(graph::createFoldConvAffinePass());
  // Linear layers over one input (query, key, value) as one wider product.
  pm.addPass(graph::createFuseSiblingMatmulsPass());
}

void tcc::buildKernelPassPipeline(OpPassManager &pm, const CompileOptions &options) {
  // Matmuls, attention and row ops become tcc_kernel ops with what they fuse.
  FormKernelsPassOptions form;
  form.f32TensorCores = onTensorCores(options.precision);
  form.cpuOnly = !options.targets.has(Target::Cuda);
  pm.addPass(createFormKernelsPass(form));
  // The views and constants formation left unused.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Arithmetic on weights alone (batch norm's scale and shift, a folded
  // convolution's weight) becomes derived weights that the runtime computes
  // once per binding, not a kernel on every call. After formation, so that
  // the transposes formation leaves on weights (channels-last filters; a
  // GEMM's are flags by then) are computed once too; after CSE, so that
  // shared subexpressions are one.
  graph::HoistWeightExpressionsPassOptions hoist;
  hoist.materializeTransposes = true;
  pm.addPass(graph::createHoistWeightExpressionsPass(hoist));
  // Masks that are weights, in rows the GPU's attention copies 16 bytes at
  // a time (Swin-T's rows of 49 keys).
  if (options.targets.has(Target::Cuda))
    pm.addPass(createPadAttentionMasksPass());
  pm.addPass(createCanonicalizerPass());
}

void tcc::buildLinalgPassPipeline(OpPassManager &pm, const CompileOptions &) {
  pm.addPass(createConvertTccGraphToLinalgPass());
  // Concatenations that extend one another (DenseNet's) in one buffer.
  pm.addNestedPass<func::FuncOp>(createShareConcatBuffersPass());
  // Folds each kernel's `tensor.dim %result` size queries to dims of its
  // inputs: fusion only takes single-use producers, and with symbolic shapes
  // those queries were a second use that kept every chain unfused.
  pm.addPass(createCanonicalizerPass());
  // Pointwise chains (and transposes feeding contractions) into one loop nest;
  // computed operands of contractions stay separate (matmuls stay matmuls).
  pm.addNestedPass<func::FuncOp>(createFuseElementwisePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void tcc::buildBufferizePassPipeline(OpPassManager &pm, const CompileOptions &) {
  pm.addPass(createBufferizePass());
  // Folds the subview/cast chains bufferization leaves behind.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void tcc::buildPlanningPassPipeline(OpPassManager &pm, const CompileOptions &options) {
  // One arena, offsets from liveness; adds the entry's trailing arena argument.
  pm.addPass(createPlanMemoryPass());
  pm.addPass(createCanonicalizerPass());
  // --profile: a mark before every kernel. After the canonicalization, not
  // right after tcc-plan-memory: the manifest's kernels are read from this
  // module, and a kernel the canonicalizer folded away would shift the
  // numbering. Before tcc-split-targets, so both entries carry the marks.
  if (options.profile)
    pm.addPass(createInstrumentKernelsPass());
}

void tcc::buildCpuLoweringPassPipeline(OpPassManager &pm, const CompileOptions &options) {
  // One function per kernel: LLVM then optimizes each on its own (linear time).
  pm.addPass(createOutlineKernelsPass());
  // The kernel layer's ops and the other kernels as plain loops; LLVM
  // vectorizes their inner loops when it emits host code (the row kernels'
  // sums and maxima too: they may be reassociated, RowLoops.cpp).
  pm.addPass(createConvertTccKernelToLoopsPass());
  // Parallel dims of linalg ops as scf.parallel (reductions as scf.for
  // inside), so the next pass sees what may run on several threads.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  // Top-level parallel loops on the runtime's thread pool (tcc_parallel_for,
  // oneDNN's OpenMP team); small ones stay serial.
  pm.addPass(createParallelizeCpuLoopsPass());
  // Failed run-time checks (an index out of range) become the run's error.
  pm.addPass(createLowerAssertsToRuntimePass());
  // bf16 and f16 arithmetic computed in f32 and rounded back per op (what
  // PyTorch's CPU kernels do; x86 has no bf16 arithmetic, and LLVM's own
  // promotion would call __truncsfbf2, which libgcc 12 lacks); bf16
  // conversions as integer bit operations.
  pm.addPass(math::createMathExtendToSupportedTypes());
  // f64 to bf16 through f32, as PyTorch rounds it (no __truncdfbf2 either).
  pm.addPass(createNarrowF64ToBF16ThroughF32Pass());
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16", "f16"};
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  // exp, erf, tanh, ... as polynomials and float max as llvm.maximum, so LLVM
  // vectorizes the loops that use them (softmax, GELU, ...); the rest of what
  // arith-expand does (bf16 conversions as integer operations).
  ExpandCpuMathPassOptions expand;
  expand.fma = cpuIsaHasFma(resolveCpuIsa(options.cpuIsa));
  pm.addPass(createExpandCpuMathPass(expand));
}

void tcc::buildHostLLVMPassPipeline(OpPassManager &pm, const CompileOptions &) {
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // Subviews and reshapes as descriptor arithmetic the LLVM lowering understands.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // The CUDA path's launches (gpu.launch_func on the caller's stream) and
  // its embedded kernel binary; nothing to do without one.
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  // What LLVM has no intrinsic for (tanh, erf, ...) becomes a libm call.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void tcc::buildLoweringPassPipeline(OpPassManager &pm, const CompileOptions &options) {
  // One planned entry per target path; every pass below works on its own.
  SplitTargetsPassOptions split;
  split.targets = options.targets;
  pm.addPass(createSplitTargetsPass(split));
  // CUDA first: its kernels leave the module as a gpu.binary before the CPU
  // path's module-wide float emulation runs.
  buildCudaLoweringPassPipeline(pm, options);
  buildCpuLoweringPassPipeline(pm, options);
  // The host code of both paths, once.
  buildHostLLVMPassPipeline(pm, options);
}

void tcc::buildCompilePassPipeline(OpPassManager &pm, const CompileOptions &options,
                                   CompilePhase last) {
  buildGraphPassPipeline(pm, options);
  if (last == CompilePhase::Graph) return;
  buildKernelPassPipeline(pm, options);
  if (last == CompilePhase::Kernel) return;
  buildLinalgPassPipeline(pm, options);
  if (last == CompilePhase::Linalg) return;
  buildBufferizePassPipeline(pm, options);
  if (last == CompilePhase::Bufferized) return;
  buildPlanningPassPipeline(pm, options);
  if (last == CompilePhase::Planned) return;
  buildLoweringPassPipeline(pm, options);
}

namespace {
/// tcc-compile-pipeline's options: the CompileOptions a pass pipeline needs.
/// `targets` has no default: each lit test says which paths it lowers, and
/// none inherits a default that differs from tcc compile's (cpu,cuda).
struct CompilePipelineOptions : PassPipelineOptions<CompilePipelineOptions> {
  Option<tcc::TargetSet> targets{
      *this, "targets",
      llvm::cl::desc("cpu, cuda or cpu,cuda (the --target of tcc compile; required)")};
  Option<tcc::Precision> precision{
      *this, "precision", llvm::cl::desc("fp32, tf32 or bf16 (--precision)"),
      llvm::cl::init(tcc::Precision::Fp32),
      llvm::cl::values(clEnumValN(tcc::Precision::Fp32, "fp32", "fp32 products"),
                       clEnumValN(tcc::Precision::Tf32, "tf32", "TF32 inputs"),
                       clEnumValN(tcc::Precision::Bf16, "bf16", "bf16 inputs"))};
  Option<bool> profile{*this, "profile",
                       llvm::cl::desc("per-kernel profile marks (--profile)"),
                       llvm::cl::init(false)};
  Option<std::string> arch{*this, "arch", llvm::cl::desc("CUDA chip (--arch)"),
                           llvm::cl::init("sm_90")};
  Option<tcc::CpuIsa> cpuIsa{*this, "cpu-isa",
                             llvm::cl::desc("x86-64 level of the CPU path (--cpu-isa)"),
                             llvm::cl::init(tcc::CompileOptions().cpuIsa)};

  tcc::CompileOptions toCompileOptions() const {
    tcc::CompileOptions o;
    o.targets = targets;
    o.precision = precision;
    o.arch = arch;
    o.cpuIsa = cpuIsa;
    o.profile = profile;
    return o;
  }
};

/// Registers a pipeline taking CompilePipelineOptions that refuses, before
/// any pass runs, to build without its targets.
void registerCompilePipeline(llvm::StringRef name, llvm::StringRef description,
                             void (*build)(OpPassManager &, const tcc::CompileOptions &)) {
  registerPassPipeline(
      name, description,
      [name, build](OpPassManager &pm, llvm::StringRef text,
                    llvm::function_ref<LogicalResult(const llvm::Twine &)> error) {
        CompilePipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (options.targets.empty())
          return error(llvm::Twine(name) + ": option 'targets' not given; " +
                       tcc::expectedTargets());
        build(pm, options.toCompileOptions());
        return success();
      },
      [](llvm::function_ref<void(const detail::PassOptions &)> printOptions) {
        printOptions(CompilePipelineOptions());
      });
}

void buildCompileToLLVM(OpPassManager &pm, const tcc::CompileOptions &options) {
  tcc::buildCompilePassPipeline(pm, options, tcc::CompilePhase::LLVM);
}
} // namespace

void tcc::registerTccPipelines() {
  registerCompilePipeline(
      "tcc-compile-pipeline",
      "What tcc compile runs: legalize, form kernels, lower to linalg, fuse, bufferize, "
      "plan memory, lower each target (targets=cpu,cuda) and the host code to the LLVM "
      "dialect",
      buildCompileToLLVM);
  registerCompilePipeline(
      "tcc-lowering-pipeline",
      "The part of tcc compile after memory planning: split the targets, lower each, "
      "then the host code",
      buildLoweringPassPipeline);
}
