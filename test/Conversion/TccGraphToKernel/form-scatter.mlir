// RUN: tcc-opt %s -tcc-form-kernels | FileCheck %s

// An index_copy is one scatter kernel whose init is the tensor written; its
// index check names the source line.
// CHECK-LABEL: func @cache_update
// CHECK: %[[R:.*]] = tcc_kernel.scatter ins(%arg2, %arg1 : tensor<1x2x?x16xf32>, tensor<?xi64>) outs(%arg0 : tensor<1x2x64x16xf32>) {dim = 2 : i64, message = "model.py:12: aten.index_copy.default: index out of range for dim 2 of size 64"} -> tensor<1x2x64x16xf32>
// CHECK: return %[[R]]
func.func @cache_update(%cache: tensor<1x2x64x16xf32>, %pos: tensor<?xi64>, %new: tensor<1x2x?x16xf32>) -> tensor<1x2x64x16xf32> {
  %0 = tcc_graph.index_copy %cache[%pos], %new {dim = 2 : i64, message = "aten.index_copy.default: index out of range for dim 2 of size 64"} : (tensor<1x2x64x16xf32>, tensor<?xi64>, tensor<1x2x?x16xf32>) -> tensor<1x2x64x16xf32> loc("model.py":12:0)
  return %0 : tensor<1x2x64x16xf32>
}
