//===- OutlineKernels.cpp - one private function per structured op --------===//
#include "dialects/TccKernel/IR/TccKernelDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "tcc/Transforms/Passes.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "dialects/TccGraph/IR/TccGraphDialect.h"

#define DEBUG_TYPE "tcc-outline-kernels"

namespace tcc {
#define GEN_PASS_DEF_OUTLINEKERNELSPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

/// Moves `op` into a new private function inserted before `insertPoint`.
void outline(Operation *op, func::FuncOp parent, unsigned index, SymbolTable &symbols) {
  // Values the op reads: its operands and whatever its regions capture.
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  SmallVector<Value> args(op->getOperands().begin(), op->getOperands().end());
  SmallVector<Operation *> clonedConstants;
  for (Value v : captured) {
    Operation *def = v.getDefiningOp();
    if (def && def->hasTrait<OpTrait::ConstantLike>())
      clonedConstants.push_back(def);
    else if (!llvm::is_contained(args, v))
      args.push_back(v);
  }

  OpBuilder b(parent);
  std::string name = (parent.getName() + "_kernel_" + Twine(index)).str();
  SmallVector<Type> types;
  for (Value v : args)
    types.push_back(v.getType());
  auto kernel = b.create<func::FuncOp>(op->getLoc(), name, b.getFunctionType(types, {}));
  kernel.setPrivate();
  kernel->setAttr("no_inline", b.getUnitAttr());
  // The kernel belongs to its entry's target path (tcc-split-targets).
  if (Attribute target = parent->getAttr(tcc::kTargetAttrName))
    kernel->setAttr(tcc::kTargetAttrName, target);
  symbols.insert(kernel);  // uniquifies the name if needed
  // Weights stay marked as weights inside the kernel (a library call may keep
  // what it derives from one until weights are bound again).
  for (auto [i, v] : llvm::enumerate(args))
    if (tcc::isBoundWeight(v))
      kernel.setArgAttr(i, tcc::graph::TccGraphDialect::getRoleAttrName(), b.getStringAttr(tcc::kWeightRole));
  Block *body = kernel.addEntryBlock();
  b.setInsertionPointToEnd(body);
  IRMapping map;
  for (auto [v, arg] : llvm::zip(args, body->getArguments()))
    map.map(v, arg);
  for (Operation *c : clonedConstants)
    b.clone(*c, map);
  b.clone(*op, map);
  b.create<func::ReturnOp>(op->getLoc());

  b.setInsertionPoint(op);
  b.create<func::CallOp>(op->getLoc(), kernel, args);
  op->erase();
}

struct OutlineKernelsPass : public tcc::impl::OutlineKernelsPassBase<OutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> entries;
    for (auto f : module.getOps<func::FuncOp>())
      if (tcc::isPlannedEntry(f) && tcc::isCpuFunction(f))
        entries.push_back(f);
    for (func::FuncOp f : entries) {
      SmallVector<Operation *> kernels;
      for (Operation &op : f.getBody().front())
        if ((isa<linalg::LinalgOp>(op) || isa<tcc::kernel::TccKernelDialect>(op.getDialect())) &&
            op.getNumResults() == 0)
          kernels.push_back(&op);
      for (auto [i, op] : llvm::enumerate(kernels))
        outline(op, f, i, symbols);
    }
  }
};
} // namespace
