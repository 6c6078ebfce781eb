// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics | FileCheck %s

// By lengths: segment s covers [cumsum - length, cumsum); a [segments,
// rows] membership mask selects the rows, -inf elsewhere, one reduce_max,
// then the initial value.
// CHECK-LABEL: func @segment_max_lengths
// CHECK: %[[END:.*]] = tcc_graph.cumsum %arg1 {dim = 0 : i64} : tensor<4xi64>
// CHECK: %[[START:.*]] = tcc_graph.sub %[[END]], %arg1
// CHECK: %[[GE:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "ge"} : (tensor<1x5xi64>, tensor<4x1xi64>) -> tensor<4x5xi1>
// CHECK: %[[LT:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "lt"} : (tensor<1x5xi64>, tensor<4x1xi64>) -> tensor<4x5xi1>
// CHECK: %[[IN:.*]] = tcc_graph.bitwise_and %[[GE]], %[[LT]]
// CHECK: %[[NEG:.*]] = tcc_graph.constant dense<0xFF800000> : tensor<f32>
// CHECK: %[[SEL:.*]] = tcc_graph.select %{{.*}}, %{{.*}}, %[[NEG]] : (tensor<4x5x1xi1>, tensor<1x5x1xf32>, tensor<f32>) -> tensor<4x5x1xf32>
// CHECK: %[[MAX:.*]] = tcc_graph.reduce_max %[[SEL]] {dims = array<i64: 1>, keepdim = false}
// CHECK: %[[INIT:.*]] = tcc_graph.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[R:.*]] = tcc_graph.maximum %[[MAX]], %[[INIT]]
func.func @segment_max_lengths(%d: tensor<5xf32>, %l: tensor<4xi64>) -> tensor<4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.segment_reduce.default"(%d, %l) {operand_names = ["data", "lengths"], args = {reduce = "max", axis = 0 : i64, unsafe = false, initial = 1 : i64}} : (tensor<5xf32>, tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// By offsets: [offsets[s], offsets[s + 1]); the mean divides by the length
// and is NaN for an empty segment without an initial value.
// CHECK-LABEL: func @segment_mean_offsets
// CHECK: %[[LO:.*]] = tcc_graph.slice %arg1 {dim = 0 : i64, end = 4 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[HI:.*]] = tcc_graph.slice %arg1 {dim = 0 : i64, end = 5 : i64, start = 1 : i64, step = 1 : i64}
// CHECK: %[[LEN:.*]] = tcc_graph.sub %[[HI]], %[[LO]]
// CHECK: %[[SUM:.*]] = tcc_graph.reduce_sum %{{.*}} {dims = array<i64: 1>, keepdim = false} : (tensor<4x5x2xf32>) -> tensor<4x2xf32>
// CHECK: %[[MEAN:.*]] = tcc_graph.div %[[SUM]], %{{.*}} : (tensor<4x2xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
// CHECK: %[[EMPTY:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "eq"} : (tensor<4x1xi64>, tensor<i64>) -> tensor<4x1xi1>
// CHECK: %[[NAN:.*]] = tcc_graph.constant dense<0x7FC00000> : tensor<f32>
// CHECK: %[[R:.*]] = tcc_graph.select %[[EMPTY]], %[[NAN]], %[[MEAN]]
// CHECK: return %[[R]]
func.func @segment_mean_offsets(%d: tensor<5x2xf32>, %o: tensor<5xi64>) -> tensor<4x2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.segment_reduce.default"(%d, %o) {operand_names = ["data", "offsets"], args = {reduce = "mean", axis = 0 : i64, unsafe = false}} : (tensor<5x2xf32>, tensor<5xi64>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// Another axis is refused.
func.func @segment_axis(%d: tensor<2x5xf32>, %l: tensor<2x4xi64>) -> tensor<2x4xf32> {
  // expected-error @+1 {{operator 'aten.segment_reduce.default': only axis 0 is supported}}
  %0 = tcc_graph.operator "torch.ops.aten.segment_reduce.default"(%d, %l) {operand_names = ["data", "lengths"], args = {reduce = "sum", axis = 1 : i64, unsafe = false}} : (tensor<2x5xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
