// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// igamma and igammac: lgamma(a) and lgamma(1 + a) computed beside the
// operands (in f64, rounded), then one special_function of four operands,
// broadcast.
// CHECK-LABEL: func @igamma
// CHECK: tcc_graph.special_function "igamma"(%arg0, %arg1, %{{.*}}, %{{.*}}) : (tensor<3x1xf32>, tensor<4xf32>, tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
// CHECK: tcc_graph.special_function "igammac"
func.func @igamma(%a: tensor<3x1xf32>, %x: tensor<4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.igamma.default"(%a, %x) {operand_names = ["self", "other"], args = {}} : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.special_gammaincc.default"(%a, %x) {operand_names = ["self", "other"], args = {}} : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %0, %1 : tensor<3x4xf32>, tensor<3x4xf32>
}
