//===- PlanMemory.cpp - Place every buffer in one liveness-planned arena --===//
//
// Implements `tcc-plan-memory`: sizes every top-level memref.alloc of a
// function (dynamic sizes at their upper bound), computes its live interval
// in program order, places the buffers with tcc::planMemoryGreedyBySize and
// rewrites each alloc into a memref.view of a new `%arena` argument. The
// bounds of dynamic sizes come from SizeBounds.h.
//
//===----------------------------------------------------------------------===//

#include "tcc/Transforms/Passes.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "SizeBounds.h"
#include "dialects/TccGraph/IR/TccGraphDialect.h"

#include "tcc/Support/MemoryPlanner.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <optional>
#include <string>

#define DEBUG_TYPE "tcc-plan-memory"

namespace tcc {
#define GEN_PASS_DEF_PLANMEMORYPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;
using tcc::BoundFailure;
using tcc::SizeBounder;
using tcc::SizeRange;

namespace {

constexpr llvm::StringLiteral kSymbolsAttr = tcc::graph::TccGraphDialect::getSymbolsAttrName();
constexpr llvm::StringLiteral kArenaSizeAttr = tcc::kArenaSizeAttrName;
constexpr llvm::StringLiteral kMemoryPlanAttr = tcc::kMemoryPlanAttrName;

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// One alloc with its size and live interval.
struct PlannedBuffer {
  memref::AllocOp alloc;
  tcc::BufferLifetime lifetime;
  SmallVector<memref::DeallocOp> deallocs;
};

class PlanMemoryPass : public tcc::impl::PlanMemoryPassBase<PlanMemoryPass> {
public:
  using Base::Base;

  void runOnOperation() override;

private:
  /// Plans `func`; returns its arena size, or failure after emitting errors.
  FailureOr<uint64_t> planFunction(func::FuncOp func, DictionaryAttr symbols);
  LogicalResult checkAlloc(memref::AllocOp alloc, Block &body);
  FailureOr<uint64_t> bufferBytes(memref::AllocOp alloc,
                                  SizeBounder &bounder,
                                  const DataLayout &layout);
  LogicalResult computeLifetime(PlannedBuffer &buffer, Block &body,
                                const llvm::DenseMap<Operation *, int64_t>
                                    &positions);
};

LogicalResult PlanMemoryPass::checkAlloc(memref::AllocOp alloc, Block &body) {
  MemRefType type = alloc.getType();
  if (alloc->getBlock() != &body)
    return alloc.emitOpError(
        "is inside a nested region; memory planning only places allocs at "
        "the top level of the function body");
  if (!type.getLayout().isIdentity())
    return alloc.emitOpError("has a non-identity layout ")
           << type.getLayout()
           << "; only identity-layout buffers can become views of the arena";
  if (type.getMemorySpace())
    return alloc.emitOpError("is in memory space ")
           << type.getMemorySpace()
           << "; the arena is in the default memory space";
  if (std::optional<uint64_t> align = alloc.getAlignment();
      align && *align > alignment)
    return alloc.emitOpError("requests alignment ")
           << *align << ", more than the arena's " << alignment.getValue();
  if (!isa<IntegerType, FloatType, IndexType, ComplexType, VectorType>(
          type.getElementType()))
    return alloc.emitOpError("has element type ")
           << type.getElementType() << " whose size is unknown";
  return success();
}

FailureOr<uint64_t> PlanMemoryPass::bufferBytes(memref::AllocOp alloc,
                                                SizeBounder &bounder,
                                                const DataLayout &layout) {
  MemRefType type = alloc.getType();
  Type elementType = type.getElementType();
  int64_t elementBytes = llvm::alignTo(
      layout.getTypeSize(elementType).getFixedValue(),
      layout.getTypeABIAlignment(elementType));
  std::optional<int64_t> bytes = elementBytes;
  unsigned dynamicIndex = 0;
  for (int64_t dim : type.getShape()) {
    int64_t extent = dim;
    if (ShapedType::isDynamic(dim)) {
      Value size = alloc.getDynamicSizes()[dynamicIndex++];
      FailureOr<SizeRange> range = bounder.rangeOf(size);
      if (failed(range)) {
        const BoundFailure &why = bounder.getFailure();
        InFlightDiagnostic diag =
            alloc.emitOpError("cannot bound the size of this buffer for "
                              "memory planning: ")
            << why.reason;
        diag.attachNote(why.loc) << "the unbounded size comes from here";
        return diag;
      }
      extent = std::max<int64_t>(range->hi, 0);
      LLVM_DEBUG(llvm::dbgs() << "bounded dynamic size " << size << " to ["
                              << range->lo << ", " << range->hi << "]\n");
    }
    bytes = bytes ? llvm::checkedMul(*bytes, extent) : std::nullopt;
  }
  if (!bytes)
    return alloc.emitError("the intermediates cannot be planned: a buffer's size at the "
                           "largest sizes the export allows overflows 64 bits (a dynamic "
                           "dimension without a maximum?); give the dynamic dimensions a "
                           "maximum when exporting (torch.export.Dim(..., max=...))");
  return static_cast<uint64_t>(*bytes);
}

LogicalResult PlanMemoryPass::computeLifetime(
    PlannedBuffer &buffer, Block &body,
    const llvm::DenseMap<Operation *, int64_t> &positions) {
  memref::AllocOp alloc = buffer.alloc;
  int64_t first = positions.lookup(alloc);
  int64_t last = first;

  // Follow the buffer through everything that may alias it: results of the
  // ops using it (views, casts, reshapes, and conservatively any other op
  // with a memref or tensor result), and results of the top-level op that
  // encloses a nested use (a value yielded out of a region).
  llvm::SetVector<Value> aliases;
  aliases.insert(alloc.getResult());
  auto addAliases = [&](Operation *op) {
    for (Value result : op->getResults())
      if (isa<BaseMemRefType, TensorType>(result.getType()))
        aliases.insert(result);
  };
  for (size_t i = 0; i < aliases.size(); ++i) {
    Value alias = aliases[i];
    for (OpOperand &use : alias.getUses()) {
      Operation *user = use.getOwner();
      if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
        buffer.deallocs.push_back(dealloc);
        continue;
      }
      if (user->getName().getStringRef() == "bufferization.dealloc")
        return alloc.emitOpError("is released by 'bufferization.dealloc'; "
                                 "plan memory before buffer deallocation")
                   .attachNote(user->getLoc())
               << "released here";
      if (user->getBlock() == &body &&
          user->hasTrait<OpTrait::ReturnLike>()) {
        InFlightDiagnostic diag = alloc.emitOpError(
            "escapes the function, so it cannot live in the arena; "
            "bufferize with caller-provided outputs instead");
        diag.attachNote(user->getLoc()) << "returned here";
        return diag;
      }
      if (auto store = dyn_cast<memref::StoreOp>(user);
          store && store.getValueToStore() == alias) {
        InFlightDiagnostic diag = alloc.emitOpError(
            "escapes the function, so it cannot live in the arena");
        diag.attachNote(user->getLoc()) << "stored here";
        return diag;
      }
      Operation *top = body.findAncestorOpInBlock(*user);
      assert(top && "use outside of the function body");
      last = std::max(last, positions.lookup(top));
      addAliases(user);
      if (top != user)
        addAliases(top);
    }
  }
  buffer.lifetime.first = first;
  buffer.lifetime.last = last;
  return success();
}

FailureOr<uint64_t> PlanMemoryPass::planFunction(func::FuncOp func,
                                                 DictionaryAttr symbols) {
  SmallVector<memref::AllocOp> allocs;
  func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });

  ModuleOp module = getOperation();
  if (!SymbolTable::symbolKnownUseEmpty(func, module)) {
    if (allocs.empty())
      return 0;
    InFlightDiagnostic diag = func.emitOpError(
        "has callers in the module; inline it before memory planning, since "
        "its signature gains an arena argument");
    diag.attachNote(allocs.front().getLoc()) << "buffer allocated here";
    return diag;
  }
  if (!allocs.empty() && !func.getBody().hasOneBlock())
    return func.emitOpError("has more than one block; memory planning needs "
                            "a single-block body");

  // Check every alloc first so that all offenders are reported at once.
  Block &body = func.getBody().front();
  bool ok = true;
  for (memref::AllocOp alloc : allocs)
    ok &= succeeded(checkAlloc(alloc, body));
  if (!ok)
    return failure();

  llvm::DenseMap<Operation *, int64_t> positions;
  for (auto [index, op] : llvm::enumerate(body))
    positions[&op] = index;

  SizeBounder bounder(func, symbols);
  DataLayout layout = DataLayout::closest(func);
  SmallVector<PlannedBuffer> buffers;
  for (memref::AllocOp alloc : allocs) {
    PlannedBuffer buffer{alloc, {}, {}};
    FailureOr<uint64_t> bytes = bufferBytes(alloc, bounder, layout);
    if (failed(bytes))
      return failure(); // the first says why; the others would repeat it
    if (failed(computeLifetime(buffer, body, positions))) {
      ok = false;
      continue;
    }
    buffer.lifetime.bytes = *bytes;
    buffers.push_back(std::move(buffer));
  }
  if (!ok)
    return failure();

  std::vector<tcc::BufferLifetime> lifetimes;
  for (const PlannedBuffer &buffer : buffers)
    lifetimes.push_back(buffer.lifetime);
  tcc::MemoryPlan plan = tcc::planMemoryGreedyBySize(lifetimes, alignment);

  // Append the arena and turn every alloc into a view of it.
  OpBuilder builder(func.getContext());
  auto arenaType = MemRefType::get({ShapedType::kDynamic}, builder.getI8Type());
  DictionaryAttr arenaAttrs = builder.getDictionaryAttr(
      builder.getNamedAttr(tcc::kArenaAttrName, builder.getUnitAttr()));
  if (failed(func.insertArgument(func.getNumArguments(), arenaType, arenaAttrs,
                                 func.getLoc())))
    return func.emitOpError("cannot append the arena argument");
  Value arena = func.getArguments().back();

  SmallVector<Attribute> planAttrs;
  for (auto [buffer, offset] : llvm::zip_equal(buffers, plan.offsets)) {
    memref::AllocOp alloc = buffer.alloc;
    LLVM_DEBUG(llvm::dbgs() << "placing " << alloc << ": " << buffer.lifetime.bytes
                            << " bytes, live [" << buffer.lifetime.first << ", "
                            << buffer.lifetime.last << "] at " << offset
                            << "\n");
    planAttrs.push_back(builder.getDictionaryAttr({
        builder.getNamedAttr("offset", builder.getI64IntegerAttr(offset)),
        builder.getNamedAttr("bytes",
                             builder.getI64IntegerAttr(buffer.lifetime.bytes)),
        builder.getNamedAttr("first",
                             builder.getI64IntegerAttr(buffer.lifetime.first)),
        builder.getNamedAttr("last",
                             builder.getI64IntegerAttr(buffer.lifetime.last)),
    }));
    for (memref::DeallocOp dealloc : buffer.deallocs)
      dealloc.erase();
    builder.setInsertionPoint(alloc);
    Value byteShift =
        arith::ConstantIndexOp::create(builder, alloc.getLoc(), offset);
    auto view = memref::ViewOp::create(builder, alloc.getLoc(), alloc.getType(),
                                       arena, byteShift,
                                       alloc.getDynamicSizes());
    alloc.replaceAllUsesWith(view.getResult());
    alloc.erase();
  }
  func->setAttr(kMemoryPlanAttr, builder.getArrayAttr(planAttrs));
  func->setAttr(kArenaSizeAttr, builder.getI64IntegerAttr(plan.arenaBytes));
  return plan.arenaBytes;
}

void PlanMemoryPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (alignment == 0 || !llvm::isPowerOf2_64(alignment)) {
    module.emitError("tcc-plan-memory: alignment must be a power of two, got ")
        << alignment.getValue();
    return signalPassFailure();
  }
  auto symbols = module->getAttrOfType<DictionaryAttr>(kSymbolsAttr);
  if (!symbols && module->hasAttr(kSymbolsAttr)) {
    module.emitError("'") << kSymbolsAttr << "' must be a dictionary";
    return signalPassFailure();
  }

  uint64_t arenaBytes = 0;
  bool ok = true;
  for (func::FuncOp func : module.getOps<func::FuncOp>()) {
    if (func.isDeclaration())
      continue;
    // Already planned (the pass ran before): leave it alone.
    bool hasArena = llvm::any_of(
        llvm::seq<unsigned>(0, func.getNumArguments()),
        [&](unsigned i) { return func.getArgAttr(i, tcc::kArenaAttrName) != nullptr; });
    if (hasArena) {
      if (auto size = func->getAttrOfType<IntegerAttr>(kArenaSizeAttr))
        arenaBytes = std::max<uint64_t>(arenaBytes, size.getInt());
      continue;
    }
    FailureOr<uint64_t> bytes = planFunction(func, symbols);
    if (failed(bytes)) {
      ok = false;
      continue;
    }
    arenaBytes = std::max(arenaBytes, *bytes);
  }
  if (!ok)
    return signalPassFailure();
  module->setAttr(kArenaSizeAttr,
                  IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                   arenaBytes));
}

} // namespace
