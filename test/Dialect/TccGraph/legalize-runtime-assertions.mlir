// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// torch._check on an .item() value (issue 39): aten._assert_scalar of a
// condition the graph computes (a rank-0 bool) becomes a check of the call's
// smallest user output, so that the call fails with the export's message
// where PyTorch raises; the state the call writes (the last result, no
// tcc.sizes) is not the one checked, though it is smaller.
// CHECK-LABEL: func.func @checked_item
// CHECK: %[[GE:.*]] = tcc_graph.compare %arg2, %{{.*}} {predicate = "ge"}
// CHECK: %[[LE:.*]] = tcc_graph.compare %arg2, %{{.*}} {predicate = "le"}
// CHECK: %[[SMALL:.*]] = tcc_graph.mul %arg1
// CHECK: %[[FIRST:.*]] = tcc_graph.check %[[GE]], %[[SMALL]] "aten._assert_scalar: Runtime assertion failed for expression u0 >= 1 on node 'ge'"
// CHECK: %[[SECOND:.*]] = tcc_graph.check %[[LE]], %[[FIRST]] "aten._assert_scalar: Runtime assertion failed for expression u0 <= 100 on node 'le'"
// CHECK: return %{{.*}}, %[[SECOND]], %{{.*}} :
func.func @checked_item(%x: tensor<4x3xf32>, %y: tensor<2xf32>, %n: tensor<i64>, %s: tensor<1xf32>) -> (tensor<4x3xf32> {tcc.sizes = [4, 3]}, tensor<2xf32> {tcc.sizes = [2]}, tensor<1xf32>) {
  %k = tcc_graph.operator "torch.ops.aten.item.default"(%n) {operand_names = ["self"], args = {}} : (tensor<i64>) -> tensor<i64>
  %ge = tcc_graph.operator "torch.ops.aten.ge.Tensor"(%k) {operand_names = ["self"], args = {other = 1 : i64}} : (tensor<i64>) -> tensor<i1>
  tcc_graph.operator "torch.ops.aten._assert_scalar.default"(%ge) {operand_names = ["self"], args = {assert_msg = "Runtime assertion failed for expression u0 >= 1 on node 'ge'"}} : (tensor<i1>) -> () loc("m.py":4:0)
  %le = tcc_graph.operator "torch.ops.aten.le.Tensor"(%k) {operand_names = ["self"], args = {other = 100 : i64}} : (tensor<i64>) -> tensor<i1>
  tcc_graph.operator "torch.ops.aten._assert_scalar.default"(%le) {operand_names = ["self"], args = {assert_msg = "Runtime assertion failed for expression u0 <= 100 on node 'le'"}} : (tensor<i1>) -> () loc("m.py":5:0)
  %big = tcc_graph.operator "torch.ops.aten.mul.Tensor"(%x, %k) {operand_names = ["self", "other"], args = {}} : (tensor<4x3xf32>, tensor<i64>) -> tensor<4x3xf32>
  %small = tcc_graph.operator "torch.ops.aten.mul.Tensor"(%y, %k) {operand_names = ["self", "other"], args = {}} : (tensor<2xf32>, tensor<i64>) -> tensor<2xf32>
  return %big, %small, %s : tensor<4x3xf32>, tensor<2xf32>, tensor<1xf32>
}

// -----

// A condition the export keeps as a symbol (it compares with an input's
// size): nothing to compute; the guards and the manifest speak for it.
// CHECK-LABEL: func.func @symbolic_condition
// CHECK-NOT: tcc_graph.check
// CHECK: return %arg0
func.func @symbolic_condition(%x: tensor<?x3xf32> {tcc.sizes = ["s0", 3]}) -> (tensor<?x3xf32> {tcc.sizes = ["s0", 3]}) {
  tcc_graph.operator "torch.ops.aten._assert_scalar.default"() {operand_names = [], args = {self = "u0 <= s0", assert_msg = "Runtime assertion failed for expression u0 <= s0 on node 'le'"}, tcc.symbolic_args = ["self"]} : () -> ()
  return %x : tensor<?x3xf32>
}

// -----

// A check comparing the value with an input's size (u0 <= s0): the frontend
// reads the size again as a rank-0 tensor (sym_size.int), compared in the
// graph like the value.
// CHECK-LABEL: func.func @sized_condition
// CHECK: %[[SIZE:.*]] = tcc_graph.dim_size %arg0 {dim = 0 : i64}
// CHECK: %[[LE:.*]] = tcc_graph.compare %arg1, %[[SIZE]] {predicate = "le"}
// CHECK: tcc_graph.check %[[LE]], %{{.*}} "aten._assert_scalar: Runtime assertion failed for expression u0 <= s0 on node 'le'"
func.func @sized_condition(%x: tensor<?x3xf32> {tcc.sizes = ["s0", 3]}, %k: tensor<i64>) -> (tensor<?x3xf32> {tcc.sizes = ["s0", 3]}) {
  %s = tcc_graph.operator "torch.ops.aten.sym_size.int"(%x) {operand_names = ["self"], args = {dim = 0 : i64}} : (tensor<?x3xf32>) -> tensor<i64>
  %le = tcc_graph.operator "torch.ops.aten.le.Tensor"(%k, %s) {operand_names = ["self", "other"], args = {}} : (tensor<i64>, tensor<i64>) -> tensor<i1>
  tcc_graph.operator "torch.ops.aten._assert_scalar.default"(%le) {operand_names = ["self"], args = {assert_msg = "Runtime assertion failed for expression u0 <= s0 on node 'le'"}} : (tensor<i1>) -> ()
  return %x : tensor<?x3xf32>
}
