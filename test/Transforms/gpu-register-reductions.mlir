// RUN: tcc-opt %s -tcc-gpu-register-reductions -split-input-file | FileCheck %s

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

// -----

// The blocked mean of a planned entry: the fills sit before both partial
// sums, the division after the last. Each fill is found past ops that touch
// none of its buffer's bytes (the other fill, the first sum: arena views at
// disjoint offsets), and the division (with the cast back to bf16) runs on
// the last sum's register: three kernels become two loop nests.
// CHECK-LABEL: func.func @blocked_mean(
// CHECK-SAME:      %[[X:.*]]: memref<2x4x8x16xbf16>, %[[Y:.*]]: memref<2x16xbf16>, %[[ARENA:.*]]: memref<?xi8> {tcc.arena})
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[N:.*]] = arith.constant 3.200000e+01 : f32
// CHECK-NOT:     linalg.fill
// CHECK:         scf.parallel
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f32)
// CHECK:           memref.store
// CHECK:         scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK:           %[[T:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f32)
// CHECK:           memref.store %[[T]], %{{.*}}[%{{.*}}, %{{.*}}] : memref<2x16xf32>
// CHECK:           %[[M:.*]] = arith.divf %[[T]], %[[N]] : f32
// CHECK:           %[[B:.*]] = arith.truncf %[[M]] : f32 to bf16
// CHECK:           memref.store %[[B]], %[[Y]][%{{.*}}, %{{.*}}] : memref<2x16xbf16>
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @blocked_mean(%x: memref<2x4x8x16xbf16>, %y: memref<2x16xbf16>, %arena: memref<?xi8> {tcc.arena}) attributes {tcc.target = "cuda"} {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 32.0 : f32
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %sum = memref.view %arena[%c0][] : memref<?xi8> to memref<2x16xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<2x16xf32>)
  %partial = memref.view %arena[%c128][] : memref<?xi8> to memref<2x4x16xf32>
  linalg.fill ins(%zero : f32) outs(%partial : memref<2x4x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : memref<2x4x8x16xbf16>) outs(%partial : memref<2x4x16xf32>) {
  ^bb0(%in: bf16, %acc: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.addf %0, %acc : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%partial : memref<2x4x16xf32>) outs(%sum : memref<2x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%sum : memref<2x16xf32>) outs(%y : memref<2x16xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.divf %in, %n : f32
    %1 = arith.truncf %0 : f32 to bf16
    linalg.yield %1 : bf16
  }
  return
}

// -----

// Where the bytes are not known apart, nothing joins: the fill is separated
// from the sum by a copy into a buffer that may be the output (two
// arguments may alias), and the pointwise op after reads the sum transposed
// (other threads' totals).
// CHECK-LABEL: func.func @nothing_joins(
// CHECK:         linalg.fill
// CHECK:         linalg.copy
// CHECK:         scf.parallel
// CHECK:           %[[INIT:.*]] = memref.load
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]])
// CHECK:         linalg.generic
func.func @nothing_joins(%x: memref<2x2x8xf32>, %out: memref<2x2xf32>, %other: memref<2xf32>, %z: memref<2x2xf32>) attributes {tcc.target = "cuda"} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<2x2xf32>)
  linalg.copy ins(%other : memref<2xf32>) outs(%other : memref<2xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<2x2x8xf32>) outs(%out : memref<2x2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%out : memref<2x2xf32>) outs(%z : memref<2x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// A library call between the fill and the sum reaches memory through raw
// pointers: it may write the output (its memref operand, an argument, is
// not all it touches), so the fill stays a kernel of its own (the
// accumulator starts from the output's value).
// CHECK-LABEL: func.func @call_between(
// CHECK:         linalg.fill
// CHECK:         call @tcc_library_kernel
// CHECK:         scf.parallel
// CHECK:           %[[INIT:.*]] = memref.load
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]])
func.func private @tcc_library_kernel(memref<2x8xf32>, !llvm.ptr)
func.func @call_between(%x: memref<2x8xf32>, %arena: memref<?xi8> {tcc.arena}, %p: !llvm.ptr) attributes {tcc.target = "cuda"} {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %out = memref.view %arena[%c0][] : memref<?xi8> to memref<2xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<2xf32>)
  call @tcc_library_kernel(%x, %p) : (memref<2x8xf32>, !llvm.ptr) -> ()
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<2x8xf32>) outs(%out : memref<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A pointwise op after the sum that reads its own position (linalg.index)
// stays a loop nest of its own.
// CHECK-LABEL: func.func @indexed_epilogue(
// CHECK:         scf.parallel
// CHECK:           scf.for
// CHECK:         linalg.generic
// CHECK:           linalg.index 0
func.func @indexed_epilogue(%x: memref<4x8xf32>, %y: memref<4xf32>, %arena: memref<?xi8> {tcc.arena}) attributes {tcc.target = "cuda"} {
  %c0 = arith.constant 0 : index
  %sum = memref.view %arena[%c0][] : memref<?xi8> to memref<4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x8xf32>) outs(%sum : memref<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%sum : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = arith.index_cast %i : index to i32
    %f = arith.sitofp %j : i32 to f32
    %r = arith.addf %in, %f : f32
    linalg.yield %r : f32
  }
  return
}
