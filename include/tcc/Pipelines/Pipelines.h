//===- Pipelines.h - tcc's pass pipelines, phase by phase -----------------===//
#ifndef TCC_PIPELINES_PIPELINES_H
#define TCC_PIPELINES_PIPELINES_H

#include "tcc/Pipelines/Options.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace tcc {
/// Imported operators → typed tcc_graph ops, cleaned up.
void buildGraphPassPipeline(mlir::OpPassManager &pm, const CompileOptions &options);
/// Kernel formation: tcc_graph ops → tcc_kernel ops where a kernel takes them.
void buildKernelPassPipeline(mlir::OpPassManager &pm, const CompileOptions &options);
/// tcc_graph → linalg on tensors, with pointwise chains fused.
void buildLinalgPassPipeline(mlir::OpPassManager &pm, const CompileOptions &options);
/// Tensors → buffers with outputs as out-params.
void buildBufferizePassPipeline(mlir::OpPassManager &pm, const CompileOptions &options);
/// Every intermediate buffer placed in one arena.
void buildPlanningPassPipeline(mlir::OpPassManager &pm, const CompileOptions &options);
/// Loops and the LLVM dialect, ready to translate for the host CPU.
void buildCpuToLLVMPassPipeline(mlir::OpPassManager &pm, const CompileOptions &options);
/// All phases up to and including `last`.
void buildCompilePassPipeline(mlir::OpPassManager &pm, const CompileOptions &options,
                              CompilePhase last);
/// Registers `tcc-compile-pipeline` (all phases) for tcc-opt.
void registerTccPipelines();
} // namespace tcc

#endif // TCC_PIPELINES_PIPELINES_H
