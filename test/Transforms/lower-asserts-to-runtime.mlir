// RUN: tcc-opt %s -tcc-lower-asserts-to-runtime | FileCheck %s

// A run-time check of the CPU path calls the runtime with its message when
// it fails, and execution goes on; one global per distinct message.
// CHECK-DAG: llvm.mlir.global internal constant @tcc_check_message_1("model.py:3: index out of range\00")
// CHECK-DAG: func.func private @tcc_assert_failed(!llvm.ptr)
// CHECK-LABEL: func.func @kernel
// CHECK:      %[[T:.*]] = arith.constant true
// CHECK:      %[[F:.*]] = arith.xori %arg0, %[[T]] : i1
// CHECK:      scf.if %[[F]] {
// CHECK-NEXT:   %[[M:.*]] = llvm.mlir.addressof @tcc_check_message_1 : !llvm.ptr
// CHECK-NEXT:   func.call @tcc_assert_failed(%[[M]]) : (!llvm.ptr) -> ()
// CHECK-NEXT: }
// CHECK:      scf.if
// CHECK-NEXT:   llvm.mlir.addressof @tcc_check_message_1
// CHECK-NOT:  cf.assert
// CHECK:      return %arg1
func.func @kernel(%ok: i1, %other: i1) -> i1 {
  cf.assert %ok, "model.py:3: index out of range"
  cf.assert %other, "model.py:3: index out of range"
  return %other : i1
}

// Asserts in GPU kernels are the NVVM lowering's (a device-side assert).
// CHECK: gpu.module @kernels
// CHECK: cf.assert %arg0, "on the device"
gpu.module @kernels {
  gpu.func @k(%ok: i1) kernel {
    cf.assert %ok, "on the device"
    gpu.return
  }
}
