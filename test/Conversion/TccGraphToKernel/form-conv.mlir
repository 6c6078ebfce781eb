// RUN: tcc-opt %s -tcc-form-kernels -split-input-file | FileCheck %s

// A residual block's end: conv (bias folded in) + identity, then ReLU, is one
// tcc_kernel.conv with the padding in the op (no padded copy) and the
// residual and ReLU as its epilogue; the batch size comes from the input.
// CHECK-LABEL: func @residual_relu
// CHECK:     %[[D:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x8x16x16xf32>
// CHECK:     %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x8x16x16xf32>
// CHECK:     %[[Y:.*]] = tcc_kernel.conv ins(%arg0, %arg1 : tensor<?x8x16x16xf32>, tensor<8x8x3x3xf32>) bias(%arg2 : tensor<8xf32>) residual(%arg0 : tensor<?x8x16x16xf32>) outs(%[[E]] : tensor<?x8x16x16xf32>) activation(relu) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>}
// CHECK:     return %[[Y]]
// CHECK-NOT: tcc_graph.
func.func @residual_relu(%x: tensor<?x8x16x16xf32>, %w: tensor<8x8x3x3xf32>, %b: tensor<8xf32>) -> tensor<?x8x16x16xf32> {
  %y = tcc_graph.conv2d %x, %w, %b {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x8x16x16xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<?x8x16x16xf32>
  %s = tcc_graph.add %y, %x : (tensor<?x8x16x16xf32>, tensor<?x8x16x16xf32>) -> tensor<?x8x16x16xf32>
  %r = tcc_graph.relu %s : tensor<?x8x16x16xf32>
  return %r : tensor<?x8x16x16xf32>
}

// -----

// Symbolic spatial sizes (a Conv1d front end over a symbolic time, as a
// 1 x T convolution): the output's width is the number of windows over the
// input's width at run time, (w + 2*1 - 1*(3 - 1) - 1) floordiv 2 + 1, not
// the input's width; the batch still comes from the input.
// CHECK-LABEL: func @symbolic_width_stride2
// CHECK:     %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x8x1x?xf32>
// CHECK:     %[[W:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x8x1x?xf32>
// CHECK:     %[[CM1:.*]] = arith.constant -1 : index
// CHECK:     %[[SPAN:.*]] = arith.addi %[[W]], %[[CM1]] : index
// CHECK:     %[[C2:.*]] = arith.constant 2 : index
// CHECK:     %[[STEPS:.*]] = arith.floordivsi %[[SPAN]], %[[C2]] : index
// CHECK:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:     %[[OW:.*]] = arith.addi %[[STEPS]], %[[C1]] : index
// CHECK:     %[[E:.*]] = tensor.empty(%[[N]], %[[OW]]) : tensor<?x16x1x?xf32>
// CHECK:     tcc_kernel.conv ins(%arg0, %arg1 : tensor<?x8x1x?xf32>, tensor<16x8x1x3xf32>) outs(%[[E]] : tensor<?x16x1x?xf32>)
func.func @symbolic_width_stride2(%x: tensor<?x8x1x?xf32>, %w: tensor<16x8x1x3xf32>) -> tensor<?x16x1x?xf32> {
  %y = tcc_graph.conv2d %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 1>, stride = array<i64: 1, 2>} : (tensor<?x8x1x?xf32>, tensor<16x8x1x3xf32>) -> tensor<?x16x1x?xf32>
  return %y : tensor<?x16x1x?xf32>
}

// -----

// ReLU6 (a clamp) is not in cuDNN's epilogue: after a convolution tcc's
// depthwise kernel does not take (here grouped, two channels per group) it
// stays a tcc_graph op after the kernel, and the bias joins it there (a bias
// alone is a separate pass in cuDNN); the convolution keeps its groups.
// CHECK-LABEL: func @grouped_relu6
// CHECK:     %[[Y:.*]] = tcc_kernel.conv ins(%arg0, %arg1 : tensor<2x8x16x16xf32>, tensor<8x2x3x3xf32>) outs(%{{.*}} : tensor<2x8x8x8xf32>) {dilation = array<i64: 1, 1>, groups = 4 : i64, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>}
// CHECK:     %[[B:.*]] = tcc_graph.reshape %arg2 : (tensor<8xf32>) -> tensor<8x1x1xf32>
// CHECK:     %[[A:.*]] = tcc_graph.add %[[Y]], %[[B]]
// CHECK:     tcc_graph.maximum %[[A]]
func.func @grouped_relu6(%x: tensor<2x8x16x16xf32>, %w: tensor<8x2x3x3xf32>, %b: tensor<8xf32>) -> tensor<2x8x8x8xf32> {
  %y = tcc_graph.conv2d %x, %w, %b {dilation = array<i64: 1, 1>, groups = 4 : i64, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x8x16x16xf32>, tensor<8x2x3x3xf32>, tensor<8xf32>) -> tensor<2x8x8x8xf32>
  %zero = tcc_graph.constant dense<0.0> : tensor<f32>
  %six = tcc_graph.constant dense<6.0> : tensor<f32>
  %lo = tcc_graph.maximum %y, %zero : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<2x8x8x8xf32>
  %hi = tcc_graph.minimum %lo, %six : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<2x8x8x8xf32>
  return %hi : tensor<2x8x8x8xf32>
}

// -----

// A result read twice keeps its readers: only the convolution is formed.
// CHECK-LABEL: func @two_readers
// CHECK:     %[[Y:.*]] = tcc_kernel.conv ins(%arg0, %arg1 : tensor<2x8x16x16xf32>, tensor<8x8x1x1xf32>) outs(%{{.*}} : tensor<2x8x16x16xf32>) {
// CHECK:     tcc_graph.relu %[[Y]]
// CHECK:     return {{.*}}, %[[Y]]
func.func @two_readers(%x: tensor<2x8x16x16xf32>, %w: tensor<8x8x1x1xf32>) -> (tensor<2x8x16x16xf32>, tensor<2x8x16x16xf32>) {
  %y = tcc_graph.conv2d %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x8x16x16xf32>, tensor<8x8x1x1xf32>) -> tensor<2x8x16x16xf32>
  %r = tcc_graph.relu %y : tensor<2x8x16x16xf32>
  return %r, %y : tensor<2x8x16x16xf32>, tensor<2x8x16x16xf32>
}

// -----

// In bf16 the bias stays in the convolution even before a pointwise op: the
// op would add it to a result already rounded to bf16, where PyTorch rounds
// the sum once.
// CHECK-LABEL: func @bf16_bias_stays
// (Half convolutions are channels-last; the cast is moved past the layout change.)
// CHECK:     %[[Y:.*]] = tcc_kernel.conv ins(%{{.*}}, %{{.*}} : tensor<2x8x8x8xbf16>, tensor<8x1x1x8xbf16>) bias(%arg2 : tensor<8xbf16>) {{.*}}channels_last
// CHECK:     tcc_graph.cast %[[Y]]
func.func @bf16_bias_stays(%x: tensor<2x8x8x8xbf16>, %w: tensor<8x8x1x1xbf16>, %b: tensor<8xbf16>) -> tensor<2x8x8x8xf32> {
  %y = tcc_graph.conv2d %x, %w, %b {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x8x8x8xbf16>, tensor<8x8x1x1xbf16>, tensor<8xbf16>) -> tensor<2x8x8x8xbf16>
  %c = tcc_graph.cast %y : (tensor<2x8x8x8xbf16>) -> tensor<2x8x8x8xf32>
  return %c : tensor<2x8x8x8xf32>
}
