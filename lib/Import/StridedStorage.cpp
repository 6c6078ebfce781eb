//===- StridedStorage.cpp - what an aten.as_strided reads -----------------===//
#include "StridedStorage.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace tcc;
using namespace tcc::frontend;

namespace {

/// A tensor whose elements fill storage [offset, offset + elements) once
/// each, its dims in `order` (outermost first) being row-major there: a
/// contiguous, permuted (channels_last, a transpose's copy) or sliced-whole
/// tensor. Views with holes (a column slice), repeats (expand) or symbolic
/// sizes are not dense.
struct DenseLayout {
  int64_t offset = 0;
  int64_t elements = 1;
  llvm::SmallVector<int64_t> order;
};

std::optional<DenseLayout> denseLayout(const TensorMeta &meta) {
  DenseLayout layout;
  layout.offset = meta.storageOffset;
  size_t rank = meta.sizes.size();
  llvm::SmallVector<int64_t> unit, placed;
  for (size_t k = 0; k < rank; ++k) {
    if (!meta.sizes[k].isStatic() || !meta.strides[k].isStatic())
      return std::nullopt;
    int64_t size = *meta.sizes[k].value;
    layout.elements *= size;
    // A dim of size 1 has no extent in memory: any place in the order will do.
    (size == 1 ? unit : placed).push_back(static_cast<int64_t>(k));
  }
  if (layout.elements == 0)
    return std::nullopt;
  auto stride = [&](int64_t k) { return *meta.strides[k].value; };
  auto size = [&](int64_t k) { return *meta.sizes[k].value; };
  std::stable_sort(placed.begin(), placed.end(),
                   [&](int64_t a, int64_t b) { return stride(a) > stride(b); });
  int64_t expected = 1;
  for (int64_t k : llvm::reverse(placed)) {
    if (stride(k) != expected)
      return std::nullopt;
    expected *= size(k);
  }
  // Row-major already when the dims of extent keep their relative order.
  if (!llvm::is_sorted(placed))
    layout.order = llvm::to_vector(llvm::concat<int64_t>(unit, placed));
  return layout;
}

} // namespace

llvm::Expected<StridedSource>
tcc::resolveStridedSource(const std::map<std::string, TensorMeta> &metas,
                          llvm::function_ref<std::string(const std::string &)> viewedBy,
                          const std::string &input, llvm::ArrayRef<int64_t> sizes,
                          llvm::ArrayRef<int64_t> strides, std::optional<int64_t> offset) {
  auto fail = [](const std::string &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  auto inputMeta = metas.find(input);
  if (inputMeta == metas.end())
    return fail("no metadata for its input '" + input + "'");
  int64_t first = offset.value_or(inputMeta->second.storageOffset);
  int64_t last = first;
  for (auto [size, stride] : llvm::zip(sizes, strides)) {
    if (size == 0)
      return StridedSource{input, {}, 0};
    if (stride < 0)
      return fail("negative strides are not supported");
    last += (size - 1) * stride;
  }
  // Up the chain of views: the first tensor that holds storage [first, last]
  // densely. A view's base shares its storage, so it holds at least as much.
  for (std::string name = input; !name.empty(); name = viewedBy(name)) {
    auto meta = metas.find(name);
    if (meta == metas.end())
      break;
    std::optional<DenseLayout> layout = denseLayout(meta->second);
    if (layout && first >= layout->offset && last < layout->offset + layout->elements)
      return StridedSource{name, layout->order, first - layout->offset};
  }
  return fail("it reads storage elements " + std::to_string(first) + " to " +
              std::to_string(last) + " under '" + input +
              "', which no tensor of the graph holds whole (a view of a graph input that "
              "is itself a strided view, or storage past the viewed tensor)");
}
