// RUN: tcc-opt %s -split-input-file -convert-tcc-graph-to-linalg -tcc-bufferize -mlir-print-local-scope | FileCheck %s
// RUN: tcc-opt %s -split-input-file -convert-tcc-graph-to-linalg -tcc-bufferize | FileCheck %s --check-prefix=NONE

// Copies are linalg.copy everywhere; no function returns a buffer.
// NONE-NOT: memref.copy
// NONE-NOT: return %

// Inputs first, then one output memref per result; nothing is returned. The
// last kernel writes the caller's output buffer directly (no allocation, no
// copy); intermediates are 64-byte aligned allocations.
// CHECK-LABEL: func.func @linear_relu
// CHECK-SAME:    (%[[X:[a-z0-9]+]]: memref<?x100xf32>, %[[W:[a-z0-9]+]]: memref<10x100xf32>, %[[B:[a-z0-9]+]]: memref<10xf32>, %[[OUT:[a-z0-9]+]]: memref<?x10xf32>)
// CHECK-NOT:     ->
// CHECK-SAME:    {
// CHECK:         %[[WT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<100x10xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[W]] : memref<10x100xf32>) outs(%[[WT]] : memref<100x10xf32>)
// CHECK:         %[[MM:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x10xf32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[MM]] : memref<?x10xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[WT]] : memref<?x100xf32>, memref<100x10xf32>) outs(%[[MM]] : memref<?x10xf32>)
// CHECK:         %[[SUM:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x10xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[MM]], %[[B]] : memref<?x10xf32>, memref<10xf32>) outs(%[[SUM]] : memref<?x10xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {{.*}} ins(%[[SUM]] : memref<?x10xf32>) outs(%[[OUT]] : memref<?x10xf32>)
// CHECK:           arith.maximumf
// CHECK-NOT:     linalg.copy
// CHECK:         return{{$}}
// CHECK-NOT:     memref.copy
func.func @linear_relu(%x: tensor<?x100xf32>, %w: tensor<10x100xf32>, %b: tensor<10xf32>) -> tensor<?x10xf32> {
  %wt = tcc_graph.transpose %w {permutation = array<i64: 1, 0>} : (tensor<10x100xf32>) -> tensor<100x10xf32>
  %mm = tcc_graph.matmul %x, %wt : (tensor<?x100xf32>, tensor<100x10xf32>) -> tensor<?x10xf32>
  %y = tcc_graph.add %mm, %b : (tensor<?x10xf32>, tensor<10xf32>) -> tensor<?x10xf32>
  %r = tcc_graph.relu %y : tensor<?x10xf32>
  return %r : tensor<?x10xf32>
}

// -----

// Several results: each computed straight into its output, in result order;
// the second kernel reads the first result back from the caller's buffer.
// CHECK-LABEL: func.func @two_results
// CHECK-SAME:    (%[[X:[a-z0-9]+]]: memref<4x8xf32>, %[[OUT0:[a-z0-9]+]]: memref<4x8xf32>, %[[OUT1:[a-z0-9]+]]: memref<4xf32>)
// CHECK-NOT:     ->
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : memref<4x8xf32>) outs(%[[OUT0]] : memref<4x8xf32>)
// CHECK:           math.exp
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[OUT1]] : memref<4xf32>)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[OUT0]] : memref<4x8xf32>) outs(%[[OUT1]] : memref<4xf32>)
// CHECK-NOT:     copy
// CHECK:         return{{$}}
func.func @two_results(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %e = tcc_graph.exp %x : tensor<4x8xf32>
  %s = tcc_graph.reduce_sum %e {dims = array<i64: 1>, keepdim = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %e, %s : tensor<4x8xf32>, tensor<4xf32>
}

// -----

// The same value returned twice (`return e, e`): the first output is computed
// in place, the second is a linalg.copy of it.
// CHECK-LABEL: func.func @repeated_result
// CHECK-SAME:    (%[[X:[a-z0-9]+]]: memref<?x8xf32>, %[[OUT0:[a-z0-9]+]]: memref<?x8xf32>, %[[OUT1:[a-z0-9]+]]: memref<?x8xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : memref<?x8xf32>) outs(%[[OUT0]] : memref<?x8xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.copy ins(%[[OUT0]] : memref<?x8xf32>) outs(%[[OUT1]] : memref<?x8xf32>)
// CHECK-NEXT:    return{{$}}
func.func @repeated_result(%x: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %e = tcc_graph.exp %x : tensor<?x8xf32>
  return %e, %e : tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// A result that is a view of an input cannot be computed in place: it is
// copied, with linalg.copy (which lowers to loops like every kernel), never
// memref.copy.
// CHECK-LABEL: func.func @view_of_input
// CHECK-SAME:    (%[[X:[a-z0-9]+]]: memref<4x8xf32>, %[[OUT0:[a-z0-9]+]]: memref<32xf32>, %[[OUT1:[a-z0-9]+]]: memref<4x8xf32>)
// CHECK:         %[[FLAT:.*]] = memref.collapse_shape %[[X]] {{\[}}[0, 1]] : memref<4x8xf32> into memref<32xf32>
// CHECK:         linalg.copy ins(%[[FLAT]] : memref<32xf32>) outs(%[[OUT0]] : memref<32xf32>)
// CHECK:         linalg.copy ins(%[[X]] : memref<4x8xf32>) outs(%[[OUT1]] : memref<4x8xf32>)
// CHECK-NOT:     memref.copy
// CHECK:         return{{$}}
func.func @view_of_input(%x: tensor<4x8xf32>) -> (tensor<32xf32>, tensor<4x8xf32>) {
  %0 = tcc_graph.reshape %x : (tensor<4x8xf32>) -> tensor<32xf32>
  return %0, %x : tensor<32xf32>, tensor<4x8xf32>
}

// -----

// Concatenation copies each input into a subview of the output itself.
// CHECK-LABEL: func.func @concat
// CHECK-SAME:    (%[[A:[a-z0-9]+]]: memref<2x3xf32>, %[[B:[a-z0-9]+]]: memref<2x5xf32>, %[[OUT:[a-z0-9]+]]: memref<2x8xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         %[[SA:.*]] = memref.subview %[[OUT]][0, 0] [2, 3] [1, 1] : memref<2x8xf32> to memref<2x3xf32, strided<[8, 1]>>
// CHECK:         linalg.copy ins(%[[A]] : memref<2x3xf32>) outs(%[[SA]] : memref<2x3xf32, strided<[8, 1]>>)
// CHECK:         %[[SB:.*]] = memref.subview %[[OUT]][0, 3] [2, 5] [1, 1] : memref<2x8xf32> to memref<2x5xf32, strided<[8, 1], offset: 3>>
// CHECK:         linalg.copy ins(%[[B]] : memref<2x5xf32>) outs(%[[SB]] : memref<2x5xf32, strided<[8, 1], offset: 3>>)
// CHECK-NOT:     copy
// CHECK:         return{{$}}
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  %0 = tcc_graph.concat %a, %b {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
