//===- PlannedEntry.cpp - facts about a memory-planned entry function -----===//
#include "tcc/Transforms/PlannedEntry.h"
#include "tcc/Support/TargetSet.h"

#include "dialects/TccGraph/IR/TccGraphDialect.h"

#include "dialects/TccKernel/IR/TccKernelOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <limits>
#include <optional>

using namespace mlir;

bool tcc::isPlannedEntry(func::FuncOp f) {
  if (f.isExternal())
    return false;
  for (unsigned i = 0; i < f.getNumArguments(); ++i)
    if (f.getArgAttr(i, tcc::kArenaAttrName))
      return true;
  return false;
}

bool tcc::isKernelOp(Operation *op) {
  namespace kernel = tcc::kernel;
  return isa<kernel::GemmOp, kernel::ConvOp, kernel::AttentionOp, kernel::RowOp,
             kernel::ScatterOp, kernel::RnnOp, kernel::QConvOp, memref::CopyOp,
             linalg::LinalgOp>(op);
}

namespace {
/// The bytes a buffer covers: [begin, end) of `root`, a function argument.
struct Bytes {
  Value root;
  int64_t begin = 0, end = std::numeric_limits<int64_t>::max();
};

bool isArena(Value root) {
  auto arg = cast<BlockArgument>(root);
  auto f = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  return f && f.getArgAttr(arg.getArgNumber(), tcc::kArenaAttrName);
}

/// `v`'s bytes, through views whose bytes lie within their source's (taken
/// as the whole source), down to a function argument; nullopt where unknown.
std::optional<Bytes> bytesOf(Value v) {
  while (true) {
    if (isa<BlockArgument>(v))
      return isa<func::FuncOp>(cast<BlockArgument>(v).getOwner()->getParentOp())
                 ? std::optional<Bytes>(Bytes{v})
                 : std::nullopt;
    Operation *def = v.getDefiningOp();
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      if (!isa<BlockArgument>(view.getSource()))
        return std::nullopt;
      Bytes bytes{view.getSource()};
      auto type = view.getType();
      std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
      Type elt = type.getElementType();
      if (shift && type.hasStaticShape() && type.getLayout().isIdentity() && elt.isIntOrFloat()) {
        bytes.begin = *shift;
        bytes.end = *shift + type.getNumElements() * ((elt.getIntOrFloatBitWidth() + 7) / 8);
      }
      return bytes;
    }
    if (!isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::SubViewOp,
                         memref::CastOp>(def))
      return std::nullopt;
    v = def->getOperand(0);
  }
}
} // namespace

bool tcc::mayShareBytes(Value a, Value b) {
  std::optional<Bytes> x = bytesOf(a), y = bytesOf(b);
  if (!x || !y)
    return true;
  if (x->root != y->root)
    return !isArena(x->root) && !isArena(y->root);
  return x->begin < y->end && y->begin < x->end;
}

static bool targetIs(func::FuncOp f, tcc::Target target) {
  auto attr = f->getAttrOfType<StringAttr>(tcc::kTargetAttrName);
  return !attr || attr.getValue() == tcc::targetName(target);
}

bool tcc::isCpuFunction(func::FuncOp f) { return targetIs(f, tcc::Target::Cpu); }

bool tcc::isCudaFunction(func::FuncOp f) { return targetIs(f, tcc::Target::Cuda); }

bool tcc::isBoundWeight(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  auto arg = dyn_cast<BlockArgument>(v);
  auto func = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()) : nullptr;
  if (!func || arg.getOwner() != &func.getBody().front())
    return false;
  auto role = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), tcc::graph::TccGraphDialect::getRoleAttrName());
  return role && role.getValue() == kWeightRole;
}

FailureOr<Value> tcc::streamArgument(func::FuncOp func) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (func.getArgAttr(i, tcc::kStreamAttrName))
      return Value(func.getArgument(i));
  MLIRContext *ctx = func.getContext();
  unsigned index = func.getNumArguments();
  if (failed(func.insertArgument(
          index, LLVM::LLVMPointerType::get(ctx),
          DictionaryAttr::get(ctx, {NamedAttribute(StringAttr::get(ctx, tcc::kStreamAttrName),
                                                   UnitAttr::get(ctx))}),
          func.getLoc())))
    return failure();
  return Value(func.getArgument(index));
}
