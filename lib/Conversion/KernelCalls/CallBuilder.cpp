//===- CallBuilder.cpp - arguments and calls of the runtime entry points -===//
#include "KernelCalls.h"

#include "tcc/Runtime/KernelTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace tcc::kernelcalls;
namespace abi = tcc::abi;

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

/// The MLIR type of an argument kind of the contract.
static Type argType(MLIRContext *ctx, abi::Arg kind) {
  switch (kind) {
  case abi::Arg::I32: return IntegerType::get(ctx, 32);
  case abi::Arg::I64: return IntegerType::get(ctx, 64);
  case abi::Arg::F32: return Float32Type::get(ctx);
  case abi::Arg::Ptr: return LLVM::LLVMPointerType::get(ctx);
  }
  llvm_unreachable("argument kind");
}

void CallBuilder::call(ModuleOp module, abi::EntryId id) {
  const abi::Entry &entry = abi::entry(id);
  MLIRContext *ctx = module.getContext();
  if (args.size() != entry.numArgs)
    llvm::report_fatal_error(llvm::Twine("call of ") + entry.name + " built with " +
                             llvm::Twine(args.size()) + " arguments; RuntimeEntries.def gives it " +
                             llvm::Twine(entry.numArgs));
  SmallVector<Type> types;
  for (size_t i = 0; i < entry.numArgs; ++i) {
    types.push_back(argType(ctx, entry.args[i]));
    if (args[i].getType() != types.back()) {
      std::string got;
      llvm::raw_string_ostream os(got);
      os << args[i].getType();
      llvm::report_fatal_error(llvm::Twine("call of ") + entry.name + ": argument " +
                               llvm::Twine(i) + " is " + got + ", RuntimeEntries.def says " +
                               abi::argName(entry.args[i]));
    }
  }
  auto callee = module.lookupSymbol<func::FuncOp>(entry.name);
  if (!callee) {
    OpBuilder top = OpBuilder::atBlockEnd(module.getBody());
    callee = func::FuncOp::create(top, loc, entry.name, top.getFunctionType(types, {}));
    callee.setPrivate();
  }
  func::CallOp::create(b, loc, callee, args);
}

int32_t tcc::kernelcalls::dtypeCode(Type type) {
  return type.isF16() ? tcc::kKernelF16 : type.isBF16() ? tcc::kKernelBF16 : tcc::kKernelF32;
}

