// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics

// Dropout between layers in training mode: refused by name (inference only).
func.func @lstm_train_dropout(%x: tensor<5x2x4xf32>, %h0: tensor<1x2x8xf32>, %c0: tensor<1x2x8xf32>,
    %wi: tensor<32x4xf32>, %wh: tensor<32x8xf32>) -> tensor<5x2x8xf32> {
  // expected-error @+1 {{operator 'aten.lstm.input': dropout=0.25 in training mode (train=True) is not supported: tcc compiles inference; call model.eval() before exporting}}
  %0:3 = tcc_graph.operator "torch.ops.aten.lstm.input"(%x, %h0, %c0, %wi, %wh) {operand_names = ["input", "hx.0", "hx.1", "params.0", "params.1"], args = {has_biases = false, num_layers = 1 : i64, dropout = 0.25 : f64, train = true, bidirectional = false, batch_first = false}} : (tensor<5x2x4xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<32x4xf32>, tensor<32x8xf32>) -> (tensor<5x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>)
  return %0#0 : tensor<5x2x8xf32>
}

// -----

// Packed sequences: refused by name.
func.func @gru_packed(%data: tensor<7x4xf32>, %sizes: tensor<3xi64>, %h0: tensor<1x3x8xf32>,
    %w: tensor<24x4xf32>, %u: tensor<24x8xf32>) -> tensor<7x8xf32> {
  // expected-error @+1 {{operator 'aten.gru.data': packed sequences (torch.nn.utils.rnn.PackedSequence) are not supported: pass the padded batch as one tensor}}
  %0:2 = tcc_graph.operator "torch.ops.aten.gru.data"(%data, %sizes, %h0, %w, %u) {operand_names = ["data", "batch_sizes", "hx", "params.0", "params.1"], args = {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false}} : (tensor<7x4xf32>, tensor<3xi64>, tensor<1x3x8xf32>, tensor<24x4xf32>, tensor<24x8xf32>) -> (tensor<7x8xf32>, tensor<1x3x8xf32>)
  return %0#0 : tensor<7x8xf32>
}

// -----

func.func @lstm_packed(%data: tensor<7x4xf32>, %sizes: tensor<3xi64>, %h0: tensor<1x3x8xf32>, %c0: tensor<1x3x8xf32>,
    %wi: tensor<32x4xf32>, %wh: tensor<32x8xf32>) -> tensor<7x8xf32> {
  // expected-error @+1 {{operator 'aten.lstm.data': packed sequences}}
  %0:3 = tcc_graph.operator "torch.ops.aten.lstm.data"(%data, %sizes, %h0, %c0, %wi, %wh) {operand_names = ["data", "batch_sizes", "hx.0", "hx.1", "params.0", "params.1"], args = {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false}} : (tensor<7x4xf32>, tensor<3xi64>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<32x4xf32>, tensor<32x8xf32>) -> (tensor<7x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>)
  return %0#0 : tensor<7x8xf32>
}

// -----

// f64 recurrences: refused by name, never computed in less precision than
// PyTorch's (bf16 and f16 compute in f32: legalize-recurrent.mlir).
func.func @gru_f64(%x: tensor<5x2x4xf64>, %h0: tensor<1x2x8xf64>, %w: tensor<24x4xf64>,
    %u: tensor<24x8xf64>) -> tensor<5x2x8xf64> {
  // expected-error @+1 {{operator 'aten.gru.input': computes float32, bfloat16 and float16 recurrences, got 'f64' (export the layer in one of those)}}
  %0:2 = tcc_graph.operator "torch.ops.aten.gru.input"(%x, %h0, %w, %u) {operand_names = ["input", "hx", "params.0", "params.1"], args = {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = false}} : (tensor<5x2x4xf64>, tensor<1x2x8xf64>, tensor<24x4xf64>, tensor<24x8xf64>) -> (tensor<5x2x8xf64>, tensor<1x2x8xf64>)
  return %0#0 : tensor<5x2x8xf64>
}

// -----

// Weights that are no layer PyTorch builds: refused at the operator.
func.func @gru_wrong_weight(%x: tensor<5x2x4xf32>, %h0: tensor<1x2x8xf32>, %w: tensor<24x5xf32>,
    %u: tensor<24x8xf32>) -> tensor<5x2x8xf32> {
  // expected-error @+1 {{operator 'aten.gru.input' is not supported for these inputs: 'tcc_graph.rnn' op w_ih of layer 0 must be [24, 4], got [24, 5]}}
  %0:2 = tcc_graph.operator "torch.ops.aten.gru.input"(%x, %h0, %w, %u) {operand_names = ["input", "hx", "params.0", "params.1"], args = {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = false}} : (tensor<5x2x4xf32>, tensor<1x2x8xf32>, tensor<24x5xf32>, tensor<24x8xf32>) -> (tensor<5x2x8xf32>, tensor<1x2x8xf32>)
  return %0#0 : tensor<5x2x8xf32>
}
