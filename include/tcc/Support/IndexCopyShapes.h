//===- IndexCopyShapes.h - the shapes an index_copy takes -----------------===//
//
// One rule for tcc_graph.index_copy and tcc_kernel.scatter, which verify it
// at either end of kernel formation: a 1-D index of k positions along `dim`
// of self, and a source of self's shape with k at `dim` (dynamic sizes
// match anything).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_INDEXCOPYSHAPES_H
#define TCC_SUPPORT_INDEXCOPYSHAPES_H

#include "mlir/IR/BuiltinTypes.h"

#include <string>

namespace tcc {

/// Why (self, index, source) along `dim` is no index_copy, or "" when it is.
inline std::string indexCopyShapeError(llvm::ArrayRef<int64_t> self,
                                       llvm::ArrayRef<int64_t> index,
                                       llvm::ArrayRef<int64_t> source, int64_t dim) {
  auto same = [](int64_t a, int64_t b) {
    return a == b || mlir::ShapedType::isDynamic(a) || mlir::ShapedType::isDynamic(b);
  };
  if (dim < 0 || dim >= static_cast<int64_t>(self.size()))
    return "dim " + std::to_string(dim) + " is out of range for rank " +
           std::to_string(self.size());
  if (index.size() != 1)
    return "the index must be 1-D, got rank " + std::to_string(index.size());
  if (source.size() != self.size())
    return "the source must have self's rank " + std::to_string(self.size());
  for (size_t i = 0; i < self.size(); ++i)
    if (!same(source[i], static_cast<int64_t>(i) == dim ? index[0] : self[i]))
      return "source dim " + std::to_string(i) + " must be " +
             (static_cast<int64_t>(i) == dim ? "the index's length" : "self's");
  return "";
}

} // namespace tcc

#endif // TCC_SUPPORT_INDEXCOPYSHAPES_H
