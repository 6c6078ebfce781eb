//===- LowerAssertsToRuntime.cpp - CPU run-time checks as runtime calls ---===//
//
// Implements `tcc-lower-asserts-to-runtime`. MLIR's own lowering of
// cf.assert prints and aborts the process; a model's caller must get an
// error instead (RuntimeChecks.h). Each assert outside GPU modules becomes a
// call of tcc_assert_failed with its message when the condition is false;
// execution goes on, and the code after the check reads only values it made
// safe.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/RuntimeChecks.h"
#include "tcc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringMap.h"

namespace tcc {
#define GEN_PASS_DEF_LOWERASSERTSTORUNTIMEPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

struct LowerAssertsToRuntimePass
    : tcc::impl::LowerAssertsToRuntimePassBase<LowerAssertsToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<cf::AssertOp> asserts;
    module.walk([&](cf::AssertOp op) {
      if (!op->getParentOfType<gpu::GPUModuleOp>())
        asserts.push_back(op);
    });
    if (asserts.empty())
      return;
    MLIRContext *ctx = module.getContext();
    OpBuilder b(ctx);
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    b.setInsertionPointToStart(module.getBody());
    auto callee = func::FuncOp::create(b, module.getLoc(), tcc::kAssertFailedFunction,
                                       b.getFunctionType({ptrType}, {}));
    callee.setPrivate();
    // One NUL-terminated global per distinct message.
    llvm::StringMap<LLVM::GlobalOp> messages;
    for (cf::AssertOp op : asserts) {
      std::string text = op.getMsg().str();
      LLVM::GlobalOp &global = messages[text];
      if (!global) {
        b.setInsertionPointToStart(module.getBody());
        text.push_back('\0');
        auto type = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), text.size());
        global = LLVM::GlobalOp::create(b, op.getLoc(), type, /*isConstant=*/true,
                                        LLVM::Linkage::Internal,
                                        "tcc_check_message_" + std::to_string(messages.size()),
                                        b.getStringAttr(text));
      }
      b.setInsertionPoint(op);
      Location loc = op.getLoc();
      Value yes = arith::ConstantIntOp::create(b, loc, 1, 1);
      Value failed = arith::XOrIOp::create(b, loc, op.getArg(), yes);
      auto ifOp = scf::IfOp::create(b, loc, failed, /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value address = LLVM::AddressOfOp::create(b, loc, global);
      func::CallOp::create(b, loc, callee, ValueRange{address});
      op.erase();
    }
  }
};

} // namespace
