// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// expand keeps the export's result type (its -1 sizes already resolved).
// CHECK-LABEL: func @expand
// CHECK: tcc_graph.broadcast %arg0 : (tensor<1x1x16xf32>) -> tensor<2x1x16xf32>
// CHECK: tcc_graph.broadcast %arg0 : (tensor<1x1x16xf32>) -> tensor<3x2x5x16xf32>
// CHECK-NOT: tcc_graph.operator
func.func @expand(%x: tensor<1x1x16xf32>, %o: tensor<3x2x5x16xf32>) -> (tensor<2x1x16xf32>, tensor<3x2x5x16xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.expand.default"(%x) {operand_names = ["self"], args = {size = array<i64: 2, -1, -1>}} : (tensor<1x1x16xf32>) -> tensor<2x1x16xf32>
  %1 = tcc_graph.operator "torch.ops.aten.expand_as.default"(%x, %o) {operand_names = ["self", "other"], args = {}} : (tensor<1x1x16xf32>, tensor<3x2x5x16xf32>) -> tensor<3x2x5x16xf32>
  return %0, %1 : tensor<2x1x16xf32>, tensor<3x2x5x16xf32>
}

// -----

// embedding, index_select and index.Tensor are all take along one dim; the
// position of index.Tensor's one index comes from its operand name.
// CHECK-LABEL: func @takes
// CHECK: tcc_graph.take %arg0, %arg1 {dim = 0 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
// CHECK: tcc_graph.take %arg2, %arg3 {dim = 1 : i64} : (tensor<2x6x5xf32>, tensor<4xi64>) -> tensor<2x4x5xf32>
// CHECK: tcc_graph.take %arg2, %arg1 {dim = 2 : i64} : (tensor<2x6x5xf32>, tensor<2x3xi64>) -> tensor<2x6x2x3xf32>
// CHECK: tcc_graph.take %arg0, %arg1 {dim = 0 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
func.func @takes(%w: tensor<10x4xf32>, %ids: tensor<2x3xi64>, %x: tensor<2x6x5xf32>, %pick: tensor<4xi64>) -> (tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<2x6x2x3xf32>, tensor<2x3x4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.embedding.default"(%w, %ids) {operand_names = ["weight", "indices"], args = {}} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.index_select.default"(%x, %pick) {operand_names = ["self", "index"], args = {dim = -2 : i64}} : (tensor<2x6x5xf32>, tensor<4xi64>) -> tensor<2x4x5xf32>
  %2 = tcc_graph.operator "torch.ops.aten.index.Tensor"(%x, %ids) {operand_names = ["self", "indices.2"], args = {}} : (tensor<2x6x5xf32>, tensor<2x3xi64>) -> tensor<2x6x2x3xf32>
  %3 = tcc_graph.operator "torch.ops.aten.index.Tensor"(%w, %ids) {operand_names = ["self", "indices.0"], args = {}} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %0, %1, %2, %3 : tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<2x6x2x3xf32>, tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func @gather_as_strided
// CHECK: tcc_graph.gather %arg0, %arg1 {dim = 1 : i64} : (tensor<3x5xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
// CHECK: tcc_graph.as_strided %arg0 {storage_offset = 1 : i64, strides = array<i64: 5, 2>} : (tensor<3x5xf32>) -> tensor<2x3xf32>
func.func @gather_as_strided(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.gather.default"(%x, %i) {operand_names = ["self", "index"], args = {dim = -1 : i64, sparse_grad = false}} : (tensor<3x5xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  %1 = tcc_graph.operator "torch.ops.aten.as_strided.default"(%x) {operand_names = ["self"], args = {size = array<i64: 2, 3>, stride = array<i64: 5, 2>, storage_offset = 1 : i64}} : (tensor<3x5xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<3x2xf32>, tensor<2x3xf32>
}

// -----

// A channels_last input (the importer's tcc.storage_order, memory order
// N, H, W, C): the as_strided reads the transpose into that order.
// CHECK-LABEL: func @as_strided_storage_order
// CHECK: %[[T:.*]] = tcc_graph.transpose %arg0 {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x3x2x2xf32>) -> tensor<1x2x2x3xf32>
// CHECK: tcc_graph.as_strided %[[T]] {storage_offset = 0 : i64, strides = array<i64: 1, 3>} : (tensor<1x2x2x3xf32>) -> tensor<3x4xf32>
func.func @as_strided_storage_order(%x: tensor<1x3x2x2xf32>) -> tensor<3x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.as_strided.default"(%x) {operand_names = ["self"], args = {size = array<i64: 3, 4>, stride = array<i64: 1, 3>, storage_offset = 0 : i64}, tcc.storage_order = array<i64: 0, 2, 3, 1>} : (tensor<1x3x2x2xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Several index tensors: each wraps negative entries, the indexed dims
// collapse into one (moved to the front first when not adjacent) and a take
// reads the linear index sum_j i_j * stride_j.
// CHECK-LABEL: func @multi_index
// CHECK: %[[I1:.*]] = tcc_graph.cast %arg2 : (tensor<4x1xi32>) -> tensor<4x1xi64>
// CHECK: tcc_graph.compare %[[I1]], %{{.*}} {predicate = "lt"}
// CHECK: %[[W1:.*]] = tcc_graph.select
// CHECK: %[[W0:.*]] = tcc_graph.select {{.*}} : (tensor<1x3xi1>, tensor<1x3xi64>, tensor<1x3xi64>) -> tensor<1x3xi64>
// CHECK: %[[S:.*]] = tcc_graph.mul %[[W0]], %{{.*}} : (tensor<1x3xi64>, tensor<i64>) -> tensor<1x3xi64>
// CHECK: %[[L:.*]] = tcc_graph.add %[[S]], %[[W1]] : (tensor<1x3xi64>, tensor<4x1xi64>) -> tensor<4x3xi64>
// CHECK: %[[X:.*]] = tcc_graph.reshape %arg0 : (tensor<3x4x5xf32>) -> tensor<12x5xf32>
// CHECK: tcc_graph.take %[[X]], %[[L]] {dim = 0 : i64} : (tensor<12x5xf32>, tensor<4x3xi64>) -> tensor<4x3x5xf32>
// CHECK: %[[P:.*]] = tcc_graph.transpose %arg0 {permutation = array<i64: 0, 2, 1>} : (tensor<3x4x5xf32>) -> tensor<3x5x4xf32>
// CHECK: %[[Y:.*]] = tcc_graph.reshape %[[P]] : (tensor<3x5x4xf32>) -> tensor<15x4xf32>
// CHECK: tcc_graph.take %[[Y]], %{{.*}} {dim = 0 : i64} : (tensor<15x4xf32>, tensor<4x3xi64>) -> tensor<4x3x4xf32>
func.func @multi_index(%x: tensor<3x4x5xf32>, %i: tensor<1x3xi64>, %j: tensor<4x1xi32>) -> (tensor<4x3x5xf32>, tensor<4x3x4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.index.Tensor"(%x, %i, %j) {operand_names = ["self", "indices.0", "indices.1"], args = {}} : (tensor<3x4x5xf32>, tensor<1x3xi64>, tensor<4x1xi32>) -> tensor<4x3x5xf32>
  %1 = tcc_graph.operator "torch.ops.aten.index.Tensor"(%x, %i, %j) {operand_names = ["self", "indices.0", "indices.2"], args = {}} : (tensor<3x4x5xf32>, tensor<1x3xi64>, tensor<4x1xi32>) -> tensor<4x3x4xf32>
  return %0, %1 : tensor<4x3x5xf32>, tensor<4x3x4xf32>
}

// -----

// rot90 with k = 1 flips dims[1] then swaps the dims; k = -2 flips both.
// fliplr flips dim 1.
// CHECK-LABEL: func @rot_unfold
// CHECK: %[[I:.*]] = tcc_graph.iota {start = 2.000000e+00 : f64, step = -1.000000e+00 : f64} : tensor<3xi64>
// CHECK: %[[F:.*]] = tcc_graph.take %arg0, %[[I]] {dim = 1 : i64}
// CHECK: %[[R1:.*]] = tcc_graph.transpose %[[F]] {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK: %[[F0:.*]] = tcc_graph.take %arg0, %{{.*}} {dim = 0 : i64}
// CHECK: %[[R2:.*]] = tcc_graph.take %[[F0]], %{{.*}} {dim = 1 : i64}
// unfold(1, size 3, step 2): a take by the [3, 3] index 2 i + j.
// CHECK: %[[STARTS:.*]] = tcc_graph.iota {start = 0.000000e+00 : f64, step = 2.000000e+00 : f64} : tensor<3xi64>
// CHECK: %[[OFFS:.*]] = tcc_graph.iota {start = 0.000000e+00 : f64, step = 1.000000e+00 : f64} : tensor<3xi64>
// CHECK: %[[COL:.*]] = tcc_graph.reshape %[[STARTS]] : (tensor<3xi64>) -> tensor<3x1xi64>
// CHECK: %[[ROW:.*]] = tcc_graph.reshape %[[OFFS]] : (tensor<3xi64>) -> tensor<1x3xi64>
// CHECK: %[[IDX:.*]] = tcc_graph.add %[[COL]], %[[ROW]] : (tensor<3x1xi64>, tensor<1x3xi64>) -> tensor<3x3xi64>
// CHECK: %[[U:.*]] = tcc_graph.take %arg1, %[[IDX]] {dim = 1 : i64} : (tensor<2x7xf32>, tensor<3x3xi64>) -> tensor<2x3x3xf32>
// CHECK: %[[LR:.*]] = tcc_graph.take %arg0, %{{.*}} {dim = 1 : i64}
// CHECK: return %[[R1]], %[[R2]], %[[U]], %[[LR]]
func.func @rot_unfold(%x: tensor<2x3xf32>, %y: tensor<2x7xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3x3xf32>, tensor<2x3xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.rot90.default"(%x) {operand_names = ["self"], args = {k = 1 : i64, dims = array<i64: 0, 1>}} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = tcc_graph.operator "torch.ops.aten.rot90.default"(%x) {operand_names = ["self"], args = {k = -2 : i64, dims = array<i64: 0, 1>}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = tcc_graph.operator "torch.ops.aten.unfold.default"(%y) {operand_names = ["self"], args = {dimension = 1 : i64, size = 3 : i64, step = 2 : i64}} : (tensor<2x7xf32>) -> tensor<2x3x3xf32>
  %3 = tcc_graph.operator "torch.ops.aten.fliplr.default"(%x) {operand_names = ["self"], args = {}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3x3xf32>, tensor<2x3xf32>
}

// -----

// unfold along an inner dim moves the window's dim last.
// CHECK-LABEL: func @unfold_inner
// CHECK: %[[T:.*]] = tcc_graph.take %arg0, %{{.*}} {dim = 0 : i64} : (tensor<5x2xf32>, tensor<2x3xi64>) -> tensor<2x3x2xf32>
// CHECK: tcc_graph.transpose %[[T]] {permutation = array<i64: 0, 2, 1>} : (tensor<2x3x2xf32>) -> tensor<2x2x3xf32>
func.func @unfold_inner(%y: tensor<5x2xf32>) -> tensor<2x2x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.unfold_copy.default"(%y) {operand_names = ["self"], args = {dimension = 0 : i64, size = 3 : i64, step = 2 : i64}} : (tensor<5x2xf32>) -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}

// -----

// unfold along a symbolic dim: max(floor((n - size) / step) + 1, 0) windows
// read at run time, the call checking that n holds one window.
// CHECK-LABEL: func @unfold_symbolic
// CHECK: %[[N:.*]] = tcc_graph.dim_size %arg0 {dim = 1 : i64}
// CHECK: %[[OK:.*]] = tcc_graph.compare %[[N]], %{{.*}} {predicate = "ge"}
// CHECK: %[[X:.*]] = tcc_graph.check %[[OK]], %arg0 "aten.unfold.default: windows of 3 along dim 1 are longer than it"
// CHECK: %[[STEPS:.*]] = arith.floordivsi
// CHECK: %[[COUNT:.*]] = arith.maxsi
// CHECK: %[[STARTS:.*]] = tcc_graph.iota sizes(%[[COUNT]]) {start = 0.000000e+00 : f64, step = 2.000000e+00 : f64} : tensor<?xi64>
// CHECK: tcc_graph.take %[[X]], %{{.*}} {dim = 1 : i64} : (tensor<2x?xf32>, tensor<?x3xi64>) -> tensor<2x?x3xf32>
func.func @unfold_symbolic(%x: tensor<2x?xf32>) -> tensor<2x?x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.unfold.default"(%x) {operand_names = ["self"], args = {dimension = 1 : i64, size = 3 : i64, step = 2 : i64}} : (tensor<2x?xf32>) -> tensor<2x?x3xf32>
  return %0 : tensor<2x?x3xf32>
}

// -----

// diagonal: a strided read of the row-major storage (dims 0 and 2 of a
// 2x3x4 tensor at offset -1: start 12, stride 12 + 1 along the diagonal);
// diag of a vector: v padded to the side, placed where j - i == k.
// CHECK-LABEL: func @diagonals
// CHECK: %[[D:.*]] = tcc_graph.as_strided %arg0 {storage_offset = 12 : i64, strides = array<i64: 4, 13>} : (tensor<2x3x4xf32>) -> tensor<3x1xf32>
// CHECK: %[[PAD:.*]] = tcc_graph.concat %arg1, %{{.*}} {dim = 0 : i64} : (tensor<2xf32>, tensor<1xf32>) -> tensor<3xf32>
// CHECK: %[[IOTA:.*]] = tcc_graph.iota
// CHECK: %[[I:.*]] = tcc_graph.reshape %[[IOTA]] : (tensor<3xi64>) -> tensor<3x1xi64>
// CHECK: %[[J:.*]] = tcc_graph.reshape %[[IOTA]] : (tensor<3xi64>) -> tensor<1x3xi64>
// CHECK: %[[OFF:.*]] = tcc_graph.sub %[[J]], %[[I]]
// CHECK: %[[ON:.*]] = tcc_graph.compare %[[OFF]], %{{.*}} {predicate = "eq"}
// CHECK: %[[COLS:.*]] = tcc_graph.reshape %[[PAD]] : (tensor<3xf32>) -> tensor<1x3xf32>
// CHECK: %[[M:.*]] = tcc_graph.select %[[ON]], %[[COLS]], %{{.*}} : (tensor<3x3xi1>, tensor<1x3xf32>, tensor<f32>) -> tensor<3x3xf32>
// CHECK: return %[[D]], %[[M]]
func.func @diagonals(%x: tensor<2x3x4xf32>, %v: tensor<2xf32>) -> (tensor<3x1xf32>, tensor<3x3xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.diagonal.default"(%x) {operand_names = ["self"], args = {offset = -1 : i64, dim1 = 0 : i64, dim2 = 2 : i64}} : (tensor<2x3x4xf32>) -> tensor<3x1xf32>
  %1 = tcc_graph.operator "torch.ops.aten.diag.default"(%v) {operand_names = ["self"], args = {diagonal = -1 : i64}} : (tensor<2xf32>) -> tensor<3x3xf32>
  return %0, %1 : tensor<3x1xf32>, tensor<3x3xf32>
}

// -----

// diag_embed: the rows' vectors on diagonal -1 of 4x4 matrices (values as
// [2, 1, 4] rows, since k < 0 reads column j), then rows moved to dim1 = 0.
// take reads flattened self; take_along_dim broadcasts the indices over the
// other dims and gathers.
// CHECK-LABEL: func @embed_take
// CHECK: %[[PAD:.*]] = tcc_graph.concat %arg0, %{{.*}} {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
// CHECK: %[[ON:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "eq"} : (tensor<4x4xi64>, tensor<i64>) -> tensor<4x4xi1>
// CHECK: %[[V:.*]] = tcc_graph.reshape %[[PAD]] : (tensor<2x4xf32>) -> tensor<2x1x4xf32>
// CHECK: %[[M:.*]] = tcc_graph.select %[[ON]], %[[V]], %{{.*}} -> tensor<2x4x4xf32>
// CHECK: %[[E:.*]] = tcc_graph.transpose %[[M]] {permutation = array<i64: 1, 0, 2>} : (tensor<2x4x4xf32>) -> tensor<4x2x4xf32>
// CHECK: %[[F:.*]] = tcc_graph.reshape %arg0 : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK: %[[T:.*]] = tcc_graph.take %[[F]], %arg1 {dim = 0 : i64}
// CHECK: %[[I:.*]] = tcc_graph.broadcast %arg2 : (tensor<1x1xi64>) -> tensor<2x1xi64>
// CHECK: %[[G:.*]] = tcc_graph.gather %arg0, %[[I]] {dim = 1 : i64}
// CHECK: return %[[E]], %[[T]], %[[G]]
func.func @embed_take(%x: tensor<2x3xf32>, %i: tensor<4xi64>, %j: tensor<1x1xi64>) -> (tensor<4x2x4xf32>, tensor<4xf32>, tensor<2x1xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.diag_embed.default"(%x) {operand_names = ["self"], args = {offset = -1 : i64, dim1 = 0 : i64, dim2 = 2 : i64}} : (tensor<2x3xf32>) -> tensor<4x2x4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.take.default"(%x, %i) {operand_names = ["self", "index"], args = {}} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<4xf32>
  %2 = tcc_graph.operator "torch.ops.aten.take_along_dim.default"(%x, %j) {operand_names = ["self", "indices"], args = {dim = 1 : i64}} : (tensor<2x3xf32>, tensor<1x1xi64>) -> tensor<2x1xf32>
  return %0, %1, %2 : tensor<4x2x4xf32>, tensor<4xf32>, tensor<2x1xf32>
}

// -----

// Over symbolic sizes: take reads self flattened by its element count;
// take_along_dim stretches a static 1 to the other side's symbolic size, and
// where two symbolic sizes are not the export's one expression, the call
// checks they agree and the indices are read fitted to self's.
// CHECK-LABEL: func @take_symbolic
// CHECK: %[[F:.*]] = tcc_graph.reshape %arg0 : (tensor<?x?xf32>) -> tensor<?xf32>
// CHECK: %[[T:.*]] = tcc_graph.take %[[F]], %arg1 {dim = 0 : i64}
// CHECK: %[[EQ:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "eq"}
// CHECK: %[[FIT:.*]] = tcc_graph.slice %{{.*}} sizes(%{{.*}}) {dim = 0 : i64
// CHECK: %[[G:.*]] = tcc_graph.gather %arg0, %[[FIT]] {dim = 1 : i64} : (tensor<?x?xf32>, tensor<?x1xi64>) -> tensor<?x1xf32>
// CHECK: %[[C:.*]] = tcc_graph.check %[[EQ]], %[[G]] "aten.take_along_dim.default: self and indices do not broadcast"
// CHECK: %[[I:.*]] = tcc_graph.broadcast %arg2 sizes(%{{.*}}, %{{.*}}) : (tensor<?x1xi64>) -> tensor<?x?xi64>
// CHECK: %[[G2:.*]] = tcc_graph.gather %arg0, %[[I]] {dim = 0 : i64}
// CHECK: return %[[T]], %[[C]], %[[G2]]
func.func @take_symbolic(%x: tensor<?x?xf32>, %i: tensor<?xi64>, %j: tensor<?x1xi64>) -> (tensor<?xf32>, tensor<?x1xf32>, tensor<?x?xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.take.default"(%x, %i) {operand_names = ["self", "index"], args = {}} : (tensor<?x?xf32>, tensor<?xi64>) -> tensor<?xf32>
  %1 = tcc_graph.operator "torch.ops.aten.take_along_dim.default"(%x, %j) {operand_names = ["self", "indices"], args = {dim = 1 : i64}} : (tensor<?x?xf32>, tensor<?x1xi64>) -> tensor<?x1xf32>
  %2 = tcc_graph.operator "torch.ops.aten.take_along_dim.default"(%x, %j) {operand_names = ["self", "indices"], args = {dim = 0 : i64}} : (tensor<?x?xf32>, tensor<?x1xi64>) -> tensor<?x?xf32>
  return %0, %1, %2 : tensor<?xf32>, tensor<?x1xf32>, tensor<?x?xf32>
}

// -----

// interpolate over (N, C, spatial...) of any rank: nearest reads floor(i *
// scale) (1 / 1.7 here), nearest-exact floor((i + 0.5) * scale); the 2-D
// kernel reads i / 2 where the output is twice the input, whatever the
// factor (2.1 here), as PyTorch's nearest_idx; linear lerps two takes.
// CHECK-LABEL: func @interpolate
// CHECK: %[[P0:.*]] = tcc_graph.iota {start = 0.000000e+00 : f64, step = 1.000000e+00 : f64} : tensor<6xf32>
// CHECK: %[[S0:.*]] = tcc_graph.constant dense<0.588235319> : tensor<f32>
// CHECK: tcc_graph.mul %[[P0]], %[[S0]]
// CHECK: %[[NEAREST:.*]] = tcc_graph.take %arg0, %{{.*}} {dim = 2 : i64} : (tensor<2x3x4xf32>, tensor<6xi64>) -> tensor<2x3x6xf32>
// CHECK: %[[P1:.*]] = tcc_graph.iota {start = 5.000000e-01 : f64, step = 1.000000e+00 : f64} : tensor<6xf32>
// CHECK: %[[EXACT:.*]] = tcc_graph.take %arg0
// CHECK: %[[HALF:.*]] = tcc_graph.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[ROWS:.*]] = tcc_graph.take %arg1, %{{.*}} {dim = 2 : i64} : (tensor<1x1x4x5xf32>, tensor<8xi64>) -> tensor<1x1x8x5xf32>
// CHECK: %[[TWICE:.*]] = tcc_graph.take %[[ROWS]], %{{.*}} {dim = 3 : i64} : (tensor<1x1x8x5xf32>, tensor<10xi64>) -> tensor<1x1x8x10xf32>
// CHECK: %[[LO:.*]] = tcc_graph.take %arg0, %{{.*}} {dim = 2 : i64} : (tensor<2x3x4xf32>, tensor<5xi64>) -> tensor<2x3x5xf32>
// CHECK: %[[HI:.*]] = tcc_graph.take %arg0
// CHECK: %[[WLO:.*]] = tcc_graph.mul %[[LO]]
// CHECK: %[[WHI:.*]] = tcc_graph.mul %[[HI]]
// CHECK: %[[LINEAR:.*]] = tcc_graph.add %[[WLO]], %[[WHI]]
// CHECK: return %[[NEAREST]], %[[EXACT]], %[[TWICE]], %[[LINEAR]]
func.func @interpolate(%x: tensor<2x3x4xf32>, %y: tensor<1x1x4x5xf32>) -> (tensor<2x3x6xf32>, tensor<2x3x6xf32>, tensor<1x1x8x10xf32>, tensor<2x3x5xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.upsample_nearest1d.vec"(%x) {operand_names = ["input"], args = {scale_factors = array<f64: 1.7>}} : (tensor<2x3x4xf32>) -> tensor<2x3x6xf32>
  %1 = tcc_graph.operator "torch.ops.aten._upsample_nearest_exact1d.vec"(%x) {operand_names = ["input"], args = {scale_factors = array<f64: 1.7>}} : (tensor<2x3x4xf32>) -> tensor<2x3x6xf32>
  %2 = tcc_graph.operator "torch.ops.aten.upsample_nearest2d.vec"(%y) {operand_names = ["input"], args = {scale_factors = array<f64: 2.1, 2.1>}} : (tensor<1x1x4x5xf32>) -> tensor<1x1x8x10xf32>
  %3 = tcc_graph.operator "torch.ops.aten.upsample_linear1d.vec"(%x) {operand_names = ["input"], args = {output_size = array<i64: 5>, align_corners = true}} : (tensor<2x3x4xf32>) -> tensor<2x3x5xf32>
  return %0, %1, %2, %3 : tensor<2x3x6xf32>, tensor<2x3x6xf32>, tensor<1x1x8x10xf32>, tensor<2x3x5xf32>
}

// -----

// bf16 (a UNet as a bf16 model): nearest takes bf16 elements as they are;
// linear computes in f32 and rounds once, as PyTorch's kernels.
// CHECK-LABEL: func @interpolate_bf16
// CHECK: %[[NEAREST:.*]] = tcc_graph.take %arg0, %{{.*}} {dim = 3 : i64} : (tensor<1x2x4x5xbf16>, tensor<10xi64>) -> tensor<1x2x4x10xbf16>
// CHECK: %[[WIDE:.*]] = tcc_graph.cast %arg0 : (tensor<1x2x4x5xbf16>) -> tensor<1x2x4x5xf32>
// CHECK: tcc_graph.take %[[WIDE]]
// CHECK: %[[LINEAR:.*]] = tcc_graph.cast %{{.*}} : (tensor<1x2x4x10xf32>) -> tensor<1x2x4x10xbf16>
// CHECK: return %[[NEAREST]], %[[LINEAR]]
func.func @interpolate_bf16(%y: tensor<1x2x4x5xbf16>) -> (tensor<1x2x4x10xbf16>, tensor<1x2x4x10xbf16>) {
  %0 = tcc_graph.operator "torch.ops.aten.upsample_nearest2d.vec"(%y) {operand_names = ["input"], args = {output_size = array<i64: 4, 10>}} : (tensor<1x2x4x5xbf16>) -> tensor<1x2x4x10xbf16>
  %1 = tcc_graph.operator "torch.ops.aten.upsample_bilinear2d.vec"(%y) {operand_names = ["input"], args = {output_size = array<i64: 4, 10>, align_corners = false}} : (tensor<1x2x4x5xbf16>) -> tensor<1x2x4x10xbf16>
  return %0, %1 : tensor<1x2x4x10xbf16>, tensor<1x2x4x10xbf16>
}

// -----

// diagonal_scatter: src laid out in self's dims (its diagonal along dim1
// for offset >= 0, 1 along dim2), padded by zeros to dim1's size, selected
// where idx(dim2) - idx(dim1) == offset.
// CHECK-LABEL: func @diagonal_scatter
// CHECK: %[[U:.*]] = tcc_graph.reshape %arg1 : (tensor<4xf32>) -> tensor<4x1xf32>
// CHECK: %[[T:.*]] = tcc_graph.transpose %[[U]] {permutation = array<i64: 0, 1>}
// CHECK: %[[P:.*]] = tcc_graph.concat %[[T]], %{{.*}} {dim = 0 : i64} : (tensor<4x1xf32>, tensor<2x1xf32>) -> tensor<6x1xf32>
// CHECK: %[[D:.*]] = tcc_graph.sub
// CHECK: %[[M:.*]] = tcc_graph.compare %[[D]], %{{.*}} {predicate = "eq"}
// CHECK: tcc_graph.select %[[M]], %[[P]], %arg0 : (tensor<6x5xi1>, tensor<6x1xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
func.func @diagonal_scatter(%x: tensor<6x5xf32>, %s: tensor<4xf32>) -> tensor<6x5xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.diagonal_scatter.default"(%x, %s) {operand_names = ["self", "src"], args = {offset = 1 : i64}} : (tensor<6x5xf32>, tensor<4xf32>) -> tensor<6x5xf32>
  return %0 : tensor<6x5xf32>
}

// -----

// The diagonal family over symbolic sizes. diagonal (offset -1 of [m, n]
// matrices): the matrix flattened to m·n, a take at |offset|·n + i·(n + 1)
// for i below max(0, min(m - 1, n)), m and n read at run time. diag_embed:
// the vector padded by |offset| zeros and selected on j - i == offset over
// an iota of the padded length. diagonal_scatter: src fitted to the row
// dim's run-time length (max(n - L, 0) zeros, then cut), selected on the
// diagonal. trace: iotas of the symbolic sizes.
// CHECK-LABEL: func @diagonal_symbolic
// CHECK: %[[FLAT:.*]] = tcc_graph.reshape %arg0 : (tensor<2x?x?xf32>) -> tensor<2x?xf32>
// CHECK: %[[M:.*]] = tensor.dim %arg0, %{{.*}} : tensor<2x?x?xf32>
// CHECK: %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<2x?x?xf32>
// CHECK: %[[M1:.*]] = arith.subi %[[M]], %{{.*}} : index
// CHECK: %[[SHORTER:.*]] = arith.minsi %[[M1]], %[[N]] : index
// CHECK: %[[LENGTH:.*]] = arith.maxsi %[[SHORTER]], %{{.*}} : index
// CHECK: %[[I:.*]] = tcc_graph.iota sizes(%[[LENGTH]]) {{.*}} : tensor<?xi64>
// CHECK: %[[COLS:.*]] = tcc_graph.dim_size %arg0 {dim = 2 : i64}
// CHECK: %[[STEP:.*]] = tcc_graph.add %[[COLS]], %{{.*}}
// CHECK: %[[ALONG:.*]] = tcc_graph.mul %[[I]], %[[STEP]]
// CHECK: %[[START:.*]] = tcc_graph.mul %{{.*}}, %[[COLS]]
// CHECK: %[[INDEX:.*]] = tcc_graph.add %[[ALONG]], %[[START]]
// CHECK: %[[DIAG:.*]] = tcc_graph.take %[[FLAT]], %[[INDEX]] {dim = 1 : i64} : (tensor<2x?xf32>, tensor<?xi64>) -> tensor<2x?xf32>
// CHECK: %[[PADDED:.*]] = tcc_graph.concat %[[DIAG]], %{{.*}} {dim = 1 : i64} : (tensor<2x?xf32>, tensor<2x1xf32>) -> tensor<2x?xf32>
// CHECK: %[[SIDE:.*]] = tensor.dim %[[PADDED]], %{{.*}} : tensor<2x?xf32>
// CHECK: tcc_graph.iota sizes(%[[SIDE]])
// CHECK: tcc_graph.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x?xi1>, tensor<2x?x1xf32>, tensor<f32>) -> tensor<2x?x?xf32>
// CHECK: %[[LAID:.*]] = tcc_graph.transpose %{{.*}} {permutation = array<i64: 0, 2, 1>} : (tensor<2x?x1xf32>) -> tensor<2x1x?xf32>
// CHECK: %[[ROWS:.*]] = tensor.dim %arg0, %{{.*}} : tensor<2x?x?xf32>
// CHECK: %[[MISSING:.*]] = arith.subi %[[ROWS]], %{{.*}} : index
// CHECK: %[[EXTEND:.*]] = arith.maxsi %[[MISSING]], %{{.*}} : index
// CHECK: %[[LONG:.*]] = tcc_graph.concat %[[LAID]], %{{.*}} {dim = 2 : i64}
// CHECK: %[[FIT:.*]] = tcc_graph.slice %[[LONG]] sizes(%[[ROWS]])
// CHECK: %[[MASK:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "eq"} : (tensor<1x?x?xi64>, tensor<i64>) -> tensor<1x?x?xi1>
// CHECK: tcc_graph.select %[[MASK]], %[[FIT]], %arg0 : (tensor<1x?x?xi1>, tensor<2x1x?xf32>, tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
// CHECK: %[[R:.*]] = tensor.dim %arg1, %{{.*}} : tensor<?x?xf32>
// CHECK: tcc_graph.iota sizes(%[[R]])
// CHECK: %[[C:.*]] = tensor.dim %arg1, %{{.*}} : tensor<?x?xf32>
// CHECK: tcc_graph.iota sizes(%[[C]])
// CHECK: tcc_graph.reduce_sum
func.func @diagonal_symbolic(%x: tensor<2x?x?xf32>, %y: tensor<?x?xf32>) -> (tensor<2x?xf32>, tensor<?x?x?xf32>, tensor<2x?x?xf32>, tensor<f32>) {
  %0 = tcc_graph.operator "torch.ops.aten.diagonal.default"(%x) {operand_names = ["self"], args = {offset = -1 : i64, dim1 = 1 : i64, dim2 = 2 : i64}} : (tensor<2x?x?xf32>) -> tensor<2x?xf32>
  %1 = tcc_graph.operator "torch.ops.aten.diag_embed.default"(%0) {operand_names = ["self"], args = {offset = 1 : i64, dim1 = 0 : i64, dim2 = 2 : i64}} : (tensor<2x?xf32>) -> tensor<?x?x?xf32>
  %2 = tcc_graph.operator "torch.ops.aten.diagonal_scatter.default"(%x, %0) {operand_names = ["self", "src"], args = {offset = -1 : i64, dim1 = 1 : i64, dim2 = 2 : i64}} : (tensor<2x?x?xf32>, tensor<2x?xf32>) -> tensor<2x?x?xf32>
  %3 = tcc_graph.operator "torch.ops.aten.trace.default"(%y) {operand_names = ["self"], args = {}} : (tensor<?x?xf32>) -> tensor<f32>
  return %0, %1, %2, %3 : tensor<2x?xf32>, tensor<?x?x?xf32>, tensor<2x?x?xf32>, tensor<f32>
}

// -----

// histc: bin trunc((x - lo) * bins / (hi - lo)) (the last bin also holding
// x == hi), counted where lo <= x <= hi: one comparison per element and bin,
// summed over the elements.
// CHECK-LABEL: func @histc
// CHECK: tcc_graph.floor
// CHECK: tcc_graph.minimum
// CHECK: tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "ge"}
// CHECK: tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "le"}
// CHECK: tcc_graph.iota {{.*}} : tensor<4xf32>
// CHECK: tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "eq"} : (tensor<6x1xf32>, tensor<1x4xf32>) -> tensor<6x4xi1>
// CHECK: tcc_graph.reduce_sum %{{.*}} {dims = array<i64: 0>, keepdim = false} : (tensor<6x4xf32>) -> tensor<4xf32>
func.func @histc(%x: tensor<2x3xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.histc.default"(%x) {operand_names = ["self"], args = {bins = 4 : i64, min = -1.000000e+00 : f64, max = 1.000000e+00 : f64}} : (tensor<2x3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// histc without a range (min == max): the data's own, checked to be finite
// first (x - x == 0 everywhere), as PyTorch raises on an infinity or NaN.
// CHECK-LABEL: func @histc_data_range
// CHECK: %[[FLAT:.*]] = tcc_graph.reshape %arg0 : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK: %[[DIFF:.*]] = tcc_graph.sub %[[FLAT]], %[[FLAT]]
// CHECK: %[[FINITE:.*]] = tcc_graph.compare %[[DIFF]], %{{.*}} {predicate = "eq"}
// CHECK: %[[CHECKED:.*]] = tcc_graph.check %[[FINITE]], %[[FLAT]] "aten.histc.default: the range of the data is not finite (an infinity or NaN in it, with min == max), where PyTorch raises"
// CHECK: tcc_graph.reduce_max %[[CHECKED]]
func.func @histc_data_range(%x: tensor<2x3xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.histc.default"(%x) {operand_names = ["self"], args = {bins = 4 : i64, min = 0.000000e+00 : f64, max = 0.000000e+00 : f64}} : (tensor<2x3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// grid_sampler_2d, bilinear with border padding: x and y unnormalized and
// clipped to the image, each corner one gather from the flattened image
// (index y * W + x, broadcast over the channels), read as 0 outside, the
// four weighted corners summed in ATen's order.
// CHECK-LABEL: func @grid_sampler_2d
// CHECK: %[[FLAT:.*]] = tcc_graph.reshape %arg0 : (tensor<1x2x3x4xf32>) -> tensor<1x2x12xf32>
// CHECK: tcc_graph.floor
// CHECK-COUNT-4: tcc_graph.gather %[[FLAT]], %{{.*}} {dim = 2 : i64} : (tensor<1x2x12xf32>, tensor<1x2x6xi64>) -> tensor<1x2x6xf32>
// CHECK: tcc_graph.reshape %{{.*}} : (tensor<1x2x6xf32>) -> tensor<1x2x2x3xf32>
func.func @grid_sampler_2d(%x: tensor<1x2x3x4xf32>, %g: tensor<1x2x3x2xf32>) -> tensor<1x2x2x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.grid_sampler_2d.default"(%x, %g) {operand_names = ["input", "grid"], args = {interpolation_mode = 0 : i64, padding_mode = 1 : i64, align_corners = false}} : (tensor<1x2x3x4xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x2x3xf32>
  return %0 : tensor<1x2x2x3xf32>
}

// -----

// gather on a 0-d tensor (dim 0): self at every index, which must be 0.
// CHECK-LABEL: func @gather_scalar
// CHECK: %[[Z:.*]] = tcc_graph.constant dense<0> : tensor<i64>
// CHECK: %[[OK:.*]] = tcc_graph.compare %arg1, %[[Z]] {predicate = "eq"}
// CHECK: %[[B:.*]] = tcc_graph.broadcast %arg0 : (tensor<f32>) -> tensor<2xf32>
// CHECK: %[[R:.*]] = tcc_graph.check %[[OK]], %[[B]] "aten.gather.default: index out of range for a 0-d tensor"
// CHECK: return %[[R]]
func.func @gather_scalar(%x: tensor<f32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.gather.default"(%x, %i) {operand_names = ["self", "index"], args = {dim = 0 : i64}} : (tensor<f32>, tensor<2xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// index_select on a 0-d tensor (dim -1): a 0-d result.
// CHECK-LABEL: func @index_select_scalar
// CHECK: %[[OK:.*]] = tcc_graph.compare %arg1, %{{.*}} {predicate = "eq"} : (tensor<1xi64>, tensor<i64>) -> tensor<1xi1>
// CHECK: %[[OK0:.*]] = tcc_graph.reshape %[[OK]] : (tensor<1xi1>) -> tensor<i1>
// CHECK: tcc_graph.check %[[OK0]], %{{.*}} "aten.index_select.default: index out of range for a 0-d tensor" : (tensor<i1>, tensor<f32>) -> tensor<f32>
func.func @index_select_scalar(%x: tensor<f32>, %i: tensor<1xi64>) -> tensor<f32> {
  %0 = tcc_graph.operator "torch.ops.aten.index_select.default"(%x, %i) {operand_names = ["self", "index"], args = {dim = -1 : i64}} : (tensor<f32>, tensor<1xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// An empty result reads nothing (whatever the index's type).
// CHECK-LABEL: func @gather_empty
// CHECK: %[[E:.*]] = tcc_graph.constant dense<0.000000e+00> : tensor<2x0xf32>
// CHECK: return %[[E]]
func.func @gather_empty(%x: tensor<5xf32>, %i: tensor<2x0xui8>) -> tensor<2x0xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.gather.default"(%x, %i) {operand_names = ["self", "index"], args = {dim = 0 : i64}} : (tensor<5xf32>, tensor<2x0xui8>) -> tensor<2x0xf32>
  return %0 : tensor<2x0xf32>
}

// -----

// as_strided_scatter: src element k lands at 1 + (k mod 2) * 2 + (k / 2) * 1
// (offset 1, strides (1, 2)), scattered into flattened self as scatter
// does (the last write to an element wins).
// CHECK-LABEL: func @as_strided_scatter
// CHECK: %[[K:.*]] = tcc_graph.iota {{.*}} : tensor<4xi64>
// CHECK: %[[C1:.*]] = tcc_graph.fmod %[[K]], %{{.*}} : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
// CHECK: %[[T1:.*]] = tcc_graph.mul %[[C1]], %{{.*}}
// CHECK: %[[P1:.*]] = tcc_graph.add %{{.*}}, %[[T1]] : (tensor<i64>, tensor<4xi64>) -> tensor<4xi64>
// CHECK: %[[C0:.*]] = tcc_graph.trunc_div %[[K]], %{{.*}}
// CHECK: %[[T0:.*]] = tcc_graph.mul %[[C0]], %{{.*}}
// CHECK: %[[P:.*]] = tcc_graph.add %[[P1]], %[[T0]] : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
// CHECK: %[[SRC:.*]] = tcc_graph.reshape %arg1 : (tensor<2x2xf32>) -> tensor<4xf32>
// CHECK: %[[SELF:.*]] = tcc_graph.reshape %arg0 : (tensor<3x3xf32>) -> tensor<9xf32>
// CHECK: %[[HITS:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "eq"} : (tensor<1x4xi64>, tensor<9x1xi64>) -> tensor<9x4xi1>
// CHECK: %[[G:.*]] = tcc_graph.gather %[[SRC]], %{{.*}} {dim = 0 : i64} : (tensor<4xf32>, tensor<9xi64>) -> tensor<9xf32>
// CHECK: %[[S:.*]] = tcc_graph.select %{{.*}}, %[[G]], %[[SELF]]
// CHECK: tcc_graph.reshape %[[S]] : (tensor<9xf32>) -> tensor<3x3xf32>
func.func @as_strided_scatter(%x: tensor<3x3xf32>, %s: tensor<2x2xf32>) -> tensor<3x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.as_strided_scatter.default"(%x, %s) {operand_names = ["self", "src"], args = {size = array<i64: 2, 2>, stride = array<i64: 1, 2>, storage_offset = 1 : i64}} : (tensor<3x3xf32>, tensor<2x2xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// as_strided_copy reads as as_strided does.
// CHECK-LABEL: func @as_strided_copy
// CHECK: tcc_graph.as_strided %arg0 {storage_offset = 1 : i64, strides = array<i64: 1, 3>} : (tensor<3x3xf32>) -> tensor<2x2xf32>
func.func @as_strided_copy(%x: tensor<3x3xf32>) -> tensor<2x2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.as_strided_copy.default"(%x) {operand_names = ["self"], args = {size = array<i64: 2, 2>, stride = array<i64: 1, 3>, storage_offset = 1 : i64}} : (tensor<3x3xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// embedding_bag (mean): bag b holds positions [offsets[b], offsets[b + 1]),
// the last one to the end (6); padding_idx -1 is row 4, left out; the rows'
// sum divides by the bag's count, 0 for an empty bag. The other results are
// unused.
// CHECK-LABEL: func @embedding_bag_mean
// CHECK: %[[LO:.*]] = tcc_graph.slice %arg2 {dim = 0 : i64, end = 2 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[NEXT:.*]] = tcc_graph.slice %arg2 {dim = 0 : i64, end = 2 : i64, start = 1 : i64, step = 1 : i64} : (tensor<2xi64>) -> tensor<1xi64>
// CHECK: %[[N:.*]] = tcc_graph.constant dense<6> : tensor<i64>
// CHECK: %[[HI:.*]] = tcc_graph.concat %[[NEXT]], %{{.*}} {dim = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
// CHECK: %[[IN:.*]] = tcc_graph.bitwise_and %{{.*}}, %{{.*}} : (tensor<2x6xi1>, tensor<2x6xi1>) -> tensor<2x6xi1>
// CHECK: %[[PAD:.*]] = tcc_graph.constant dense<4> : tensor<i64>
// CHECK: %[[KEEP:.*]] = tcc_graph.compare %arg1, %[[PAD]] {predicate = "ne"}
// CHECK: %[[M:.*]] = tcc_graph.bitwise_and %[[IN]], %{{.*}} : (tensor<2x6xi1>, tensor<1x6xi1>) -> tensor<2x6xi1>
// CHECK: %[[ROWS:.*]] = tcc_graph.take %arg0, %arg1 {dim = 0 : i64} : (tensor<5x3xf32>, tensor<6xi64>) -> tensor<6x3xf32>
// CHECK: %[[SUM:.*]] = tcc_graph.reduce_sum %{{.*}} {dims = array<i64: 1>, keepdim = false} : (tensor<2x6x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[COUNT:.*]] = tcc_graph.reduce_sum %{{.*}} {dims = array<i64: 1>, keepdim = true} : (tensor<2x6xf32>) -> tensor<2x1xf32>
// CHECK: %[[MEAN:.*]] = tcc_graph.div %[[SUM]], %[[COUNT]]
// CHECK: %[[EMPTY:.*]] = tcc_graph.compare %[[COUNT]], %{{.*}} {predicate = "eq"}
// CHECK: %[[R:.*]] = tcc_graph.select %[[EMPTY]], %{{.*}}, %[[MEAN]]
// CHECK: return %[[R]]
func.func @embedding_bag_mean(%w: tensor<5x3xf32>, %i: tensor<6xi64>, %o: tensor<2xi64>) -> tensor<2x3xf32> {
  %0:4 = tcc_graph.operator "torch.ops.aten.embedding_bag.padding_idx"(%w, %i, %o) {operand_names = ["weight", "indices", "offsets"], args = {scale_grad_by_freq = false, mode = 1 : i64, sparse = false, include_last_offset = false, padding_idx = -1 : i64}} : (tensor<5x3xf32>, tensor<6xi64>, tensor<2xi64>) -> (tensor<2x3xf32>, tensor<6xi64>, tensor<2xi64>, tensor<2xi64>)
  return %0#0 : tensor<2x3xf32>
}

// -----

// flip of a symbolic dim: a take at n - 1 - i, n read at run time (a
// symbolic size is not one of the sizes 0 or 1 that flip leaves alone).
// CHECK-LABEL: func @flip_symbolic
// CHECK: %[[D:.*]] = tensor.dim %arg0, %{{.*}} : tensor<2x?xf32>
// CHECK: %[[I:.*]] = tcc_graph.iota sizes(%[[D]]) {start = 0.000000e+00 : f64, step = 1.000000e+00 : f64} : tensor<?xi64>
// CHECK: %[[N:.*]] = tcc_graph.dim_size %arg0 {dim = 1 : i64}
// CHECK: %[[LAST:.*]] = tcc_graph.sub %[[N]], %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i64>
// CHECK: %[[AT:.*]] = tcc_graph.sub %[[LAST]], %[[I]] : (tensor<i64>, tensor<?xi64>) -> tensor<?xi64>
// CHECK: %[[F:.*]] = tcc_graph.take %arg0, %[[AT]] {dim = 1 : i64} : (tensor<2x?xf32>, tensor<?xi64>) -> tensor<2x?xf32>
// CHECK: return %[[F]]
func.func @flip_symbolic(%x: tensor<2x?xf32> {tcc.sizes = [2, "s1"]}) -> tensor<2x?xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.flip.default"(%x) {operand_names = ["self"], args = {dims = array<i64: 1>}} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// grid_sampler_2d over symbolic sizes: each coordinate's pixel position uses
// its input size read at run time (W for x, H for y; reflection's span and
// the clip's last pixel alike), the corners' gathers read the image
// flattened by its run-time sizes, and a grid batch the export does not
// state as the input's is checked by the call.
// CHECK-LABEL: func @grid_sample_symbolic
// CHECK: %[[EQ:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "eq"}
// CHECK: %[[W:.*]] = tcc_graph.dim_size %arg0 {dim = 3 : i64}
// CHECK: %[[WF:.*]] = tcc_graph.cast %[[W]] : (tensor<i64>) -> tensor<f32>
// CHECK: %[[H:.*]] = tcc_graph.dim_size %arg0 {dim = 2 : i64}
// CHECK: %[[HF:.*]] = tcc_graph.cast %[[H]] : (tensor<i64>) -> tensor<f32>
// CHECK: tcc_graph.mul %[[WF]], %{{.*}}
// CHECK: tcc_graph.reshape %arg0 sizes(%{{.*}}, %{{.*}}) : (tensor<?x3x?x?xf32>) -> tensor<?x3x?xf32>
// CHECK: tcc_graph.gather
// CHECK: %[[R:.*]] = tcc_graph.reshape %{{.*}} sizes(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<?x3x?xf32>) -> tensor<?x3x?x?xf32>
// CHECK: tcc_graph.check %[[EQ]], %[[R]] "aten.grid_sampler_2d.default: the grid's batch is not the input's"
func.func @grid_sample_symbolic(%x: tensor<?x3x?x?xf32>, %g: tensor<?x?x?x2xf32>) -> tensor<?x3x?x?xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.grid_sampler_2d.default"(%x, %g) {operand_names = ["input", "grid"], args = {interpolation_mode = 0 : i64, padding_mode = 2 : i64, align_corners = true}} : (tensor<?x3x?x?xf32>, tensor<?x?x?x2xf32>) -> tensor<?x3x?x?xf32>
  return %0 : tensor<?x3x?x?xf32>
}
