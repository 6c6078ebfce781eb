// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics | FileCheck %s

// cumprod: element i (dim 1) multiplies the j <= i (dim 2) of a pairwise
// view, the others replaced by 1.
// CHECK-LABEL: func @cumprod
// CHECK: %[[XJ:.*]] = tcc_graph.reshape %arg0 : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
// CHECK: %[[I:.*]] = tcc_graph.reshape %{{.*}} : (tensor<3xf32>) -> tensor<1x3x1xf32>
// CHECK: %[[J:.*]] = tcc_graph.reshape %{{.*}} : (tensor<3xf32>) -> tensor<1x1x3xf32>
// CHECK: %[[UPTO:.*]] = tcc_graph.compare %[[J]], %[[I]] {predicate = "le"}
// CHECK: %[[M:.*]] = tcc_graph.select %[[UPTO]], %[[XJ]], %{{.*}} : (tensor<1x3x3xi1>, tensor<2x1x3xf32>, tensor<f32>) -> tensor<2x3x3xf32>
// CHECK: %[[P:.*]] = tcc_graph.reduce_prod %[[M]] {dims = array<i64: 2>, keepdim = false}
// CHECK: return %[[P]]
func.func @cumprod(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.cumprod.default"(%x) {operand_names = ["self"], args = {dim = 1 : i64}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// sort: each element's rank counts the j before it (larger for descending,
// a NaN before a number, ties in index order); position p then takes the i
// of rank p, and the values are gathered there.
// CHECK-LABEL: func @sort
// CHECK: %[[XI:.*]] = tcc_graph.reshape %arg0 : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
// CHECK: %[[XJ:.*]] = tcc_graph.reshape %arg0 : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
// CHECK: %[[GT:.*]] = tcc_graph.compare %[[XJ]], %[[XI]] {predicate = "gt"}
// CHECK: %[[STRICT:.*]] = tcc_graph.bitwise_or %[[GT]]
// CHECK: %[[EARLIER:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "lt"} : (tensor<1x1x3xf32>, tensor<1x3x1xf32>) -> tensor<1x3x3xi1>
// CHECK: %[[BEFORE:.*]] = tcc_graph.bitwise_or %[[STRICT]], %{{.*}}
// CHECK: %[[BF:.*]] = tcc_graph.cast %[[BEFORE]]
// CHECK: %[[RANK:.*]] = tcc_graph.reduce_sum %[[BF]] {dims = array<i64: 2>, keepdim = false} : (tensor<2x3x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[RJ:.*]] = tcc_graph.reshape %[[RANK]] : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
// CHECK: %[[CHOSEN:.*]] = tcc_graph.compare %[[RJ]], %{{.*}} {predicate = "eq"}
// CHECK: %[[POS:.*]] = tcc_graph.reduce_sum
// CHECK: %[[IDX:.*]] = tcc_graph.cast %[[POS]] : (tensor<2x3xf32>) -> tensor<2x3xi64>
// CHECK: %[[V:.*]] = tcc_graph.gather %arg0, %[[IDX]] {dim = 1 : i64}
// CHECK: return %[[V]], %[[IDX]]
func.func @sort(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.sort.default"(%x) {operand_names = ["self"], args = {dim = 1 : i64, descending = true}} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xi64>
}

// -----

// The pairwise view costs n * n per line: long dims are refused.
func.func @too_long(%x: tensor<5000xf32>) -> tensor<5000xi64> {
  // expected-error @+1 {{operator 'aten.argsort.default': a dim of 5000 elements is longer than the 4096 supported}}
  %0 = tcc_graph.operator "torch.ops.aten.argsort.default"(%x) {operand_names = ["self"], args = {}} : (tensor<5000xf32>) -> tensor<5000xi64>
  return %0 : tensor<5000xi64>
}

// -----

// bucketize: each value counts the boundaries b with !(b >= v) (the binary
// search's insertion point; a NaN value goes last).
// CHECK-LABEL: func @bucketize
// CHECK: %[[V:.*]] = tcc_graph.reshape %arg0 : (tensor<3xf32>) -> tensor<3x1xf32>
// CHECK: %[[GE:.*]] = tcc_graph.compare %arg1, %[[V]] {predicate = "ge"} : (tensor<4xf32>, tensor<3x1xf32>) -> tensor<3x4xi1>
// CHECK: %[[NOT:.*]] = tcc_graph.compare %[[GE]], %{{.*}} {predicate = "eq"}
// CHECK: %[[F:.*]] = tcc_graph.cast %[[NOT]]
// CHECK: %[[C:.*]] = tcc_graph.reduce_sum %[[F]] {dims = array<i64: 1>, keepdim = false}
// CHECK: %[[R:.*]] = tcc_graph.cast %[[C]] : (tensor<3xf32>) -> tensor<3xi64>
// CHECK: return %[[R]]
func.func @bucketize(%x: tensor<3xf32>, %b: tensor<4xf32>) -> tensor<3xi64> {
  %0 = tcc_graph.operator "torch.ops.aten.bucketize.Tensor"(%x, %b) {operand_names = ["self", "boundaries"], args = {}} : (tensor<3xf32>, tensor<4xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// topk over a symbolic batch and sequence (a router's top 2 of 4 experts):
// the pairwise view's unit dims are inserted with the sizes read at run time.
// CHECK-LABEL: func @topk_symbolic_rows
// CHECK: %[[B:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[T:.*]] = tensor.dim %arg0, %c1
// CHECK: tcc_graph.reshape %arg0 sizes(%[[B]], %[[T]]) : (tensor<?x?x4xf32>) -> tensor<?x?x4x1xf32>
// CHECK: tcc_graph.gather
func.func @topk_symbolic_rows(%x: tensor<?x?x4xf32>) -> (tensor<?x?x2xf32>, tensor<?x?x2xi64>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.topk.default"(%x) {operand_names = ["self"], args = {k = 2 : i64, dim = -1 : i64}} : (tensor<?x?x4xf32>) -> (tensor<?x?x2xf32>, tensor<?x?x2xi64>)
  return %0#0, %0#1 : tensor<?x?x2xf32>, tensor<?x?x2xi64>
}

// -----

// Along a symbolic dim, the pairwise view is n x n of the n read at run
// time (at most 4096, checked): the positions are iotas of n, the result's
// k = 2 a static slice of the permutation, k checked against n.
// CHECK-LABEL: func @topk_symbolic_dim
// CHECK: %[[N:.*]] = tcc_graph.dim_size %arg0 {dim = 1 : i64}
// CHECK: %[[FITS:.*]] = tcc_graph.compare %[[N]], %{{.*}} {predicate = "le"}
// CHECK: %[[X:.*]] = tcc_graph.check %[[FITS]], %arg0 "aten.topk.default: a dim of more than 4096 elements is not supported"
// CHECK: %[[K:.*]] = tcc_graph.dim_size %[[X]] {dim = 1 : i64}
// CHECK: %[[ENOUGH:.*]] = tcc_graph.compare %[[K]], %{{.*}} {predicate = "ge"}
// CHECK: %[[LINE:.*]] = tcc_graph.check %[[ENOUGH]], %[[X]] "aten.topk.default: k 2 out of range for dim 1"
// CHECK: tcc_graph.reshape %[[LINE]] : (tensor<2x?xf32>) -> tensor<2x?x1xf32>
// CHECK: %[[L:.*]] = tensor.dim %[[LINE]], %{{.*}} : tensor<2x?xf32>
// CHECK: tcc_graph.iota sizes(%[[L]]) {start = 0.000000e+00 : f64, step = 1.000000e+00 : f64} : tensor<?xf32>
// CHECK: %[[P:.*]] = tcc_graph.cast %{{.*}} : (tensor<2x?xf32>) -> tensor<2x?xi64>
// CHECK: %[[TOP:.*]] = tcc_graph.slice %[[P]] {dim = 1 : i64, end = 2 : i64, start = 0 : i64, step = 1 : i64} : (tensor<2x?xi64>) -> tensor<2x2xi64>
// CHECK: %[[V:.*]] = tcc_graph.gather %[[LINE]], %[[TOP]] {dim = 1 : i64} : (tensor<2x?xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
// CHECK: return %[[V]], %[[TOP]]
func.func @topk_symbolic_dim(%x: tensor<2x?xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.topk.default"(%x) {operand_names = ["self"], args = {k = 2 : i64, dim = -1 : i64}} : (tensor<2x?xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
  return %0#0, %0#1 : tensor<2x2xf32>, tensor<2x2xi64>
}

// -----

// A symbolic dim whose range allows more than 4096 elements: the n x n
// pairwise view is refused by name at compile time.
module attributes {tcc.symbols = {s1 = [2, 8001]}} {
  func.func @sort_symbolic_too_long(%x: tensor<?xf32> {tcc.sizes = ["s1"]}) -> (tensor<?xf32>, tensor<?xi64>) {
    // expected-error @+1 {{operator 'aten.sort.default': dim -1 is symbolic with up to 8001 elements; at most 4096 are supported (export it with a smaller maximum)}}
    %0:2 = tcc_graph.operator "torch.ops.aten.sort.default"(%x) {operand_names = ["self"], args = {dim = -1 : i64, descending = false}} : (tensor<?xf32>) -> (tensor<?xf32>, tensor<?xi64>)
    return %0#0, %0#1 : tensor<?xf32>, tensor<?xi64>
  }
}
