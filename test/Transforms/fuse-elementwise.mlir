// tcc-fuse-elementwise: upstream elementwise fusion, except that a computing
// producer is not fused into a contraction operand that skips some of its
// loops (it would be recomputed per iteration). Transposes still fold into
// the matmul's maps; computing producers of plain reductions still fuse.
// A producer that only moves data is fused even when it has several uses.
// RUN: tcc-opt %s -split-input-file -tcc-fuse-elementwise -mlir-print-local-scope | FileCheck %s

// CHECK-LABEL: func.func @activation_into_matmul(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<4x8xf32>, %[[W:[a-z0-9]+]]: tensor<16x8xf32>, %[[ACC:[a-z0-9]+]]: tensor<4x16xf32>)
// CHECK:         %[[H:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf32>)
// CHECK:           math.tanh
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[H]], %[[W]] : tensor<4x8xf32>, tensor<16x8xf32>) outs(%[[ACC]] : tensor<4x16xf32>)
// CHECK-NOT:       math.tanh
// CHECK:         return

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#mA = affine_map<(d0, d1, d2) -> (d0, d2)>
#mB = affine_map<(d0, d1, d2) -> (d2, d1)>
#mC = affine_map<(d0, d1, d2) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @activation_into_matmul(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %acc: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %h = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %et = tensor.empty() : tensor<8x16xf32>
  %wt = linalg.generic {indexing_maps = [#tr, #id2], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<16x8xf32>) outs(%et : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"]} ins(%h, %wt : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func.func @exp_into_sum(
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4x8xf32>)
// CHECK:           math.exp
// CHECK-NOT:     linalg.generic

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @exp_into_sum(%x: tensor<4x8xf32>, %acc: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %h = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%h : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %o, %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// A transpose read twice by its consumer (rotary: x·cos + rotate_half(x)·sin)
// is read through in place rather than written out: one generic is left.
// CHECK-LABEL: func.func @copy_read_twice(
// CHECK-SAME:    %[[P:[a-z0-9]+]]: tensor<2x8x4x64xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, (d3 + 32) mod 64)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      ins(%[[P]], %[[P]] : tensor<2x8x4x64xf32>, tensor<2x8x4x64xf32>)
// CHECK-NOT:     linalg.generic
#perm = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#rot = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, (d3 + 32) mod 64)>
func.func @copy_read_twice(%p: tensor<2x8x4x64xf32>) -> tensor<2x4x8x64xf32> {
  %e = tensor.empty() : tensor<2x4x8x64xf32>
  %x = linalg.generic {indexing_maps = [#perm, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<2x8x4x64xf32>) outs(%e : tensor<2x4x8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<2x4x8x64xf32>
  %e2 = tensor.empty() : tensor<2x4x8x64xf32>
  %y = linalg.generic {indexing_maps = [#id4, #rot, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %x : tensor<2x4x8x64xf32>, tensor<2x4x8x64xf32>) outs(%e2 : tensor<2x4x8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x4x8x64xf32>
  return %y : tensor<2x4x8x64xf32>
}

// -----

// A checked gather (its body holds a cf.assert) fused into its one consumer
// takes the check along; the gather itself, read by nobody then, is erased
// although the assert is a side effect (it ran as a kernel of its own).
// CHECK-LABEL: func.func @checked_gather
// CHECK:         linalg.generic
// CHECK:           cf.assert %{{.*}}, "model.py:3: index out of range"
// CHECK:           tensor.extract
// CHECK:           arith.addf
// CHECK-NOT:     linalg.generic
// CHECK:         return
#g1 = affine_map<(d0) -> (d0)>
func.func @checked_gather(%table: tensor<10xf32>, %ids: tensor<4xi64>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %c10 = arith.constant 10 : index
  %g = linalg.generic {indexing_maps = [#g1, #g1], iterator_types = ["parallel"]} ins(%ids : tensor<4xi64>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: i64, %o: f32):
    %c0 = arith.constant 0 : index
    %ix = arith.index_cast %i : i64 to index
    %ok = arith.cmpi ult, %ix, %c10 : index
    cf.assert %ok, "model.py:3: index out of range"
    %safe = arith.select %ok, %ix, %c0 : index
    %v = tensor.extract %table[%safe] : tensor<10xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#g1, #g1, #g1], iterator_types = ["parallel"]} ins(%g, %y : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// A collapse_shape that merges two symbolic dims is not folded into its
// consumer by expanding the consumer: that would put an expand_shape with a
// group of two symbolic dims on the consumer's other operand, which
// expand-strided-metadata crashes on. A static merge still folds.
// CHECK-LABEL: func.func @merge_of_symbolic_dims_kept(
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<?x?xf32> into tensor<?xf32>
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {{.*}} ins(%[[FLAT]], %{{.*}} : tensor<?xf32>, tensor<?xf32>)
#flat = affine_map<(d0) -> (d0)>
func.func @merge_of_symbolic_dims_kept(%x: tensor<?x?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %flat = tensor.collapse_shape %x [[0, 1]] : tensor<?x?xf32> into tensor<?xf32>
  %n = tensor.dim %y, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#flat, #flat, #flat], iterator_types = ["parallel"]} ins(%flat, %y : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @merge_of_static_dims_folds(
// CHECK:         tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
#flat2 = affine_map<(d0) -> (d0)>
func.func @merge_of_static_dims_folds(%x: tensor<4x8xf32>, %y: tensor<32xf32>) -> tensor<32xf32> {
  %flat = tensor.collapse_shape %x [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %e = tensor.empty() : tensor<32xf32>
  %r = linalg.generic {indexing_maps = [#flat2, #flat2, #flat2], iterator_types = ["parallel"]} ins(%flat, %y : tensor<32xf32>, tensor<32xf32>) outs(%e : tensor<32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  return %r : tensor<32xf32>
}
