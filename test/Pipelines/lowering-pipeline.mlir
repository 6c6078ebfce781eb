// RUN: tcc-opt %s -tcc-lowering-pipeline='targets=cpu,cuda' | FileCheck %s

// One pipeline lowers both paths of a planned module (what tcc compile runs
// after memory planning): the CPU path's GEMM becomes an outlined loop nest,
// the CUDA path's a tcc_gemm call on the caller's stream; the host code of
// both is LLVM dialect.
// CHECK-DAG:   llvm.func @forward_kernel_0(
// CHECK-DAG:   llvm.func @forward(
// CHECK-DAG:   llvm.func @forward_cuda({{.*}}!llvm.ptr {tcc.stream})
// CHECK-DAG:   llvm.call @tcc_gemm(
// CHECK-DAG:   llvm.func @tcc_gemm(i32, i32, i64, i64, i64, i64, i64, !llvm.ptr
// CHECK-NOT:   tcc_kernel.
func.func @forward(%x: memref<4x8xf32>, %w: memref<16x8xf32>, %y: memref<4x16xf32>, %arena: memref<?xi8> {tcc.arena}) {
  tcc_kernel.gemm ins(%x, %w : memref<4x8xf32>, memref<16x8xf32>) outs(%y : memref<4x16xf32>) transpose_b
  return
}
