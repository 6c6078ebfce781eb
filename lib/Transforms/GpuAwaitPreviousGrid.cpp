//===- GpuAwaitPreviousGrid.cpp - kernels that may start early (sm_90+) ---===//
//
// A decode step is ~190 dependent kernels of a few microseconds each; a
// kernel launched with programmatic stream serialization is scheduled while
// the one before it still runs, so its launch latency hides behind it. Such
// a kernel must wait for the previous one itself before it reads anything:
// every kernel here starts with griddepcontrol.wait, then lets the next one
// be scheduled, and the module says so to the runtime through the global of
// include/tcc/Runtime/GridDependency.h.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/GridDependency.h"
#include "tcc/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"

namespace tcc {
#define GEN_PASS_DEF_GPUAWAITPREVIOUSGRIDPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

/// NVPTX's global address space: where cuModuleGetGlobal finds a variable.
constexpr unsigned kGlobalAddressSpace = 1;

struct GpuAwaitPreviousGridPass
    : tcc::impl::GpuAwaitPreviousGridPassBase<GpuAwaitPreviousGridPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    bool anyKernel = false;
    for (auto fn : module.getOps<gpu::GPUFuncOp>()) {
      if (!fn.isKernel() || fn.getBody().empty())
        continue;
      OpBuilder b = OpBuilder::atBlockBegin(&fn.getBody().front());
      NVVM::GriddepcontrolOp::create(b, fn.getLoc(), NVVM::GridDepActionKind::wait);
      NVVM::GriddepcontrolOp::create(b, fn.getLoc(), NVVM::GridDepActionKind::launch_dependents);
      anyKernel = true;
    }
    if (!anyKernel || module.lookupSymbol(tcc::kAwaitsPreviousGridSymbol))
      return;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    Type i32 = b.getI32Type();
    LLVM::GlobalOp::create(b, module.getLoc(), i32, /*isConstant=*/false, LLVM::Linkage::External,
                           tcc::kAwaitsPreviousGridSymbol, b.getI32IntegerAttr(1),
                           /*alignment=*/4, kGlobalAddressSpace);
  }
};

} // namespace
