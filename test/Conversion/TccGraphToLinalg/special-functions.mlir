// RUN: tcc-opt %s -convert-tcc-graph-to-linalg -split-input-file | FileCheck %s

// chebyshev_polynomial_t: the degree truncated as x86 does (NaN and beyond
// int64 become a negative degree), ATen's special cases as selects, and the
// recurrence r = 2x q - p (one fma) in an scf.while from k = 2 to n that
// stops at a NaN; the loop gets no steps where a special case applies.
// CHECK-LABEL: func @chebyshev
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.*]]: f32, %[[NF:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[BELOW:.*]] = arith.cmpf olt, %[[NF]], %{{.*}} : f32
// CHECK: %[[SAFE:.*]] = arith.select %{{.*}}, %[[NF]], %{{.*}} : f32
// CHECK: %[[N:.*]] = arith.fptosi %[[SAFE]] : f32 to i64
// CHECK: %[[TWOX:.*]] = arith.addf %[[X]], %[[X]] : f32
// CHECK: %[[ACOS:.*]] = math.acos %[[X]]
// CHECK: %[[CLOSED:.*]] = math.cos
// CHECK: %[[LAST:.*]] = arith.select %{{.*}}, %{{.*}}, %[[N]] : i64
// CHECK: %[[LOOP:.*]]:3 = scf.while (%[[K:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}, %[[Q:.*]] = %[[X]]) : (i64, f32, f32) -> (i64, f32, f32) {
// CHECK:   arith.cmpi sle, %[[K]], %[[LAST]] : i64
// CHECK:   arith.cmpf ord, %[[Q]], %[[Q]] : f32
// CHECK:   scf.condition
// CHECK: } do {
// CHECK:   %[[NEGP:.*]] = arith.negf
// CHECK:   %[[R:.*]] = math.fma %[[TWOX]], %{{.*}}, %[[NEGP]] : f32
// CHECK:   scf.yield %{{.*}}, %{{.*}}, %[[R]] : i64, f32, f32
// CHECK: arith.select %{{.*}}, %[[X]], %[[LOOP]]#2 : f32
// CHECK: arith.select %{{.*}}, %[[CLOSED]], %{{.*}} : f32
// CHECK: linalg.yield
func.func @chebyshev(%x: tensor<4xf32>, %n: tensor<f32>) -> tensor<4xf32> {
  %0 = tcc_graph.special_function "chebyshev_polynomial_t"(%x, %n) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// hermite_polynomial_h in f64: k = 2, 4, ... below 2n, no NaN exit, NaN
// beyond ATen's limit of 512 for double.
// CHECK-LABEL: func @hermite
// CHECK: %[[LIMIT:.*]] = arith.constant 512 : i64
// CHECK: %[[TOOLARGE:.*]] = arith.cmpi sgt, %{{.*}}, %[[LIMIT]] : i64
// CHECK: scf.while
// CHECK-NOT: arith.cmpf ord
// CHECK: scf.condition
// CHECK: arith.sitofp %{{.*}} : i64 to f64
// CHECK: math.fma
// CHECK: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK: arith.addi %{{.*}}, %[[TWO]] : i64
// CHECK: arith.constant 0x7FF8000000000000 : f64
// CHECK: linalg.yield
func.func @hermite(%x: tensor<4xf64>, %n: tensor<4xf64>) -> tensor<4xf64> {
  %0 = tcc_graph.special_function "hermite_polynomial_h"(%x, %n) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// zeta: the first term q^-x in f32 (ATen's std::pow of two floats), the rest
// in f64: the direct sum in an scf.while (until q + i > 9, at least 9 terms,
// or a negligible term), then 12 Euler-Maclaurin terms, rounded to f32.
// CHECK-LABEL: func @zeta
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Q:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[NEGX:.*]] = arith.negf %[[X]] : f32
// CHECK: %[[FIRST:.*]] = math.powf %[[Q]], %[[NEGX]] : f32
// CHECK: %[[S0:.*]] = arith.extf %[[FIRST]] : f32 to f64
// CHECK: scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %[[S0]], %{{.*}} = %{{.*}}) : (i64, f64, f64, f64, i1)
// CHECK: math.powf %{{.*}}, %{{.*}} : f64
// CHECK-COUNT-12: arith.divf %{{.*}}, %{{.*}} : f64
// CHECK: arith.constant 0x7FF8000000000000 : f64
// CHECK: arith.constant 0x7FF0000000000000 : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @zeta(%x: tensor<4xf32>, %q: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.special_function "zeta"(%x, %q) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
