//===- CudaPipeline.cpp - the planned memref program to PTX kernels -------===//
//
// After tcc-plan-memory every linalg op is one loop nest over buffers that
// the runtime places in device memory (inputs, outputs, weights, the arena).
// Here each nest becomes a kernel:
//
//   linalg → scf.parallel (+ scf.for over reduction dims)
//          → tcc-gpu-map-parallel-loops: all parallel dims collapsed into one
//            (row-major, so consecutive threads touch consecutive elements),
//            tiled by kCudaBlockSize, outer loop → blocks, inner → threads
//          → gpu.launch → gpu-kernel-outlining → tcc-gpu-finalize-launches
//          → NVVM → PTX for --arch (gpu.binary, embedded by the translation)
//
// The host side launches on a stream passed in by the caller: no stream is
// created, nothing is synchronized, so the caller's stream orders the kernels.
//
// The two passes are hand-written PassWrappers so this slice stays in the
// files it owns; they belong in include/tcc/Transforms/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "tcc/Pipelines/CudaPipeline.h"
#include "tcc/Transforms/Passes.h"

#include "mlir/Conversion/GPUCommon/GPUToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include <cstdlib>
#include <numeric>

using namespace mlir;

namespace {

/// Name of the one gpu.module that holds every kernel of a model.
constexpr const char *kKernelModuleName = "tcc_kernels";

//===----------------------------------------------------------------------===//
// tcc-gpu-wrap-serial-ops
//===----------------------------------------------------------------------===//

/// Linalg ops without a parallel dimension (rank-0 results, full reductions)
/// would lower to loops on the host, over device memory. Each is wrapped in a
/// one-iteration scf.parallel, so it becomes a (one-thread) kernel too.
struct WrapSerialOpsPass : PassWrapper<WrapSerialOpsPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(WrapSerialOpsPass)
  StringRef getArgument() const final { return "tcc-gpu-wrap-serial-ops"; }
  StringRef getDescription() const final {
    return "Wrap linalg ops without parallel dimensions in a one-iteration scf.parallel";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, scf::SCFDialect>();
  }
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> serial;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.getNumParallelLoops() == 0 && !op->getParentOfType<scf::ParallelOp>())
        serial.push_back(op);
    });
    for (linalg::LinalgOp op : serial) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      auto loop = scf::ParallelOp::create(b, loc, ValueRange{zero}, ValueRange{one},
                                          ValueRange{one});
      op->moveBefore(loop.getBody()->getTerminator());
    }
  }
};

//===----------------------------------------------------------------------===//
// tcc-gpu-map-parallel-loops
//===----------------------------------------------------------------------===//

gpu::ParallelLoopDimMappingAttr dimMapping(Builder &b, gpu::Processor processor) {
  AffineMap id = b.getDimIdentityMap();
  return b.getAttr<gpu::ParallelLoopDimMappingAttr>(processor, id, id);
}

/// Collapses each outermost scf.parallel to one dimension, tiles it by the
/// block size and marks outer → block x, inner → thread x; parallel loops
/// nested deeper (below a reduction loop) run sequentially in the thread.
struct MapParallelLoopsToGpuPass
    : PassWrapper<MapParallelLoopsToGpuPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MapParallelLoopsToGpuPass)
  StringRef getArgument() const final { return "tcc-gpu-map-parallel-loops"; }
  StringRef getDescription() const final {
    return "Map each outermost scf.parallel to a 1-D grid of 256-thread blocks";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<gpu::GPUDialect, affine::AffineDialect, arith::ArithDialect,
                    scf::SCFDialect>();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // Constants that fusion left as globals live in host memory; a kernel
    // reading them would fault (or read garbage through a host address).
    bool hostConstants = false;
    func.walk([&](memref::GetGlobalOp g) {
      g.emitError() << "--target cuda: constant '" << g.getName()
                    << "' would be read by a kernel from host memory; constants left "
                       "as memref.global are not supported on the CUDA path yet";
      hostConstants = true;
    });
    if (hostConstants)
      return signalPassFailure();

    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : outermostLoops()) {
      if (loop.getNumLoops() < 2)
        continue;
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0u);
      rewriter.setInsertionPoint(loop);
      collapseParallelLoops(rewriter, loop, {all});
    }
    Builder b(&getContext());
    for (scf::ParallelOp loop : outermostLoops()) {
      // Erases `loop`; the inner loop runs [0, 256) under an scf.if bounds check.
      auto [outer, inner] = scf::tileParallelLoop(loop, {tcc::kCudaBlockSize},
                                                  /*noMinMaxBounds=*/true);
      (void)gpu::setMappingAttr(outer, {dimMapping(b, gpu::Processor::BlockX)});
      (void)gpu::setMappingAttr(inner, {dimMapping(b, gpu::Processor::ThreadX)});
      inner.getBody()->walk([&](scf::ParallelOp nested) {
        SmallVector<gpu::ParallelLoopDimMappingAttr> seq(
            nested.getNumLoops(), dimMapping(b, gpu::Processor::Sequential));
        (void)gpu::setMappingAttr(nested, seq);
      });
    }
  }

  SmallVector<scf::ParallelOp> outermostLoops() {
    SmallVector<scf::ParallelOp> loops;
    getOperation().walk([&](scf::ParallelOp p) {
      if (!p->getParentOfType<scf::ParallelOp>())
        loops.push_back(p);
    });
    return loops;
  }
};

//===----------------------------------------------------------------------===//
// tcc-gpu-finalize-launches
//===----------------------------------------------------------------------===//

/// After outlining: every kernel into one gpu.module (one PTX, one module
/// load); `forward` renamed `forward_cuda` with a trailing `!llvm.ptr` stream
/// argument that every launch uses; and a check that the host function no
/// longer touches tensor memory itself (it would read device pointers).
struct FinalizeGpuLaunchesPass
    : PassWrapper<FinalizeGpuLaunchesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FinalizeGpuLaunchesPass)
  StringRef getArgument() const final { return "tcc-gpu-finalize-launches"; }
  StringRef getDescription() const final {
    return "Merge the outlined kernels into one gpu.module and launch them on the "
           "stream argument of forward_cuda";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<gpu::GPUDialect, LLVM::LLVMDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(mergeKernelModules(module)))
      return signalPassFailure();
    auto forward = module.lookupSymbol<func::FuncOp>("forward");
    if (!forward) {
      module.emitError() << "--target cuda: no 'forward' function";
      return signalPassFailure();
    }
    // The host function may only do descriptor arithmetic and launches.
    bool hostAccess = false;
    forward.walk([&](Operation *op) {
      if (isa<memref::LoadOp, memref::StoreOp, memref::CopyOp, linalg::LinalgOp>(op)) {
        op->emitError() << "--target cuda: '" << op->getName()
                        << "' was left on the host, where it would access device memory "
                           "(e.g. a rank-0 result); not supported on the CUDA path yet";
        hostAccess = true;
      }
    });
    if (hostAccess)
      return signalPassFailure();

    MLIRContext *ctx = &getContext();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    // tcc-gpu-library-gemm may have added it already, for its library calls.
    unsigned index = forward.getNumArguments();
    for (unsigned i = 0; i < forward.getNumArguments(); ++i)
      if (forward.getArgAttr(i, "tcc.stream"))
        index = i;
    if (index == forward.getNumArguments() &&
        failed(forward.insertArgument(index, ptrTy,
                                      DictionaryAttr::get(ctx, {NamedAttribute(
                                          StringAttr::get(ctx, "tcc.stream"),
                                          UnitAttr::get(ctx))}),
                                      forward.getLoc())))
      return signalPassFailure();
    // gpu-to-llvm launches an async launch_func on the stream its (single)
    // async dependency lowers to, and neither creates nor synchronizes one;
    // the stream argument, seen as a token, is that dependency.
    Value stream = forward.getArgument(index);
    OpBuilder b = OpBuilder::atBlockBegin(&forward.getBody().front());
    auto tokenTy = gpu::AsyncTokenType::get(ctx);
    Value token =
        UnrealizedConversionCastOp::create(b, forward.getLoc(), tokenTy, stream).getResult(0);
    SmallVector<gpu::LaunchFuncOp> launches;
    forward.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
    for (gpu::LaunchFuncOp launch : launches) {
      auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(launch,
                                                                         launch.getKernel());
      if (!kernel || launch.getAsyncToken() || !launch.getAsyncDependencies().empty()) {
        launch.emitError() << "unexpected kernel launch form";
        return signalPassFailure();
      }
      b.setInsertionPoint(launch);
      std::optional<gpu::KernelDim3> cluster;
      if (launch.hasClusterSize())
        cluster = launch.getClusterSizeOperandValues();
      gpu::LaunchFuncOp::create(b, launch.getLoc(), kernel, launch.getGridSizeOperandValues(),
                                launch.getBlockSizeOperandValues(),
                                launch.getDynamicSharedMemorySize(),
                                launch.getKernelOperands(), tokenTy, ValueRange{token}, cluster);
      launch.erase();
    }
    if (failed(SymbolTable::replaceAllSymbolUses(
            forward, StringAttr::get(ctx, tcc::kCudaForwardName), module)))
      return signalPassFailure();
    forward.setSymName(tcc::kCudaForwardName);
  }

  LogicalResult mergeKernelModules(ModuleOp module) {
    SmallVector<gpu::GPUModuleOp> kernelModules(module.getOps<gpu::GPUModuleOp>());
    if (kernelModules.empty())
      return success();
    OpBuilder b(kernelModules.front());
    auto merged = gpu::GPUModuleOp::create(b, module.getLoc(), kKernelModuleName);
    SymbolTable mergedSymbols(merged);
    // old module name → (old kernel name → new kernel name)
    llvm::DenseMap<StringAttr, llvm::DenseMap<StringAttr, StringAttr>> renamed;
    for (gpu::GPUModuleOp m : kernelModules) {
      for (Operation &op : llvm::make_early_inc_range(m.getBody()->without_terminator())) {
        auto sym = dyn_cast<SymbolOpInterface>(op);
        StringAttr oldName = sym ? sym.getNameAttr() : StringAttr();
        op.remove();
        mergedSymbols.insert(&op); // renames on a clash
        if (sym)
          renamed[m.getSymNameAttr()][oldName] = sym.getNameAttr();
      }
    }
    WalkResult result = module.walk([&](gpu::LaunchFuncOp launch) {
      auto it = renamed.find(launch.getKernelModuleName());
      if (it == renamed.end() || !it->second.count(launch.getKernelName())) {
        launch.emitError() << "launch of an unknown kernel";
        return WalkResult::interrupt();
      }
      launch.setKernelAttr(SymbolRefAttr::get(
          merged.getSymNameAttr(),
          {FlatSymbolRefAttr::get(it->second[launch.getKernelName()])}));
      return WalkResult::advance();
    });
    for (gpu::GPUModuleOp m : kernelModules)
      m.erase();
    return failure(result.wasInterrupted());
  }
};

/// $CUDA_ROOT, $CUDA_HOME or $CUDA_PATH, else /usr/local/cuda.
std::string cudaToolkitPath() {
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *path = std::getenv(var); path && *path)
      return path;
  return "/usr/local/cuda";
}

} // namespace

//===----------------------------------------------------------------------===//
// The pipeline
//===----------------------------------------------------------------------===//

void tcc::buildCudaToLLVMPassPipeline(OpPassManager &pm, const CompileOptions &options) {
  // Matmul-shaped generics (with their zero fill and bias/activation
  // epilogue) to cuBLASLt calls, before anything becomes a kernel.
  GpuLibraryGemmPassOptions gemm;
  gemm.tf32 = options.precision == "tf32";
  pm.addPass(createGpuLibraryGemmPass(gemm));
  // Ops with no parallel dimension would otherwise stay on the host.
  pm.addNestedPass<func::FuncOp>(std::make_unique<WrapSerialOpsPass>());
  // Parallel dims as scf.parallel, reduction dims as sequential scf.for inside.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  // One 1-D grid per loop nest, 256 threads per block, bounds-checked.
  pm.addNestedPass<func::FuncOp>(std::make_unique<MapParallelLoopsToGpuPass>());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  // The index arithmetic of tiling and collapsing, before it is outlined.
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  // gpu.launch bodies → gpu.func kernels, constants sunk into them.
  pm.addPass(createGpuKernelOutliningPass());
  // One kernel module, the caller's stream, nothing left on the host.
  pm.addPass(std::make_unique<FinalizeGpuLaunchesPass>());

  // Device side (the pipeline of TOOLCHAIN-FACTS.md): NVVM, then PTX text.
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.arch;
  target.features = "+ptx80";
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa"; // PTX text; the driver JITs it at load
  // libdevice (sin, exp, rsqrt, ...) comes from the toolkit; without
  // CUDA_ROOT/CUDA_HOME/CUDA_PATH MLIR would not find it and silently leave
  // __nv_* calls unresolved, so default to the toolkit every machine has.
  binary.toolkitPath = cudaToolkitPath();
  pm.addPass(createGpuModuleToBinaryPass(binary));

  // Host side: as the CPU pipeline, plus gpu.launch_func → mgpu* calls.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void tcc::registerCudaDialects(DialectRegistry &registry) {
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect>();
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  registerGPUDialectTranslation(registry);
  // #gpu.select_object: embeds the gpu.binary and emits the mgpu* calls.
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  registerNVVMDialectTranslation(registry);
}

void tcc::registerCudaPasses() {
  PassRegistration<WrapSerialOpsPass>();
  PassRegistration<MapParallelLoopsToGpuPass>();
  PassRegistration<FinalizeGpuLaunchesPass>();
  registerGPUPasses();
  PassPipelineRegistration<>(
      "tcc-cuda-pipeline",
      "The CUDA half of tcc's pipeline: planned memrefs → PTX kernels and host LLVM "
      "dialect (sm_90)",
      [](OpPassManager &pm) {
        CompileOptions options;
        buildCudaToLLVMPassPipeline(pm, options);
      });
}

LogicalResult tcc::mergeCudaHostModule(ModuleOp into, ModuleOp cuda) {
  SymbolTable intoSymbols(into);
  // Same-named symbols: identical external declarations (malloc, mgpu*) are
  // shared; anything else of the CUDA copy is renamed first.
  auto isDeclaration = [](Operation *op) {
    auto f = dyn_cast<LLVM::LLVMFuncOp>(op);
    return f && f.isExternal();
  };
  SmallVector<Operation *> toErase;
  for (Operation &op : cuda.getBody()->getOperations()) {
    auto sym = dyn_cast<SymbolOpInterface>(op);
    if (!sym)
      continue;
    Operation *existing = intoSymbols.lookup(sym.getNameAttr());
    if (!existing)
      continue;
    if (isDeclaration(&op) && isDeclaration(existing)) {
      toErase.push_back(&op);
      continue;
    }
    std::string fresh = (sym.getName() + "_cuda").str();
    for (int i = 0; intoSymbols.lookup(fresh) || SymbolTable::lookupSymbolIn(cuda, fresh); ++i)
      fresh = (sym.getName() + "_cuda" + std::to_string(i)).str();
    if (failed(SymbolTable::replaceAllSymbolUses(&op, StringAttr::get(into.getContext(), fresh),
                                                cuda)))
      return op.emitError() << "cannot rename '" << sym.getName() << "' while merging";
    sym.setName(StringAttr::get(into.getContext(), fresh));
  }
  for (Operation *op : toErase)
    op->erase();
  for (Operation &op : llvm::make_early_inc_range(cuda.getBody()->getOperations()))
    op.moveBefore(into.getBody(), into.getBody()->end());
  // The gpu.binary and its launches require a container module.
  into->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(into.getContext()));
  return success();
}

std::vector<std::string> tcc::collectPtx(ModuleOp module) {
  std::vector<std::string> ptx;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute a : binary.getObjects())
      if (auto object = dyn_cast<gpu::ObjectAttr>(a))
        ptx.push_back(object.getObject().str());
  });
  return ptx;
}
