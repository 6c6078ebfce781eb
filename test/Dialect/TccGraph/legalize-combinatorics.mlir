// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics | FileCheck %s

// cartesian_prod: row r reads tensor j at (r / stride_j) mod n_j (the last
// tensor varies fastest), one take per column, the columns concatenated.
// CHECK-LABEL: func @cartesian_prod
// CHECK: %[[R:.*]] = tcc_graph.iota {{.*}} : tensor<6xi64>
// CHECK: %[[B:.*]] = tcc_graph.fmod %[[R]], %{{.*}} : (tensor<6xi64>, tensor<i64>) -> tensor<6xi64>
// CHECK: %[[TB:.*]] = tcc_graph.take %arg1, %[[B]] {dim = 0 : i64} : (tensor<2xf32>, tensor<6xi64>) -> tensor<6xf32>
// CHECK: %[[CB:.*]] = tcc_graph.reshape %[[TB]] : (tensor<6xf32>) -> tensor<6x1xf32>
// CHECK: %[[A:.*]] = tcc_graph.trunc_div %[[R]], %{{.*}} : (tensor<6xi64>, tensor<i64>) -> tensor<6xi64>
// CHECK: %[[TA:.*]] = tcc_graph.take %arg0, %[[A]] {dim = 0 : i64}
// CHECK: %[[CA:.*]] = tcc_graph.reshape %[[TA]]
// CHECK: %[[OUT:.*]] = tcc_graph.concat %[[CA]], %[[CB]] {dim = 1 : i64} : (tensor<6x1xf32>, tensor<6x1xf32>) -> tensor<6x2xf32>
// CHECK: return %[[OUT]]
func.func @cartesian_prod(%a: tensor<3xf32>, %b: tensor<2xf32>) -> tensor<6x2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.cartesian_prod.default"(%a, %b) {operand_names = ["tensors.0", "tensors.1"], args = {}} : (tensor<3xf32>, tensor<2xf32>) -> tensor<6x2xf32>
  return %0 : tensor<6x2xf32>
}

// -----

// combinations in itertools order: (0,1) (0,2) (0,3) (1,2) (1,3) (2,3).
// CHECK-LABEL: func @combinations
// CHECK: tcc_graph.constant dense<[0, 0, 0, 1, 1, 2]> : tensor<6xi64>
// CHECK: tcc_graph.constant dense<[1, 2, 3, 2, 3, 3]> : tensor<6xi64>
// CHECK: tcc_graph.concat
func.func @combinations(%a: tensor<4xf32>) -> tensor<6x2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.combinations.default"(%a) {operand_names = ["self"], args = {r = 2 : i64, with_replacement = false}} : (tensor<4xf32>) -> tensor<6x2xf32>
  return %0 : tensor<6x2xf32>
}

// -----

// with_replacement: (0,0) (0,1) (0,2) (1,1) (1,2) (2,2).
// CHECK-LABEL: func @combinations_with_replacement
// CHECK: tcc_graph.constant dense<[0, 0, 0, 1, 1, 2]> : tensor<6xi64>
// CHECK: tcc_graph.constant dense<[0, 1, 2, 1, 2, 2]> : tensor<6xi64>
// CHECK: tcc_graph.concat
func.func @combinations_with_replacement(%a: tensor<3xf32>) -> tensor<6x2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.combinations.default"(%a) {operand_names = ["self"], args = {r = 2 : i64, with_replacement = true}} : (tensor<3xf32>) -> tensor<6x2xf32>
  return %0 : tensor<6x2xf32>
}

// -----

// More elements than there are to choose: an empty result.
// CHECK-LABEL: func @combinations_empty
// CHECK: %[[E:.*]] = tcc_graph.constant dense<0.000000e+00> : tensor<0x4xf32>
// CHECK: return %[[E]]
func.func @combinations_empty(%a: tensor<1xf32>) -> tensor<0x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.combinations.default"(%a) {operand_names = ["self"], args = {r = 4 : i64, with_replacement = false}} : (tensor<1xf32>) -> tensor<0x4xf32>
  return %0 : tensor<0x4xf32>
}

// -----

// A result size other than the count (a bad export) is refused.
func.func @combinations_wrong_count(%a: tensor<4xf32>) -> tensor<5x2xf32> {
  // expected-error @+1 {{operator 'aten.combinations.default': computed 'tensor<6x2xf32>' for result 'tensor<5x2xf32>'}}
  %0 = tcc_graph.operator "torch.ops.aten.combinations.default"(%a) {operand_names = ["self"], args = {r = 2 : i64, with_replacement = false}} : (tensor<4xf32>) -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

// The row count torch.export records (an unbacked symbol) no input binds.
func.func @combinations_unbacked(%a: tensor<2xf32>) -> tensor<?x1xf32> {
  // expected-error @+1 {{operator 'aten.combinations.default': a result of data-dependent size 'tensor<?x1xf32>' is not supported}}
  %0 = tcc_graph.operator "torch.ops.aten.combinations.default"(%a) {operand_names = ["self"], args = {r = 1 : i64, with_replacement = false}} : (tensor<2xf32>) -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}
