// RUN: tcc-opt %s -convert-tcc-graph-to-linalg | FileCheck %s

// igamma: one all-parallel generic of four operands (a, x, lgamma(a),
// lgamma(1 + a)) whose body is calc_igamma: P's power series, Q's series and
// the continued fraction as scf.while loops (at most 2000 steps, none where
// another branch decides the element), Temme's expansion unrolled, the
// domain's edges as selects.
// CHECK-LABEL: func @igamma
// CHECK: linalg.generic
// CHECK: ^bb0(%[[A:.*]]: f32, %[[X:.*]]: f32, %[[LG:.*]]: f32, %[[LG1:.*]]: f32, %{{.*}}: f32):
// CHECK: scf.while {{.*}} : (i64, f32, f32, f32, i1)
// CHECK: arith.constant 2000 : i64
// CHECK: scf.while {{.*}} : (i64, f32, f32, f32, f32, f32, f32, f32, f32, i1)
// CHECK: scf.while {{.*}} : (i64, f32, f32, i1)
// CHECK: math.erfc
// CHECK: arith.constant 0x7FC00000 : f32
// CHECK: linalg.yield
func.func @igamma(%a: tensor<4xf32>, %x: tensor<4xf32>, %la: tensor<4xf32>, %l1: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.special_function "igamma"(%a, %x, %la, %l1) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
