// RUN: tcc-opt %s -tcc-single-pixel-conv-to-matmul -split-input-file | FileCheck %s

// Squeeze-and-excitation's 1x1 convolutions of the pooled [N, C, 1, 1]
// activation become matrix products (a stride does not matter for one pixel).
// CHECK-LABEL: func @squeeze_excite
// CHECK:      %[[R:.*]] = tcc_graph.reshape %arg0 : (tensor<32x96x1x1xbf16>) -> tensor<32x96xbf16>
// CHECK-NEXT: %[[F:.*]] = tcc_graph.reshape %arg1 : (tensor<4x96x1x1xbf16>) -> tensor<4x96xbf16>
// CHECK-NEXT: %[[T:.*]] = tcc_graph.transpose %[[F]] {permutation = array<i64: 1, 0>} : (tensor<4x96xbf16>) -> tensor<96x4xbf16>
// CHECK-NEXT: %[[P:.*]] = tcc_graph.matmul %[[R]], %[[T]] : (tensor<32x96xbf16>, tensor<96x4xbf16>) -> tensor<32x4xbf16>
// CHECK-NEXT: %[[A:.*]] = tcc_graph.add %[[P]], %arg2 : (tensor<32x4xbf16>, tensor<4xbf16>) -> tensor<32x4xbf16>
// CHECK-NEXT: %[[Y:.*]] = tcc_graph.reshape %[[A]] : (tensor<32x4xbf16>) -> tensor<32x4x1x1xbf16>
// Without a bias, no add.
// CHECK:      %[[P2:.*]] = tcc_graph.matmul {{.*}} -> tensor<32x96xbf16>
// CHECK-NEXT: tcc_graph.reshape %[[P2]] : (tensor<32x96xbf16>) -> tensor<32x96x1x1xbf16>
// CHECK-NOT:  tcc_graph.conv2d
func.func @squeeze_excite(%x: tensor<32x96x1x1xbf16>, %w1: tensor<4x96x1x1xbf16>, %b1: tensor<4xbf16>,
                          %w2: tensor<96x4x1x1xbf16>) -> tensor<32x96x1x1xbf16> {
  %s = tcc_graph.conv2d %x, %w1, %b1 {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>}
         : (tensor<32x96x1x1xbf16>, tensor<4x96x1x1xbf16>, tensor<4xbf16>) -> tensor<32x4x1x1xbf16>
  %e = tcc_graph.conv2d %s, %w2 {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>}
         : (tensor<32x4x1x1xbf16>, tensor<96x4x1x1xbf16>) -> tensor<32x96x1x1xbf16>
  return %e : tensor<32x96x1x1xbf16>
}

// -----

// Not one pixel through a 1x1 filter with one group and no padding: kept.
// CHECK-LABEL: func @kept
// CHECK-COUNT-4: tcc_graph.conv2d
// CHECK-NOT: tcc_graph.matmul
func.func @kept(%img: tensor<2x8x4x4xf32>, %px: tensor<2x8x1x1xf32>, %w: tensor<8x8x1x1xf32>,
                %w3: tensor<8x8x3x3xf32>, %wg: tensor<8x4x1x1xf32>, %dyn: tensor<?x8x1x1xf32>)
    -> (tensor<2x8x4x4xf32>, tensor<2x8x3x3xf32>, tensor<2x8x1x1xf32>, tensor<?x8x1x1xf32>) {
  // More than one pixel.
  %a = tcc_graph.conv2d %img, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>}
         : (tensor<2x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<2x8x4x4xf32>
  // Padded: the output has more pixels than the input.
  %b = tcc_graph.conv2d %px, %w3 {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>}
         : (tensor<2x8x1x1xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x3x3xf32>
  // Grouped.
  %c = tcc_graph.conv2d %px, %wg {dilation = array<i64: 1, 1>, groups = 2 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>}
         : (tensor<2x8x1x1xf32>, tensor<8x4x1x1xf32>) -> tensor<2x8x1x1xf32>
  // A symbolic batch.
  %d = tcc_graph.conv2d %dyn, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>}
         : (tensor<?x8x1x1xf32>, tensor<8x8x1x1xf32>) -> tensor<?x8x1x1xf32>
  return %a, %b, %c, %d : tensor<2x8x4x4xf32>, tensor<2x8x3x3xf32>, tensor<2x8x1x1xf32>, tensor<?x8x1x1xf32>
}
