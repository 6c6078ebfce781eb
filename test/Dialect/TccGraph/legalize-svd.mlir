// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// linalg.svd of a wide matrix: one-sided Jacobi on A^T (3 x 2: one pair, 8
// sweeps), the column norms the singular values sorted descending, the
// right vectors the normalized columns (0 where the norm is 0), one sign
// per triple from the left vector; the vectors checked at run time to come
// from no zero singular value.
// CHECK-LABEL: func @svd_wide
// CHECK: %[[AT:.*]] = tcc_graph.transpose %{{.*}} {permutation = array<i64: 0, 2, 1>} : (tensor<1x2x3xf64>) -> tensor<1x3x2xf64>
// CHECK-COUNT-8: tcc_graph.rsqrt
// CHECK: %[[NORMS:.*]] = tcc_graph.sqrt %{{.*}} : tensor<1x2xf64>
// CHECK: tcc_graph.div %{{.*}}, %{{.*}} : (tensor<1x3x2xf64>, tensor<1x1x2xf64>) -> tensor<1x3x2xf64>
// CHECK: tcc_graph.check %{{.*}}, %{{.*}} "aten.linalg_svd.default: the input has a zero singular value, whose singular vectors are any basis of a subspace; tcc does not choose one"
// CHECK: %[[U:.*]] = tcc_graph.cast %{{.*}} : (tensor<2x2xf64>) -> tensor<2x2xf32>
// CHECK: %[[S:.*]] = tcc_graph.cast %{{.*}} : (tensor<2xf64>) -> tensor<2xf32>
// CHECK: %[[VH:.*]] = tcc_graph.cast %{{.*}} : (tensor<2x3xf64>) -> tensor<2x3xf32>
// CHECK: return %[[U]], %[[S]], %[[VH]]
func.func @svd_wide(%a: tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2x3xf32>) {
  %0:3 = tcc_graph.operator "torch.ops.aten.linalg_svd.default"(%a) {operand_names = ["A"], args = {full_matrices = false}} : (tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2x3xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x2xf32>, tensor<2xf32>, tensor<2x3xf32>
}

// -----

// pinv: V diag(1/s where s > max(atol, rtol * s_max)) U^T, rtol defaulting
// to float32's eps * max(m, n) (= 3.5762786865234375E-7 for 3 x 2).
// CHECK-LABEL: func @pinv
// CHECK: %[[MAX:.*]] = tcc_graph.reduce_max %{{.*}} {dims = array<i64: 1>, keepdim = true} : (tensor<1x2xf64>) -> tensor<1x1xf64>
// CHECK: %[[RTOL:.*]] = tcc_graph.constant dense<3.5762786865234375E-7> : tensor<f64>
// CHECK: %[[REL:.*]] = tcc_graph.mul %[[RTOL]], %[[MAX]]
// CHECK: %[[TOL:.*]] = tcc_graph.maximum %{{.*}}, %[[REL]]
// CHECK: %[[KEEP:.*]] = tcc_graph.compare %{{.*}}, %[[TOL]] {predicate = "gt"}
// CHECK: %[[P:.*]] = tcc_graph.matmul %{{.*}}, %{{.*}} : (tensor<1x2x2xf64>, tensor<1x2x3xf64>) -> tensor<1x2x3xf64>
// CHECK: tcc_graph.cast %{{.*}} : (tensor<2x3xf64>) -> tensor<2x3xf32>
func.func @pinv(%a: tensor<3x2xf32>) -> tensor<2x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.linalg_pinv.atol_rtol_tensor"(%a) {operand_names = ["self"], args = {hermitian = false}} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// matrix_rank with hermitian: |eigenvalues| above the tolerance, counted,
// as int64.
// CHECK-LABEL: func @matrix_rank_hermitian
// CHECK: tcc_graph.abs %{{.*}} : tensor<1x2xf64>
// CHECK: %[[KEEP:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "gt"}
// CHECK: %[[ONES:.*]] = tcc_graph.cast %[[KEEP]] : (tensor<1x2xi1>) -> tensor<1x2xf64>
// CHECK: %[[N:.*]] = tcc_graph.reduce_sum %[[ONES]]
// CHECK: tcc_graph.cast %{{.*}} : (tensor<f64>) -> tensor<i64>
func.func @matrix_rank_hermitian(%a: tensor<2x2xf32>) -> tensor<i64> {
  %0 = tcc_graph.operator "torch.ops.aten.linalg_matrix_rank.atol_rtol_tensor"(%a) {operand_names = ["input"], args = {hermitian = true}} : (tensor<2x2xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// cond: the largest singular value over the smallest.
// CHECK-LABEL: func @cond
// CHECK: %[[HI:.*]] = tcc_graph.slice %{{.*}} {dim = 1 : i64, end = 1 : i64, start = 0 : i64, step = 1 : i64} : (tensor<1x2xf64>) -> tensor<1x1xf64>
// CHECK: %[[LO:.*]] = tcc_graph.slice %{{.*}} {dim = 1 : i64, end = 2 : i64, start = 1 : i64, step = 1 : i64} : (tensor<1x2xf64>) -> tensor<1x1xf64>
// CHECK: tcc_graph.div %[[HI]], %[[LO]]
func.func @cond(%a: tensor<2x2xf32>) -> tensor<f32> {
  %0 = tcc_graph.operator "torch.ops.aten.linalg_cond.default"(%a) {operand_names = ["self"], args = {}} : (tensor<2x2xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// The nuclear norm over dims (0, 2): those moved last, the singular values
// of each matrix summed.
// CHECK-LABEL: func @nuclear_norm
// CHECK: tcc_graph.transpose %{{.*}} {permutation = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
// CHECK: tcc_graph.reduce_sum %{{.*}} {dims = array<i64: 1>, keepdim = false} : (tensor<3x2xf64>) -> tensor<3xf64>
func.func @nuclear_norm(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.linalg_matrix_norm.str_ord"(%x) {operand_names = ["self"], args = {ord = "nuc", dim = array<i64: 0, 2>}} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
