// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// eigh, UPLO 'U': the symmetric matrix from the upper triangle; each Jacobi
// rotation (8 sweeps of one pair for 2 x 2) is applied to the rows and
// columns of A and accumulated into the columns of V; the eigenvalues are
// sorted ascending by a one-hot permutation that reorders V's columns too;
// each eigenvector gets its largest-magnitude element positive.
// CHECK-LABEL: func @eigh
// CHECK: %[[KEPT:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "le"} : (tensor<1x2x1xf64>, tensor<1x1x2xf64>) -> tensor<1x2x2xi1>
// CHECK: %[[T:.*]] = tcc_graph.transpose
// CHECK: tcc_graph.select %[[KEPT]], %{{.*}}, %[[T]]
// CHECK-COUNT-8: tcc_graph.rsqrt
// CHECK: %[[ORDER:.*]] = tcc_graph.select %{{.*}} : (tensor<1x2x2xi1>, tensor<f64>, tensor<f64>) -> tensor<1x2x2xf64>
// CHECK: %[[MOVES:.*]] = tcc_graph.reshape %[[ORDER]] : (tensor<1x2x2xf64>) -> tensor<1x1x2x2xf64>
// CHECK: %[[SORTED:.*]] = tcc_graph.reduce_sum %{{.*}} {dims = array<i64: 2>, keepdim = false} : (tensor<1x2x2x2xf64>) -> tensor<1x2x2xf64>
// CHECK: %[[ABS:.*]] = tcc_graph.abs %[[SORTED]]
// CHECK: tcc_graph.reduce_max %[[ABS]] {dims = array<i64: 1>, keepdim = true}
// CHECK: %[[VALUES:.*]] = tcc_graph.cast %{{.*}} : (tensor<2xf64>) -> tensor<2xf32>
// CHECK: %[[VECTORS:.*]] = tcc_graph.cast %{{.*}} : (tensor<2x2xf64>) -> tensor<2x2xf32>
// CHECK: return %[[VALUES]], %[[VECTORS]]
func.func @eigh(%a: tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2x2xf32>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.linalg_eigh.default"(%a) {operand_names = ["self"], args = {UPLO = "U"}} : (tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2x2xf32>)
  return %0#0, %0#1 : tensor<2xf32>, tensor<2x2xf32>
}
