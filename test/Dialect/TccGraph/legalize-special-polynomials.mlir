// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// The special polynomials: one tcc_graph.special_function each, the degree
// a tensor of the result's type (its recurrence runs per element).
// CHECK-LABEL: func @tensors
// CHECK: %[[R:.*]] = tcc_graph.special_function "chebyshev_polynomial_t"(%arg0, %arg1) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK: return %[[R]]
func.func @tensors(%x: tensor<2x4xf32>, %n: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.special_chebyshev_polynomial_t.default"(%x, %n) {operand_names = ["x", "n"], args = {}} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// A Python number for x or n is a rank-0 constant; an integer degree tensor
// is converted to the result's type.
// CHECK-LABEL: func @scalars
// CHECK: %[[X:.*]] = tcc_graph.constant dense<2.500000e+00> : tensor<f32>
// CHECK: %[[N:.*]] = tcc_graph.cast %arg1 : (tensor<4xi64>) -> tensor<4xf32>
// CHECK: tcc_graph.special_function "hermite_polynomial_h"(%[[X]], %[[N]]) : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[THREE:.*]] = tcc_graph.constant dense<3.000000e+00> : tensor<f32>
// CHECK: tcc_graph.special_function "legendre_polynomial_p"(%arg0, %[[THREE]]) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
func.func @scalars(%x: tensor<4xf32>, %n: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.special_hermite_polynomial_h.x_scalar"(%n) {operand_names = ["n"], args = {x = 2.5 : f64}} : (tensor<4xi64>) -> tensor<4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.special_legendre_polynomial_p.n_scalar"(%x) {operand_names = ["x"], args = {n = 3 : i64}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Every polynomial, in f64 too.
// CHECK-LABEL: func @all
// CHECK: "chebyshev_polynomial_u"
// CHECK: "chebyshev_polynomial_v"
// CHECK: "chebyshev_polynomial_w"
// CHECK: "shifted_chebyshev_polynomial_t"
// CHECK: "shifted_chebyshev_polynomial_u"
// CHECK: "shifted_chebyshev_polynomial_v"
// CHECK: "shifted_chebyshev_polynomial_w"
// CHECK: "hermite_polynomial_he"
// CHECK: "laguerre_polynomial_l"{{.*}} -> tensor<4xf64>
func.func @all(%x: tensor<4xf32>, %n: tensor<4xf32>, %y: tensor<4xf64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf64>) {
  %0 = tcc_graph.operator "torch.ops.aten.special_chebyshev_polynomial_u.default"(%x, %n) {operand_names = ["x", "n"], args = {}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.special_chebyshev_polynomial_v.default"(%x, %n) {operand_names = ["x", "n"], args = {}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = tcc_graph.operator "torch.ops.aten.special_chebyshev_polynomial_w.default"(%x, %n) {operand_names = ["x", "n"], args = {}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = tcc_graph.operator "torch.ops.aten.special_shifted_chebyshev_polynomial_t.default"(%x, %n) {operand_names = ["x", "n"], args = {}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = tcc_graph.operator "torch.ops.aten.special_shifted_chebyshev_polynomial_u.default"(%x, %n) {operand_names = ["x", "n"], args = {}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %5 = tcc_graph.operator "torch.ops.aten.special_shifted_chebyshev_polynomial_v.default"(%x, %n) {operand_names = ["x", "n"], args = {}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %6 = tcc_graph.operator "torch.ops.aten.special_shifted_chebyshev_polynomial_w.default"(%x, %n) {operand_names = ["x", "n"], args = {}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %7 = tcc_graph.operator "torch.ops.aten.special_hermite_polynomial_he.default"(%x, %n) {operand_names = ["x", "n"], args = {}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %8 = tcc_graph.operator "torch.ops.aten.special_laguerre_polynomial_l.default"(%y, %y) {operand_names = ["x", "n"], args = {}} : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf64>
}
