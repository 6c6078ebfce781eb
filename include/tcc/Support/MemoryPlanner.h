//===- MemoryPlanner.h - Liveness-based placement of buffers in one arena -===//
//
// Pure C++ (no MLIR): given buffers with a byte size and a live interval in
// program order, assign each an offset in one arena so that buffers whose
// lifetimes intersect never overlap in memory. Used by the `tcc-plan-memory`
// pass (dynamic sizes at their upper bound, lib/Transforms/SizeBounds.h).
//
//===----------------------------------------------------------------------===//

#ifndef TCC_SUPPORT_MEMORYPLANNER_H
#define TCC_SUPPORT_MEMORYPLANNER_H

#include <cstdint>
#include <vector>

namespace tcc {

/// One buffer to place: `bytes` long, live at positions [first, last]
/// (inclusive, in program order). Two buffers conflict when their intervals
/// share at least one position.
struct BufferLifetime {
  uint64_t bytes = 0;
  int64_t first = 0;
  int64_t last = 0;
};

/// Where each buffer lives in the arena.
struct MemoryPlan {
  /// `offsets[i]` is the byte offset of buffer `i` (input order); a multiple
  /// of the alignment the plan was made with.
  std::vector<uint64_t> offsets;
  /// Bytes the arena needs: the largest `offset + bytes` (0 when empty).
  uint64_t arenaBytes = 0;
};

/// Places buffers greedily by size (TFLite's greedy-by-size, IREE's
/// `stream.resource.pack`): largest first, ties broken by earlier `first`,
/// then by input index; each buffer goes to the lowest `alignment`-aligned
/// offset that overlaps no already-placed buffer whose lifetime intersects
/// its own. Deterministic. `alignment` must be a power of two. Zero-byte
/// buffers get offset 0 and conflict with nothing.
MemoryPlan planMemoryGreedyBySize(const std::vector<BufferLifetime> &buffers,
                                  uint64_t alignment = 64);

/// True when `plan` is valid for `buffers`: one aligned offset per buffer, no
/// two buffers with intersecting lifetimes overlapping in memory, and every
/// buffer inside `arenaBytes`. Meant for tests and assertions.
bool isValidMemoryPlan(const std::vector<BufferLifetime> &buffers,
                       const MemoryPlan &plan, uint64_t alignment = 64);

} // namespace tcc

#endif // TCC_SUPPORT_MEMORYPLANNER_H
