//===- KernelLibrary.h - tcc's own CUDA kernels, embedded in the runtime --===//
//
// What tcc writes by hand rather than generates or borrows: the kernels of
// lib/Runtime/Kernels, one image per .cu file (the list: KernelImages.def),
// such as fused attention (Kernels/Attention.cu) and the row kernels
// (Kernels/Rows.cu). nvcc compiles
// each .cu file when tcc is built into one fatbin (sm_80 and sm_90 machine
// code, compute_80 PTX for later GPUs), which is embedded in the runtime and
// loaded into a CUDA context by the first launch there (LazyCudaModule).
//
// The launchers (AttentionKernels.cpp, RowKernels.cpp, ...) expose C functions
// that the generated host code calls (their ABI is in AttentionKernels.h and
// RowKernels.h); like tcc_gemm they cannot return errors, so a failure is
// recorded with recordKernelLaunchError and reported when the entry returns.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_KERNELLIBRARY_H
#define TCC_RUNTIME_KERNELLIBRARY_H

#include "tcc/Runtime/CudaDriver.h"

namespace tcc {

/// One embedded fatbin per source file of lib/Runtime/Kernels (the list is
/// KernelImages.def).
enum class KernelImage {
#define TCC_KERNEL_IMAGE(name, description) name,
#include "tcc/Runtime/KernelImages.def"
};

/// The kernel `name` (an `extern "C"` __global__ function) of `image` in the
/// current context, loaded on first use. Throws RuntimeError.
cuda::CUfunction kernelLibraryFunction(KernelImage image, const char *name);

/// cuLaunchKernel on `stream` (a CUstream; null is the legacy default stream).
/// Kernels asking for more than 48 KiB of dynamic shared memory get their
/// limit raised first. Throws RuntimeError naming `name`.
void launchLibraryKernel(cuda::CUfunction function, const char *name, unsigned gridX,
                         unsigned gridY, unsigned gridZ, unsigned blockX, unsigned sharedBytes,
                         void *stream, void **params);

/// The compute capability of the current context's device, e.g. 90; 0 if the
/// driver cannot say. Cached per thread and context.
int currentComputeCapability();

/// The multiprocessor count of the current context's device (0 if unknown).
int currentMultiprocessorCount();

} // namespace tcc

#endif // TCC_RUNTIME_KERNELLIBRARY_H
