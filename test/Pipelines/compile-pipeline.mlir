// RUN: tcc-opt %s -tcc-compile-pipeline='targets=cpu' | FileCheck %s
// RUN: tcc-opt %s -tcc-compile-pipeline='targets=cpu' | FileCheck %s --check-prefix=LLVM-ONLY

// The whole CPU pipeline on an imported graph (generic tcc_graph.operator ops,
// symbolic batch s0 in [1, 8]): softmax-like head on a linear layer.
//
// Result: one llvm.func whose arguments are the memref descriptors of the
// input, the two weights, the output, then the arena (ptr, ptr, offset, size,
// stride). The only intermediate, the [s0, 1] row sum, lives in the arena,
// planned at s0 = 8 (8 x 4 bytes); everything else is computed in the output.

// CHECK:       module attributes {tcc.arena_size = 32 : i64, tcc.symbols = {s0 = [1, 8]}}
// Each kernel is its own function (tcc-outline-kernels), defined before the entry.
// linear + relu is one tcc_kernel.gemm (bias and relu in its epilogue); on the
// CPU one tcc_cpu_gemm call (OpenBLAS's sgemm, then the epilogue), with
// tcc_gemm's arguments: f32 (0), batch 1 x 1, s0 x 16 x 8, ..., bias + relu (3):
// CHECK:       llvm.func @forward_kernel_0(
// CHECK:         llvm.call @tcc_cpu_gemm(
// The exponential as its polynomial (tcc-expand-cpu-math: vectorizable, no
// libm call), on FMA at the default x86-64-v3:
// CHECK:       llvm.func @forward_kernel_1(
// CHECK-NOT:     llvm.intr.exp
// CHECK:         llvm.intr.floor
// CHECK:         llvm.intr.fma
// CHECK:       llvm.func @forward_kernel_4(
// CHECK:         llvm.fdiv
// CHECK-LABEL: llvm.func @forward(
// x: memref<?x4xf32>
// CHECK-SAME:    %arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: i64, %arg6: i64,
// lin.weight: memref<3x4xf32>
// CHECK-SAME:    %arg7: !llvm.ptr, %arg8: !llvm.ptr, %arg9: i64, %arg10: i64, %arg11: i64, %arg12: i64, %arg13: i64,
// lin.bias: memref<3xf32>
// CHECK-SAME:    %arg14: !llvm.ptr, %arg15: !llvm.ptr, %arg16: i64, %arg17: i64, %arg18: i64,
// output: memref<?x3xf32>
// CHECK-SAME:    %arg19: !llvm.ptr, %arg20: !llvm.ptr, %arg21: i64, %arg22: i64, %arg23: i64, %arg24: i64, %arg25: i64,
// arena: memref<?xi8>
// CHECK-SAME:    %[[ARENA_ALLOC:arg26]]: !llvm.ptr, %[[ARENA_ALIGNED:arg27]]: !llvm.ptr, %arg28: i64, %arg29: i64, %arg30: i64)
// CHECK-SAME:    tcc.arena_size = 32 : i64
// The entry builds the arena descriptor.
// CHECK:         llvm.insertvalue %[[ARENA_ALLOC]], %{{.*}}[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK:         llvm.call @forward_kernel_0(
// CHECK:         llvm.call @forward_kernel_1(
// The row sum lives in the arena (its aligned pointer, %arg27):
// CHECK:         llvm.call @forward_kernel_2(%{{.*}}, %arg26, %[[ARENA_ALIGNED]],
// CHECK:         llvm.call @forward_kernel_3(
// CHECK:         llvm.call @forward_kernel_4(
// CHECK-NEXT:    llvm.return

// Fully lowered: no other dialect is left, nothing is heap-allocated.
// LLVM-ONLY-NOT: tcc_graph.
// LLVM-ONLY-NOT: func.func
// LLVM-ONLY-NOT: {{ (linalg|tensor|memref|bufferization|arith|math|scf|cf|affine|index)\.}}
// LLVM-ONLY-NOT: unrealized_conversion_cast
// LLVM-ONLY-NOT: malloc

module attributes {tcc.symbols = {s0 = [1 : i64, 8 : i64]}} {
  func.func @forward(%x: tensor<?x4xf32> {tcc.name = "x", tcc.role = "input", tcc.sizes = ["s0", 4]},
                     %w: tensor<3x4xf32> {tcc.name = "lin.weight", tcc.role = "weight", tcc.sizes = [3, 4]},
                     %b: tensor<3xf32> {tcc.name = "lin.bias", tcc.role = "weight", tcc.sizes = [3]}) -> tensor<?x3xf32> {
    %0 = tcc_graph.operator "torch.ops.aten.linear.default"(%x, %w, %b) {operand_names = ["input", "weight", "bias"], args = {}} : (tensor<?x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    %1 = tcc_graph.operator "torch.ops.aten.relu.default"(%0) {operand_names = ["self"], args = {}} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %2 = tcc_graph.operator "torch.ops.aten.exp.default"(%1) {operand_names = ["self"], args = {}} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %3 = tcc_graph.operator "torch.ops.aten.sum.dim_IntList"(%2) {operand_names = ["self"], args = {dim = array<i64: 1>, keepdim = true}} : (tensor<?x3xf32>) -> tensor<?x1xf32>
    %4 = tcc_graph.operator "torch.ops.aten.div.Tensor"(%2, %3) {operand_names = ["self", "other"], args = {}} : (tensor<?x3xf32>, tensor<?x1xf32>) -> tensor<?x3xf32>
    return %4 : tensor<?x3xf32>
  }
}
