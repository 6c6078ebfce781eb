//===- KernelLaunch.h - every kernel launch of the runtime ----------------===//
//
// The generated kernels (MlirGpuRuntime.cpp) and the kernel library's
// (KernelLibrary.cpp) are launched here. A kernel whose image promises to
// wait for the previous grid itself (GridDependency.h) is launched with
// programmatic stream serialization: the driver may schedule it while the
// kernel before it runs, which hides the launch's latency and lets it fetch
// constant weights into L2 meanwhile (a decode step is ~190 dependent
// kernels of a few microseconds). On by default; TCC_OVERLAP_LAUNCHES=0 or
// 1 turns this off or on for the process.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_KERNELLAUNCH_H
#define TCC_RUNTIME_KERNELLAUNCH_H

#include "tcc/Runtime/CudaDriver.h"

namespace tcc::cuda {

/// A launch's shape: grid and block dimensions, dynamic shared memory.
struct LaunchShape {
  unsigned gridX = 1, gridY = 1, gridZ = 1;
  unsigned blockX = 1, blockY = 1, blockZ = 1;
  unsigned sharedBytes = 0;
};

/// cuLaunchKernel, or cuLaunchKernelEx with programmatic stream
/// serialization where `function`'s image awaits the previous grid and the
/// switch is on. Returns the driver's result.
CUresult launchKernel(const Driver &d, CUfunction function, const LaunchShape &shape,
                      CUstream stream, void **params);

} // namespace tcc::cuda

#endif // TCC_RUNTIME_KERNELLAUNCH_H
