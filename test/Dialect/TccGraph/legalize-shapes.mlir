// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// tile pads its counts with leading 1s and repeats; sum_to_size sums the
// leading dims the size lacks and the dims it has as 1, keeping them, then
// takes the size's shape.
// CHECK-LABEL: func @tile_sum_to_size
// CHECK: %[[P:.*]] = tcc_graph.reshape %arg0 : (tensor<2x3xf32>) -> tensor<1x1x1x2x1x3xf32>
// CHECK: %[[B:.*]] = tcc_graph.broadcast %[[P]] : (tensor<1x1x1x2x1x3xf32>) -> tensor<2x1x2x2x1x3xf32>
// CHECK: %[[T:.*]] = tcc_graph.reshape %[[B]] : (tensor<2x1x2x2x1x3xf32>) -> tensor<2x4x3xf32>
// CHECK: %[[S:.*]] = tcc_graph.reduce_sum %arg0 {dims = array<i64: 0>, keepdim = true} : (tensor<2x3xf32>) -> tensor<1x3xf32>
// CHECK: %[[S2:.*]] = tcc_graph.reduce_sum %arg0 {dims = array<i64: 0>, keepdim = true}
// CHECK: %[[R:.*]] = tcc_graph.reshape %[[S2]] : (tensor<1x3xf32>) -> tensor<3xf32>
// CHECK: return %[[T]], %[[S]], %[[R]]
func.func @tile_sum_to_size(%x: tensor<2x3xf32>) -> (tensor<2x4x3xf32>, tensor<1x3xf32>, tensor<3xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.tile.default"(%x) {operand_names = ["self"], args = {dims = array<i64: 2, 2, 1>}} : (tensor<2x3xf32>) -> tensor<2x4x3xf32>
  %1 = tcc_graph.operator "torch.ops.aten.sum_to_size.default"(%x) {operand_names = ["self"], args = {size = array<i64: 1, 3>}} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  %2 = tcc_graph.operator "torch.ops.aten.sum_to_size.default"(%x) {operand_names = ["self"], args = {size = array<i64: 3>}} : (tensor<2x3xf32>) -> tensor<3xf32>
  return %0, %1, %2 : tensor<2x4x3xf32>, tensor<1x3xf32>, tensor<3xf32>
}

// -----

// vstack: atleast_2d then rows; hstack of vectors: along dim 0; dstack:
// atleast_3d ([n] -> [1, n, 1]) then dim 2; column_stack: vectors as columns.
// CHECK-LABEL: func @stacks
// CHECK: %[[A:.*]] = tcc_graph.reshape %arg0 : (tensor<3xf32>) -> tensor<1x3xf32>
// CHECK: %[[B:.*]] = tcc_graph.reshape %arg1 : (tensor<3xf32>) -> tensor<1x3xf32>
// CHECK: %[[V:.*]] = tcc_graph.concat %[[A]], %[[B]] {dim = 0 : i64} : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[H:.*]] = tcc_graph.concat %arg0, %arg1 {dim = 0 : i64} : (tensor<3xf32>, tensor<3xf32>) -> tensor<6xf32>
// CHECK: %[[A3:.*]] = tcc_graph.reshape %arg0 : (tensor<3xf32>) -> tensor<1x3x1xf32>
// CHECK: %[[B3:.*]] = tcc_graph.reshape %arg1 : (tensor<3xf32>) -> tensor<1x3x1xf32>
// CHECK: %[[D:.*]] = tcc_graph.concat %[[A3]], %[[B3]] {dim = 2 : i64}
// CHECK: %[[COL:.*]] = tcc_graph.reshape %arg0 : (tensor<3xf32>) -> tensor<3x1xf32>
// CHECK: %[[C:.*]] = tcc_graph.concat %[[COL]], %arg2 {dim = 1 : i64} : (tensor<3x1xf32>, tensor<3x2xf32>) -> tensor<3x3xf32>
// CHECK: return %[[V]], %[[H]], %[[D]], %[[C]]
func.func @stacks(%a: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3x2xf32>) -> (tensor<2x3xf32>, tensor<6xf32>, tensor<1x3x2xf32>, tensor<3x3xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.vstack.default"(%a, %b) {operand_names = ["tensors.0", "tensors.1"], args = {}} : (tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = tcc_graph.operator "torch.ops.aten.hstack.default"(%a, %b) {operand_names = ["tensors.0", "tensors.1"], args = {}} : (tensor<3xf32>, tensor<3xf32>) -> tensor<6xf32>
  %2 = tcc_graph.operator "torch.ops.aten.dstack.default"(%a, %b) {operand_names = ["tensors.0", "tensors.1"], args = {}} : (tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x2xf32>
  %3 = tcc_graph.operator "torch.ops.aten.column_stack.default"(%a, %m) {operand_names = ["tensors.0", "tensors.1"], args = {}} : (tensor<3xf32>, tensor<3x2xf32>) -> tensor<3x3xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<6xf32>, tensor<1x3x2xf32>, tensor<3x3xf32>
}

// -----

// vsplit in equal sections along dim 0; hsplit at indices along dim 1, an
// index not above the previous one giving an empty part.
// CHECK-LABEL: func @splits
// CHECK: tcc_graph.slice %arg0 {dim = 0 : i64, end = 2 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: tcc_graph.slice %arg0 {dim = 0 : i64, end = 4 : i64, start = 2 : i64, step = 1 : i64}
// CHECK: tcc_graph.slice %arg0 {dim = 1 : i64, end = 1 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: tcc_graph.slice %arg0 {dim = 1 : i64, end = 1 : i64, start = 1 : i64, step = 1 : i64} : (tensor<4x5xf32>) -> tensor<4x0xf32>
// CHECK: tcc_graph.slice %arg0 {dim = 1 : i64, end = 5 : i64, start = 1 : i64, step = 1 : i64}
func.func @splits(%x: tensor<4x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<4x1xf32>, tensor<4x0xf32>, tensor<4x4xf32>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.vsplit.int"(%x) {operand_names = ["self"], args = {sections = 2 : i64}} : (tensor<4x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>)
  %1:3 = tcc_graph.operator "torch.ops.aten.hsplit.array"(%x) {operand_names = ["self"], args = {indices = array<i64: 1, 1>}} : (tensor<4x5xf32>) -> (tensor<4x1xf32>, tensor<4x0xf32>, tensor<4x4xf32>)
  return %0#0, %0#1, %1#0, %1#1, %1#2 : tensor<2x5xf32>, tensor<2x5xf32>, tensor<4x1xf32>, tensor<4x0xf32>, tensor<4x4xf32>
}

// -----

// The _copy variants of views legalize as the views.
// CHECK-LABEL: func @copies
// CHECK: tcc_graph.reshape %arg0 : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
// CHECK: tcc_graph.transpose %arg0 {permutation = array<i64: 1, 0>}
// CHECK-NOT: tcc_graph.operator
func.func @copies(%x: tensor<2x3xf32>) -> (tensor<2x1x3xf32>, tensor<3x2xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.unsqueeze_copy.default"(%x) {operand_names = ["self"], args = {dim = 1 : i64}} : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
  %1 = tcc_graph.operator "torch.ops.aten.transpose_copy.int"(%x) {operand_names = ["self"], args = {dim0 = 0 : i64, dim1 = 1 : i64}} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0, %1 : tensor<2x1x3xf32>, tensor<3x2xf32>
}

// -----

// movedim: the moved dims at their destinations, the others in order.
// CHECK-LABEL: func @movedim
// CHECK: tcc_graph.transpose %arg0 {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
func.func @movedim(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.movedim.int"(%x) {operand_names = ["self"], args = {source = -1 : i64, destination = 0 : i64}} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// meshgrid: each vector reshaped onto its own dim of the grid and broadcast
// (xy indexing swaps the first two dims); channel_shuffle regroups (N, g, k)
// as (N, k, g).
// CHECK-LABEL: func @meshgrid_shuffle
// CHECK: %[[A:.*]] = tcc_graph.reshape %arg0 : (tensor<3xf32>) -> tensor<1x3xf32>
// CHECK: %[[GA:.*]] = tcc_graph.broadcast %[[A]] : (tensor<1x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[B:.*]] = tcc_graph.reshape %arg1 : (tensor<2xf32>) -> tensor<2x1xf32>
// CHECK: %[[GB:.*]] = tcc_graph.broadcast %[[B]] : (tensor<2x1xf32>) -> tensor<2x3xf32>
// CHECK: %[[S:.*]] = tcc_graph.reshape %arg2 : (tensor<1x6x2x2xf32>) -> tensor<1x2x3x2x2xf32>
// CHECK: %[[T:.*]] = tcc_graph.transpose %[[S]] {permutation = array<i64: 0, 2, 1, 3, 4>}
// CHECK: %[[R:.*]] = tcc_graph.reshape %[[T]] : (tensor<1x3x2x2x2xf32>) -> tensor<1x6x2x2xf32>
// CHECK: return %[[GA]], %[[GB]], %[[R]]
func.func @meshgrid_shuffle(%a: tensor<3xf32>, %b: tensor<2xf32>, %x: tensor<1x6x2x2xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x6x2x2xf32>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.meshgrid.indexing"(%a, %b) {operand_names = ["tensors.0", "tensors.1"], args = {indexing = "xy"}} : (tensor<3xf32>, tensor<2xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  %1 = tcc_graph.operator "torch.ops.aten.channel_shuffle.default"(%x) {operand_names = ["self"], args = {groups = 2 : i64}} : (tensor<1x6x2x2xf32>) -> tensor<1x6x2x2xf32>
  return %0#0, %0#1, %1 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x6x2x2xf32>
}

// -----

// tensor_split into sections (the first size % sections parts one longer);
// repeat_interleave as a take at floor(i / repeats).
// CHECK-LABEL: func @split_repeat
// CHECK: %[[A:.*]] = tcc_graph.slice %arg0 {dim = 0 : i64, end = 3 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[B:.*]] = tcc_graph.slice %arg0 {dim = 0 : i64, end = 5 : i64, start = 3 : i64, step = 1 : i64}
// CHECK: %[[I:.*]] = tcc_graph.iota {{.*}} : tensor<10xf64>
// CHECK: %[[D:.*]] = tcc_graph.div %[[I]]
// CHECK: %[[F:.*]] = tcc_graph.floor %[[D]]
// CHECK: %[[IDX:.*]] = tcc_graph.cast %[[F]] : (tensor<10xf64>) -> tensor<10xi64>
// CHECK: %[[R:.*]] = tcc_graph.take %arg0, %[[IDX]] {dim = 0 : i64}
// CHECK: return %[[A]], %[[B]], %[[R]]
func.func @split_repeat(%x: tensor<5x4xf32>) -> (tensor<3x4xf32>, tensor<2x4xf32>, tensor<10x4xf32>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.tensor_split.sections"(%x) {operand_names = ["self"], args = {sections = 2 : i64}} : (tensor<5x4xf32>) -> (tensor<3x4xf32>, tensor<2x4xf32>)
  %1 = tcc_graph.operator "torch.ops.aten.repeat_interleave.self_int"(%x) {operand_names = ["self"], args = {repeats = 2 : i64, dim = 0 : i64}} : (tensor<5x4xf32>) -> tensor<10x4xf32>
  return %0#0, %0#1, %1 : tensor<3x4xf32>, tensor<2x4xf32>, tensor<10x4xf32>
}

// -----

// _chunk_cat: each tensor padded at the end of dim 1 to a multiple of 3
// chunks, viewed as [2, 3, rest], concatenated along rest.
// CHECK-LABEL: func @chunk_cat
// CHECK: %[[Z:.*]] = tcc_graph.constant dense<0.000000e+00> : tensor<2x1xf32>
// CHECK: %[[P:.*]] = tcc_graph.concat %arg0, %[[Z]] {dim = 1 : i64} : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x6xf32>
// CHECK: %[[V:.*]] = tcc_graph.reshape %[[P]] : (tensor<2x6xf32>) -> tensor<2x3x2xf32>
// CHECK: %[[R:.*]] = tcc_graph.concat %[[V]], %arg1 {dim = 2 : i64} : (tensor<2x3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x4xf32>
// CHECK: return %[[R]]
func.func @chunk_cat(%a: tensor<2x5xf32>, %b: tensor<2x3x2xf32>) -> tensor<2x3x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten._chunk_cat.default"(%a, %b) {operand_names = ["tensors.0", "tensors.1"], args = {dim = 1 : i64, num_chunks = 3 : i64}} : (tensor<2x5xf32>, tensor<2x3x2xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Symbolic sizes (issue 39): pixel_shuffle over a symbolic batch, height
// and width splits and merges with the sizes read at run time (H * 2,
// W * 2); unbind drops the unit dim of each slice; repeat multiplies
// the repeated dims' sizes.
// CHECK-LABEL: func @pixel_shuffle_symbolic
// CHECK-DAG: %[[H:.*]] = tensor.dim %arg0, %c2
// CHECK-DAG: %[[W:.*]] = tensor.dim %arg0, %c3
// CHECK-DAG: %[[N:.*]] = tensor.dim %arg0, %c0
// CHECK-DAG: %[[H2:.*]] = arith.muli %[[H]], %c2
// CHECK-DAG: %[[W2:.*]] = arith.muli %[[W]], %c2
// CHECK: %[[S:.*]] = tcc_graph.reshape %arg0 sizes(%[[N]], %[[H]], %[[W]]) : (tensor<?x12x?x?xf32>) -> tensor<?x3x2x2x?x?xf32>
// CHECK: %[[T:.*]] = tcc_graph.transpose %[[S]] {permutation = array<i64: 0, 1, 4, 2, 5, 3>}
// CHECK: tcc_graph.reshape %[[T]] sizes(%[[N]], %[[H2]], %[[W2]]) : (tensor<?x3x?x2x?x2xf32>) -> tensor<?x3x?x?xf32>
func.func @pixel_shuffle_symbolic(%x: tensor<?x12x?x?xf32>) -> tensor<?x3x?x?xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.pixel_shuffle.default"(%x) {operand_names = ["self"], args = {upscale_factor = 2 : i64}} : (tensor<?x12x?x?xf32>) -> tensor<?x3x?x?xf32>
  return %0 : tensor<?x3x?x?xf32>
}

// CHECK-LABEL: func @unbind_symbolic
// CHECK: %[[A:.*]] = tcc_graph.slice %arg0 {dim = 2 : i64, end = 1 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[B:.*]] = tensor.dim %[[A]], %c0
// CHECK: %[[T:.*]] = tensor.dim %[[A]], %c1
// CHECK: tcc_graph.reshape %[[A]] sizes(%[[B]], %[[T]]) : (tensor<?x?x1x8xf32>) -> tensor<?x?x8xf32>
func.func @unbind_symbolic(%x: tensor<?x?x2x8xf32>) -> (tensor<?x?x8xf32>, tensor<?x?x8xf32>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.unbind.int"(%x) {operand_names = ["self"], args = {dim = 2 : i64}} : (tensor<?x?x2x8xf32>) -> (tensor<?x?x8xf32>, tensor<?x?x8xf32>)
  return %0#0, %0#1 : tensor<?x?x8xf32>, tensor<?x?x8xf32>
}

// CHECK-LABEL: func @repeat_symbolic
// CHECK: tcc_graph.broadcast %{{.*}} sizes(%{{.*}}, %{{.*}}) : (tensor<1x?x1x3x1x?xf32>) -> tensor<1x?x4x3x1x?xf32>
// CHECK: tcc_graph.reshape %{{.*}} sizes(%{{.*}}, %{{.*}}) : (tensor<1x?x4x3x1x?xf32>) -> tensor<?x12x?xf32>
func.func @repeat_symbolic(%x: tensor<?x3x?xf32>) -> tensor<?x12x?xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.repeat.default"(%x) {operand_names = ["self"], args = {repeats = array<i64: 1, 4, 1>}} : (tensor<?x3x?xf32>) -> tensor<?x12x?xf32>
  return %0 : tensor<?x12x?xf32>
}

// -----

// chunk along a symbolic dim: the pieces as long as the export's
// expressions say; the first a slice, the next a take from where the first
// ends (its size read at run time); the call checks that they cover the dim.
// CHECK-LABEL: func @chunk_symbolic
// CHECK: %[[H:.*]] = arith.floordivsi
// CHECK: %[[A:.*]] = tcc_graph.slice %arg0 sizes(%[[H]]) {dim = 1 : i64, end = 9223372036854775807 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[START:.*]] = tcc_graph.dim_size %[[A]] {dim = 1 : i64}
// CHECK: %[[REST:.*]] = arith.subi
// CHECK: %[[I:.*]] = tcc_graph.iota sizes(%[[REST]]) {start = 0.000000e+00 : f64, step = 1.000000e+00 : f64} : tensor<?xi64>
// CHECK: %[[AT:.*]] = tcc_graph.add %[[I]], %[[START]]
// CHECK: %[[B:.*]] = tcc_graph.take %arg0, %[[AT]] {dim = 1 : i64} : (tensor<2x?xf32>, tensor<?xi64>) -> tensor<2x?xf32>
// CHECK: %[[BN:.*]] = tcc_graph.dim_size %[[B]] {dim = 1 : i64}
// CHECK: %[[END:.*]] = tcc_graph.add %[[START]], %[[BN]]
// CHECK: %[[N:.*]] = tcc_graph.dim_size %arg0 {dim = 1 : i64}
// CHECK: %[[OK:.*]] = tcc_graph.compare %[[END]], %[[N]] {predicate = "eq"}
// CHECK: %[[A2:.*]] = tcc_graph.check %[[OK]], %[[A]] "aten.chunk.default: the pieces do not cover dim 1"
// CHECK: %[[B2:.*]] = tcc_graph.check %[[OK]], %[[B]]
// CHECK: return %[[A2]], %[[B2]]
func.func @chunk_symbolic(%x: tensor<2x?xf32> {tcc.sizes = [2, "s1"]}) -> (tensor<2x?xf32>, tensor<2x?xf32>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.chunk.default"(%x) {operand_names = ["self"], args = {chunks = 2 : i64, dim = 1 : i64}, tcc.sizes = [[2, "(s1 + 1)//2"], [2, "s1 - (s1 + 1)//2"]]} : (tensor<2x?xf32>) -> (tensor<2x?xf32>, tensor<2x?xf32>)
  return %0#0, %0#1 : tensor<2x?xf32>, tensor<2x?xf32>
}

// -----

// narrow along a symbolic dim from the end: a take from n - 4, checked to
// lie within [0, n) at run time.
// CHECK-LABEL: func @narrow_symbolic
// CHECK: %[[N:.*]] = tcc_graph.dim_size %arg0 {dim = 1 : i64}
// CHECK: %[[FROM:.*]] = tcc_graph.add %[[N]], %{{.*}}
// CHECK: %[[I:.*]] = tcc_graph.iota {start = 0.000000e+00 : f64, step = 1.000000e+00 : f64} : tensor<3xi64>
// CHECK: %[[AT:.*]] = tcc_graph.add %[[I]], %[[FROM]]
// CHECK: %[[T:.*]] = tcc_graph.take %arg0, %[[AT]] {dim = 1 : i64} : (tensor<2x?xf32>, tensor<3xi64>) -> tensor<2x3xf32>
// CHECK: tcc_graph.check %{{.*}}, %[[T]] "aten.narrow.default: start -4 and length 3 out of range for dim 1"
func.func @narrow_symbolic(%x: tensor<2x?xf32> {tcc.sizes = [2, "s1"]}) -> tensor<2x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.narrow.default"(%x) {operand_names = ["self"], args = {dim = 1 : i64, start = -4 : i64, length = 3 : i64}} : (tensor<2x?xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// broadcast_tensors to a symbolic shape (the export's sizes) and hstack of
// tensors with symbolic sizes.
// CHECK-LABEL: func @broadcast_stack_symbolic
// CHECK: %[[S:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x4xf32>
// CHECK: %[[B:.*]] = tcc_graph.broadcast %arg1 sizes(%[[S]]) : (tensor<?x1xf32>) -> tensor<?x4xf32>
// CHECK: %[[C:.*]] = tcc_graph.concat %arg0, %arg1 {dim = 1 : i64} : (tensor<?x4xf32>, tensor<?x1xf32>) -> tensor<?x5xf32>
// CHECK: return %arg0, %[[B]], %[[C]]
func.func @broadcast_stack_symbolic(%x: tensor<?x4xf32> {tcc.sizes = ["s0", 4]}, %y: tensor<?x1xf32> {tcc.sizes = ["s0", 1]}) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x5xf32>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.broadcast_tensors.default"(%x, %y) {operand_names = ["tensors.0", "tensors.1"], args = {}, tcc.sizes = [["s0", 4], ["s0", 4]]} : (tensor<?x4xf32>, tensor<?x1xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>)
  %1 = tcc_graph.operator "torch.ops.aten.hstack.default"(%x, %y) {operand_names = ["tensors.0", "tensors.1"], args = {}} : (tensor<?x4xf32>, tensor<?x1xf32>) -> tensor<?x5xf32>
  return %0#0, %0#1, %1 : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x5xf32>
}

// -----

// repeat_interleave along a symbolic dim: a take at i // 3 for i below
// 3·n, n read at run time.
// CHECK-LABEL: func @repeat_interleave_symbolic
// CHECK: %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<2x?xf32>
// CHECK: %[[LENGTH:.*]] = arith.muli %[[N]], %{{.*}} : index
// CHECK: tcc_graph.iota sizes(%[[LENGTH]]) {{.*}} : tensor<?xf64>
// CHECK: tcc_graph.take %arg0, %{{.*}} {dim = 1 : i64} : (tensor<2x?xf32>, tensor<?xi64>) -> tensor<2x?xf32>
func.func @repeat_interleave_symbolic(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.repeat_interleave.self_int"(%x) {operand_names = ["self"], args = {repeats = 3 : i64, dim = 1 : i64}} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// prims.collapse(a, 1, 3): dims 1 to 3 as one.
// CHECK-LABEL: func @prims_collapse
// CHECK: tcc_graph.reshape %arg0 : (tensor<2x3x4x5xf32>) -> tensor<2x60xf32>
func.func @prims_collapse(%x: tensor<2x3x4x5xf32>) -> tensor<2x60xf32> {
  %0 = tcc_graph.operator "torch.ops.prims.collapse.default"(%x) {operand_names = ["a"], args = {start = 1 : i64, end = 3 : i64}} : (tensor<2x3x4x5xf32>) -> tensor<2x60xf32>
  return %0 : tensor<2x60xf32>
}
