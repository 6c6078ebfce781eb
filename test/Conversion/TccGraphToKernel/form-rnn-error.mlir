// RUN: tcc-opt %s -split-input-file -tcc-form-kernels -verify-diagnostics

// Without cpu-only the program has a CUDA path, which has no recurrence
// yet: each is refused at its line, naming the ATen operator.
func.func @lstm(%x: tensor<?x2x4xf32>, %wi: tensor<32x4xf32>, %wh: tensor<32x8xf32>) -> tensor<?x2x8xf32> {
  // expected-error @+1 {{aten.lstm.input on the CUDA target is not supported yet: compile with --target cpu}}
  %0:3 = tcc_graph.rnn %x weights %wi, %wh {mode = "lstm", num_layers = 1 : i64}
      : (tensor<?x2x4xf32>, tensor<32x4xf32>, tensor<32x8xf32>) -> (tensor<?x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>)
  return %0#0 : tensor<?x2x8xf32>
}

// -----

func.func @rnn_tanh(%x: tensor<?x2x4xf32>, %w: tensor<8x4xf32>, %u: tensor<8x8xf32>) -> tensor<?x2x8xf32> {
  // expected-error @+1 {{aten.rnn_tanh.input on the CUDA target is not supported yet}}
  %0:2 = tcc_graph.rnn %x weights %w, %u {mode = "rnn_tanh", num_layers = 1 : i64}
      : (tensor<?x2x4xf32>, tensor<8x4xf32>, tensor<8x8xf32>) -> (tensor<?x2x8xf32>, tensor<1x2x8xf32>)
  return %0#0 : tensor<?x2x8xf32>
}
