// Elementwise fusion of the lowered graph, as the linalg phase of
// tcc-compile-pipeline runs it (buildLinalgPassPipeline): the canonicalizer
// before fusion folds the size queries (`tensor.dim` of each producer's
// result) that otherwise keep symbolic-shape producers from being single-use.
// RUN: tcc-opt %s -split-input-file -convert-tcc-graph-to-linalg -canonicalize -linalg-fuse-elementwise-ops -mlir-print-local-scope | FileCheck %s
// Static shapes need no canonicalization to fuse.
// RUN: tcc-opt %s -split-input-file -convert-tcc-graph-to-linalg -linalg-fuse-elementwise-ops -mlir-print-local-scope | FileCheck %s --check-prefix=STATIC

// CHECK-LABEL: func.func @sin_plus_cos
// CHECK-SAME:    (%[[X:.*]]: tensor<4x12xf32>, %[[Y:.*]]: tensor<4x12xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x12xf32>
// CHECK-COUNT-1: linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4x12xf32>, tensor<4x12xf32>) outs(%[[E]] : tensor<4x12xf32>)
// CHECK:         ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG:       %[[C:.*]] = math.cos %[[B]] : f32
// CHECK-DAG:       %[[S:.*]] = math.sin %[[A]] : f32
// CHECK:           %[[SUM:.*]] = arith.addf %[[S]], %[[C]] : f32
// CHECK:           linalg.yield %[[SUM]] : f32
// CHECK-NOT:     linalg.generic
// CHECK:         return

// STATIC-LABEL:  func.func @sin_plus_cos
// STATIC-NOT:    linalg.generic
// STATIC:        linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<4x12xf32>, tensor<4x12xf32>)
// STATIC-NOT:    linalg.generic
// STATIC-DAG:      math.cos
// STATIC-DAG:      math.sin
// STATIC-NOT:    linalg.generic
// STATIC:          arith.addf
// STATIC-NOT:    linalg.generic
// STATIC:        return
func.func @sin_plus_cos(%x: tensor<4x12xf32>, %y: tensor<4x12xf32>) -> tensor<4x12xf32> {
  %0 = tcc_graph.sin %x : tensor<4x12xf32>
  %1 = tcc_graph.cos %y : tensor<4x12xf32>
  %2 = tcc_graph.add %0, %1 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32>
  return %2 : tensor<4x12xf32>
}

// -----

// A chain with every kind of broadcast (missing dim, stretched size-1 dim on
// either side, scalar) and a symbolic batch: one loop nest over the inputs,
// each read through its own broadcasting map.
// CHECK-LABEL: func.func @broadcast_chain
// CHECK-SAME:    (%[[X:.*]]: tensor<?x8xf32>, %[[S:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<1x8xf32>, %[[M:.*]]: tensor<?x1xf32>)
// CHECK-NOT:     linalg.generic
// CHECK-DAG:     %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK-COUNT-1: linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%[[X]], %[[S]], %[[B]], %[[M]] : tensor<?x8xf32>, tensor<8xf32>, tensor<1x8xf32>, tensor<?x1xf32>) outs(%[[E]] : tensor<?x8xf32>)
// CHECK:         ^bb0(%[[VX:.*]]: f32, %[[VS:.*]]: f32, %[[VB:.*]]: f32, %[[VM:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[MUL:.*]] = arith.mulf %[[VX]], %[[VS]] : f32
// CHECK:           %[[ADD:.*]] = arith.addf %[[MUL]], %[[VB]] : f32
// CHECK:           %[[RELU:.*]] = arith.maximumf %[[ADD]], %[[ZERO]] : f32
// CHECK:           %[[SUB:.*]] = arith.subf %[[RELU]], %[[VM]] : f32
// CHECK:           %[[OUT:.*]] = arith.mulf %[[SUB]], %[[HALF]] : f32
// CHECK:           linalg.yield %[[OUT]] : f32
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @broadcast_chain(%x: tensor<?x8xf32>, %s: tensor<8xf32>, %b: tensor<1x8xf32>, %m: tensor<?x1xf32>) -> tensor<?x8xf32> {
  %0 = tcc_graph.mul %x, %s : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %1 = tcc_graph.add %0, %b : (tensor<?x8xf32>, tensor<1x8xf32>) -> tensor<?x8xf32>
  %2 = tcc_graph.relu %1 : tensor<?x8xf32>
  %3 = tcc_graph.sub %2, %m : (tensor<?x8xf32>, tensor<?x1xf32>) -> tensor<?x8xf32>
  %c = tcc_graph.constant dense<0.5> : tensor<f32>
  %4 = tcc_graph.mul %3, %c : (tensor<?x8xf32>, tensor<f32>) -> tensor<?x8xf32>
  return %4 : tensor<?x8xf32>
}

// -----

// The same chain on static shapes fuses with or without canonicalization.
// CHECK-LABEL:  func.func @broadcast_chain_static
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT:    linalg.generic
// STATIC-LABEL: func.func @broadcast_chain_static
// STATIC-COUNT-1: linalg.generic
// STATIC-SAME:    indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>]
// STATIC:           arith.mulf
// STATIC:           arith.addf
// STATIC:           arith.maximumf
// STATIC:           arith.subf
// STATIC:           arith.mulf
// STATIC-NOT:   linalg.generic
// STATIC:       return
func.func @broadcast_chain_static(%x: tensor<4x8xf32>, %s: tensor<8xf32>, %b: tensor<1x8xf32>, %m: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %0 = tcc_graph.mul %x, %s : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = tcc_graph.add %0, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %2 = tcc_graph.relu %1 : tensor<4x8xf32>
  %3 = tcc_graph.sub %2, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %c = tcc_graph.constant dense<0.5> : tensor<f32>
  %4 = tcc_graph.mul %3, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// -----

// linear = x @ w^T + b: the transpose folds into the contraction's map for
// the weight, (d0, d1, d2) -> (d1, d2), reading %w in place; no transposing
// kernel is left. The bias add stays its own kernel (a reduction does not
// fuse into its elementwise consumer).
// CHECK-LABEL: func.func @linear
// CHECK-SAME:    (%[[X:.*]]: tensor<?x100xf32>, %[[W:.*]]: tensor<10x100xf32>, %[[B:.*]]: tensor<10xf32>)
// CHECK-NOT:     tensor<100x10xf32>
// CHECK:         %[[INIT:.*]] = linalg.fill
// CHECK:         %[[MM:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]], %[[W]] : tensor<?x100xf32>, tensor<10x100xf32>) outs(%[[INIT]] : tensor<?x10xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[MM]], %[[B]] : tensor<?x10xf32>, tensor<10xf32>)
// CHECK:           arith.addf
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     tensor<100x10xf32>
// CHECK:         return

// STATIC-LABEL: func.func @linear
// STATIC-NOT:     tensor<100x10xf32>
// STATIC:         linalg.generic
// STATIC-SAME:      affine_map<(d0, d1, d2) -> (d1, d2)>
// STATIC-SAME:      ins(%{{.*}}, %{{.*}} : tensor<?x100xf32>, tensor<10x100xf32>)
// STATIC-NOT:     tensor<100x10xf32>
// STATIC:         return
func.func @linear(%x: tensor<?x100xf32>, %w: tensor<10x100xf32>, %b: tensor<10xf32>) -> tensor<?x10xf32> {
  %wt = tcc_graph.transpose %w {permutation = array<i64: 1, 0>} : (tensor<10x100xf32>) -> tensor<100x10xf32>
  %mm = tcc_graph.matmul %x, %wt : (tensor<?x100xf32>, tensor<100x10xf32>) -> tensor<?x10xf32>
  %y = tcc_graph.add %mm, %b : (tensor<?x10xf32>, tensor<10xf32>) -> tensor<?x10xf32>
  return %y : tensor<?x10xf32>
}
