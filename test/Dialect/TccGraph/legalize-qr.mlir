// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// geqrf, LAPACK's larfg per column: |x| below the diagonal, beta =
// -sign(alpha) hypot(alpha, |x|) (+0 counts as positive), tau = (beta -
// alpha) / beta but 0 where x = 0, v = x / (alpha - beta); the reflector
// applied to the trailing columns; two steps for 3 x 2 (one sqrt each).
// CHECK-LABEL: func @geqrf
// CHECK: %[[A:.*]] = tcc_graph.cast %{{.*}} : (tensor<1x3x2xf32>) -> tensor<1x3x2xf64>
// CHECK: %[[X2:.*]] = tcc_graph.reduce_sum %{{.*}} {dims = array<i64: 1>, keepdim = true} : (tensor<1x3x1xf64>) -> tensor<1x1x1xf64>
// CHECK: %[[H:.*]] = tcc_graph.sqrt
// CHECK: %[[NEG:.*]] = tcc_graph.compare %[[ALPHA:.*]], %{{.*}} {predicate = "lt"}
// CHECK: %[[MH:.*]] = tcc_graph.neg %[[H]]
// CHECK: %[[BETA:.*]] = tcc_graph.select %[[NEG]], %[[H]], %[[MH]]
// CHECK: %[[TRIVIAL:.*]] = tcc_graph.compare %[[X2]], %{{.*}} {predicate = "eq"}
// CHECK: %[[BMA:.*]] = tcc_graph.sub %[[BETA]], %[[ALPHA]]
// CHECK: %[[TAU:.*]] = tcc_graph.div %[[BMA]], %[[BETA]]
// CHECK: tcc_graph.select %[[TRIVIAL]], %{{.*}}, %[[TAU]]
// CHECK: %[[AMB:.*]] = tcc_graph.sub %[[ALPHA]], %[[BETA]]
// CHECK: tcc_graph.div %{{.*}}, %[[AMB]] : (tensor<1x3x1xf64>, tensor<1x1x1xf64>) -> tensor<1x3x1xf64>
// CHECK: tcc_graph.sqrt
// CHECK: %[[OUT:.*]] = tcc_graph.cast %{{.*}} : (tensor<3x2xf64>) -> tensor<3x2xf32>
// CHECK: %[[TAUS:.*]] = tcc_graph.cast %{{.*}} : (tensor<2xf64>) -> tensor<2xf32>
// CHECK: return %[[OUT]], %[[TAUS]]
func.func @geqrf(%a: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.geqrf.default"(%a) {operand_names = ["self"], args = {}} : (tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>)
  return %0#0, %0#1 : tensor<3x2xf32>, tensor<2xf32>
}

// -----

// linalg.qr, mode complete: R is the packed factorization's upper triangle
// (all m rows), Q the reflectors applied to the m x m identity.
// CHECK-LABEL: func @qr_complete
// CHECK: %[[UPPER:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "le"} : (tensor<1x3x1xf64>, tensor<1x1x2xf64>) -> tensor<1x3x2xi1>
// CHECK: %[[R:.*]] = tcc_graph.select %[[UPPER]]
// CHECK: %[[EYE:.*]] = tcc_graph.add %{{.*}}, %{{.*}} : (tensor<1x3x3xf64>, tensor<1x3x3xf64>) -> tensor<1x3x3xf64>
// CHECK: tcc_graph.mul %{{.*}}, %[[EYE]] : (tensor<1x3x1xf64>, tensor<1x3x3xf64>) -> tensor<1x3x3xf64>
// CHECK: %[[Q:.*]] = tcc_graph.cast %{{.*}} : (tensor<3x3xf64>) -> tensor<3x3xf32>
// CHECK: return %[[Q]], %{{.*}} : tensor<3x3xf32>, tensor<3x2xf32>
func.func @qr_complete(%a: tensor<3x2xf32>) -> (tensor<3x3xf32>, tensor<3x2xf32>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.linalg_qr.default"(%a) {operand_names = ["A"], args = {mode = "complete"}} : (tensor<3x2xf32>) -> (tensor<3x3xf32>, tensor<3x2xf32>)
  return %0#0, %0#1 : tensor<3x3xf32>, tensor<3x2xf32>
}

// -----

// ormqr from the right, transposed: C Q^T = (Q C^T)^T, so C is transposed,
// reflected by H_1 then H_0, and transposed back.
// CHECK-LABEL: func @ormqr_right_transposed
// CHECK: %[[CT:.*]] = tcc_graph.transpose %{{.*}} {permutation = array<i64: 0, 2, 1>} : (tensor<1x2x3xf64>) -> tensor<1x3x2xf64>
// CHECK: tcc_graph.slice %{{.*}} {dim = 1 : i64, end = 2 : i64, start = 1 : i64, step = 1 : i64} : (tensor<1x2xf64>) -> tensor<1x1xf64>
// CHECK: tcc_graph.slice %{{.*}} {dim = 1 : i64, end = 1 : i64, start = 0 : i64, step = 1 : i64} : (tensor<1x2xf64>) -> tensor<1x1xf64>
// CHECK: tcc_graph.transpose %{{.*}} {permutation = array<i64: 0, 2, 1>} : (tensor<1x3x2xf64>) -> tensor<1x2x3xf64>
func.func @ormqr_right_transposed(%a: tensor<3x2xf32>, %tau: tensor<2xf32>, %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.ormqr.default"(%a, %tau, %c) {operand_names = ["self", "input2", "input3"], args = {left = false, transpose = true}} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// householder_product: the first n columns of H_0 H_1 (H_1 applied first).
// CHECK-LABEL: func @householder_product
// CHECK: tcc_graph.add %{{.*}}, %{{.*}} : (tensor<1x3x2xf64>, tensor<1x3x2xf64>) -> tensor<1x3x2xf64>
// CHECK: tcc_graph.slice %{{.*}} {dim = 1 : i64, end = 2 : i64, start = 1 : i64, step = 1 : i64} : (tensor<1x2xf64>) -> tensor<1x1xf64>
// CHECK: tcc_graph.slice %{{.*}} {dim = 1 : i64, end = 1 : i64, start = 0 : i64, step = 1 : i64} : (tensor<1x2xf64>) -> tensor<1x1xf64>
// CHECK: tcc_graph.cast %{{.*}} : (tensor<3x2xf64>) -> tensor<3x2xf32>
func.func @householder_product(%a: tensor<3x2xf32>, %tau: tensor<2xf32>) -> tensor<3x2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.linalg_householder_product.default"(%a, %tau) {operand_names = ["input", "tau"], args = {}} : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
