// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics

// A transform over a symbolic length: refused naming the dim (the transform
// matrices are built at compile time), not as "invalid number of data
// points" with the dynamic-size marker read as a length.
func.func @fft_symbolic_length(%x: tensor<2x?xf32>) -> tensor<2x?xcomplex<f32>> {
  // expected-error @+1 {{operator 'aten.fft_fft.default': transforms over a symbolic size (dim 1) are not supported: export with that dim static}}
  %0 = tcc_graph.operator "torch.ops.aten.fft_fft.default"(%x) {operand_names = ["self"], args = {dim = -1 : i64, norm = "backward"}} : (tensor<2x?xf32>) -> tensor<2x?xcomplex<f32>>
  return %0 : tensor<2x?xcomplex<f32>>
}

// -----

func.func @fft2_symbolic_length(%x: tensor<?x4xf32>) -> tensor<?x4xcomplex<f32>> {
  // expected-error @+1 {{operator 'aten.fft_fft2.default': transforms over a symbolic size (dim 0) are not supported: export with that dim static}}
  %0 = tcc_graph.operator "torch.ops.aten.fft_fft2.default"(%x) {operand_names = ["self"], args = {dim = [-2, -1], norm = "backward"}} : (tensor<?x4xf32>) -> tensor<?x4xcomplex<f32>>
  return %0 : tensor<?x4xcomplex<f32>>
}

// -----

func.func @irfft_symbolic_length(%x: tensor<2x?xcomplex<f32>>) -> tensor<2x?xf32> {
  // expected-error @+1 {{operator 'aten.fft_irfft.default': transforms over a symbolic size (dim 1) are not supported: export with that dim static}}
  %0 = tcc_graph.operator "torch.ops.aten.fft_irfft.default"(%x) {operand_names = ["self"], args = {dim = -1 : i64, norm = "backward"}} : (tensor<2x?xcomplex<f32>>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}
