// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// CHECK-LABEL: func @sigmoid
// CHECK: %[[NEG:.*]] = tcc_graph.neg %arg0
// CHECK: %[[EXP:.*]] = tcc_graph.exp %[[NEG]]
// CHECK: %[[DEN:.*]] = tcc_graph.add %{{.*}}, %[[EXP]]
// CHECK: tcc_graph.div %{{.*}}, %[[DEN]]
func.func @sigmoid(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.sigmoid.default"(%x) {operand_names = ["self"], args = {}} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// gelu (exact): 0.5 x (1 + erf(x / sqrt 2))
// CHECK-LABEL: func @gelu
// CHECK: tcc_graph.constant dense<0.7071067{{[0-9]*}}> : tensor<f32>
// CHECK: tcc_graph.erf
// CHECK-NOT: tcc_graph.tanh
func.func @gelu(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.gelu.default"(%x) {operand_names = ["self"], args = {}} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func @gelu_tanh
// CHECK: tcc_graph.tanh
// CHECK-NOT: tcc_graph.erf
func.func @gelu_tanh(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.gelu.default"(%x) {operand_names = ["self"], args = {approximate = "tanh"}} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// clamp: maximum with the lower bound, minimum with the upper.
// CHECK-LABEL: func @clamp
// CHECK: %[[LO:.*]] = tcc_graph.maximum %arg0, %{{.*}}
// CHECK: tcc_graph.minimum %[[LO]], %{{.*}}
func.func @clamp(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.clamp.default"(%x) {operand_names = ["self"], args = {min = -5.000000e-01 : f64, max = 7.500000e-01 : f64}} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// softplus: max(x, 0) + log1p(exp(-|beta x|)) / beta
// CHECK-LABEL: func @softplus
// CHECK: tcc_graph.abs
// CHECK: tcc_graph.log1p
func.func @softplus(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.softplus.default"(%x) {operand_names = ["self"], args = {}} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// stack: a unit dim inserted in each input, then concat.
// CHECK-LABEL: func @stack
// CHECK: tcc_graph.reshape %arg0 : (tensor<8xf32>) -> tensor<1x8xf32>
// CHECK: tcc_graph.concat %{{.*}}, %{{.*}} {dim = 0 : i64} : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
func.func @stack(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.stack.default"(%x, %y) {operand_names = ["tensors.0", "tensors.1"], args = {}} : (tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
