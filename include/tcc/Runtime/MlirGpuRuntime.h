//===- MlirGpuRuntime.h - errors of the mgpu* calls in generated code -----===//
//
// lib/Runtime/MlirGpuRuntime.cpp implements the `mgpu*` C functions that
// MLIR's gpu-to-llvm host code calls. They cannot return errors to the
// generated code, so they record the first one per thread; the runtime reads
// it after each call of the CUDA entry.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_MLIRGPURUNTIME_H
#define TCC_RUNTIME_MLIRGPURUNTIME_H

#include <string>

namespace tcc {

/// The first failure of a kernel load or launch on this thread since the last
/// call ("" if none), and clears it.
std::string takeKernelLaunchError();

} // namespace tcc

#endif // TCC_RUNTIME_MLIRGPURUNTIME_H
