// RUN: tcc-opt %s -tcc-outline-kernels -split-input-file | FileCheck %s

// Each top-level linalg op of a planned entry becomes a call to its own
// private, no_inline function; captured constants are cloned inside.
// CHECK: func.func private @forward_kernel_0(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) attributes {no_inline}
// CHECK-NEXT: arith.constant 2.000000e+00 : f32
// CHECK-NEXT: linalg.generic
// CHECK: arith.mulf
// CHECK: func.func private @forward_kernel_1
// CHECK: math.sin
// CHECK-LABEL: func.func @forward
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<4xf32>, %[[T:[a-z0-9]+]]: memref<4xf32>, %[[OUT:[a-z0-9]+]]: memref<4xf32>
// CHECK: call @forward_kernel_0(%[[X]], %[[T]]) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT: call @forward_kernel_1(%[[T]], %[[OUT]]) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT: return
#id = affine_map<(d0) -> (d0)>
func.func @forward(%x: memref<4xf32>, %t: memref<4xf32>, %out: memref<4xf32>, %arena: memref<?xi8> {tcc.arena}) {
  %c2 = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<4xf32>) outs(%t : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %c2 : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : memref<4xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = math.sin %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Functions that were not planned (no tcc.arena argument) are left alone.
// CHECK-LABEL: func.func @not_planned
// CHECK: linalg.generic
// CHECK-NOT: call
#id1 = affine_map<(d0) -> (d0)>
func.func @not_planned(%x: memref<4xf32>, %out: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : memref<4xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// A kernel's argument that the entry passes a weight to (or a view of one)
// is marked as a weight inside the kernel too: a library call lowered there
// may keep what it derives from it until weights are bound again.
// CHECK: func.func private @forward_kernel_0(%{{.*}}: memref<2x4xf32>, %{{.*}}: memref<4x4xf32> {tcc.role = "weight"}, %{{.*}}: memref<2x4xf32>)
// CHECK-LABEL: func.func @forward
func.func @forward(%x: memref<2x4xf32> {tcc.role = "input"}, %w: memref<1x4x4xf32> {tcc.role = "weight"}, %out: memref<2x4xf32>, %arena: memref<?xi8> {tcc.arena}) {
  %v = memref.collapse_shape %w [[0, 1], [2]] : memref<1x4x4xf32> into memref<4x4xf32>
  linalg.matmul ins(%x, %v : memref<2x4xf32>, memref<4x4xf32>) outs(%out : memref<2x4xf32>)
  return
}
