// RUN: tcc-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(tcc-gpu-await-previous-grid))' | FileCheck %s

// Every kernel waits for the previous grid before its first instruction,
// then lets the next be scheduled; the module carries the runtime's marker
// once. A device function that is not a kernel is left alone.
// CHECK-LABEL: gpu.module @tcc_kernels
// CHECK:         llvm.mlir.global external @tcc_awaits_previous_grid(1 : i32) {addr_space = 1 : i32, alignment = 4 : i64} : i32
// CHECK-NOT:     llvm.mlir.global
// CHECK:         gpu.func @scale(%[[A:.*]]: memref<4xf32>) kernel
// CHECK-NEXT:      nvvm.griddepcontrol {{ *}}wait
// CHECK-NEXT:      nvvm.griddepcontrol {{ *}}launch_dependents
// CHECK-NEXT:      %[[I:.*]] = gpu.thread_id {{ *}}x
// CHECK-NEXT:      memref.load %[[A]][%[[I]]]
// CHECK:         gpu.func @copy(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) kernel
// CHECK-NEXT:      nvvm.griddepcontrol {{ *}}wait
// CHECK-NEXT:      nvvm.griddepcontrol {{ *}}launch_dependents
// CHECK:         gpu.func @helper(
// CHECK-NOT:       nvvm.griddepcontrol
// CHECK:           gpu.return
module attributes {gpu.container_module} {
  gpu.module @tcc_kernels {
    gpu.func @scale(%a: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<4xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %a[%i] : memref<4xf32>
      gpu.return
    }
    gpu.func @copy(%a: memref<4xf32>, %b: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<4xf32>
      memref.store %v, %b[%i] : memref<4xf32>
      gpu.return
    }
    gpu.func @helper(%x: f32) -> f32 {
      gpu.return %x : f32
    }
  }
}

// -----

// A module without kernels gets no marker.
// CHECK-LABEL: gpu.module @no_kernels
// CHECK-NOT:     tcc_awaits_previous_grid
module attributes {gpu.container_module} {
  gpu.module @no_kernels {
  }
}
