// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics

// An operator tcc does not compute on complex tensors is refused by name,
// never legalized as if the (re, im) pairs were real numbers.
func.func @sum_of_complex(%z: tensor<3x2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{operator 'aten.sum.default' on complex tensors is not supported}}
  %0 = tcc_graph.operator "torch.ops.aten.sum.default"(%z) {operand_names = ["self"], args = {}, tcc.complex_operands = array<i64: 0>, tcc.complex_results = array<i64: 0>} : (tensor<3x2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A transform whose DFT matrix would exceed 1024 x 1024 entries.
func.func @fft_too_long(%x: tensor<2048xf32>) -> tensor<2048x2xf32> {
  // expected-error @+1 {{operator 'aten.fft_fft.default': a transform of 2048 to 2048 points needs a 2048x2048 matrix; tcc computes transforms with at most 1048576 matrix entries}}
  %0 = tcc_graph.operator "torch.ops.aten.fft_fft.default"(%x) {operand_names = ["self"], args = {}, tcc.complex_results = array<i64: 0>} : (tensor<2048xf32>) -> tensor<2048x2xf32>
  return %0 : tensor<2048x2xf32>
}

// -----

// rfft takes real inputs, as PyTorch.
func.func @rfft_of_complex(%z: tensor<4x2xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{operator 'aten.fft_rfft.default': expects a real input tensor, got a complex one}}
  %0 = tcc_graph.operator "torch.ops.aten.fft_rfft.default"(%z) {operand_names = ["self"], args = {}, tcc.complex_operands = array<i64: 0>, tcc.complex_results = array<i64: 0>} : (tensor<4x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// An unknown norm.
func.func @bad_norm(%x: tensor<4xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{operator 'aten.fft_irfft.default': norm 'unitary' is none of "backward", "forward", "ortho"}}
  %0 = tcc_graph.operator "torch.ops.aten.fft_irfft.default"(%x) {operand_names = ["self"], args = {norm = "unitary"}} : (tensor<4xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
