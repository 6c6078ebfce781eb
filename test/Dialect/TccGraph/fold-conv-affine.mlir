// RUN: tcc-opt %s -tcc-fold-conv-affine -split-input-file | FileCheck %s

// Inference batch norm after a convolution (legalized to a per-channel
// scale and shift of weights) moves into the weight and bias.
// CHECK-LABEL: func @conv_bn
// CHECK-DAG: %[[S:.*]] = tcc_graph.reshape %[[SCALE:.*]] : (tensor<4x1x1xf32>) -> tensor<4xf32>
// CHECK-DAG: %[[S4:.*]] = tcc_graph.reshape %[[S]] : (tensor<4xf32>) -> tensor<4x1x1x1xf32>
// CHECK-DAG: %[[W:.*]] = tcc_graph.mul %arg1, %[[S4]] : (tensor<4x3x3x3xf32>, tensor<4x1x1x1xf32>) -> tensor<4x3x3x3xf32>
// CHECK-DAG: %[[BS:.*]] = tcc_graph.mul %arg2, %[[S]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-DAG: %[[T:.*]] = tcc_graph.reshape %{{.*}} : (tensor<4x1x1xf32>) -> tensor<4xf32>
// CHECK-DAG: %[[B:.*]] = tcc_graph.add %[[BS]], %[[T]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK:     %[[Y:.*]] = tcc_graph.conv2d %arg0, %[[W]], %[[B]] {{.*}} -> tensor<2x4x8x8xf32>
// CHECK-NEXT: %[[R:.*]] = tcc_graph.relu %[[Y]]
// CHECK-NEXT: return %[[R]]
func.func @conv_bn(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32> {tcc.role = "weight"},
                   %b: tensor<4xf32> {tcc.role = "weight"}, %gamma: tensor<4xf32> {tcc.role = "weight"},
                   %beta: tensor<4xf32> {tcc.role = "weight"}, %var: tensor<4xf32> {tcc.role = "weight"}) -> tensor<2x4x8x8xf32> {
  %y = tcc_graph.conv2d %x, %w, %b {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
  %eps = tcc_graph.constant dense<1.0e-05> : tensor<f32>
  %v = tcc_graph.add %var, %eps : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %r = tcc_graph.rsqrt %v : tensor<4xf32>
  %s = tcc_graph.mul %r, %gamma : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s3 = tcc_graph.reshape %s : (tensor<4xf32>) -> tensor<4x1x1xf32>
  %t3 = tcc_graph.reshape %beta : (tensor<4xf32>) -> tensor<4x1x1xf32>
  %m = tcc_graph.mul %y, %s3 : (tensor<2x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<2x4x8x8xf32>
  %a = tcc_graph.add %m, %t3 : (tensor<2x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<2x4x8x8xf32>
  %o = tcc_graph.relu %a : tensor<2x4x8x8xf32>
  return %o : tensor<2x4x8x8xf32>
}

// -----

// Without a bias of its own, the shift becomes the bias; a scale that
// depends on an input is not a weight expression and stays.
// CHECK-LABEL: func @shift_only_and_input_scale
// CHECK:     %[[T:.*]] = tcc_graph.reshape %arg2 : (tensor<4x1x1xf32>) -> tensor<4xf32>
// CHECK:     %[[Y:.*]] = tcc_graph.conv2d %arg0, %arg1, %[[T]]
// CHECK:     tcc_graph.mul %[[Y]], %arg3
func.func @shift_only_and_input_scale(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x1x1xf32> {tcc.role = "weight"},
                   %t: tensor<4x1x1xf32> {tcc.role = "weight"}, %s: tensor<4x1x1xf32>) -> tensor<2x4x8x8xf32> {
  %y = tcc_graph.conv2d %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<2x4x8x8xf32>
  %a = tcc_graph.add %y, %t : (tensor<2x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<2x4x8x8xf32>
  %m = tcc_graph.mul %a, %s : (tensor<2x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<2x4x8x8xf32>
  return %m : tensor<2x4x8x8xf32>
}

// -----

// A convolution whose result is read twice keeps its epilogue outside:
// folding would change the other reader's value.
// CHECK-LABEL: func @two_readers
// CHECK:     %[[Y:.*]] = tcc_graph.conv2d %arg0, %arg1 {
// CHECK:     tcc_graph.mul %[[Y]], %arg2
func.func @two_readers(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x1x1xf32> {tcc.role = "weight"},
                       %s: tensor<4x1x1xf32> {tcc.role = "weight"}) -> (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) {
  %y = tcc_graph.conv2d %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<2x4x8x8xf32>
  %m = tcc_graph.mul %y, %s : (tensor<2x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<2x4x8x8xf32>
  return %m, %y : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>
}

// -----

// A per-column scale of a product by weights, seen through the transpose
// back to NCHW (ConvNeXt's layer scale after its second linear layer): the
// weight's columns and the bias are scaled instead (weight arithmetic), and
// the residual add then follows the transposed product.
// CHECK-LABEL: func @layer_scale
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x4x8xf32>, %[[W:.*]]: tensor<8x6xf32> {{.*}}, %[[B:.*]]: tensor<6xf32> {{.*}}, %[[G:.*]]: tensor<6x1x1xf32> {{.*}}, %[[R:.*]]: tensor<2x6x4x4xf32>)
// CHECK:     %[[S:.*]] = tcc_graph.reshape %[[G]] : (tensor<6x1x1xf32>) -> tensor<6xf32>
// CHECK:     %[[S2:.*]] = tcc_graph.reshape %[[S]] : (tensor<6xf32>) -> tensor<1x6xf32>
// CHECK:     %[[WS:.*]] = tcc_graph.mul %[[W]], %[[S2]]
// CHECK:     %[[Y:.*]] = tcc_graph.matmul %[[X]], %[[WS]]
// CHECK:     %[[BS:.*]] = tcc_graph.mul %{{.*}}, %[[S]]
// CHECK:     %[[A:.*]] = tcc_graph.add %[[Y]], %[[BS]]
// CHECK:     %[[T:.*]] = tcc_graph.transpose %[[A]] {permutation = array<i64: 0, 3, 1, 2>}
// CHECK-NOT: tcc_graph.mul
// CHECK:     tcc_graph.add %[[T]], %[[R]]
func.func @layer_scale(%x: tensor<2x4x4x8xf32>, %w: tensor<8x6xf32> {tcc.role = "weight"},
                       %b: tensor<6xf32> {tcc.role = "weight"}, %g: tensor<6x1x1xf32> {tcc.role = "weight"},
                       %r: tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32> {
  %y = tcc_graph.matmul %x, %w : (tensor<2x4x4x8xf32>, tensor<8x6xf32>) -> tensor<2x4x4x6xf32>
  %a = tcc_graph.add %y, %b : (tensor<2x4x4x6xf32>, tensor<6xf32>) -> tensor<2x4x4x6xf32>
  %t = tcc_graph.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : (tensor<2x4x4x6xf32>) -> tensor<2x6x4x4xf32>
  %m = tcc_graph.mul %g, %t : (tensor<6x1x1xf32>, tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32>
  %s = tcc_graph.add %m, %r : (tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32>
  return %s : tensor<2x6x4x4xf32>
}

// -----

// A scale that varies along the product's rows (the spatial dims) is not a
// column scale: it stays.
// CHECK-LABEL: func @row_scale_stays
// CHECK:     %[[Y:.*]] = tcc_graph.matmul %arg0, %arg1
// CHECK:     tcc_graph.mul %arg2, %[[Y]]
func.func @row_scale_stays(%x: tensor<2x4x8xf32>, %w: tensor<8x6xf32> {tcc.role = "weight"},
                           %g: tensor<4x1xf32> {tcc.role = "weight"}) -> tensor<2x4x6xf32> {
  %y = tcc_graph.matmul %x, %w : (tensor<2x4x8xf32>, tensor<8x6xf32>) -> tensor<2x4x6xf32>
  %m = tcc_graph.mul %g, %y : (tensor<4x1xf32>, tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  return %m : tensor<2x4x6xf32>
}
