// RUN: tcc-opt %s -convert-tcc-graph-to-linalg -split-input-file | FileCheck %s

// torch.uint8 is ui8, which arith does not take: the element is computed on
// as the signless i8 of the same bits, through unrealized casts that the
// lowering to LLVM resolves (both are i8 there).
// CHECK-LABEL: func @uint8_to_float
// CHECK:       ^bb0(%[[IN:.*]]: ui8, %{{.*}}: f32):
// CHECK:         %[[BITS:.*]] = builtin.unrealized_conversion_cast %[[IN]] : ui8 to i8
// CHECK:         %[[F:.*]] = arith.uitofp %[[BITS]] : i8 to f32
// CHECK:         linalg.yield %[[F]]
func.func @uint8_to_float(%x: tensor<4xui8>) -> tensor<4xf32> {
  %y = tcc_graph.cast %x : (tensor<4xui8>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A float to uint8 goes through i64, so that out-of-range values wrap around
// modulo 256 as PyTorch's CPU conversion does (fptosi straight to i8 would be
// poison for them).
// CHECK-LABEL: func @float_to_uint8
// CHECK:       ^bb0(%[[IN:.*]]: f32, %{{.*}}: ui8):
// CHECK:         %[[W:.*]] = arith.fptosi %[[IN]] : f32 to i64
// CHECK:         %[[T:.*]] = arith.trunci %[[W]] : i64 to i8
// CHECK:         %[[U:.*]] = builtin.unrealized_conversion_cast %[[T]] : i8 to ui8
// CHECK:         linalg.yield %[[U]]
func.func @float_to_uint8(%x: tensor<4xf32>) -> tensor<4xui8> {
  %y = tcc_graph.cast %x : (tensor<4xf32>) -> tensor<4xui8>
  return %y : tensor<4xui8>
}

// -----

// uint8 to int64 zero-extends; to bool compares with zero.
// CHECK-LABEL: func @uint8_to_int
// CHECK:         arith.extui %{{.*}} : i8 to i64
// CHECK-LABEL: func @uint8_to_bool
// CHECK:         arith.cmpi ne, %{{.*}}, %{{.*}} : i8
func.func @uint8_to_int(%x: tensor<4xui8>) -> tensor<4xi64> {
  %y = tcc_graph.cast %x : (tensor<4xui8>) -> tensor<4xi64>
  return %y : tensor<4xi64>
}
func.func @uint8_to_bool(%x: tensor<4xui8>) -> tensor<4xi1> {
  %y = tcc_graph.cast %x : (tensor<4xui8>) -> tensor<4xi1>
  return %y : tensor<4xi1>
}

// -----

// uint8 arithmetic whose integer form ignores signedness (+ here) computes on
// the signless bits and casts the result back.
// CHECK-LABEL: func @uint8_add
// CHECK:       ^bb0(%[[A:.*]]: ui8, %[[B:.*]]: ui8, %{{.*}}: ui8):
// CHECK:         %[[X:.*]] = builtin.unrealized_conversion_cast %[[A]] : ui8 to i8
// CHECK:         %[[Y:.*]] = builtin.unrealized_conversion_cast %[[B]] : ui8 to i8
// CHECK:         %[[S:.*]] = arith.addi %[[X]], %[[Y]] : i8
// CHECK:         %[[U:.*]] = builtin.unrealized_conversion_cast %[[S]] : i8 to ui8
// CHECK:         linalg.yield %[[U]]
func.func @uint8_add(%x: tensor<4xui8>, %y: tensor<4xui8>) -> tensor<4xui8> {
  %z = tcc_graph.add %x, %y : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %z : tensor<4xui8>
}

// -----

// Comparisons of uint8 take the unsigned predicates: 200 > 100 whatever the
// sign bit says.
// CHECK-LABEL: func @uint8_greater
// CHECK:         arith.cmpi ugt
func.func @uint8_greater(%x: tensor<4xui8>, %y: tensor<4xui8>) -> tensor<4xi1> {
  %z = tcc_graph.compare %x, %y {predicate = "gt"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  return %z : tensor<4xi1>
}

// -----

// A uint8 constant is held as i8 bits and reinterpreted elementwise, so that
// no pass folding it into a loop body makes a `ui8` scalar (arith refuses it).
// CHECK-LABEL: func @uint8_constant
// CHECK:         arith.constant dense<-3> : tensor<i8>
// CHECK:         builtin.unrealized_conversion_cast %{{.*}} : i8 to ui8
func.func @uint8_constant(%x: tensor<4xui8>) -> tensor<4xui8> {
  %c = tcc_graph.constant dense<253> : tensor<ui8>
  %z = tcc_graph.mul %x, %c : (tensor<4xui8>, tensor<ui8>) -> tensor<4xui8>
  return %z : tensor<4xui8>
}
