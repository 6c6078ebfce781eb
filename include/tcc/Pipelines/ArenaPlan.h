//===- ArenaPlan.h - the memory plan recorded on a planned module ---------===//
#ifndef TCC_PIPELINES_ARENAPLAN_H
#define TCC_PIPELINES_ARENAPLAN_H

#include "tcc/Target/ManifestBuilder.h"

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace tcc {

/// The arena plan tcc-plan-memory recorded on the module (`tcc.arena_size`)
/// and its entry (`tcc.memory_plan`): the arena's bytes and every buffer's
/// offset, size and first/last step.
PlannedArena readArenaPlan(mlir::ModuleOp module);

/// The most bytes live at once: the largest sum of the sizes of the buffers
/// whose [first, last] steps overlap. The arena is at least this; the rest
/// is what the placement could not pack.
int64_t peakLiveBytes(const PlannedArena &plan);

} // namespace tcc

#endif // TCC_PIPELINES_ARENAPLAN_H
