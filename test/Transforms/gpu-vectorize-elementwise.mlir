// RUN: tcc-opt %s -tcc-gpu-vectorize-elementwise -split-input-file | FileCheck %s

// f32: 4 lanes per 16-byte chunk; 8x10 = 80 elements in 20 chunks. Both
// buffers' addresses are checked on the host; the vector path loads one
// vector per input, runs the body per lane and stores one vector; the tail
// (and a misaligned buffer) runs the scalar loop.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @f32_chunks(
// CHECK-SAME:    %[[X:.*]]: memref<8x10xf32>, %[[Y:.*]]: memref<8x10xf32>)
// CHECK:         %[[XF:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1]] : memref<8x10xf32> into memref<80xf32>
// CHECK:         %[[YF:.*]] = memref.collapse_shape %[[Y]] {{\[\[}}0, 1]] : memref<8x10xf32> into memref<80xf32>
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C20:.*]] = arith.constant 20 : index
// CHECK-DAG:     %[[C80:.*]] = arith.constant 80 : index
// CHECK:         %[[PX:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:         %[[C16:.*]] = arith.constant 16 : index
// CHECK:         arith.remui %[[PX]], %[[C16]] : index
// CHECK:         %[[PY:.*]] = memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK:         %[[ALIGNED:.*]] = arith.andi
// CHECK:         scf.parallel (%[[C:.*]]) = (%{{.*}}) to (%[[C20]])
// CHECK:           %[[BASE:.*]] = arith.muli %[[C]], %[[C4]] : index
// CHECK:           %[[END:.*]] = arith.addi %[[BASE]], %[[C4]] : index
// CHECK:           %[[WHOLE:.*]] = arith.cmpi ule, %[[END]], %[[C80]] : index
// CHECK:           %[[FAST:.*]] = arith.andi %[[WHOLE]], %[[ALIGNED]] : i1
// CHECK:           scf.if %[[FAST]] {
// CHECK:             %[[V:.*]] = vector.load %[[XF]][%[[BASE]]] {alignment = 16 : i64} : memref<80xf32>, vector<4xf32>
// CHECK-COUNT-4:     math.exp
// CHECK:             %[[R:.*]] = vector.from_elements
// CHECK:             vector.store %[[R]], %[[YF]][%[[BASE]]] {alignment = 16 : i64} : memref<80xf32>, vector<4xf32>
// CHECK:           } else {
// CHECK:             %[[LAST:.*]] = arith.minui %[[END]], %[[C80]] : index
// CHECK:             scf.for %[[I:.*]] = %[[BASE]] to %[[LAST]]
// CHECK:               memref.load %[[XF]][%[[I]]]
// CHECK:               math.exp
// CHECK:               memref.store %{{.*}}, %[[YF]][%[[I]]]
// CHECK-NOT:     linalg.generic
func.func @f32_chunks(%x: memref<8x10xf32>, %y: memref<8x10xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x10xf32>) outs(%y : memref<8x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// The widest element (i64) sets the width: 2 lanes, 8-byte f32 accesses; an
// output the body reads (accumulation) is loaded too; dynamic sizes give the
// element count at run time.
#id1 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @mixed_widths_dynamic(
// CHECK:         %[[N:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?xf32>
// CHECK:         arith.ceildivui %[[N]], %{{.*}} : index
// CHECK:         scf.if
// CHECK-DAG:       vector.load {{.*}} {alignment = 16 : i64} : memref<?xi64>, vector<2xi64>
// CHECK-DAG:       vector.load {{.*}} {alignment = 8 : i64} : memref<?xf32>, vector<2xf32>
// CHECK-COUNT-2:   arith.addf
// CHECK:           vector.store {{.*}} {alignment = 8 : i64} : memref<?xf32>, vector<2xf32>
func.func @mixed_widths_dynamic(%i: memref<?xi64>, %acc: memref<?xf32>) {
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%i : memref<?xi64>) outs(%acc : memref<?xf32>) {
  ^bb0(%a: i64, %o: f32):
    %f = arith.sitofp %a : i64 to f32
    %s = arith.addf %f, %o : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Broadcast inputs: a bias row (d0, d1) -> (d1) is one vector at the chunk's
// column, a per-row value (d0, d1) -> (d0) one scalar per chunk; the chunk's
// first indices come from delinearizing its linear index. Only the buffers
// read or written by vector have their alignment checked.
#id3 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#per_row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @broadcasts(
// CHECK-SAME:    %[[X:.*]]: memref<8x16xf32>, %[[B:.*]]: memref<16xf32>, %[[M:.*]]: memref<8xf32>, %[[Y:.*]]: memref<8x16xf32>)
// CHECK-NOT:     memref.extract_aligned_pointer_as_index %[[M]]
// CHECK:         scf.parallel
// CHECK:           scf.if
// CHECK:             %[[IDX:.*]]:2 = affine.delinearize_index %{{.*}} into (8, 16) : index, index
// CHECK-DAG:         vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<128xf32>, vector<4xf32>
// CHECK-DAG:         vector.load %[[B]][%[[IDX]]#1] {alignment = 16 : i64} : memref<16xf32>, vector<4xf32>
// CHECK-DAG:         %[[ROW:.*]] = memref.load %[[M]][%[[IDX]]#0] : memref<8xf32>
// CHECK-COUNT-4:     arith.subf %{{.*}}, %[[ROW]] : f32
// CHECK:             vector.store
// CHECK:           } else {
// CHECK:             affine.delinearize_index
// CHECK:             memref.load %[[B]]
// CHECK:             memref.load %[[M]]
func.func @broadcasts(%x: memref<8x16xf32>, %b: memref<16xf32>, %m: memref<8xf32>,
                      %y: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [#id3, #col, #per_row, #id3],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %b, %m : memref<8x16xf32>, memref<16xf32>, memref<8xf32>)
      outs(%y : memref<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %r: f32, %o: f32):
    %s0 = arith.addf %a, %c : f32
    %s1 = arith.subf %s0, %r : f32
    linalg.yield %s1 : f32
  }
  return
}

// -----

// Left alone: a transpose in place (its input is its output), a body that
// reads its index, a reduction, and a buffer smaller than one vector.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#red = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @not_vectorized(
// CHECK-NOT:     vector.load
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT:     vector.load
func.func @not_vectorized(%sq: memref<16x16xf32>, %z: memref<8x16xf32>, %r: memref<8xf32>,
                          %t: memref<3xf32>) {
  linalg.generic {indexing_maps = [#tr, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%sq : memref<16x16xf32>) outs(%sq : memref<16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%z : memref<8x16xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    linalg.yield %f : f32
  }
  linalg.generic {indexing_maps = [#id2, #red], iterator_types = ["parallel", "reduction"]}
      ins(%z : memref<8x16xf32>) outs(%r : memref<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s1 = arith.addf %a, %o : f32
    linalg.yield %s1 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%t : memref<3xf32>) {
  ^bb0(%o: f32):
    %n = arith.negf %o : f32
    linalg.yield %n : f32
  }
  return
}

// -----

// Gathered inputs: a strided view (rows padded to 32) and a transpose are
// read one scalar per lane at the lane's indices (the chunk's first ones
// stepped along the innermost dim); the stores stay vectors, and only the
// contiguous output's alignment is checked.
#id4 = affine_map<(d0, d1) -> (d0, d1)>
#tr4 = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @gathered(
// CHECK-SAME:    %[[S:.*]]: memref<8x16xf32, strided<[32, 1]>>, %[[T:.*]]: memref<16x8xf32>, %[[Z:.*]]: memref<8x16xf32>)
// CHECK-NOT:     memref.extract_aligned_pointer_as_index %[[S]]
// CHECK-NOT:     memref.extract_aligned_pointer_as_index %[[T]]
// CHECK:         scf.parallel
// CHECK:           scf.if
// CHECK:             %[[IDX:.*]]:2 = affine.delinearize_index %{{.*}} into (8, 16) : index, index
// CHECK:             %[[C1:.*]] = arith.constant 1 : index
// CHECK:             %[[COL1:.*]] = arith.addi %[[IDX]]#1, %[[C1]] : index
// CHECK-COUNT-2:     arith.addi %[[IDX]]#1
// CHECK:             memref.load %[[S]][%[[IDX]]#0, %[[IDX]]#1] : memref<8x16xf32, strided<[32, 1]>>
// CHECK:             memref.load %[[S]][%[[IDX]]#0, %[[COL1]]] : memref<8x16xf32, strided<[32, 1]>>
// CHECK-COUNT-2:     memref.load %[[S]]
// CHECK:             memref.load %[[T]][%[[IDX]]#1, %[[IDX]]#0] : memref<16x8xf32>
// CHECK:             memref.load %[[T]][%[[COL1]], %[[IDX]]#0] : memref<16x8xf32>
// CHECK-COUNT-2:     memref.load %[[T]]
// CHECK-COUNT-4:     arith.addf
// CHECK:             vector.store %{{.*}} {alignment = 16 : i64} : memref<128xf32>, vector<4xf32>
// CHECK:           } else {
func.func @gathered(%s: memref<8x16xf32, strided<[32, 1]>>, %t: memref<16x8xf32>,
                    %z: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [#id4, #tr4, #id4], iterator_types = ["parallel", "parallel"]}
      ins(%s, %t : memref<8x16xf32, strided<[32, 1]>>, memref<16x8xf32>)
      outs(%z : memref<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s0 = arith.addf %a, %b : f32
    linalg.yield %s0 : f32
  }
  return
}

// -----

// Chunks straddling rows (6 columns, 4 lanes): the contiguous input stays a
// vector, the per-row value is gathered with each lane's linear index
// delinearized. A copy out of rows padded to 8 (bf16 logits written by a
// GEMM into 16-byte rows) is a generic first, then the same: vector stores,
// a load per lane.
#id5 = affine_map<(d0, d1) -> (d0, d1)>
#row5 = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @straddling(
// CHECK-SAME:    %[[X:.*]]: memref<8x6xf32>, %[[M:.*]]: memref<8xf32>, %[[Y:.*]]: memref<8x6xf32>
// CHECK:         scf.parallel
// CHECK:           scf.if
// CHECK-COUNT-4:     affine.delinearize_index %{{.*}} into (8, 6)
// CHECK:             vector.load %{{.*}} : memref<48xf32>, vector<4xf32>
// CHECK-COUNT-4:     memref.load %[[M]]
// CHECK:             vector.store %{{.*}} : memref<48xf32>, vector<4xf32>
// CHECK:         scf.parallel
// CHECK:           scf.if
// CHECK-COUNT-8:     affine.delinearize_index %{{.*}} into (4, 13)
// CHECK-COUNT-8:     memref.load %{{.*}} : memref<4x13xbf16, strided<[16, 1]>>
// CHECK:             vector.store %{{.*}} {alignment = 16 : i64} : memref<52xbf16>, vector<8xbf16>
// CHECK-NOT:     linalg.copy
func.func @straddling(%x: memref<8x6xf32>, %m: memref<8xf32>, %y: memref<8x6xf32>,
                      %padded: memref<4x16xbf16>, %logits: memref<4x13xbf16>) {
  linalg.generic {indexing_maps = [#id5, #row5, #id5], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : memref<8x6xf32>, memref<8xf32>) outs(%y : memref<8x6xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s0 = arith.addf %a, %c : f32
    linalg.yield %s0 : f32
  }
  %v = memref.subview %padded[0, 0] [4, 13] [1, 1] : memref<4x16xbf16> to memref<4x13xbf16, strided<[16, 1]>>
  linalg.copy ins(%v : memref<4x13xbf16, strided<[16, 1]>>) outs(%logits : memref<4x13xbf16>)
  return
}
