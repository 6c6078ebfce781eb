// RUN: tcc-opt %s -tcc-instrument-kernels | FileCheck %s
// RUN: tcc-opt %s -tcc-instrument-kernels -tcc-instrument-kernels | FileCheck %s
// RUN: tcc-opt %s -tcc-instrument-kernels -tcc-split-targets='targets=cpu,cuda' | FileCheck %s --check-prefix=SPLIT
// RUN: tcc-opt %s -tcc-instrument-kernels -tcc-split-targets='targets=cpu' -tcc-outline-kernels | FileCheck %s --check-prefix=OUTLINED

// A mark before each kernel (tcc::isKernelOp: tcc_kernel ops, memref.copy,
// linalg ops, in block order) and the end mark N before the return; views
// and other ops between them get none. The callee is declared once, and
// running the pass again adds nothing.
// CHECK-LABEL: func.func @forward
// CHECK:      %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: call @tcc_profile_mark(%[[C0]]) : (i32) -> ()
// CHECK-NEXT: tcc_kernel.gemm
// CHECK-NEXT: memref.subview
// CHECK-NEXT: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: call @tcc_profile_mark(%[[C1]]) : (i32) -> ()
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: call @tcc_profile_mark(%[[C2]]) : (i32) -> ()
// CHECK-NEXT: memref.copy
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT: call @tcc_profile_mark(%[[C3]]) : (i32) -> ()
// CHECK-NEXT: return

// Both target entries carry the marks after tcc-split-targets.
// SPLIT-LABEL: func.func @forward(
// SPLIT-COUNT-4: call @tcc_profile_mark
// SPLIT-LABEL: func.func @forward_cuda(
// SPLIT-COUNT-4: call @tcc_profile_mark

// The CPU kernels move into their own functions; the marks stay in the
// entry, around the calls, in order.
// OUTLINED-LABEL: func.func @forward(
// OUTLINED: call @tcc_profile_mark
// OUTLINED-NEXT: call @forward_kernel_0
// OUTLINED: call @tcc_profile_mark
// OUTLINED-NEXT: call @forward_kernel_1
// OUTLINED: call @tcc_profile_mark
// OUTLINED: memref.copy
// OUTLINED: call @tcc_profile_mark
// OUTLINED-NEXT: return
func.func @forward(%x: memref<4x8xf32>, %w: memref<16x8xf32>, %y: memref<4x16xf32>, %z: memref<4x16xf32>, %arena: memref<?xi8> {tcc.arena}) {
  tcc_kernel.gemm ins(%x, %w : memref<4x8xf32>, memref<16x8xf32>) outs(%y : memref<4x16xf32>) transpose_b
  %v = memref.subview %z[0, 0] [2, 16] [1, 1] : memref<4x16xf32> to memref<2x16xf32, strided<[16, 1]>>
  %c0 = arith.constant 0.0 : f32
  linalg.fill ins(%c0 : f32) outs(%v : memref<2x16xf32, strided<[16, 1]>>)
  memref.copy %y, %z : memref<4x16xf32> to memref<4x16xf32>
  return
}

// A function without an arena is no planned entry: untouched.
// CHECK-LABEL: func.func @helper
// CHECK-NOT: call @tcc_profile_mark
// CHECK:     return
// CHECK:     func.func private @tcc_profile_mark(i32)
// CHECK-NOT: func.func private @tcc_profile_mark
func.func @helper(%a: memref<4xf32>, %b: memref<4xf32>) {
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  return
}
