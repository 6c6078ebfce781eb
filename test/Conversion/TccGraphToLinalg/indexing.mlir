// RUN: tcc-opt %s -convert-tcc-graph-to-linalg -split-input-file -mlir-print-local-scope | FileCheck %s

// Stretched dims read index 0; missing leading dims are dropped.
// CHECK-LABEL: func.func @broadcast
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK:           linalg.yield %{{.*}} : f32
func.func @broadcast(%x: tensor<1x1x16xf32>) -> tensor<3x2x5x16xf32> {
  %0 = tcc_graph.broadcast %x : (tensor<1x1x16xf32>) -> tensor<3x2x5x16xf32>
  return %0 : tensor<3x2x5x16xf32>
}

// -----

// The index is read at the loops that replace `dim`; a negative index wraps
// by the (here dynamic) dim size.
// CHECK-LABEL: func.func @take
// CHECK-SAME:    (%[[X:.*]]: tensor<2x?x5xf32>, %[[I:.*]]: tensor<4x3xi64>)
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %c1
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      ins(%[[I]] : tensor<4x3xi64>)
// CHECK:         ^bb0(%[[IN:.*]]: i64, %{{.*}}: f32):
// CHECK:           %[[L0:.*]] = linalg.index 0 : index
// CHECK:           %[[C:.*]] = arith.index_cast %[[IN]] : i64 to index
// CHECK:           %[[NEG:.*]] = arith.cmpi slt, %[[C]], %{{.*}} : index
// CHECK:           %[[UP:.*]] = arith.addi %[[C]], %[[N]] : index
// CHECK:           %[[W:.*]] = arith.select %[[NEG]], %[[UP]], %[[C]] : index
// An index outside [-size, size) fails a run-time check naming the source
// (PyTorch raises IndexError) and reads element 0, not outside the tensor.
// CHECK:           %[[GE:.*]] = arith.cmpi sge, %[[W]], %{{.*}} : index
// CHECK:           %[[LT:.*]] = arith.cmpi slt, %[[W]], %[[N]] : index
// CHECK:           %[[OK:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK:           cf.assert %[[OK]], "{{.*}}indexing.mlir:{{[0-9]+}}: index out of range for dim 1 of a tensor (an indexing operation, embedding, gather or index_select)"
// CHECK:           %[[SAFE:.*]] = arith.select %[[OK]], %[[W]], %{{.*}} : index
// CHECK:           %[[L3:.*]] = linalg.index 3 : index
// CHECK:           %[[E:.*]] = tensor.extract %[[X]][%[[L0]], %[[SAFE]], %[[L3]]] : tensor<2x?x5xf32>
// CHECK:           linalg.yield %[[E]] : f32
func.func @take(%x: tensor<2x?x5xf32>, %i: tensor<4x3xi64>) -> tensor<2x4x3x5xf32> {
  %0 = tcc_graph.take %x, %i {dim = 1 : i64} : (tensor<2x?x5xf32>, tensor<4x3xi64>) -> tensor<2x4x3x5xf32>
  return %0 : tensor<2x4x3x5xf32>
}

// -----

// CHECK-LABEL: func.func @gather
// CHECK-SAME:    (%[[X:.*]]: tensor<3x5xf32>, %[[I:.*]]: tensor<3x2xi64>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:           %[[L0:.*]] = linalg.index 0 : index
// CHECK:           cf.assert %{{.*}}, "{{.*}}: index out of range for dim 1 of a tensor of size 5 {{.*}}"
// CHECK:           %[[W:.*]] = arith.select
// CHECK:           tensor.extract %[[X]][%[[L0]], %[[W]]] : tensor<3x5xf32>
func.func @gather(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %0 = tcc_graph.gather %x, %i {dim = 1 : i64} : (tensor<3x5xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// offset + i0 * 5 + i1 * 2 into the input collapsed to 1-D.
// CHECK-LABEL: func.func @as_strided
// CHECK:         %[[F:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<3x5xf32> into tensor<15xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      outs(
// CHECK:           %[[A:.*]] = arith.addi %c1, %{{.*}} : index
// CHECK:           %[[B:.*]] = arith.addi %[[A]], %{{.*}} : index
// CHECK:           tensor.extract %[[F]][%[[B]]] : tensor<15xf32>
func.func @as_strided(%x: tensor<3x5xf32>) -> tensor<2x3xf32> {
  %0 = tcc_graph.as_strided %x {storage_offset = 1 : i64, strides = array<i64: 5, 2>} : (tensor<3x5xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
