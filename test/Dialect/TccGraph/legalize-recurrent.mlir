// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// An LSTM stays one op whatever the sequence length (never unrolled): h0,
// c0 and the flat parameter list in PyTorch's order, the three results.
// CHECK-LABEL: func @lstm_bidirectional_batch_first
// CHECK: %[[R:.*]]:3 = tcc_graph.rnn %arg0 h0 %arg1 c0 %arg2 weights %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10 {batch_first, bidirectional, has_biases, mode = "lstm", num_layers = 1 : i64}
// CHECK-SAME: -> (tensor<?x?x16xf32>, tensor<2x?x8xf32>, tensor<2x?x8xf32>)
// CHECK-NOT: tcc_graph.operator
func.func @lstm_bidirectional_batch_first(%x: tensor<?x?x4xf32>, %h0: tensor<2x?x8xf32>, %c0: tensor<2x?x8xf32>,
    %wi: tensor<32x4xf32>, %wh: tensor<32x8xf32>, %bi: tensor<32xf32>, %bh: tensor<32xf32>,
    %rwi: tensor<32x4xf32>, %rwh: tensor<32x8xf32>, %rbi: tensor<32xf32>, %rbh: tensor<32xf32>)
    -> (tensor<?x?x16xf32>, tensor<2x?x8xf32>, tensor<2x?x8xf32>) {
  %0:3 = tcc_graph.operator "torch.ops.aten.lstm.input"(%x, %h0, %c0, %wi, %wh, %bi, %bh, %rwi, %rwh, %rbi, %rbh) {operand_names = ["input", "hx.0", "hx.1", "params.0", "params.1", "params.2", "params.3", "params.4", "params.5", "params.6", "params.7"], args = {has_biases = true, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = true, batch_first = true}} : (tensor<?x?x4xf32>, tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<32x4xf32>, tensor<32x8xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<32x8xf32>, tensor<32xf32>, tensor<32xf32>) -> (tensor<?x?x16xf32>, tensor<2x?x8xf32>, tensor<2x?x8xf32>)
  return %0#0, %0#1, %0#2 : tensor<?x?x16xf32>, tensor<2x?x8xf32>, tensor<2x?x8xf32>
}

// -----

// Projections (proj_size 3): w_hr after the biases; h is 3 wide, c 8.
// CHECK-LABEL: func @lstm_projections
// CHECK: tcc_graph.rnn %arg0 h0 %arg1 c0 %arg2 weights %arg3, %arg4, %arg5, %arg6, %arg7 {has_biases, mode = "lstm", num_layers = 1 : i64}
// CHECK-SAME: -> (tensor<?x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x8xf32>)
func.func @lstm_projections(%x: tensor<?x2x4xf32>, %h0: tensor<1x2x3xf32>, %c0: tensor<1x2x8xf32>,
    %wi: tensor<32x4xf32>, %wh: tensor<32x3xf32>, %bi: tensor<32xf32>, %bh: tensor<32xf32>, %wr: tensor<3x8xf32>)
    -> tensor<?x2x3xf32> {
  %0:3 = tcc_graph.operator "torch.ops.aten.lstm.input"(%x, %h0, %c0, %wi, %wh, %bi, %bh, %wr) {operand_names = ["input", "hx.0", "hx.1", "params.0", "params.1", "params.2", "params.3", "params.4"], args = {has_biases = true, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = false}} : (tensor<?x2x4xf32>, tensor<1x2x3xf32>, tensor<1x2x8xf32>, tensor<32x4xf32>, tensor<32x3xf32>, tensor<32xf32>, tensor<32xf32>, tensor<3x8xf32>) -> (tensor<?x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x8xf32>)
  return %0#0 : tensor<?x2x3xf32>
}

// -----

// A 2-layer GRU without biases: layer 1 reads layer 0's h (8 wide).
// CHECK-LABEL: func @gru_two_layers
// CHECK: tcc_graph.rnn %arg0 h0 %arg1 weights %arg2, %arg3, %arg4, %arg5 {mode = "gru", num_layers = 2 : i64}
// CHECK-SAME: -> (tensor<?x?x8xf32>, tensor<2x?x8xf32>)
func.func @gru_two_layers(%x: tensor<?x?x4xf32>, %h0: tensor<2x?x8xf32>, %w0: tensor<24x4xf32>,
    %u0: tensor<24x8xf32>, %w1: tensor<24x8xf32>, %u1: tensor<24x8xf32>) -> (tensor<?x?x8xf32>, tensor<2x?x8xf32>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.gru.input"(%x, %h0, %w0, %u0, %w1, %u1) {operand_names = ["input", "hx", "params.0", "params.1", "params.2", "params.3"], args = {has_biases = false, num_layers = 2 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = false}} : (tensor<?x?x4xf32>, tensor<2x?x8xf32>, tensor<24x4xf32>, tensor<24x8xf32>, tensor<24x8xf32>, tensor<24x8xf32>) -> (tensor<?x?x8xf32>, tensor<2x?x8xf32>)
  return %0#0, %0#1 : tensor<?x?x8xf32>, tensor<2x?x8xf32>
}

// -----

// rnn_relu; dropout in eval mode (train=False) is ignored, as PyTorch does.
// CHECK-LABEL: func @rnn_relu_eval_dropout
// CHECK: tcc_graph.rnn %arg0 h0 %arg1 weights %arg2, %arg3, %arg4, %arg5 {has_biases, mode = "rnn_relu", num_layers = 1 : i64}
func.func @rnn_relu_eval_dropout(%x: tensor<5x2x4xf32>, %h0: tensor<1x2x6xf32>, %w: tensor<6x4xf32>,
    %u: tensor<6x6xf32>, %b: tensor<6xf32>, %c: tensor<6xf32>) -> tensor<5x2x6xf32> {
  %0:2 = tcc_graph.operator "torch.ops.aten.rnn_relu.input"(%x, %h0, %w, %u, %b, %c) {operand_names = ["input", "hx", "params.0", "params.1", "params.2", "params.3"], args = {has_biases = true, num_layers = 1 : i64, dropout = 0.5 : f64, train = false, bidirectional = false, batch_first = false}} : (tensor<5x2x4xf32>, tensor<1x2x6xf32>, tensor<6x4xf32>, tensor<6x6xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<5x2x6xf32>, tensor<1x2x6xf32>)
  return %0#0 : tensor<5x2x6xf32>
}

// -----

// torch.export._patches' while-loop form records h_n and c_n as
// [L·D, 1, B, H]: the op's [L·D, B, H], reshaped.
// CHECK-LABEL: func @while_loop_patch_shapes
// CHECK: %[[R:.*]]:3 = tcc_graph.rnn
// CHECK-SAME: -> (tensor<?x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x8xf32>)
// CHECK: tcc_graph.reshape %[[R]]#1 {{.*}} -> tensor<1x1x?x8xf32>
// CHECK: tcc_graph.reshape %[[R]]#2 {{.*}} -> tensor<1x1x?x8xf32>
func.func @while_loop_patch_shapes(%x: tensor<?x?x4xf32>, %h0: tensor<1x?x8xf32>, %c0: tensor<1x?x8xf32>,
    %wi: tensor<32x4xf32>, %wh: tensor<32x8xf32>) -> (tensor<?x?x8xf32>, tensor<1x1x?x8xf32>, tensor<1x1x?x8xf32>) {
  %0:3 = tcc_graph.operator "torch.ops.aten.lstm.input"(%x, %h0, %c0, %wi, %wh) {operand_names = ["input", "hx.0", "hx.1", "params.0", "params.1"], args = {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = false}} : (tensor<?x?x4xf32>, tensor<1x?x8xf32>, tensor<1x?x8xf32>, tensor<32x4xf32>, tensor<32x8xf32>) -> (tensor<?x?x8xf32>, tensor<1x1x?x8xf32>, tensor<1x1x?x8xf32>)
  return %0#0, %0#1, %0#2 : tensor<?x?x8xf32>, tensor<1x1x?x8xf32>, tensor<1x1x?x8xf32>
}

// -----

// A bf16 layer computes in f32: its input, state and weights widened, its
// results rounded once.
// CHECK-LABEL: func @gru_bf16
// CHECK-DAG: %[[X:.*]] = tcc_graph.cast %arg0 : (tensor<5x2x4xbf16>) -> tensor<5x2x4xf32>
// CHECK-DAG: %[[H:.*]] = tcc_graph.cast %arg1 : (tensor<1x2x8xbf16>) -> tensor<1x2x8xf32>
// CHECK-DAG: %[[W:.*]] = tcc_graph.cast %arg2 : (tensor<24x4xbf16>) -> tensor<24x4xf32>
// CHECK-DAG: %[[U:.*]] = tcc_graph.cast %arg3 : (tensor<24x8xbf16>) -> tensor<24x8xf32>
// CHECK: %[[R:.*]]:2 = tcc_graph.rnn %[[X]] h0 %[[H]] weights %[[W]], %[[U]] {mode = "gru", num_layers = 1 : i64}
// CHECK-SAME: -> (tensor<5x2x8xf32>, tensor<1x2x8xf32>)
// CHECK: %[[Y:.*]] = tcc_graph.cast %[[R]]#0 : (tensor<5x2x8xf32>) -> tensor<5x2x8xbf16>
// CHECK: return %[[Y]]
func.func @gru_bf16(%x: tensor<5x2x4xbf16>, %h0: tensor<1x2x8xbf16>, %w: tensor<24x4xbf16>,
    %u: tensor<24x8xbf16>) -> tensor<5x2x8xbf16> {
  %0:2 = tcc_graph.operator "torch.ops.aten.gru.input"(%x, %h0, %w, %u) {operand_names = ["input", "hx", "params.0", "params.1"], args = {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = false}} : (tensor<5x2x4xbf16>, tensor<1x2x8xbf16>, tensor<24x4xbf16>, tensor<24x8xbf16>) -> (tensor<5x2x8xbf16>, tensor<1x2x8xbf16>)
  return %0#0 : tensor<5x2x8xbf16>
}
