// RUN: tcc-opt %s -tcc-gpu-linalg-to-parallel-loops -split-input-file | FileCheck %s

// A reduction (its reduced dims innermost, the output indexed by the parallel
// ones) accumulates in a register: scf.for loops carry it, one store at the
// end; the fill of the output right before is its initial value, not a loop
// of its own. (Upstream's loops load and store the output at every term.)
// CHECK-LABEL: func.func @sum_hw(
// CHECK-SAME:      %[[X:.*]]: memref<2x3x4x8xf32>, %[[OUT:.*]]: memref<2x8xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT:     linalg.fill
// CHECK:         scf.parallel (%[[N:.*]], %[[C:.*]]) =
// CHECK:           %[[R:.*]] = scf.for %[[H:.*]] = {{.*}} iter_args(%[[A:.*]] = %[[ZERO]]) -> (f32) {
// CHECK:             %[[S:.*]] = scf.for %[[W:.*]] = {{.*}} iter_args(%[[B:.*]] = %[[A]]) -> (f32) {
// CHECK:               %[[IN:.*]] = memref.load %[[X]][{{.*}}] : memref<2x3x4x8xf32>
// CHECK:               %[[NEXT:.*]] = arith.addf %[[IN]], %[[B]] : f32
// CHECK:               scf.yield %[[NEXT]] : f32
// CHECK:             scf.yield %[[S]] : f32
// CHECK-NOT:       memref.load %[[OUT]]
// CHECK:           memref.store %[[R]], %[[OUT]][{{.*}}] : memref<2x8xf32>
func.func @sum_hw(%x: memref<2x3x4x8xf32>, %out: memref<2x8xf32>) attributes {tcc.target = "cuda"} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<2x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<2x3x4x8xf32>) outs(%out : memref<2x8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Without a fill right before, the accumulator starts from the output's
// value (a matmul accumulating onto C).
// CHECK-LABEL: func.func @accumulate_onto(
// CHECK-SAME:      %[[A:.*]]: memref<4x6xf32>, %[[B:.*]]: memref<6x5xf32>, %[[C:.*]]: memref<4x5xf32>)
// CHECK:         scf.parallel
// CHECK:           %[[INIT:.*]] = memref.load %[[C]][%[[I:.*]], %[[J:.*]]] : memref<4x5xf32>
// CHECK:           %[[R:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (f32)
// CHECK:           memref.store %[[R]], %[[C]][%[[I]], %[[J]]] : memref<4x5xf32>
func.func @accumulate_onto(%a: memref<4x6xf32>, %b: memref<6x5xf32>, %c: memref<4x5xf32>) attributes {tcc.target = "cuda"} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                   affine_map<(d0, d1, d2) -> (d2, d1)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x6xf32>, memref<6x5xf32>) outs(%c : memref<4x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}
