// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics

// An activation with an integer result is exact only with whole-number
// arguments; others are refused at the operator.
func.func @threshold_fraction(%x: tensor<8xi32>) -> tensor<8xi32> {
  // expected-error @+1 {{operator 'aten.threshold.default': argument 'threshold' = 1.500000e+00 on an integer tensor is not a whole number of at most 2^53}}
  %0 = tcc_graph.operator "torch.ops.aten.threshold.default"(%x) {operand_names = ["self"], args = {threshold = 1.5 : f64, value = 5 : i64}} : (tensor<8xi32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

// An integer result from a formula that needs fractions (hardsigmoid).
func.func @hardsigmoid_int(%x: tensor<8xi64>) -> tensor<8xi64> {
  // expected-error @+1 {{operator 'aten.hardsigmoid.default': activation on a 'i64' tensor is not supported}}
  %0 = tcc_graph.operator "torch.ops.aten.hardsigmoid.default"(%x) {operand_names = ["self"], args = {}} : (tensor<8xi64>) -> tensor<8xi64>
  return %0 : tensor<8xi64>
}

// -----

func.func @relu_bool(%x: tensor<8xi1>) -> tensor<8xi1> {
  // expected-error @+1 {{operator 'aten.relu.default': relu of a 'i1' tensor is not supported}}
  %0 = tcc_graph.operator "torch.ops.aten.relu.default"(%x) {operand_names = ["self"], args = {}} : (tensor<8xi1>) -> tensor<8xi1>
  return %0 : tensor<8xi1>
}
