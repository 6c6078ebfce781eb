// RUN: tcc-opt %s -tcc-split-targets='targets=cpu,cuda' | FileCheck %s --check-prefix=BOTH
// RUN: tcc-opt %s -tcc-split-targets='targets=cuda' | FileCheck %s --check-prefix=CUDA
// RUN: tcc-opt %s -tcc-split-targets='targets=cpu' | FileCheck %s --check-prefix=CPU
// RUN: tcc-opt %s -tcc-split-targets='targets=cuda,cpu' | FileCheck %s --check-prefix=BOTH
// RUN: not tcc-opt %s -tcc-split-targets='targets=tpu' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tcc-opt %s -tcc-split-targets='targets=cpu,cpu' 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not tcc-opt %s -tcc-split-targets 2>&1 | FileCheck %s --check-prefix=NONE

// The planned entry, once per target path, each marked for its lowering.
// BOTH:  func.func @forward(%{{.*}}) attributes {tcc.target = "cpu"}
// BOTH:    tcc_kernel.gemm
// BOTH:  func.func @forward_cuda(%{{.*}}) attributes {tcc.target = "cuda"}
// BOTH:    tcc_kernel.gemm
// CUDA-NOT: func.func @forward(
// CUDA:    func.func @forward_cuda(%{{.*}}) attributes {tcc.target = "cuda"}
// CPU:     func.func @forward(%{{.*}}) attributes {tcc.target = "cpu"}
// CPU-NOT: forward_cuda
// The words of tcc compile's --target, read by the same parser (TargetSet).
// BAD:     for the --targets option: unknown target 'tpu'; expected cpu, cuda or several of them separated by commas (cpu,cuda)
// TWICE:   for the --targets option: target 'cpu' given twice
// No default: a test names the paths it splits.
// NONE:    error: tcc-split-targets: option 'targets' not given; expected cpu, cuda or several of them separated by commas (cpu,cuda)
func.func @forward(%x: memref<4x8xf32>, %w: memref<16x8xf32>, %y: memref<4x16xf32>, %arena: memref<?xi8> {tcc.arena}) {
  tcc_kernel.gemm ins(%x, %w : memref<4x8xf32>, memref<16x8xf32>) outs(%y : memref<4x16xf32>) transpose_b
  return
}
