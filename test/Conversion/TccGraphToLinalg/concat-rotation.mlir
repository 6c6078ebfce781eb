// RUN: tcc-opt %s -convert-tcc-graph-to-linalg -split-input-file -mlir-print-local-scope | FileCheck %s

// rotate_half(x) = cat(-x[..., 32:], x[..., :32]): one generic reading
// element (i + 32) mod 64, negating the first half; no slice is copied.
// CHECK-LABEL: func.func @rotate_half(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4x8x64xbf16>)
// CHECK-NOT:     tensor.insert_slice
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, (d3 + 32) mod 64)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      ins(%[[X]] : tensor<2x4x8x64xbf16>)
// CHECK:           %[[NEG:.*]] = arith.negf %[[IN:.*]] : bf16
// CHECK:           %[[I:.*]] = linalg.index 3 : index
// CHECK:           %[[FIRST:.*]] = arith.cmpi ult, %[[I]], %{{.*}} : index
// CHECK:           arith.select %[[FIRST]], %[[NEG]], %[[IN]] : bf16
// CHECK-NOT:     tensor.insert_slice
func.func @rotate_half(%x: tensor<2x4x8x64xbf16>) -> tensor<2x4x8x64xbf16> {
  %lo = tcc_graph.slice %x {dim = 3 : i64, start = 0 : i64, end = 32 : i64, step = 1 : i64} : (tensor<2x4x8x64xbf16>) -> tensor<2x4x8x32xbf16>
  %hi = tcc_graph.slice %x {dim = 3 : i64, start = 32 : i64, end = 64 : i64, step = 1 : i64} : (tensor<2x4x8x64xbf16>) -> tensor<2x4x8x32xbf16>
  %nhi = tcc_graph.neg %hi : tensor<2x4x8x32xbf16>
  %r = tcc_graph.concat %nhi, %lo {dim = 3 : i64} : (tensor<2x4x8x32xbf16>, tensor<2x4x8x32xbf16>) -> tensor<2x4x8x64xbf16>
  return %r : tensor<2x4x8x64xbf16>
}

// -----

// Halves in order, the second negated, along a middle dim with a symbolic
// batch: the identity map and a select on the second half.
// CHECK-LABEL: func.func @ordered_halves(
// CHECK-SAME:    %[[X:.*]]: tensor<?x6x5xf32>)
// CHECK:         tensor.empty(%{{.*}}) : tensor<?x6x5xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]{{.*}} ins(%[[X]] : tensor<?x6x5xf32>)
// CHECK:           %[[NEG:.*]] = arith.negf %[[IN:.*]] : f32
// CHECK:           arith.select %{{.*}}, %[[IN]], %[[NEG]] : f32
// CHECK-NOT:     tensor.insert_slice
func.func @ordered_halves(%x: tensor<?x6x5xf32>) -> tensor<?x6x5xf32> {
  %lo = tcc_graph.slice %x {dim = 1 : i64, start = 0 : i64, end = 3 : i64, step = 1 : i64} : (tensor<?x6x5xf32>) -> tensor<?x3x5xf32>
  %hi = tcc_graph.slice %x {dim = 1 : i64, start = 3 : i64, end = 6 : i64, step = 1 : i64} : (tensor<?x6x5xf32>) -> tensor<?x3x5xf32>
  %nhi = tcc_graph.neg %hi : tensor<?x3x5xf32>
  %r = tcc_graph.concat %lo, %nhi {dim = 1 : i64} : (tensor<?x3x5xf32>, tensor<?x3x5xf32>) -> tensor<?x6x5xf32>
  return %r : tensor<?x6x5xf32>
}

// -----

// torch.roll(x, -2, 1): cat(x[:, 2:], x[:, :2]), parts of any length, is x
// rotated by 2: one generic reading element (i + 2) mod 6, nothing copied.
// CHECK-LABEL: func.func @roll(
// CHECK-SAME:    %[[X:.*]]: tensor<4x6xf32>)
// CHECK-NOT:     tensor.insert_slice
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, (d1 + 2) mod 6)>, affine_map<(d0, d1) -> (d0, d1)>]{{.*}} ins(%[[X]] : tensor<4x6xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK-NOT:     tensor.insert_slice
func.func @roll(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %a = tcc_graph.slice %x {dim = 1 : i64, start = 0 : i64, end = 2 : i64, step = 1 : i64} : (tensor<4x6xf32>) -> tensor<4x2xf32>
  %b = tcc_graph.slice %x {dim = 1 : i64, start = 2 : i64, end = 6 : i64, step = 1 : i64} : (tensor<4x6xf32>) -> tensor<4x4xf32>
  %r = tcc_graph.concat %b, %a {dim = 1 : i64} : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// Parts that leave a gap, or slices of two different tensors, are not
// rotations: each concatenation is one generic reading its parts through
// their slices (concat-gather.mlir), not insert_slices.
// CHECK-LABEL: func.func @not_rotations(
// CHECK-NOT:     tensor.insert_slice
// CHECK:         linalg.generic
// CHECK:           tensor.extract %arg0
// CHECK:         linalg.generic
// CHECK:           tensor.extract %arg1
// CHECK-NOT:     tensor.insert_slice
func.func @not_rotations(%x: tensor<4x6xf32>, %y: tensor<4x6xf32>) -> (tensor<4x5xf32>, tensor<4x6xf32>) {
  %a = tcc_graph.slice %x {dim = 1 : i64, start = 0 : i64, end = 2 : i64, step = 1 : i64} : (tensor<4x6xf32>) -> tensor<4x2xf32>
  %b = tcc_graph.slice %x {dim = 1 : i64, start = 3 : i64, end = 6 : i64, step = 1 : i64} : (tensor<4x6xf32>) -> tensor<4x3xf32>
  %r = tcc_graph.concat %b, %a {dim = 1 : i64} : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<4x5xf32>
  %c = tcc_graph.slice %y {dim = 1 : i64, start = 0 : i64, end = 2 : i64, step = 1 : i64} : (tensor<4x6xf32>) -> tensor<4x2xf32>
  %d = tcc_graph.slice %x {dim = 1 : i64, start = 2 : i64, end = 6 : i64, step = 1 : i64} : (tensor<4x6xf32>) -> tensor<4x4xf32>
  %s = tcc_graph.concat %d, %c {dim = 1 : i64} : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x6xf32>
  return %r, %s : tensor<4x5xf32>, tensor<4x6xf32>
}
