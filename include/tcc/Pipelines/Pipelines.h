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
/// The CPU path's functions (tcc.target = "cpu"): outlined kernels as loops,
/// half-precision arithmetic in f32.
void buildCpuLoweringPassPipeline(mlir::OpPassManager &pm, const CompileOptions &options);
/// The host code of every path to the LLVM dialect, ready to translate.
void buildHostLLVMPassPipeline(mlir::OpPassManager &pm, const CompileOptions &options);
/// After planning: tcc-split-targets, the CUDA and CPU lowerings, the host
/// LLVM tail.
void buildLoweringPassPipeline(mlir::OpPassManager &pm, const CompileOptions &options);
/// All phases up to and including `last`.
void buildCompilePassPipeline(mlir::OpPassManager &pm, const CompileOptions &options,
                              CompilePhase last);
/// Registers `tcc-compile-pipeline` (all phases) and `tcc-lowering-pipeline`
/// (after planning) for tcc-opt, with targets/precision/arch options.
void registerTccPipelines();
} // namespace tcc

#endif // TCC_PIPELINES_PIPELINES_H
