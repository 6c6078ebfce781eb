// RUN: tcc-opt %s -tcc-form-kernels | FileCheck %s

// An index_copy is one scatter kernel whose init is the tensor written; its
// index check names the source line.
// CHECK-LABEL: func @cache_update
// CHECK: %[[R:.*]] = tcc_kernel.scatter ins(%arg2 : tensor<1x2x?x16xf32>) index(%arg1 : tensor<?xi64>) outs(%arg0 : tensor<1x2x64x16xf32>) {dim = 2 : i64, message = "model.py:12: aten.index_copy.default: index out of range for dim 2 of size 64"} -> tensor<1x2x64x16xf32>
// CHECK: return %[[R]]
func.func @cache_update(%cache: tensor<1x2x64x16xf32>, %pos: tensor<?xi64>, %new: tensor<1x2x?x16xf32>) -> tensor<1x2x64x16xf32> {
  %0 = tcc_graph.index_copy %cache[%pos], %new {dim = 2 : i64, message = "aten.index_copy.default: index out of range for dim 2 of size 64"} : (tensor<1x2x64x16xf32>, tensor<?xi64>, tensor<1x2x?x16xf32>) -> tensor<1x2x64x16xf32> loc("model.py":12:0)
  return %0 : tensor<1x2x64x16xf32>
}

// A value projection's head view (slice of a fused QKV product, reshaped
// per head, swapped to [B, H, L, D]) is read through its strides: the
// scatter's source is the product itself, and the views go.
// CHECK-LABEL: func @value_head_view
// CHECK-NOT: tcc_graph.transpose
// CHECK: tcc_kernel.scatter ins(%arg2 : tensor<1x1x48xf32>) index(%arg1 : tensor<1xi64>) outs(%arg0 : tensor<1x2x64x8xf32>) {dim = 2 : i64, message = "{{.*}}", source_views = [{offset = 32 : i64, sizes = array<i64: 1, 2, 1, 8>, strides = array<i64: 0, 8, 0, 1>}]}
func.func @value_head_view(%cache: tensor<1x2x64x8xf32>, %pos: tensor<1xi64>, %qkv: tensor<1x1x48xf32>) -> tensor<1x2x64x8xf32> {
  %v = tcc_graph.slice %qkv {dim = 2 : i64, start = 32 : i64, end = 48 : i64, step = 1 : i64} : (tensor<1x1x48xf32>) -> tensor<1x1x16xf32>
  %h = tcc_graph.reshape %v : (tensor<1x1x16xf32>) -> tensor<1x1x2x8xf32>
  %t = tcc_graph.transpose %h {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x1x2x8xf32>) -> tensor<1x2x1x8xf32>
  %0 = tcc_graph.index_copy %cache[%pos], %t {dim = 2 : i64, message = "index out of range"} : (tensor<1x2x64x8xf32>, tensor<1xi64>, tensor<1x2x1x8xf32>) -> tensor<1x2x64x8xf32>
  return %0 : tensor<1x2x64x8xf32>
}

// A view of the tensor written is copied first: the scatter would read
// what it writes.
// CHECK-LABEL: func @view_of_the_written_tensor
// CHECK: tcc_graph.transpose
// CHECK: tcc_kernel.scatter ins(%{{.*}} : tensor<4x4xf32>) index(%arg1 : tensor<4xi64>) outs(%arg0 : tensor<4x8xf32>) {dim = 1 : i64, message = "{{.*}}"} -> tensor<4x8xf32>
func.func @view_of_the_written_tensor(%x: tensor<4x8xf32>, %pos: tensor<4xi64>) -> tensor<4x8xf32> {
  %s = tcc_graph.slice %x {dim = 1 : i64, start = 0 : i64, end = 4 : i64, step = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  %t = tcc_graph.transpose %s {permutation = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = tcc_graph.index_copy %x[%pos], %t {dim = 1 : i64, message = "index out of range"} : (tensor<4x8xf32>, tensor<4xi64>, tensor<4x4xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// A layer's key and value caches written at one step's positions are one
// scatter of two tensors: one kernel.
// CHECK-LABEL: func @key_and_value
// CHECK: %[[KV:.*]]:2 = tcc_kernel.scatter ins(%arg3, %arg4 : tensor<1x2x1x8xf32>, tensor<1x2x1x8xf32>) index(%arg2 : tensor<1xi64>) outs(%arg0, %arg1 : tensor<1x2x64x8xf32>, tensor<1x2x64x8xf32>) {dim = 2 : i64, message = "{{.*}}:{{[0-9]+}}: key index out of range"}
// CHECK-NOT: tcc_kernel.scatter
// CHECK: return %[[KV]]#0, %[[KV]]#1
func.func @key_and_value(%kc: tensor<1x2x64x8xf32>, %vc: tensor<1x2x64x8xf32>, %pos: tensor<1xi64>, %k: tensor<1x2x1x8xf32>, %v: tensor<1x2x1x8xf32>) -> (tensor<1x2x64x8xf32>, tensor<1x2x64x8xf32>) {
  %0 = tcc_graph.index_copy %kc[%pos], %k {dim = 2 : i64, message = "key index out of range"} : (tensor<1x2x64x8xf32>, tensor<1xi64>, tensor<1x2x1x8xf32>) -> tensor<1x2x64x8xf32>
  %1 = tcc_graph.index_copy %vc[%pos], %v {dim = 2 : i64, message = "value index out of range"} : (tensor<1x2x64x8xf32>, tensor<1xi64>, tensor<1x2x1x8xf32>) -> tensor<1x2x64x8xf32>
  return %0, %1 : tensor<1x2x64x8xf32>, tensor<1x2x64x8xf32>
}

// A second write that reads the first's result, or a first result read
// before the second write, keeps them apart.
// CHECK-LABEL: func @dependent_writes
// CHECK: %[[A:.*]] = tcc_kernel.scatter ins(%arg3 : tensor<1x2x1x8xf32>) index(%arg2 : tensor<1xi64>) outs(%arg0 : tensor<1x2x64x8xf32>)
// CHECK: %[[S:.*]] = tcc_graph.slice %[[A]]
// CHECK: tcc_kernel.scatter ins(%{{.*}} : tensor<1x2x1x8xf32>) index(%arg2 : tensor<1xi64>) outs(%arg1 : tensor<1x2x64x8xf32>)
// CHECK-LABEL: func @read_between
// CHECK: tcc_kernel.scatter ins(%arg3 : tensor<1x2x1x8xf32>) index
// CHECK: tcc_graph.neg
// CHECK: tcc_kernel.scatter ins(%arg4 : tensor<1x2x1x8xf32>) index
func.func @dependent_writes(%kc: tensor<1x2x64x8xf32>, %vc: tensor<1x2x64x8xf32>, %pos: tensor<1xi64>, %k: tensor<1x2x1x8xf32>) -> tensor<1x2x64x8xf32> {
  %0 = tcc_graph.index_copy %kc[%pos], %k {dim = 2 : i64, message = "m"} : (tensor<1x2x64x8xf32>, tensor<1xi64>, tensor<1x2x1x8xf32>) -> tensor<1x2x64x8xf32>
  %s = tcc_graph.slice %0 {dim = 2 : i64, start = 0 : i64, end = 1 : i64, step = 1 : i64} : (tensor<1x2x64x8xf32>) -> tensor<1x2x1x8xf32>
  %n = tcc_graph.neg %s : tensor<1x2x1x8xf32>
  %1 = tcc_graph.index_copy %vc[%pos], %n {dim = 2 : i64, message = "m"} : (tensor<1x2x64x8xf32>, tensor<1xi64>, tensor<1x2x1x8xf32>) -> tensor<1x2x64x8xf32>
  return %1 : tensor<1x2x64x8xf32>
}
func.func @read_between(%kc: tensor<1x2x64x8xf32>, %vc: tensor<1x2x64x8xf32>, %pos: tensor<1xi64>, %k: tensor<1x2x1x8xf32>, %v: tensor<1x2x1x8xf32>) -> (tensor<1x2x64x8xf32>, tensor<1x2x64x8xf32>, tensor<1x2x64x8xf32>) {
  %0 = tcc_graph.index_copy %kc[%pos], %k {dim = 2 : i64, message = "m"} : (tensor<1x2x64x8xf32>, tensor<1xi64>, tensor<1x2x1x8xf32>) -> tensor<1x2x64x8xf32>
  %r = tcc_graph.neg %0 : tensor<1x2x64x8xf32>
  %1 = tcc_graph.index_copy %vc[%pos], %v {dim = 2 : i64, message = "m"} : (tensor<1x2x64x8xf32>, tensor<1xi64>, tensor<1x2x1x8xf32>) -> tensor<1x2x64x8xf32>
  return %0, %1, %r : tensor<1x2x64x8xf32>, tensor<1x2x64x8xf32>, tensor<1x2x64x8xf32>
}
