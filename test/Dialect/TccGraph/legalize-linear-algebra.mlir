// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// det: LU with partial pivoting in f64, unrolled over the order: the pivot
// row is the first largest |a[r][k]| (a max, then the least row index that
// reaches it), swapped up; a zero pivot leaves its column unscaled; the
// determinant is the permutation's sign times the product of the diagonal.
// CHECK-LABEL: func @det
// CHECK: %[[A:.*]] = tcc_graph.cast %arg0 : (tensor<3x2x2xf32>) -> tensor<3x2x2xf64>
// CHECK: %[[COL:.*]] = tcc_graph.slice %[[A]] {dim = 2 : i64, end = 1 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[MAG:.*]] = tcc_graph.abs %[[COL]]
// CHECK: tcc_graph.reduce_max %{{.*}} {dims = array<i64: 1>, keepdim = true} : (tensor<3x2x1xf64>) -> tensor<3x1x1xf64>
// CHECK: %[[ZERO:.*]] = tcc_graph.compare %[[PIVOT:.*]], %{{.*}} {predicate = "eq"} : (tensor<3x1x1xf64>, tensor<f64>) -> tensor<3x1x1xi1>
// CHECK: %[[SCALED:.*]] = tcc_graph.div %[[COLUMN:.*]], %[[PIVOT]]
// CHECK: tcc_graph.select %[[ZERO]], %[[COLUMN]], %[[SCALED]]
// CHECK: tcc_graph.reduce_prod %{{.*}} {dims = array<i64: 1>, keepdim = true} : (tensor<3x2xf64>) -> tensor<3x1xf64>
// CHECK: %[[OUT:.*]] = tcc_graph.cast %{{.*}} : (tensor<3xf64>) -> tensor<3xf32>
// CHECK: return %[[OUT]]
func.func @det(%a: tensor<3x2x2xf32>) -> tensor<3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.linalg_det.default"(%a) {operand_names = ["A"], args = {}} : (tensor<3x2x2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// An empty batch: a constant with no elements.
// CHECK-LABEL: func @det_empty_batch
// CHECK: %[[OUT:.*]] = tcc_graph.constant dense<1.000000e+00> : tensor<0xf32>
// CHECK: return %[[OUT]]
func.func @det_empty_batch(%a: tensor<0x3x3xf32>) -> tensor<0xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.det.default"(%a) {operand_names = ["self"], args = {}} : (tensor<0x3x3xf32>) -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

// inv: solved against the identity; a zero pivot fails a run-time check, as
// PyTorch raises.
// CHECK-LABEL: func @inv
// CHECK: %[[X:.*]] = tcc_graph.check %{{.*}}, %{{.*}} "aten.linalg_inv.default: the input matrix is singular (a zero pivot in its LU factorization), where PyTorch raises" : (tensor<2x1x1xi1>, tensor<2x3x3xf64>) -> tensor<2x3x3xf64>
// CHECK: %[[OUT:.*]] = tcc_graph.cast %[[X]] : (tensor<2x3x3xf64>) -> tensor<2x3x3xf32>
// CHECK: return %[[OUT]]
func.func @inv(%a: tensor<2x3x3xf32>) -> tensor<2x3x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.linalg_inv.default"(%a) {operand_names = ["A"], args = {}} : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  return %0 : tensor<2x3x3xf32>
}

// -----

// inv_ex: no check; the first zero pivot's step as int32 info.
// CHECK-LABEL: func @inv_ex
// CHECK-NOT: tcc_graph.check
// CHECK: %[[INFO:.*]] = tcc_graph.cast %{{.*}} : (tensor<f64>) -> tensor<i32>
// CHECK: return %{{.*}}, %[[INFO]]
func.func @inv_ex(%a: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.linalg_inv_ex.default"(%a) {operand_names = ["A"], args = {}} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
  return %0#0, %0#1 : tensor<3x3xf32>, tensor<i32>
}

// -----

// cholesky with upper: the lower factor of A^T (LAPACK's uplo = 'U' reads the
// upper triangle), transposed back; a diagonal that is not positive fails
// a run-time check.
// CHECK-LABEL: func @cholesky_upper
// CHECK: %[[T:.*]] = tcc_graph.transpose %{{.*}} {permutation = array<i64: 0, 2, 1>} : (tensor<1x2x2xf64>) -> tensor<1x2x2xf64>
// CHECK: tcc_graph.sqrt
// CHECK: tcc_graph.sqrt
// CHECK: %[[U:.*]] = tcc_graph.transpose %{{.*}} {permutation = array<i64: 0, 2, 1>}
// CHECK: tcc_graph.check %{{.*}}, %[[U]] "aten.linalg_cholesky.default: the input is not positive-definite (the factorization could not be completed), where PyTorch raises"
func.func @cholesky_upper(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.linalg_cholesky.default"(%a) {operand_names = ["self"], args = {upper = true}} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// eigvalsh: the symmetric matrix from the lower triangle, one Jacobi
// rotation per pair and sweep (8 sweeps of one pair for 2 x 2), the angle
// from Numerical Recipes' stable form, then the diagonal sorted ascending.
// CHECK-LABEL: func @eigvalsh
// CHECK: %[[T:.*]] = tcc_graph.transpose
// CHECK: %[[SYM:.*]] = tcc_graph.select %{{.*}}, %{{.*}}, %[[T]] : (tensor<1x2x2xi1>, tensor<1x2x2xf64>, tensor<1x2x2xf64>) -> tensor<1x2x2xf64>
// CHECK-COUNT-8: tcc_graph.rsqrt
// CHECK: %[[OUT:.*]] = tcc_graph.cast %{{.*}} : (tensor<2xf64>) -> tensor<2xf32>
// CHECK: return %[[OUT]]
func.func @eigvalsh(%a: tensor<2x2xf32>) -> tensor<2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.linalg_eigvalsh.default"(%a) {operand_names = ["self"], args = {UPLO = "L"}} : (tensor<2x2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
