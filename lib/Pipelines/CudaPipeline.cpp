//===- CudaPipeline.cpp - the CUDA path's lowering, after tcc-split-targets -===//
//
// After tcc-split-targets, in the CUDA path's functions: every tcc_kernel op
// becomes a runtime call (convert-tcc-kernel-to-cuda: cuBLASLt, tcc's kernel
// library) and every other linalg op, one loop nest over buffers that the
// runtime places in device memory (inputs, outputs, weights, the arena), a
// kernel:
//
//   linalg → scf.parallel (+ scf.for over reduction dims)
//          (row reductions first: tcc-gpu-warp-reductions, one warp per
//            output element; pointwise ops: tcc-gpu-vectorize-elementwise,
//            one loop over 16-byte chunks)
//          → tcc-gpu-map-parallel-loops: all parallel dims collapsed into one
//            (row-major, so consecutive threads touch consecutive elements),
//            tiled by kCudaBlockSize, outer loop → blocks, inner → threads,
//            threads striding over the grid (the runtime caps it at what
//            the device holds at once)
//          → gpu.launch → gpu-kernel-outlining → tcc-gpu-finalize-launches
//          → tcc-gpu-compact-kernel-arguments (a pointer per buffer)
//          → NVVM → PTX for --arch (gpu.binary, embedded by the translation)
//
// The host side launches on a stream passed in by the caller: no stream is
// created, nothing is synchronized, so the caller's stream orders the kernels.
// It is lowered to LLVM with the CPU path's host code, once
// (buildHostLLVMPassPipeline in Pipelines.cpp).
//
// The tcc-gpu-* passes are in lib/Transforms (declared in
// include/tcc/Transforms/Passes.td).
//
//===----------------------------------------------------------------------===//
#include "tcc/Pipelines/CudaPipeline.h"
#include "tcc/Pipelines/Pipelines.h"
#include "tcc/Conversion/Passes.h"
#include "tcc/Transforms/Passes.h"

#include "mlir/Conversion/GPUCommon/GPUToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include <cstdlib>

using namespace mlir;

namespace {

/// $CUDA_ROOT, $CUDA_HOME or $CUDA_PATH, else /usr/local/cuda.
std::string cudaToolkitPath() {
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *path = std::getenv(var); path && *path)
      return path;
  return "/usr/local/cuda";
}

/// Whether PTX for `chip` ("sm_90") has griddepcontrol: sm_90 and later.
bool chipHasGridDependencyControl(llvm::StringRef chip) {
  unsigned version = 0;
  return chip.consume_front("sm_") && !chip.consumeInteger(10, version) && version >= 90;
}

} // namespace

//===----------------------------------------------------------------------===//
// The pipeline
//===----------------------------------------------------------------------===//

void tcc::buildCudaLoweringPassPipeline(OpPassManager &pm, const CompileOptions &options) {
  // The kernel layer's ops to runtime calls: GEMMs with their epilogues on
  // cuBLASLt, attention and row kernels from tcc's kernel library.
  ConvertTccKernelToCudaPassOptions calls;
  calls.tf32 = options.precision == Precision::Tf32;
  calls.bf16 = options.precision == Precision::Bf16;
  pm.addPass(createConvertTccKernelToCudaPass(calls));
  // Ops with no parallel dimension would otherwise stay on the host.
  pm.addNestedPass<func::FuncOp>(createGpuWrapSerialOpsPass());
  // Row reductions: one warp per output element instead of one thread.
  pm.addNestedPass<func::FuncOp>(createGpuWarpReductionsPass());
  // Other reductions: a thread per output, accumulating in a register, with
  // the fill before and a pointwise op after in the same kernel.
  pm.addNestedPass<func::FuncOp>(createGpuRegisterReductionsPass());
  // Pointwise ops over 16-byte vectors (ld/st.global.v4 for f32).
  pm.addNestedPass<func::FuncOp>(createGpuVectorizeElementwisePass());
  // Parallel dims as scf.parallel, reduction dims as sequential scf.for inside.
  pm.addNestedPass<func::FuncOp>(createGpuLinalgToParallelLoopsPass());
  // One 1-D grid per loop nest, 256 threads per block, bounds-checked; the
  // threads stride over the grid, which the runtime caps at one device-full.
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  // Only the loops mapped above (the CUDA path's) become launches.
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  // The index arithmetic of tiling and collapsing, before it is outlined.
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  // Constants and index arithmetic into the launch bodies, so kernels see
  // them as constants (shifts for powers of two, folded bounds checks)
  // instead of receiving them as parameters.
  pm.addNestedPass<func::FuncOp>(createGpuLaunchSinkIndexComputationsPass());
  // gpu.launch bodies → gpu.func kernels.
  pm.addPass(createGpuKernelOutliningPass());
  // One kernel module, the caller's stream, nothing left on the host.
  pm.addPass(createGpuFinalizeLaunchesPass());
  // Each buffer as a pointer (plus its dynamic extents), not a descriptor:
  // PTX allows 4352 bytes of parameters, a fused kernel may read 100 buffers.
  pm.addPass(createGpuCompactKernelArgumentsPass());

  // Device side: NVVM, then PTX text.
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // Each kernel waits for the previous one itself, so the runtime may
  // schedule it early (griddepcontrol: sm_90 and later).
  if (chipHasGridDependencyControl(options.arch))
    kernels.addPass(createGpuAwaitPreviousGridPass());
  // f16/bf16 math (exp, erf, ...) in f32: libdevice has f32 versions.
  kernels.addPass(math::createMathExtendToSupportedTypes());
  // f64 to bf16 through f32, as PyTorch's CUDA conversion rounds it.
  kernels.addPass(createNarrowF64ToBF16ThroughF32Pass());
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
}

void tcc::registerCudaDialects(DialectRegistry &registry) {
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect, vector::VectorDialect>();
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  // convert-gpu-to-nvvm lowers the vector accesses of pointwise kernels
  // through this interface.
  vector::registerConvertVectorToLLVMInterface(registry);
  registerGPUDialectTranslation(registry);
  // #gpu.select_object: embeds the gpu.binary and emits the mgpu* calls.
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  registerNVVMDialectTranslation(registry);
}

void tcc::registerCudaPasses() {
  registerGPUPasses();
  PassPipelineRegistration<>(
      "tcc-cuda-pipeline",
      "tcc's lowering of a planned module for --target cuda alone (sm_90): "
      "tcc-split-targets, the CUDA path's kernels to PTX, the host code to LLVM",
      [](OpPassManager &pm) {
        CompileOptions options;
        options.targets = TargetSet{Target::Cuda};
        buildLoweringPassPipeline(pm, options);
      });
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
