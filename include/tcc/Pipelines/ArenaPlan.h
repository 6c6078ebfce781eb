//===- ArenaPlan.h - the memory plan recorded on a planned module ---------===//
#ifndef TCC_PIPELINES_ARENAPLAN_H
#define TCC_PIPELINES_ARENAPLAN_H

#include "tcc/Target/ManifestBuilder.h"

#include <string>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace tcc {

/// The arena plan tcc-plan-memory recorded on the module (`tcc.arena_size`)
/// and its entry (`tcc.memory_plan`): the arena's bytes and every buffer's
/// offset, size and first/last step.
PlannedArena readArenaPlan(mlir::ModuleOp module);

/// The largest arena tcc plans (at the symbols' upper bounds): 256 GiB, more
/// than any GPU or usual host holds.
inline constexpr int64_t kMaxArenaBytes = int64_t(256) << 30;

/// The error when `plan` needs more than kMaxArenaBytes at the largest sizes
/// `program` allows (an artifact that could never allocate its arena would
/// compile and fail on every call), else "".
std::string arenaLimitError(const PlannedArena &plan, const frontend::ExportedProgram &program);

/// The most bytes live at once: the largest sum of the sizes of the buffers
/// whose [first, last] steps overlap. The arena is at least this; the rest
/// is what the placement could not pack.
int64_t peakLiveBytes(const PlannedArena &plan);

} // namespace tcc

#endif // TCC_PIPELINES_ARENAPLAN_H
