// RUN: tcc-opt %s -convert-tcc-graph-to-linalg | FileCheck %s

// tcc_graph.check: a pointwise generic that asserts the condition (broadcast)
// with the message after the op's source line and yields the input.
// CHECK-LABEL: func @check
// CHECK:       linalg.generic
// CHECK:       ^bb0(%[[OK:.*]]: i1, %[[X:.*]]: f32, %{{.*}}: f32):
// CHECK:         cf.assert %[[OK]], "{{.*}}check.mlir:{{[0-9]+}}: linalg.inv: singular"
// CHECK:         linalg.yield %[[X]] : f32
func.func @check(%ok: tensor<2x1x1xi1>, %x: tensor<2x5x5xf32>) -> tensor<2x5x5xf32> {
  %0 = tcc_graph.check %ok, %x "linalg.inv: singular" : (tensor<2x1x1xi1>, tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
  return %0 : tensor<2x5x5xf32>
}
