//===- ZeroInit.cpp - does a library call's output start as zeros? --------===//
#include "tcc/Transforms/ZeroInit.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace {
bool isMetadataRead(Operation *op) {
  return isa<memref::ExtractStridedMetadataOp, memref::ExtractAlignedPointerAsIndexOp>(op);
}
} // namespace

bool tcc::hasAliases(Value buffer) {
  return llvm::any_of(buffer.getUsers(), [](Operation *user) {
    return isa<ViewLikeOpInterface>(user) && !isMetadataRead(user);
  });
}

Operation *tcc::lastWriter(Value buffer, Operation *from,
                           SmallVectorImpl<Operation *> *readers, bool metadataReadsMayWrite) {
  for (Operation *p = from->getPrevNode(); p; p = p->getPrevNode()) {
    if (!llvm::is_contained(p->getOperands(), buffer))
      continue;
    if (!metadataReadsMayWrite && isMetadataRead(p))
      continue;
    auto op = dyn_cast<linalg::LinalgOp>(p);
    if (op && op.hasPureBufferSemantics() && !llvm::is_contained(op.getDpsInits(), buffer)) {
      if (readers)
        readers->push_back(p);
      continue;
    }
    return p;
  }
  return nullptr;
}

bool tcc::isZeroFillOf(Operation *op, Value buffer) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(op);
  return fill && fill.getOutputs().size() == 1 && fill.getOutputs()[0] == buffer &&
         matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
}

tcc::ZeroInit tcc::zeroInitOf(Value buffer, Operation *op, bool metadataReadsMayWrite) {
  ZeroInit init;
  if (hasAliases(buffer))
    return init;
  SmallVector<Operation *> readers;
  Operation *writer = lastWriter(buffer, op, &readers, metadataReadsMayWrite);
  if (isZeroFillOf(writer, buffer)) {
    init.zero = true;
  } else if (auto copy = dyn_cast_or_null<linalg::CopyOp>(writer)) {
    Value source = copy.getInputs()[0];
    if (source == buffer || hasAliases(source))
      return init;
    Operation *fill = lastWriter(source, copy, nullptr, metadataReadsMayWrite);
    if (!isZeroFillOf(fill, source))
      return init;
    init.zero = true;
    init.sharedFill = cast<linalg::FillOp>(fill);
  } else {
    return init;
  }
  // The call overwrites the buffer (beta = 0); readers of the zeros before it
  // keep the fill or copy alive.
  if (readers.empty())
    init.erasable = writer;
  return init;
}
