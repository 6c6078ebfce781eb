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

// One operand: a transpose, a row sum, a full sum, and the implicit output
// (letters used once, alphabetically: "ba" means "ba->ab").
// CHECK-LABEL: func @one_operand
// CHECK: tcc_graph.transpose %arg0 {permutation = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
// CHECK: tcc_graph.reduce_sum %arg0 {dims = array<i64: 1>, keepdim = false} : (tensor<3x4xf32>) -> tensor<3xf32>
// CHECK: tcc_graph.reduce_sum %arg0 {dims = array<i64: 0, 1>, keepdim = false} : (tensor<3x4xf32>) -> tensor<f32>
// CHECK: tcc_graph.transpose %arg0 {permutation = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
func.func @one_operand(%a: tensor<3x4xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<f32>, tensor<4x3xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.einsum.default"(%a) {operand_names = ["tensors.0"], args = {equation = "ij->ji"}} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %1 = tcc_graph.operator "torch.ops.aten.einsum.default"(%a) {operand_names = ["tensors.0"], args = {equation = "ij->i"}} : (tensor<3x4xf32>) -> tensor<3xf32>
  %2 = tcc_graph.operator "torch.ops.aten.einsum.default"(%a) {operand_names = ["tensors.0"], args = {equation = "ij->"}} : (tensor<3x4xf32>) -> tensor<f32>
  %3 = tcc_graph.operator "torch.ops.aten.einsum.default"(%a) {operand_names = ["tensors.0"], args = {equation = "ba"}} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  return %0, %1, %2, %3 : tensor<4x3xf32>, tensor<3xf32>, tensor<f32>, tensor<4x3xf32>
}

// -----

// Three operands, left to right: (ij,jk) contracts j and keeps k for kl, then
// (ik,kl) contracts k. A letter only the last operand has (m) is summed first.
// CHECK-LABEL: func @chain
// CHECK: %[[S:.*]] = tcc_graph.reduce_sum %arg2 {dims = array<i64: 2>, keepdim = false} : (tensor<5x6x7xf32>) -> tensor<5x6xf32>
// CHECK: %[[AB:.*]] = tcc_graph.matmul {{.*}} : (tensor<1x3x4xf32>, tensor<1x4x5xf32>) -> tensor<1x3x5xf32>
// CHECK: %[[ABC:.*]] = tcc_graph.matmul {{.*}} : (tensor<1x3x5xf32>, tensor<1x5x6xf32>) -> tensor<1x3x6xf32>
// CHECK: tcc_graph.reshape %[[ABC]] : (tensor<1x3x6xf32>) -> tensor<3x6xf32>
func.func @chain(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<5x6x7xf32>) -> tensor<3x6xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.einsum.default"(%a, %b, %c) {operand_names = ["tensors.0", "tensors.1", "tensors.2"], args = {equation = "ij,jk,klm->il"}} : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<5x6x7xf32>) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// -----

func.func @unsupported(%a: tensor<4x4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{einsum equation 'ii,i->i': operand 0 ('ii') repeats a letter (a diagonal; not supported yet)}}
  %0 = tcc_graph.operator "torch.ops.aten.einsum.default"(%a, %b) {operand_names = ["tensors.0", "tensors.1"], args = {equation = "ii,i->i"}} : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{einsum equation '...i->...i': '...' is not supported yet}}
  %1 = tcc_graph.operator "torch.ops.aten.einsum.default"(%b) {operand_names = ["tensors.0"], args = {equation = "...i->...i"}} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{einsum equation 'i,i->j': output 'j' repeats a letter or names one no operand has}}
  %2 = tcc_graph.operator "torch.ops.aten.einsum.default"(%b, %b) {operand_names = ["tensors.0", "tensors.1"], args = {equation = "i,i->j"}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Symbolic batch and sequence (a mixture of experts' "btd,edf->btef"): the
// merged free dims' size is b * t read at run time, and the product is
// split back into [b, t] by the same sizes (it once failed: "a result with
// several dynamic dimensions needs dynamic_sizes").
// CHECK-LABEL: func @symbolic_free_dims
// CHECK: %[[M:.*]] = tcc_graph.matmul {{.*}} : (tensor<1x?x8xf32>, tensor<1x8x12xf32>) -> tensor<1x?x12xf32>
// CHECK: %[[B:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[T:.*]] = tensor.dim %arg0, %c1
// CHECK: tcc_graph.reshape %[[M]] sizes(%[[B]], %[[T]]) : (tensor<1x?x12xf32>) -> tensor<?x?x4x3xf32>
func.func @symbolic_free_dims(%x: tensor<?x?x8xf32>, %w: tensor<4x8x3xf32>) -> tensor<?x?x4x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.einsum.default"(%x, %w) {operand_names = ["tensors.0", "tensors.1"], args = {equation = "btd,edf->btef"}} : (tensor<?x?x8xf32>, tensor<4x8x3xf32>) -> tensor<?x?x4x3xf32>
  return %0 : tensor<?x?x4x3xf32>
}
