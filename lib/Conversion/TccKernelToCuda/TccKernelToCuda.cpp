//===- TccKernelToCuda.cpp - the convert-tcc-kernel-to-cuda pass ----------===//
//
// The CUDA path's lowering of the kernel layer: every bufferized tcc_kernel
// op of a planned entry becomes one call of the runtime on the entry's stream
// (GemmCalls.cpp: cuBLASLt; ConvCalls.cpp: cuDNN; AttentionCalls.cpp and
// RowCalls.cpp: tcc's kernel library). The calls enqueue work and return; nothing synchronizes.
//
//===----------------------------------------------------------------------===//
#include "RuntimeCalls.h"

#include "tcc/Conversion/Passes.h"
#include "tcc/Runtime/KernelTypes.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/TypeSwitch.h"

#define DEBUG_TYPE "convert-tcc-kernel-to-cuda"

namespace tcc {
#define GEN_PASS_DEF_CONVERTTCCKERNELTOCUDAPASS
#include "tcc/Conversion/Passes.h.inc"
} // namespace tcc

using namespace mlir;
using namespace tcc::cudacalls;

Value CallBuilder::i64(Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}
Value CallBuilder::i64(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 64); }
Value CallBuilder::i32(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 32); }
Value CallBuilder::f32(double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(static_cast<float>(v)));
}
Value CallBuilder::null() {
  return LLVM::ZeroOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()));
}

CallBuilder &CallBuilder::add(std::initializer_list<Value> values) {
  args.append(values.begin(), values.end());
  return *this;
}

Value CallBuilder::advance(Value pointer, Value elements, int64_t elementBytes) {
  Value bytes = arith::MulIOp::create(b, loc, i64(elements), i64(elementBytes));
  return LLVM::GEPOp::create(b, loc, pointer.getType(), b.getI8Type(), pointer,
                             ArrayRef<LLVM::GEPArg>{bytes});
}

void CallBuilder::call(ModuleOp module, StringRef name) {
  auto callee = module.lookupSymbol<func::FuncOp>(name);
  if (!callee) {
    OpBuilder top = OpBuilder::atBlockEnd(module.getBody());
    SmallVector<Type> types;
    for (Value v : args)
      types.push_back(v.getType());
    callee = func::FuncOp::create(top, loc, name, top.getFunctionType(types, {}));
    callee.setPrivate();
  }
  func::CallOp::create(b, loc, callee, args);
}

int32_t tcc::cudacalls::dtypeCode(Type type) {
  return type.isF16() ? tcc::kKernelF16 : type.isBF16() ? tcc::kKernelBF16 : tcc::kKernelF32;
}

namespace {
struct ConvertTccKernelToCudaPass
    : tcc::impl::ConvertTccKernelToCudaPassBase<ConvertTccKernelToCudaPass> {
  using ConvertTccKernelToCudaPassBase::ConvertTccKernelToCudaPassBase;

  void runOnOperation() override {
    for (auto func : llvm::to_vector(getOperation().getOps<func::FuncOp>())) {
      if (!tcc::isPlannedEntry(func) || !tcc::isCudaFunction(func))
        continue;
      SmallVector<Operation *> ops;
      func.walk([&](Operation *op) {
        if (isa<tcc::kernel::GemmOp, tcc::kernel::AttentionOp, tcc::kernel::RowOp,
                tcc::kernel::ConvOp>(op))
          ops.push_back(op);
      });
      if (ops.empty())
        continue;
      FailureOr<Value> stream = tcc::streamArgument(func);
      if (failed(stream))
        return signalPassFailure();
      CallContext ctx{getOperation(), *stream, tf32, bf16};
      for (Operation *op : ops) {
        if (op->getNumResults()) {
          op->emitOpError("must be bufferized before it becomes a runtime call");
          return signalPassFailure();
        }
        OpBuilder b(op);
        llvm::TypeSwitch<Operation *>(op)
            .Case([&](tcc::kernel::GemmOp o) { lowerGemm(b, o, ctx); })
            .Case([&](tcc::kernel::AttentionOp o) { lowerAttention(b, o, ctx); })
            .Case([&](tcc::kernel::RowOp o) { lowerRow(b, o, ctx); })
            .Case([&](tcc::kernel::ConvOp o) { lowerConv(b, o, ctx); });
        op->erase();
      }
    }
  }
};
} // namespace
