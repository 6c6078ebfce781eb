// RUN: tcc-opt %s -tcc-gpu-map-parallel-loops -split-input-file -verify-diagnostics | FileCheck %s

// A 2-D nest is collapsed to one dimension of 4 * 8 = 32 iterations, tiled by
// 256: the outer loop goes to block x, the inner (bounds-checked) to thread x,
// whose body strides over the grid (gridDim.x blocks of 256) to the end.
// CHECK-LABEL: func.func @collapse_and_tile
// CHECK:         %[[C256:.*]] = arith.constant 256 : index
// CHECK:         %[[STEP:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK:         scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%[[N:.*]]) step (%[[STEP]]) {
// CHECK:           scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%[[STEP]]) step (%{{.*}}) {
// CHECK:             %[[GRID:.*]] = gpu.grid_dim x
// CHECK:             %[[SPAN:.*]] = arith.muli %[[GRID]], %[[STEP]] : index
// CHECK:             scf.for %[[S:.*]] = %[[B]] to %[[N]] step %[[SPAN]] {
// CHECK:               arith.addi %[[T]], %[[S]] : index
// CHECK:               arith.cmpi ult, %{{.*}}, %[[N]] : index
// CHECK:               scf.if
// CHECK:                 arith.remsi
// CHECK:                 arith.divsi
// CHECK:                 memref.store
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
func.func @collapse_and_tile(%a: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    memref.store %cst, %a[%i, %j] : memref<4x8xf32>
  }
  return
}

// -----

// Parallel loops below a reduction loop run sequentially in the thread.
// CHECK-LABEL: func.func @nested_sequential
// CHECK:         scf.parallel
// CHECK:           scf.parallel
// CHECK:             scf.for
// CHECK:               scf.parallel
// CHECK:               } {mapping = [#gpu.loop_dim_map<processor = sequential, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x
func.func @nested_sequential(%a: memref<16x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    scf.for %k = %c0 to %c4 step %c1 {
      scf.parallel (%j) = (%c0) to (%c1) step (%c1) {
        memref.store %cst, %a[%i, %k] : memref<16x4xf32>
      }
    }
  }
  return
}

// -----

memref.global "private" constant @c : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

func.func @host_constant(%a: memref<4xf32>) {
  // expected-error @+1 {{--target cuda: constant 'c' would be read by a kernel from host memory}}
  %g = memref.get_global @c : memref<4xf32>
  memref.copy %g, %a : memref<4xf32> to memref<4xf32>
  return
}

// -----

// A 0-d or splat constant (a scattered scalar, bufferized) read only by loads:
// the loads become the value, nothing is read from host memory.
// CHECK-LABEL: func.func @splat_constant
// CHECK-NOT:     memref.get_global
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         memref.store %[[ZERO]]
memref.global "private" constant @zero : memref<f32> = dense<0.0>

func.func @splat_constant(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %g = memref.get_global @zero : memref<f32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %g[] : memref<f32>
    memref.store %v, %a[%i] : memref<8xf32>
  }
  return
}
