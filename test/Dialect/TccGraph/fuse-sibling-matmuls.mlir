// RUN: tcc-opt %s -tcc-fuse-sibling-matmuls -split-input-file | FileCheck %s
// RUN: tcc-opt %s -tcc-fuse-sibling-matmuls -tcc-hoist-weight-expressions -split-input-file | FileCheck %s --check-prefix=HOIST

// Query, key and value projections of one input (biases, and a narrower
// key as grouped-query attention has) become one product whose column
// slices are the three results, in order.
// CHECK-LABEL: func @qkv
// CHECK:      %[[W:.*]] = tcc_graph.concat %arg1, %arg3, %arg5 {dim = 0 : i64} : (tensor<16x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<24x8xf32>
// CHECK-NEXT: %[[WT:.*]] = tcc_graph.transpose %[[W]] {permutation = array<i64: 1, 0>} : (tensor<24x8xf32>) -> tensor<8x24xf32>
// CHECK-NEXT: %[[P:.*]] = tcc_graph.matmul %arg0, %[[WT]] : (tensor<?x5x8xf32>, tensor<8x24xf32>) -> tensor<?x5x24xf32>
// CHECK-NEXT: %[[B:.*]] = tcc_graph.concat %arg2, %arg4, %arg6 {dim = 0 : i64} : (tensor<16xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<24xf32>
// CHECK-NEXT: %[[PB:.*]] = tcc_graph.add %[[P]], %[[B]] : (tensor<?x5x24xf32>, tensor<24xf32>) -> tensor<?x5x24xf32>
// CHECK-NEXT: %[[Q:.*]] = tcc_graph.slice %[[PB]] {dim = 2 : i64, end = 16 : i64, start = 0 : i64, step = 1 : i64} : (tensor<?x5x24xf32>) -> tensor<?x5x16xf32>
// CHECK-NEXT: %[[K:.*]] = tcc_graph.slice %[[PB]] {dim = 2 : i64, end = 20 : i64, start = 16 : i64, step = 1 : i64} : (tensor<?x5x24xf32>) -> tensor<?x5x4xf32>
// CHECK-NEXT: %[[V:.*]] = tcc_graph.slice %[[PB]] {dim = 2 : i64, end = 24 : i64, start = 20 : i64, step = 1 : i64} : (tensor<?x5x24xf32>) -> tensor<?x5x4xf32>
// CHECK-NOT:  tcc_graph.matmul
// CHECK:      return %[[Q]], %[[K]], %[[V]]
// The joined weight and bias are derived weights; the parts stay on the host.
// HOIST-LABEL: func @qkv
// HOIST-SAME: tcc.host_only
// HOIST-SAME: %[[W:[a-z0-9]+]]: tensor<24x8xf32> {tcc.derived = ["weight:q.weight", "weight:k.weight", "concat:0", "weight:v.weight", "concat:0"]
// HOIST-SAME: %[[B:[a-z0-9]+]]: tensor<24xf32> {tcc.derived = ["weight:q.bias", "weight:k.bias", "concat:0", "weight:v.bias", "concat:0"]
// HOIST:      %[[WT:.*]] = tcc_graph.transpose %[[W]]
// HOIST-NEXT: %[[P:.*]] = tcc_graph.matmul %arg0, %[[WT]]
// HOIST-NEXT: tcc_graph.add %[[P]], %[[B]]
func.func @qkv(%x: tensor<?x5x8xf32>,
               %wq: tensor<16x8xf32> {tcc.role = "weight", tcc.name = "q.weight"}, %bq: tensor<16xf32> {tcc.role = "weight", tcc.name = "q.bias"},
               %wk: tensor<4x8xf32> {tcc.role = "weight", tcc.name = "k.weight"}, %bk: tensor<4xf32> {tcc.role = "weight", tcc.name = "k.bias"},
               %wv: tensor<4x8xf32> {tcc.role = "weight", tcc.name = "v.weight"}, %bv: tensor<4xf32> {tcc.role = "weight", tcc.name = "v.bias"})
    -> (tensor<?x5x16xf32>, tensor<?x5x4xf32>, tensor<?x5x4xf32>) {
  %wqt = tcc_graph.transpose %wq {permutation = array<i64: 1, 0>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
  %q0 = tcc_graph.matmul %x, %wqt : (tensor<?x5x8xf32>, tensor<8x16xf32>) -> tensor<?x5x16xf32>
  %q = tcc_graph.add %q0, %bq : (tensor<?x5x16xf32>, tensor<16xf32>) -> tensor<?x5x16xf32>
  %wkt = tcc_graph.transpose %wk {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %k0 = tcc_graph.matmul %x, %wkt : (tensor<?x5x8xf32>, tensor<8x4xf32>) -> tensor<?x5x4xf32>
  %k = tcc_graph.add %bk, %k0 : (tensor<4xf32>, tensor<?x5x4xf32>) -> tensor<?x5x4xf32>
  %wvt = tcc_graph.transpose %wv {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %v0 = tcc_graph.matmul %x, %wvt : (tensor<?x5x8xf32>, tensor<8x4xf32>) -> tensor<?x5x4xf32>
  %v = tcc_graph.add %v0, %bv : (tensor<?x5x4xf32>, tensor<4xf32>) -> tensor<?x5x4xf32>
  return %q, %k, %v : tensor<?x5x16xf32>, tensor<?x5x4xf32>, tensor<?x5x4xf32>
}

// -----

// Layers without a bias (a gated MLP's gate and up projections) are joined
// too; a layer with a bias is not mixed with them, and alone it stays.
// CHECK-LABEL: func @gate_up
// CHECK:      %[[W:.*]] = tcc_graph.concat %arg1, %arg2 {dim = 0 : i64} : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<12x8xf32>
// CHECK:      %[[P:.*]] = tcc_graph.matmul %arg0, %{{.*}} : (tensor<3x8xf32>, tensor<8x12xf32>) -> tensor<3x12xf32>
// CHECK-NEXT: %[[G:.*]] = tcc_graph.slice %[[P]] {dim = 1 : i64, end = 6 : i64, start = 0 : i64, step = 1 : i64}
// CHECK-NEXT: %[[U:.*]] = tcc_graph.slice %[[P]] {dim = 1 : i64, end = 12 : i64, start = 6 : i64, step = 1 : i64}
// CHECK:      %[[S:.*]] = tcc_graph.mul %[[G]], %[[U]]
// CHECK:      %[[LT:.*]] = tcc_graph.transpose %arg3
// CHECK-NEXT: %[[L:.*]] = tcc_graph.matmul %arg0, %[[LT]] : (tensor<3x8xf32>, tensor<8x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: tcc_graph.add %[[L]], %arg4
func.func @gate_up(%x: tensor<3x8xf32>,
                   %wg: tensor<6x8xf32> {tcc.role = "weight", tcc.name = "gate"}, %wu: tensor<6x8xf32> {tcc.role = "weight", tcc.name = "up"},
                   %wl: tensor<2x8xf32> {tcc.role = "weight", tcc.name = "lone"}, %bl: tensor<2xf32> {tcc.role = "weight", tcc.name = "lone.b"})
    -> (tensor<3x6xf32>, tensor<3x2xf32>) {
  %wgt = tcc_graph.transpose %wg {permutation = array<i64: 1, 0>} : (tensor<6x8xf32>) -> tensor<8x6xf32>
  %g = tcc_graph.matmul %x, %wgt : (tensor<3x8xf32>, tensor<8x6xf32>) -> tensor<3x6xf32>
  %wut = tcc_graph.transpose %wu {permutation = array<i64: 1, 0>} : (tensor<6x8xf32>) -> tensor<8x6xf32>
  %u = tcc_graph.matmul %x, %wut : (tensor<3x8xf32>, tensor<8x6xf32>) -> tensor<3x6xf32>
  %s = tcc_graph.mul %g, %u : (tensor<3x6xf32>, tensor<3x6xf32>) -> tensor<3x6xf32>
  %wlt = tcc_graph.transpose %wl {permutation = array<i64: 1, 0>} : (tensor<2x8xf32>) -> tensor<8x2xf32>
  %l0 = tcc_graph.matmul %x, %wlt : (tensor<3x8xf32>, tensor<8x2xf32>) -> tensor<3x2xf32>
  %l = tcc_graph.add %l0, %bl : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %s, %l : tensor<3x6xf32>, tensor<3x2xf32>
}

// -----

// Not linear layers over bound weights: products of inputs, and of one
// input with a weight it reads untransposed, stay as they are.
// CHECK-LABEL: func @not_siblings
// CHECK-NOT: tcc_graph.concat
// CHECK-COUNT-2: tcc_graph.matmul %arg0
func.func @not_siblings(%x: tensor<3x8xf32>, %y: tensor<8x4xf32>,
                        %w: tensor<8x4xf32> {tcc.role = "weight", tcc.name = "w"}) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %a = tcc_graph.matmul %x, %y : (tensor<3x8xf32>, tensor<8x4xf32>) -> tensor<3x4xf32>
  %b = tcc_graph.matmul %x, %w : (tensor<3x8xf32>, tensor<8x4xf32>) -> tensor<3x4xf32>
  return %a, %b : tensor<3x4xf32>, tensor<3x4xf32>
}
