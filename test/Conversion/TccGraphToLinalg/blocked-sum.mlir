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

// Several reduced dims (12288 terms) before the kept one, the innermost in
// memory, over 5 outputs: blocks of 16 terms (96 = 6 x 16, a reshape of that
// dim), then the blocks' sums the same way, down to the 5 outputs. Nothing
// is moved or copied; every stage keeps the kept dim innermost.
// CHECK-LABEL: func.func @sum_dims
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[BLOCKS:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1], [2, 3], [4]] output_shape [2, 64, 6, 16, 5]
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[BLOCKS]] : tensor<2x64x6x16x5xf32>) outs(%{{.*}} : tensor<2x64x6x5xf32>)
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2, d0)>, affine_map<(d0, d1, d2) -> (d0)>], iterator_types = ["parallel", "reduction", "reduction"]} ins(%{{.*}} : tensor<2x2x5xf32>) outs(%{{.*}} : tensor<5xf32>)
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
// a channels-last convolution): each output a thread's serial loop over
// strided elements, so the blocks are small enough for about 131072 threads
// (at least 16 terms: W split 7 x 16), then the blocks' sums the same way,
// each stage a reshape of one dim of what it reads. The channels stay the
// innermost parallel dim of every stage, so side-by-side threads read
// side-by-side channels; no transpose, no copy.
// CHECK-LABEL: func.func @mean_channels_last
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[BLOCKS:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1], [2, 3], [4]] output_shape [2, 112, 7, 16, 32]
// CHECK:         %[[PART:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[BLOCKS]] : tensor<2x112x7x16x32xf32>) outs(%{{.*}} : tensor<2x112x7x32xf32>)
// CHECK:         tensor.expand_shape %[[PART]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 56, 2, 7, 32]
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<2x56x32xf32>)
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4x32xf32>)
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<2x4x32xf32>) outs(%{{.*}} : tensor<2x32xf32>)
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.generic {{.*}} ins(%[[SUM]] : tensor<2x32xf32>)
// CHECK:           arith.divf
func.func @mean_channels_last(%x: tensor<2x112x112x32xf32>) -> tensor<2x32xf32> {
  %0 = tcc_graph.reduce_mean %x {dims = array<i64: 1, 2>, keepdim = false} : (tensor<2x112x112x32xf32>) -> tensor<2x32xf32>
  return %0 : tensor<2x32xf32>
}
