// RUN: tcc-opt %s -tcc-form-kernels='cpu-only=true' -split-input-file | FileCheck %s
// RUN: tcc-opt %s -tcc-form-kernels -split-input-file | FileCheck %s --check-prefix=FLOAT

// PT2E's conv: dequantize(u8 image) and dequantize(s8 filters, per filter)
// into conv2d with a bias, ReLU and a quantize to u8 after it: one
// tcc_kernel.qconv on the integers (CPU path). Its scales are sx · sw, the
// zero points i64, the output's multiplier f32(1 / f64(scale)) (a constant
// here: 1 / 0.05).
// CHECK-LABEL: func @conv_relu_requantize
// CHECK-NOT: tcc_graph.conv2d
// CHECK: %[[S:.*]] = tcc_graph.mul %arg3, %{{.*}} : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK: %[[INVF:.*]] = tcc_graph.constant dense<2.000000e+01> : tensor<f32>
// The images channels-last (oneDNN's int8 layout), the filters FCRS.
// CHECK: %[[X:.*]] = tcc_graph.transpose %{{.*}} {permutation = array<i64: 0, 2, 3, 1>} : (tensor<2x3x8x8xui8>) -> tensor<2x8x8x3xui8>
// CHECK: %[[Q:.*]] = tcc_kernel.qconv ins(%[[X]], %arg1 : tensor<2x8x8x3xui8>, tensor<8x3x3x3xi8>) scales(%[[S]] : tensor<8xf32>) zero_points(%arg4, %{{.*}} : tensor<8xi64>, tensor<i64>) bias(%arg2 : tensor<8xf32>) requantize(%[[INVF]], %{{.*}} : tensor<f32>, tensor<i64>) outs(%{{.*}} : tensor<2x8x8x8xui8>) activation(relu) {channels_last, dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, quant_max = 255 : i64, quant_min = 0 : i64, stride = array<i64: 1, 1>}
// CHECK: %[[R:.*]] = tcc_graph.transpose %[[Q]] {permutation = array<i64: 0, 3, 1, 2>}
// CHECK: return %[[R]]
// Without the CPU path alone: PyTorch's float arithmetic around an f32 conv.
// FLOAT-LABEL: func @conv_relu_requantize
// FLOAT-NOT: tcc_kernel.qconv
// FLOAT-NOT: tcc_graph.quantize
// FLOAT: tcc_graph.round
// FLOAT: tcc_kernel.conv
func.func @conv_relu_requantize(%x: tensor<2x3x8x8xf32>, %wq: tensor<8x3x3x3xi8>, %b: tensor<8xf32>,
    %ws: tensor<8xf32>, %wz: tensor<8xi64>) -> tensor<2x8x8x8xui8> {
  %s = tcc_graph.constant dense<0.025> : tensor<f64>
  %z = tcc_graph.constant dense<128> : tensor<i64>
  %xq = tcc_graph.quantize %x, %s, %z {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<2x3x8x8xf32>, tensor<f64>, tensor<i64>) -> tensor<2x3x8x8xui8>
  %xd = tcc_graph.dequantize %xq, %s, %z {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<2x3x8x8xui8>, tensor<f64>, tensor<i64>) -> tensor<2x3x8x8xf32>
  %w = tcc_graph.dequantize %wq, %ws, %wz {axis = 0 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : (tensor<8x3x3x3xi8>, tensor<8xf32>, tensor<8xi64>) -> tensor<8x3x3x3xf32>
  %y = tcc_graph.conv2d %xd, %w, %b {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x8x8xf32>
  %r = tcc_graph.relu %y : tensor<2x8x8x8xf32>
  %s2 = tcc_graph.constant dense<0.05> : tensor<f64>
  %z2 = tcc_graph.constant dense<0> : tensor<i64>
  %q = tcc_graph.quantize %r, %s2, %z2 {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<2x8x8x8xf32>, tensor<f64>, tensor<i64>) -> tensor<2x8x8x8xui8>
  return %q : tensor<2x8x8x8xui8>
}

// -----

// PT2E's linear (legalized: a transpose of the weight, a matmul, a bias add)
// with an f32 result: the 1x1 qconv of [M, K, 1, 1], reshaped back; a
// per-tensor filter scale and zero point broadcast to every filter.
// CHECK-LABEL: func @linear_f32
// CHECK-NOT: tcc_graph.matmul
// CHECK: %[[X:.*]] = tcc_graph.reshape %arg0 : (tensor<4x16xui8>) -> tensor<4x16x1x1xui8>
// CHECK: %[[W:.*]] = tcc_graph.reshape %arg1 : (tensor<10x16xi8>) -> tensor<10x16x1x1xi8>
// CHECK: %[[Y:.*]] = tcc_kernel.qconv ins(%[[X]], %[[W]] : tensor<4x16x1x1xui8>, tensor<10x16x1x1xi8>) scales(%{{.*}} : tensor<10xf32>) zero_points(%{{.*}}, %{{.*}} : tensor<10xi64>, tensor<i64>) bias(%arg2 : tensor<10xf32>) outs(%{{.*}} : tensor<4x10x1x1xf32>)
// CHECK: %[[R:.*]] = tcc_graph.reshape %[[Y]] : (tensor<4x10x1x1xf32>) -> tensor<4x10xf32>
// CHECK: return %[[R]]
func.func @linear_f32(%xq: tensor<4x16xui8>, %wq: tensor<10x16xi8>, %b: tensor<10xf32>) -> tensor<4x10xf32> {
  %s = tcc_graph.constant dense<0.025> : tensor<f64>
  %z = tcc_graph.constant dense<3> : tensor<i64>
  %ws = tcc_graph.constant dense<0.01> : tensor<f64>
  %wz = tcc_graph.constant dense<0> : tensor<i64>
  %xd = tcc_graph.dequantize %xq, %s, %z {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<4x16xui8>, tensor<f64>, tensor<i64>) -> tensor<4x16xf32>
  %w = tcc_graph.dequantize %wq, %ws, %wz {quant_min = -128 : i64, quant_max = 127 : i64} : (tensor<10x16xi8>, tensor<f64>, tensor<i64>) -> tensor<10x16xf32>
  %wt = tcc_graph.transpose %w {permutation = array<i64: 1, 0>} : (tensor<10x16xf32>) -> tensor<16x10xf32>
  %y = tcc_graph.matmul %xd, %wt : (tensor<4x16xf32>, tensor<16x10xf32>) -> tensor<4x10xf32>
  %r = tcc_graph.add %y, %b : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  return %r : tensor<4x10xf32>
}

// -----

// Filters quantized along another axis than the filters': not PT2E's
// pattern for oneDNN, so the float arithmetic (exact) computes it.
// CHECK-LABEL: func @filters_per_input_channel
// CHECK-NOT: tcc_kernel.qconv
// CHECK: tcc_graph.round
// CHECK: tcc_kernel.conv
func.func @filters_per_input_channel(%x: tensor<1x3x8x8xf32>, %wq: tensor<8x3x3x3xi8>, %ws: tensor<3xf32>, %wz: tensor<3xi64>) -> tensor<1x8x6x6xf32> {
  %s = tcc_graph.constant dense<0.025> : tensor<f64>
  %z = tcc_graph.constant dense<128> : tensor<i64>
  %xq = tcc_graph.quantize %x, %s, %z {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<1x3x8x8xf32>, tensor<f64>, tensor<i64>) -> tensor<1x3x8x8xui8>
  %xd = tcc_graph.dequantize %xq, %s, %z {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<1x3x8x8xui8>, tensor<f64>, tensor<i64>) -> tensor<1x3x8x8xf32>
  %w = tcc_graph.dequantize %wq, %ws, %wz {axis = 1 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : (tensor<8x3x3x3xi8>, tensor<3xf32>, tensor<3xi64>) -> tensor<8x3x3x3xf32>
  %y = tcc_graph.conv2d %xd, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %y : tensor<1x8x6x6xf32>
}

// -----

// A ResNet block's end: conv (batch norm folded in), + the identity, ReLU,
// quantize: the identity (dequantized, f32) is the kernel's residual.
// CHECK-LABEL: func @conv_residual
// CHECK: tcc_kernel.qconv ins(%{{.*}}, %arg1 : tensor<1x4x4x8xui8>, tensor<8x8x3x3xi8>) {{.*}} bias(%arg2 : tensor<8xf32>) residual(%{{.*}} : tensor<1x4x4x8xf32>) requantize({{.*}}) outs(%{{.*}} : tensor<1x4x4x8xui8>) activation(relu) {channels_last
// CHECK-NOT: tcc_graph.add
func.func @conv_residual(%xq: tensor<1x8x4x4xui8>, %wq: tensor<8x8x3x3xi8>, %b: tensor<8xf32>, %ws: tensor<8xf32>, %wz: tensor<8xi64>) -> tensor<1x8x4x4xui8> {
  %s = tcc_graph.constant dense<0.025> : tensor<f64>
  %z = tcc_graph.constant dense<0> : tensor<i64>
  %xd = tcc_graph.dequantize %xq, %s, %z {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<1x8x4x4xui8>, tensor<f64>, tensor<i64>) -> tensor<1x8x4x4xf32>
  %w = tcc_graph.dequantize %wq, %ws, %wz {axis = 0 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : (tensor<8x8x3x3xi8>, tensor<8xf32>, tensor<8xi64>) -> tensor<8x8x3x3xf32>
  %y = tcc_graph.conv2d %xd, %w, %b {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  %id = tcc_graph.dequantize %xq, %s, %z {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<1x8x4x4xui8>, tensor<f64>, tensor<i64>) -> tensor<1x8x4x4xf32>
  %sum = tcc_graph.add %y, %id : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %r = tcc_graph.relu %sum : tensor<1x8x4x4xf32>
  %q = tcc_graph.quantize %r, %s, %z {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<1x8x4x4xf32>, tensor<f64>, tensor<i64>) -> tensor<1x8x4x4xui8>
  return %q : tensor<1x8x4x4xui8>
}

// -----

// A symbolic batch: the kernel's result takes the input's; a linear layer's
// rows are symbolic through the reshapes.
// CHECK-LABEL: func @dynamic_batch_linear
// CHECK: %[[X:.*]] = tcc_graph.reshape %arg0 : (tensor<?x16xui8>) -> tensor<?x16x1x1xui8>
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x16x1x1xui8>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x10x1x1xf32>
// CHECK: tcc_kernel.qconv ins(%[[X]], %{{.*}} : tensor<?x16x1x1xui8>, tensor<10x16x1x1xi8>) {{.*}} outs(%[[E]] : tensor<?x10x1x1xf32>)
func.func @dynamic_batch_linear(%xq: tensor<?x16xui8>, %wq: tensor<10x16xi8>, %ws: tensor<10xf32>, %wz: tensor<10xi64>) -> tensor<?x10xf32> {
  %s = tcc_graph.constant dense<0.025> : tensor<f64>
  %z = tcc_graph.constant dense<3> : tensor<i64>
  %xd = tcc_graph.dequantize %xq, %s, %z {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<?x16xui8>, tensor<f64>, tensor<i64>) -> tensor<?x16xf32>
  %w = tcc_graph.dequantize %wq, %ws, %wz {axis = 0 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : (tensor<10x16xi8>, tensor<10xf32>, tensor<10xi64>) -> tensor<10x16xf32>
  %wt = tcc_graph.transpose %w {permutation = array<i64: 1, 0>} : (tensor<10x16xf32>) -> tensor<16x10xf32>
  %y = tcc_graph.matmul %xd, %wt : (tensor<?x16xf32>, tensor<16x10xf32>) -> tensor<?x10xf32>
  return %y : tensor<?x10xf32>
}
