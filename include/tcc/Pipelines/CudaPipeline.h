//===- CudaPipeline.h - the CUDA path's lowering, after tcc-split-targets --===//
//
// The CUDA half of the lowering: in `forward_cuda`, every tcc_kernel op
// becomes a runtime call and every other linalg op one kernel (a 1-D grid of
// 256-thread blocks over its collapsed parallel dimensions), compiled to PTX
// for `--arch`; `forward_cuda` launches them on a stream it takes as its
// last argument. See docs/ARTIFACT.md for the entry symbol built around it.
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

/// The CUDA path's functions (tcc.target = "cuda", after tcc-split-targets):
/// kernel-layer ops → runtime calls, the other kernels → gpu.launch → PTX in
/// a `gpu.binary`; the host side is left to the shared LLVM tail
/// (buildHostLLVMPassPipeline).
void buildCudaLoweringPassPipeline(mlir::OpPassManager &pm, const CompileOptions &options);

/// The GPU and NVVM dialects and the interfaces the CUDA pipeline needs.
void registerCudaDialects(mlir::DialectRegistry &registry);

/// Upstream's GPU passes and the `tcc-cuda-pipeline` pipeline, for tcc-opt
/// (the tcc-gpu-* passes come with registerTccTransformsPasses()).
void registerCudaPasses();

/// The PTX text of every `gpu.binary` in `module` (one per binary, in order).
std::vector<std::string> collectPtx(mlir::ModuleOp module);

} // namespace tcc

#endif // TCC_PIPELINES_CUDAPIPELINE_H
