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
#include "tcc/Transforms/GpuConventions.h"
#include "tcc/Transforms/Passes.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"

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
    bool cpu = false, cuda = false;
    for (StringRef t : llvm::split(StringRef(targets), ',')) {
      t = t.trim();
      if (t == "cpu")
        cpu = true;
      else if (t == "cuda")
        cuda = true;
      else {
        module.emitError() << "tcc-split-targets: unknown target '" << t
                           << "' (expected cpu and/or cuda)";
        return signalPassFailure();
      }
    }
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
      forCuda->setAttr(tcc::kTargetAttrName, StringAttr::get(ctx, "cuda"));
    }
    if (cpu)
      forward->setAttr(tcc::kTargetAttrName, StringAttr::get(ctx, "cpu"));
  }
};
} // namespace
