//===- PlannedEntry.cpp - facts about a memory-planned entry function -----===//
#include "tcc/Transforms/PlannedEntry.h"

#include "dialects/TccKernel/IR/TccKernelOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

bool tcc::isPlannedEntry(func::FuncOp f) {
  if (f.isExternal())
    return false;
  for (unsigned i = 0; i < f.getNumArguments(); ++i)
    if (f.getArgAttr(i, "tcc.arena"))
      return true;
  return false;
}

bool tcc::isKernelOp(Operation *op) {
  namespace kernel = tcc::kernel;
  return isa<kernel::GemmOp, kernel::ConvOp, kernel::AttentionOp, kernel::RowOp, memref::CopyOp,
             linalg::LinalgOp>(op);
}

static bool targetIs(func::FuncOp f, StringRef target) {
  auto attr = f->getAttrOfType<StringAttr>(tcc::kTargetAttrName);
  return !attr || attr.getValue() == target;
}

bool tcc::isCpuFunction(func::FuncOp f) { return targetIs(f, "cpu"); }

bool tcc::isCudaFunction(func::FuncOp f) { return targetIs(f, "cuda"); }

bool tcc::isBoundWeight(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  auto arg = dyn_cast<BlockArgument>(v);
  auto func = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()) : nullptr;
  if (!func || arg.getOwner() != &func.getBody().front())
    return false;
  auto role = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kRoleAttrName);
  return role && role.getValue() == kWeightRole;
}

FailureOr<Value> tcc::streamArgument(func::FuncOp func) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (func.getArgAttr(i, "tcc.stream"))
      return Value(func.getArgument(i));
  MLIRContext *ctx = func.getContext();
  unsigned index = func.getNumArguments();
  if (failed(func.insertArgument(
          index, LLVM::LLVMPointerType::get(ctx),
          DictionaryAttr::get(ctx, {NamedAttribute(StringAttr::get(ctx, "tcc.stream"),
                                                   UnitAttr::get(ctx))}),
          func.getLoc())))
    return failure();
  return Value(func.getArgument(index));
}
