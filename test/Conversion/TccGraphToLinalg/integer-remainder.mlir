// RUN: tcc-opt %s -convert-tcc-graph-to-linalg -split-input-file | FileCheck %s

// fmod of integers: LLVM leaves x % 0 and INT_MIN % -1 undefined (x86 traps on
// both), so a zero divisor fails a check (a run error on the CPU path) and a
// divisor of 0 or -1 divides by 1 instead, the result then 0.
// CHECK-LABEL: func @integer_fmod
// CHECK:         ^bb0(%[[X:.*]]: i64, %[[Y:.*]]: i64, %{{.*}}: i64):
// CHECK:           %[[NZ:.*]] = arith.cmpi ne, %[[Y]], %{{.*}} : i64
// CHECK:           cf.assert %[[NZ]], "{{.*}}integer-remainder.mlir:{{[0-9]+}}: integer division by zero (a remainder or fmod)"
// CHECK:           %[[M1:.*]] = arith.cmpi eq, %[[Y]], %{{.*}} : i64
// CHECK:           %[[Z:.*]] = arith.cmpi eq, %[[Y]], %{{.*}} : i64
// CHECK:           %[[T:.*]] = arith.ori %[[M1]], %[[Z]] : i1
// CHECK:           %[[SAFE:.*]] = arith.select %[[T]], %{{.*}}, %[[Y]] : i64
// CHECK:           %[[R:.*]] = arith.remsi %[[X]], %[[SAFE]] : i64
// CHECK:           %[[OUT:.*]] = arith.select %[[T]], %{{.*}}, %[[R]] : i64
// CHECK:           linalg.yield %[[OUT]]
func.func @integer_fmod(%x: tensor<4xi64>, %y: tensor<4xi64>) -> tensor<4xi64> {
  %r = tcc_graph.fmod %x, %y : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %r : tensor<4xi64>
}

// -----

// Integer division toward zero: the same checks; a divisor of -1 negates
// (INT_MIN / -1 wraps to INT_MIN, as in PyTorch).
// CHECK-LABEL: func @integer_trunc_div
// CHECK:         ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK:           cf.assert %{{.*}}, "{{.*}}: integer division by zero (a division with rounding)"
// CHECK:           %[[M1:.*]] = arith.cmpi eq, %[[Y]], %{{.*}} : i32
// CHECK:           %[[SAFE:.*]] = arith.select %{{.*}}, %{{.*}}, %[[Y]] : i32
// CHECK:           %[[Q:.*]] = arith.divsi %[[X]], %[[SAFE]] : i32
// CHECK:           %[[NEG:.*]] = arith.subi %{{.*}}, %[[X]] : i32
// CHECK:           %[[OUT:.*]] = arith.select %[[M1]], %[[NEG]], %[[Q]] : i32
// CHECK:           linalg.yield %[[OUT]]
func.func @integer_trunc_div(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %q = tcc_graph.trunc_div %x, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %q : tensor<4xi32>
}
