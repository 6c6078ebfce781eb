// RUN: tcc-opt %s -convert-tcc-graph-to-linalg | FileCheck %s

// tcc_graph.random: one generic whose body hashes the state (a broadcast
// input, read inside the loop so a GPU kernel reads it), the stream and the
// row-major position counted from 1 (tcc::randomBits), then keeps the
// type's precision: 24 bits for f32, scaled by 2^-24.
// CHECK: #[[STATE:.*]] = affine_map<(d0, d1) -> (0)>
// CHECK: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @uniform
// CHECK: linalg.generic {indexing_maps = [#[[STATE]], #[[OUT]]]
// CHECK-SAME: ins(%arg0 : tensor<1xi64>)
// CHECK: ^bb0(%[[STATE:.*]]: i64, %{{.*}}: f32):
// CHECK: linalg.index 1
// CHECK: linalg.index 0
// CHECK: arith.muli %[[STATE]]
// CHECK: arith.shrui
// CHECK: arith.xori
// CHECK: arith.constant 40 : i64
// CHECK: arith.uitofp
// CHECK: arith.constant 5.9604644775390625E-8 : f64
// CHECK: arith.truncf
func.func @uniform(%state: tensor<1xi64>) -> tensor<4x8xf32> {
  %u = tcc_graph.random %state {stream = 3 : i64} : (tensor<1xi64>) -> tensor<4x8xf32>
  return %u : tensor<4x8xf32>
}

// i64 results keep 63 bits (uniform on [0, 2^63)); symbolic sizes go to the
// output's tensor.empty.
// CHECK-LABEL: func.func @bits
// CHECK: tensor.empty(%arg1) : tensor<?xi64>
// CHECK: arith.constant 1 : i64
// CHECK: arith.shrui
// CHECK-NOT: arith.uitofp
// CHECK: linalg.yield
func.func @bits(%state: tensor<1xi64>, %n: index) -> tensor<?xi64> {
  %u = tcc_graph.random %state sizes(%n) {stream = 0 : i64} : (tensor<1xi64>) -> tensor<?xi64>
  return %u : tensor<?xi64>
}
