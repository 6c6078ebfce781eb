//===- ArenaPlan.cpp - the memory plan recorded on a planned module -------===//
#include "tcc/Pipelines/ArenaPlan.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <algorithm>
#include <map>

using namespace mlir;

tcc::PlannedArena tcc::readArenaPlan(ModuleOp module) {
  PlannedArena plan;
  if (auto size = module->getAttrOfType<IntegerAttr>(tcc::kArenaSizeAttrName))
    plan.bytes = size.getInt();
  module.walk([&](func::FuncOp f) {
    auto buffers = f->getAttrOfType<ArrayAttr>(tcc::kMemoryPlanAttrName);
    if (!buffers)
      return;
    for (Attribute a : buffers) {
      auto d = dyn_cast<DictionaryAttr>(a);
      if (!d)
        continue;
      auto get = [&](StringRef k) {
        auto i = d.getAs<IntegerAttr>(k);
        return i ? i.getInt() : 0;
      };
      plan.buffers.push_back({get("offset"), get("bytes"), get("first"), get("last")});
    }
  });
  return plan;
}

std::string tcc::arenaLimitError(const PlannedArena &plan,
                                 const frontend::ExportedProgram &program) {
  if (plan.bytes <= kMaxArenaBytes)
    return "";
  std::string bounds;
  for (const auto &[name, range] : program.rangeConstraints)
    bounds += (bounds.empty() ? "" : ", ") + name + " <= " + std::to_string(range.max);
  return "the intermediates need " + std::to_string(plan.bytes) +
         " bytes at the largest sizes the export allows (" + bounds +
         "), more than any device holds (limit " + std::to_string(kMaxArenaBytes) +
         "); narrow the dynamic dimensions' ranges when exporting "
         "(torch.export.Dim(..., max=...))";
}

int64_t tcc::peakLiveBytes(const PlannedArena &plan) {
  // A sweep over the steps: a buffer adds its bytes at `first` and gives them
  // back after `last`.
  std::map<int64_t, int64_t> delta;
  for (const PlannedBuffer &b : plan.buffers) {
    delta[b.first] += b.bytes;
    delta[b.last + 1] -= b.bytes;
  }
  int64_t live = 0, peak = 0;
  for (const auto &[step, change] : delta) {
    live += change;
    peak = std::max(peak, live);
  }
  return peak;
}
