// RUN: tcc-opt %s -split-input-file -tcc-form-kernels="cpu-only=1" | FileCheck %s
// RUN: tcc-opt %s -split-input-file -tcc-form-kernels | FileCheck %s

// A recurrence is one kernel, for the CPU path and for a program with a
// CUDA path alike (cuDNN computes it there); its inits take the sequence length and the
// batch from the input at run time (batch first: dim 0 is the batch).
// CHECK-LABEL: func @lstm_batch_first
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[B:.*]] = tensor.dim %arg0, %[[C0]]
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[T:.*]] = tensor.dim %arg0, %[[C1]]
// CHECK: %[[Y:.*]] = tensor.empty(%[[B]], %[[T]]) : tensor<?x?x8xf32>
// CHECK: %[[B1:.*]] = tensor.dim %arg0, %{{.*}}
// CHECK: %[[H:.*]] = tensor.empty(%[[B1]]) : tensor<1x?x8xf32>
// CHECK: %[[C:.*]] = tensor.empty(%{{.*}}) : tensor<1x?x8xf32>
// CHECK: tcc_kernel.rnn lstm ins(%arg0 : tensor<?x?x4xf32>) weights(%arg1, %arg2 : tensor<32x4xf32>, tensor<32x8xf32>) outs(%[[Y]], %[[H]], %[[C]] : tensor<?x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x8xf32>) {batch_first, num_layers = 1 : i64}
// CHECK-NOT: tcc_graph.rnn
func.func @lstm_batch_first(%x: tensor<?x?x4xf32>, %wi: tensor<32x4xf32>, %wh: tensor<32x8xf32>)
    -> (tensor<?x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x8xf32>) {
  %0:3 = tcc_graph.rnn %x weights %wi, %wh {batch_first, mode = "lstm", num_layers = 1 : i64}
      : (tensor<?x?x4xf32>, tensor<32x4xf32>, tensor<32x8xf32>) -> (tensor<?x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x8xf32>)
  return %0#0, %0#1, %0#2 : tensor<?x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x8xf32>
}

// -----

// CHECK-LABEL: func @gru_h0
// CHECK: tcc_kernel.rnn gru ins(%arg0 : tensor<?x2x4xf32>) h0(%arg1 : tensor<2x2x8xf32>) weights(%arg2, %arg3, %arg4, %arg5
// CHECK-SAME: {bidirectional, has_biases, num_layers = 1 : i64} -> tensor<?x2x16xf32>, tensor<2x2x8xf32>
func.func @gru_h0(%x: tensor<?x2x4xf32>, %h0: tensor<2x2x8xf32>, %w: tensor<24x4xf32>, %u: tensor<24x8xf32>,
    %b: tensor<24xf32>, %c: tensor<24xf32>) -> tensor<?x2x16xf32> {
  %0:2 = tcc_graph.rnn %x h0 %h0 weights %w, %u, %b, %c, %w, %u, %b, %c {bidirectional, has_biases, mode = "gru", num_layers = 1 : i64}
      : (tensor<?x2x4xf32>, tensor<2x2x8xf32>, tensor<24x4xf32>, tensor<24x8xf32>, tensor<24xf32>, tensor<24xf32>, tensor<24x4xf32>, tensor<24x8xf32>, tensor<24xf32>, tensor<24xf32>) -> (tensor<?x2x16xf32>, tensor<2x2x8xf32>)
  return %0#0 : tensor<?x2x16xf32>
}
