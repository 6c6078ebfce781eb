// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// Constant padding concatenates filled blocks, last dim first; negative
// amounts crop with a slice.
// CHECK-LABEL: func @pad
// CHECK: %[[A:.*]] = tcc_graph.constant dense<5.000000e-01> : tensor<2x3x1xf32>
// CHECK: %[[B:.*]] = tcc_graph.constant dense<5.000000e-01> : tensor<2x3x2xf32>
// CHECK: %[[C:.*]] = tcc_graph.concat %[[A]], %arg0, %[[B]] {dim = 2 : i64} : (tensor<2x3x1xf32>, tensor<2x3x4xf32>, tensor<2x3x2xf32>) -> tensor<2x3x7xf32>
// CHECK: tcc_graph.slice %[[C]] {dim = 1 : i64, end = 3 : i64, start = 1 : i64, step = 1 : i64}
// CHECK: tcc_graph.concat {{.*}} {dim = 1 : i64} : (tensor<2x2x7xf32>, tensor<2x1x7xf32>) -> tensor<2x3x7xf32>
// CHECK: tcc_graph.concat {{.*}} {dim = 2 : i64} : (tensor<2x3x4xf32>, tensor<2x3x3xf32>) -> tensor<2x3x7xf32>
// CHECK-NOT: tcc_graph.operator
func.func @pad(%x: tensor<2x3x4xf32>) -> (tensor<2x3x7xf32>, tensor<2x3x7xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.constant_pad_nd.default"(%x) {operand_names = ["self"], args = {pad = array<i64: 1, 2, -1, 1>, value = 5.000000e-01 : f64}} : (tensor<2x3x4xf32>) -> tensor<2x3x7xf32>
  %1 = tcc_graph.operator "torch.ops.aten.pad.default"(%x) {operand_names = ["self"], args = {pad = array<i64: 0, 3>, mode = "constant"}} : (tensor<2x3x4xf32>) -> tensor<2x3x7xf32>
  return %0, %1 : tensor<2x3x7xf32>, tensor<2x3x7xf32>
}

// -----

// roll: the last `shift` elements move to the front; without dims, the
// flattened tensor rolls.
// CHECK-LABEL: func @roll
// CHECK: %[[T:.*]] = tcc_graph.slice %arg0 {dim = 1 : i64, end = 6 : i64, start = 5 : i64, step = 1 : i64}
// CHECK: %[[H:.*]] = tcc_graph.slice %arg0 {dim = 1 : i64, end = 5 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: tcc_graph.concat %[[T]], %[[H]] {dim = 1 : i64}
// CHECK: tcc_graph.reshape %arg0 : (tensor<4x6xf32>) -> tensor<24xf32>
// CHECK: tcc_graph.slice {{.*}} {dim = 0 : i64, end = 24 : i64, start = 21 : i64, step = 1 : i64}
// CHECK: tcc_graph.reshape {{.*}} : (tensor<24xf32>) -> tensor<4x6xf32>
func.func @roll(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.roll.default"(%x) {operand_names = ["self"], args = {shifts = array<i64: -5, 4>, dims = array<i64: 1, 0>}} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %1 = tcc_graph.operator "torch.ops.aten.roll.default"(%x) {operand_names = ["self"], args = {shifts = array<i64: 3>, dims = array<i64>}} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0, %1 : tensor<4x6xf32>, tensor<4x6xf32>
}

// -----

// A bool fill value is 1, not the i1 attribute's sign-extended -1.
// CHECK-LABEL: func @fill_true
// CHECK: tcc_graph.constant dense<1.000000e+00> : tensor<f32>
// CHECK: tcc_graph.constant dense<1> : tensor<i64>
func.func @fill_true(%x: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
  %0 = tcc_graph.operator "torch.ops.aten.fill.Scalar"(%x) {operand_names = ["self"], args = {value = true}} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.fill.Scalar"(%i) {operand_names = ["self"], args = {value = true}} : (tensor<4xi64>) -> tensor<4xi64>
  return %0, %1 : tensor<4xf32>, tensor<4xi64>
}

// -----

// fill and copy stretch the value to self's shape and dtype; with a symbolic
// size, a select on `true` takes it from self.
// CHECK-LABEL: func @fill_copy
// CHECK: %[[V:.*]] = tcc_graph.constant dense<2.500000e+00> : tensor<f32>
// CHECK: tcc_graph.broadcast %[[V]] : (tensor<f32>) -> tensor<4x6xf32>
// CHECK: tcc_graph.broadcast %arg1 : (tensor<f32>) -> tensor<4x6xf32>
// CHECK: %[[C:.*]] = tcc_graph.cast %arg2 : (tensor<6xi64>) -> tensor<6xf32>
// CHECK: tcc_graph.broadcast %[[C]] : (tensor<6xf32>) -> tensor<4x6xf32>
// CHECK: %[[T:.*]] = tcc_graph.constant dense<true> : tensor<i1>
// CHECK: tcc_graph.select %[[T]], %arg1, %arg3 : (tensor<i1>, tensor<f32>, tensor<?x6xf32>) -> tensor<?x6xf32>
func.func @fill_copy(%x: tensor<4x6xf32>, %v: tensor<f32>, %n: tensor<6xi64>, %d: tensor<?x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<?x6xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.fill.Scalar"(%x) {operand_names = ["self"], args = {value = 2.500000e+00 : f64}} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %1 = tcc_graph.operator "torch.ops.aten.fill.Tensor"(%x, %v) {operand_names = ["self", "value"], args = {}} : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
  %2 = tcc_graph.operator "torch.ops.aten.copy.default"(%x, %n) {operand_names = ["self", "src"], args = {non_blocking = false}} : (tensor<4x6xf32>, tensor<6xi64>) -> tensor<4x6xf32>
  %3 = tcc_graph.operator "torch.ops.aten.fill.Tensor"(%d, %v) {operand_names = ["self", "value"], args = {}} : (tensor<?x6xf32>, tensor<f32>) -> tensor<?x6xf32>
  return %0, %1, %2, %3 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<?x6xf32>
}

// -----

// slice_scatter with step 1 concatenates; a larger step views the sliced
// region as [count, step], puts src in column 0 and views it back.
// CHECK-LABEL: func @slice_scatter
// CHECK: %[[L:.*]] = tcc_graph.slice %arg0 {dim = 1 : i64, end = 1 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[R:.*]] = tcc_graph.slice %arg0 {dim = 1 : i64, end = 6 : i64, start = 3 : i64, step = 1 : i64}
// CHECK: tcc_graph.concat %[[L]], %arg1, %[[R]] {dim = 1 : i64}
// CHECK: %[[G:.*]] = tcc_graph.reshape %{{.*}} : (tensor<4x6xf32>) -> tensor<4x3x2xf32>
// CHECK: %[[C:.*]] = tcc_graph.slice %[[G]] {dim = 2 : i64, end = 2 : i64, start = 1 : i64, step = 1 : i64} : (tensor<4x3x2xf32>) -> tensor<4x3x1xf32>
// CHECK: %[[U:.*]] = tcc_graph.reshape %arg2 : (tensor<4x3xf32>) -> tensor<4x3x1xf32>
// CHECK: %[[M:.*]] = tcc_graph.concat %[[U]], %[[C]] {dim = 2 : i64}
// CHECK: tcc_graph.reshape %[[M]] : (tensor<4x3x2xf32>) -> tensor<4x6xf32>
// CHECK: %[[P:.*]] = tcc_graph.constant dense<0.000000e+00> : tensor<4x1xf32>
// CHECK: tcc_graph.concat %arg0, %[[P]] {dim = 1 : i64} : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x7xf32>
// CHECK: tcc_graph.slice %{{.*}} {dim = 1 : i64, end = 7 : i64, start = 1 : i64, step = 1 : i64} : (tensor<4x7xf32>) -> tensor<4x6xf32>
// CHECK: tcc_graph.reshape %{{.*}} : (tensor<4x6xf32>) -> tensor<4x2x3xf32>
// CHECK: tcc_graph.slice %{{.*}} {dim = 1 : i64, end = 6 : i64, start = 0 : i64, step = 1 : i64} : (tensor<4x7xf32>) -> tensor<4x6xf32>
func.func @slice_scatter(%x: tensor<4x6xf32>, %a: tensor<4x2xf32>, %b: tensor<4x3xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.slice_scatter.default"(%x, %a) {operand_names = ["self", "src"], args = {dim = 1 : i64, start = 1 : i64, end = 3 : i64, step = 1 : i64}} : (tensor<4x6xf32>, tensor<4x2xf32>) -> tensor<4x6xf32>
  %1 = tcc_graph.operator "torch.ops.aten.slice_scatter.default"(%x, %b) {operand_names = ["self", "src"], args = {dim = -1 : i64, start = 0 : i64, step = 2 : i64}} : (tensor<4x6xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>
  %2 = tcc_graph.operator "torch.ops.aten.slice_scatter.default"(%x, %a) {operand_names = ["self", "src"], args = {dim = 1 : i64, start = 1 : i64, step = 3 : i64}} : (tensor<4x6xf32>, tensor<4x2xf32>) -> tensor<4x6xf32>
  return %0, %1, %2 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>
}

// -----

// fmod is one op; remainder adds the divisor where fmod's sign differs from it.
// unflatten is a reshape to the export's result type.
// CHECK-LABEL: func @fmod_remainder_unflatten
// CHECK: tcc_graph.fmod %arg0, %{{.*}} : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
// CHECK: %[[R:.*]] = tcc_graph.fmod %arg1, %arg2 : (tensor<4x6xi64>, tensor<6xi64>) -> tensor<4x6xi64>
// CHECK: %[[S:.*]] = tcc_graph.add %[[R]], %arg2
// CHECK: tcc_graph.select %{{.*}}, %[[S]], %[[R]]
// CHECK: tcc_graph.reshape %arg0 : (tensor<4x6xf32>) -> tensor<4x2x3xf32>
func.func @fmod_remainder_unflatten(%x: tensor<4x6xf32>, %n: tensor<4x6xi64>, %m: tensor<6xi64>) -> (tensor<4x6xf32>, tensor<4x6xi64>, tensor<4x2x3xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.fmod.Scalar"(%x) {operand_names = ["self"], args = {other = 3.000000e+00 : f64}} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %1 = tcc_graph.operator "torch.ops.aten.remainder.Tensor"(%n, %m) {operand_names = ["self", "other"], args = {}} : (tensor<4x6xi64>, tensor<6xi64>) -> tensor<4x6xi64>
  %2 = tcc_graph.operator "torch.ops.aten.unflatten.int"(%x) {operand_names = ["self"], args = {dim = 1 : i64, sizes = array<i64: 2, -1>}} : (tensor<4x6xf32>) -> tensor<4x2x3xf32>
  return %0, %1, %2 : tensor<4x6xf32>, tensor<4x6xi64>, tensor<4x2x3xf32>
}

// -----

// select_scatter: src gets a unit dim at `dim` and replaces that row; a
// negative index counts from the end (-1 on a size-4 dim is row 3: no tail).
// CHECK-LABEL: func @select_scatter
// CHECK: %[[U:.*]] = tcc_graph.reshape %arg1 : (tensor<6xf32>) -> tensor<1x6xf32>
// CHECK: %[[H:.*]] = tcc_graph.slice %arg0 {{.*}} -> tensor<1x6xf32>
// CHECK: %[[T:.*]] = tcc_graph.slice %arg0 {{.*}} -> tensor<2x6xf32>
// CHECK: tcc_graph.concat %[[H]], %[[U]], %[[T]] {dim = 0 : i64} : (tensor<1x6xf32>, tensor<1x6xf32>, tensor<2x6xf32>) -> tensor<4x6xf32>
// CHECK: %[[U2:.*]] = tcc_graph.reshape %arg1 : (tensor<6xf32>) -> tensor<1x6xf32>
// CHECK: %[[H2:.*]] = tcc_graph.slice %arg0 {{.*}} -> tensor<3x6xf32>
// CHECK: tcc_graph.concat %[[H2]], %[[U2]] {dim = 0 : i64} : (tensor<3x6xf32>, tensor<1x6xf32>) -> tensor<4x6xf32>
func.func @select_scatter(%x: tensor<4x6xf32>, %r: tensor<6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.select_scatter.default"(%x, %r) {operand_names = ["self", "src"], args = {dim = 0 : i64, index = 1 : i64}} : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  %1 = tcc_graph.operator "torch.ops.aten.select_scatter.default"(%x, %r) {operand_names = ["self", "src"], args = {dim = 0 : i64, index = -1 : i64}} : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  return %0, %1 : tensor<4x6xf32>, tensor<4x6xf32>
}

// -----

// mT swaps the last two dims; broadcast_tensors stretches each to the common
// shape; repeat views [3] as [1, 1, 1, 3], stretches to [4, 1, 1, 3] and
// flattens pairs; atleast_3d is a reshape; logsumexp subtracts the row max
// (0 where it is infinite) before exp and adds it back after log.
// CHECK-LABEL: func @shapes
// CHECK: %[[T:.*]] = tcc_graph.transpose %arg0 {permutation = array<i64: 1, 0>}
// CHECK: %[[B:.*]] = tcc_graph.broadcast %arg1 : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: %[[P:.*]] = tcc_graph.reshape %arg1 : (tensor<3xf32>) -> tensor<1x1x1x3xf32>
// CHECK: %[[S:.*]] = tcc_graph.broadcast %[[P]] : (tensor<1x1x1x3xf32>) -> tensor<4x1x1x3xf32>
// CHECK: %[[R:.*]] = tcc_graph.reshape %[[S]] : (tensor<4x1x1x3xf32>) -> tensor<4x3xf32>
// CHECK: %[[A:.*]] = tcc_graph.reshape %arg0 : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
// CHECK: %[[M:.*]] = tcc_graph.reduce_max %arg0 {dims = array<i64: 1>, keepdim = true}
// CHECK: %[[ABS:.*]] = tcc_graph.abs %[[M]]
// CHECK: %[[INF:.*]] = tcc_graph.constant dense<0x7F800000>
// CHECK: %[[ISINF:.*]] = tcc_graph.compare %[[ABS]], %[[INF]] {predicate = "eq"}
// CHECK: %[[M0:.*]] = tcc_graph.select %[[ISINF]], %{{.*}}, %[[M]]
// CHECK: %[[D:.*]] = tcc_graph.sub %arg0, %[[M0]]
// CHECK: %[[E:.*]] = tcc_graph.exp %[[D]]
// CHECK: %[[SUM:.*]] = tcc_graph.reduce_sum %[[E]] {dims = array<i64: 1>, keepdim = true}
// CHECK: %[[L:.*]] = tcc_graph.log %[[SUM]]
// CHECK: %[[LSE:.*]] = tcc_graph.add %[[L]], %[[M0]]
// CHECK: %[[OUT:.*]] = tcc_graph.reshape %[[LSE]] : (tensor<2x1xf32>) -> tensor<2xf32>
// CHECK: return %[[T]], %arg0, %[[B]], %[[R]], %[[A]], %[[OUT]]
func.func @shapes(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x3xf32>, tensor<1x2x3xf32>, tensor<2xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.mT.default"(%x) {operand_names = ["self"], args = {}} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1:2 = tcc_graph.operator "torch.ops.aten.broadcast_tensors.default"(%x, %y) {operand_names = ["tensors.0", "tensors.1"], args = {}} : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  %2 = tcc_graph.operator "torch.ops.aten.repeat.default"(%y) {operand_names = ["self"], args = {repeats = array<i64: 4, 1>}} : (tensor<3xf32>) -> tensor<4x3xf32>
  %3 = tcc_graph.operator "torch.ops.aten.atleast_3d.default"(%x) {operand_names = ["self"], args = {}} : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
  %4 = tcc_graph.operator "torch.ops.aten.logsumexp.default"(%x) {operand_names = ["self"], args = {dim = array<i64: 1>, keepdim = false}} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0, %1#0, %1#1, %2, %3, %4 : tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x3xf32>, tensor<1x2x3xf32>, tensor<2xf32>
}

// -----

// x.T (numpy_T) reverses every dim.
// CHECK-LABEL: func @numpy_t
// CHECK: tcc_graph.transpose %arg0 {permutation = array<i64: 2, 1, 0>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
func.func @numpy_t(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.numpy_T.default"(%x) {operand_names = ["self"], args = {}} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}

// -----

// Reflect, replicate and circular padding take self at positions computed
// from an iota j = i - before: reflect as 3 - |3 - |j||, replicate clamped to
// [0, 3], circular wrapped by one size; circular crops negative amounts first
// and wraps around what is left.
// CHECK-LABEL: func @pad_modes
// CHECK: %[[J:.*]] = tcc_graph.iota {start = -1.000000e+00 : f64, step = 1.000000e+00 : f64} : tensor<7xi64>
// CHECK: %[[A:.*]] = tcc_graph.abs %[[J]]
// CHECK: %[[D:.*]] = tcc_graph.sub %{{.*}}, %[[A]]
// CHECK: %[[AD:.*]] = tcc_graph.abs %[[D]]
// CHECK: %[[R:.*]] = tcc_graph.sub %{{.*}}, %[[AD]]
// CHECK: %[[REFLECT:.*]] = tcc_graph.take %arg0, %[[R]] {dim = 1 : i64} : (tensor<2x4xf32>, tensor<7xi64>) -> tensor<2x7xf32>
// CHECK: %[[LO:.*]] = tcc_graph.maximum
// CHECK: %[[HI:.*]] = tcc_graph.minimum %[[LO]]
// CHECK: %[[REPLICATE:.*]] = tcc_graph.take %arg0, %[[HI]] {dim = 1 : i64}
// CHECK: %[[CUT:.*]] = tcc_graph.slice %arg0 {dim = 1 : i64, end = 4 : i64, start = 2 : i64, step = 1 : i64}
// CHECK: %[[K:.*]] = tcc_graph.iota {start = 0.000000e+00 : f64, step = 1.000000e+00 : f64} : tensor<3xi64>
// CHECK: %[[W1:.*]] = tcc_graph.select %{{.*}}, %{{.*}}, %[[K]] : (tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
// CHECK: %[[W:.*]] = tcc_graph.select %{{.*}}, %{{.*}}, %[[W1]]
// CHECK: %[[CIRCULAR:.*]] = tcc_graph.take %[[CUT]], %[[W]] {dim = 1 : i64} : (tensor<2x2xf32>, tensor<3xi64>) -> tensor<2x3xf32>
// CHECK: return %[[REFLECT]], %[[REPLICATE]], %[[CIRCULAR]]
func.func @pad_modes(%x: tensor<2x4xf32>) -> (tensor<2x7xf32>, tensor<2x7xf32>, tensor<2x3xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.pad.default"(%x) {operand_names = ["self"], args = {pad = array<i64: 1, 2>, mode = "reflect"}} : (tensor<2x4xf32>) -> tensor<2x7xf32>
  %1 = tcc_graph.operator "torch.ops.aten.replication_pad1d.default"(%x) {operand_names = ["self"], args = {padding = array<i64: 1, 2>}} : (tensor<2x4xf32>) -> tensor<2x7xf32>
  %2 = tcc_graph.operator "torch.ops.aten.pad.default"(%x) {operand_names = ["self"], args = {pad = array<i64: -2, 1>, mode = "circular"}} : (tensor<2x4xf32>) -> tensor<2x3xf32>
  return %0, %1, %2 : tensor<2x7xf32>, tensor<2x7xf32>, tensor<2x3xf32>
}

// -----

// narrow is a slice (a negative start counts from the end); view_as a reshape.
// CHECK-LABEL: func @narrow_view_as
// CHECK: %[[N:.*]] = tcc_graph.slice %arg0 {dim = 1 : i64, end = 4 : i64, start = 2 : i64, step = 1 : i64}
// CHECK: %[[V:.*]] = tcc_graph.reshape %arg0 : (tensor<2x4xf32>) -> tensor<8xf32>
// CHECK: return %[[N]], %[[V]]
func.func @narrow_view_as(%x: tensor<2x4xf32>, %y: tensor<8xf32>) -> (tensor<2x2xf32>, tensor<8xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.narrow.default"(%x) {operand_names = ["self"], args = {dim = 1 : i64, start = -2 : i64, length = 2 : i64}} : (tensor<2x4xf32>) -> tensor<2x2xf32>
  %1 = tcc_graph.operator "torch.ops.aten.view_as.default"(%x, %y) {operand_names = ["self", "other"], args = {}} : (tensor<2x4xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0, %1 : tensor<2x2xf32>, tensor<8xf32>
}

// -----

// Padding along symbolic dims: constant blocks stretched to the other
// sizes and concatenated (a negative amount crops with a slice of symbolic
// size n - 1); reflect reads at positions from an iota of n + 3, n read at
// run time, and checks that the amounts are below n, as PyTorch raises.
// CHECK-LABEL: func @pad_symbolic
// CHECK: %[[V:.*]] = tcc_graph.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[D1:.*]] = tensor.dim %arg0, %{{.*}} : tensor<2x?x?xf32>
// CHECK: %[[L:.*]] = tcc_graph.broadcast %[[V]] sizes(%[[D1]]) : (tensor<f32>) -> tensor<2x?x1xf32>
// CHECK: %[[R:.*]] = tcc_graph.broadcast %[[V]] sizes(%{{.*}}) : (tensor<f32>) -> tensor<2x?x2xf32>
// CHECK: %[[C:.*]] = tcc_graph.concat %[[L]], %arg0, %[[R]] {dim = 2 : i64} : (tensor<2x?x1xf32>, tensor<2x?x?xf32>, tensor<2x?x2xf32>) -> tensor<2x?x?xf32>
// CHECK: %[[N1:.*]] = tensor.dim %[[C]], %{{.*}} : tensor<2x?x?xf32>
// CHECK: %[[CROP:.*]] = arith.subi %[[N1]], %{{.*}} : index
// CHECK: %[[PAD:.*]] = tcc_graph.slice %[[C]] sizes(%[[CROP]]) {dim = 1 : i64, end = 9223372036854775807 : i64, start = 1 : i64, step = 1 : i64}
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[D2:.*]] = tensor.dim %arg0, %{{.*}} : tensor<2x?x?xf32>
// CHECK: %[[M:.*]] = arith.addi %[[D2]], %[[C3]] : index
// CHECK: %[[N:.*]] = tcc_graph.dim_size %arg0 {dim = 2 : i64}
// CHECK: %[[J:.*]] = tcc_graph.iota sizes(%[[M]]) {start = -2.000000e+00 : f64, step = 1.000000e+00 : f64} : tensor<?xi64>
// CHECK: %[[LAST:.*]] = tcc_graph.sub %[[N]], %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i64>
// CHECK: %[[A:.*]] = tcc_graph.abs %[[J]]
// CHECK: tcc_graph.sub %[[LAST]], %[[A]]
// CHECK: %[[AT:.*]] = tcc_graph.sub %[[LAST]], %{{.*}} : (tensor<i64>, tensor<?xi64>) -> tensor<?xi64>
// CHECK: %[[T:.*]] = tcc_graph.take %arg0, %[[AT]] {dim = 2 : i64} : (tensor<2x?x?xf32>, tensor<?xi64>) -> tensor<2x?x?xf32>
// CHECK: %[[THREE:.*]] = tcc_graph.constant dense<3> : tensor<i64>
// CHECK: %[[OK:.*]] = tcc_graph.compare %[[N]], %[[THREE]] {predicate = "ge"}
// CHECK: %[[REFL:.*]] = tcc_graph.check %[[OK]], %[[T]] "aten.reflection_pad1d.default: reflect padding of 2 and 1 needs a size of at least 3 in dim 2"
// CHECK: return %[[PAD]], %[[REFL]]
func.func @pad_symbolic(%x: tensor<2x?x?xf32> {tcc.sizes = [2, "s1", "s2"]}) -> (tensor<2x?x?xf32>, tensor<2x?x?xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.constant_pad_nd.default"(%x) {operand_names = ["self"], args = {pad = array<i64: 1, 2, -1, 0>, value = 5.000000e-01 : f64}} : (tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %1 = tcc_graph.operator "torch.ops.aten.reflection_pad1d.default"(%x) {operand_names = ["self"], args = {padding = array<i64: 2, 1>}} : (tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  return %0, %1 : tensor<2x?x?xf32>, tensor<2x?x?xf32>
}

// -----

// Replicate and circular padding of a symbolic dim: clamped and wrapped
// positions against n read at run time.
// CHECK-LABEL: func @pad_symbolic_modes
// CHECK: %[[N:.*]] = tcc_graph.dim_size %arg0 {dim = 1 : i64}
// CHECK: %[[J:.*]] = tcc_graph.iota sizes(%{{.*}}) {start = -1.000000e+00 : f64, step = 1.000000e+00 : f64} : tensor<?xi64>
// CHECK: %[[LAST:.*]] = tcc_graph.sub %[[N]], %{{.*}}
// CHECK: %[[LOW:.*]] = tcc_graph.maximum %[[J]], %{{.*}}
// CHECK: %[[AT:.*]] = tcc_graph.minimum %[[LOW]], %[[LAST]]
// CHECK: tcc_graph.take %arg0, %[[AT]] {dim = 1 : i64}
// CHECK: %[[N2:.*]] = tcc_graph.dim_size %arg0 {dim = 1 : i64}
// CHECK: %[[J2:.*]] = tcc_graph.iota sizes(%{{.*}}) {start = -2.000000e+00 : f64, step = 1.000000e+00 : f64} : tensor<?xi64>
// CHECK: %[[ABOVE:.*]] = tcc_graph.compare %[[J2]], %[[N2]] {predicate = "ge"}
// CHECK: %[[UP:.*]] = tcc_graph.add %[[J2]], %[[N2]]
// CHECK: %[[DOWN:.*]] = tcc_graph.sub %[[J2]], %[[N2]]
// CHECK: tcc_graph.select %[[ABOVE]], %[[DOWN]], %[[J2]]
// CHECK: tcc_graph.check {{.*}} "aten.pad.default: circular padding of 2 and 2 needs a size of at least 2 in dim 1"
func.func @pad_symbolic_modes(%x: tensor<2x?xf32> {tcc.sizes = [2, "s1"]}) -> (tensor<2x?xf32>, tensor<2x?xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.replication_pad1d.default"(%x) {operand_names = ["self"], args = {padding = array<i64: 1, 3>}} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %1 = tcc_graph.operator "torch.ops.aten.pad.default"(%x) {operand_names = ["self"], args = {pad = array<i64: 2, 2>, mode = "circular"}} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return %0, %1 : tensor<2x?xf32>, tensor<2x?xf32>
}

// -----

// roll and fftshift along a symbolic dim: a take at (i + n - s) mod n, the
// shift s brought into [0, n) at run time (n // 2 for fftshift).
// CHECK-LABEL: func @roll_symbolic
// CHECK: %[[N:.*]] = tcc_graph.dim_size %arg0 {dim = 1 : i64}
// CHECK: %[[SHIFT:.*]] = tcc_graph.constant dense<-3> : tensor<i64>
// CHECK: %[[DIV:.*]] = tcc_graph.maximum %[[N]], %{{.*}}
// CHECK: %[[R:.*]] = tcc_graph.fmod %[[SHIFT]], %[[DIV]]
// CHECK: %[[P:.*]] = tcc_graph.add %[[R]], %[[DIV]]
// CHECK: %[[S:.*]] = tcc_graph.fmod %[[P]], %[[DIV]]
// CHECK: %[[OFF:.*]] = tcc_graph.sub %[[DIV]], %[[S]]
// CHECK: %[[I:.*]] = tcc_graph.iota sizes(%{{.*}}) {start = 0.000000e+00 : f64, step = 1.000000e+00 : f64} : tensor<?xi64>
// CHECK: %[[M:.*]] = tcc_graph.add %[[I]], %[[OFF]]
// CHECK: %[[AT:.*]] = tcc_graph.fmod %[[M]], %[[DIV]]
// CHECK: tcc_graph.take %arg0, %[[AT]] {dim = 1 : i64} : (tensor<2x?xf32>, tensor<?xi64>) -> tensor<2x?xf32>
// CHECK: %[[N2:.*]] = tcc_graph.dim_size %arg0 {dim = 1 : i64}
// CHECK: %[[HALF:.*]] = tcc_graph.trunc_div %[[N2]], %{{.*}}
// CHECK: tcc_graph.fmod %[[HALF]], %{{.*}}
// CHECK: tcc_graph.take %arg0
func.func @roll_symbolic(%x: tensor<2x?xf32> {tcc.sizes = [2, "s1"]}) -> (tensor<2x?xf32>, tensor<2x?xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.roll.default"(%x) {operand_names = ["self"], args = {shifts = array<i64: -3>, dims = array<i64: 1>}} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %1 = tcc_graph.operator "torch.ops.aten.fft_fftshift.default"(%x) {operand_names = ["self"], args = {dim = array<i64: 1>}} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return %0, %1 : tensor<2x?xf32>, tensor<2x?xf32>
}

// -----

// slice_scatter and select_scatter along a symbolic dim: self[:start], the
// update and self[min(end, n):] (a take of max(n - end, 0) elements)
// concatenated; the start is checked against n before any slice reads, and
// the result against n.
// CHECK-LABEL: func @scatter_symbolic
// CHECK: %[[N:.*]] = tcc_graph.dim_size %arg0 {dim = 0 : i64}
// CHECK: %[[IN:.*]] = tcc_graph.compare %[[N]], %{{.*}} {predicate = "ge"}
// CHECK: %[[X:.*]] = tcc_graph.check %[[IN]], %arg0 "aten.slice_scatter.default: start 1 past the size of dim 0"
// CHECK: %[[HEAD:.*]] = tcc_graph.slice %[[X]] {dim = 0 : i64, end = 1 : i64, start = 0 : i64, step = 1 : i64} : (tensor<?x4xf32>) -> tensor<1x4xf32>
// CHECK: %[[C:.*]] = tcc_graph.concat %[[HEAD]], %arg1 {dim = 0 : i64} : (tensor<1x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: %[[M:.*]] = tcc_graph.dim_size %[[C]] {dim = 0 : i64}
// CHECK: %[[SAME:.*]] = tcc_graph.compare %[[M]], %[[N]] {predicate = "eq"}
// CHECK: %[[S:.*]] = tcc_graph.check %[[SAME]], %[[C]] "aten.slice_scatter.default: the update does not fit dim 0 at 1"
// CHECK: %[[U:.*]] = tcc_graph.reshape %arg2 : (tensor<4xf32>) -> tensor<1x4xf32>
// CHECK: %[[Y:.*]] = tcc_graph.check %{{.*}}, %arg0 "aten.select_scatter.default: start 2 past the size of dim 0"
// CHECK: %[[H2:.*]] = tcc_graph.slice %[[Y]] {dim = 0 : i64, end = 2 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[FROM:.*]] = tcc_graph.minimum %{{.*}}, %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i64>
// CHECK: %[[LEN:.*]] = arith.maxsi
// CHECK: %[[I:.*]] = tcc_graph.iota sizes(%[[LEN]])
// CHECK: %[[AT:.*]] = tcc_graph.add %[[I]], %[[FROM]]
// CHECK: %[[T:.*]] = tcc_graph.take %[[Y]], %[[AT]] {dim = 0 : i64}
// CHECK: tcc_graph.concat %[[H2]], %[[U]], %[[T]] {dim = 0 : i64} : (tensor<2x4xf32>, tensor<1x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: return %[[S]]
func.func @scatter_symbolic(%x: tensor<?x4xf32> {tcc.sizes = ["s0", 4]}, %s: tensor<?x4xf32> {tcc.sizes = ["s1", 4]}, %r: tensor<4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.slice_scatter.default"(%x, %s) {operand_names = ["self", "src"], args = {dim = 0 : i64, start = 1 : i64, step = 1 : i64}} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.select_scatter.default"(%x, %r) {operand_names = ["self", "src"], args = {dim = 0 : i64, index = 2 : i64}} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %0, %1 : tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// tril/triu: where j - i (iotas of the matrix's rows and columns, their
// symbolic lengths read at run time) is within the diagonal, x, else 0.
// CHECK-LABEL: func @tril_symbolic
// CHECK: %[[I:.*]] = tcc_graph.iota sizes(%{{.*}}) {{.*}} : tensor<?xi64>
// CHECK: %[[IR:.*]] = tcc_graph.reshape %[[I]] : (tensor<?xi64>) -> tensor<?x1xi64>
// CHECK: %[[J:.*]] = tcc_graph.iota {{.*}} : tensor<5xi64>
// CHECK: %[[D:.*]] = tcc_graph.sub %[[J]], %[[IR]] : (tensor<5xi64>, tensor<?x1xi64>) -> tensor<?x5xi64>
// CHECK: %[[K:.*]] = tcc_graph.compare %[[D]], %{{.*}} {predicate = "le"}
// CHECK: tcc_graph.select %[[K]], %arg0, %{{.*}} : (tensor<?x5xi1>, tensor<2x?x5xf32>, tensor<f32>) -> tensor<2x?x5xf32>
func.func @tril_symbolic(%x: tensor<2x?x5xf32>) -> tensor<2x?x5xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.tril.default"(%x) {operand_names = ["self"], args = {diagonal = 1 : i64}} : (tensor<2x?x5xf32>) -> tensor<2x?x5xf32>
  return %0 : tensor<2x?x5xf32>
}

// -----

// tril_indices(4, 3, 1): each row's columns as an iota beside a splat of
// the row number, concatenated (no dense constant: the CUDA path reads none).
// CHECK-LABEL: func @tril_indices
// CHECK: tcc_graph.constant dense<0> : tensor<1x2xi64>
// CHECK: tcc_graph.iota {start = 0.000000e+00 : f64, step = 1.000000e+00 : f64} : tensor<2xi64>
// CHECK: tcc_graph.constant dense<1> : tensor<1x3xi64>
// CHECK: %[[ROWS:.*]] = tcc_graph.concat %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {dim = 1 : i64} : {{.*}} -> tensor<1x11xi64>
// CHECK: %[[COLS:.*]] = tcc_graph.concat %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {dim = 1 : i64} : {{.*}} -> tensor<1x11xi64>
// CHECK: tcc_graph.concat %[[ROWS]], %[[COLS]] {dim = 0 : i64} : (tensor<1x11xi64>, tensor<1x11xi64>) -> tensor<2x11xi64>
func.func @tril_indices() -> tensor<2x11xi64> {
  %0 = tcc_graph.operator "torch.ops.aten.tril_indices.default"() {operand_names = [], args = {row = 4 : i64, col = 3 : i64, offset = 1 : i64}} : () -> tensor<2x11xi64>
  return %0 : tensor<2x11xi64>
}
