// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics | FileCheck %s

// Adaptive pooling, one spatial dim after another: 8 -> 4 divides evenly (a
// reshape and one reduction), 9 -> 4 does not (four windows [0,3) [2,5) [4,7)
// [6,9), each reduced, concatenated).
// CHECK-LABEL: func @adaptive_max
// CHECK: %[[R:.*]] = tcc_graph.reshape %arg0 : (tensor<2x3x8x9xf32>) -> tensor<2x3x4x2x9xf32>
// CHECK: %[[H:.*]] = tcc_graph.reduce_max %[[R]] {dims = array<i64: 3>, keepdim = false} : (tensor<2x3x4x2x9xf32>) -> tensor<2x3x4x9xf32>
// CHECK-COUNT-4: tcc_graph.reduce_max %{{.*}} {dims = array<i64: 3>, keepdim = true} : (tensor<2x3x4x3xf32>) -> tensor<2x3x4x1xf32>
// CHECK: tcc_graph.concat {{.*}} {dim = 3 : i64} : (tensor<2x3x4x1xf32>, tensor<2x3x4x1xf32>, tensor<2x3x4x1xf32>, tensor<2x3x4x1xf32>) -> tensor<2x3x4x4xf32>
func.func @adaptive_max(%x: tensor<2x3x8x9xf32>) -> tensor<2x3x4x4xf32> {
  %0:2 = tcc_graph.operator "torch.ops.aten.adaptive_max_pool2d.default"(%x) {operand_names = ["self"], args = {output_size = array<i64: 4, 4>}} : (tensor<2x3x8x9xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xi64>)
  return %0#0 : tensor<2x3x4x4xf32>
}

// -----

// A global adaptive average: one mean over the spatial dims (here 3).
// CHECK-LABEL: func @adaptive_avg_global_3d
// CHECK: tcc_graph.reduce_mean %arg0 {dims = array<i64: 2, 3, 4>, keepdim = true} : (tensor<2x3x4x5x6xf32>) -> tensor<2x3x1x1x1xf32>
func.func @adaptive_avg_global_3d(%x: tensor<2x3x4x5x6xf32>) -> tensor<2x3x1x1x1xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.adaptive_avg_pool3d.default"(%x) {operand_names = ["self"], args = {output_size = array<i64: 1, 1, 1>}} : (tensor<2x3x4x5x6xf32>) -> tensor<2x3x1x1x1xf32>
  return %0 : tensor<2x3x1x1x1xf32>
}

// -----

// max_pool3d: a 2-D pool over (H, W) with D among the channels, then one over
// (D, 1) with H*W as the width.
// CHECK-LABEL: func @max_pool3d
// CHECK: %[[A:.*]] = tcc_graph.reshape %arg0 : (tensor<2x3x6x7x8xf32>) -> tensor<2x18x7x8xf32>
// CHECK: %[[B:.*]] = tcc_graph.max_pool2d %[[A]] {ceil_mode = false, count_include_pad = false, dilation = array<i64: 1, 1>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x18x7x8xf32>) -> tensor<2x18x4x4xf32>
// CHECK: %[[C:.*]] = tcc_graph.reshape %[[B]] : (tensor<2x18x4x4xf32>) -> tensor<2x3x6x16xf32>
// CHECK: %[[D:.*]] = tcc_graph.max_pool2d %[[C]] {ceil_mode = false, count_include_pad = false, dilation = array<i64: 1, 1>, kernel = array<i64: 3, 1>, padding = array<i64: 1, 0>, stride = array<i64: 2, 1>} : (tensor<2x3x6x16xf32>) -> tensor<2x3x3x16xf32>
// CHECK: tcc_graph.reshape %[[D]] : (tensor<2x3x3x16xf32>) -> tensor<2x3x3x4x4xf32>
func.func @max_pool3d(%x: tensor<2x3x6x7x8xf32>) -> tensor<2x3x3x4x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.max_pool3d.default"(%x) {operand_names = ["self"], args = {kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1>}} : (tensor<2x3x6x7x8xf32>) -> tensor<2x3x3x4x4xf32>
  return %0 : tensor<2x3x3x4x4xf32>
}

// -----

// avg_pool3d with divisor_override and ceil_mode: depth 6 -> 6, height
// 7 -> 8, width 8 -> 8 padded with zeros, then two pools without ceil_mode.
// CHECK-LABEL: func @avg_pool3d_divisor_ceil
// CHECK: tcc_graph.concat %arg0, %{{.*}} {dim = 3 : i64} : (tensor<2x3x6x7x8xf32>, tensor<2x3x6x1x8xf32>) -> tensor<2x3x6x8x8xf32>
// CHECK: tcc_graph.avg_pool2d %{{.*}} {ceil_mode = false
// CHECK: tcc_graph.avg_pool2d %{{.*}} {ceil_mode = false
// CHECK: tcc_graph.constant dense<2.66666675> : tensor<f32>
func.func @avg_pool3d_divisor_ceil(%x: tensor<2x3x6x7x8xf32>) -> tensor<2x3x3x4x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.avg_pool3d.default"(%x) {operand_names = ["self"], args = {kernel_size = array<i64: 2, 2, 2>, ceil_mode = true, divisor_override = 3 : i64}} : (tensor<2x3x6x7x8xf32>) -> tensor<2x3x3x4x4xf32>
  return %0 : tensor<2x3x3x4x4xf32>
}

// -----

// divisor_override: every window of a pool with count_include_pad and no
// ceil_mode divides by the kernel size (9), rescaled to divide by 4.
// CHECK-LABEL: func @divisor_override
// CHECK: %[[A:.*]] = tcc_graph.avg_pool2d %arg0 {{.*}}count_include_pad = true
// CHECK: %[[R:.*]] = tcc_graph.constant dense<2.250000e+00> : tensor<f32>
// CHECK: %[[S:.*]] = tcc_graph.mul %[[A]], %[[R]]
// CHECK: return %[[S]]
func.func @divisor_override(%x: tensor<1x1x6x6xf32>) -> tensor<1x1x2x2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.avg_pool2d.default"(%x) {operand_names = ["self"], args = {kernel_size = array<i64: 3, 3>, stride = array<i64: 3, 3>, count_include_pad = false, divisor_override = 4 : i64}} : (tensor<1x1x6x6xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

func.func @divisor_override_zero(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{operator 'aten.avg_pool2d.default': divisor_override must not be 0}}
  %0 = tcc_graph.operator "torch.ops.aten.avg_pool2d.default"(%x) {operand_names = ["self"], args = {kernel_size = array<i64: 3, 3>, stride = array<i64: 3, 3>, ceil_mode = true, divisor_override = 0 : i64}} : (tensor<1x1x5x5xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// conv_transpose1d as the 2-D one over a height of 1: the input spread by
// the stride and padded, the kernel flipped and its channels swapped, one
// conv2d, the unit height dropped.
// CHECK-LABEL: func @conv_transpose1d
// CHECK: %[[X:.*]] = tcc_graph.reshape %arg0 : (tensor<2x4x5xf32>) -> tensor<2x4x1x5xf32>
// CHECK: %[[W:.*]] = tcc_graph.reshape %arg1 : (tensor<4x3x2xf32>) -> tensor<4x3x1x2xf32>
// CHECK: %[[C:.*]] = tcc_graph.conv2d %{{.*}}, %{{.*}} {{.*}} : (tensor<2x4x1x11xf32>, tensor<3x4x1x2xf32>) -> tensor<2x3x1x10xf32>
// CHECK: %[[R:.*]] = tcc_graph.reshape %[[C]] : (tensor<2x3x1x10xf32>) -> tensor<2x3x10xf32>
// CHECK: return %[[R]]
func.func @conv_transpose1d(%x: tensor<2x4x5xf32>, %w: tensor<4x3x2xf32>) -> tensor<2x3x10xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.conv_transpose1d.default"(%x, %w) {operand_names = ["input", "weight"], args = {stride = array<i64: 2>}} : (tensor<2x4x5xf32>, tensor<4x3x2xf32>) -> tensor<2x3x10xf32>
  return %0 : tensor<2x3x10xf32>
}

// -----

// divisor_override with ceil_mode: the input padded with zeros at the end
// (5 -> 6) so that every ceil_mode window fits whole, pooled without
// ceil_mode (each window divides by 4), rescaled to divide by 3.
// CHECK-LABEL: func @avg_pool2d_divisor_ceil
// CHECK: %[[H:.*]] = tcc_graph.concat %arg0, %{{.*}} {dim = 2 : i64} : (tensor<1x2x5x5xf32>, tensor<1x2x1x5xf32>) -> tensor<1x2x6x5xf32>
// CHECK: %[[W:.*]] = tcc_graph.concat %[[H]], %{{.*}} {dim = 3 : i64} : (tensor<1x2x6x5xf32>, tensor<1x2x6x1xf32>) -> tensor<1x2x6x6xf32>
// CHECK: %[[P:.*]] = tcc_graph.avg_pool2d %[[W]] {ceil_mode = false, count_include_pad = true
// CHECK: %[[K:.*]] = tcc_graph.constant dense<1.33333337> : tensor<f32>
// CHECK: tcc_graph.mul %[[P]], %[[K]]
func.func @avg_pool2d_divisor_ceil(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.avg_pool2d.default"(%x) {operand_names = ["self"], args = {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = true, count_include_pad = true, divisor_override = 3 : i64}} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// Adaptive pooling over a symbolic height (issue 39): the window bounds are
// computed from the size at run time (dim_size, floor and ceil of i*n/3 and
// (i+1)*n/3), and each of the 3 windows is a reduction of the whole dim with
// the elements outside it replaced by 0, divided by its width; the static
// width (9 -> 3) stays a reshape and one reduction.
// CHECK-LABEL: func @adaptive_symbolic
// CHECK: tcc_graph.dim_size
// CHECK: tcc_graph.iota sizes
// CHECK-COUNT-3: tcc_graph.select
// CHECK: tcc_graph.concat
func.func @adaptive_symbolic(%x: tensor<2x3x?x9xf32>) -> tensor<2x3x3x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.adaptive_avg_pool2d.default"(%x) {operand_names = ["self"], args = {output_size = array<i64: 3, 3>}} : (tensor<2x3x?x9xf32>) -> tensor<2x3x3x3xf32>
  return %0 : tensor<2x3x3x3xf32>
}

// -----

// Over a symbolic size, only floating-point inputs (the max's fill is -inf).
func.func @adaptive_symbolic_int(%x: tensor<2x3x?x9xi32>) -> tensor<2x3x3x3xi32> {
  // expected-error @+1 {{adaptive pooling over a symbolic size expects a floating-point tensor, got 'i32'}}
  %0:2 = tcc_graph.operator "torch.ops.aten.adaptive_max_pool2d.default"(%x) {operand_names = ["self"], args = {output_size = array<i64: 3, 3>}} : (tensor<2x3x?x9xi32>) -> (tensor<2x3x3x3xi32>, tensor<2x3x3x3xi64>)
  return %0#0 : tensor<2x3x3x3xi32>
}

// -----

// CHECK-LABEL: func @adaptive_global_symbolic
// CHECK: tcc_graph.reduce
func.func @adaptive_global_symbolic(%x: tensor<2x3x?x?xf32>) -> tensor<2x3x1x1xf32> {
  %0:2 = tcc_graph.operator "torch.ops.aten.adaptive_max_pool2d.default"(%x) {operand_names = ["self"], args = {output_size = array<i64: 1, 1>}} : (tensor<2x3x?x?xf32>) -> (tensor<2x3x1x1xf32>, tensor<2x3x1x1xi64>)
  return %0#0 : tensor<2x3x1x1xf32>
}

// -----

// A bf16 adaptive average is taken in f32 and rounded once (PyTorch sums a
// window in f32): a bf16 mean per spatial dim was an ulp off.
// CHECK-LABEL: func @adaptive_avg_bf16
// CHECK: %[[W:.*]] = tcc_graph.cast %arg0 : (tensor<2x3x9x9xbf16>) -> tensor<2x3x9x9xf32>
// CHECK: tcc_graph.reduce_mean %{{.*}} {dims = array<i64: 3>, keepdim = false} : (tensor<2x3x3x3x9xf32>) -> tensor<2x3x3x9xf32>
// CHECK: %[[M:.*]] = tcc_graph.reduce_mean %{{.*}} {dims = array<i64: 4>, keepdim = false} : (tensor<2x3x3x3x3xf32>) -> tensor<2x3x3x3xf32>
// CHECK: %[[R:.*]] = tcc_graph.cast %[[M]] : (tensor<2x3x3x3xf32>) -> tensor<2x3x3x3xbf16>
// CHECK: return %[[R]]
func.func @adaptive_avg_bf16(%x: tensor<2x3x9x9xbf16>) -> tensor<2x3x3x3xbf16> {
  %0 = tcc_graph.operator "torch.ops.aten.adaptive_avg_pool2d.default"(%x) {operand_names = ["self"], args = {output_size = array<i64: 3, 3>}} : (tensor<2x3x9x9xbf16>) -> tensor<2x3x3x3xbf16>
  return %0 : tensor<2x3x3x3xbf16>
}

// -----

// A bf16 avg_pool3d: both 2-D pools in f32, one rounding at the end.
// CHECK-LABEL: func @avg_pool3d_bf16
// CHECK: tcc_graph.cast %arg0 : (tensor<1x2x4x4x4xbf16>) -> tensor<1x2x4x4x4xf32>
// CHECK: tcc_graph.avg_pool2d {{.*}} -> tensor<1x8x2x2xf32>
// CHECK: tcc_graph.avg_pool2d {{.*}} -> tensor<1x2x2x4xf32>
// CHECK: %[[R:.*]] = tcc_graph.cast %{{.*}} : (tensor<1x2x2x2x2xf32>) -> tensor<1x2x2x2x2xbf16>
// CHECK: return %[[R]]
func.func @avg_pool3d_bf16(%x: tensor<1x2x4x4x4xbf16>) -> tensor<1x2x2x2x2xbf16> {
  %0 = tcc_graph.operator "torch.ops.aten.avg_pool3d.default"(%x) {operand_names = ["self"], args = {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>}} : (tensor<1x2x4x4x4xbf16>) -> tensor<1x2x2x2x2xbf16>
  return %0 : tensor<1x2x2x2x2xbf16>
}
