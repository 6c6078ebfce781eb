// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics | FileCheck %s

// Batch letters b, h; contracted d; free q (first operand) and k (second).
// CHECK-LABEL: func @scores
// CHECK: %[[KT:.*]] = tcc_graph.transpose %arg1 {permutation = array<i64: 0, 1, 3, 2>} : (tensor<2x3x7x8xf32>) -> tensor<2x3x8x7xf32>
// CHECK-DAG: %[[K:.*]] = tcc_graph.reshape %[[KT]] : (tensor<2x3x8x7xf32>) -> tensor<6x8x7xf32>
// CHECK-DAG: %[[Q:.*]] = tcc_graph.reshape %arg0 : (tensor<2x3x6x8xf32>) -> tensor<6x6x8xf32>
// CHECK: %[[M:.*]] = tcc_graph.matmul %[[Q]], %[[K]] : (tensor<6x6x8xf32>, tensor<6x8x7xf32>) -> tensor<6x6x7xf32>
// CHECK: tcc_graph.reshape %[[M]] : (tensor<6x6x7xf32>) -> tensor<2x3x6x7xf32>
func.func @scores(%q: tensor<2x3x6x8xf32>, %k: tensor<2x3x7x8xf32>) -> tensor<2x3x6x7xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.einsum.default"(%q, %k) {operand_names = ["tensors.0", "tensors.1"], args = {equation = "bhqd,bhkd->bhqk"}} : (tensor<2x3x6x8xf32>, tensor<2x3x7x8xf32>) -> tensor<2x3x6x7xf32>
  return %0 : tensor<2x3x6x7xf32>
}

// -----

func.func @unsupported(%a: tensor<4x4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  // expected-error @+1 {{einsum equation 'ii,i->i' repeats a letter within an operand or does not match the operands' ranks (not supported yet)}}
  %0 = tcc_graph.operator "torch.ops.aten.einsum.default"(%a, %b) {operand_names = ["tensors.0", "tensors.1"], args = {equation = "ii,i->i"}} : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{einsum with 1 operands is not supported yet (two are)}}
  %1 = tcc_graph.operator "torch.ops.aten.einsum.default"(%b) {operand_names = ["tensors.0"], args = {equation = "i->"}} : (tensor<4xf32>) -> tensor<f32>
  return %0, %1 : tensor<4xf32>, tensor<f32>
}
