// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics | FileCheck %s

// A comparison with a Python number takes the tensor's type; the mask then
// selects (where) and converts (to.dtype).
// CHECK-LABEL: func @compare_where_cast
// CHECK: %[[Z:.*]] = tcc_graph.constant dense<0> : tensor<i64>
// CHECK: %[[M:.*]] = tcc_graph.compare %arg0, %[[Z]] {predicate = "eq"} : (tensor<2x6xi64>, tensor<i64>) -> tensor<2x6xi1>
// CHECK: %[[NEG:.*]] = tcc_graph.constant dense<-1.000000e+04> : tensor<f32>
// CHECK: %[[ZF:.*]] = tcc_graph.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[W:.*]] = tcc_graph.select %[[M]], %[[NEG]], %[[ZF]] : (tensor<2x6xi1>, tensor<f32>, tensor<f32>) -> tensor<2x6xf32>
// CHECK: tcc_graph.cast %arg0 : (tensor<2x6xi64>) -> tensor<2x6xf32>
// CHECK-NOT: tcc_graph.operator
func.func @compare_where_cast(%ids: tensor<2x6xi64>) -> (tensor<2x6xf32>, tensor<2x6xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.eq.Scalar"(%ids) {operand_names = ["self"], args = {other = 0 : i64}} : (tensor<2x6xi64>) -> tensor<2x6xi1>
  %1 = tcc_graph.operator "torch.ops.aten.where.Scalar"(%0) {operand_names = ["condition"], args = {self = -1.0e4 : f64, other = 0.0 : f64}} : (tensor<2x6xi1>) -> tensor<2x6xf32>
  %2 = tcc_graph.operator "torch.ops.aten.to.dtype"(%ids) {operand_names = ["self"], args = {dtype = 7 : i64}} : (tensor<2x6xi64>) -> tensor<2x6xf32>
  return %1, %2 : tensor<2x6xf32>, tensor<2x6xf32>
}

// -----

// Comparing integers with a fractional number compares as floats.
// CHECK-LABEL: func @fractional_compare
// CHECK: %[[C:.*]] = tcc_graph.constant dense<2.500000e+00> : tensor<f32>
// CHECK: %[[X:.*]] = tcc_graph.cast %arg0 : (tensor<4xi64>) -> tensor<4xf32>
// CHECK: tcc_graph.compare %[[X]], %[[C]] {predicate = "lt"}
func.func @fractional_compare(%x: tensor<4xi64>) -> tensor<4xi1> {
  %0 = tcc_graph.operator "torch.ops.aten.lt.Scalar"(%x) {operand_names = ["self"], args = {other = 2.5 : f64}} : (tensor<4xi64>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// logical_not is (x == false); any() is max(x != 0) > 0 in f32 and all() is
// -max(-(x != 0)) > 0 (over no elements: false and true).
// CHECK-LABEL: func @not_any
// CHECK: tcc_graph.compare %arg0, %{{.*}} {predicate = "eq"} : (tensor<2x6xi1>, tensor<i1>) -> tensor<2x6xi1>
// CHECK: %[[F:.*]] = tcc_graph.cast %arg0 : (tensor<2x6xi1>) -> tensor<2x6xf32>
// CHECK: %[[R:.*]] = tcc_graph.reduce_max %[[F]] {dims = array<i64: 1>, keepdim = false}
// CHECK: tcc_graph.compare %[[R]], %{{.*}} {predicate = "gt"} : (tensor<2xf32>, tensor<f32>) -> tensor<2xi1>
// CHECK: %[[G:.*]] = tcc_graph.cast %arg0 : (tensor<2x6xi1>) -> tensor<2x6xf32>
// CHECK: %[[N:.*]] = tcc_graph.neg %[[G]]
// CHECK: %[[M:.*]] = tcc_graph.reduce_max %[[N]] {dims = array<i64: 0, 1>, keepdim = false}
// CHECK: %[[A:.*]] = tcc_graph.neg %[[M]]
// CHECK: tcc_graph.compare %[[A]], %{{.*}} {predicate = "gt"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
func.func @not_any(%m: tensor<2x6xi1>) -> (tensor<2x6xi1>, tensor<2xi1>, tensor<i1>) {
  %0 = tcc_graph.operator "torch.ops.aten.logical_not.default"(%m) {operand_names = ["self"], args = {}} : (tensor<2x6xi1>) -> tensor<2x6xi1>
  %1 = tcc_graph.operator "torch.ops.aten.any.dim"(%m) {operand_names = ["self"], args = {dim = 1 : i64, keepdim = false}} : (tensor<2x6xi1>) -> tensor<2xi1>
  %2 = tcc_graph.operator "torch.ops.aten.all.default"(%m) {operand_names = ["self"], args = {}} : (tensor<2x6xi1>) -> tensor<i1>
  return %0, %1, %2 : tensor<2x6xi1>, tensor<2xi1>, tensor<i1>
}

// -----

// arange, full and cumsum read their shapes from the export's result type.
// CHECK-LABEL: func @creation
// CHECK: tcc_graph.iota {start = 2.000000e+00 : f64, step = 3.000000e+00 : f64} : tensor<4xi64>
// CHECK: tcc_graph.constant dense<0xFF800000> : tensor<3x3xf32>
// CHECK: tcc_graph.cumsum %arg0 {dim = 1 : i64} : tensor<2x6xi64>
func.func @creation(%x: tensor<2x6xi64>) -> (tensor<4xi64>, tensor<3x3xf32>, tensor<2x6xi64>) {
  %0 = tcc_graph.operator "torch.ops.aten.arange.start_step"() {operand_names = [], args = {start = 2 : i64, end = 14 : i64, step = 3 : i64}} : () -> tensor<4xi64>
  %1 = tcc_graph.operator "torch.ops.aten.full.default"() {operand_names = [], args = {size = array<i64: 3, 3>, fill_value = 0xFFF0000000000000 : f64}} : () -> tensor<3x3xf32>
  %2 = tcc_graph.operator "torch.ops.aten.cumsum.default"(%x) {operand_names = ["self"], args = {dim = -1 : i64}} : (tensor<2x6xi64>) -> tensor<2x6xi64>
  return %0, %1, %2 : tensor<4xi64>, tensor<3x3xf32>, tensor<2x6xi64>
}

// -----

// Attention stays one op, with the default scale 1/sqrt(8) (decompose-graph.mlir
// spells it out).
// CHECK-LABEL: func @sdpa_causal
// CHECK: tcc_graph.attention %arg0, %arg1, %arg2 {causal, scale = 0.35355339059327373 : f64} : (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
func.func @sdpa_causal(%q: tensor<2x4x6x8xf32>, %k: tensor<2x4x6x8xf32>, %v: tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.scaled_dot_product_attention.default"(%q, %k, %v) {operand_names = ["query", "key", "value"], args = {is_causal = true}} : (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  return %0 : tensor<2x4x6x8xf32>
}

// -----

// Grouped-query heads: 4 query heads over 2 key/value heads.
// CHECK-LABEL: func @sdpa_gqa
// CHECK: tcc_graph.attention %arg0, %arg1, %arg2 {scale = 0.35355339059327373 : f64} : (tensor<1x4x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x4x6x8xf32>
func.func @sdpa_gqa(%q: tensor<1x4x6x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>) -> tensor<1x4x6x8xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.scaled_dot_product_attention.default"(%q, %k, %v) {operand_names = ["query", "key", "value"], args = {enable_gqa = true}} : (tensor<1x4x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x4x6x8xf32>
  return %0 : tensor<1x4x6x8xf32>
}

// -----

// Clear errors for what is not supported.
func.func @errors(%q: tensor<2x4x6x8xf32>, %x: tensor<4xi64>) -> (tensor<2x4x6x8xf32>, tensor<4xi64>) {
  // expected-error @+1 {{attention dropout is not supported (export in eval mode)}}
  %0 = tcc_graph.operator "torch.ops.aten.scaled_dot_product_attention.default"(%q, %q, %q) {operand_names = ["query", "key", "value"], args = {dropout_p = 0.1 : f64}} : (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  // expected-error @+1 {{bitwise_not of integer tensors is not supported yet}}
  %1 = tcc_graph.operator "torch.ops.aten.bitwise_not.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xi64>) -> tensor<4xi64>
  return %0, %1 : tensor<2x4x6x8xf32>, tensor<4xi64>
}

// -----

// isclose: equal, or both NaN (equal_nan), or a finite |x - y| within
// atol + |rtol * y|.
// CHECK-LABEL: func @isclose
// CHECK: %[[EQ:.*]] = tcc_graph.compare %arg0, %arg1 {predicate = "eq"}
// CHECK: %[[BOTHNAN:.*]] = tcc_graph.bitwise_and
// CHECK: %[[C:.*]] = tcc_graph.bitwise_or %[[EQ]], %[[BOTHNAN]]
// CHECK: %[[D:.*]] = tcc_graph.sub %arg0, %arg1
// CHECK: %[[AD:.*]] = tcc_graph.abs %[[D]]
// CHECK: %[[FIN:.*]] = tcc_graph.compare %[[AD]], %{{.*}} {predicate = "lt"}
// CHECK: %[[IN:.*]] = tcc_graph.compare %[[AD]], %{{.*}} {predicate = "le"}
// CHECK: %[[NEAR:.*]] = tcc_graph.bitwise_and %[[FIN]], %[[IN]]
// CHECK: %[[R:.*]] = tcc_graph.bitwise_or %[[C]], %[[NEAR]]
// CHECK: return %[[R]]
func.func @isclose(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xi1> {
  %0 = tcc_graph.operator "torch.ops.aten.isclose.default"(%x, %y) {operand_names = ["self", "other"], args = {rtol = 1.0e-3 : f64, atol = 0.0 : f64, equal_nan = true}} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}
