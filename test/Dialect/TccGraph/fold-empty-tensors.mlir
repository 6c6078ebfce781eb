// RUN: tcc-opt %s -tcc-fold-empty-tensors -split-input-file | FileCheck %s

// A result with no elements is a zero-element constant; a concat input of
// size 0 along the dim is dropped (one left: the concat is that input).
// CHECK-LABEL: func @empty
// CHECK-DAG: %[[E:.*]] = tcc_graph.constant dense<0.000000e+00> : tensor<2x0xf32>
// CHECK-DAG: %[[C:.*]] = tcc_graph.concat %arg1, %arg1 {dim = 0 : i64} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<6x4xf32>
// CHECK-NOT: tcc_graph.exp
// CHECK: return %[[E]], %arg1, %[[C]]
func.func @empty(%z: tensor<2x0xf32>, %b: tensor<3x4xf32>, %a: tensor<0x4xf32>) -> (tensor<2x0xf32>, tensor<3x4xf32>, tensor<6x4xf32>) {
  %e = tcc_graph.exp %z : tensor<2x0xf32>
  %c = tcc_graph.concat %a, %b {dim = 0 : i64} : (tensor<0x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %d = tcc_graph.concat %b, %a, %b {dim = 0 : i64} : (tensor<3x4xf32>, tensor<0x4xf32>, tensor<3x4xf32>) -> tensor<6x4xf32>
  return %e, %c, %d : tensor<2x0xf32>, tensor<3x4xf32>, tensor<6x4xf32>
}

// -----

// Integer results get an integer zero; non-empty values are untouched.
// CHECK-LABEL: func @int_empty
// CHECK: tcc_graph.constant dense<0> : tensor<0xi64>
// CHECK: tcc_graph.exp %arg1
func.func @int_empty(%z: tensor<0xi64>, %x: tensor<4xf32>) -> (tensor<0xi64>, tensor<4xf32>) {
  %n = tcc_graph.neg %z : tensor<0xi64>
  %e = tcc_graph.exp %x : tensor<4xf32>
  return %n, %e : tensor<0xi64>, tensor<4xf32>
}
