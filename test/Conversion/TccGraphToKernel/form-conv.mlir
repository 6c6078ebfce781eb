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

// -----

// MobileNetV2's inverted residual: the ReLU6 after the expansion becomes the
// depthwise convolution's input activation (its bias stays in the expansion's
// call, not in a pointwise op that no longer exists), the one after the
// depthwise convolution its epilogue: no pointwise ops are left.
// CHECK-LABEL: func @relu6_around_depthwise
// CHECK:     %[[E:.*]] = tcc_kernel.conv ins(%arg0, %arg1 : tensor<2x4x8x8xf32>, tensor<8x4x1x1xf32>) bias(%arg2 : tensor<8xf32>) outs(
// CHECK:     %[[D:.*]] = tcc_kernel.conv ins(%[[E]], %arg3 : tensor<2x8x8x8xf32>, tensor<8x1x3x3xf32>) input_activation(relu6) bias(%arg4 : tensor<8xf32>) outs({{.*}}) activation(relu6) {{.*}}groups = 8
// CHECK-NOT: tcc_graph.
// CHECK:     return %[[D]]
func.func @relu6_around_depthwise(%x: tensor<2x4x8x8xf32>, %we: tensor<8x4x1x1xf32>, %be: tensor<8xf32>, %wd: tensor<8x1x3x3xf32>, %bd: tensor<8xf32>) -> tensor<2x8x8x8xf32> {
  %zero = tcc_graph.constant dense<0.0> : tensor<f32>
  %six = tcc_graph.constant dense<6.0> : tensor<f32>
  %e = tcc_graph.conv2d %x, %we, %be {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<8x4x1x1xf32>, tensor<8xf32>) -> tensor<2x8x8x8xf32>
  %e1 = tcc_graph.maximum %e, %zero : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<2x8x8x8xf32>
  %e2 = tcc_graph.minimum %e1, %six : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<2x8x8x8xf32>
  %d = tcc_graph.conv2d %e2, %wd, %bd {dilation = array<i64: 1, 1>, groups = 8 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x8x8x8xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<2x8x8x8xf32>
  %d1 = tcc_graph.maximum %d, %zero : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<2x8x8x8xf32>
  %d2 = tcc_graph.minimum %d1, %six : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<2x8x8x8xf32>
  return %d2 : tensor<2x8x8x8xf32>
}

// -----

// SiLU as legalization writes it (x * (1 / (1 + exp(-x)))), before and after a
// strided 5x5 depthwise convolution. A SiLU whose result is read twice stays
// ops (here after the last convolution, a plain one: cuDNN takes no SiLU).
// CHECK-LABEL: func @silu_around_depthwise
// CHECK:     %[[D:.*]] = tcc_kernel.conv ins(%arg0, %arg1 : tensor<2x8x8x8xf32>, tensor<8x1x5x5xf32>) input_activation(silu) outs({{.*}}) activation(silu) {{.*}}groups = 8
// CHECK:     %[[P:.*]] = tcc_kernel.conv ins(%[[D]], %arg2 : {{.*}}) outs(
// CHECK:     tcc_graph.neg %[[P]]
// CHECK:     tcc_graph.exp
// CHECK:     tcc_graph.mul %[[P]]
func.func @silu_around_depthwise(%x: tensor<2x8x8x8xf32>, %wd: tensor<8x1x5x5xf32>, %wp: tensor<4x8x1x1xf32>) -> (tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>) {
  %one = tcc_graph.constant dense<1.0> : tensor<f32>
  %n0 = tcc_graph.neg %x : tensor<2x8x8x8xf32>
  %x0 = tcc_graph.exp %n0 : tensor<2x8x8x8xf32>
  %a0 = tcc_graph.add %one, %x0 : (tensor<f32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %s0 = tcc_graph.div %one, %a0 : (tensor<f32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %in = tcc_graph.mul %x, %s0 : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %d = tcc_graph.conv2d %in, %wd {dilation = array<i64: 1, 1>, groups = 8 : i64, padding = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<2x8x8x8xf32>, tensor<8x1x5x5xf32>) -> tensor<2x8x4x4xf32>
  %n1 = tcc_graph.neg %d : tensor<2x8x4x4xf32>
  %x1 = tcc_graph.exp %n1 : tensor<2x8x4x4xf32>
  %a1 = tcc_graph.add %x1, %one : (tensor<2x8x4x4xf32>, tensor<f32>) -> tensor<2x8x4x4xf32>
  %s1 = tcc_graph.div %one, %a1 : (tensor<f32>, tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %h = tcc_graph.mul %s1, %d : (tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %p = tcc_graph.conv2d %h, %wp {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x8x4x4xf32>, tensor<4x8x1x1xf32>) -> tensor<2x4x4x4xf32>
  %n2 = tcc_graph.neg %p : tensor<2x4x4x4xf32>
  %x2 = tcc_graph.exp %n2 : tensor<2x4x4x4xf32>
  %a2 = tcc_graph.add %one, %x2 : (tensor<f32>, tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %s2 = tcc_graph.div %one, %a2 : (tensor<f32>, tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %q = tcc_graph.mul %p, %s2 : (tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  return %q, %q : tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>
}

// -----

// An activated input that something else reads too is not fused (its kernel
// must run anyway); a hardswish epilogue is.
// CHECK-LABEL: func @shared_input_not_fused
// CHECK:     %[[A:.*]] = tcc_graph.mul %arg0,
// CHECK:     tcc_kernel.conv ins(%[[A]], %arg1 : {{.*}}) outs({{.*}}) activation(hardswish)
// CHECK-NOT: input_activation
func.func @shared_input_not_fused(%x: tensor<2x8x8x8xf32>, %wd: tensor<8x1x3x3xf32>) -> (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) {
  %zero = tcc_graph.constant dense<0.0> : tensor<f32>
  %half = tcc_graph.constant dense<0.5> : tensor<f32>
  %one = tcc_graph.constant dense<1.0> : tensor<f32>
  %six = tcc_graph.constant dense<6.0> : tensor<f32>
  %q0 = tcc_graph.div %x, %six : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<2x8x8x8xf32>
  %q1 = tcc_graph.add %q0, %half : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<2x8x8x8xf32>
  %q2 = tcc_graph.maximum %q1, %zero : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<2x8x8x8xf32>
  %q3 = tcc_graph.minimum %q2, %one : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<2x8x8x8xf32>
  %a = tcc_graph.mul %x, %q3 : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %d = tcc_graph.conv2d %a, %wd {dilation = array<i64: 1, 1>, groups = 8 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<2x8x8x8xf32>
  %r0 = tcc_graph.div %d, %six : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<2x8x8x8xf32>
  %r1 = tcc_graph.add %r0, %half : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<2x8x8x8xf32>
  %r2 = tcc_graph.maximum %r1, %zero : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<2x8x8x8xf32>
  %r3 = tcc_graph.minimum %r2, %one : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<2x8x8x8xf32>
  %h = tcc_graph.mul %d, %r3 : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  return %h, %a : tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>
}
