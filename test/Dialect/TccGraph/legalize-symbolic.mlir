// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics | FileCheck %s

// Tensors of a symbolic size (the sequence length s70 of input_ids): the
// importer records each result's sizes as expressions (tcc.sizes), and the
// legalizer computes them from an input that has the symbol as a dim.
// CHECK-LABEL: func @positions
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[S:.*]] = tensor.dim %arg0, %[[C1]] : tensor<2x?xi64>
// CHECK: %[[P:.*]] = tcc_graph.iota sizes(%[[S]]) {start = 0.000000e+00 : f64, step = 1.000000e+00 : f64} : tensor<?xi64>
// CHECK: tcc_graph.broadcast %[[P]] sizes(%{{.*}}) : (tensor<?xi64>) -> tensor<2x?xi64>
// CHECK: tcc_graph.slice %arg1 sizes(%{{.*}}) {dim = 1 : i64, end = 9223372036854775807 : i64, start = 0 : i64, step = 1 : i64} : (tensor<1x512xi64>) -> tensor<1x?xi64>
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[S2:.*]] = arith.muli %[[C2]], %{{.*}} : index
// CHECK: tcc_graph.broadcast %{{.*}} sizes(%[[S2]]) : (tensor<f32>) -> tensor<?xf32>
func.func @positions(%ids: tensor<2x?xi64> {tcc.sizes = [2, "s70"]}, %buf: tensor<1x512xi64>) -> (tensor<2x?xi64>, tensor<1x?xi64>, tensor<?xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.arange.default"() {operand_names = [], args = {end = "s70"}, tcc.symbolic_args = ["end"], tcc.sizes = [["s70"]]} : () -> tensor<?xi64>
  %1 = tcc_graph.operator "torch.ops.aten.expand.default"(%0) {operand_names = ["self"], args = {size = [2, "s70"]}, tcc.symbolic_args = ["size"], tcc.sizes = [[2, "s70"]]} : (tensor<?xi64>) -> tensor<2x?xi64>
  %2 = tcc_graph.operator "torch.ops.aten.slice.Tensor"(%buf) {operand_names = ["self"], args = {dim = 1 : i64, start = 0 : i64, end = "s70"}, tcc.symbolic_args = ["end"], tcc.sizes = [[1, "s70"]]} : (tensor<1x512xi64>) -> tensor<1x?xi64>
  %3 = tcc_graph.operator "torch.ops.aten.full.default"() {operand_names = [], args = {size = ["2*s70"], fill_value = 1.5 : f64}, tcc.symbolic_args = ["size"], tcc.sizes = [["2*s70"]]} : () -> tensor<?xf32>
  return %1, %2, %3 : tensor<2x?xi64>, tensor<1x?xi64>, tensor<?xf32>
}

// -----

// A size with min and max (a diagonal's length, max(0, min(m, n - 1))):
// arith.minsi / arith.maxsi of the sizes read at run time.
// CHECK-LABEL: func @min_max_size
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[M:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x?xf32>
// CHECK: %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x?xf32>
// CHECK: %[[N1:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK: %[[MIN:.*]] = arith.minsi %[[M]], %[[N1]] : index
// CHECK: %[[MAX:.*]] = arith.maxsi %[[C0]], %[[MIN]] : index
// CHECK: tcc_graph.broadcast %{{.*}} sizes(%[[MAX]]) : (tensor<f32>) -> tensor<?xf32>
func.func @min_max_size(%x: tensor<?x?xf32> {tcc.sizes = ["s31", "s46"]}) -> tensor<?xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.full.default"() {operand_names = [], args = {size = ["max(0, min(s31, s46 - 1))"], fill_value = 1.5 : f64}, tcc.symbolic_args = ["size"], tcc.sizes = [["max(0, min(s31, s46 - 1))"]]} : () -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// An operator that would read a symbolic argument as absent is refused.
func.func @refused(%x: tensor<2x?xf32> {tcc.sizes = [2, "s70"]}) -> tensor<2xf32> {
  // expected-error @+1 {{operator 'aten.select.int': argument 'index' depends on an input's size, which this operator does not support yet}}
  %0 = tcc_graph.operator "torch.ops.aten.select.int"(%x) {operand_names = ["self"], args = {dim = 1 : i64, index = "s70 - 1"}, tcc.symbolic_args = ["index"], tcc.sizes = [[2]]} : (tensor<2x?xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A symbol no input carries cannot be computed.
func.func @unknown_symbol(%x: tensor<4xf32>) -> tensor<?xi64> {
  // expected-error @+1 {{cannot compute the symbolic size 's9': no input has symbol 's9' as a dimension}}
  %0 = tcc_graph.operator "torch.ops.aten.arange.default"() {operand_names = [], args = {end = "s9"}, tcc.symbolic_args = ["end"], tcc.sizes = [["s9"]]} : () -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

// select along a symbolic dim by a non-negative literal index (a prompt's
// first position): a slice of static length 1, the index checked against
// the size at run time.
// CHECK-LABEL: func @select_symbolic_dim
// CHECK: %[[S:.*]] = tcc_graph.slice %arg0 {dim = 0 : i64, end = 1 : i64, start = 0 : i64, step = 1 : i64} : (tensor<?xi64>) -> tensor<1xi64>
// CHECK: %[[N:.*]] = tcc_graph.dim_size %arg0 {dim = 0 : i64} : (tensor<?xi64>) -> tensor<i64>
// CHECK: %[[OK:.*]] = tcc_graph.compare %[[N]], %{{.*}} {predicate = "gt"}
// CHECK: %[[C:.*]] = tcc_graph.check %[[OK]], %[[S]] "aten.select.int: index 0 out of range for dim 0"
// CHECK: tcc_graph.reshape %[[C]] : (tensor<1xi64>) -> tensor<i64>
func.func @select_symbolic_dim(%pos: tensor<?xi64> {tcc.sizes = ["s11"]}) -> tensor<i64> {
  %0 = tcc_graph.operator "torch.ops.aten.select.int"(%pos) {operand_names = ["self"], args = {dim = 0 : i64, index = 0 : i64}} : (tensor<?xi64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// A size used as a number (a cache's length grown by the call's token
// count): the symbol read from the input that has it as a dimension.
// CHECK-LABEL: func @add_symbolic_scalar
// CHECK: %[[N:.*]] = tcc_graph.dim_size %arg0 {dim = 1 : i64} : (tensor<1x?xi64>) -> tensor<i64>
// CHECK: tcc_graph.add %arg1, %[[N]] : (tensor<i64>, tensor<i64>) -> tensor<i64>
func.func @add_symbolic_scalar(%ids: tensor<1x?xi64> {tcc.sizes = [1, "s11"]}, %len: tensor<i64>) -> tensor<i64> {
  %0 = tcc_graph.operator "torch.ops.aten.add.Tensor"(%len) {operand_names = ["self"], args = {other = "s11"}, tcc.symbolic_args = ["other"]} : (tensor<i64>) -> tensor<i64>
  return %0 : tensor<i64>
}
