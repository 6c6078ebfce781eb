//===- SplitSharedInits.cpp - one fresh init tensor per writer ------------===//
#include "SplitSharedInits.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace {

/// Writers that keep sharing one empty tensor: the conflict analysis of each
/// group grows with its square.
constexpr size_t kWritersPerFreshTensor = 8;

/// Whether `v` is a fresh tensor worth recomputing per writer: a
/// tensor.empty, a linalg.fill of one, or a reshape of one of those.
bool isFresh(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<tensor::EmptyOp>(def))
    return true;
  if (auto fill = dyn_cast<linalg::FillOp>(def))
    return fill.hasPureTensorSemantics() && isFresh(fill.getOutputs()[0]);
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
    return isFresh(def->getOperand(0));
  return false;
}

/// A copy of the ops that make fresh `v`, at `b`'s insertion point (their
/// other operands, sizes and fill values, dominate the original).
Value cloneFresh(OpBuilder &b, Value v) {
  Operation *def = v.getDefiningOp();
  IRMapping mapping;
  if (auto fill = dyn_cast<linalg::FillOp>(def))
    mapping.map(fill.getOutputs()[0], cloneFresh(b, fill.getOutputs()[0]));
  else if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
    mapping.map(def->getOperand(0), cloneFresh(b, def->getOperand(0)));
  return b.clone(*def, mapping)->getResult(cast<OpResult>(v).getResultNumber());
}

} // namespace

void tcc::splitSharedInits(ModuleOp module) {
  // The destination operands that read each shared fresh value, in program
  // order.
  llvm::MapVector<Value, SmallVector<OpOperand *>> writers;
  module.walk([&](DestinationStyleOpInterface op) {
    for (OpOperand &init : op.getDpsInitsMutable())
      if (isa<RankedTensorType>(init.get().getType()) && !init.get().hasOneUse() &&
          isFresh(init.get()))
        writers[init.get()].push_back(&init);
  });
  llvm::SetVector<Operation *> originals;
  for (auto &[value, inits] : writers) {
    // A fill: each writer its own, right before it (a shared one would be
    // copied for all but one). An empty tensor: consecutive writers keep
    // sharing one, by groups; One-Shot Bufferize may then compute a chain of
    // pointwise ops in one buffer.
    bool filled = isa<linalg::FillOp>(value.getDefiningOp());
    size_t group = filled ? 1 : kWritersPerFreshTensor;
    for (size_t first = filled ? 0 : group; first < inits.size(); first += group) {
      OpBuilder b(inits[first]->getOwner());
      Value copy = cloneFresh(b, value);
      for (size_t i = first; i < std::min(first + group, inits.size()); ++i)
        inits[i]->set(copy);
    }
    originals.insert(value.getDefiningOp());
  }
  // The originals and what made them, where nothing reads them any more.
  llvm::SmallPtrSet<Operation *, 16> erased;
  while (!originals.empty()) {
    Operation *op = originals.pop_back_val();
    if (erased.contains(op) || !op->use_empty())
      continue;
    SmallVector<Operation *> makers;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp(); def && isFresh(operand))
        makers.push_back(def);
    op->erase();
    erased.insert(op);
    for (Operation *maker : makers)
      if (!erased.contains(maker))
        originals.insert(maker);
  }
}
