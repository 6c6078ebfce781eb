//===- CallBuilder.cpp - arguments and calls of the runtime entry points -===//
#include "KernelCalls.h"

#include "tcc/Runtime/KernelTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace tcc::kernelcalls;

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
  // One op per statement: argument order is the compiler's (issue 17).
  Value count = i64(elements);
  Value width = i64(elementBytes);
  Value bytes = arith::MulIOp::create(b, loc, count, width);
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

int32_t tcc::kernelcalls::dtypeCode(Type type) {
  return type.isF16() ? tcc::kKernelF16 : type.isBF16() ? tcc::kKernelBF16 : tcc::kKernelF32;
}

