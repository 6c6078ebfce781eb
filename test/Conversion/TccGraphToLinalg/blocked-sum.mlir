// RUN: tcc-opt %s -convert-tcc-graph-to-linalg -split-input-file | FileCheck %s

// A sum of a million terms per output is summed in blocks of 1000 (the
// largest divisor up to 1024: a reshape, no copy), then the 1000 partial sums.
// CHECK-LABEL: func.func @sum_rows
// CHECK:         %[[OUT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK:         %[[BLOCKS:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1, 2]] output_shape [4, 1000, 1000]
// CHECK:         %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x1000xf32>)
// CHECK:         %[[PART:.*]] = linalg.reduce ins(%[[BLOCKS]] : tensor<4x1000x1000xf32>) outs(%[[ZERO]] : tensor<4x1000xf32>) dimensions = [2]
// CHECK:         %[[SUM:.*]] = linalg.reduce ins(%[[PART]] : tensor<4x1000xf32>) outs(%[[OUT]] : tensor<4xf32>) dimensions = [1]
// CHECK:         return %[[SUM]]
func.func @sum_rows(%x: tensor<4x1000000xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.reduce_sum %x {dims = array<i64: 1>, keepdim = false} : (tensor<4x1000000xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// 4099 terms (prime): four blocks of 1024, their sums, then the last three
// terms added on top; a mean divides the blocked sum.
// CHECK-LABEL: func.func @mean_prime
// CHECK:         %[[OUT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<f32>)
// CHECK:         %[[HEAD:.*]] = tensor.extract_slice %arg0[0] [4096] [1]
// CHECK:         %[[BLOCKS:.*]] = tensor.expand_shape %[[HEAD]] {{\[\[}}0, 1]] output_shape [4, 1024]
// CHECK:         %[[PART:.*]] = linalg.reduce ins(%[[BLOCKS]] : tensor<4x1024xf32>) outs(%{{.*}} : tensor<4xf32>) dimensions = [1]
// CHECK:         %[[SUM:.*]] = linalg.reduce ins(%[[PART]] : tensor<4xf32>) outs(%[[OUT]] : tensor<f32>) dimensions = [0]
// CHECK:         %[[TAIL:.*]] = tensor.extract_slice %arg0[4096] [3] [1]
// CHECK:         %[[TOTAL:.*]] = linalg.reduce ins(%[[TAIL]] : tensor<3xf32>) outs(%[[SUM]] : tensor<f32>) dimensions = [0]
// CHECK:         linalg.generic {{.*}} ins(%[[TOTAL]] : tensor<f32>)
// CHECK:           arith.divf
func.func @mean_prime(%x: tensor<4099xf32>) -> tensor<f32> {
  %0 = tcc_graph.reduce_mean %x {dims = array<i64: 0>, keepdim = false} : (tensor<4099xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Several reduced dims (12288 terms) are collapsed into one, then blocked.
// CHECK-LABEL: func.func @sum_dims
// CHECK:         %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<2x64x96x5xf32>)
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0], [1, 2, 3]] : tensor<5x2x64x96xf32> into tensor<5x12288xf32>
// CHECK:         tensor.expand_shape %[[FLAT]] {{\[\[}}0], [1, 2]] output_shape [5, 12, 1024]
// CHECK:         linalg.reduce {{.*}} dimensions = [2]
// CHECK:         linalg.reduce {{.*}} dimensions = [1]
func.func @sum_dims(%x: tensor<2x64x96x5xf32>) -> tensor<5xf32> {
  %0 = tcc_graph.reduce_sum %x {dims = array<i64: 0, 1, 2>, keepdim = false} : (tensor<2x64x96x5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Up to 2048 terms, symbolic sizes, and max (exact) stay one reduction.
// CHECK-LABEL: func.func @one_loop
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.reduce ins(%arg0 : tensor<4x2048xf32>) {{.*}} dimensions = [1]
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.reduce ins(%arg1 : tensor<?x4096xf32>) {{.*}} dimensions = [0, 1]
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.reduce ins(%arg2 : tensor<8x100000xf32>) {{.*}} dimensions = [1]
// CHECK-NEXT:      (%{{.*}}: f32, %{{.*}}: f32) {
// CHECK-NEXT:        arith.maximumf
// CHECK-NOT:     tensor.expand_shape
func.func @one_loop(%x: tensor<4x2048xf32>, %y: tensor<?x4096xf32>, %z: tensor<8x100000xf32>) -> (tensor<4xf32>, tensor<f32>, tensor<8xf32>) {
  %0 = tcc_graph.reduce_sum %x {dims = array<i64: 1>, keepdim = false} : (tensor<4x2048xf32>) -> tensor<4xf32>
  %1 = tcc_graph.reduce_sum %y {dims = array<i64: 0, 1>, keepdim = false} : (tensor<?x4096xf32>) -> tensor<f32>
  %2 = tcc_graph.reduce_max %z {dims = array<i64: 1>, keepdim = false} : (tensor<8x100000xf32>) -> tensor<8xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<f32>, tensor<8xf32>
}
