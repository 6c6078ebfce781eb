// RUN: tcc-opt %s -tcc-split-targets='targets=cpu,cuda' | FileCheck %s --check-prefix=BOTH
// RUN: tcc-opt %s -tcc-split-targets='targets=cuda' | FileCheck %s --check-prefix=CUDA
// RUN: tcc-opt %s -tcc-split-targets | FileCheck %s --check-prefix=CPU
// RUN: not tcc-opt %s -tcc-split-targets='targets=tpu' 2>&1 | FileCheck %s --check-prefix=BAD

// The planned entry, once per target path, each marked for its lowering.
// BOTH:  func.func @forward(%{{.*}}) attributes {tcc.target = "cpu"}
// BOTH:    tcc_kernel.gemm
// BOTH:  func.func @forward_cuda(%{{.*}}) attributes {tcc.target = "cuda"}
// BOTH:    tcc_kernel.gemm
// CUDA-NOT: func.func @forward(
// CUDA:    func.func @forward_cuda(%{{.*}}) attributes {tcc.target = "cuda"}
// CPU:     func.func @forward(%{{.*}}) attributes {tcc.target = "cpu"}
// CPU-NOT: forward_cuda
// BAD:     tcc-split-targets: unknown target 'tpu' (expected cpu and/or cuda)
func.func @forward(%x: memref<4x8xf32>, %w: memref<16x8xf32>, %y: memref<4x16xf32>, %arena: memref<?xi8> {tcc.arena}) {
  tcc_kernel.gemm ins(%x, %w : memref<4x8xf32>, memref<16x8xf32>) outs(%y : memref<4x16xf32>) transpose_b
  return
}
