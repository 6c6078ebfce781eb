// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics | FileCheck %s

// index_put with accumulate: the index spread over the values' other dims
// and scattered (added) along dim 0 as scatter_add does.
// CHECK-LABEL: func @index_put_accumulate
// CHECK: %[[IDX:.*]] = tcc_graph.broadcast %{{.*}} : (tensor<3x1xi64>) -> tensor<3x4xi64>
// CHECK: %[[HITS:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "eq"} : (tensor<1x3x4xi64>, tensor<5x1x1xi64>) -> tensor<5x3x4xi1>
// CHECK: %[[PICK:.*]] = tcc_graph.select %[[HITS]], %{{.*}}, %{{.*}} : (tensor<5x3x4xi1>, tensor<1x3x4xf32>, tensor<f32>) -> tensor<5x3x4xf32>
// CHECK: %[[SUM:.*]] = tcc_graph.reduce_sum %[[PICK]] {dims = array<i64: 1>, keepdim = false}
// CHECK: %[[ADD:.*]] = tcc_graph.add %arg0, %[[SUM]]
// CHECK: %[[R:.*]] = tcc_graph.select %{{.*}}, %[[ADD]], %arg0
// CHECK: return %[[R]]
func.func @index_put_accumulate(%x: tensor<5x4xf32>, %i: tensor<3xi64>, %v: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.index_put.default"(%x, %i, %v) {operand_names = ["self", "indices.0", "values"], args = {accumulate = true}} : (tensor<5x4xf32>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// Index tensors at dims 0 and 2 (not adjacent): those dims move to the
// front and collapse into one of 4 * 6 positions, linear index i * 6 + j;
// the values broadcast to x[i, :, j]'s shape [2, 3]; the plain write takes
// the last hit; the dims move back.
// CHECK-LABEL: func @index_put_apart
// CHECK: %[[T:.*]] = tcc_graph.transpose %arg0 {permutation = array<i64: 0, 2, 1>} : (tensor<4x3x6xf32>) -> tensor<4x6x3xf32>
// CHECK: %[[ROW:.*]] = tcc_graph.mul %{{.*}}, %{{.*}} : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
// CHECK: %[[LIN:.*]] = tcc_graph.add %[[ROW]], %{{.*}} : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
// CHECK: %[[V:.*]] = tcc_graph.broadcast %{{.*}} : (tensor<1x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[FLAT:.*]] = tcc_graph.reshape %[[T]] : (tensor<4x6x3xf32>) -> tensor<24x3xf32>
// CHECK: tcc_graph.reduce_max
// CHECK: %[[G:.*]] = tcc_graph.gather %[[V]], %{{.*}} {dim = 0 : i64} : (tensor<2x3xf32>, tensor<24x3xi64>) -> tensor<24x3xf32>
// CHECK: %[[W:.*]] = tcc_graph.select %{{.*}}, %[[G]], %[[FLAT]]
// CHECK: %[[BACK:.*]] = tcc_graph.reshape %[[W]] : (tensor<24x3xf32>) -> tensor<4x6x3xf32>
// CHECK: %[[R:.*]] = tcc_graph.transpose %[[BACK]] {permutation = array<i64: 0, 2, 1>}
// CHECK: return %[[R]]
func.func @index_put_apart(%x: tensor<4x3x6xf32>, %i: tensor<2xi64>, %j: tensor<2xi64>, %v: tensor<3xf32>) -> tensor<4x3x6xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.index_put.default"(%x, %i, %j, %v) {operand_names = ["self", "indices.0", "indices.2", "values"], args = {accumulate = false}} : (tensor<4x3x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<3xf32>) -> tensor<4x3x6xf32>
  return %0 : tensor<4x3x6xf32>
}

// -----

// _unsafe_masked_index: indices clamped to [-size, size - 1] (negative ones
// then wrap, as ATen's kernel reads), taken, fill where the mask is false.
// CHECK-LABEL: func @masked_index
// CHECK: %[[HI:.*]] = tcc_graph.constant dense<4> : tensor<i64>
// CHECK: %[[A:.*]] = tcc_graph.minimum %arg2, %[[HI]]
// CHECK: %[[LO:.*]] = tcc_graph.constant dense<-5> : tensor<i64>
// CHECK: %[[B:.*]] = tcc_graph.maximum %[[A]], %[[LO]]
// CHECK: %[[T:.*]] = tcc_graph.take %arg0, %[[B]] {dim = 0 : i64} : (tensor<5x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
// CHECK: %[[F:.*]] = tcc_graph.constant dense<1.500000e+00> : tensor<f32>
// CHECK: %[[R:.*]] = tcc_graph.select %arg1, %[[T]], %[[F]]
// CHECK: return %[[R]]
func.func @masked_index(%x: tensor<5x4xf32>, %m: tensor<3x4xi1>, %i: tensor<3xi64>) -> tensor<3x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten._unsafe_masked_index.default"(%x, %m, %i) {operand_names = ["self", "mask", "indices.0"], args = {fill = 1.5 : f64}} : (tensor<5x4xf32>, tensor<3x4xi1>, tensor<3xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// The accumulating put: the same clamp, the values zeroed where the mask is
// false, added at the indices.
// CHECK-LABEL: func @masked_index_put_accumulate
// CHECK: tcc_graph.maximum %{{.*}}, %{{.*}} : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
// CHECK: %[[MV:.*]] = tcc_graph.select %arg1, %arg3, %{{.*}} : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
// CHECK: tcc_graph.reshape %[[MV]] : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
// CHECK: %[[PICK:.*]] = tcc_graph.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<5x3x4xi1>, tensor<1x3x4xf32>, tensor<f32>) -> tensor<5x3x4xf32>
// CHECK: %[[SUM:.*]] = tcc_graph.reduce_sum %[[PICK]] {dims = array<i64: 1>, keepdim = false} : (tensor<5x3x4xf32>) -> tensor<5x4xf32>
// CHECK: tcc_graph.add %arg0, %[[SUM]]
func.func @masked_index_put_accumulate(%x: tensor<5x4xf32>, %m: tensor<3x4xi1>, %i: tensor<3xi64>, %v: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten._unsafe_masked_index_put_accumulate.default"(%x, %m, %i, %v) {operand_names = ["self", "mask", "indices.0", "values"], args = {}} : (tensor<5x4xf32>, tensor<3x4xi1>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// masked_scatter: the mask broadcast to self, its running count names the
// source element each true position takes; too few source elements fail a
// run-time check.
// CHECK-LABEL: func @masked_scatter
// CHECK: %[[M:.*]] = tcc_graph.broadcast %arg1 : (tensor<3xi1>) -> tensor<2x3xi1>
// CHECK: %[[MF:.*]] = tcc_graph.reshape %[[M]] : (tensor<2x3xi1>) -> tensor<6xi1>
// CHECK: %[[C:.*]] = tcc_graph.cumsum %{{.*}} {dim = 0 : i64} : tensor<6xi64>
// CHECK: %[[AT:.*]] = tcc_graph.minimum %{{.*}}, %{{.*}} : (tensor<6xi64>, tensor<i64>) -> tensor<6xi64>
// CHECK: %[[SRC:.*]] = tcc_graph.reshape %arg2 : (tensor<4x2xf32>) -> tensor<8xf32>
// CHECK: %[[T:.*]] = tcc_graph.take %[[SRC]], %[[AT]] {dim = 0 : i64}
// CHECK: %[[SEL:.*]] = tcc_graph.select %[[MF]], %[[T]], %{{.*}}
// CHECK: %[[TOTAL:.*]] = tcc_graph.slice %[[C]] {dim = 0 : i64, end = 6 : i64, start = 5 : i64, step = 1 : i64}
// CHECK: %[[EIGHT:.*]] = tcc_graph.constant dense<8> : tensor<i64>
// CHECK: %[[OK:.*]] = tcc_graph.compare %[[TOTAL]], %[[EIGHT]] {predicate = "le"}
// CHECK: tcc_graph.check %[[OK]], %[[SEL]] "masked_scatter: the mask has more true elements than the source has elements"
func.func @masked_scatter(%x: tensor<2x3xf32>, %m: tensor<3xi1>, %s: tensor<4x2xf32>) -> tensor<2x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.masked_scatter.default"(%x, %m, %s) {operand_names = ["self", "mask", "source"], args = {}} : (tensor<2x3xf32>, tensor<3xi1>, tensor<4x2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// nonzero_static: row r is the element where the running count of nonzeros
// reaches r + 1 (the number of counts <= r), its flat position unravelled
// by (p / 3) mod 2 and (p / 1) mod 3; rows past the count are fill_value.
// CHECK-LABEL: func @nonzero_static
// CHECK: %[[NZ:.*]] = tcc_graph.compare %arg0, %{{.*}} {predicate = "ne"}
// CHECK: %[[C:.*]] = tcc_graph.cumsum %{{.*}} {dim = 0 : i64} : tensor<6xi64>
// CHECK: %[[BELOW:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "le"} : (tensor<1x6xi64>, tensor<4x1xi64>) -> tensor<4x6xi1>
// CHECK: %[[P:.*]] = tcc_graph.reduce_sum %{{.*}} {dims = array<i64: 1>, keepdim = false} : (tensor<4x6xf32>) -> tensor<4xf32>
// CHECK: %[[VALID:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "lt"} : (tensor<4xi64>, tensor<1xi64>) -> tensor<4xi1>
// CHECK: tcc_graph.trunc_div %{{.*}}, %{{.*}} : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
// CHECK: tcc_graph.fmod
// CHECK: %[[XY:.*]] = tcc_graph.concat %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<4x1xi64>, tensor<4x1xi64>) -> tensor<4x2xi64>
// CHECK: %[[FILL:.*]] = tcc_graph.constant dense<-1> : tensor<i64>
// CHECK: %[[R:.*]] = tcc_graph.select %{{.*}}, %[[XY]], %[[FILL]]
// CHECK: return %[[R]]
func.func @nonzero_static(%x: tensor<2x3xf32>) -> tensor<4x2xi64> {
  %0 = tcc_graph.operator "torch.ops.aten.nonzero_static.default"(%x) {operand_names = ["self"], args = {size = 4 : i64, fill_value = -1 : i64}} : (tensor<2x3xf32>) -> tensor<4x2xi64>
  return %0 : tensor<4x2xi64>
}

// -----

// A 0-d input: no coordinates at all.
// CHECK-LABEL: func @nonzero_static_scalar
// CHECK: %[[E:.*]] = tcc_graph.constant dense<0> : tensor<3x0xi64>
// CHECK: return %[[E]]
func.func @nonzero_static_scalar(%x: tensor<f32>) -> tensor<3x0xi64> {
  %0 = tcc_graph.operator "torch.ops.aten.nonzero_static.default"(%x) {operand_names = ["self"], args = {size = 3 : i64, fill_value = -1 : i64}} : (tensor<f32>) -> tensor<3x0xi64>
  return %0 : tensor<3x0xi64>
}

// -----

// A boolean mask whose values do not depend on how many rows it picks: a
// select (added here, accumulate).
// CHECK-LABEL: func @index_put_mask
// CHECK: %[[V:.*]] = tcc_graph.reshape %arg2 : (tensor<4xf32>) -> tensor<1x4xf32>
// CHECK: %[[M:.*]] = tcc_graph.reshape %arg1 : (tensor<5xi1>) -> tensor<5x1xi1>
// CHECK: %[[P:.*]] = tcc_graph.select %[[M]], %[[V]], %{{.*}} : (tensor<5x1xi1>, tensor<1x4xf32>, tensor<f32>) -> tensor<5x4xf32>
// CHECK: %[[R:.*]] = tcc_graph.add %arg0, %[[P]]
// CHECK: return %[[R]]
func.func @index_put_mask(%x: tensor<5x4xf32>, %m: tensor<5xi1>, %v: tensor<4xf32>) -> tensor<5x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.index_put.default"(%x, %m, %v) {operand_names = ["self", "indices.0", "values"], args = {accumulate = true}} : (tensor<5x4xf32>, tensor<5xi1>, tensor<4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// Values with a row per true mask element: data-dependent, refused.
func.func @index_put_mask_counted(%x: tensor<5x4xf32>, %m: tensor<5xi1>, %v: tensor<2x4xf32>) -> tensor<5x4xf32> {
  // expected-error @+1 {{operator 'aten.index_put.default': values of type 'tensor<2x4xf32>' depend on the number of true mask elements}}
  %0 = tcc_graph.operator "torch.ops.aten.index_put.default"(%x, %m, %v) {operand_names = ["self", "indices.0", "values"], args = {accumulate = false}} : (tensor<5x4xf32>, tensor<5xi1>, tensor<2x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// cache[:, :, positions] = values: one index tensor, whole slices elsewhere,
// no accumulation: an index_copy along that dim (only the slices written);
// values of unit dims are broadcast to them first.
// CHECK-LABEL: func @index_put_slices
// CHECK: %[[V:.*]] = tcc_graph.broadcast %arg2 : (tensor<1x1x1x16xf32>) -> tensor<1x2x1x16xf32>
// CHECK: tcc_graph.index_copy %arg0[%arg1], %[[V]] {dim = 2 : i64, message = "aten.index_put.default: index out of range for dim 2 of size 64"}
func.func @index_put_slices(%cache: tensor<1x2x64x16xf32>, %pos: tensor<1xi64>, %v: tensor<1x1x1x16xf32>) -> tensor<1x2x64x16xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.index_put.default"(%cache, %pos, %v) {operand_names = ["self", "indices.2", "values"], args = {accumulate = false}} : (tensor<1x2x64x16xf32>, tensor<1xi64>, tensor<1x1x1x16xf32>) -> tensor<1x2x64x16xf32>
  return %0 : tensor<1x2x64x16xf32>
}

// -----

// Over symbolic sizes: self is written (its kDynamic markers multiplied to
// 0 elements once, so self came back unwritten, a silent wrong answer the
// sweep's dynamic column found). The mask's and the values' sizes the
// export does not state as self's are checked by the call and read fitted.
// CHECK-LABEL: func @index_put_mask_symbolic
// CHECK-DAG: %[[MN:.*]] = tcc_graph.dim_size %arg1 {dim = 0 : i64}
// CHECK-DAG: %[[XN:.*]] = tcc_graph.dim_size %arg0 {dim = 0 : i64}
// CHECK: tcc_graph.compare %[[MN]], %[[XN]] {predicate = "eq"}
// CHECK: %[[M:.*]] = tcc_graph.slice %{{.*}} sizes(%{{.*}}) {dim = 0 : i64
// CHECK: %[[MR:.*]] = tcc_graph.reshape %[[M]] : (tensor<?xi1>) -> tensor<?x1xi1>
// CHECK: %[[SEL:.*]] = tcc_graph.select %[[MR]], %{{.*}}, %arg0 : (tensor<?x1xi1>, tensor<1x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK: %[[R:.*]] = tcc_graph.check %{{.*}}, %[[SEL]] "aten.index_put.default: the mask or the values do not fit self's sizes"
// CHECK: return %[[R]]
func.func @index_put_mask_symbolic(%x: tensor<?x?xf32>, %m: tensor<?xi1>, %v: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.index_put.default"(%x, %m, %v) {operand_names = ["self", "indices.0", "values"], args = {accumulate = false}} : (tensor<?x?xf32>, tensor<?xi1>, tensor<?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Integer indices over symbolic sizes: the index tensors broadcast to their
// own run-time sizes, the linear index's strides are the indexed sizes read
// at run time, and the values' sizes (not the export's operands here) are
// checked by the call and read fitted to the indexed shape.
// CHECK-LABEL: func @masked_index_put_accumulate_symbolic
// CHECK: %[[COLS:.*]] = tcc_graph.broadcast %{{.*}} sizes(%{{.*}}, %{{.*}}) : (tensor<1x?xi64>) -> tensor<?x?xi64>
// CHECK: %[[STRIDE:.*]] = tcc_graph.mul %{{.*}}, %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i64>
// CHECK: %[[ROWS:.*]] = tcc_graph.broadcast %{{.*}} sizes(%{{.*}}, %{{.*}}) : (tensor<?x1xi64>) -> tensor<?x?xi64>
// CHECK: %[[SCALED:.*]] = tcc_graph.mul %[[ROWS]], %[[STRIDE]]
// CHECK: %[[LINEAR:.*]] = tcc_graph.add %[[SCALED]], %[[COLS]]
// CHECK: tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "eq"}
// CHECK: tcc_graph.reshape %arg0 : (tensor<?x?xf32>) -> tensor<?xf32>
// CHECK: %[[OUT:.*]] = tcc_graph.reshape %{{.*}} sizes(%{{.*}}, %{{.*}}) : (tensor<?xf32>) -> tensor<?x?xf32>
// CHECK: %[[R:.*]] = tcc_graph.check %{{.*}}, %[[OUT]] "aten._unsafe_masked_index_put_accumulate.default: values do not broadcast to the indexed shape"
// CHECK: return %[[R]]
func.func @masked_index_put_accumulate_symbolic(%x: tensor<?x?xf32>, %m: tensor<?x?xi1>, %i: tensor<?x1xi64>, %j: tensor<1x?xi64>, %v: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = tcc_graph.operator "torch.ops.aten._unsafe_masked_index_put_accumulate.default"(%x, %m, %i, %j, %v) {operand_names = ["self", "mask", "indices.0", "indices.1", "values"], args = {}} : (tensor<?x?xf32>, tensor<?x?xi1>, tensor<?x1xi64>, tensor<1x?xi64>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// masked_scatter over symbolic sizes: the mask stretched to the result's
// sizes (the export's expressions), the total of true elements a sum, the
// source read with one more element (its symbolic count may be 0).
// CHECK-LABEL: func @masked_scatter_symbolic
// CHECK: tcc_graph.broadcast %{{.*}} sizes(%{{.*}}) : (tensor<1x?xi1>) -> tensor<3x?xi1>
// CHECK: tcc_graph.reshape %arg0 : (tensor<3x?xf32>) -> tensor<?xf32>
// CHECK: %[[COUNT:.*]] = tcc_graph.cumsum
// CHECK: %[[FLAT:.*]] = tcc_graph.reshape %arg2 : (tensor<?x?xf32>) -> tensor<?xf32>
// CHECK: %[[AVAIL:.*]] = tcc_graph.dim_size %[[FLAT]] {dim = 0 : i64}
// CHECK: %[[PAD:.*]] = tcc_graph.concat %[[FLAT]], %{{.*}} {dim = 0 : i64} : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>
// CHECK: tcc_graph.take %[[PAD]]
// CHECK: %[[TOTAL:.*]] = tcc_graph.reduce_sum %{{.*}} {dims = array<i64: 0>, keepdim = false} : (tensor<?xi64>) -> tensor<i64>
// CHECK: tcc_graph.compare %[[TOTAL]], %[[AVAIL]] {predicate = "le"}
// CHECK: tcc_graph.reshape %{{.*}} : (tensor<?xf32>) -> tensor<3x?xf32>
func.func @masked_scatter_symbolic(%x: tensor<3x?xf32> {tcc.sizes = [3, "s0"]}, %m: tensor<1x?xi1> {tcc.sizes = [1, "s0"]}, %s: tensor<?x?xf32> {tcc.sizes = ["s1", "s2"]}) -> tensor<3x?xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.masked_scatter.default"(%x, %m, %s) {operand_names = ["self", "mask", "source"], args = {}, tcc.sizes = [[3, "s0"]]} : (tensor<3x?xf32>, tensor<1x?xi1>, tensor<?x?xf32>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// -----

// A symbolic size of the mask that the export does not state as the
// result's: refused (it might stretch from 1 at run time).
func.func @masked_scatter_unknown_sizes(%x: tensor<?x?xf32>, %m: tensor<?x?xi1>, %s: tensor<?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{operator 'aten.masked_scatter.default': only static shapes are supported (a symbolic size of 'tensor<?x?xf32>' the export does not state as the result's 'tensor<?x?xf32>')}}
  %0 = tcc_graph.operator "torch.ops.aten.masked_scatter.default"(%x, %m, %s) {operand_names = ["self", "mask", "source"], args = {}} : (tensor<?x?xf32>, tensor<?x?xi1>, tensor<?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// _unsafe_masked_index over symbolic sizes: each index clamped to
// [-n, n - 1] of the dim it indexes, n read at run time.
// CHECK-LABEL: func @masked_index_symbolic
// CHECK: %[[N:.*]] = tcc_graph.dim_size %arg0 {dim = 0 : i64}
// CHECK: %[[LAST:.*]] = tcc_graph.add %[[N]], %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i64>
// CHECK: %[[UP:.*]] = tcc_graph.minimum %arg2, %[[LAST]]
// CHECK: %[[FIRST:.*]] = tcc_graph.sub %{{.*}}, %[[N]] : (tensor<i64>, tensor<i64>) -> tensor<i64>
// CHECK: tcc_graph.maximum %[[UP]], %[[FIRST]]
// CHECK: tcc_graph.take
// CHECK: tcc_graph.select %arg1
func.func @masked_index_symbolic(%x: tensor<?x4xf32>, %m: tensor<?x4xi1>, %i: tensor<?xi64>) -> tensor<?x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten._unsafe_masked_index.default"(%x, %m, %i) {operand_names = ["self", "mask", "indices.0"], args = {fill = 1.5 : f64}} : (tensor<?x4xf32>, tensor<?x4xi1>, tensor<?xi64>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// _index_put_impl (index_put_'s implementation, made functional by the
// importer) is index_put: with accumulate, a sum scatter.
// CHECK-LABEL: func @index_put_impl
// CHECK: tcc_graph.reduce_sum
// CHECK-NOT: tcc_graph.operator
func.func @index_put_impl(%s: tensor<5x3xf32>, %i: tensor<4xi64>, %v: tensor<4x3xf32>) -> tensor<5x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten._index_put_impl.default"(%s, %i, %v) {operand_names = ["self", "indices.0", "values"], args = {accumulate = true, unsafe = false}} : (tensor<5x3xf32>, tensor<4xi64>, tensor<4x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}
