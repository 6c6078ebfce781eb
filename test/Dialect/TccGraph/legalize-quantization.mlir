// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// Per tensor with Python numbers (.default): the scale as an f64 constant,
// the zero point as i64, the range as attributes; the uint8 result type is
// the export's.
// CHECK-LABEL: func @per_tensor_default
// CHECK: %[[S:.*]] = tcc_graph.constant dense<2.650000e-02> : tensor<f64>
// CHECK: %[[Z:.*]] = tcc_graph.constant dense<153> : tensor<i64>
// CHECK: %[[Q:.*]] = tcc_graph.quantize %arg0, %[[S]], %[[Z]] {quant_max = 255 : i64, quant_min = 0 : i64} : (tensor<2x3xf32>, tensor<f64>, tensor<i64>) -> tensor<2x3xui8>
// CHECK: tcc_graph.dequantize %[[Q]], %{{.*}}, %{{.*}} {quant_max = 255 : i64, quant_min = 0 : i64} : (tensor<2x3xui8>, tensor<f64>, tensor<i64>) -> tensor<2x3xf32>
// CHECK-NOT: tcc_graph.operator
func.func @per_tensor_default(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tcc_graph.operator "torch.ops.quantized_decomposed.quantize_per_tensor.default"(%x) {operand_names = ["input"], args = {scale = 0.0265 : f64, zero_point = 153 : i64, quant_min = 0 : i64, quant_max = 255 : i64, dtype = 1 : i64}} : (tensor<2x3xf32>) -> tensor<2x3xui8>
  %1 = tcc_graph.operator "torch.ops.quantized_decomposed.dequantize_per_tensor.default"(%0) {operand_names = ["input"], args = {scale = 0.0265 : f64, zero_point = 153 : i64, quant_min = 0 : i64, quant_max = 255 : i64, dtype = 1 : i64}} : (tensor<2x3xui8>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Per tensor with tensors (.tensor): one-element tensors become rank 0.
// CHECK-LABEL: func @per_tensor_tensor
// CHECK: %[[S:.*]] = tcc_graph.reshape %arg1 : (tensor<1xf64>) -> tensor<f64>
// CHECK: tcc_graph.quantize %arg0, %[[S]], %arg2 {quant_max = 127 : i64, quant_min = -127 : i64} : (tensor<4xf32>, tensor<f64>, tensor<i64>) -> tensor<4xi8>
func.func @per_tensor_tensor(%x: tensor<4xf32>, %s: tensor<1xf64>, %z: tensor<i64>) -> tensor<4xi8> {
  %0 = tcc_graph.operator "torch.ops.quantized_decomposed.quantize_per_tensor.tensor"(%x, %s, %z) {operand_names = ["input", "scale", "zero_point"], args = {quant_min = -127 : i64, quant_max = 127 : i64, dtype = 2 : i64}} : (tensor<4xf32>, tensor<1xf64>, tensor<i64>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// Per channel: the axis (negative ones normalized) as an attribute; a
// dequantize without zero points gets zeros.
// CHECK-LABEL: func @per_channel
// CHECK: %[[Q:.*]] = tcc_graph.quantize %arg0, %arg1, %arg2 {axis = 1 : i64, quant_max = 127 : i64, quant_min = -128 : i64} : (tensor<3x5x4xf32>, tensor<5xf32>, tensor<5xi64>) -> tensor<3x5x4xi8>
// CHECK: %[[Z:.*]] = tcc_graph.constant dense<0> : tensor<5xi64>
// CHECK: tcc_graph.dequantize %[[Q]], %arg1, %[[Z]] {axis = 1 : i64, quant_max = 127 : i64, quant_min = -128 : i64}
func.func @per_channel(%w: tensor<3x5x4xf32>, %s: tensor<5xf32>, %z: tensor<5xi64>) -> tensor<3x5x4xf32> {
  %0 = tcc_graph.operator "torch.ops.quantized_decomposed.quantize_per_channel.default"(%w, %s, %z) {operand_names = ["input", "scales", "zero_points"], args = {axis = -2 : i64, quant_min = -128 : i64, quant_max = 127 : i64, dtype = 2 : i64}} : (tensor<3x5x4xf32>, tensor<5xf32>, tensor<5xi64>) -> tensor<3x5x4xi8>
  %1 = tcc_graph.operator "torch.ops.quantized_decomposed.dequantize_per_channel.default"(%0, %s) {operand_names = ["input", "scales"], args = {axis = 1 : i64, quant_min = -128 : i64, quant_max = 127 : i64, dtype = 2 : i64}} : (tensor<3x5x4xi8>, tensor<5xf32>) -> tensor<3x5x4xf32>
  return %1 : tensor<3x5x4xf32>
}
