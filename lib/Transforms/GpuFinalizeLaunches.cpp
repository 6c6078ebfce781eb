//===- GpuFinalizeLaunches.cpp - one kernel module, launches on a stream --===//
//
// After gpu-kernel-outlining: every kernel into one gpu.module, the CUDA
// entry (`forward_cuda`; a `forward` not split by tcc-split-targets is renamed
// so) with a trailing stream argument that every launch uses, no kernel assuming its grid size, and a check that the host function
// no longer touches tensor memory.
//
//===----------------------------------------------------------------------===//
#include "tcc/Transforms/GpuConventions.h"
#include "tcc/Transforms/Passes.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"

#include <optional>

#define DEBUG_TYPE "tcc-gpu-finalize-launches"

namespace tcc {
#define GEN_PASS_DEF_GPUFINALIZELAUNCHESPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

/// Name of the one gpu.module that holds every kernel of a model.
constexpr const char *kKernelModuleName = "tcc_kernels";

/// After outlining: every kernel into one gpu.module (one PTX, one module
/// load); `forward` renamed `forward_cuda` with a trailing `!llvm.ptr` stream
/// argument that every launch uses; and a check that the host function no
/// longer touches tensor memory itself (it would read device pointers).
struct GpuFinalizeLaunchesPass
    : tcc::impl::GpuFinalizeLaunchesPassBase<GpuFinalizeLaunchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(mergeKernelModules(module)))
      return signalPassFailure();
    // The CUDA path's entry: `forward_cuda` after tcc-split-targets, or a
    // `forward` of an unsplit module (renamed below).
    auto forward = module.lookupSymbol<func::FuncOp>(tcc::kCudaForwardName);
    if (!forward) {
      forward = module.lookupSymbol<func::FuncOp>("forward");
      if (forward && !tcc::isCudaFunction(forward))
        forward = nullptr;
    }
    if (!forward) {
      if (module.getOps<gpu::GPUModuleOp>().empty())
        return; // no CUDA path in this module
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
    // convert-tcc-kernel-to-cuda may have added it already, for its library calls.
    unsigned index = forward.getNumArguments();
    for (unsigned i = 0; i < forward.getNumArguments(); ++i)
      if (forward.getArgAttr(i, tcc::kStreamAttrName))
        index = i;
    if (index == forward.getNumArguments() &&
        failed(forward.insertArgument(index, ptrTy,
                                      DictionaryAttr::get(ctx, {NamedAttribute(
                                          StringAttr::get(ctx, tcc::kStreamAttrName),
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
      // Outlining records a constant grid as known_grid_size, which lets
      // gpu.grid_dim fold to it; but the runtime launches at most one
      // device-full of blocks (the kernels stride over the grid), so the
      // grid is only known at launch.
      kernel.setKnownGridSizeAttr(nullptr);
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
    if (forward.getSymName() != tcc::kCudaForwardName) {
      if (failed(SymbolTable::replaceAllSymbolUses(
              forward, StringAttr::get(ctx, tcc::kCudaForwardName), module)))
        return signalPassFailure();
      forward.setSymName(tcc::kCudaForwardName);
    }
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

} // namespace
