//===- KernelCost.h - what one kernel computes and moves, at compile time -===//
//
// The roofline's numbers for one kernel op of the planned entry (issue 41):
// its floating-point operations (a multiply-add is two) and the bytes it
// must move at least once (every operand read once, every result written
// once). `tcc inspect` lists them, `tcc run --profile` divides them by the
// measured times, and scripts/gpu_model_benchmark.py sets a model's sum
// against the GPU's measured peak and bandwidth.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_PIPELINES_KERNELCOST_H
#define TCC_PIPELINES_KERNELCOST_H

#include <cstdint>

namespace mlir {
class Operation;
} // namespace mlir

namespace tcc {

struct KernelCost {
  /// -1: not known at compile time (a symbolic size), or, for flops, not
  /// counted for this kind (row kernels: their few operations per element
  /// make them memory-bound whatever the count).
  int64_t flops = -1;
  int64_t bytes = -1;
};

/// The cost of a kernel op (tcc::isKernelOp) on memrefs of the planned entry.
KernelCost kernelCost(mlir::Operation *op);

} // namespace tcc

#endif // TCC_PIPELINES_KERNELCOST_H
