//===- StridedViews.cpp - chains of views as one strided view --------------===//
//
// The view is kept over "refined" dims: the finest dims that every shape of
// the chain is a grouping of. Each logical dim of the current shape is a run
// of refined dims (row-major within the run). A transpose reorders runs; a
// reshape regroups them, first splitting a refined dim where a new dim
// boundary falls inside it (a split of a strided dim is always a view); a
// slice takes a range of a run's outermost refined dim. At the end every run
// must fold into one (size, stride), else the chain is no strided view.
//
//===----------------------------------------------------------------------===//
#include "StridedViews.h"

#include "FormKernels.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"

using namespace mlir;
using namespace tcc::formation;
namespace graph = tcc::graph;

namespace {

struct Dim {
  int64_t size, stride;
};

/// The state of the composition: runs of refined dims, in logical order.
struct Refined {
  SmallVector<SmallVector<Dim>> runs;
  int64_t offset = 0;

  static Refined contiguous(ArrayRef<int64_t> shape) {
    Refined r;
    int64_t stride = 1;
    r.runs.resize(shape.size());
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      r.runs[d].push_back({shape[d], stride});
      stride *= shape[d];
    }
    return r;
  }

  bool transpose(ArrayRef<int64_t> perm) {
    SmallVector<SmallVector<Dim>> next;
    for (int64_t p : perm)
      next.push_back(runs[p]);
    runs = std::move(next);
    return true;
  }

  /// Regroups into `shape`, splitting refined dims where needed.
  bool reshape(ArrayRef<int64_t> shape) {
    SmallVector<Dim> flat;
    for (auto &run : runs)
      for (Dim d : run)
        if (d.size != 1)
          flat.push_back(d);
    SmallVector<SmallVector<Dim>> next;
    size_t i = 0;
    for (int64_t target : shape) {
      SmallVector<Dim> run;
      int64_t have = 1;
      while (have < target) {
        if (i == flat.size())
          return false;
        Dim d = flat[i];
        if (have * d.size <= target) {
          if (target % (have * d.size))
            return false;
          run.push_back(d);
          have *= d.size;
          ++i;
          continue;
        }
        // The boundary falls inside d: split it (outer part here, inner left).
        int64_t outer = target / have;
        if (d.size % outer)
          return false;
        int64_t inner = d.size / outer;
        run.push_back({outer, d.stride * inner});
        flat[i] = {inner, d.stride};
        have *= outer;
      }
      if (have != target)
        return false;
      next.push_back(run.empty() ? SmallVector<Dim>{{1, 0}} : run);
    }
    if (i != flat.size())
      return false;
    runs = std::move(next);
    return true;
  }

  bool slice(int64_t dim, int64_t start, int64_t size, int64_t step) {
    auto &run = runs[dim];
    SmallVector<Dim> real;
    for (Dim d : run)
      if (d.size != 1)
        real.push_back(d);
    if (real.empty()) {
      if (start != 0 || size > 1)
        return false;
      run = {{size, 0}};
      return true;
    }
    int64_t inner = 1;
    for (size_t k = 1; k < real.size(); ++k)
      inner *= real[k].size;
    if (real.size() > 1 && (step != 1 || start % inner || size % inner))
      return false;
    offset += (start / inner) * real[0].stride;
    real[0].size = real.size() > 1 ? size / inner : size;
    real[0].stride *= real.size() > 1 ? 1 : step;
    run = real;
    return true;
  }

  /// Each run as one (size, stride), if every run folds.
  std::optional<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>> fold() const {
    SmallVector<int64_t> sizes, strides;
    for (const auto &run : runs) {
      int64_t size = 1, stride = 0;
      bool first = true;
      for (auto it = run.rbegin(); it != run.rend(); ++it) {
        if (it->size == 1)
          continue;
        if (first) {
          size = it->size;
          stride = it->stride;
          first = false;
        } else if (it->stride == stride * size) {
          size *= it->size;
        } else {
          return std::nullopt;
        }
      }
      sizes.push_back(size);
      strides.push_back(size == 1 ? 0 : stride);
    }
    return std::make_pair(sizes, strides);
  }
};

bool staticShape(Value v) { return typeOf(v).hasStaticShape(); }

/// Applies `op` (producer to consumer direction) to the composition.
bool apply(Refined &r, Operation *op) {
  if (auto t = dyn_cast<graph::TransposeOp>(op))
    return r.transpose(t.getPermutation());
  if (auto reshape = dyn_cast<graph::ReshapeOp>(op))
    return reshape.getDynamicSizes().empty() && r.reshape(typeOf(reshape.getResult()).getShape());
  if (auto s = dyn_cast<graph::SliceOp>(op)) {
    if (!s.getDynamicSizes().empty())
      return false;
    return r.slice(s.getDim(), s.getStart(), typeOf(s.getResult()).getShape()[s.getDim()],
                   s.getStep());
  }
  return false;
}

bool isViewOp(Operation *op) {
  return op && isa<graph::TransposeOp, graph::ReshapeOp, graph::SliceOp>(op) &&
         staticShape(op->getOperand(0)) && staticShape(op->getResult(0));
}

} // namespace

std::optional<StridedView> tcc::formation::viewOfProducers(Value v) {
  if (!staticShape(v))
    return std::nullopt;
  SmallVector<Operation *> chain;
  Value base = v;
  while (isViewOp(base.getDefiningOp())) {
    chain.push_back(base.getDefiningOp());
    base = base.getDefiningOp()->getOperand(0);
  }
  // Compose from the base forward; on failure, retry from a later base.
  while (!chain.empty()) {
    Refined r = Refined::contiguous(typeOf(base).getShape());
    bool ok = true;
    for (Operation *op : llvm::reverse(chain))
      ok = ok && apply(r, op);
    if (ok)
      if (auto folded = r.fold()) {
        StridedView view{base, folded->first, folded->second, r.offset, {}};
        view.chain.assign(chain.rbegin(), chain.rend());
        return view;
      }
    base = chain.back()->getResult(0);
    chain.pop_back();
  }
  return std::nullopt;
}

DictionaryAttr tcc::formation::viewAttr(OpBuilder &b, const StridedView &view) {
  return b.getDictionaryAttr({b.getNamedAttr("sizes", b.getDenseI64ArrayAttr(view.sizes)),
                              b.getNamedAttr("strides", b.getDenseI64ArrayAttr(view.strides)),
                              b.getNamedAttr("offset", b.getI64IntegerAttr(view.offset))});
}

std::optional<StridedView> tcc::formation::viewInConsumers(Value v) {
  if (!staticShape(v))
    return std::nullopt;
  // The reshapes/transposes the value flows through, each its input's only user.
  SmallVector<Operation *> chain;
  Value last = v;
  while (last.hasOneUse()) {
    Operation *user = *last.getUsers().begin();
    if (!isa<graph::TransposeOp, graph::ReshapeOp>(user) || !isViewOp(user))
      break;
    chain.push_back(user);
    last = user->getResult(0);
  }
  // v = inverse(chain)(last): undo the ops from the last one back.
  while (!chain.empty()) {
    Refined r = Refined::contiguous(typeOf(last).getShape());
    bool ok = true;
    for (Operation *op : llvm::reverse(chain)) {
      if (auto t = dyn_cast<graph::TransposeOp>(op)) {
        SmallVector<int64_t> inverse(t.getPermutation().size());
        for (auto [i, p] : llvm::enumerate(t.getPermutation()))
          inverse[p] = i;
        ok = ok && r.transpose(inverse);
      } else {
        ok = ok && r.reshape(typeOf(op->getOperand(0)).getShape());
      }
    }
    if (ok)
      if (auto folded = r.fold())
        return StridedView{last, folded->first, folded->second, r.offset, chain};
    chain.pop_back();
    last = chain.empty() ? v : chain.back()->getResult(0);
  }
  return std::nullopt;
}

void tcc::formation::foldContiguousViews(func::FuncOp func) {
  SmallVector<graph::TransposeOp> transposes;
  func.walk([&](graph::TransposeOp op) { transposes.push_back(op); });
  // Program order: a fold erases only producers, which were visited already.
  for (graph::TransposeOp op : transposes) {
    std::optional<StridedView> view = viewOfProducers(op.getResult());
    if (!view || view->offset != 0 || typeOf(view->base).getNumElements() != typeOf(op.getResult()).getNumElements())
      continue;
    int64_t expected = 1;
    bool contiguous = true;
    for (int64_t d = static_cast<int64_t>(view->sizes.size()) - 1; d >= 0; --d) {
      if (view->sizes[d] == 1)
        continue;
      contiguous = contiguous && view->strides[d] == expected;
      expected *= view->sizes[d];
    }
    if (!contiguous)
      continue;
    OpBuilder b(op);
    Value flat = reshapeTo(b, op.getLoc(), view->base, typeOf(op.getResult()).getShape());
    op.getResult().replaceAllUsesWith(flat);
    SmallVector<Operation *> chain = view->chain;
    eraseDead(chain);
  }
}
