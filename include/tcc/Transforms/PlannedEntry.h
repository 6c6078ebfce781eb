//===- PlannedEntry.h - facts about a memory-planned entry function -------===//
//
// Shared by the passes that run after tcc-plan-memory (kernel outlining and
// the GPU library calls), so they agree on what an entry is and on where its
// CUDA stream comes from.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_TRANSFORMS_PLANNEDENTRY_H
#define TCC_TRANSFORMS_PLANNEDENTRY_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tcc {

/// The argument attribute tcc-plan-memory sets on the arena it appends: one
/// i8 buffer that every intermediate is a `memref.view` of.
constexpr const char *kArenaAttrName = "tcc.arena";

/// What tcc-plan-memory records for the manifest (lib/Pipelines/ArenaPlan.cpp
/// reads them): the module's and each function's arena bytes, and each
/// function's buffers as [offset, bytes, first, last] entries.
inline constexpr llvm::StringLiteral kArenaSizeAttrName = "tcc.arena_size";
inline constexpr llvm::StringLiteral kMemoryPlanAttrName = "tcc.memory_plan";

/// The argument attribute of a CUDA entry's stream (the runtime's CUstream,
/// which every launch and library call of the entry is queued on).
inline constexpr llvm::StringLiteral kStreamAttrName = "tcc.stream";

/// True for a function with a body and a `tcc.arena` argument (one that
/// tcc-plan-memory planned).
bool isPlannedEntry(mlir::func::FuncOp f);

/// Whether two buffers may share bytes: false only where that is known, for
/// views of the arena at constant offsets (the plan gives buffers live at the
/// same time disjoint bytes) and for the arena against any other argument
/// (weights, inputs, outputs: memory of the caller's). Views through reshapes
/// and subviews count as their whole source.
bool mayShareBytes(mlir::Value a, mlir::Value b);

/// Whether `op`, an op of a planned entry's top block, is one kernel: a
/// tcc_kernel gemm, conv, attention or row op, a memref.copy, or any linalg
/// op. The kernels of an artifact are these ops in block order; their index
/// is the kernel index of the manifest's "kernels" (tcc-pipelines'
/// describeKernels) and of the profile marks (tcc-instrument-kernels), so
/// both number them with this one predicate.
bool isKernelOp(mlir::Operation *op);

/// The runtime function tcc-instrument-kernels calls before each kernel
/// (`void tcc_profile_mark(int32_t k)`, lib/Runtime/Profile.cpp).
constexpr const char *kProfileMarkFunction = "tcc_profile_mark";

/// The function attribute tcc-split-targets sets: "cpu" or "cuda", the path
/// whose lowering passes own the function (its outlined kernels inherit it).
constexpr const char *kTargetAttrName = "tcc.target";

/// Whether the CPU (CUDA) lowering owns `f`: it is marked "cpu" ("cuda"), or
/// not marked at all (a module that was not split, as in a pass's lit test).
bool isCpuFunction(mlir::func::FuncOp f);
bool isCudaFunction(mlir::func::FuncOp f);

/// The role of a bound weight on an entry argument (its role attribute is
/// the TccGraph dialect's getRoleAttrName(), which the importer sets).
/// Outlined kernels carry the weight role on the arguments their entry passes
/// a weight to (tcc-outline-kernels).
constexpr const char *kWeightRole = "weight";

/// Whether `v` is (a view of) a weight argument of its function: values that
/// change only when weights are bound, never between calls.
bool isBoundWeight(mlir::Value v);

/// The function's `tcc.stream` argument (an `!llvm.ptr` holding a CUstream),
/// appended as the last argument if it has none yet.
mlir::FailureOr<mlir::Value> streamArgument(mlir::func::FuncOp f);

} // namespace tcc

#endif // TCC_TRANSFORMS_PLANNEDENTRY_H
