// RUN: tcc-opt %s -split-input-file -verify-diagnostics

func.func @bad_broadcast(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'tcc_graph.add' op operand shapes 'tensor<4x3xf32>' and 'tensor<4x5xf32>' do not broadcast}}
  %0 = tcc_graph.add %a, %b : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @bad_result(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'tcc_graph.mul' op result type 'tensor<4x4xf32>' is not the broadcast shape}}
  %0 = tcc_graph.mul %a, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @bad_matmul(%a: tensor<4x3xf32>, %b: tensor<5x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'tcc_graph.matmul' op contraction sizes differ: 3 vs 5}}
  %0 = tcc_graph.matmul %a, %b : (tensor<4x3xf32>, tensor<5x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @bad_conv_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+1 {{'tcc_graph.conv2d' op input channels 4 != weight channels 3 x groups 1}}
  %0 = tcc_graph.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

func.func @bad_permutation(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'tcc_graph.transpose' op permutation is not a permutation of [0, rank)}}
  %0 = tcc_graph.transpose %x {permutation = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @bad_reshape(%x: tensor<2x3xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{'tcc_graph.reshape' op element counts differ: 6 vs 7}}
  %0 = tcc_graph.reshape %x : (tensor<2x3xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

func.func @bad_reduce(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tcc_graph.reduce_sum' op dims must be sorted, unique and in [0, rank)}}
  %0 = tcc_graph.reduce_sum %x {dims = array<i64: 2>, keepdim = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @bad_concat(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'tcc_graph.concat' op input dim 0 is 3, expected 2}}
  %0 = tcc_graph.concat %a, %b {dim = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @bad_operator(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tcc_graph.operator' op has 1 operands but 0 operand names}}
  %0 = tcc_graph.operator "torch.ops.aten.relu.default"(%x) {operand_names = [], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @bad_compare(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tcc_graph.compare' op result must be i1}}
  %0 = tcc_graph.compare %a, %b {predicate = "lt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @bad_predicate(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{unknown predicate 'less' (eq, ne, lt, le, gt, ge)}}
  %0 = tcc_graph.compare %a, %b {predicate = "less"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @bad_select(%c: tensor<4xf32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tcc_graph.select' op condition must be i1}}
  %0 = tcc_graph.select %c, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @bad_iota() -> tensor<2x2xi64> {
  // expected-error @+1 {{'tcc_graph.iota' op result must be a 1-D tensor}}
  %0 = tcc_graph.iota {start = 0.0 : f64, step = 1.0 : f64} : tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}

// -----

func.func @iota_without_length() -> tensor<?xi64> {
  // expected-error @+1 {{'tcc_graph.iota' op needs one dynamic size for a symbolic length}}
  %0 = tcc_graph.iota {start = 0.0 : f64, step = 1.0 : f64} : tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

func.func @trunc_div_of_floats(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operands must be signed integers, not 'f32'}}
  %0 = tcc_graph.trunc_div %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @special_function_unknown(%x: tensor<4xf32>, %n: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tcc_graph.special_function' op unknown function 'bessel'}}
  %0 = tcc_graph.special_function "bessel"(%x, %n) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @special_function_arity(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tcc_graph.special_function' op 'zeta' takes 2 operands, not 1}}
  %0 = tcc_graph.special_function "zeta"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @special_function_igamma_arity(%a: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tcc_graph.special_function' op 'igamma' takes 4 operands, not 2}}
  %0 = tcc_graph.special_function "igamma"(%a, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @special_function_types(%x: tensor<4xf32>, %n: tensor<f64>) -> tensor<4xf32> {
  // expected-error @+1 {{'tcc_graph.special_function' op operand and result element types must match}}
  %0 = tcc_graph.special_function "legendre_polynomial_p"(%x, %n) : (tensor<4xf32>, tensor<f64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @special_function_shapes(%x: tensor<4xf32>, %n: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tcc_graph.special_function' op operand shapes 'tensor<4xf32>' and 'tensor<3xf32>' do not broadcast}}
  %0 = tcc_graph.special_function "hermite_polynomial_h"(%x, %n) : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @check_condition(%ok: tensor<2x1x1xf32>, %x: tensor<2x5x5xf32>) -> tensor<2x5x5xf32> {
  // expected-error @+1 {{'tcc_graph.check' op condition must be i1}}
  %0 = tcc_graph.check %ok, %x "m" : (tensor<2x1x1xf32>, tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
  return %0 : tensor<2x5x5xf32>
}

// -----

func.func @check_result(%ok: tensor<2x1x1xi1>, %x: tensor<2x5x5xf32>) -> tensor<2x5x5xf64> {
  // expected-error @+1 {{'tcc_graph.check' op result type must be the input's}}
  %0 = tcc_graph.check %ok, %x "m" : (tensor<2x1x1xi1>, tensor<2x5x5xf32>) -> tensor<2x5x5xf64>
  return %0 : tensor<2x5x5xf64>
}

// -----

func.func @index_copy_index_rank(%c: tensor<4x8xf32>, %p: tensor<2x1xi64>, %s: tensor<4x2xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tcc_graph.index_copy' op the index must be 1-D, got rank 2}}
  %0 = tcc_graph.index_copy %c[%p], %s {dim = 1 : i64, message = ""} : (tensor<4x8xf32>, tensor<2x1xi64>, tensor<4x2xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @index_copy_source(%c: tensor<4x8xf32>, %p: tensor<2xi64>, %s: tensor<3x2xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tcc_graph.index_copy' op source dim 0 must be self's}}
  %0 = tcc_graph.index_copy %c[%p], %s {dim = 1 : i64, message = ""} : (tensor<4x8xf32>, tensor<2xi64>, tensor<3x2xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @rnn_weight_count(%x: tensor<5x2x4xf32>, %w: tensor<24x4xf32>, %u: tensor<24x8xf32>) -> tensor<5x2x8xf32> {
  // expected-error @+1 {{'tcc_graph.rnn' op expects 4 weights (2 layers x 1 directions x 2), got 2}}
  %r:2 = tcc_graph.rnn %x weights %w, %u {mode = "gru", num_layers = 2 : i64} : (tensor<5x2x4xf32>, tensor<24x4xf32>, tensor<24x8xf32>) -> (tensor<5x2x8xf32>, tensor<2x2x8xf32>)
  return %r#0 : tensor<5x2x8xf32>
}

// -----

func.func @rnn_hn_shape(%x: tensor<?x2x4xf32>, %w: tensor<24x4xf32>, %u: tensor<24x8xf32>) -> tensor<?x2x8xf32> {
  // expected-error @+1 {{'tcc_graph.rnn' op h_n must be [1, 2, 8], got [1, 3, 8]}}
  %r:2 = tcc_graph.rnn %x weights %w, %u {mode = "gru", num_layers = 1 : i64} : (tensor<?x2x4xf32>, tensor<24x4xf32>, tensor<24x8xf32>) -> (tensor<?x2x8xf32>, tensor<1x3x8xf32>)
  return %r#0 : tensor<?x2x8xf32>
}

// -----

func.func @quantize_range(%x: tensor<4xf32>, %s: tensor<f64>, %z: tensor<i64>) -> tensor<4xi8> {
  // expected-error @+1 {{'tcc_graph.quantize' op quant range [0, 255] does not fit 'i8'}}
  %0 = tcc_graph.quantize %x, %s, %z {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<4xf32>, tensor<f64>, tensor<i64>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @quantize_float_result(%x: tensor<4xf32>, %s: tensor<f64>, %z: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{'tcc_graph.quantize' op quantized type must be an integer of 2 to 32 bits, not 'f32'}}
  %0 = tcc_graph.quantize %x, %s, %z {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<4xf32>, tensor<f64>, tensor<i64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dequantize_integer_result(%q: tensor<4xui8>, %s: tensor<f64>, %z: tensor<i64>) -> tensor<4xi32> {
  // expected-error @+1 {{'tcc_graph.dequantize' op real-valued side must be a float tensor}}
  %0 = tcc_graph.dequantize %q, %s, %z {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<4xui8>, tensor<f64>, tensor<i64>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @quantize_shapes(%x: tensor<4xf32>, %s: tensor<f64>, %z: tensor<i64>) -> tensor<5xui8> {
  // expected-error @+1 {{'tcc_graph.quantize' op input and result shapes differ}}
  %0 = tcc_graph.quantize %x, %s, %z {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<4xf32>, tensor<f64>, tensor<i64>) -> tensor<5xui8>
  return %0 : tensor<5xui8>
}

// -----

func.func @quantize_float_zero_point(%x: tensor<4xf32>, %s: tensor<f64>, %z: tensor<f32>) -> tensor<4xui8> {
  // expected-error @+1 {{'tcc_graph.quantize' op zero point must be an integer tensor}}
  %0 = tcc_graph.quantize %x, %s, %z {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<4xf32>, tensor<f64>, tensor<f32>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

func.func @per_tensor_vector_scale(%x: tensor<4xf32>, %s: tensor<4xf32>, %z: tensor<i64>) -> tensor<4xui8> {
  // expected-error @+1 {{'tcc_graph.quantize' op per-tensor scale and zero point must be rank 0}}
  %0 = tcc_graph.quantize %x, %s, %z {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

func.func @per_channel_scalar_scale(%q: tensor<8x3xi8>, %s: tensor<f32>, %z: tensor<i64>) -> tensor<8x3xf32> {
  // expected-error @+1 {{'tcc_graph.dequantize' op per-channel scale and zero point must be 1-D}}
  %0 = tcc_graph.dequantize %q, %s, %z {axis = 0 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : (tensor<8x3xi8>, tensor<f32>, tensor<i64>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

func.func @per_channel_axis(%q: tensor<8x3xi8>, %s: tensor<8xf32>, %z: tensor<8xi64>) -> tensor<8x3xf32> {
  // expected-error @+1 {{'tcc_graph.dequantize' op axis 2 out of range for rank 2}}
  %0 = tcc_graph.dequantize %q, %s, %z {axis = 2 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : (tensor<8x3xi8>, tensor<8xf32>, tensor<8xi64>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

func.func @per_channel_count(%q: tensor<8x3xi8>, %s: tensor<3xf32>, %z: tensor<3xi64>) -> tensor<8x3xf32> {
  // expected-error @+1 {{'tcc_graph.dequantize' op has 3 scales or zero points for 8 channels}}
  %0 = tcc_graph.dequantize %q, %s, %z {axis = 0 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : (tensor<8x3xi8>, tensor<3xf32>, tensor<3xi64>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

func.func @random_state(%s: tensor<2xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{state must be tensor<1xi64>}}
  %u = tcc_graph.random %s {stream = 0 : i64} : (tensor<2xi64>) -> tensor<4xf32>
  return %u : tensor<4xf32>
}

// -----

func.func @random_element(%s: tensor<1xi64>) -> tensor<4xi32> {
  // expected-error @+1 {{result must hold floats or i64, not 'i32'}}
  %u = tcc_graph.random %s {stream = 0 : i64} : (tensor<1xi64>) -> tensor<4xi32>
  return %u : tensor<4xi32>
}
