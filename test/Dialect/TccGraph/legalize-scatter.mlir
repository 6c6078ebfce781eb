// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics | FileCheck %s

// scatter_reduce: each index element compares with every target position
// (a dim of size 4 before the index's own dim 0), the hits' sources reduce
// over the index's dim, and positions nobody hits keep self. include_self
// false: no combining with self.
// CHECK-LABEL: func @scatter_sum
// An index outside [-4, 4) fails the call, as PyTorch raises.
// CHECK: %[[WRAP:.*]] = tcc_graph.select %{{.*}}, %{{.*}}, %arg1
// CHECK: %[[CHECKED:.*]] = tcc_graph.check %{{.*}}, %[[WRAP]] "aten.scatter_reduce.two: index out of range for dim 0 of size 4"
// CHECK: %[[IDX:.*]] = tcc_graph.reshape %[[CHECKED]] : (tensor<2x3xi64>) -> tensor<1x2x3xi64>
// CHECK: %[[J:.*]] = tcc_graph.iota {{.*}} : tensor<4xi64>
// CHECK: %[[JR:.*]] = tcc_graph.reshape %[[J]] : (tensor<4xi64>) -> tensor<4x1x1xi64>
// CHECK: %[[HITS:.*]] = tcc_graph.compare %[[IDX]], %[[JR]] {predicate = "eq"} : (tensor<1x2x3xi64>, tensor<4x1x1xi64>) -> tensor<4x2x3xi1>
// CHECK: %[[SRC:.*]] = tcc_graph.reshape %arg2 : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
// CHECK: %[[HF:.*]] = tcc_graph.cast %[[HITS]]
// CHECK: %[[COUNT:.*]] = tcc_graph.reduce_sum %[[HF]] {dims = array<i64: 1>, keepdim = false} : (tensor<4x2x3xf32>) -> tensor<4x3xf32>
// CHECK: %[[PICK:.*]] = tcc_graph.select %[[HITS]], %[[SRC]], %{{.*}} : (tensor<4x2x3xi1>, tensor<1x2x3xf32>, tensor<f32>) -> tensor<4x2x3xf32>
// CHECK: %[[SUM:.*]] = tcc_graph.reduce_sum %[[PICK]] {dims = array<i64: 1>, keepdim = false}
// CHECK: %[[HIT:.*]] = tcc_graph.compare %[[COUNT]], %{{.*}} {predicate = "gt"}
// CHECK: %[[R:.*]] = tcc_graph.select %[[HIT]], %[[SUM]], %arg0
// CHECK: return %[[R]]
func.func @scatter_sum(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>, %s: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.scatter_reduce.two"(%x, %i, %s) {operand_names = ["self", "index", "src"], args = {dim = 0 : i64, reduce = "sum", include_self = false}} : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// A plain scatter takes the last hit (the highest position along the index's
// dim, as PyTorch's CPU loop), through a gather of src cut to index's shape.
// CHECK-LABEL: func @scatter_set
// CHECK: %[[CUT:.*]] = tcc_graph.slice %arg2 {dim = 1 : i64, end = 2 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[HITS:.*]] = tcc_graph.compare {{.*}} {predicate = "eq"} : (tensor<4x1x2xi64>, tensor<1x3x1xi64>) -> tensor<4x3x2xi1>
// CHECK: %[[K:.*]] = tcc_graph.iota {{.*}} : tensor<2xf32>
// CHECK: %[[KR:.*]] = tcc_graph.reshape %[[K]] : (tensor<2xf32>) -> tensor<1x1x2xf32>
// CHECK: %[[POS:.*]] = tcc_graph.select %[[HITS]], %[[KR]], %{{.*}}
// CHECK: %[[LAST:.*]] = tcc_graph.reduce_max %[[POS]] {dims = array<i64: 2>, keepdim = false}
// CHECK: %[[AT:.*]] = tcc_graph.cast %{{.*}} : (tensor<4x3xf32>) -> tensor<4x3xi64>
// CHECK: %[[G:.*]] = tcc_graph.gather %[[CUT]], %[[AT]] {dim = 1 : i64} : (tensor<4x2xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
// CHECK: tcc_graph.select %{{.*}}, %[[G]], %arg0
func.func @scatter_set(%x: tensor<4x3xf32>, %i: tensor<4x2xi64>, %s: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.scatter.src"(%x, %i, %s) {operand_names = ["self", "index", "src"], args = {dim = 1 : i64}} : (tensor<4x3xf32>, tensor<4x2xi64>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// amin as the negated max of the negated hits; an index narrower than self
// along the other dims leaves the rest as self (its results padded at the end).
// CHECK-LABEL: func @scatter_amin
// CHECK: %[[NEG:.*]] = tcc_graph.neg %{{.*}} : tensor<1x2x2xf32>
// CHECK: %[[MAX:.*]] = tcc_graph.reduce_max
// CHECK: %[[MIN:.*]] = tcc_graph.neg %[[MAX]] : tensor<4x2xf32>
// CHECK: %[[PAD:.*]] = tcc_graph.concat %[[MIN]], %{{.*}} {dim = 1 : i64} : (tensor<4x2xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
// CHECK: %[[BOTH:.*]] = tcc_graph.minimum %arg0, %[[PAD]]
// CHECK: tcc_graph.select %{{.*}}, %[[BOTH]], %arg0
func.func @scatter_amin(%x: tensor<4x3xf32>, %i: tensor<2x2xi64>, %s: tensor<2x2xf32>) -> tensor<4x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.scatter_reduce.two"(%x, %i, %s) {operand_names = ["self", "index", "src"], args = {dim = 0 : i64, reduce = "amin"}} : (tensor<4x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// index_add: the 1-D index stretched over source's other dims, alpha
// applied to source.
// CHECK-LABEL: func @index_add
// CHECK: %[[A:.*]] = tcc_graph.mul %arg2, %{{.*}} : (tensor<3x2xf32>, tensor<f32>) -> tensor<3x2xf32>
// CHECK: %[[LINE:.*]] = tcc_graph.reshape %arg1 : (tensor<2xi64>) -> tensor<1x2xi64>
// CHECK: %[[SPREAD:.*]] = tcc_graph.broadcast %[[LINE]] : (tensor<1x2xi64>) -> tensor<3x2xi64>
// CHECK: tcc_graph.reduce_sum
// CHECK: %[[PLUS:.*]] = tcc_graph.add %arg0
// CHECK: tcc_graph.select %{{.*}}, %[[PLUS]], %arg0
func.func @index_add(%x: tensor<3x4xf32>, %i: tensor<2xi64>, %s: tensor<3x2xf32>) -> tensor<3x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.index_add.default"(%x, %i, %s) {operand_names = ["self", "index", "source"], args = {dim = 1 : i64, alpha = 2 : i64}} : (tensor<3x4xf32>, tensor<2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// max_unpool2d: values scattered into the zeroed, flattened plane of each
// (batch, channel).
// CHECK-LABEL: func @max_unpool
// CHECK: %[[V:.*]] = tcc_graph.reshape %arg0 : (tensor<1x2x2x2xf32>) -> tensor<2x4xf32>
// CHECK: %[[I:.*]] = tcc_graph.reshape %arg1 : (tensor<1x2x2x2xi64>) -> tensor<2x4xi64>
// CHECK: %[[Z:.*]] = tcc_graph.constant dense<0.000000e+00> : tensor<2x16xf32>
// CHECK: tcc_graph.check {{.*}} "aten.max_unpool2d.default: index out of range for dim 1 of size 16"
// CHECK: tcc_graph.compare {{.*}} {predicate = "eq"} : (tensor<2x1x4xi64>, tensor<1x16x1xi64>) -> tensor<2x16x4xi1>
// CHECK: %[[R:.*]] = tcc_graph.select %{{.*}}, %{{.*}}, %[[Z]] :
// CHECK: tcc_graph.reshape %[[R]] : (tensor<2x16xf32>) -> tensor<1x2x4x4xf32>
func.func @max_unpool(%x: tensor<1x2x2x2xf32>, %i: tensor<1x2x2x2xi64>) -> tensor<1x2x4x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.max_unpool2d.default"(%x, %i) {operand_names = ["self", "indices"], args = {output_size = array<i64: 4, 4>}} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// max_pool2d_with_indices_backward: each output's gradient added at its
// index into the zeroed, flattened input plane (overlapping windows sum).
// CHECK-LABEL: func @max_pool_backward
// CHECK: %[[G:.*]] = tcc_graph.reshape %arg0 : (tensor<1x2x2x2xf32>) -> tensor<2x4xf32>
// CHECK: %[[I:.*]] = tcc_graph.reshape %arg2 : (tensor<1x2x2x2xi64>) -> tensor<2x4xi64>
// CHECK: tcc_graph.compare {{.*}} {predicate = "eq"} : (tensor<2x1x4xi64>, tensor<1x9x1xi64>) -> tensor<2x9x4xi1>
// CHECK: tcc_graph.reduce_sum
// CHECK: tcc_graph.reshape %{{.*}} : (tensor<2x9xf32>) -> tensor<1x2x3x3xf32>
func.func @max_pool_backward(%g: tensor<1x2x2x2xf32>, %x: tensor<1x2x3x3xf32>, %i: tensor<1x2x2x2xi64>) -> tensor<1x2x3x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.max_pool2d_with_indices_backward.default"(%g, %x, %i) {operand_names = ["grad_output", "self", "indices"], args = {kernel_size = array<i64: 2, 2>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false}} : (tensor<1x2x2x2xf32>, tensor<1x2x3x3xf32>, tensor<1x2x2x2xi64>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// Integer scatter_reduce: a sum adds integers (reduce_sum takes them); an
// amax combines the hits in the integer type, one index position after
// another (tcc_graph.reduce_max takes floats, which would round int64), a
// miss contributing the type's least value.
// CHECK-LABEL: func @ints_sum
// CHECK: %[[PICK:.*]] = tcc_graph.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x2xi1>, tensor<1x2xi64>, tensor<i64>) -> tensor<4x2xi64>
// CHECK: tcc_graph.reduce_sum %[[PICK]] {dims = array<i64: 1>, keepdim = false} : (tensor<4x2xi64>) -> tensor<4xi64>
func.func @ints_sum(%x: tensor<4xi64>, %i: tensor<2xi64>, %s: tensor<2xi64>) -> tensor<4xi64> {
  %0 = tcc_graph.operator "torch.ops.aten.scatter_add.default"(%x, %i, %s) {operand_names = ["self", "index", "src"], args = {dim = 0 : i64}} : (tensor<4xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// CHECK-LABEL: func @ints_amax
// CHECK: %[[LEAST:.*]] = tcc_graph.constant dense<-9223372036854775808> : tensor<i64>
// CHECK: %[[PICK:.*]] = tcc_graph.select %{{.*}}, %{{.*}}, %[[LEAST]] : (tensor<4x2xi1>, tensor<1x2xi64>, tensor<i64>) -> tensor<4x2xi64>
// CHECK: %[[A:.*]] = tcc_graph.slice %[[PICK]] {dim = 1 : i64, end = 1 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[B:.*]] = tcc_graph.slice %[[PICK]] {dim = 1 : i64, end = 2 : i64, start = 1 : i64, step = 1 : i64}
// CHECK: tcc_graph.maximum %{{.*}}, %{{.*}} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
// CHECK-NOT: tcc_graph.reduce_max
// CHECK: tcc_graph.maximum %arg0
func.func @ints_amax(%x: tensor<4xi64>, %i: tensor<2xi64>, %s: tensor<2xi64>) -> tensor<4xi64> {
  %0 = tcc_graph.operator "torch.ops.aten.scatter_reduce.two"(%x, %i, %s) {operand_names = ["self", "index", "src"], args = {dim = 0 : i64, reduce = "amax"}} : (tensor<4xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// An integer mean floors, as PyTorch's; positions no index names divide by 1.
// CHECK-LABEL: func @ints_mean
// CHECK: %[[D:.*]] = tcc_graph.maximum
// CHECK: %[[Q:.*]] = tcc_graph.trunc_div %{{.*}}, %[[D]]
// CHECK: %[[R:.*]] = tcc_graph.fmod %{{.*}}, %[[D]]
// CHECK: %[[NEG:.*]] = tcc_graph.compare %[[R]], %{{.*}} {predicate = "lt"}
// CHECK: %[[LOW:.*]] = tcc_graph.sub %[[Q]]
// CHECK: tcc_graph.select %[[NEG]], %[[LOW]], %[[Q]]
func.func @ints_mean(%x: tensor<4xi32>, %i: tensor<2xi64>, %s: tensor<2xi32>) -> tensor<4xi32> {
  %0 = tcc_graph.operator "torch.ops.aten.scatter_reduce.two"(%x, %i, %s) {operand_names = ["self", "index", "src"], args = {dim = 0 : i64, reduce = "mean", include_self = false}} : (tensor<4xi32>, tensor<2xi64>, tensor<2xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Bools and unsigned integers are refused; so is an integer product over a
// symbolic number of index positions (combined one after another).
func.func @bools(%x: tensor<4xi1>, %i: tensor<2xi64>, %s: tensor<2xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{operator 'aten.scatter_add.default': reducing into a tensor of 'i1' is not supported (floating-point and signed integers only)}}
  %0 = tcc_graph.operator "torch.ops.aten.scatter_add.default"(%x, %i, %s) {operand_names = ["self", "index", "src"], args = {dim = 0 : i64}} : (tensor<4xi1>, tensor<2xi64>, tensor<2xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @ints_prod_dynamic(%x: tensor<4xi64>, %i: tensor<?xi64>, %s: tensor<?xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{operator 'aten.scatter_reduce.two': a product, amax or amin into integers needs static sizes and at most 64 index positions along dim 0}}
  %0 = tcc_graph.operator "torch.ops.aten.scatter_reduce.two"(%x, %i, %s) {operand_names = ["self", "index", "src"], args = {dim = 0 : i64, reduce = "prod"}, tcc.sizes = [[4]]} : (tensor<4xi64>, tensor<?xi64>, tensor<?xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// index_copy: the copied slices alone (tcc_graph.index_copy), whatever the
// shapes; a prefill's positions are a symbolic count.
// CHECK-LABEL: func @index_copy_cache
// CHECK: %[[R:.*]] = tcc_graph.index_copy %arg0[%arg1], %arg2 {dim = 2 : i64, message = "aten.index_copy.default: index out of range for dim 2 of size 64"} : (tensor<1x2x64x16xf32>, tensor<?xi64>, tensor<1x2x?x16xf32>) -> tensor<1x2x64x16xf32>
// CHECK: return %[[R]]
func.func @index_copy_cache(%cache: tensor<1x2x64x16xf32>, %pos: tensor<?xi64>, %new: tensor<1x2x?x16xf32>) -> tensor<1x2x64x16xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.index_copy.default"(%cache, %pos, %new) {operand_names = ["self", "index", "source"], args = {dim = 2 : i64}} : (tensor<1x2x64x16xf32>, tensor<?xi64>, tensor<1x2x?x16xf32>) -> tensor<1x2x64x16xf32>
  return %0 : tensor<1x2x64x16xf32>
}

// -----

// A 0-d index is one position; a source of another dtype is cast.
// CHECK-LABEL: func @index_copy_scalar_index
// CHECK: %[[I:.*]] = tcc_graph.reshape %arg1 : (tensor<i64>) -> tensor<1xi64>
// CHECK: %[[S:.*]] = tcc_graph.cast %arg2 : (tensor<3x1xf16>) -> tensor<3x1xf32>
// CHECK: tcc_graph.index_copy %arg0[%[[I]]], %[[S]] {dim = 1 : i64
func.func @index_copy_scalar_index(%x: tensor<3x5xf32>, %i: tensor<i64>, %s: tensor<3x1xf16>) -> tensor<3x5xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.index_copy.default"(%x, %i, %s) {operand_names = ["self", "index", "source"], args = {dim = -1 : i64}} : (tensor<3x5xf32>, tensor<i64>, tensor<3x1xf16>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// Symbolic sizes: the targets are an iota of self's size read at run time,
// the source is read fitted to the index's sizes (extended by what it lacks,
// none where it fits, then cut), the results are fitted to self's, and the
// call checks that the index fits self (apart from dim) and the source, as
// PyTorch raises.
// CHECK-LABEL: func @scatter_add_symbolic
// CHECK-DAG: %[[S0:.*]] = tcc_graph.dim_size %arg2 {dim = 0 : i64}
// CHECK-DAG: %[[I0:.*]] = tcc_graph.dim_size %arg1 {dim = 0 : i64}
// CHECK: %[[FITS0:.*]] = tcc_graph.compare %[[I0]], %[[S0]] {predicate = "le"}
// CHECK: %[[PAD:.*]] = tcc_graph.broadcast %{{.*}} sizes(%{{.*}}, %{{.*}}) : (tensor<f32>) -> tensor<?x?xf32>
// CHECK: %[[EXT:.*]] = tcc_graph.concat %arg2, %[[PAD]] {dim = 0 : i64}
// CHECK: tcc_graph.slice %[[EXT]] sizes(%{{.*}}) {dim = 0 : i64
// CHECK: %[[N:.*]] = tcc_graph.dim_size %arg0 {dim = 0 : i64}
// CHECK: tcc_graph.check %{{.*}}, %{{.*}} "aten.scatter_add.default: index out of range for dim 0 of size ?"
// CHECK: %[[J:.*]] = tcc_graph.iota sizes(%{{.*}}) {{.*}} : tensor<?xi64>
// CHECK: tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "eq"} : (tensor<1x?x?xi64>, tensor<?x1x1xi64>) -> tensor<?x?x?xi1>
// CHECK: %[[SUM:.*]] = tcc_graph.reduce_sum %{{.*}} {dims = array<i64: 1>, keepdim = false} : (tensor<?x?x?xf32>) -> tensor<?x?xf32>
// CHECK: tcc_graph.concat %[[SUM]], %{{.*}} {dim = 1 : i64}
// CHECK: %[[R:.*]] = tcc_graph.select
// CHECK: %[[C:.*]] = tcc_graph.check %{{.*}}, %[[R]] "aten.scatter_add.default: index larger than self (apart from dim 0) or than the source" : (tensor<i1>, tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK: return %[[C]]
func.func @scatter_add_symbolic(%x: tensor<?x?xf32>, %i: tensor<?x?xi64>, %s: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.scatter_add.default"(%x, %i, %s) {operand_names = ["self", "index", "src"], args = {dim = 0 : i64}} : (tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Where the export states the index's sizes as self's and the source's
// (one symbol), nothing is fitted or checked.
// CHECK-LABEL: func @scatter_symbolic_same_sizes
// CHECK-NOT: tcc_graph.concat
// CHECK-NOT: tcc_graph.slice
// CHECK: %[[LAST:.*]] = tcc_graph.reduce_max
// The gather reads one more (zero) element along dim, so a symbolic index
// length of 0 reads inside the source.
// CHECK: %[[FROM:.*]] = tcc_graph.concat %arg2, %{{.*}} {dim = 1 : i64} : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
// CHECK: tcc_graph.gather %[[FROM]], %{{.*}} {dim = 1 : i64}
// CHECK-NOT: tcc_graph.check
// CHECK: return
func.func @scatter_symbolic_same_sizes(%x: tensor<?x?xf32> {tcc.sizes = ["s0", "s1"]}, %i: tensor<?x?xi64> {tcc.sizes = ["s0", "s2"]}, %s: tensor<?x?xf32> {tcc.sizes = ["s0", "s2"]}) -> tensor<?x?xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.scatter.src"(%x, %i, %s) {operand_names = ["self", "index", "src"], args = {dim = 1 : i64}} : (tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// index_add over symbolic sizes: the index spread to self's sizes with the
// index's length at dim; the source's sizes checked by the call.
// CHECK-LABEL: func @index_add_symbolic
// CHECK: %[[EQ:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "eq"} : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK-NOT: tcc_graph.compare
// CHECK: tcc_graph.broadcast %{{.*}} sizes(%{{.*}}, %{{.*}}) : (tensor<1x?xi64>) -> tensor<?x?xi64>
// CHECK: %[[R:.*]] = tcc_graph.check %[[EQ]], %{{.*}} "aten.index_add.default: the source does not have self's sizes with the index's length at dim 1"
// CHECK: return %[[R]]
func.func @index_add_symbolic(%x: tensor<?x?xf32> {tcc.sizes = ["s0", "s1"]}, %i: tensor<?xi64> {tcc.sizes = ["s2"]}, %s: tensor<?x?xf32> {tcc.sizes = ["s3", "s2"]}) -> tensor<?x?xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.index_add.default"(%x, %i, %s) {operand_names = ["self", "index", "source"], args = {dim = 1 : i64}} : (tensor<?x?xf32>, tensor<?xi64>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// put over a symbolic self: flattened by its element count, written, and
// reshaped back to self's sizes; index and source counts checked alike.
// CHECK-LABEL: func @put_symbolic
// CHECK: tcc_graph.reshape %arg0 : (tensor<?x?xf32>) -> tensor<?xf32>
// CHECK: tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "eq"}
// CHECK: %[[R:.*]] = tcc_graph.reshape %{{.*}} sizes(%{{.*}}, %{{.*}}) : (tensor<?xf32>) -> tensor<?x?xf32>
// CHECK: %[[C:.*]] = tcc_graph.check %{{.*}}, %[[R]] "aten.put.default: source and index must have as many elements"
// CHECK: return %[[C]]
func.func @put_symbolic(%x: tensor<?x?xf32>, %i: tensor<?xi64>, %s: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.put.default"(%x, %i, %s) {operand_names = ["self", "index", "source"], args = {accumulate = true}} : (tensor<?x?xf32>, tensor<?xi64>, tensor<?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// max_unpool2d over a symbolic batch and width: the planes and their
// elements are the sizes' products read at run time, the output plane's
// from the export's expressions; indices of the values' sizes (one symbol
// each) are neither fitted nor checked.
// CHECK-LABEL: func @max_unpool_symbolic
// CHECK: %[[V:.*]] = tcc_graph.reshape %arg0 sizes(%{{.*}}, %{{.*}}) : (tensor<?x2x2x?xf32>) -> tensor<?x?xf32>
// CHECK: %[[I:.*]] = tcc_graph.reshape %arg1 sizes(%{{.*}}, %{{.*}}) : (tensor<?x2x2x?xi64>) -> tensor<?x?xi64>
// CHECK: %[[Z:.*]] = tcc_graph.broadcast %{{.*}} sizes(%{{.*}}, %{{.*}}) : (tensor<f32>) -> tensor<?x?xf32>
// CHECK: tcc_graph.iota sizes(%{{.*}}) {{.*}} : tensor<?xi64>
// CHECK: %[[R:.*]] = tcc_graph.select %{{.*}}, %{{.*}}, %[[Z]] :
// CHECK: %[[OUT:.*]] = tcc_graph.reshape %[[R]] sizes(%{{.*}}, %{{.*}}) : (tensor<?x?xf32>) -> tensor<?x2x4x?xf32>
// CHECK-NOT: tcc_graph.check
// CHECK: return %[[OUT]]
func.func @max_unpool_symbolic(%x: tensor<?x2x2x?xf32> {tcc.sizes = ["s0", 2, 2, "s1"]}, %i: tensor<?x2x2x?xi64> {tcc.sizes = ["s0", 2, 2, "s1"]}) -> tensor<?x2x4x?xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.max_unpool2d.default"(%x, %i) {operand_names = ["self", "indices"], args = {output_size = [4, "2*s1"]}, tcc.symbolic_args = ["output_size"], tcc.sizes = [["s0", 2, 4, "2*s1"]]} : (tensor<?x2x2x?xf32>, tensor<?x2x2x?xi64>) -> tensor<?x2x4x?xf32>
  return %0 : tensor<?x2x4x?xf32>
}
