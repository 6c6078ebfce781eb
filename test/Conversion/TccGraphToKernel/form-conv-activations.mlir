// RUN: tcc-opt %s -tcc-form-kernels='f32-tensor-cores=true' -canonicalize -split-input-file | FileCheck %s
// RUN: tcc-opt %s -tcc-form-kernels -split-input-file | FileCheck %s --check-prefix=NCHW
// RUN: tcc-opt %s -tcc-form-kernels='cpu-only=true' -canonicalize -split-input-file | FileCheck %s --check-prefix=CPU

// Activations around depthwise convolutions that tcc's kernel applies
// itself (MatchActivation.cpp): channels-last always, NCHW on large planes.

// MobileNetV2's inverted residual: the ReLU6 after the expansion becomes the
// depthwise convolution's input activation (its bias stays in the expansion's
// call, not in a pointwise op that no longer exists), the one after the
// depthwise convolution its epilogue: no pointwise ops are left.
// CHECK-LABEL: func @relu6_around_depthwise
// CHECK:     %[[E:.*]] = tcc_kernel.conv ins({{.*}}) bias(%arg2 : tensor<8xf32>) outs({{.*}}) {channels_last
// CHECK:     %[[D:.*]] = tcc_kernel.conv ins(%[[E]], {{.*}}) input_activation(relu6) bias(%arg4 : tensor<8xf32>) outs({{.*}}) activation(relu6) {channels_last{{.*}}groups = 8
// CHECK-NOT: tcc_graph.{{maximum|minimum}}
// CHECK:     tcc_graph.transpose %[[D]]
// In NCHW, on planes this small, cuDNN competes: the ReLU6s stay ops.
// NCHW-LABEL: func @relu6_around_depthwise
// NCHW-NOT:   input_activation
// NCHW:       tcc_graph.maximum
// For the CPU path alone (oneDNN): channels-last, each ReLU6 the epilogue of
// the convolution before it (the expansion's too), none on an input, biases
// in the calls.
// CPU-LABEL: func @relu6_around_depthwise
// CPU:       %[[E:.*]] = tcc_kernel.conv ins({{.*}}) bias(%arg2 : tensor<8xf32>) outs({{.*}}) activation(relu6) {channels_last
// CPU:       tcc_kernel.conv ins(%[[E]], {{.*}}) bias(%arg4 : tensor<8xf32>) outs({{.*}}) activation(relu6) {channels_last{{.*}}groups = 8
// CPU-NOT:   input_activation
// CPU-NOT:   tcc_graph.{{maximum|minimum}}
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
// CHECK:     %[[D:.*]] = tcc_kernel.conv ins({{.*}}) input_activation(silu) outs({{.*}}) activation(silu) {channels_last{{.*}}groups = 8
// CHECK:     %[[P:.*]] = tcc_kernel.conv ins(%[[D]], {{.*}}) outs(
// CHECK:     tcc_graph.neg %[[P]]
// CHECK:     tcc_graph.exp
// CHECK:     tcc_graph.mul %[[P]]
// On the CPU path alone, the SiLU before the depthwise convolution stays a
// pointwise op (oneDNN takes no activation on an input).
// CPU-LABEL: func @silu_around_depthwise
// CPU:       tcc_graph.exp
// CPU-NOT:   input_activation
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
// CHECK:     %[[A:.*]] = tcc_graph.mul %arg0
// CHECK:     %[[AT:.*]] = tcc_graph.transpose %[[A]]
// CHECK:     tcc_kernel.conv ins(%[[AT]], {{.*}}) outs({{.*}}) activation(hardswish) {channels_last
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

// -----

// In NCHW tcc's kernel takes the activations on outputs of at least 28x28
// with stride 1 (where it was faster than cuDNN's).
// CHECK-LABEL: func @nchw_large_plane
// CHECK:      tcc_kernel.conv {{.*}} input_activation(relu6) outs({{.*}}) activation(relu6) {channels_last
// NCHW-LABEL: func @nchw_large_plane
// NCHW:       tcc_kernel.conv ins(%arg0, %arg1 : tensor<1x8x28x28xf32>, tensor<8x1x3x3xf32>) input_activation(relu6) outs({{.*}}) activation(relu6) {dilation
func.func @nchw_large_plane(%x: tensor<1x8x28x28xf32>, %wd: tensor<8x1x3x3xf32>) -> tensor<1x8x28x28xf32> {
  %zero = tcc_graph.constant dense<0.0> : tensor<f32>
  %six = tcc_graph.constant dense<6.0> : tensor<f32>
  %x1 = tcc_graph.maximum %x, %zero : (tensor<1x8x28x28xf32>, tensor<f32>) -> tensor<1x8x28x28xf32>
  %x2 = tcc_graph.minimum %x1, %six : (tensor<1x8x28x28xf32>, tensor<f32>) -> tensor<1x8x28x28xf32>
  %d = tcc_graph.conv2d %x2, %wd {dilation = array<i64: 1, 1>, groups = 8 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x28x28xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x28x28xf32>
  %d1 = tcc_graph.maximum %d, %zero : (tensor<1x8x28x28xf32>, tensor<f32>) -> tensor<1x8x28x28xf32>
  %d2 = tcc_graph.minimum %d1, %six : (tensor<1x8x28x28xf32>, tensor<f32>) -> tensor<1x8x28x28xf32>
  return %d2 : tensor<1x8x28x28xf32>
}
