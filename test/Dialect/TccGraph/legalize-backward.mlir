// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics | FileCheck %s

// native_dropout_backward: the mask in the gradient's type, scaled first.
// CHECK-LABEL: func @dropout_backward
// CHECK: %[[M:.*]] = tcc_graph.cast %arg1 : (tensor<2x3xi1>) -> tensor<2x3xf32>
// CHECK: %[[S:.*]] = tcc_graph.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[MS:.*]] = tcc_graph.mul %[[M]], %[[S]]
// CHECK: %[[R:.*]] = tcc_graph.mul %arg0, %[[MS]]
// CHECK: return %[[R]]
func.func @dropout_backward(%g: tensor<2x3xf32>, %m: tensor<2x3xi1>) -> tensor<2x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.native_dropout_backward.default"(%g, %m) {operand_names = ["grad_output", "mask"], args = {scale = 2.0 : f64}} : (tensor<2x3xf32>, tensor<2x3xi1>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// _softmax_backward_data: y * (g - sum(g * y)) along the (negative) dim.
// CHECK-LABEL: func @softmax_backward
// CHECK: %[[GY:.*]] = tcc_graph.mul %arg0, %arg1
// CHECK: %[[DOT:.*]] = tcc_graph.reduce_sum %[[GY]] {dims = array<i64: 1>, keepdim = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
// CHECK: %[[D:.*]] = tcc_graph.sub %arg0, %[[DOT]]
// CHECK: %[[R:.*]] = tcc_graph.mul %arg1, %[[D]]
// CHECK: return %[[R]]
func.func @softmax_backward(%g: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten._softmax_backward_data.default"(%g, %y) {operand_names = ["grad_output", "output"], args = {dim = -1 : i64, input_dtype = 6 : i64}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// _log_softmax_backward_data: g - exp(y) * sum(g).
// CHECK-LABEL: func @log_softmax_backward
// CHECK: %[[SUM:.*]] = tcc_graph.reduce_sum %arg0 {dims = array<i64: 0>, keepdim = true} : (tensor<2x3xf32>) -> tensor<1x3xf32>
// CHECK: %[[P:.*]] = tcc_graph.exp %arg1
// CHECK: %[[T:.*]] = tcc_graph.mul %[[P]], %[[SUM]]
// CHECK: %[[R:.*]] = tcc_graph.sub %arg0, %[[T]]
// CHECK: return %[[R]]
func.func @log_softmax_backward(%g: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten._log_softmax_backward_data.default"(%g, %y) {operand_names = ["grad_output", "output"], args = {dim = 0 : i64, input_dtype = 6 : i64}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @softmax_backward_bad_dim(%g: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{operator 'aten._softmax_backward_data.default': dim 2 out of range for rank 2}}
  %0 = tcc_graph.operator "torch.ops.aten._softmax_backward_data.default"(%g, %y) {operand_names = ["grad_output", "output"], args = {dim = 2 : i64, input_dtype = 6 : i64}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
