// RUN: tcc-opt %s -convert-tcc-graph-to-linalg -split-input-file -mlir-print-local-scope | FileCheck %s

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// A missing leading operand dim is dropped from the operand's map.
// CHECK-LABEL: func.func @add_broadcast_rank
// CHECK-SAME:    (%[[A:.*]]: tensor<4x12xf32>, %[[B:.*]]: tensor<12xf32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x12xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%[[A]], %[[B]] : tensor<4x12xf32>, tensor<12xf32>) outs(%[[E]] : tensor<4x12xf32>)
// CHECK:         ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK:           linalg.yield %[[S]] : f32
// CHECK:         return %[[R]]
// CHECK-NOT:     tcc_graph
func.func @add_broadcast_rank(%a: tensor<4x12xf32>, %b: tensor<12xf32>) -> tensor<4x12xf32> {
  %0 = tcc_graph.add %a, %b : (tensor<4x12xf32>, tensor<12xf32>) -> tensor<4x12xf32>
  return %0 : tensor<4x12xf32>
}

// -----

// Static size-1 dims that stretch map to the constant 0 (batch_norm's
// per-channel [C, 1, 1] operand).
// CHECK-LABEL: func.func @mul_broadcast_unit
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK:           arith.mulf
func.func @mul_broadcast_unit(%a: tensor<2x8x4x4xf32>, %b: tensor<8x1x1xf32>) -> tensor<2x8x4x4xf32> {
  %0 = tcc_graph.mul %a, %b : (tensor<2x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<2x8x4x4xf32>
  return %0 : tensor<2x8x4x4xf32>
}

// -----

// Each dynamic result dim takes tensor.dim of the operand that is not
// broadcast along it: dim 0 from %b, dim 1 from %a.
// CHECK-LABEL: func.func @sub_broadcast_dynamic
// CHECK-SAME:    (%[[A:.*]]: tensor<1x?xf32>, %[[B:.*]]: tensor<?x1xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[D0:.*]] = tensor.dim %[[B]], %[[C0]] : tensor<?x1xf32>
// CHECK-DAG:     %[[D1:.*]] = tensor.dim %[[A]], %[[C1]] : tensor<1x?xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%[[D0]], %[[D1]]) : tensor<?x?xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[A]], %[[B]] : tensor<1x?xf32>, tensor<?x1xf32>) outs(%[[E]] : tensor<?x?xf32>)
// CHECK:           arith.subf
func.func @sub_broadcast_dynamic(%a: tensor<1x?xf32>, %b: tensor<?x1xf32>) -> tensor<?x?xf32> {
  %0 = tcc_graph.sub %a, %b : (tensor<1x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A scalar is a rank-0 arith.constant read through the empty map `() `.
// CHECK-LABEL: func.func @scalar_div
// CHECK-SAME:    (%[[A:.*]]: tensor<?x12xf32>)
// CHECK:         %[[CST:.*]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK:         %[[D:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x12xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x12xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[A]], %[[CST]] : tensor<?x12xf32>, tensor<f32>) outs(%[[E]] : tensor<?x12xf32>)
// CHECK:         ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK:           arith.divf %[[X]], %[[Y]] : f32
func.func @scalar_div(%a: tensor<?x12xf32>) -> tensor<?x12xf32> {
  %c = tcc_graph.constant dense<2.0> : tensor<f32>
  %0 = tcc_graph.div %a, %c : (tensor<?x12xf32>, tensor<f32>) -> tensor<?x12xf32>
  return %0 : tensor<?x12xf32>
}

// -----

// CHECK-LABEL: func.func @relu
// CHECK-SAME:    (%[[A:.*]]: tensor<?x10xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[A]] : tensor<?x10xf32>)
// CHECK:         ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           %[[M:.*]] = arith.maximumf %[[X]], %[[ZERO]] : f32
// CHECK:           linalg.yield %[[M]] : f32
func.func @relu(%a: tensor<?x10xf32>) -> tensor<?x10xf32> {
  %0 = tcc_graph.relu %a : tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

// CHECK-LABEL: func.func @unary
// CHECK:         linalg.generic
// CHECK:           math.sin
// CHECK:         linalg.generic
// CHECK:           math.cos
// CHECK:         linalg.generic
// CHECK:           math.exp
// CHECK:         linalg.generic
// CHECK:           math.sqrt
// CHECK:         linalg.generic
// CHECK:           math.rsqrt
// CHECK:         linalg.generic
// CHECK:           arith.negf
// CHECK:         linalg.generic
// CHECK:           arith.maximumf
func.func @unary(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tcc_graph.sin %a : tensor<3xf32>
  %1 = tcc_graph.cos %0 : tensor<3xf32>
  %2 = tcc_graph.exp %1 : tensor<3xf32>
  %3 = tcc_graph.sqrt %2 : tensor<3xf32>
  %4 = tcc_graph.rsqrt %3 : tensor<3xf32>
  %5 = tcc_graph.neg %4 : tensor<3xf32>
  %6 = tcc_graph.maximum %5, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %6 : tensor<3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<?x100xf32>, %[[B:.*]]: tensor<100x10xf32>)
// CHECK:         %[[D:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x100xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x10xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<?x10xf32>)
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[A]], %[[B]] : tensor<?x100xf32>, tensor<100x10xf32>) outs(%[[INIT]] : tensor<?x10xf32>)
// CHECK:         ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK:           %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK:           %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK:           linalg.yield %[[S]] : f32
// CHECK:         return %[[R]]
func.func @matmul(%a: tensor<?x100xf32>, %b: tensor<100x10xf32>) -> tensor<?x10xf32> {
  %0 = tcc_graph.matmul %a, %b : (tensor<?x100xf32>, tensor<100x10xf32>) -> tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

// Batch dims broadcast: lhs's size-1 batch dim maps to 0, rhs has no leading
// batch dim; loops are (b0, b1, m, n, k).
// CHECK-LABEL: func.func @matmul_batch_broadcast
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x3x4x5xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
func.func @matmul_batch_broadcast(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = tcc_graph.matmul %a, %b : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// -----

// Dynamic batch from lhs, dynamic N from rhs's last dim.
// CHECK-LABEL: func.func @matmul_batch_dynamic
// CHECK-SAME:    (%[[A:.*]]: tensor<?x4x8xf32>, %[[B:.*]]: tensor<8x?xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[BATCH:.*]] = tensor.dim %[[A]], %[[C0]] : tensor<?x4x8xf32>
// CHECK-DAG:     %[[N:.*]] = tensor.dim %[[B]], %[[C1]] : tensor<8x?xf32>
// CHECK:         tensor.empty(%[[BATCH]], %[[N]]) : tensor<?x4x?xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "reduction"]
func.func @matmul_batch_dynamic(%a: tensor<?x4x8xf32>, %b: tensor<8x?xf32>) -> tensor<?x4x?xf32> {
  %0 = tcc_graph.matmul %a, %b : (tensor<?x4x8xf32>, tensor<8x?xf32>) -> tensor<?x4x?xf32>
  return %0 : tensor<?x4x?xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

// Zero padding as tensor.pad; the bias, broadcast along channels, is the
// accumulator's initial value; stride 2 reaches the named op.
// CHECK-LABEL: func.func @conv2d_bias_stride
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x16x16xf32>, %[[W:.*]]: tensor<8x3x3x3xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:           tensor.yield %[[ZERO]] : f32
// CHECK:         } : tensor<2x3x16x16xf32> to tensor<2x3x18x18xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x8x8x8xf32>
// CHECK:         %[[INIT:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      ins(%[[B]] : tensor<8xf32>) outs(%[[E]] : tensor<2x8x8x8xf32>)
// CHECK:         %[[R:.*]] = linalg.conv_2d_nchw_fchw
// CHECK-SAME:      dilations = dense<1> : vector<2xi64>
// CHECK-SAME:      strides = dense<2> : vector<2xi64>
// CHECK-SAME:      ins(%[[PAD]], %[[W]] : tensor<2x3x18x18xf32>, tensor<8x3x3x3xf32>) outs(%[[INIT]] : tensor<2x8x8x8xf32>)
// CHECK:         return %[[R]]
func.func @conv2d_bias_stride(%x: tensor<2x3x16x16xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<2x8x8x8xf32> {
  %0 = tcc_graph.conv2d %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x3x16x16xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x8x8xf32>
  return %0 : tensor<2x8x8x8xf32>
}

// -----

// No padding means no tensor.pad; without bias the accumulator is zero-filled;
// per-dim dilations and strides are kept in order; the batch dim is dynamic.
// CHECK-LABEL: func.func @conv2d_dilation_no_bias
// CHECK-SAME:    (%[[X:.*]]: tensor<?x3x16x16xf32>, %[[W:.*]]: tensor<8x3x3x3xf32>)
// CHECK-NOT:     tensor.pad
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3x16x16xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x8x6x9xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<?x8x6x9xf32>)
// CHECK:         linalg.conv_2d_nchw_fchw
// CHECK-SAME:      dilations = dense<[2, 3]> : vector<2xi64>
// CHECK-SAME:      strides = dense<[2, 1]> : vector<2xi64>
// CHECK-SAME:      ins(%[[X]], %[[W]] : tensor<?x3x16x16xf32>, tensor<8x3x3x3xf32>) outs(%[[INIT]] : tensor<?x8x6x9xf32>)
func.func @conv2d_dilation_no_bias(%x: tensor<?x3x16x16xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<?x8x6x9xf32> {
  %0 = tcc_graph.conv2d %x, %w {stride = array<i64: 2, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 2, 3>, groups = 1 : i64} : (tensor<?x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<?x8x6x9xf32>
  return %0 : tensor<?x8x6x9xf32>
}

// -----

// Grouped: channels split group-major ([G*C] -> [G, C]); PyTorch's weight
// [G*F, C, kh, kw] is [G, F, C, kh, kw], hence ngchw_gfchw.
// CHECK-LABEL: func.func @conv2d_grouped
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x8x8xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK:         %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:         %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<6xf32>)
// CHECK:         %[[XG:.*]] = tensor.expand_shape %[[PAD]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 2, 10, 10] : tensor<2x4x10x10xf32> into tensor<2x2x2x10x10xf32>
// CHECK:         %[[WG:.*]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3] : tensor<6x2x3x3xf32> into tensor<2x3x2x3x3xf32>
// CHECK:         %[[IG:.*]] = tensor.expand_shape %[[INIT]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 3, 8, 8] : tensor<2x6x8x8xf32> into tensor<2x2x3x8x8xf32>
// CHECK:         %[[C:.*]] = linalg.conv_2d_ngchw_gfchw
// CHECK-SAME:      dilations = dense<1> : vector<2xi64>
// CHECK-SAME:      strides = dense<1> : vector<2xi64>
// CHECK-SAME:      ins(%[[XG]], %[[WG]] : tensor<2x2x2x10x10xf32>, tensor<2x3x2x3x3xf32>) outs(%[[IG]] : tensor<2x2x3x8x8xf32>)
// CHECK:         %[[R:.*]] = tensor.collapse_shape %[[C]] {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x3x8x8xf32> into tensor<2x6x8x8xf32>
// CHECK:         return %[[R]]
func.func @conv2d_grouped(%x: tensor<2x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x8x8xf32> {
  %0 = tcc_graph.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64} : (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<2x6x8x8xf32>
  return %0 : tensor<2x6x8x8xf32>
}

// -----

// Depthwise (groups = channels, one filter per group) with stride 2.
// CHECK-LABEL: func.func @conv2d_depthwise
// CHECK:         tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3], [4]] output_shape [4, 1, 1, 3, 3] : tensor<4x1x3x3xf32> into tensor<4x1x1x3x3xf32>
// CHECK:         linalg.conv_2d_ngchw_gfchw
// CHECK-SAME:      strides = dense<2> : vector<2xi64>
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<1x4x1x10x10xf32>, tensor<4x1x1x3x3xf32>) outs(%{{.*}} : tensor<1x4x1x4x4xf32>)
func.func @conv2d_depthwise(%x: tensor<1x4x10x10xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %0 = tcc_graph.conv2d %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 4 : i64} : (tensor<1x4x10x10xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// Max pooling over a small window: one parallel generic over the output
// (no padded copy, no accumulator): each element reads its 3x3 window
// directly, a coordinate in the padding clamped to 0 and its value -inf.
// CHECK-LABEL: func.func @max_pool2d
// CHECK-SAME:    (%[[X:.*]]: tensor<2x8x8x8xf32>)
// CHECK-NOT:     tensor.pad
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x8x4x4xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:      outs(%[[E]] : tensor<2x8x4x4xf32>)
// CHECK:           %[[OH:.*]] = linalg.index 2 : index
// CHECK:           %[[SCALED:.*]] = arith.muli %[[OH]], %c2
// CHECK:           %[[START:.*]] = arith.subi %[[SCALED]], %c1
// CHECK:           %[[ROW:.*]] = arith.addi %[[START]], %{{.*}} : index
// CHECK:           %[[AFTER0:.*]] = arith.cmpi sge, %[[ROW]], %c0
// CHECK:           %[[BEFORE8:.*]] = arith.cmpi slt, %[[ROW]], %c8
// CHECK:           %[[IN:.*]] = arith.andi %[[AFTER0]], %[[BEFORE8]] : i1
// CHECK:           arith.select %[[IN]], %[[ROW]], %c0 : index
// CHECK:           %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-COUNT-9:   tensor.extract %[[X]]
// CHECK-NOT:       tensor.extract
// CHECK:           %[[V:.*]] = arith.select %{{.*}}, %{{.*}}, %[[NEG_INF]] : f32
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %{{.*}}, %[[V]] : f32
// CHECK-NEXT:      linalg.yield %[[M]] : f32
// CHECK:         return %[[R]]
func.func @max_pool2d(%x: tensor<2x8x8x8xf32>) -> tensor<2x8x4x4xf32> {
  %0 = tcc_graph.max_pool2d %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<2x8x8x8xf32>) -> tensor<2x8x4x4xf32>
  return %0 : tensor<2x8x4x4xf32>
}

// -----

// Pooling over symbolic heights and widths: the result's sizes are the
// windows over the input's sizes at run time (ceil_mode: rounded up, less a
// window that would start in the trailing padding), and each window's
// bounds test reads the input's size too. Average pooling divides by the
// count of the window's elements inside the input and its padding.
// CHECK-LABEL: func.func @pools_symbolic_spatial
// CHECK: tensor.dim %arg0, %{{.*}} : tensor<2x8x?x?xf32>
// CHECK: arith.floordivsi
// CHECK: arith.cmpi sge
// CHECK: %[[OH:.*]] = arith.select
// CHECK: tensor.dim %arg0
// CHECK: %[[OW:.*]] = arith.select
// CHECK: %[[H:.*]] = tensor.dim %arg0, %{{.*}} : tensor<2x8x?x?xf32>
// CHECK: tensor.empty(%[[OH]], %[[OW]]) : tensor<2x8x?x?xf32>
// CHECK: linalg.generic
// CHECK: arith.cmpi slt, %{{.*}}, %[[H]] : index
// CHECK: arith.maximumf
// CHECK: linalg.pooling_nchw_sum
// CHECK: arith.divf
func.func @pools_symbolic_spatial(%x: tensor<2x8x?x?xf32>) -> (tensor<2x8x?x?xf32>, tensor<2x8x?x?xf32>) {
  %0 = tcc_graph.max_pool2d %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = true, count_include_pad = false} : (tensor<2x8x?x?xf32>) -> tensor<2x8x?x?xf32>
  %1 = tcc_graph.avg_pool2d %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<2x8x?x?xf32>) -> tensor<2x8x?x?xf32>
  return %0, %1 : tensor<2x8x?x?xf32>, tensor<2x8x?x?xf32>
}

// -----

// ceil_mode over symbolic sizes (average pooling) and windows of more than
// 64 elements over symbolic sizes (max pooling): the input is padded at the
// end by max(pad, (windows - 1) * stride + span - size - pad), computed at
// run time from the window count, so the last window exists; the divisor
// reads the input's size. Without ceil_mode the padding stays a constant.
// CHECK-LABEL: func.func @pools_symbolic_ceil_and_large
// CHECK: %[[OH:.*]] = arith.select
// CHECK: %[[OW:.*]] = arith.select
// CHECK: %[[EH:.*]] = arith.muli %[[OH]], %{{.*}} : index
// CHECK: %[[XH:.*]] = arith.maxsi
// CHECK: %[[EW:.*]] = arith.muli %[[OW]], %{{.*}} : index
// CHECK: %[[XW:.*]] = arith.maxsi
// CHECK: tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, %[[XH]], %[[XW]]]
// CHECK: tensor.empty(%[[OH]], %[[OW]]) : tensor<2x8x?x?xf32>
// CHECK: linalg.pooling_nchw_sum {{.*}} strides = dense<3>
// CHECK: arith.divf
// CHECK: tensor.pad %arg0 low[0, 0, 2, 2] high[0, 0, 2, 2]
// CHECK: linalg.pooling_nchw_max {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x8x?x?xf32>, tensor<9x9xf32>)
func.func @pools_symbolic_ceil_and_large(%x: tensor<2x8x?x?xf32>) -> (tensor<2x8x?x?xf32>, tensor<2x8x?x?xf32>) {
  %0 = tcc_graph.avg_pool2d %x {kernel = array<i64: 3, 3>, stride = array<i64: 3, 3>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = true, count_include_pad = true} : (tensor<2x8x?x?xf32>) -> tensor<2x8x?x?xf32>
  %1 = tcc_graph.max_pool2d %x {kernel = array<i64: 9, 9>, stride = array<i64: 3, 3>, padding = array<i64: 2, 2>, dilation = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<2x8x?x?xf32>) -> tensor<2x8x?x?xf32>
  return %0, %1 : tensor<2x8x?x?xf32>, tensor<2x8x?x?xf32>
}

// -----

// ceil_mode: 9 / 2 rounds up to 5 windows; the last one's second row and
// column (coordinate 9) lie past the input: they read -inf.
// CHECK-LABEL: func.func @max_pool2d_ceil_mode
// CHECK-SAME:    (%[[X:.*]]: tensor<?x8x9x9xf32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8x9x9xf32>
// CHECK:         tensor.empty(%[[N]]) : tensor<?x8x5x5xf32>
// CHECK:         linalg.generic
// CHECK:           arith.cmpi slt, %{{.*}}, %c9 : index
// CHECK-COUNT-4:   tensor.extract %[[X]]
// CHECK-NOT:       tensor.extract
func.func @max_pool2d_ceil_mode(%x: tensor<?x8x9x9xf32>) -> tensor<?x8x5x5xf32> {
  %0 = tcc_graph.max_pool2d %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = true, count_include_pad = false} : (tensor<?x8x9x9xf32>) -> tensor<?x8x5x5xf32>
  return %0 : tensor<?x8x5x5xf32>
}

// -----

// A window of more than 64 elements stays a -inf-padded copy and a pooling
// loop nest whose accumulator starts at -inf.
// CHECK-LABEL: func.func @max_pool2d_large_window
// CHECK-SAME:    (%[[X:.*]]: tensor<1x2x12x12xf32>)
// CHECK:         %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 4, 4] high[0, 0, 4, 4]
// CHECK:           tensor.yield %[[NEG_INF]] : f32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x12x12xf32>)
// CHECK:         linalg.pooling_nchw_max
// CHECK-SAME:      ins(%[[PAD]], %{{.*}} : tensor<1x2x20x20xf32>, tensor<9x9xf32>) outs(%[[INIT]] : tensor<1x2x12x12xf32>)
func.func @max_pool2d_large_window(%x: tensor<1x2x12x12xf32>) -> tensor<1x2x12x12xf32> {
  %0 = tcc_graph.max_pool2d %x {kernel = array<i64: 9, 9>, stride = array<i64: 1, 1>, padding = array<i64: 4, 4>, dilation = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x2x12x12xf32>) -> tensor<1x2x12x12xf32>
  return %0 : tensor<1x2x12x12xf32>
}

// -----

// Average pooling: sum pooling over the zero-padded input, then a generic
// that divides by the window size computed from the output position:
// start = o * 2 - 1, end = min(start + 3, 8 + 1); padding counts.
// CHECK-LABEL: func.func @avg_pool2d
// CHECK-SAME:    (%[[X:.*]]: tensor<2x8x8x8xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:           tensor.yield %[[ZERO]] : f32
// CHECK:         %[[INIT:.*]] = linalg.fill
// CHECK:         %[[WIN:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK:         %[[SUM:.*]] = linalg.pooling_nchw_sum
// CHECK-SAME:      dilations = dense<1> : vector<2xi64>
// CHECK-SAME:      strides = dense<2> : vector<2xi64>
// CHECK-SAME:      ins(%[[PAD]], %[[WIN]] : tensor<2x8x10x10xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<2x8x4x4xf32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x8x4x4xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      ins(%[[SUM]] : tensor<2x8x4x4xf32>) outs(%[[E]] : tensor<2x8x4x4xf32>)
// CHECK:         ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[OH:.*]] = linalg.index 2 : index
// CHECK:           %[[SH:.*]] = arith.muli %[[OH]], %{{.*}} : index
// CHECK:           %[[STARTH:.*]] = arith.subi %[[SH]], %{{.*}} : index
// CHECK:           %[[K:.*]] = arith.constant 3 : index
// CHECK:           %[[EH:.*]] = arith.addi %[[STARTH]], %[[K]] : index
// CHECK:           %[[C9:.*]] = arith.constant 9 : index
// CHECK:           %[[ENDH:.*]] = arith.minsi %[[EH]], %[[C9]] : index
// CHECK-NOT:       arith.maxsi
// CHECK:           %[[CNTH:.*]] = arith.subi %[[ENDH]], %[[STARTH]] : index
// CHECK:           %[[ACC:.*]] = arith.muli %{{.*}}, %[[CNTH]] : index
// CHECK:           %[[OW:.*]] = linalg.index 3 : index
// CHECK:           %[[SW:.*]] = arith.muli %[[OW]], %{{.*}} : index
// CHECK:           %[[STARTW:.*]] = arith.subi %[[SW]], %{{.*}} : index
// CHECK:           %[[EW:.*]] = arith.addi %[[STARTW]], %{{.*}} : index
// CHECK:           %[[ENDW:.*]] = arith.minsi %[[EW]], %{{.*}} : index
// CHECK-NOT:       arith.maxsi
// CHECK:           %[[CNTW:.*]] = arith.subi %[[ENDW]], %[[STARTW]] : index
// CHECK:           %[[CNT:.*]] = arith.muli %[[ACC]], %[[CNTW]] : index
// CHECK:           %[[I:.*]] = arith.index_cast %[[CNT]] : index to i64
// CHECK:           %[[F:.*]] = arith.sitofp %[[I]] : i64 to f32
// CHECK:           %[[AVG:.*]] = arith.divf %[[IN]], %[[F]] : f32
// CHECK:           linalg.yield %[[AVG]] : f32
// CHECK:         return %[[R]]
func.func @avg_pool2d(%x: tensor<2x8x8x8xf32>) -> tensor<2x8x4x4xf32> {
  %0 = tcc_graph.avg_pool2d %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = false, count_include_pad = true} : (tensor<2x8x8x8xf32>) -> tensor<2x8x4x4xf32>
  return %0 : tensor<2x8x4x4xf32>
}

// -----

// count_include_pad = false: the window is also clamped to the unpadded input
// [0, 8) before counting.
// CHECK-LABEL: func.func @avg_pool2d_exclude_pad
// CHECK:         linalg.pooling_nchw_sum
// CHECK:         linalg.generic
// CHECK:           %[[OH:.*]] = linalg.index 2 : index
// CHECK:           %[[SH:.*]] = arith.muli %[[OH]], %{{.*}} : index
// CHECK:           %[[STARTH:.*]] = arith.subi %[[SH]], %{{.*}} : index
// CHECK:           %[[ENDH:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK:           %[[C0:.*]] = arith.constant 0 : index
// CHECK:           %[[LO:.*]] = arith.maxsi %[[STARTH]], %[[C0]] : index
// CHECK:           %[[C8:.*]] = arith.constant 8 : index
// CHECK:           %[[HI:.*]] = arith.minsi %[[ENDH]], %[[C8]] : index
// CHECK:           arith.subi %[[HI]], %[[LO]] : index
// CHECK:           linalg.index 3 : index
// CHECK:           arith.maxsi
// CHECK:           arith.divf
func.func @avg_pool2d_exclude_pad(%x: tensor<2x8x8x8xf32>) -> tensor<2x8x4x4xf32> {
  %0 = tcc_graph.avg_pool2d %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<2x8x8x8xf32>) -> tensor<2x8x4x4xf32>
  return %0 : tensor<2x8x4x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// keepdim re-inserts the reduced dim with expand_shape.
// CHECK-LABEL: func.func @reduce_sum_keepdim
// CHECK-SAME:    (%[[X:.*]]: tensor<4x18xf32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<4xf32>)
// CHECK:         %[[RED:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]] : tensor<4x18xf32>) outs(%[[INIT]] : tensor<4xf32>)
// CHECK:           arith.addf
// CHECK:         %[[R:.*]] = tensor.expand_shape %[[RED]] {{\[}}[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
// CHECK:         return %[[R]]
func.func @reduce_sum_keepdim(%x: tensor<4x18xf32>) -> tensor<4x1xf32> {
  %0 = tcc_graph.reduce_sum %x {dims = array<i64: 1>, keepdim = true} : (tensor<4x18xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_max
// CHECK-SAME:    (%[[X:.*]]: tensor<?x3x5xf32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3x5xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x5xf32>
// CHECK:         %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[NEG_INF]] : f32) outs(%[[E]] : tensor<?x5xf32>)
// A reduced dim before a kept one is the innermost loop all the same (the
// GPU mapping reduces only there), read through the input's map: no copy.
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[RED:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]] : tensor<?x3x5xf32>) outs(%[[INIT]] : tensor<?x5xf32>)
// CHECK:           arith.maximumf
// CHECK-NOT:     tensor.expand_shape
// CHECK:         return %[[RED]]
func.func @reduce_max(%x: tensor<?x3x5xf32>) -> tensor<?x5xf32> {
  %0 = tcc_graph.reduce_max %x {dims = array<i64: 1>, keepdim = false} : (tensor<?x3x5xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// Mean: sum, then divide by the product of the reduced dims' run-time sizes;
// with keepdim the trailing unit dims join the last kept dim's group.
// CHECK-LABEL: func.func @reduce_mean_keepdim
// CHECK-SAME:    (%[[X:.*]]: tensor<?x8x4x4xf32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8x4x4xf32>
// CHECK:         %[[RED:.*]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:      ins(%[[X]] : tensor<?x8x4x4xf32>) outs(%{{.*}} : tensor<?x8xf32>)
// CHECK:           arith.addf
// CHECK:         %[[ONE:.*]] = arith.constant 1 : index
// CHECK:         %[[C2:.*]] = arith.constant 2 : index
// CHECK:         %[[H:.*]] = tensor.dim %[[X]], %[[C2]]
// CHECK:         %[[P:.*]] = arith.muli %[[ONE]], %[[H]] : index
// CHECK:         %[[C3:.*]] = arith.constant 3 : index
// CHECK:         %[[W:.*]] = tensor.dim %[[X]], %[[C3]]
// CHECK:         %[[CNT:.*]] = arith.muli %[[P]], %[[W]] : index
// CHECK:         %[[I:.*]] = arith.index_cast %[[CNT]] : index to i64
// CHECK:         %[[F:.*]] = arith.sitofp %[[I]] : i64 to f32
// CHECK:         %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK:         %[[MEAN:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[RED]] : tensor<?x8xf32>) outs(%[[E]] : tensor<?x8xf32>)
// CHECK:         ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK:           arith.divf %[[IN]], %[[F]] : f32
// CHECK:         %[[R:.*]] = tensor.expand_shape %[[MEAN]] {{\[}}[0], [1, 2, 3]] output_shape [%[[N]], 8, 1, 1] : tensor<?x8xf32> into tensor<?x8x1x1xf32>
// CHECK:         return %[[R]]
func.func @reduce_mean_keepdim(%x: tensor<?x8x4x4xf32>) -> tensor<?x8x1x1xf32> {
  %0 = tcc_graph.reduce_mean %x {dims = array<i64: 2, 3>, keepdim = true} : (tensor<?x8x4x4xf32>) -> tensor<?x8x1x1xf32>
  return %0 : tensor<?x8x1x1xf32>
}

// -----

// Leading and trailing reduced dims both attach to the single kept dim
// (the kept dim the outer loop, read through the input's map).
// CHECK-LABEL: func.func @reduce_sum_outer_keepdim
// CHECK-SAME:    (%[[X:.*]]: tensor<3x?x5xf32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<3x?x5xf32>
// CHECK:         %[[RED:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d0)>], iterator_types = ["parallel", "reduction", "reduction"]
// CHECK-SAME:      ins(%[[X]] : tensor<3x?x5xf32>) outs(%{{.*}} : tensor<?xf32>)
// CHECK:         tensor.expand_shape %[[RED]] {{\[}}[0, 1, 2]] output_shape [1, %[[N]], 1] : tensor<?xf32> into tensor<1x?x1xf32>
func.func @reduce_sum_outer_keepdim(%x: tensor<3x?x5xf32>) -> tensor<1x?x1xf32> {
  %0 = tcc_graph.reduce_sum %x {dims = array<i64: 0, 2>, keepdim = true} : (tensor<3x?x5xf32>) -> tensor<1x?x1xf32>
  return %0 : tensor<1x?x1xf32>
}

// -----

// Reducing every dim gives rank 0; keepdim expands it with no reassociation.
// CHECK-LABEL: func.func @reduce_mean_all
// CHECK:         %[[RED:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%{{.*}} : tensor<3x5xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK:         %[[MEAN:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []
// CHECK-SAME:      ins(%[[RED]] : tensor<f32>)
// CHECK:         tensor.expand_shape %[[MEAN]] [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
func.func @reduce_mean_all(%x: tensor<3x5xf32>) -> tensor<1x1xf32> {
  %0 = tcc_graph.reduce_mean %x {dims = array<i64: 0, 1>, keepdim = true} : (tensor<3x5xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// Result dim i is input dim perm[i] = [2, 0, 1][i], so the input is read at
// (d1, d2, d0); the dynamic result dim 1 is the input's dim 0.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME:    (%[[X:.*]]: tensor<?x3x5xf32>)
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[D:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x3x5xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%[[D]]) : tensor<5x?x3xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2, d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:      ins(%[[X]] : tensor<?x3x5xf32>) outs(%[[E]] : tensor<5x?x3xf32>)
// CHECK:         ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK:           linalg.yield %[[IN]] : f32
// CHECK:         return %[[R]]
func.func @transpose(%x: tensor<?x3x5xf32>) -> tensor<5x?x3xf32> {
  %0 = tcc_graph.transpose %x {permutation = array<i64: 2, 0, 1>} : (tensor<?x3x5xf32>) -> tensor<5x?x3xf32>
  return %0 : tensor<5x?x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_static
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK:         %[[R:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [6, 4] : tensor<24xf32> into tensor<6x4xf32>
// CHECK:         return %[[R]]
func.func @reshape_static(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %0 = tcc_graph.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// A symbolic dim that stays a dim of its own keeps its group: the static
// dims around it regroup by equal products (no flattening, so no expand
// group ever holds two symbolic dims).
// CHECK-LABEL: func.func @reshape_dynamic
// CHECK-SAME:    (%[[X:.*]]: tensor<?x16x1x1xf32>)
// CHECK:         %[[MID:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2, 3]] : tensor<?x16x1x1xf32> into tensor<?x16xf32>
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[D:.*]] = tensor.dim %[[MID]], %[[C0]] : tensor<?x16xf32>
// CHECK:         %[[R:.*]] = tensor.expand_shape %[[MID]] {{\[}}[0], [1, 2]] output_shape [%[[D]], 4, 4] : tensor<?x16xf32> into tensor<?x4x4xf32>
// CHECK:         return %[[R]]
func.func @reshape_dynamic(%x: tensor<?x16x1x1xf32>) -> tensor<?x4x4xf32> {
  %0 = tcc_graph.reshape %x : (tensor<?x16x1x1xf32>) -> tensor<?x4x4xf32>
  return %0 : tensor<?x4x4xf32>
}

// -----

// To rank 1 the collapse alone is the result.
// CHECK-LABEL: func.func @reshape_flatten
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2, 3]] : tensor<?x16x1x1xf32> into tensor<?xf32>
// CHECK-NOT:     tensor.expand_shape
// CHECK:         return %[[FLAT]]
func.func @reshape_flatten(%x: tensor<?x16x1x1xf32>) -> tensor<?xf32> {
  %0 = tcc_graph.reshape %x : (tensor<?x16x1x1xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Rank 0 to and from all-unit shapes (x.view(1, 1), y.view(())).
// CHECK-LABEL: func.func @reshape_rank0
// CHECK-SAME:    (%[[S:.*]]: tensor<f32>, %[[T:.*]]: tensor<1x1xf32>)
// CHECK:         %[[UP:.*]] = tensor.expand_shape %[[S]] [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[T]] {{\[}}[0, 1]] : tensor<1x1xf32> into tensor<1xf32>
// CHECK:         %[[DOWN:.*]] = tensor.collapse_shape %[[FLAT]] [] : tensor<1xf32> into tensor<f32>
// CHECK:         return %[[UP]], %[[DOWN]]
func.func @reshape_rank0(%s: tensor<f32>, %t: tensor<1x1xf32>) -> (tensor<1x1xf32>, tensor<f32>) {
  %0 = tcc_graph.reshape %s : (tensor<f32>) -> tensor<1x1xf32>
  %1 = tcc_graph.reshape %t : (tensor<1x1xf32>) -> tensor<f32>
  return %0, %1 : tensor<1x1xf32>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @concat_static
// CHECK-SAME:    (%[[A:.*]]: tensor<2x8x4xf32>, %[[B:.*]]: tensor<2x3x4xf32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x11x4xf32>
// CHECK:         %[[S0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0, 0] [2, 8, 4] [1, 1, 1] : tensor<2x8x4xf32> into tensor<2x11x4xf32>
// CHECK:         %[[S1:.*]] = tensor.insert_slice %[[B]] into %[[S0]][0, 8, 0] [2, 3, 4] [1, 1, 1] : tensor<2x3x4xf32> into tensor<2x11x4xf32>
// CHECK:         return %[[S1]]
func.func @concat_static(%a: tensor<2x8x4xf32>, %b: tensor<2x3x4xf32>) -> tensor<2x11x4xf32> {
  %0 = tcc_graph.concat %a, %b {dim = 1 : i64} : (tensor<2x8x4xf32>, tensor<2x3x4xf32>) -> tensor<2x11x4xf32>
  return %0 : tensor<2x11x4xf32>
}

// -----

// Along a dynamic dim: the size is the sum of the inputs' sizes and each
// offset the running sum.
// CHECK-LABEL: func.func @concat_dynamic
// CHECK-SAME:    (%[[A:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<?x4xf32>, %[[C:.*]]: tensor<2x4xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:         %[[DA:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x4xf32>
// CHECK:         %[[T0:.*]] = arith.addi %[[ZERO]], %[[DA]] : index
// CHECK:         %[[DB:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x4xf32>
// CHECK:         %[[T1:.*]] = arith.addi %[[T0]], %[[DB]] : index
// CHECK:         %[[DC:.*]] = tensor.dim %[[C]], %{{.*}} : tensor<2x4xf32>
// CHECK:         %[[TOTAL:.*]] = arith.addi %[[T1]], %[[DC]] : index
// CHECK:         %[[E:.*]] = tensor.empty(%[[TOTAL]]) : tensor<?x4xf32>
// CHECK:         %[[SA:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x4xf32>
// CHECK:         %[[S0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [%[[SA]], 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
// CHECK:         %[[OFF1:.*]] = arith.addi %{{.*}}, %[[SA]] : index
// CHECK:         %[[SB:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x4xf32>
// CHECK:         %[[S1:.*]] = tensor.insert_slice %[[B]] into %[[S0]][%[[OFF1]], 0] [%[[SB]], 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
// CHECK:         %[[OFF2:.*]] = arith.addi %[[OFF1]], %[[SB]] : index
// CHECK:         %[[S2:.*]] = tensor.insert_slice %[[C]] into %[[S1]][%[[OFF2]], 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<?x4xf32>
// CHECK:         return %[[S2]]
func.func @concat_dynamic(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>, %c: tensor<2x4xf32>) -> tensor<?x4xf32> {
  %0 = tcc_graph.concat %a, %b, %c {dim = 0 : i64} : (tensor<?x4xf32>, tensor<?x4xf32>, tensor<2x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Dynamic in another dim: static offsets, the dynamic size from each input.
// CHECK-LABEL: func.func @concat_other_dim_dynamic
// CHECK-SAME:    (%[[A:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<?x2xf32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x4xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x6xf32>
// CHECK:         %[[S0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [%{{.*}}, 4] [1, 1] : tensor<?x4xf32> into tensor<?x6xf32>
// CHECK:         %[[NB:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x2xf32>
// CHECK:         tensor.insert_slice %[[B]] into %[[S0]][0, 4] [%[[NB]], 2] [1, 1] : tensor<?x2xf32> into tensor<?x6xf32>
func.func @concat_other_dim_dynamic(%a: tensor<?x4xf32>, %b: tensor<?x2xf32>) -> tensor<?x6xf32> {
  %0 = tcc_graph.concat %a, %b {dim = 1 : i64} : (tensor<?x4xf32>, tensor<?x2xf32>) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

// -----

// Several symbolic dims (attention scores of a symbolic sequence length)
// take their sizes from the op.
// CHECK-LABEL: func.func @reshape_two_symbolic
// CHECK:         %[[R:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3]] output_shape [2, 4, %{{.*}}, %{{.*}}] : tensor<8x?x?xf32> into tensor<2x4x?x?xf32>
func.func @reshape_two_symbolic(%x: tensor<8x?x?xf32>, %s: index) -> tensor<2x4x?x?xf32> {
  %0 = tcc_graph.reshape %x sizes(%s, %s) : (tensor<8x?x?xf32>) -> tensor<2x4x?x?xf32>
  return %0 : tensor<2x4x?x?xf32>
}

// -----

// An empty slice at the dim's end (split_with_sizes [1, 4, 0]) beside
// symbolic dims, which FoldEmptyTensors leaves: it starts at 0 (offset 5 of
// 5 failed extract_slice's verifier, an internal error).
// CHECK-LABEL: func.func @slice_empty_at_end
// CHECK:         tensor.extract_slice %arg0[0, 0, 0] [0, %{{.*}}, %{{.*}}] [1, 1, 1] : tensor<5x?x?xf32> to tensor<0x?x?xf32>
func.func @slice_empty_at_end(%x: tensor<5x?x?xf32>) -> tensor<0x?x?xf32> {
  %0 = tcc_graph.slice %x {dim = 0 : i64, end = 5 : i64, start = 5 : i64, step = 1 : i64} : (tensor<5x?x?xf32>) -> tensor<0x?x?xf32>
  return %0 : tensor<0x?x?xf32>
}

// -----

// A slice of a tensor with a static 0 beside symbolic dims (glu of a
// [0, n] sample): nothing to read, an empty tensor of the slice's sizes
// (extract_slice's verifier rejects offset 0 of a dim of 0).
// CHECK-LABEL: func.func @slice_of_empty
// CHECK:         %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<0x?xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<0x?xf32>
// CHECK-NOT:     tensor.extract_slice
// CHECK:         return %[[E]]
func.func @slice_of_empty(%x: tensor<0x?xf32>, %h: index) -> tensor<0x?xf32> {
  %0 = tcc_graph.slice %x sizes(%h) {dim = 1 : i64, end = 9223372036854775807 : i64, start = 1 : i64, step = 1 : i64} : (tensor<0x?xf32>) -> tensor<0x?xf32>
  return %0 : tensor<0x?xf32>
}

// -----

// A concat of pieces with a static 0 beside symbolic dims (an adaptive
// pool's windows over an empty batch): an empty tensor of the result's
// sizes, no insert_slice (its verifier rejects offset 0 of a dim of 0).
// CHECK-LABEL: func.func @concat_of_empty
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<0x?x2xf32>
// CHECK-NOT:     tensor.insert_slice
// CHECK:         return %[[E]]
func.func @concat_of_empty(%a: tensor<0x?x1xf32>, %b: tensor<0x?x1xf32>) -> tensor<0x?x2xf32> {
  %0 = tcc_graph.concat %a, %b {dim = 2 : i64} : (tensor<0x?x1xf32>, tensor<0x?x1xf32>) -> tensor<0x?x2xf32>
  return %0 : tensor<0x?x2xf32>
}

// -----

// Channels-last pooling (between channels-last convolutions): the max reads
// [n, h, w, c] windows (h and w from the output's dims 1 and 2), the sum is
// linalg's NHWC pooling op; the average's divisor reads the spatial dims 1
// and 2.
// CHECK-LABEL: func.func @pools_nhwc
// CHECK-SAME:    (%[[X:.*]]: tensor<2x8x8x4xf32>)
// CHECK:         linalg.generic
// CHECK:           %[[OH:.*]] = linalg.index 1 : index
// CHECK:           %[[OW:.*]] = linalg.index 2 : index
// CHECK:           %[[N:.*]] = linalg.index 0 : index
// CHECK:           %[[C:.*]] = linalg.index 3 : index
// CHECK:           tensor.extract %[[X]][%[[N]], %{{.*}}, %{{.*}}, %[[C]]]
// CHECK:         linalg.pooling_nhwc_sum
// CHECK:         linalg.generic
// CHECK:           linalg.index 1 : index
// CHECK:           linalg.index 2 : index
func.func @pools_nhwc(%x: tensor<2x8x8x4xf32>) -> (tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>) {
  %m = tcc_graph.max_pool2d %x {ceil_mode = false, channels_last, count_include_pad = false, dilation = array<i64: 1, 1>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x8x8x4xf32>) -> tensor<2x4x4x4xf32>
  %a = tcc_graph.avg_pool2d %x {ceil_mode = false, channels_last, count_include_pad = false, dilation = array<i64: 1, 1>, kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<2x8x8x4xf32>) -> tensor<2x4x4x4xf32>
  return %m, %a : tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>
}

// -----

// A reshape that splits one symbolic dim into two ([1, B*T, 12] to [B, T,
// 4, 3], an einsum's product over a symbolic batch and sequence) is a copy:
// element i of the result, row-major, is element i of the flattened input
// (as a view it would be an expand_shape group of two symbolic dims, which
// crashes upstream expand-strided-metadata).
// CHECK-LABEL: func @reshape_split_two_symbolic
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2]]
// CHECK: %[[E:.*]] = tensor.empty(%arg1, %arg2) : tensor<?x?x4x3xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<?x?x4x3xf32>)
// CHECK: %[[I0:.*]] = linalg.index 0
// CHECK: %[[R0:.*]] = arith.muli %[[I0]], %arg2
// CHECK: %[[I1:.*]] = linalg.index 1
// CHECK: arith.addi %[[R0]], %[[I1]]
// CHECK: tensor.extract %[[FLAT]]
func.func @reshape_split_two_symbolic(%x: tensor<1x?x12xf32>, %b: index, %t: index) -> tensor<?x?x4x3xf32> {
  %0 = tcc_graph.reshape %x sizes(%b, %t) : (tensor<1x?x12xf32>) -> tensor<?x?x4x3xf32>
  return %0 : tensor<?x?x4x3xf32>
}

// -----

// An integer sum adds integers (exact in any order: no blocks).
// CHECK-LABEL: func @i64_sum
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : i64)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<5x9xi64>) outs(%[[Z]] : tensor<5xi64>)
// CHECK: arith.addi
func.func @i64_sum(%x: tensor<5x9xi64>) -> tensor<5xi64> {
  %0 = tcc_graph.reduce_sum %x {dims = array<i64: 1>, keepdim = false} : (tensor<5x9xi64>) -> tensor<5xi64>
  return %0 : tensor<5xi64>
}
