// RUN: tcc-opt %s -tcc-form-kernels -split-input-file | FileCheck %s

// NHWC → NCHW → [N, C, HW] → [N, HW, C] leaves the elements where they were
// (ViT's patch embedding after its convolution became a GEMM): one reshape,
// no copy.
// CHECK-LABEL: func @round_trip
// CHECK:     %[[R:.*]] = tcc_graph.reshape %arg0 : (tensor<2x4x4x8xf32>) -> tensor<2x16x8xf32>
// CHECK:     return %[[R]]
// CHECK-NOT: tcc_graph.transpose
func.func @round_trip(%x: tensor<2x4x4x8xf32>) -> tensor<2x16x8xf32> {
  %t = tcc_graph.transpose %x {permutation = array<i64: 0, 3, 1, 2>} : (tensor<2x4x4x8xf32>) -> tensor<2x8x4x4xf32>
  %r = tcc_graph.reshape %t : (tensor<2x8x4x4xf32>) -> tensor<2x8x16xf32>
  %u = tcc_graph.transpose %r {permutation = array<i64: 0, 2, 1>} : (tensor<2x8x16xf32>) -> tensor<2x16x8xf32>
  return %u : tensor<2x16x8xf32>
}

// -----

// A chain that does move elements stays: [N, C, HW] → [N, HW, C] is a real
// transpose.
// CHECK-LABEL: func @real_transpose
// CHECK:     tcc_graph.transpose %arg0 {permutation = array<i64: 0, 2, 1>}
func.func @real_transpose(%x: tensor<2x8x16xf32>) -> tensor<2x16x8xf32> {
  %u = tcc_graph.transpose %x {permutation = array<i64: 0, 2, 1>} : (tensor<2x8x16xf32>) -> tensor<2x16x8xf32>
  return %u : tensor<2x16x8xf32>
}

// -----

// A transpose that is still used stays beside the fold.
// CHECK-LABEL: func @shared_intermediate
// CHECK:     %[[T:.*]] = tcc_graph.transpose %arg0 {permutation = array<i64: 1, 0>}
// CHECK:     return %arg0, %[[T]]
func.func @shared_intermediate(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8x4xf32>) {
  %t = tcc_graph.transpose %x {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %u = tcc_graph.transpose %t {permutation = array<i64: 1, 0>} : (tensor<8x4xf32>) -> tensor<4x8xf32>
  return %u, %t : tensor<4x8xf32>, tensor<8x4xf32>
}
