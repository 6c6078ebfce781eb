// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics | FileCheck %s

// argmax: the first position of the maximum, as -max(-position where x is
// maximal, or NaN: PyTorch ranks NaN highest) in f32; argmin with dim=None flattens and negates x; amin = -amax(-x).
// CHECK-LABEL: func @argmax
// CHECK: %[[M:.*]] = tcc_graph.reduce_max %arg0 {dims = array<i64: 1>, keepdim = true}
// CHECK: %[[EQ0:.*]] = tcc_graph.compare %arg0, %[[M]] {predicate = "eq"}
// CHECK: %[[NAN:.*]] = tcc_graph.compare %arg0, %arg0 {predicate = "ne"}
// CHECK: %[[EQ:.*]] = tcc_graph.bitwise_or %[[EQ0]], %[[NAN]]
// CHECK: %[[P:.*]] = tcc_graph.iota {start = 0.000000e+00 : f64, step = -1.000000e+00 : f64} : tensor<5xf32>
// CHECK: %[[PR:.*]] = tcc_graph.reshape %[[P]] : (tensor<5xf32>) -> tensor<1x5xf32>
// CHECK: %[[FAR:.*]] = tcc_graph.constant dense<-5.000000e+00> : tensor<f32>
// CHECK: %[[S:.*]] = tcc_graph.select %[[EQ]], %[[PR]], %[[FAR]]
// CHECK: %[[R:.*]] = tcc_graph.reduce_max %[[S]] {dims = array<i64: 1>, keepdim = true}
// CHECK: %[[N:.*]] = tcc_graph.neg %[[R]]
// CHECK: tcc_graph.cast %[[N]] : (tensor<3x1xf32>) -> tensor<3x1xi64>
// CHECK: %[[F:.*]] = tcc_graph.reshape %arg0 : (tensor<3x5xf32>) -> tensor<15xf32>
// CHECK: tcc_graph.neg %[[F]]
// CHECK: tcc_graph.cast %{{.*}} : (tensor<f32>) -> tensor<i64>
// CHECK: %[[NX:.*]] = tcc_graph.neg %arg0
// CHECK: %[[MX:.*]] = tcc_graph.reduce_max %[[NX]] {dims = array<i64: 1>, keepdim = false}
// CHECK: tcc_graph.neg %[[MX]] : tensor<3xf32>
// CHECK-NOT: tcc_graph.operator
func.func @argmax(%x: tensor<3x5xf32>) -> (tensor<3x1xi64>, tensor<i64>, tensor<3xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.argmax.default"(%x) {operand_names = ["self"], args = {dim = 1 : i64, keepdim = true}} : (tensor<3x5xf32>) -> tensor<3x1xi64>
  %1 = tcc_graph.operator "torch.ops.aten.argmin.default"(%x) {operand_names = ["self"], args = {keepdim = false}} : (tensor<3x5xf32>) -> tensor<i64>
  %2 = tcc_graph.operator "torch.ops.aten.amin.default"(%x) {operand_names = ["self"], args = {dim = array<i64: -1>, keepdim = false}} : (tensor<3x5xf32>) -> tensor<3xf32>
  return %0, %1, %2 : tensor<3x1xi64>, tensor<i64>, tensor<3xf32>
}

// -----

// argmax of a 0-d tensor along dim 0 (keepdim or not): its one element, index 0-d.
// CHECK-LABEL: func @argmax_scalar
// CHECK: tcc_graph.reshape %arg0 : (tensor<f32>) -> tensor<1xf32>
// CHECK: tcc_graph.cast %{{.*}} : (tensor<1xf32>) -> tensor<1xi64>
// CHECK: tcc_graph.reshape %{{.*}} : (tensor<1xi64>) -> tensor<i64>
func.func @argmax_scalar(%x: tensor<f32>) -> tensor<i64> {
  %0 = tcc_graph.operator "torch.ops.aten.argmax.default"(%x) {operand_names = ["self"], args = {dim = 0 : i64, keepdim = true}} : (tensor<f32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// var = sum((x - mean)^2) / (N - correction); std = sqrt(var); var_mean
// also returns the mean (correction=None is 1).
// CHECK-LABEL: func @var_std
// CHECK: tcc_graph.reduce_sum %{{.*}} {dims = array<i64: 1>, keepdim = false}
// CHECK: tcc_graph.constant dense<5.000000e+00> : tensor<f32>
// CHECK: tcc_graph.reduce_sum %{{.*}} {dims = array<i64: 1>, keepdim = true}
// CHECK: tcc_graph.constant dense<4.000000e+00> : tensor<f32>
// CHECK: tcc_graph.sqrt %{{.*}} : tensor<3x1xf32>
// CHECK: %[[MEAN:.*]] = tcc_graph.reduce_mean %arg0 {dims = array<i64: 1>, keepdim = true}
// CHECK: tcc_graph.constant dense<4.000000e+00> : tensor<f32>
// CHECK: %[[VAR:.*]] = tcc_graph.div
// CHECK: %[[M:.*]] = tcc_graph.reshape %[[MEAN]] : (tensor<3x1xf32>) -> tensor<3xf32>
// CHECK: return %{{.*}}, %{{.*}}, %[[VAR]], %[[M]]
func.func @var_std(%x: tensor<3x5xf32>) -> (tensor<3xf32>, tensor<3x1xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.var.correction"(%x) {operand_names = ["self"], args = {dim = array<i64: 1>, correction = 0 : i64, keepdim = false}} : (tensor<3x5xf32>) -> tensor<3xf32>
  %1 = tcc_graph.operator "torch.ops.aten.std.dim"(%x) {operand_names = ["self"], args = {dim = array<i64: 1>, unbiased = true, keepdim = true}} : (tensor<3x5xf32>) -> tensor<3x1xf32>
  %2:2 = tcc_graph.operator "torch.ops.aten.var_mean.correction"(%x) {operand_names = ["self"], args = {dim = array<i64: 1>, keepdim = false}} : (tensor<3x5xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %0, %1, %2#0, %2#1 : tensor<3xf32>, tensor<3x1xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// var/std are two passes, the mean first: c = x - mean, then
// (sum(c^2) - sum(c)^2 / N) / (N - correction), the second term taking out
// the mean's own rounding error, at least 0. f16 (or bf16) inputs are
// widened to f32 once, std's root is taken in f32 too, and each result is
// rounded to f16 once (as PyTorch's).
// CHECK-LABEL: func @var_std_f16
// CHECK: %[[X:.*]] = tcc_graph.cast %arg0 : (tensor<3x5xf16>) -> tensor<3x5xf32>
// CHECK: %[[MEAN:.*]] = tcc_graph.reduce_mean %[[X]] {dims = array<i64: 1>, keepdim = true} : (tensor<3x5xf32>) -> tensor<3x1xf32>
// CHECK: %[[C:.*]] = tcc_graph.sub %[[X]], %[[MEAN]] : (tensor<3x5xf32>, tensor<3x1xf32>) -> tensor<3x5xf32>
// CHECK: %[[SQ:.*]] = tcc_graph.mul %[[C]], %[[C]] : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
// CHECK: %[[S2:.*]] = tcc_graph.reduce_sum %[[SQ]] {dims = array<i64: 1>, keepdim = false} : (tensor<3x5xf32>) -> tensor<3xf32>
// CHECK: %[[S1:.*]] = tcc_graph.reduce_sum %[[C]] {dims = array<i64: 1>, keepdim = false} : (tensor<3x5xf32>) -> tensor<3xf32>
// CHECK: %[[S1SQ:.*]] = tcc_graph.mul %[[S1]], %[[S1]]
// CHECK: %[[N:.*]] = tcc_graph.constant dense<5.000000e+00> : tensor<f32>
// CHECK: %[[ERR:.*]] = tcc_graph.div %[[S1SQ]], %[[N]]
// CHECK: %[[SPREAD:.*]] = tcc_graph.sub %[[S2]], %[[ERR]]
// CHECK: %[[ZERO:.*]] = tcc_graph.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[POS:.*]] = tcc_graph.maximum %[[SPREAD]], %[[ZERO]]
// CHECK: %[[DOF:.*]] = tcc_graph.constant dense<4.000000e+00> : tensor<f32>
// CHECK: %[[VAR:.*]] = tcc_graph.div %[[POS]], %[[DOF]] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK: %[[M:.*]] = tcc_graph.reshape %[[MEAN]] : (tensor<3x1xf32>) -> tensor<3xf32>
// CHECK: %[[STD:.*]] = tcc_graph.sqrt %[[VAR]] : tensor<3xf32>
// CHECK: %[[OUT:.*]] = tcc_graph.cast %[[STD]] : (tensor<3xf32>) -> tensor<3xf16>
// CHECK: %[[MOUT:.*]] = tcc_graph.cast %[[M]] : (tensor<3xf32>) -> tensor<3xf16>
// CHECK: return %[[OUT]], %[[MOUT]]
func.func @var_std_f16(%x: tensor<3x5xf16>) -> (tensor<3xf16>, tensor<3xf16>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.std_mean.correction"(%x) {operand_names = ["self"], args = {dim = array<i64: 1>, correction = 1 : i64, keepdim = false}} : (tensor<3x5xf16>) -> (tensor<3xf16>, tensor<3xf16>)
  return %0#0, %0#1 : tensor<3xf16>, tensor<3xf16>
}

// -----

// unbind: one slice + reshape per index; baddbmm = beta * self + alpha * bmm.
// CHECK-LABEL: func @unbind_baddbmm
// CHECK: tcc_graph.slice %arg0 {dim = 0 : i64, end = 1 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: tcc_graph.slice %arg0 {dim = 0 : i64, end = 2 : i64, start = 1 : i64, step = 1 : i64}
// CHECK: %[[MM:.*]] = tcc_graph.matmul %arg2, %arg3
// CHECK: %[[A:.*]] = tcc_graph.mul %[[MM]], %{{.*}}
// CHECK: %[[B:.*]] = tcc_graph.mul %arg1, %{{.*}}
// CHECK: tcc_graph.add %[[B]], %[[A]]
func.func @unbind_baddbmm(%x: tensor<2x3xf32>, %s: tensor<2x4x6xf32>, %a: tensor<2x4x5xf32>, %b: tensor<2x5x6xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<2x4x6xf32>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.unbind.int"(%x) {operand_names = ["self"], args = {dim = 0 : i64}} : (tensor<2x3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  %1 = tcc_graph.operator "torch.ops.aten.baddbmm.default"(%s, %a, %b) {operand_names = ["self", "batch1", "batch2"], args = {beta = 0.5 : f64, alpha = 2.0 : f64}} : (tensor<2x4x6xf32>, tensor<2x4x5xf32>, tensor<2x5x6xf32>) -> tensor<2x4x6xf32>
  return %0#0, %0#1, %1 : tensor<3xf32>, tensor<3xf32>, tensor<2x4x6xf32>
}

// -----

// bf16 baddbmm with scales, and addbmm: the product, scales and sum in f32,
// rounded once (PyTorch's kernels scale and add in f32); a bf16 addmm
// without scales keeps its bf16 product for the tensor cores.
// CHECK-LABEL: func @scaled_products_bf16
// CHECK: %[[A:.*]] = tcc_graph.cast %arg1 : (tensor<2x4x5xbf16>) -> tensor<2x4x5xf32>
// CHECK: %[[B:.*]] = tcc_graph.cast %arg2 : (tensor<2x5x6xbf16>) -> tensor<2x5x6xf32>
// CHECK: %[[MM:.*]] = tcc_graph.matmul %[[A]], %[[B]] : (tensor<2x4x5xf32>, tensor<2x5x6xf32>) -> tensor<2x4x6xf32>
// CHECK: %[[S:.*]] = tcc_graph.cast %arg0 : (tensor<2x4x6xbf16>) -> tensor<2x4x6xf32>
// CHECK: %[[SUM:.*]] = tcc_graph.add
// CHECK: tcc_graph.cast %[[SUM]] : (tensor<2x4x6xf32>) -> tensor<2x4x6xbf16>
// CHECK: tcc_graph.matmul %{{.*}}, %{{.*}} : (tensor<2x4x5xf32>, tensor<2x5x6xf32>) -> tensor<2x4x6xf32>
// CHECK: tcc_graph.reduce_sum
// CHECK: tcc_graph.cast %{{.*}} : (tensor<4x6xf32>) -> tensor<4x6xbf16>
// CHECK: tcc_graph.matmul %arg4, %arg5 : (tensor<4x5xbf16>, tensor<5x6xbf16>) -> tensor<4x6xbf16>
// A bf16 baddbmm without scales still adds self in f32 (PyTorch rounds
// once; the batched product would round first); with beta = 0 there is
// nothing to add and the product stays bf16.
// CHECK: tcc_graph.matmul %{{.*}}, %{{.*}} : (tensor<2x4x5xf32>, tensor<2x5x6xf32>) -> tensor<2x4x6xf32>
// CHECK: %[[USUM:.*]] = tcc_graph.add
// CHECK: tcc_graph.cast %[[USUM]] : (tensor<2x4x6xf32>) -> tensor<2x4x6xbf16>
// CHECK: tcc_graph.matmul %arg1, %arg2 : (tensor<2x4x5xbf16>, tensor<2x5x6xbf16>) -> tensor<2x4x6xbf16>
func.func @scaled_products_bf16(%s: tensor<2x4x6xbf16>, %a: tensor<2x4x5xbf16>, %b: tensor<2x5x6xbf16>, %s2: tensor<4x6xbf16>, %m1: tensor<4x5xbf16>, %m2: tensor<5x6xbf16>) -> (tensor<2x4x6xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<2x4x6xbf16>, tensor<2x4x6xbf16>) {
  %0 = tcc_graph.operator "torch.ops.aten.baddbmm.default"(%s, %a, %b) {operand_names = ["self", "batch1", "batch2"], args = {beta = 0.5 : f64, alpha = 2.0 : f64}} : (tensor<2x4x6xbf16>, tensor<2x4x5xbf16>, tensor<2x5x6xbf16>) -> tensor<2x4x6xbf16>
  %1 = tcc_graph.operator "torch.ops.aten.addbmm.default"(%s2, %a, %b) {operand_names = ["self", "batch1", "batch2"], args = {}} : (tensor<4x6xbf16>, tensor<2x4x5xbf16>, tensor<2x5x6xbf16>) -> tensor<4x6xbf16>
  %2 = tcc_graph.operator "torch.ops.aten.addmm.default"(%s2, %m1, %m2) {operand_names = ["self", "mat1", "mat2"], args = {}} : (tensor<4x6xbf16>, tensor<4x5xbf16>, tensor<5x6xbf16>) -> tensor<4x6xbf16>
  %3 = tcc_graph.operator "torch.ops.aten.baddbmm.default"(%s, %a, %b) {operand_names = ["self", "batch1", "batch2"], args = {}} : (tensor<2x4x6xbf16>, tensor<2x4x5xbf16>, tensor<2x5x6xbf16>) -> tensor<2x4x6xbf16>
  %4 = tcc_graph.operator "torch.ops.aten.baddbmm.default"(%s, %a, %b) {operand_names = ["self", "batch1", "batch2"], args = {beta = 0.0 : f64}} : (tensor<2x4x6xbf16>, tensor<2x4x5xbf16>, tensor<2x5x6xbf16>) -> tensor<2x4x6xbf16>
  return %0, %1, %2, %3, %4 : tensor<2x4x6xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<2x4x6xbf16>, tensor<2x4x6xbf16>
}

// -----

// rms_norm with eps=None uses f32's epsilon; native_group_norm views the
// input as (N, G, -1), applies weight/bias per channel and returns mean/rstd.
// CHECK-LABEL: func @norms
// CHECK: tcc_graph.rms_norm %arg0, %arg1 {eps = 1.1920928955078125E-7 : f64, num_dims = 1 : i64} : (tensor<2x4x3xf32>, tensor<3xf32>) -> tensor<2x4x3xf32>
// CHECK: %[[G:.*]] = tcc_graph.reshape %arg0 : (tensor<2x4x3xf32>) -> tensor<2x2x6xf32>
// CHECK: %[[MEAN:.*]] = tcc_graph.reduce_mean %[[G]] {dims = array<i64: 2>, keepdim = true}
// CHECK: %[[RSTD:.*]] = tcc_graph.rsqrt
// CHECK: tcc_graph.reshape %arg2 : (tensor<4xf32>) -> tensor<4x1xf32>
// CHECK: tcc_graph.reshape %arg3 : (tensor<4xf32>) -> tensor<4x1xf32>
// CHECK: tcc_graph.reshape %[[MEAN]] : (tensor<2x2x1xf32>) -> tensor<2x2xf32>
// CHECK: tcc_graph.reshape %[[RSTD]] : (tensor<2x2x1xf32>) -> tensor<2x2xf32>
func.func @norms(%x: tensor<2x4x3xf32>, %w: tensor<3xf32>, %gw: tensor<4xf32>, %gb: tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.rms_norm.default"(%x, %w) {operand_names = ["input", "weight"], args = {normalized_shape = array<i64: 3>}} : (tensor<2x4x3xf32>, tensor<3xf32>) -> tensor<2x4x3xf32>
  %1:3 = tcc_graph.operator "torch.ops.aten.native_group_norm.default"(%x, %gw, %gb) {operand_names = ["input", "weight", "bias"], args = {N = 2 : i64, C = 4 : i64, HxW = 3 : i64, group = 2 : i64, eps = 1.0e-5 : f64}} : (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  return %0, %1#0, %1#1, %1#2 : tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// pixel_shuffle: (N, C*r*r, H, W) -> (N, C, r, r, H, W) -> (N, C, H, r, W, r).
// CHECK-LABEL: func @pixel_shuffle
// CHECK: tcc_graph.reshape %arg0 : (tensor<1x8x2x3xf32>) -> tensor<1x2x2x2x2x3xf32>
// CHECK: tcc_graph.transpose %{{.*}} {permutation = array<i64: 0, 1, 4, 2, 5, 3>}
// CHECK: tcc_graph.reshape %{{.*}} : (tensor<1x2x2x2x3x2xf32>) -> tensor<1x2x4x6xf32>
func.func @pixel_shuffle(%x: tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.pixel_shuffle.default"(%x) {operand_names = ["self"], args = {upscale_factor = 2 : i64}} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  return %0 : tensor<1x2x4x6xf32>
}

// -----

// linalg_vector_norm, ord 2 over the last dim, kept: sqrt(sum(x·x)).
// CHECK-LABEL: func @vector_norm
// CHECK: %[[SQ:.*]] = tcc_graph.mul %arg0, %arg0
// CHECK: %[[S:.*]] = tcc_graph.reduce_sum %[[SQ]] {dims = array<i64: 1>, keepdim = true}
// CHECK: tcc_graph.sqrt %[[S]]
func.func @vector_norm(%x: tensor<2x4xf32>) -> tensor<2x1xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.linalg_vector_norm.default"(%x) {operand_names = ["self"], args = {ord = 2.0 : f64, dim = array<i64: -1>, keepdim = true}} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// _weight_norm(v, g, dim=0): v · g / ‖v‖ over the other dims (kept).
// CHECK-LABEL: func @weight_norm
// CHECK: %[[S:.*]] = tcc_graph.reduce_sum %{{.*}} {dims = array<i64: 1, 2>, keepdim = true} : (tensor<6x4x3xf32>) -> tensor<6x1x1xf32>
// CHECK: %[[N:.*]] = tcc_graph.sqrt %[[S]]
// CHECK: %[[Q:.*]] = tcc_graph.div %arg1, %[[N]]
// CHECK: tcc_graph.mul %arg0, %[[Q]]
func.func @weight_norm(%v: tensor<6x4x3xf32>, %g: tensor<6x1x1xf32>) -> tensor<6x4x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten._weight_norm.default"(%v, %g) {operand_names = ["v", "g"], args = {dim = 0}} : (tensor<6x4x3xf32>, tensor<6x1x1xf32>) -> tensor<6x4x3xf32>
  return %0 : tensor<6x4x3xf32>
}

// -----

// max.dim / min.dim: the extremum (min as -max(-x)) and argmax/argmin's index;
// prod is reduce_prod; sum with a dtype converts x first.
// CHECK-LABEL: func @max_dim_prod
// CHECK: %[[I:.*]] = tcc_graph.cast %{{.*}} : (tensor<3xf32>) -> tensor<3xi64>
// CHECK: %[[V:.*]] = tcc_graph.reduce_max %arg0 {dims = array<i64: 1>, keepdim = false} : (tensor<3x5xf32>) -> tensor<3xf32>
// CHECK: %[[P:.*]] = tcc_graph.reduce_prod %arg0 {dims = array<i64: 0>, keepdim = false} : (tensor<3x5xf32>) -> tensor<5xf32>
// CHECK: %[[W:.*]] = tcc_graph.cast %arg0 : (tensor<3x5xf32>) -> tensor<3x5xf64>
// CHECK: %[[S:.*]] = tcc_graph.reduce_sum %[[W]] {dims = array<i64: 0, 1>, keepdim = false} : (tensor<3x5xf64>) -> tensor<f64>
// CHECK: return %[[V]], %[[I]], %{{.*}}, %{{.*}}, %[[P]], %[[S]]
func.func @max_dim_prod(%x: tensor<3x5xf32>) -> (tensor<3xf32>, tensor<3xi64>, tensor<3x1xf32>, tensor<3x1xi64>, tensor<5xf32>, tensor<f64>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.max.dim"(%x) {operand_names = ["self"], args = {dim = 1 : i64, keepdim = false}} : (tensor<3x5xf32>) -> (tensor<3xf32>, tensor<3xi64>)
  %1:2 = tcc_graph.operator "torch.ops.aten.min.dim"(%x) {operand_names = ["self"], args = {dim = -1 : i64, keepdim = true}} : (tensor<3x5xf32>) -> (tensor<3x1xf32>, tensor<3x1xi64>)
  %2 = tcc_graph.operator "torch.ops.aten.prod.dim_int"(%x) {operand_names = ["self"], args = {dim = 0 : i64, keepdim = false}} : (tensor<3x5xf32>) -> tensor<5xf32>
  %3 = tcc_graph.operator "torch.ops.aten.sum.default"(%x) {operand_names = ["self"], args = {dtype = 7 : i64}} : (tensor<3x5xf32>) -> tensor<f64>
  return %0#0, %0#1, %1#0, %1#1, %2, %3 : tensor<3xf32>, tensor<3xi64>, tensor<3x1xf32>, tensor<3x1xi64>, tensor<5xf32>, tensor<f64>
}

// -----

// nansum reads NaN as 0; nanmean divides by the count of the other elements.
// CHECK-LABEL: func @nan_reductions
// CHECK: %[[Z:.*]] = tcc_graph.constant dense<0.000000e+00>
// CHECK: %[[NAN:.*]] = tcc_graph.compare %arg0, %arg0 {predicate = "ne"}
// CHECK: %[[K:.*]] = tcc_graph.select %[[NAN]], %[[Z]], %arg0
// CHECK: %[[SUM:.*]] = tcc_graph.reduce_sum %[[K]] {dims = array<i64: 0, 1>, keepdim = false}
// CHECK: %[[Z2:.*]] = tcc_graph.constant dense<0.000000e+00>
// CHECK: %[[NAN2:.*]] = tcc_graph.compare %arg0, %arg0 {predicate = "ne"}
// CHECK: %[[K2:.*]] = tcc_graph.select %[[NAN2]], %[[Z2]], %arg0
// CHECK: %[[S2:.*]] = tcc_graph.reduce_sum %[[K2]] {dims = array<i64: 1>, keepdim = true}
// CHECK: %[[ONE:.*]] = tcc_graph.constant dense<1.000000e+00>
// CHECK: %[[C:.*]] = tcc_graph.select %[[NAN2]], %[[Z2]], %[[ONE]] : (tensor<3x4xi1>, tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
// CHECK: %[[N:.*]] = tcc_graph.reduce_sum %[[C]] {dims = array<i64: 1>, keepdim = true}
// CHECK: %[[MEAN:.*]] = tcc_graph.div %[[S2]], %[[N]]
// CHECK: return %[[SUM]], %[[MEAN]]
func.func @nan_reductions(%x: tensor<3x4xf32>) -> (tensor<f32>, tensor<3x1xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.nansum.default"(%x) {operand_names = ["self"], args = {}} : (tensor<3x4xf32>) -> tensor<f32>
  %1 = tcc_graph.operator "torch.ops.aten.nanmean.default"(%x) {operand_names = ["self"], args = {dim = array<i64: 1>, keepdim = true}} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  return %0, %1 : tensor<f32>, tensor<3x1xf32>
}

// -----

// trapezoid with sample points (a 1-D x laid along dim): sum(dx (y[1:] +
// y[:-1])) / 2; with a spacing: (sum(y) - (y[0] + y[-1]) / 2) dx.
// CHECK-LABEL: func @trapezoid
// CHECK: %[[X:.*]] = tcc_graph.reshape %arg1 : (tensor<3xf32>) -> tensor<1x3xf32>
// CHECK: %[[XR:.*]] = tcc_graph.slice %[[X]] {dim = 1 : i64, end = 3 : i64, start = 1 : i64, step = 1 : i64}
// CHECK: %[[XL:.*]] = tcc_graph.slice %[[X]] {dim = 1 : i64, end = 2 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[DX:.*]] = tcc_graph.sub %[[XR]], %[[XL]]
// CHECK: %[[YR:.*]] = tcc_graph.slice %arg0 {dim = 1 : i64, end = 3 : i64, start = 1 : i64, step = 1 : i64}
// CHECK: %[[YL:.*]] = tcc_graph.slice %arg0 {dim = 1 : i64, end = 2 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[PAIRS:.*]] = tcc_graph.add %[[YR]], %[[YL]]
// CHECK: %[[AREA:.*]] = tcc_graph.mul %[[DX]], %[[PAIRS]] : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK: %[[S:.*]] = tcc_graph.reduce_sum %[[AREA]] {dims = array<i64: 1>, keepdim = false}
// CHECK: %[[T:.*]] = tcc_graph.div %[[S]], %{{.*}}
// CHECK: %[[SUM:.*]] = tcc_graph.reduce_sum %arg0 {dims = array<i64: 0>, keepdim = false}
// CHECK: %[[FIRST:.*]] = tcc_graph.slice %arg0 {dim = 0 : i64, end = 1 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[LAST:.*]] = tcc_graph.slice %arg0 {dim = 0 : i64, end = 2 : i64, start = 1 : i64, step = 1 : i64}
// CHECK: %[[ENDS:.*]] = tcc_graph.add %[[FIRST]], %[[LAST]]
// CHECK: %[[E:.*]] = tcc_graph.reshape %[[ENDS]] : (tensor<1x3xf32>) -> tensor<3xf32>
// CHECK: %[[HALF:.*]] = tcc_graph.mul %[[E]], %{{.*}}
// CHECK: %[[IN:.*]] = tcc_graph.sub %[[SUM]], %[[HALF]]
// CHECK: %[[TDX:.*]] = tcc_graph.mul %[[IN]], %{{.*}}
// CHECK: return %[[T]], %[[TDX]]
func.func @trapezoid(%y: tensor<2x3xf32>, %x: tensor<3xf32>) -> (tensor<2xf32>, tensor<3xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.trapezoid.x"(%y, %x) {operand_names = ["y", "x"], args = {dim = -1 : i64}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  %1 = tcc_graph.operator "torch.ops.aten.trapz.dx"(%y) {operand_names = ["y"], args = {dx = 5.000000e-01 : f64, dim = 0 : i64}} : (tensor<2x3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<2xf32>, tensor<3xf32>
}

// -----

// _safe_softmax: 0 in rows whose maximum is -inf (all -inf).
// CHECK-LABEL: func @safe_softmax
// CHECK: %[[S:.*]] = tcc_graph.softmax %arg0 {dim = 1 : i64}
// CHECK: %[[M:.*]] = tcc_graph.reduce_max %arg0 {dims = array<i64: 1>, keepdim = true}
// CHECK: %[[NINF:.*]] = tcc_graph.constant dense<0xFF800000>
// CHECK: %[[ALL:.*]] = tcc_graph.compare %[[M]], %[[NINF]] {predicate = "eq"}
// CHECK: tcc_graph.select %[[ALL]], %{{.*}}, %[[S]] : (tensor<3x1xi1>, tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xf32>
func.func @safe_softmax(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten._safe_softmax.default"(%x) {operand_names = ["self"], args = {dim = 1 : i64}} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// native_layer_norm's mean and rstd, when read: over the normalized dims,
// kept, the variance biased.
// CHECK-LABEL: func @layer_norm_stats
// CHECK: %[[Y:.*]] = tcc_graph.layer_norm %arg0 {eps = 1.000000e-05 : f64, num_dims = 2 : i64}
// CHECK: %[[MEAN:.*]] = tcc_graph.reduce_mean %arg0 {dims = array<i64: 1, 2>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
// CHECK: %[[C:.*]] = tcc_graph.sub %arg0, %[[MEAN]]
// CHECK: %[[SQ:.*]] = tcc_graph.mul %[[C]], %[[C]]
// CHECK: %[[VAR:.*]] = tcc_graph.reduce_mean %[[SQ]] {dims = array<i64: 1, 2>, keepdim = true}
// CHECK: %[[VE:.*]] = tcc_graph.add %[[VAR]], %{{.*}}
// CHECK: %[[RSTD:.*]] = tcc_graph.rsqrt %[[VE]]
// CHECK: return %[[Y]], %[[MEAN]], %[[RSTD]]
func.func @layer_norm_stats(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>) {
  %0:3 = tcc_graph.operator "torch.ops.aten.native_layer_norm.default"(%x) {operand_names = ["input"], args = {normalized_shape = array<i64: 3, 4>, eps = 1.000000e-05 : f64}} : (tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>
}

// -----

// instance_norm with input statistics: a group norm of one group per channel.
// CHECK-LABEL: func @instance_norm
// CHECK: %[[MEAN:.*]] = tcc_graph.reduce_mean %arg0 {dims = array<i64: 2>, keepdim = true} : (tensor<2x3x5xf32>) -> tensor<2x3x1xf32>
// CHECK: %[[C:.*]] = tcc_graph.sub %arg0, %[[MEAN]]
// CHECK: %[[R:.*]] = tcc_graph.rsqrt
// CHECK: %[[N:.*]] = tcc_graph.mul %[[C]], %[[R]]
// CHECK: %[[W:.*]] = tcc_graph.reshape %arg1 : (tensor<3xf32>) -> tensor<3x1xf32>
// CHECK: tcc_graph.mul %[[N]], %[[W]]
func.func @instance_norm(%x: tensor<2x3x5xf32>, %w: tensor<3xf32>) -> tensor<2x3x5xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.instance_norm.default"(%x, %w) {operand_names = ["input", "weight"], args = {use_input_stats = true, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64, cudnn_enabled = false}} : (tensor<2x3x5xf32>, tensor<3xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// cosine_similarity: both sides broadcast, each divided by its norm clamped
// to eps, then the products summed over dim.
// CHECK-LABEL: func @cosine_similarity
// CHECK: %[[A:.*]] = tcc_graph.broadcast %arg0 : (tensor<2x1x3xf32>) -> tensor<2x4x3xf32>
// CHECK: %[[NA:.*]] = tcc_graph.sqrt
// CHECK: %[[EPS:.*]] = tcc_graph.constant dense<9.99999993E-9>
// CHECK: %[[CA:.*]] = tcc_graph.maximum %[[NA]], %[[EPS]]
// CHECK: %[[UA:.*]] = tcc_graph.div %[[A]], %[[CA]]
// CHECK: %[[B:.*]] = tcc_graph.broadcast %arg1 : (tensor<1x4x3xf32>) -> tensor<2x4x3xf32>
// CHECK: %[[UB:.*]] = tcc_graph.div %[[B]], %{{.*}}
// CHECK: %[[P:.*]] = tcc_graph.mul %[[UA]], %[[UB]]
// CHECK: tcc_graph.reduce_sum %[[P]] {dims = array<i64: 2>, keepdim = false} : (tensor<2x4x3xf32>) -> tensor<2x4xf32>
func.func @cosine_similarity(%a: tensor<2x1x3xf32>, %b: tensor<1x4x3xf32>) -> tensor<2x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.cosine_similarity.default"(%a, %b) {operand_names = ["x1", "x2"], args = {dim = -1 : i64}} : (tensor<2x1x3xf32>, tensor<1x4x3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// count_nonzero counts in f64 and gives int64; dist is the p-norm of the
// difference over every element.
// CHECK-LABEL: func @count_dist
// CHECK: %[[NZ:.*]] = tcc_graph.compare %arg0, %{{.*}} {predicate = "ne"}
// CHECK: %[[F:.*]] = tcc_graph.cast %[[NZ]] : (tensor<3x4xi1>) -> tensor<3x4xf64>
// CHECK: %[[N:.*]] = tcc_graph.reduce_sum %[[F]] {dims = array<i64: 1>, keepdim = false}
// CHECK: %[[COUNT:.*]] = tcc_graph.cast %[[N]] : (tensor<3xf64>) -> tensor<3xi64>
// CHECK: %[[D:.*]] = tcc_graph.sub %arg0, %arg1
// CHECK: %[[A:.*]] = tcc_graph.abs %[[D]]
// CHECK: %[[DIST:.*]] = tcc_graph.reduce_sum %[[A]] {dims = array<i64: 0, 1>, keepdim = false} : (tensor<3x4xf32>) -> tensor<f32>
// CHECK: return %[[COUNT]], %[[DIST]]
func.func @count_dist(%x: tensor<3x4xf32>, %y: tensor<4xf32>) -> (tensor<3xi64>, tensor<f32>) {
  %0 = tcc_graph.operator "torch.ops.aten.count_nonzero.dim_IntList"(%x) {operand_names = ["self"], args = {dim = array<i64: 1>}} : (tensor<3x4xf32>) -> tensor<3xi64>
  %1 = tcc_graph.operator "torch.ops.aten.dist.default"(%x, %y) {operand_names = ["self", "other"], args = {p = 1.000000e+00 : f64}} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0, %1 : tensor<3xi64>, tensor<f32>
}

// -----

// Matrix products with rank-1 operands: a vector lhs is a row, a vector rhs a
// column, whose unit dim leaves the result (matmul, dot); outer multiplies a
// column by a row; addmv with beta 0 ignores self (its NaNs too).
// CHECK-LABEL: func @vector_products
// CHECK: %[[COL:.*]] = tcc_graph.reshape %arg1 : (tensor<4xf32>) -> tensor<4x1xf32>
// CHECK: %[[MV:.*]] = tcc_graph.matmul %arg0, %[[COL]] : (tensor<3x4xf32>, tensor<4x1xf32>) -> tensor<3x1xf32>
// CHECK: %[[R0:.*]] = tcc_graph.reshape %[[MV]] : (tensor<3x1xf32>) -> tensor<3xf32>
// CHECK: %[[ROW:.*]] = tcc_graph.reshape %arg2 : (tensor<3xf32>) -> tensor<1x3xf32>
// CHECK: %[[VM:.*]] = tcc_graph.matmul %[[ROW]], %arg0 : (tensor<1x3xf32>, tensor<3x4xf32>) -> tensor<1x4xf32>
// CHECK: %[[R1:.*]] = tcc_graph.reshape %[[VM]] : (tensor<1x4xf32>) -> tensor<4xf32>
// CHECK: %[[DOT:.*]] = tcc_graph.matmul %{{.*}}, %{{.*}} : (tensor<1x4xf32>, tensor<4x1xf32>) -> tensor<1x1xf32>
// CHECK: %[[R2:.*]] = tcc_graph.reshape %[[DOT]] : (tensor<1x1xf32>) -> tensor<f32>
// CHECK: %[[R3:.*]] = tcc_graph.mul %{{.*}}, %{{.*}} : (tensor<3x1xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
// CHECK: tcc_graph.matmul %arg0
// CHECK: %[[P:.*]] = tcc_graph.reshape %{{.*}} : (tensor<3x1xf32>) -> tensor<3xf32>
// CHECK-NOT: %arg3
// CHECK: %[[R4:.*]] = tcc_graph.mul %[[P]], %{{.*}} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]]
func.func @vector_products(%m: tensor<3x4xf32>, %v: tensor<4xf32>, %w: tensor<3xf32>, %s: tensor<3xf32>) -> (tensor<3xf32>, tensor<4xf32>, tensor<f32>, tensor<3x4xf32>, tensor<3xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.matmul.default"(%m, %v) {operand_names = ["self", "other"], args = {}} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  %1 = tcc_graph.operator "torch.ops.aten.matmul.default"(%w, %m) {operand_names = ["self", "other"], args = {}} : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  %2 = tcc_graph.operator "torch.ops.aten.dot.default"(%v, %v) {operand_names = ["self", "tensor"], args = {}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %3 = tcc_graph.operator "torch.ops.aten.outer.default"(%w, %v) {operand_names = ["self", "vec2"], args = {}} : (tensor<3xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %4 = tcc_graph.operator "torch.ops.aten.addmv.default"(%s, %m, %v) {operand_names = ["self", "mat", "vec"], args = {beta = 0.0 : f64, alpha = 2.0 : f64}} : (tensor<3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %0, %1, %2, %3, %4 : tensor<3xf32>, tensor<4xf32>, tensor<f32>, tensor<3x4xf32>, tensor<3xf32>
}

// -----

// aminmax: amin as -amax(-x), then amax; celu is elu with the input scaled
// by 1 / alpha.
// CHECK-LABEL: func @aminmax_celu
// CHECK: %[[N:.*]] = tcc_graph.neg %arg0
// CHECK: %[[M:.*]] = tcc_graph.reduce_max %[[N]] {dims = array<i64: 1>, keepdim = false}
// CHECK: %[[LO:.*]] = tcc_graph.neg %[[M]]
// CHECK: %[[HI:.*]] = tcc_graph.reduce_max %arg0 {dims = array<i64: 1>, keepdim = false}
// CHECK: tcc_graph.constant dense<5.000000e-01>
// CHECK: tcc_graph.exp
// CHECK: return %[[LO]], %[[HI]]
func.func @aminmax_celu(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2x3xf32>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.aminmax.default"(%x) {operand_names = ["self"], args = {dim = 1 : i64}} : (tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %1 = tcc_graph.operator "torch.ops.aten.celu.default"(%x) {operand_names = ["self"], args = {alpha = 2.0 : f64}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0#0, %0#1, %1 : tensor<2xf32>, tensor<2xf32>, tensor<2x3xf32>
}

// -----

// Norms: a negative ord through (sum |x|^p)^(1/p) (dtype converts first);
// the matrix 1-norm as the largest column sum of |x|; fro as the 2-norm of
// both dims.
// CHECK-LABEL: func @norms
// CHECK: %[[A:.*]] = tcc_graph.abs %arg0
// CHECK: %[[P:.*]] = tcc_graph.pow %[[A]], %{{.*}}
// CHECK: %[[S:.*]] = tcc_graph.reduce_sum %[[P]] {dims = array<i64: 1>, keepdim = false}
// CHECK: %[[V:.*]] = tcc_graph.pow %[[S]], %{{.*}}
// CHECK: %[[A2:.*]] = tcc_graph.abs %arg0
// CHECK: %[[COLS:.*]] = tcc_graph.reduce_sum %[[A2]] {dims = array<i64: 0>, keepdim = true} : (tensor<3x4xf32>) -> tensor<1x4xf32>
// CHECK: %[[ABS:.*]] = tcc_graph.abs %[[COLS]]
// CHECK: %[[MAX:.*]] = tcc_graph.reduce_max %[[ABS]] {dims = array<i64: 1>, keepdim = true}
// CHECK: %[[ONE:.*]] = tcc_graph.reshape %[[MAX]] : (tensor<1x1xf32>) -> tensor<f32>
// CHECK: %[[SQ:.*]] = tcc_graph.mul %arg0, %arg0
// CHECK: tcc_graph.reduce_sum %[[SQ]] {dims = array<i64: 0, 1>, keepdim = true}
// CHECK: return %[[V]], %[[ONE]]
func.func @norms(%x: tensor<3x4xf32>) -> (tensor<3xf32>, tensor<f32>, tensor<f32>) {
  %0 = tcc_graph.operator "torch.ops.aten.linalg_vector_norm.default"(%x) {operand_names = ["self"], args = {ord = -1.0 : f64, dim = array<i64: 1>, dtype = 7 : i64}} : (tensor<3x4xf32>) -> tensor<3xf32>
  %1 = tcc_graph.operator "torch.ops.aten.linalg_matrix_norm.default"(%x) {operand_names = ["self"], args = {ord = 1.0 : f64}} : (tensor<3x4xf32>) -> tensor<f32>
  %2 = tcc_graph.operator "torch.ops.aten.linalg_matrix_norm.str_ord"(%x) {operand_names = ["self"], args = {ord = "fro"}} : (tensor<3x4xf32>) -> tensor<f32>
  return %0, %1, %2 : tensor<3xf32>, tensor<f32>, tensor<f32>
}

// -----

// The norms through singular values (2, -2, nuc) unroll Jacobi sweeps over
// the smaller side: at most 8 of it, 64 of the other.
func.func @nuclear_too_large(%x: tensor<9x12xf32>) -> tensor<f32> {
  // expected-error @+1 {{operator 'aten.linalg_matrix_norm.str_ord': the matrix norm ord 'nuc' supports matrices with at most 8 rows or columns and 64 the other (its Jacobi sweeps are unrolled), not 'tensor<9x12xf32>'}}
  %0 = tcc_graph.operator "torch.ops.aten.linalg_matrix_norm.str_ord"(%x) {operand_names = ["self"], args = {ord = "nuc"}} : (tensor<9x12xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Integer sums run in f64 where every partial sum is provably exact: a
// count of bools here; an int64 input of unknown range is refused.
// CHECK-LABEL: func @integer_sums
// CHECK: %[[W:.*]] = tcc_graph.cast %arg0 : (tensor<3x4xi1>) -> tensor<3x4xf64>
// CHECK: %[[S:.*]] = tcc_graph.reduce_sum %[[W]] {dims = array<i64: 0, 1>, keepdim = false} : (tensor<3x4xf64>) -> tensor<f64>
// CHECK: %[[R:.*]] = tcc_graph.cast %[[S]] : (tensor<f64>) -> tensor<i64>
// CHECK: return %[[R]]
func.func @integer_sums(%m: tensor<3x4xi1>) -> tensor<i64> {
  %0 = tcc_graph.operator "torch.ops.aten.sum.dim_IntList"(%m) {operand_names = ["self"], args = {dim = array<i64>, dtype = 4 : i64}} : (tensor<3x4xi1>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// int64 values without a bound: f64 could round their sum, so the integers
// are added themselves (it was refused: "f64 may not hold exactly"); keepdim
// is a reshape of the sum.
// CHECK-LABEL: func @int64_sum
// CHECK: tcc_graph.reduce_sum %arg0 {dims = array<i64: 0, 1>, keepdim = false} : (tensor<3x4xi64>) -> tensor<i64>
// CHECK: %[[S:.*]] = tcc_graph.reduce_sum %arg0 {dims = array<i64: 1>, keepdim = false} : (tensor<3x4xi64>) -> tensor<3xi64>
// CHECK: tcc_graph.reshape %[[S]] : (tensor<3xi64>) -> tensor<3x1xi64>
func.func @int64_sum(%x: tensor<3x4xi64>) -> (tensor<i64>, tensor<3x1xi64>) {
  %0 = tcc_graph.operator "torch.ops.aten.sum.default"(%x) {operand_names = ["self"], args = {}} : (tensor<3x4xi64>) -> tensor<i64>
  %1 = tcc_graph.operator "torch.ops.aten.sum.dim_IntList"(%x) {operand_names = ["self"], args = {dim = array<i64: 1>, keepdim = true}} : (tensor<3x4xi64>) -> tensor<3x1xi64>
  return %0, %1 : tensor<i64>, tensor<3x1xi64>
}

// -----

// cdist directly: the p-norm of [P, 1, M] - [1, R, M] over M; pdist: the
// pairs i < j of the rows' distances, row by row.
// CHECK-LABEL: func @distances
// CHECK: %[[A:.*]] = tcc_graph.reshape %arg0 : (tensor<3x2xf32>) -> tensor<3x1x2xf32>
// CHECK: %[[B:.*]] = tcc_graph.reshape %arg1 : (tensor<4x2xf32>) -> tensor<1x4x2xf32>
// CHECK: %[[D:.*]] = tcc_graph.sub %[[A]], %[[B]] : (tensor<3x1x2xf32>, tensor<1x4x2xf32>) -> tensor<3x4x2xf32>
// CHECK: %[[ABS:.*]] = tcc_graph.abs %[[D]]
// CHECK: %[[CD:.*]] = tcc_graph.reduce_sum %[[ABS]] {dims = array<i64: 2>, keepdim = false}
// CHECK: %[[R0:.*]] = tcc_graph.slice %{{.*}} {dim = 1 : i64, end = 3 : i64, start = 1 : i64, step = 1 : i64}
// CHECK: %[[R1:.*]] = tcc_graph.slice %{{.*}} {dim = 1 : i64, end = 3 : i64, start = 2 : i64, step = 1 : i64}
// CHECK: %[[PD:.*]] = tcc_graph.concat %{{.*}}, %{{.*}} {dim = 0 : i64} : (tensor<2xf32>, tensor<1xf32>) -> tensor<3xf32>
// CHECK: return %[[CD]], %[[PD]]
func.func @distances(%x: tensor<3x2xf32>, %y: tensor<4x2xf32>) -> (tensor<3x4xf32>, tensor<3xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.cdist.default"(%x, %y) {operand_names = ["x1", "x2"], args = {p = 1.0 : f64}} : (tensor<3x2xf32>, tensor<4x2xf32>) -> tensor<3x4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.pdist.default"(%x) {operand_names = ["self"], args = {p = 2.0 : f64}} : (tensor<3x2xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3x4xf32>, tensor<3xf32>
}

// -----

// diff with n = 2: two rounds of later - earlier slices.
// CHECK-LABEL: func @diff2
// CHECK: %[[L:.*]] = tcc_graph.slice %arg0 {dim = 0 : i64, end = 5 : i64, start = 1 : i64, step = 1 : i64}
// CHECK: %[[E:.*]] = tcc_graph.slice %arg0 {dim = 0 : i64, end = 4 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[D1:.*]] = tcc_graph.sub %[[L]], %[[E]]
// CHECK: %[[L2:.*]] = tcc_graph.slice %[[D1]] {dim = 0 : i64, end = 4 : i64, start = 1 : i64, step = 1 : i64}
// CHECK: %[[E2:.*]] = tcc_graph.slice %[[D1]] {dim = 0 : i64, end = 3 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[D2:.*]] = tcc_graph.sub %[[L2]], %[[E2]]
// CHECK: return %[[D2]]
func.func @diff2(%x: tensor<5xf32>) -> tensor<3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.diff.default"(%x) {operand_names = ["self"], args = {n = 2 : i64, dim = 0 : i64}} : (tensor<5xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// cumulative_trapezoid with a spacing: (dx / 2)(y[:-1] + y[1:]) summed
// cumulatively; bilinear: x1 @ W laid out [I, O*J], times x2, summed over J.
// CHECK-LABEL: func @cumtrapz_bilinear
// CHECK: %[[L:.*]] = tcc_graph.slice %arg0 {dim = 1 : i64, end = 3 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[R:.*]] = tcc_graph.slice %arg0 {dim = 1 : i64, end = 4 : i64, start = 1 : i64, step = 1 : i64}
// CHECK: %[[P:.*]] = tcc_graph.add %[[L]], %[[R]]
// CHECK: %[[T:.*]] = tcc_graph.mul %{{.*}}, %[[P]]
// CHECK: %[[C:.*]] = tcc_graph.cumsum %[[T]] {dim = 1 : i64} : tensor<2x3xf32>
// CHECK: %[[WT:.*]] = tcc_graph.transpose %arg3 {permutation = array<i64: 1, 0, 2>} : (tensor<5x4x3xf32>) -> tensor<4x5x3xf32>
// CHECK: %[[WF:.*]] = tcc_graph.reshape %[[WT]] : (tensor<4x5x3xf32>) -> tensor<4x15xf32>
// CHECK: %[[M:.*]] = tcc_graph.matmul %{{.*}}, %[[WF]] : (tensor<2x4xf32>, tensor<4x15xf32>) -> tensor<2x15xf32>
// CHECK: %[[S:.*]] = tcc_graph.reduce_sum %{{.*}} {dims = array<i64: 2>, keepdim = false} : (tensor<2x5x3xf32>) -> tensor<2x5xf32>
// CHECK: return %[[C]], %[[S]]
func.func @cumtrapz_bilinear(%y: tensor<2x4xf32>, %a: tensor<2x4xf32>, %c: tensor<2x3xf32>, %w: tensor<5x4x3xf32>) -> (tensor<2x3xf32>, tensor<2x5xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.cumulative_trapezoid.dx"(%y) {operand_names = ["y"], args = {dx = 0.5 : f64, dim = 1 : i64}} : (tensor<2x4xf32>) -> tensor<2x3xf32>
  %1 = tcc_graph.operator "torch.ops.aten.bilinear.default"(%a, %c, %w) {operand_names = ["input1", "input2", "weight"], args = {}} : (tensor<2x4xf32>, tensor<2x3xf32>, tensor<5x4x3xf32>) -> tensor<2x5xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x5xf32>
}

// -----

// gradient with scalar steps: (x[2:] - x[:-2]) / h / 2 inside, one-sided
// differences at the ends (edge_order 2: -1.5, 2, -0.5 weights), the three
// parts concatenated along each dim; one result per dim.
// CHECK-LABEL: func @gradient_steps
// CHECK: tcc_graph.constant dense<2.000000e+00> : tensor<f32>
// CHECK: tcc_graph.constant dense<-1.500000e+00> : tensor<f32>
// CHECK: tcc_graph.concat {{.*}} {dim = 0 : i64} : (tensor<1x5xf32>, tensor<2x5xf32>, tensor<1x5xf32>) -> tensor<4x5xf32>
// CHECK: tcc_graph.constant dense<2.100000e+00> : tensor<f32>
// CHECK: tcc_graph.concat {{.*}} {dim = 1 : i64} : (tensor<4x1xf32>, tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x5xf32>
func.func @gradient_steps(%x: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.gradient.scalarrayarray"(%x) {args = {dim = array<i64: 0, 1>, spacing = array<f64: 2.000000e+00, 2.100000e+00>, edge_order = 2 : i64}, operand_names = ["self"]} : (tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>)
  return %0#0, %0#1 : tensor<4x5xf32>, tensor<4x5xf32>
}

// -----

// gradient with coordinates: the nonuniform three-point weights from the
// coordinates' differences, shaped along the dim.
// CHECK-LABEL: func @gradient_coordinates
// CHECK: tcc_graph.reshape %{{.*}} : (tensor<2xf32>) -> tensor<1x2xf32>
// CHECK: tcc_graph.concat {{.*}} {dim = 1 : i64} : (tensor<3x1xf32>, tensor<3x2xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
func.func @gradient_coordinates(%x: tensor<3x4xf32>, %c: tensor<4xf32>) -> tensor<3x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.gradient.tensorarray"(%x, %c) {args = {dim = array<i64: 1>, edge_order = 1 : i64}, operand_names = ["self", "spacing.0"]} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// isin: every element against every test element ([4, 1] == [1, 3]), any
// over the test elements (max of the mask in f32 > 0; <= 0 with invert).
// CHECK-LABEL: func @isin
// CHECK: tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "eq"} : (tensor<4x1xf32>, tensor<1x3xf32>) -> tensor<4x3xi1>
// CHECK: tcc_graph.reduce_max %{{.*}} {dims = array<i64: 1>, keepdim = false} : (tensor<4x3xf32>) -> tensor<4xf32>
// CHECK: tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "le"}
func.func @isin(%x: tensor<4xf32>, %t: tensor<3xf32>) -> tensor<4xi1> {
  %0 = tcc_graph.operator "torch.ops.aten.isin.Tensor_Tensor"(%x, %t) {operand_names = ["elements", "test_elements"], args = {invert = true}} : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// frexp in f64: e = floor(log2|x|) + 1, x 2^-e, one correcting step each
// way; x itself and 0 for 0, infinities and NaN; the exponent as int32.
// CHECK-LABEL: func @frexp
// CHECK: tcc_graph.cast %arg0 : (tensor<4xf32>) -> tensor<4xf64>
// CHECK: tcc_graph.log2
// CHECK: tcc_graph.exp2
// CHECK: tcc_graph.cast %{{.*}} : (tensor<4xf64>) -> tensor<4xf32>
// CHECK: tcc_graph.cast %{{.*}} : (tensor<4xf64>) -> tensor<4xi32>
func.func @frexp(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.frexp.Tensor"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// var over a symbolic dim: the count of reduced elements is the symbolic
// size read at run time times the static ones (3), in f32, and so is
// max(N - correction, 0).
// CHECK-LABEL: func @var_symbolic
// CHECK: %[[S:.*]] = tcc_graph.dim_size %arg0 {dim = 1 : i64} : (tensor<3x?xf32>) -> tensor<i64>
// CHECK: %[[SQ:.*]] = tcc_graph.reduce_sum %{{.*}} {dims = array<i64: 0, 1>, keepdim = false}
// CHECK: %[[D2:.*]] = tcc_graph.mul
// CHECK: %[[THREE:.*]] = tcc_graph.constant dense<3> : tensor<i64>
// CHECK: %[[ALL:.*]] = tcc_graph.mul %[[S]], %[[THREE]] : (tensor<i64>, tensor<i64>) -> tensor<i64>
// CHECK: %[[N:.*]] = tcc_graph.cast %[[ALL]] : (tensor<i64>) -> tensor<f32>
// CHECK: tcc_graph.div %[[D2]], %[[N]]
// CHECK: %[[SPREAD:.*]] = tcc_graph.maximum
// CHECK: %[[C:.*]] = tcc_graph.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[NC:.*]] = tcc_graph.sub %[[N]], %[[C]]
// CHECK: %[[DOF:.*]] = tcc_graph.maximum %[[NC]], %{{.*}}
// CHECK: %[[V:.*]] = tcc_graph.div %[[SPREAD]], %[[DOF]]
// CHECK: return %[[V]]
func.func @var_symbolic(%x: tensor<3x?xf32> {tcc.sizes = [3, "s1"]}) -> tensor<f32> {
  %0 = tcc_graph.operator "torch.ops.aten.var.correction"(%x) {operand_names = ["self"], args = {dim = array<i64: 0, 1>, correction = 2 : i64, keepdim = false}} : (tensor<3x?xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// trapezoid and cumulative_trapezoid along a symbolic dim: y[1:] and y[:-1]
// (and x's) as slices of symbolic size n - 1, y[-1] a take at n - 1.
// CHECK-LABEL: func @trapezoid_symbolic
// CHECK: %[[SUM:.*]] = tcc_graph.reduce_sum %arg0 {dims = array<i64: 1>, keepdim = false}
// CHECK: %[[FIRST:.*]] = tcc_graph.slice %arg0 {dim = 1 : i64, end = 1 : i64, start = 0 : i64, step = 1 : i64} : (tensor<2x?xf32>) -> tensor<2x1xf32>
// CHECK: %[[N:.*]] = tcc_graph.dim_size %arg0 {dim = 1 : i64}
// CHECK: %[[AT:.*]] = tcc_graph.sub %[[N]], %{{.*}}
// CHECK: %[[I:.*]] = tcc_graph.reshape %[[AT]] : (tensor<i64>) -> tensor<1xi64>
// CHECK: %[[LAST:.*]] = tcc_graph.take %arg0, %[[I]] {dim = 1 : i64} : (tensor<2x?xf32>, tensor<1xi64>) -> tensor<2x1xf32>
// CHECK: tcc_graph.add %[[FIRST]], %[[LAST]]
// CHECK: %[[X:.*]] = tcc_graph.reshape %arg1 : (tensor<?xf32>) -> tensor<1x?xf32>
// CHECK: %[[XR:.*]] = tcc_graph.slice %[[X]] sizes(%{{.*}}) {dim = 1 : i64, end = 9223372036854775807 : i64, start = 1 : i64, step = 1 : i64}
// CHECK: %[[XL:.*]] = tcc_graph.slice %[[X]] sizes(%{{.*}}) {dim = 1 : i64, end = 9223372036854775807 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: tcc_graph.sub %[[XR]], %[[XL]] : (tensor<1x?xf32>, tensor<1x?xf32>) -> tensor<1x?xf32>
// CHECK: tcc_graph.cumsum %{{.*}} {dim = 1 : i64} : tensor<2x?xf32>
func.func @trapezoid_symbolic(%y: tensor<2x?xf32> {tcc.sizes = [2, "s1"]}, %x: tensor<?xf32> {tcc.sizes = ["s1"]}) -> (tensor<2xf32>, tensor<2xf32>, tensor<2x?xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.trapezoid.dx"(%y) {operand_names = ["y"], args = {dx = 2.0 : f64, dim = -1 : i64}} : (tensor<2x?xf32>) -> tensor<2xf32>
  %1 = tcc_graph.operator "torch.ops.aten.trapezoid.x"(%y, %x) {operand_names = ["y", "x"], args = {dim = -1 : i64}} : (tensor<2x?xf32>, tensor<?xf32>) -> tensor<2xf32>
  %2 = tcc_graph.operator "torch.ops.aten.cumulative_trapezoid.x"(%y, %x) {operand_names = ["y", "x"], args = {dim = -1 : i64}, tcc.sizes = [[2, "s1 - 1"]]} : (tensor<2x?xf32>, tensor<?xf32>) -> tensor<2x?xf32>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xf32>, tensor<2x?xf32>
}

// -----

// isin, cosine_similarity, isreal and inner over symbolic sizes: isin's
// elements x test elements bounded by the export's ranges (64·3 x 16), the
// cosine's operands of one symbolic shape (no broadcast), isreal's trues of
// self's run-time sizes, inner's product of the flattened rows.
// CHECK-LABEL: func @symbolic_misc
// CHECK: %[[COLUMN:.*]] = tcc_graph.reshape %arg0 : (tensor<?x3xf32>) -> tensor<?x3x1xf32>
// CHECK: %[[ROW:.*]] = tcc_graph.reshape %arg2 : (tensor<?xf32>) -> tensor<1x1x?xf32>
// CHECK: tcc_graph.compare %[[COLUMN]], %[[ROW]] {predicate = "eq"} : (tensor<?x3x1xf32>, tensor<1x1x?xf32>) -> tensor<?x3x?xi1>
// CHECK-NOT: tcc_graph.broadcast %arg1
// CHECK: tcc_graph.reduce_sum %{{.*}} {dims = array<i64: 1>, keepdim = false} : (tensor<?x3xf32>) -> tensor<?xf32>
// CHECK: %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x3xf32>
// CHECK: tcc_graph.broadcast %{{.*}} sizes(%[[N]]) : (tensor<i1>) -> tensor<?x3xi1>
// CHECK: %[[T:.*]] = tcc_graph.transpose %arg1 {permutation = array<i64: 1, 0>} : (tensor<?x3xf32>) -> tensor<3x?xf32>
// CHECK: tcc_graph.matmul %arg0, %[[T]] : (tensor<?x3xf32>, tensor<3x?xf32>) -> tensor<?x?xf32>
module attributes {tcc.symbols = {s0 = [2, 64], s1 = [2, 16]}} {
  func.func @symbolic_misc(%x: tensor<?x3xf32> {tcc.sizes = ["s0", 3]}, %y: tensor<?x3xf32> {tcc.sizes = ["s0", 3]}, %t: tensor<?xf32> {tcc.sizes = ["s1"]}) -> (tensor<?x3xi1>, tensor<?xf32>, tensor<?x3xi1>, tensor<?x?xf32>) {
    %0 = tcc_graph.operator "torch.ops.aten.isin.Tensor_Tensor"(%x, %t) {operand_names = ["elements", "test_elements"], args = {}} : (tensor<?x3xf32>, tensor<?xf32>) -> tensor<?x3xi1>
    %1 = tcc_graph.operator "torch.ops.aten.cosine_similarity.default"(%x, %y) {operand_names = ["x1", "x2"], args = {dim = 1 : i64}} : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?xf32>
    %2 = tcc_graph.operator "torch.ops.aten.isreal.default"(%x) {operand_names = ["self"], args = {}} : (tensor<?x3xf32>) -> tensor<?x3xi1>
    %3 = tcc_graph.operator "torch.ops.aten.inner.default"(%x, %y) {operand_names = ["self", "other"], args = {}} : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x?xf32>
    return %0, %1, %2, %3 : tensor<?x3xi1>, tensor<?xf32>, tensor<?x3xi1>, tensor<?x?xf32>
  }
}

// -----

// group_norm and instance_norm over symbolic batch, channels and length:
// the groups' size C·L / G read at run time (the export guards that G
// divides C), x's own sizes to reshape back; instance norm's one group per
// channel is x itself. diff with n = 0 is its input, whatever its sizes.
// CHECK-LABEL: func @norms_symbolic
// CHECK: %[[C:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x?x?xf32>
// CHECK: %[[L:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x?x?xf32>
// CHECK: %[[CL:.*]] = arith.muli %[[C]], %[[L]] : index
// CHECK: %[[GROUP:.*]] = arith.divsi %[[CL]], %{{.*}} : index
// CHECK: %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x?x?xf32>
// CHECK: %[[GROUPED:.*]] = tcc_graph.reshape %arg0 sizes(%[[N]], %[[GROUP]]) : (tensor<?x?x?xf32>) -> tensor<?x2x?xf32>
// CHECK: tcc_graph.reshape %{{.*}} sizes(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<?x2x?xf32>) -> tensor<?x?x?xf32>
// CHECK: tcc_graph.reduce_mean %arg0 {dims = array<i64: 2>, keepdim = true} : (tensor<?x?x?xf32>) -> tensor<?x?x1xf32>
// CHECK: return %{{.*}}, %{{.*}}, %arg0
func.func @norms_symbolic(%x: tensor<?x?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.group_norm.default"(%x) {operand_names = ["input"], args = {num_groups = 2 : i64, eps = 1.0e-05 : f64}} : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %1 = tcc_graph.operator "torch.ops.aten.instance_norm.default"(%x) {operand_names = ["input"], args = {use_input_stats = true, eps = 1.0e-05 : f64}} : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %2 = tcc_graph.operator "torch.ops.aten.diff.default"(%x) {operand_names = ["self"], args = {n = 0 : i64, dim = -1 : i64}} : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %0, %1, %2 : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>
}

// -----

// item() of a one-element tensor: its value as a rank-0 tensor of the Python
// number's type (int64 for an integer tensor, float64 for a float one).
// CHECK-LABEL: func @item
// CHECK: %[[R:.*]] = tcc_graph.reshape %arg0 : (tensor<1x1xf32>) -> tensor<f32>
// CHECK: %[[F:.*]] = tcc_graph.cast %[[R]] : (tensor<f32>) -> tensor<f64>
// CHECK: tcc_graph.cast %arg1 : (tensor<i32>) -> tensor<i64>
func.func @item(%x: tensor<1x1xf32>, %n: tensor<i32>) -> (tensor<f64>, tensor<i64>) {
  %0 = tcc_graph.operator "torch.ops.aten.item.default"(%x) {operand_names = ["self"], args = {}} : (tensor<1x1xf32>) -> tensor<f64>
  %1 = tcc_graph.operator "torch.ops.aten._local_scalar_dense.default"(%n) {operand_names = ["self"], args = {}} : (tensor<i32>) -> tensor<i64>
  return %0, %1 : tensor<f64>, tensor<i64>
}

// -----

// An integer scalar_tensor holds its value exactly (2^62 + 3 is no double).
// CHECK-LABEL: func @scalar_tensor_int
// CHECK: tcc_graph.constant dense<4611686018427387907> : tensor<i64>
func.func @scalar_tensor_int() -> tensor<i64> {
  %0 = tcc_graph.operator "torch.ops.aten.scalar_tensor.default"() {operand_names = [], args = {s = 4611686018427387907 : i64, dtype = 5 : i64}} : () -> tensor<i64>
  return %0 : tensor<i64>
}
