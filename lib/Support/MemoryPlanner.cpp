//===- MemoryPlanner.cpp - Liveness-based placement of buffers ------------===//

#include "tcc/Support/MemoryPlanner.h"

#include <algorithm>
#include <cassert>
#include <numeric>

namespace tcc {

static uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

static bool livesIntersect(const BufferLifetime &a, const BufferLifetime &b) {
  return a.first <= b.last && b.first <= a.last;
}

MemoryPlan planMemoryGreedyBySize(const std::vector<BufferLifetime> &buffers,
                                  uint64_t alignment) {
  assert(alignment != 0 && (alignment & (alignment - 1)) == 0 &&
         "alignment must be a power of two");
  MemoryPlan plan;
  plan.offsets.assign(buffers.size(), 0);

  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].bytes != buffers[b].bytes)
      return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].first < buffers[b].first;
  });

  // Placed buffers, kept sorted by offset so the gaps can be scanned in order.
  std::vector<size_t> placed;
  std::vector<size_t> conflicts;
  for (size_t id : order) {
    const BufferLifetime &buffer = buffers[id];
    assert(buffer.first <= buffer.last && "live interval must not be empty");
    if (buffer.bytes == 0)
      continue;

    conflicts.clear();
    for (size_t other : placed)
      if (livesIntersect(buffer, buffers[other]))
        conflicts.push_back(other);

    // Lowest aligned offset whose [offset, offset + bytes) misses every
    // conflicting buffer; `conflicts` is in offset order.
    uint64_t offset = 0;
    for (size_t other : conflicts) {
      uint64_t otherBegin = plan.offsets[other];
      uint64_t otherEnd = otherBegin + buffers[other].bytes;
      if (offset + buffer.bytes <= otherBegin)
        break;
      offset = std::max(offset, alignUp(otherEnd, alignment));
    }
    plan.offsets[id] = offset;
    plan.arenaBytes = std::max(plan.arenaBytes, offset + buffer.bytes);

    auto pos = std::upper_bound(
        placed.begin(), placed.end(), id, [&](size_t a, size_t b) {
          return plan.offsets[a] < plan.offsets[b];
        });
    placed.insert(pos, id);
  }
  return plan;
}

bool isValidMemoryPlan(const std::vector<BufferLifetime> &buffers,
                       const MemoryPlan &plan, uint64_t alignment) {
  if (plan.offsets.size() != buffers.size())
    return false;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (plan.offsets[i] % alignment != 0)
      return false;
    if (buffers[i].bytes != 0 &&
        plan.offsets[i] + buffers[i].bytes > plan.arenaBytes)
      return false;
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      if (buffers[i].bytes == 0 || buffers[j].bytes == 0 ||
          !livesIntersect(buffers[i], buffers[j]))
        continue;
      bool disjoint = plan.offsets[i] + buffers[i].bytes <= plan.offsets[j] ||
                      plan.offsets[j] + buffers[j].bytes <= plan.offsets[i];
      if (!disjoint)
        return false;
    }
  }
  return true;
}

} // namespace tcc
