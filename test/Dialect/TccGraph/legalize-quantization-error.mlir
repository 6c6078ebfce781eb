// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics

// A dequantize to bfloat16 (out_dtype): refused by name.
func.func @dequantize_bf16(%q: tensor<4xui8>) -> tensor<4xbf16> {
  // expected-error @+1 {{operator 'quantized_decomposed.dequantize_per_tensor.default': dequantizes to 'bf16'; tcc supports out_dtype float32 only}}
  %0 = tcc_graph.operator "torch.ops.quantized_decomposed.dequantize_per_tensor.default"(%q) {operand_names = ["input"], args = {scale = 0.5 : f64, zero_point = 3 : i64, quant_min = 0 : i64, quant_max = 255 : i64, dtype = 1 : i64, out_dtype = 15 : i64}} : (tensor<4xui8>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// A scale tensor of several elements given to a per-tensor operator.
func.func @scale_not_one_element(%x: tensor<4xf32>, %s: tensor<2xf64>, %z: tensor<i64>) -> tensor<4xi8> {
  // expected-error @+1 {{operator 'quantized_decomposed.quantize_per_tensor.tensor': expects a one-element scale, not 'tensor<2xf64>'}}
  %0 = tcc_graph.operator "torch.ops.quantized_decomposed.quantize_per_tensor.tensor"(%x, %s, %z) {operand_names = ["input", "scale", "zero_point"], args = {quant_min = -128 : i64, quant_max = 127 : i64, dtype = 2 : i64}} : (tensor<4xf32>, tensor<2xf64>, tensor<i64>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// A range the quantized type cannot hold (PyTorch asserts the same).
func.func @range_too_wide(%x: tensor<4xf32>) -> tensor<4xi8> {
  // expected-error @+1 {{operator 'quantized_decomposed.quantize_per_tensor.default' is not supported for these inputs: 'tcc_graph.quantize' op quant range [0, 255] does not fit 'i8'}}
  %0 = tcc_graph.operator "torch.ops.quantized_decomposed.quantize_per_tensor.default"(%x) {operand_names = ["input"], args = {scale = 0.5 : f64, zero_point = 0 : i64, quant_min = 0 : i64, quant_max = 255 : i64, dtype = 2 : i64}} : (tensor<4xf32>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// float64 input: PyTorch itself asserts float32.
func.func @double_input(%x: tensor<4xf64>) -> tensor<4xui8> {
  // expected-error @+1 {{operator 'quantized_decomposed.quantize_per_tensor.default': expects a float32 (or f16/bf16) input, not 'f64'}}
  %0 = tcc_graph.operator "torch.ops.quantized_decomposed.quantize_per_tensor.default"(%x) {operand_names = ["input"], args = {scale = 0.5 : f64, zero_point = 0 : i64, quant_min = 0 : i64, quant_max = 255 : i64, dtype = 1 : i64}} : (tensor<4xf64>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}
