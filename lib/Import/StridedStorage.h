//===- StridedStorage.h - what an aten.as_strided reads -------------------===//
//
// as_strided addresses the storage under its input, not the input's
// elements in row-major order: after a permute, a slice with a storage
// offset, on a channels_last tensor, or on another strided view, the two
// differ. The export records every value's strides and storage offset; from
// them this finds a tensor that holds each storage element the as_strided
// reads, in an order where its row-major flattening is the storage.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_IMPORT_STRIDEDSTORAGE_H
#define TCC_LIB_IMPORT_STRIDEDSTORAGE_H

#include "tcc/Frontend/ExportedProgram.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>

namespace tcc {

/// Where `as_strided(input, sizes, strides, offset)` reads from:
/// `flat(permute(tensor, storageOrder))[offset + sum_k i_k * strides[k]]`.
struct StridedSource {
  /// The graph value whose elements are read (the input or a tensor it views).
  std::string tensor;
  /// The dims of `tensor` from outermost to innermost in memory; empty when
  /// that is already its row-major order.
  llvm::SmallVector<int64_t> storageOrder;
  /// Storage offset relative to `tensor`'s first element in memory.
  int64_t offset = 0;
};

/// Resolves an as_strided on `input` (static `sizes` and `strides`; `offset`
/// absent means the input's own storage offset). `viewedBy(name)` is the
/// tensor a view operator's output `name` views, or "" for a tensor that owns
/// its storage. Fails with a message (what cannot be read and why) when no
/// tensor of the graph holds every element the as_strided reads.
llvm::Expected<StridedSource>
resolveStridedSource(const std::map<std::string, frontend::TensorMeta> &metas,
                     llvm::function_ref<std::string(const std::string &)> viewedBy,
                     const std::string &input, llvm::ArrayRef<int64_t> sizes,
                     llvm::ArrayRef<int64_t> strides, std::optional<int64_t> offset);

} // namespace tcc

#endif // TCC_LIB_IMPORT_STRIDEDSTORAGE_H
