// RUN: tcc-opt %s -convert-tcc-graph-to-linalg -split-input-file -mlir-print-local-scope | FileCheck %s

// A sum of a million terms per output is summed in blocks of 1000 (the
// largest divisor up to 1024: a reshape, no copy), then the 1000 partial sums.
// CHECK-LABEL: func.func @sum_rows
// CHECK:         %[[OUT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK:         %[[BLOCKS:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1, 2]] output_shape [4, 1000, 1000]
// CHECK:         %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x1000xf32>)
// CHECK:         %[[PART:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[BLOCKS]] : tensor<4x1000x1000xf32>) outs(%[[ZERO]] : tensor<4x1000xf32>)
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[PART]] : tensor<4x1000xf32>) outs(%[[OUT]] : tensor<4xf32>)
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

// Several reduced dims (12288 terms), before the kept one in memory: the
// blocks split one of them (64 = 8 x 8, blocks of 8 x 96 = 768 terms), a
// reshape: nothing is moved or copied. The partial sums keep the dims not
// yet reduced in the input's order ([2, 8, 5]: the kept dim still innermost),
// each reduced over its dims as the innermost loops, read through the maps.
// CHECK-LABEL: func.func @sum_dims
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[BLOCKS:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 8, 8, 96, 5]
// CHECK:         %[[PART:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[BLOCKS]] : tensor<2x8x8x96x5xf32>) outs(%{{.*}} : tensor<2x8x5xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2, d0)>, affine_map<(d0, d1, d2) -> (d0)>], iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[PART]] : tensor<2x8x5xf32>) outs(%{{.*}} : tensor<5xf32>)
func.func @sum_dims(%x: tensor<2x64x96x5xf32>) -> tensor<5xf32> {
  %0 = tcc_graph.reduce_sum %x {dims = array<i64: 0, 1, 2>, keepdim = false} : (tensor<2x64x96x5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Up to 2048 terms, symbolic sizes, and max (exact) stay one reduction.
// CHECK-LABEL: func.func @one_loop
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4x2048xf32>)
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%arg1 : tensor<?x4096xf32>)
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg2 : tensor<8x100000xf32>)
// CHECK-NEXT:      ^bb0(%{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:        arith.maximumf
// CHECK-NOT:     tensor.expand_shape
func.func @one_loop(%x: tensor<4x2048xf32>, %y: tensor<?x4096xf32>, %z: tensor<8x100000xf32>) -> (tensor<4xf32>, tensor<f32>, tensor<8xf32>) {
  %0 = tcc_graph.reduce_sum %x {dims = array<i64: 1>, keepdim = false} : (tensor<4x2048xf32>) -> tensor<4xf32>
  %1 = tcc_graph.reduce_sum %y {dims = array<i64: 0, 1>, keepdim = false} : (tensor<?x4096xf32>) -> tensor<f32>
  %2 = tcc_graph.reduce_max %z {dims = array<i64: 1>, keepdim = false} : (tensor<8x100000xf32>) -> tensor<8xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<f32>, tensor<8xf32>
}

// -----

// A mean over H and W of a channels-last image (squeeze-and-excitation after
// a channels-last convolution): 112 x 112 terms, blocked by splitting H
// (14 blocks of 8 rows, 896 terms), a reshape of the input as it is. The
// channels stay the innermost parallel dim of both stages, so side-by-side
// threads read side-by-side channels; no transpose, no copy.
// CHECK-LABEL: func.func @mean_channels_last
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[BLOCKS:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 14, 8, 112, 32]
// CHECK:         %[[PART:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[BLOCKS]] : tensor<2x14x8x112x32xf32>) outs(%{{.*}} : tensor<2x14x32xf32>)
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[PART]] : tensor<2x14x32xf32>) outs(%{{.*}} : tensor<2x32xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[SUM]] : tensor<2x32xf32>)
// CHECK:           arith.divf
func.func @mean_channels_last(%x: tensor<2x112x112x32xf32>) -> tensor<2x32xf32> {
  %0 = tcc_graph.reduce_mean %x {dims = array<i64: 1, 2>, keepdim = false} : (tensor<2x112x112x32xf32>) -> tensor<2x32xf32>
  return %0 : tensor<2x32xf32>
}
