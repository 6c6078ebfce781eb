//===- InstrumentKernels.cpp - a profile mark before every kernel ---------===//
//
// Implements `tcc-instrument-kernels` (tcc compile --profile): a call to the
// runtime's `tcc_profile_mark(k)` before kernel k of each planned entry and
// `tcc_profile_mark(N)` before its return. The kernels are the ops
// tcc::isKernelOp accepts, in block order: the numbering of the manifest's
// "kernels" (describeKernels reads the same module), so the runtime's times
// line up with `tcc inspect`'s list.
//
//===----------------------------------------------------------------------===//
#include "tcc/Transforms/Passes.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#define DEBUG_TYPE "tcc-instrument-kernels"

namespace tcc {
#define GEN_PASS_DEF_INSTRUMENTKERNELSPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

struct InstrumentKernelsPass : tcc::impl::InstrumentKernelsPassBase<InstrumentKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // Instrumented already (the pass ran twice): the marks are there.
    if (module.lookupSymbol(tcc::kProfileMarkFunction))
      return;
    SmallVector<func::FuncOp> entries;
    for (auto f : module.getOps<func::FuncOp>())
      if (tcc::isPlannedEntry(f))
        entries.push_back(f);
    if (entries.empty())
      return;
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto i32 = b.getI32Type();
    auto callee = func::FuncOp::create(b, module.getLoc(), tcc::kProfileMarkFunction,
                                       b.getFunctionType({i32}, {}));
    callee.setPrivate();
    for (func::FuncOp f : entries) {
      Block &block = f.getBody().front();
      auto mark = [&](Operation *before, int32_t k) {
        b.setInsertionPoint(before);
        Location loc = before->getLoc();
        Value index = arith::ConstantIntOp::create(b, loc, k, 32);
        func::CallOp::create(b, loc, callee, ValueRange{index});
      };
      SmallVector<Operation *> kernels;
      for (Operation &op : block)
        if (tcc::isKernelOp(&op))
          kernels.push_back(&op);
      for (auto [k, op] : llvm::enumerate(kernels))
        mark(op, static_cast<int32_t>(k));
      // The end mark: what the last kernel took ends here.
      mark(block.getTerminator(), static_cast<int32_t>(kernels.size()));
    }
  }
};

} // namespace
