// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics

// A transform over a symbolic length whose export range allows more points
// than its twiddle matrix may have (1024 x 1024 entries): refused naming the
// dim, not read as a length (the dynamic-size marker once showed as
// "invalid number of data points (-9223372036854775808)").
module attributes {tcc.symbols = {s0 = [2, 2000]}} {
  func.func @fft_symbolic_too_long(%x: tensor<2x?xf32> {tcc.sizes = [2, "s0"]}) -> tensor<2x?x2xf32> {
    // expected-error @+1 {{operator 'aten.fft_fft.default': dim 1 is symbolic with up to 2000 elements; transforms over at most 1024 are supported (export it with a smaller maximum)}}
    %0 = tcc_graph.operator "torch.ops.aten.fft_fft.default"(%x) {operand_names = ["self"], args = {dim = -1 : i64}, tcc.complex_results = array<i64: 0>} : (tensor<2x?xf32>) -> tensor<2x?x2xf32>
    return %0 : tensor<2x?x2xf32>
  }
}

// -----

// irfft's n = 2·(m - 1) of a symbolic m up to 600: more than 1024 points.
module attributes {tcc.symbols = {s0 = [2, 600]}} {
  func.func @irfft_symbolic_too_long(%x: tensor<?x3xf32> {tcc.sizes = ["s0", 3]}) -> tensor<?x3xf32> {
    // expected-error @+1 {{operator 'aten.fft_irfft.default': dim 0 is symbolic with up to 600 elements; transforms over at most 513 are supported (export it with a smaller maximum)}}
    %0 = tcc_graph.operator "torch.ops.aten.fft_irfft.default"(%x) {operand_names = ["self"], args = {dim = 0 : i64}} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    return %0 : tensor<?x3xf32>
  }
}
