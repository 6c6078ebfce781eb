// RUN: tcc-opt %s -tcc-bufferize -split-input-file | FileCheck %s

// A state argument (tcc.written_by: result 1 is its value after the call):
// the scatter writes the step's slice into the argument itself, the result
// goes, and nothing is copied.
// CHECK-LABEL: func @cache_in_place(
// CHECK-SAME:    %[[NEW:[a-z0-9]+]]: memref<1x2x1x16xf32>, %[[POS:[a-z0-9]+]]: memref<1xi64>, %[[CACHE:[a-z0-9]+]]: memref<1x2x64x16xf32> {tcc.role = "state"}, %[[OUT:[a-z0-9]+]]: memref<1x2x64x16xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         tcc_kernel.scatter ins(%[[NEW]] : memref<1x2x1x16xf32>) index(%[[POS]] : memref<1xi64>) outs(%[[CACHE]] : memref<1x2x64x16xf32>)
// CHECK:         linalg.copy ins(%[[CACHE]] : memref<1x2x64x16xf32>) outs(%[[OUT]] : memref<1x2x64x16xf32>)
// CHECK-NEXT:    return
func.func @cache_in_place(%new: tensor<1x2x1x16xf32>, %pos: tensor<1xi64>,
                          %cache: tensor<1x2x64x16xf32> {tcc.role = "state", tcc.written_by = 1 : i64})
    -> (tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>) {
  %k = tcc_kernel.scatter ins(%new : tensor<1x2x1x16xf32>) index(%pos : tensor<1xi64>) outs(%cache : tensor<1x2x64x16xf32>) {dim = 2 : i64, message = ""} -> tensor<1x2x64x16xf32>
  return %k, %k : tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>
}

// -----

// An argument nobody writes is never written in place: a scatter into an
// input works on a copy of it.
// CHECK-LABEL: func @input_not_written(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<4x8xf32>, %{{.*}}: memref<2xi64>, %{{.*}}: memref<4x2xf32>, %[[OUT:[a-z0-9]+]]: memref<4x8xf32>)
// CHECK:         linalg.copy ins(%[[X]] : memref<4x8xf32>) outs(%[[OUT]] : memref<4x8xf32>)
// CHECK:         tcc_kernel.scatter ins({{.*}}) index({{.*}}) outs(%[[OUT]] : memref<4x8xf32>)
// CHECK-NOT:     outs(%[[X]]
func.func @input_not_written(%x: tensor<4x8xf32>, %i: tensor<2xi64>, %s: tensor<4x2xf32>) -> tensor<4x8xf32> {
  %y = tcc_kernel.scatter ins(%s : tensor<4x2xf32>) index(%i : tensor<2xi64>) outs(%x : tensor<4x8xf32>) {dim = 1 : i64, message = ""} -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A running sum: the elementwise producer of the new value writes straight
// into the state (its init is the argument) instead of a temporary.
// CHECK-LABEL: func @sum_in_place(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<4xf32>, %[[TOTAL:[a-z0-9]+]]: memref<4xf32> {tcc.role = "state"})
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {{.*}} ins(%[[TOTAL]], %[[X]] : memref<4xf32>, memref<4xf32>) outs(%[[TOTAL]] : memref<4xf32>)
// CHECK-NOT:     linalg.copy
#map = affine_map<(d0) -> (d0)>
func.func @sum_in_place(%x: tensor<4xf32>, %total: tensor<4xf32> {tcc.role = "state", tcc.written_by = 0 : i64}) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%total, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// One value is the new value of three states (transformers' static cache
// stores cache_position[0] in every layer's cumulative_length): its
// elementwise producer writes all three in place, one generic, no copies.
// CHECK-LABEL: func @one_value_three_states(
// CHECK-SAME:    %[[POS:[a-z0-9]+]]: memref<i64>, %[[A:[a-z0-9]+]]: memref<i64> {tcc.role = "state"}, %[[B:[a-z0-9]+]]: memref<i64> {tcc.role = "state"}, %[[C:[a-z0-9]+]]: memref<i64> {tcc.role = "state"})
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {{.*}} ins(%[[POS]] : memref<i64>) outs(%[[A]], %[[B]], %[[C]] : memref<i64>, memref<i64>, memref<i64>)
// CHECK:           linalg.yield %[[V:.*]], %[[V]], %[[V]] : i64, i64, i64
// CHECK-NOT:     linalg.copy
// CHECK:         return
#scalar = affine_map<() -> ()>
func.func @one_value_three_states(%pos: tensor<i64>,
    %a: tensor<i64> {tcc.role = "state", tcc.written_by = 0 : i64},
    %b: tensor<i64> {tcc.role = "state", tcc.written_by = 1 : i64},
    %c: tensor<i64> {tcc.role = "state", tcc.written_by = 2 : i64})
    -> (tensor<i64>, tensor<i64>, tensor<i64>) {
  %e = tensor.empty() : tensor<i64>
  %one = arith.constant 1 : i64
  %next = linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []} ins(%pos : tensor<i64>) outs(%e : tensor<i64>) {
  ^bb0(%p: i64, %o: i64):
    %r = arith.addi %p, %one : i64
    linalg.yield %r : i64
  } -> tensor<i64>
  return %next, %next, %next : tensor<i64>, tensor<i64>, tensor<i64>
}

// -----

// A producer that reads its output cannot be widened: the value is computed
// into the first state and copied from that one into each other state (not
// from state to state, and never back).
// CHECK-LABEL: func @one_value_copied_from_the_first(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<4xf32>, %[[A:[a-z0-9]+]]: memref<4xf32> {tcc.role = "state"}, %[[B:[a-z0-9]+]]: memref<4xf32> {tcc.role = "state"}, %[[C:[a-z0-9]+]]: memref<4xf32> {tcc.role = "state"})
// CHECK:         linalg.generic {{.*}} outs(%[[A]] : memref<4xf32>)
// CHECK-NEXT:    ^bb0
// CHECK:         linalg.copy ins(%[[A]] : memref<4xf32>) outs(%[[B]] : memref<4xf32>)
// CHECK-NEXT:    linalg.copy ins(%[[A]] : memref<4xf32>) outs(%[[C]] : memref<4xf32>)
// CHECK-NEXT:    return
#vec = affine_map<(d0) -> (d0)>
func.func @one_value_copied_from_the_first(%x: tensor<4xf32>,
    %a: tensor<4xf32> {tcc.role = "state", tcc.written_by = 0 : i64},
    %b: tensor<4xf32> {tcc.role = "state", tcc.written_by = 1 : i64},
    %c: tensor<4xf32> {tcc.role = "state", tcc.written_by = 2 : i64})
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %s = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%a : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %o : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %s, %s, %s : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A scatter's source view becomes a view of its base's buffer: the head of
// a fused projection is written into the cache without a copy.
// CHECK-LABEL: func @source_view_in_place(
// CHECK-SAME:    %[[QKV:[a-z0-9]+]]: memref<1x1x48xf32>, %[[POS:[a-z0-9]+]]: memref<1xi64>, %[[CACHE:[a-z0-9]+]]: memref<1x2x64x8xf32> {tcc.role = "state"})
// CHECK-NOT:     linalg.copy
// CHECK:         %[[V:.*]] = memref.reinterpret_cast %[[QKV]] to offset: [32], sizes: [1, 2, 1, 8], strides: [0, 8, 0, 1]
// CHECK:         tcc_kernel.scatter ins(%[[V]] : memref<1x2x1x8xf32, strided<[0, 8, 0, 1], offset: 32>>) index(%[[POS]] : memref<1xi64>) outs(%[[CACHE]] : memref<1x2x64x8xf32>) {dim = 2 : i64, message = ""}
// CHECK-NOT:     linalg.copy
func.func @source_view_in_place(%qkv: tensor<1x1x48xf32>, %pos: tensor<1xi64>,
    %cache: tensor<1x2x64x8xf32> {tcc.role = "state", tcc.written_by = 0 : i64}) -> tensor<1x2x64x8xf32> {
  %k = tcc_kernel.scatter ins(%qkv : tensor<1x1x48xf32>) index(%pos : tensor<1xi64>) outs(%cache : tensor<1x2x64x8xf32>) {dim = 2 : i64, message = "", source_views = [{offset = 32 : i64, sizes = array<i64: 1, 2, 1, 8>, strides = array<i64: 0, 8, 0, 1>}]} -> tensor<1x2x64x8xf32>
  return %k : tensor<1x2x64x8xf32>
}
