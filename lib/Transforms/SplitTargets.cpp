//===- SplitTargets.cpp - one planned entry per target path ---------------===//
//
// Implements `tcc-split-targets`. After memory planning the program is the
// same for every target; from here the CPU and CUDA lowerings differ. The
// planned `forward` is kept for the CPU path and cloned as `forward_cuda` for
// the CUDA path (renamed when CUDA is the only target), each marked with
// `tcc.target`, so that both lowerings run in one pass pipeline on one module,
// each on its own functions, and the host LLVM tail runs once for both.
//
//===----------------------------------------------------------------------===//
#include "tcc/Support/TargetSet.h"
#include "tcc/Transforms/GpuConventions.h"
#include "tcc/Transforms/Passes.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#define DEBUG_TYPE "tcc-split-targets"

namespace tcc {
#define GEN_PASS_DEF_SPLITTARGETSPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {
struct SplitTargetsPass : tcc::impl::SplitTargetsPassBase<SplitTargetsPass> {
  using SplitTargetsPassBase::SplitTargetsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (targets.empty()) {
      module.emitError() << "tcc-split-targets: option 'targets' not given; "
                         << tcc::expectedTargets();
      return signalPassFailure();
    }
    const bool cpu = targets.has(tcc::Target::Cpu), cuda = targets.has(tcc::Target::Cuda);
    MLIRContext *ctx = &getContext();
    auto forward = module.lookupSymbol<func::FuncOp>("forward");
    if (!forward || !tcc::isPlannedEntry(forward)) {
      module.emitError() << "tcc-split-targets: no planned 'forward' function";
      return signalPassFailure();
    }
    if (cuda) {
      func::FuncOp forCuda = forward;
      if (cpu) {
        OpBuilder b(ctx);
        b.setInsertionPointAfter(forward);
        forCuda = cast<func::FuncOp>(b.clone(*forward));
      }
      forCuda.setSymName(tcc::kCudaForwardName);
      forCuda->setAttr(tcc::kTargetAttrName, StringAttr::get(ctx, tcc::targetName(tcc::Target::Cuda)));
    }
    if (cpu)
      forward->setAttr(tcc::kTargetAttrName, StringAttr::get(ctx, tcc::targetName(tcc::Target::Cpu)));
  }
};
} // namespace
