//===- GpuConventions.h - names and sizes shared by the CUDA passes -------===//
//
// Kept with the passes that use them (lib/Transforms) so that Transforms does
// not depend on Pipelines; the CUDA pipeline includes this header too.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_TRANSFORMS_GPUCONVENTIONS_H
#define TCC_TRANSFORMS_GPUCONVENTIONS_H

namespace tcc {

/// Name of the host function the CUDA pipeline leaves: the planned `forward`
/// with a trailing `!llvm.ptr` stream argument.
constexpr const char *kCudaForwardName = "forward_cuda";

/// Threads per block of every generated kernel.
constexpr int kCudaBlockSize = 256;

/// Bytes of parameters a kernel may take in the PTX tcc emits (ISA 8.0;
/// ptxas refuses more, and the driver only finds out when it loads the model).
constexpr int kCudaKernelParamBytes = 4352;

} // namespace tcc

#endif // TCC_TRANSFORMS_GPUCONVENTIONS_H
