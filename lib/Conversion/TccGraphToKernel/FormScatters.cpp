//===- FormScatters.cpp - index_copy as one scatter kernel ----------------===//
//
// Every tcc_graph.index_copy becomes a tcc_kernel.scatter whose init is the
// tensor written: bufferized, it writes the copied slices into that
// tensor's buffer and nothing else (a key/value cache that is the model's
// state is updated where it lies). The index check's message names the
// op's source line. A source that is a chain of slices, reshapes and
// transposes of another tensor (a value projection viewed per head, then
// swapped to [B, H, L, D]) is read through that view (`source_views`): the
// scatter's loops index through strides, so the view is not copied first.
//
// Scatters at one index (a decoder layer's key and value caches, written at
// the step's positions) become one scatter of several tensors: one kernel
// where there were two.
//
//===----------------------------------------------------------------------===//
#include "FormKernels.h"
#include "StridedViews.h"

#include "dialects/TccGraph/IR/SourceLocation.h"
#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccKernel/IR/TccKernelOps.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace tcc;

namespace {

/// Whether `v` is computed from `result` (`result`'s op is in v's block,
/// before it): its defining ops are followed back to the first op after
/// `result`'s.
bool dependsOn(Value v, Value result) {
  Operation *origin = result.getDefiningOp();
  SmallVector<Value> work = {v};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (x == result)
      return true;
    Operation *def = x.getDefiningOp();
    if (!def || def->getBlock() != origin->getBlock() || !origin->isBeforeInBlock(def) ||
        !seen.insert(def).second)
      continue;
    for (Value operand : def->getOperands())
      work.push_back(operand);
    // Values used inside the op's regions count too.
    def->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        work.push_back(operand);
    });
  }
  return false;
}

/// Whether `later` can take `earlier`'s tensors: one index and dim, one
/// source shape and init size along dim, neither reading what the other
/// writes, `later` computed without `earlier`'s results, and every user of
/// those after `later` (where the merged op will be).
bool canMerge(kernel::ScatterOp earlier, kernel::ScatterOp later) {
  if (earlier.getIndex() != later.getIndex() || earlier.getDim() != later.getDim() ||
      earlier.getSourceShape() != later.getSourceShape() ||
      earlier->getBlock() != later->getBlock())
    return false;
  int64_t dim = earlier.getDim();
  auto sizeAlong = [&](Value init) { return cast<ShapedType>(init.getType()).getDimSize(dim); };
  int64_t size = sizeAlong(earlier.getInits().front());
  if (ShapedType::isDynamic(size) || sizeAlong(later.getInits().front()) != size)
    return false;
  for (Value init : later.getInits())
    if (llvm::is_contained(earlier.getSources(), init) ||
        llvm::is_contained(earlier.getInits(), init))
      return false;
  for (Value init : earlier.getInits())
    if (llvm::is_contained(later.getSources(), init))
      return false;
  for (Value result : earlier->getResults())
    for (Operation *user : result.getUsers()) {
      Operation *at = later->getBlock()->findAncestorOpInBlock(*user);
      if (!at || !later->isBeforeInBlock(at))
        return false;
    }
  for (Value result : earlier->getResults())
    for (Value operand : later->getOperands())
      if (dependsOn(operand, result))
        return false;
  return true;
}

/// One scatter of `earlier`'s tensors and then `later`'s, at `later`.
kernel::ScatterOp merge(kernel::ScatterOp earlier, kernel::ScatterOp later) {
  OpBuilder b(later);
  SmallVector<Value> sources(earlier.getSources()), inits(earlier.getInits());
  llvm::append_range(sources, later.getSources());
  llvm::append_range(inits, later.getInits());
  ArrayAttr views;
  if (earlier.getSourceViewsAttr() || later.getSourceViewsAttr()) {
    SmallVector<Attribute> entries;
    for (kernel::ScatterOp op : {earlier, later})
      for (unsigned t = 0; t < op.getSources().size(); ++t) {
        DictionaryAttr view = op.getSourceView(t);
        entries.push_back(view ? Attribute(view) : Attribute(b.getUnitAttr()));
      }
    views = b.getArrayAttr(entries);
  }
  SmallVector<Type> types(earlier->getResultTypes());
  llvm::append_range(types, later->getResultTypes());
  // The first write's message: PyTorch fails there, at the first index_copy.
  auto merged = kernel::ScatterOp::create(
      b, b.getFusedLoc({earlier.getLoc(), later.getLoc()}), types, sources,
      earlier.getIndex(), inits, earlier.getDimAttr(), earlier.getMessageAttr(), views);
  unsigned n = earlier->getNumResults();
  earlier->replaceAllUsesWith(merged->getResults().take_front(n));
  later->replaceAllUsesWith(merged->getResults().drop_front(n));
  earlier->erase();
  later->erase();
  return merged;
}

} // namespace

void tcc::formation::formScatterKernels(func::FuncOp func) {
  SmallVector<graph::IndexCopyOp> ops;
  func.walk([&](graph::IndexCopyOp op) { ops.push_back(op); });
  SmallVector<kernel::ScatterOp> scatters;
  for (graph::IndexCopyOp op : ops) {
    OpBuilder b(op);
    std::string where = graph::formatSourceLocation(op.getLoc());
    std::string message = (where.empty() ? std::string() : where + ": ") + op.getMessage().str();
    Value source = op.getSource();
    // Not a view of the tensor written: the copy keeps the read apart from
    // the writes.
    std::optional<StridedView> view = viewOfProducers(source);
    if (view && view->base == op.getSelf())
      view.reset();
    ArrayAttr views;
    if (view) {
      source = view->base;
      views = b.getArrayAttr({viewAttr(b, *view)});
    }
    auto scatter = kernel::ScatterOp::create(
        b, op.getLoc(), TypeRange{op.getType()}, ValueRange{source}, op.getIndex(),
        ValueRange{op.getSelf()}, b.getI64IntegerAttr(op.getDim()), b.getStringAttr(message),
        views);
    op.replaceAllUsesWith(scatter.getResult(0));
    op.erase();
    scatters.push_back(scatter);
    // The views only the scatter read go with it.
    if (view)
      eraseDead(view->chain);
  }
  // Scatters at one index, in program order, each joined into the group
  // before it where it can be.
  SmallVector<kernel::ScatterOp> groups;
  for (kernel::ScatterOp scatter : scatters) {
    bool joined = false;
    for (kernel::ScatterOp &group : llvm::reverse(groups))
      if (canMerge(group, scatter)) {
        group = merge(group, scatter);
        joined = true;
        break;
      }
    if (!joined)
      groups.push_back(scatter);
  }
}
