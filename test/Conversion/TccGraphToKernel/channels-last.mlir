// RUN: tcc-opt %s -tcc-form-kernels='f32-tensor-cores=true' -canonicalize -split-input-file | FileCheck %s
// RUN: tcc-opt %s -tcc-form-kernels -split-input-file | FileCheck %s --check-prefix=NCHW

// Two convolutions with a per-channel scale, ReLU and a residual add between
// them, then a global average pool: on tensor cores the convolutions are
// channels-last, and the layout changes only at the edges: the input once
// (its 1x1 weight is a reshape), the pool reduces NHWC dims 1 and 2 and its
// [N, C] result needs none.
// CHECK-LABEL: func @block
// CHECK:      %[[X:.*]] = tcc_graph.transpose %arg0 {permutation = array<i64: 0, 2, 3, 1>} : (tensor<2x8x16x16xf32>) -> tensor<2x16x16x8xf32>
// CHECK:      %[[Y:.*]] = tcc_kernel.conv ins(%[[X]], %{{.*}} : tensor<2x16x16x8xf32>, tensor<8x1x1x8xf32>) outs(%{{.*}} : tensor<2x16x16x8xf32>) activation(relu) {channels_last,
// CHECK:      %[[S:.*]] = tcc_graph.reshape %arg2 : (tensor<8x1x1xf32>) -> tensor<1x1x1x8xf32>
// CHECK:      %[[M:.*]] = tcc_graph.mul %[[Y]], %[[S]] : (tensor<2x16x16x8xf32>, tensor<1x1x1x8xf32>) -> tensor<2x16x16x8xf32>
// CHECK:      %[[Z:.*]] = tcc_kernel.conv ins(%[[M]], %{{.*}} : tensor<2x16x16x8xf32>, tensor<8x3x3x8xf32>) residual(%[[Y]] : tensor<2x16x16x8xf32>) outs(%{{.*}} : tensor<2x16x16x8xf32>) {channels_last,
// CHECK:      %[[P:.*]] = tcc_graph.reduce_mean %[[Z]] {dims = array<i64: 1, 2>, keepdim = false} : (tensor<2x16x16x8xf32>) -> tensor<2x8xf32>
// CHECK:      return %[[P]]
// NCHW-LABEL: func @block
// NCHW-NOT:   channels_last
// NCHW-NOT:   tcc_graph.transpose
func.func @block(%x: tensor<2x8x16x16xf32>, %w1: tensor<8x8x1x1xf32>, %s: tensor<8x1x1xf32>, %w2: tensor<8x8x3x3xf32>) -> tensor<2x8xf32> {
  %y = tcc_graph.conv2d %x, %w1 {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x8x16x16xf32>, tensor<8x8x1x1xf32>) -> tensor<2x8x16x16xf32>
  %r = tcc_graph.relu %y : tensor<2x8x16x16xf32>
  %m = tcc_graph.mul %r, %s : (tensor<2x8x16x16xf32>, tensor<8x1x1xf32>) -> tensor<2x8x16x16xf32>
  %z = tcc_graph.conv2d %m, %w2 {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x16x16xf32>
  %a = tcc_graph.add %z, %r : (tensor<2x8x16x16xf32>, tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32>
  %p = tcc_graph.reduce_mean %a {dims = array<i64: 2, 3>, keepdim = false} : (tensor<2x8x16x16xf32>) -> tensor<2x8xf32>
  return %p : tensor<2x8xf32>
}

// -----

// A concatenation along the channels of a convolution's result and an
// NCHW input is computed channels-last (the input transposed on its way in);
// the max pool pools NHWC, and the result goes back to NCHW at the end.
// CHECK-LABEL: func @concat_then_pool
// CHECK:      %[[Y:.*]] = tcc_kernel.conv {{.*}} {channels_last,
// CHECK:      %[[X:.*]] = tcc_graph.transpose %arg0 {permutation = array<i64: 0, 2, 3, 1>}
// CHECK:      %[[C:.*]] = tcc_graph.concat %[[Y]], %[[X]] {dim = 3 : i64} : (tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>) -> tensor<2x8x8x8xf32>
// CHECK:      %[[P:.*]] = tcc_graph.max_pool2d %[[C]] {ceil_mode = false, channels_last, {{.*}}} : (tensor<2x8x8x8xf32>) -> tensor<2x4x4x8xf32>
// CHECK:      %[[T:.*]] = tcc_graph.transpose %[[P]] {permutation = array<i64: 0, 3, 1, 2>}
// CHECK:      return %[[T]]
func.func @concat_then_pool(%x: tensor<2x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<2x8x4x4xf32> {
  %y = tcc_graph.conv2d %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<2x4x8x8xf32>
  %c = tcc_graph.concat %y, %x {dim = 1 : i64} : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x8x8x8xf32>
  %p = tcc_graph.max_pool2d %c {ceil_mode = false, count_include_pad = false, dilation = array<i64: 1, 1>, kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<2x8x8x8xf32>) -> tensor<2x8x4x4xf32>
  return %p : tensor<2x8x4x4xf32>
}

// -----

// An f32 depthwise convolution runs on tcc's own kernel in either layout, so
// on TF32 the model is channels-last throughout: one transpose in, one out.
// CHECK-LABEL: func @depthwise_f32_channels_last
// CHECK:       %[[X:.*]] = tcc_graph.transpose %arg0 {permutation = array<i64: 0, 2, 3, 1>}
// CHECK:       %[[Y:.*]] = tcc_kernel.conv ins(%[[X]], %{{.*}} : tensor<2x8x8x8xf32>, tensor<8x1x1x8xf32>) outs(%{{.*}} : tensor<2x8x8x8xf32>) {channels_last,
// CHECK:       %[[Z:.*]] = tcc_kernel.conv ins(%[[Y]], %{{.*}} : tensor<2x8x8x8xf32>, tensor<8x3x3x1xf32>) outs(%{{.*}} : tensor<2x8x8x8xf32>) {channels_last, dilation = array<i64: 1, 1>, groups = 8 : i64
// CHECK:       %[[R:.*]] = tcc_graph.transpose %[[Z]] {permutation = array<i64: 0, 3, 1, 2>}
// CHECK:       return %[[R]]
// NCHW-LABEL: func @depthwise_f32_channels_last
// NCHW-NOT:   channels_last
func.func @depthwise_f32_channels_last(%x: tensor<2x8x8x8xf32>, %w1: tensor<8x8x1x1xf32>, %dw: tensor<8x1x3x3xf32>) -> tensor<2x8x8x8xf32> {
  %y = tcc_graph.conv2d %x, %w1 {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<2x8x8x8xf32>
  %z = tcc_graph.conv2d %y, %dw {dilation = array<i64: 1, 1>, groups = 8 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<2x8x8x8xf32>
  return %z : tensor<2x8x8x8xf32>
}

// -----

// A model with another f32 grouped convolution (two filters per group here;
// or a window over 7x7) stays NCHW even on TF32: cuDNN's NHWC f32 grouped
// kernels are several times slower than its NCHW ones.
// CHECK-LABEL: func @grouped_f32_stays_nchw
// CHECK-NOT:   channels_last
// CHECK-NOT:   tcc_graph.transpose
func.func @grouped_f32_stays_nchw(%x: tensor<2x8x8x8xf32>, %dw: tensor<8x1x3x3xf32>, %g: tensor<16x2x3x3xf32>) -> tensor<2x16x8x8xf32> {
  %y = tcc_graph.conv2d %x, %dw {dilation = array<i64: 1, 1>, groups = 8 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<2x8x8x8xf32>
  %z = tcc_graph.conv2d %y, %g {dilation = array<i64: 1, 1>, groups = 4 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x8x8x8xf32>, tensor<16x2x3x3xf32>) -> tensor<2x16x8x8xf32>
  return %z : tensor<2x16x8x8xf32>
}

// -----

// A model that permutes to channels-last itself (ConvNeXt: LayerNorm and MLP
// over [N, H, W, C]) runs its convolutions channels-last even without tensor
// cores: its permutes then cancel instead of each copying an activation.
// CHECK-LABEL: func @model_permutes_itself
// CHECK:       tcc_kernel.conv {{.*}}channels_last
// CHECK-NOT:   tcc_graph.transpose %{{.*}} {permutation = array<i64: 0, 2, 3, 1>}
// NCHW-LABEL:  func @model_permutes_itself
// NCHW:        %[[X:.*]] = tcc_graph.transpose %arg0 {permutation = array<i64: 0, 2, 3, 1>}
// NCHW:        %[[Y:.*]] = tcc_kernel.conv ins(%[[X]], {{.*}}channels_last
// NCHW-NOT:    tcc_graph.transpose
// NCHW:        return %[[Y]]
func.func @model_permutes_itself(%x: tensor<2x8x8x8xf32>, %dw: tensor<8x1x3x3xf32>) -> tensor<2x8x8x8xf32> {
  %y = tcc_graph.conv2d %x, %dw {dilation = array<i64: 1, 1>, groups = 8 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<2x8x8x8xf32>
  %p = tcc_graph.transpose %y {permutation = array<i64: 0, 2, 3, 1>} : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  return %p : tensor<2x8x8x8xf32>
}
