// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// kron: self's dims interleaved with size-1 dims, other's the other way,
// one broadcast product, merged back.
// CHECK-LABEL: func @kron
// CHECK: %[[L:.*]] = tcc_graph.reshape %arg0 : (tensor<2x3xf32>) -> tensor<2x1x3x1xf32>
// CHECK: %[[R:.*]] = tcc_graph.reshape %arg1 : (tensor<4x5xf32>) -> tensor<1x4x1x5xf32>
// CHECK: %[[P:.*]] = tcc_graph.mul %[[L]], %[[R]] : (tensor<2x1x3x1xf32>, tensor<1x4x1x5xf32>) -> tensor<2x4x3x5xf32>
// CHECK: %[[OUT:.*]] = tcc_graph.reshape %[[P]] : (tensor<2x4x3x5xf32>) -> tensor<8x15xf32>
// CHECK: return %[[OUT]]
func.func @kron(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<8x15xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.kron.default"(%a, %b) {operand_names = ["self", "other"], args = {}} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<8x15xf32>
  return %0 : tensor<8x15xf32>
}

// -----

// tensordot: self's free dims first, other's contracted dims first (in the
// pairs' order), one matmul; a contracted dim of size 1 against size 2 sums
// the other operand over it first (ATen's rule).
// CHECK-LABEL: func @tensordot
// CHECK: %[[S:.*]] = tcc_graph.reduce_sum %arg0 {dims = array<i64: 0>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x3x4xf32>
// CHECK: %[[X:.*]] = tcc_graph.transpose %[[S]] {permutation = array<i64: 2, 1, 0>} : (tensor<1x3x4xf32>) -> tensor<4x3x1xf32>
// CHECK: %[[Y:.*]] = tcc_graph.transpose %arg1 {permutation = array<i64: 1, 0, 2>} : (tensor<1x3x5xf32>) -> tensor<3x1x5xf32>
// CHECK: %[[MX:.*]] = tcc_graph.reshape %[[X]] : (tensor<4x3x1xf32>) -> tensor<4x3xf32>
// CHECK: %[[MY:.*]] = tcc_graph.reshape %[[Y]] : (tensor<3x1x5xf32>) -> tensor<3x5xf32>
// CHECK: %[[P:.*]] = tcc_graph.matmul %[[MX]], %[[MY]]
// CHECK: return %[[P]]
func.func @tensordot(%a: tensor<2x3x4xf32>, %b: tensor<1x3x5xf32>) -> tensor<4x5xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.tensordot.default"(%a, %b) {operand_names = ["self", "other"], args = {dims_self = array<i64: 1, 0>, dims_other = array<i64: 1, 0>}} : (tensor<2x3x4xf32>, tensor<1x3x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// linalg.cross along the last dim, the second operand broadcast: each
// component u_j v_k - u_k v_j, concatenated.
// CHECK-LABEL: func @cross
// CHECK: %[[V:.*]] = tcc_graph.broadcast %arg1 : (tensor<1x3xf32>) -> tensor<5x3xf32>
// CHECK-COUNT-3: tcc_graph.sub
// CHECK: %[[OUT:.*]] = tcc_graph.concat %{{.*}}, %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<5x1xf32>, tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x3xf32>
// CHECK: return %[[OUT]]
func.func @cross(%a: tensor<5x3xf32>, %b: tensor<1x3xf32>) -> tensor<5x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.linalg_cross.default"(%a, %b) {operand_names = ["self", "other"], args = {dim = -1 : i64}} : (tensor<5x3xf32>, tensor<1x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// cross without a dim: the first dim of size 3 (dim 1 here).
// CHECK-LABEL: func @cross_first_dim_of_3
// CHECK: tcc_graph.concat %{{.*}}, %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<2x1x3xf32>, tensor<2x1x3xf32>, tensor<2x1x3xf32>) -> tensor<2x3x3xf32>
func.func @cross_first_dim_of_3(%a: tensor<2x3x3xf32>, %b: tensor<2x3x3xf32>) -> tensor<2x3x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.cross.default"(%a, %b) {operand_names = ["self", "other"], args = {}} : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  return %0 : tensor<2x3x3xf32>
}

// -----

// tensordot over symbolic sizes: the contracted dims' sizes are one symbol
// (s1) in the export; the flattened sizes and the result's are read at run
// time.
// CHECK-LABEL: func @tensordot_symbolic
// CHECK: %[[X:.*]] = tcc_graph.transpose %arg0 {permutation = array<i64: 0, 2, 1>} : (tensor<?x?x4xf32>) -> tensor<?x4x?xf32>
// CHECK: %[[B:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4x?xf32>
// CHECK: %[[FREE:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK: %[[K:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4x?xf32>
// CHECK: %[[MX:.*]] = tcc_graph.reshape %[[X]] sizes(%[[FREE]], %[[K]]) : (tensor<?x4x?xf32>) -> tensor<?x?xf32>
// CHECK: %[[P:.*]] = tcc_graph.matmul %[[MX]], %{{.*}} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK: tcc_graph.reshape %[[P]] sizes(%{{.*}}, %{{.*}}) : (tensor<?x?xf32>) -> tensor<?x4x?xf32>
func.func @tensordot_symbolic(%a: tensor<?x?x4xf32> {tcc.sizes = ["s0", "s1", 4]}, %b: tensor<?x?xf32> {tcc.sizes = ["s1", "s2"]}) -> tensor<?x4x?xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.tensordot.default"(%a, %b) {operand_names = ["self", "other"], args = {dims_self = array<i64: 1>, dims_other = array<i64: 0>}} : (tensor<?x?x4xf32>, tensor<?x?xf32>) -> tensor<?x4x?xf32>
  return %0 : tensor<?x4x?xf32>
}

// -----

// linalg.cross over symbolic sizes: the second operand broadcast to the
// result's sizes (the export's), the components sliced along the static 3.
// CHECK-LABEL: func @cross_symbolic
// CHECK: %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x3x?xf32>
// CHECK: %[[M:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x3x?xf32>
// CHECK: %[[V:.*]] = tcc_graph.broadcast %arg1 sizes(%[[N]], %[[M]]) : (tensor<1x3x?xf32>) -> tensor<?x3x?xf32>
// CHECK-COUNT-3: tcc_graph.sub
// CHECK: tcc_graph.concat %{{.*}}, %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<?x1x?xf32>, tensor<?x1x?xf32>, tensor<?x1x?xf32>) -> tensor<?x3x?xf32>
func.func @cross_symbolic(%a: tensor<?x3x?xf32> {tcc.sizes = ["s0", 3, "s1"]}, %b: tensor<1x3x?xf32> {tcc.sizes = [1, 3, "s1"]}) -> tensor<?x3x?xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.linalg_cross.default"(%a, %b) {operand_names = ["self", "other"], args = {dim = 1 : i64}, tcc.sizes = [["s0", 3, "s1"]]} : (tensor<?x3x?xf32>, tensor<1x3x?xf32>) -> tensor<?x3x?xf32>
  return %0 : tensor<?x3x?xf32>
}

// -----

// vander: ones, x, then running products (cumprod's order), concatenated.
// CHECK-LABEL: func @vander
// CHECK: %[[X:.*]] = tcc_graph.reshape %arg0 : (tensor<3xf32>) -> tensor<3x1xf32>
// CHECK: %[[ONE:.*]] = tcc_graph.constant dense<1.000000e+00> : tensor<3x1xf32>
// CHECK: %[[X2:.*]] = tcc_graph.mul %[[X]], %[[X]]
// CHECK: %[[X3:.*]] = tcc_graph.mul %[[X2]], %[[X]]
// CHECK: tcc_graph.concat %[[ONE]], %[[X]], %[[X2]], %[[X3]] {dim = 1 : i64} : (tensor<3x1xf32>, tensor<3x1xf32>, tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
func.func @vander(%x: tensor<3xf32>) -> tensor<3x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.linalg_vander.default"(%x) {operand_names = ["x"], args = {N = 4 : i64}} : (tensor<3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// block_diag: a 0-D operand as 1 x 1, a 1-D one as a row, each padded with
// zero columns to its place, the rows concatenated.
// CHECK-LABEL: func @block_diag
// CHECK: tcc_graph.reshape %arg0 : (tensor<f32>) -> tensor<1x1xf32>
// CHECK: tcc_graph.reshape %arg1 : (tensor<3xf32>) -> tensor<1x3xf32>
// CHECK: tcc_graph.concat %{{.*}}, %{{.*}}, %{{.*}} {dim = 0 : i64} : (tensor<1x6xf32>, tensor<1x6xf32>, tensor<2x6xf32>) -> tensor<4x6xf32>
func.func @block_diag(%s: tensor<f32>, %v: tensor<3xf32>, %m: tensor<2x2xf32>) -> tensor<4x6xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.block_diag.default"(%s, %v, %m) {operand_names = ["tensors.0", "tensors.1", "tensors.2"], args = {}} : (tensor<f32>, tensor<3xf32>, tensor<2x2xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// multi_dot: a 1-D first operand as a row, the 1-D last as a column, the
// matmuls left to right, the vector dims dropped from the result.
// CHECK-LABEL: func @multi_dot
// CHECK: %[[V:.*]] = tcc_graph.reshape %arg0 : (tensor<3xf32>) -> tensor<1x3xf32>
// CHECK: %[[W:.*]] = tcc_graph.reshape %arg2 : (tensor<4xf32>) -> tensor<4x1xf32>
// CHECK: %[[P:.*]] = tcc_graph.matmul %[[V]], %arg1
// CHECK: %[[Q:.*]] = tcc_graph.matmul %[[P]], %[[W]]
// CHECK: tcc_graph.reshape %[[Q]] : (tensor<1x1xf32>) -> tensor<f32>
func.func @multi_dot(%v: tensor<3xf32>, %a: tensor<3x4xf32>, %w: tensor<4xf32>) -> tensor<f32> {
  %0 = tcc_graph.operator "torch.ops.aten.linalg_multi_dot.default"(%v, %a, %w) {operand_names = ["tensors.0", "tensors.1", "tensors.2"], args = {}} : (tensor<3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
