//===- StridedViews.h - chains of views as one strided view ----------------===//
//
// Private to tcc-form-kernels. A chain of reshapes, transposes and slices of
// a tensor moves no data in principle, but each transpose (and a reshape that
// merges non-adjacent dims) becomes a copy once lowered. When the whole chain
// is one strided view of its first tensor (its "base"), a kernel that takes
// strided operands (attention) can read the base directly: torchvision's
// multi-head attention reaches each head's query through seven such ops.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_CONVERSION_TCCGRAPHTOKERNEL_STRIDEDVIEWS_H
#define TCC_LIB_CONVERSION_TCCGRAPHTOKERNEL_STRIDEDVIEWS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tcc::formation {

/// Element i of the view is base[offset + sum_d index_d · strides[d]] of the
/// base's row-major storage.
struct StridedView {
  mlir::Value base;
  llvm::SmallVector<int64_t> sizes, strides;
  int64_t offset = 0;
  /// The ops between the base and the value (producers first).
  llvm::SmallVector<mlir::Operation *> chain;
};

/// `v` as a strided view of the earliest tensor it can be traced to through
/// tcc_graph.reshape, transpose and slice with static shapes, or nullopt
/// when no op can be looked through.
std::optional<StridedView> viewOfProducers(mlir::Value v);

/// Where the elements of `v` land when its only readers are a chain of
/// reshapes and transposes (each with one user): the last value of that chain
/// and `v` as a strided view of its row-major storage; nullopt when there is
/// no such chain.
std::optional<StridedView> viewInConsumers(mlir::Value v);

/// {sizes, strides, offset} of a view: an attention's `views` entry, a
/// scatter's `source_view`.
mlir::DictionaryAttr viewAttr(mlir::OpBuilder &b, const StridedView &view);

/// Replaces each transpose whose chain of views leaves its base's elements in
/// row-major order (transpose, reshape, transpose back) by one reshape of the
/// base: the patch embedding's NHWC → NCHW → [N, HW, C] round trip.
void foldContiguousViews(mlir::func::FuncOp func);

} // namespace tcc::formation

#endif // TCC_LIB_CONVERSION_TCCGRAPHTOKERNEL_STRIDEDVIEWS_H
