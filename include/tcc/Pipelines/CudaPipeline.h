//===- CudaPipeline.h - the planned memref program to PTX kernels ---------===//
//
// The CUDA half of the compile pipeline: after tcc-plan-memory, every linalg
// op becomes one kernel (a 1-D grid of 256-thread blocks over its collapsed
// parallel dimensions), the kernels are compiled to PTX for `--arch`, and the
// host function `forward_cuda` launches them on a stream it takes as its last
// argument. See docs/ARTIFACT.md for the entry symbol built around it.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_PIPELINES_CUDAPIPELINE_H
#define TCC_PIPELINES_CUDAPIPELINE_H

#include "tcc/Pipelines/Options.h"
#include "tcc/Transforms/GpuConventions.h"

#include "mlir/Support/LogicalResult.h"

#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class ModuleOp;
class OpPassManager;
} // namespace mlir

namespace tcc {

/// Planned memref program → host LLVM dialect with embedded PTX (a
/// `gpu.binary`), ready for HostObjectEmitter.
void buildCudaToLLVMPassPipeline(mlir::OpPassManager &pm, const CompileOptions &options);

/// The GPU and NVVM dialects and the interfaces the CUDA pipeline needs.
void registerCudaDialects(mlir::DialectRegistry &registry);

/// Upstream's GPU passes and the `tcc-cuda-pipeline` pipeline, for tcc-opt
/// (the tcc-gpu-* passes come with registerTccTransformsPasses()).
void registerCudaPasses();

/// Moves the host code of `cuda` (lowered by the CUDA pipeline) into `into`
/// (lowered by the CPU pipeline), renaming clashing symbols of `cuda`.
mlir::LogicalResult mergeCudaHostModule(mlir::ModuleOp into, mlir::ModuleOp cuda);

/// The PTX text of every `gpu.binary` in `module` (one per binary, in order).
std::vector<std::string> collectPtx(mlir::ModuleOp module);

} // namespace tcc

#endif // TCC_PIPELINES_CUDAPIPELINE_H
