// RUN: tcc-opt %s -tcc-plan-memory -split-input-file | FileCheck %s
// RUN: tcc-opt %s -tcc-plan-memory=alignment=16 -split-input-file | FileCheck %s --check-prefix=ALIGN16

// A chain: %a dies at the copy into %b, so %c (placed right after the larger
// %a) reuses its memory; %b, live across both, goes above them. The deallocs
// are erased and do not extend lifetimes.

// CHECK:       module attributes {tcc.arena_size = 320 : i64}
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%[[X:.*]]: memref<64xf32>, %[[OUT:.*]]: memref<32xf32>, %[[ARENA:.*]]: memref<?xi8> {tcc.arena})
// CHECK-SAME:    tcc.arena_size = 320 : i64
// CHECK-SAME:    tcc.memory_plan = [
// CHECK-SAME:      {bytes = 256 : i64, first = 0 : i64, last = 4 : i64, offset = 0 : i64},
// CHECK-SAME:      {bytes = 64 : i64, first = 2 : i64, last = 9 : i64, offset = 256 : i64},
// CHECK-SAME:      {bytes = 128 : i64, first = 5 : i64, last = 10 : i64, offset = 0 : i64}]
// CHECK:         %[[OFF_A:.*]] = arith.constant 0 : index
// CHECK:         %[[A:.*]] = memref.view %[[ARENA]][%[[OFF_A]]][] : memref<?xi8> to memref<64xf32>
// CHECK:         linalg.copy ins(%[[X]] : memref<64xf32>) outs(%[[A]] : memref<64xf32>)
// CHECK:         %[[OFF_B:.*]] = arith.constant 256 : index
// CHECK:         %[[B:.*]] = memref.view %[[ARENA]][%[[OFF_B]]][] : memref<?xi8> to memref<16xf32>
// CHECK:         memref.subview %[[A]][0] [16] [1]
// CHECK:         %[[OFF_C:.*]] = arith.constant 0 : index
// CHECK:         %[[C:.*]] = memref.view %[[ARENA]][%[[OFF_C]]][] : memref<?xi8> to memref<32xf32>
// CHECK:         linalg.copy ins(%[[C]] : memref<32xf32>) outs(%[[OUT]] : memref<32xf32>)
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func @chain(%x: memref<64xf32>, %out: memref<32xf32>) {
  %a = memref.alloc() : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  %b = memref.alloc() : memref<16xf32>
  %a_head = memref.subview %a[0] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1]>>
  memref.copy %a_head, %b : memref<16xf32, strided<[1]>> to memref<16xf32>
  %c = memref.alloc() : memref<32xf32>
  %c_head = memref.subview %c[0] [16] [1] : memref<32xf32> to memref<16xf32, strided<[1]>>
  memref.copy %b, %c_head : memref<16xf32> to memref<16xf32, strided<[1]>>
  %c_tail = memref.subview %c[16] [16] [1] : memref<32xf32> to memref<16xf32, strided<[1], offset: 16>>
  memref.copy %b, %c_tail : memref<16xf32> to memref<16xf32, strided<[1], offset: 16>>
  linalg.copy ins(%c : memref<32xf32>) outs(%out : memref<32xf32>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<16xf32>
  memref.dealloc %c : memref<32xf32>
  return
}

// -----

// Offsets follow the `alignment` option: 40 bytes then 12 bytes, both live.

// CHECK-LABEL: func.func @alignment
// CHECK-SAME:    tcc.arena_size = 76 : i64
// CHECK-SAME:      {bytes = 40 : i64, first = 0 : i64, last = 2 : i64, offset = 0 : i64},
// CHECK-SAME:      {bytes = 12 : i64, first = 1 : i64, last = 2 : i64, offset = 64 : i64}]
// ALIGN16-LABEL: func.func @alignment
// ALIGN16-SAME:    tcc.arena_size = 60 : i64
// ALIGN16-SAME:      {bytes = 40 : i64, first = 0 : i64, last = 2 : i64, offset = 0 : i64},
// ALIGN16-SAME:      {bytes = 12 : i64, first = 1 : i64, last = 2 : i64, offset = 48 : i64}]
func.func @alignment(%x: memref<10xf32>, %y: memref<3xf32>) {
  %a = memref.alloc() : memref<10xf32>
  %b = memref.alloc() : memref<3xf32>
  func.call @consume(%a, %b) : (memref<10xf32>, memref<3xf32>) -> ()
  return
}
func.func private @consume(memref<10xf32>, memref<3xf32>)

// -----

// Dynamic sizes are planned at their upper bound: s77 <= 1024 gives
// 1024 x 100 x 4 bytes for %a and 1024 x 10 x 4 for %b; %c has
// (2 * 1024) ceildiv 8 + 1 = 257 f64 elements. The views keep the dynamic
// sizes.

// CHECK:       module attributes {tcc.arena_size = 409600 : i64, tcc.symbols
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    %[[ARENA:[^:]*]]: memref<?xi8> {tcc.arena})
// CHECK-SAME:    tcc.memory_plan = [
// CHECK-SAME:      {bytes = 409600 : i64, first = 3 : i64, last = 4 : i64, offset = 0 : i64},
// CHECK-SAME:      {bytes = 40960 : i64, first = 5 : i64, last = 12 : i64, offset = 0 : i64},
// CHECK-SAME:      {bytes = 2056 : i64, first = 9 : i64, last = 10 : i64, offset = 40960 : i64}]
// CHECK:         %[[N:.*]] = memref.dim
// CHECK:         %[[OFF_A:.*]] = arith.constant 0 : index
// CHECK:         memref.view %[[ARENA]][%[[OFF_A]]][%[[N]]] : memref<?xi8> to memref<?x100xf32>
// CHECK:         %[[OFF_B:.*]] = arith.constant 0 : index
// CHECK:         memref.view %[[ARENA]][%[[OFF_B]]][%[[N]]] : memref<?xi8> to memref<?x10xf32>
// CHECK:         %[[K:.*]] = affine.apply
// CHECK:         %[[OFF_C:.*]] = arith.constant 40960 : index
// CHECK:         memref.view %[[ARENA]][%[[OFF_C]]][%[[K]]] : memref<?xi8> to memref<?xf64>
module attributes {tcc.symbols = {s77 = [1, 1024]}} {
  func.func @dynamic(%x: memref<?x100xf32> {tcc.sizes = ["s77", 100]},
                     %out: memref<?x10xf32> {tcc.sizes = ["s77", 10]}) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %n = memref.dim %x, %c0 : memref<?x100xf32>
    %a = memref.alloc(%n) : memref<?x100xf32>
    memref.copy %x, %a : memref<?x100xf32> to memref<?x100xf32>
    %b = memref.alloc(%n) : memref<?x10xf32>
    %d = memref.dim %b, %c0 : memref<?x10xf32>
    %m = arith.muli %d, %c2 : index
    %k = affine.apply affine_map<()[s0] -> (s0 ceildiv 8 + 1)>()[%m]
    %c = memref.alloc(%k) : memref<?xf64>
    func.call @use_f64(%c) : (memref<?xf64>) -> ()
    func.call @use_f32(%b) : (memref<?x10xf32>) -> ()
    memref.copy %b, %out : memref<?x10xf32> to memref<?x10xf32>
    return
  }
  func.func private @use_f64(memref<?xf64>)
  func.func private @use_f32(memref<?x10xf32>)
}

// -----

// Aliases keep a buffer alive: %a is read through a collapse_shape and a
// cast inside an affine.for, so it lives until that loop and %b, %c cannot
// reuse it; %d, allocated after the loop, can.

// CHECK:       module attributes {tcc.arena_size = 768 : i64}
// CHECK-LABEL: func.func @aliases
// CHECK-SAME:    tcc.memory_plan = [
// CHECK-SAME:      {bytes = 256 : i64, first = 0 : i64, last = 8 : i64, offset = 0 : i64},
// CHECK-SAME:      {bytes = 256 : i64, first = 3 : i64, last = 6 : i64, offset = 256 : i64},
// CHECK-SAME:      {bytes = 256 : i64, first = 5 : i64, last = 10 : i64, offset = 512 : i64},
// CHECK-SAME:      {bytes = 256 : i64, first = 9 : i64, last = 11 : i64, offset = 0 : i64}]
// CHECK:         %[[A:.*]] = memref.view {{.*}} to memref<4x16xf32>
// CHECK:         %[[FLAT:.*]] = memref.collapse_shape %[[A]]
// CHECK:         memref.cast %[[FLAT]]
func.func @aliases(%x: memref<4x16xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<4x16xf32>
  memref.copy %x, %a : memref<4x16xf32> to memref<4x16xf32>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<4x16xf32> into memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  memref.copy %flat, %b : memref<64xf32> to memref<64xf32>
  %c = memref.alloc() : memref<64xf32>
  memref.copy %b, %c : memref<64xf32> to memref<64xf32>
  %cast = memref.cast %flat : memref<64xf32> to memref<?xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %cast[%i] : memref<?xf32>
    affine.store %v, %out[%i] : memref<64xf32>
  }
  %d = memref.alloc() : memref<64xf32>
  memref.copy %c, %d : memref<64xf32> to memref<64xf32>
  memref.copy %d, %out : memref<64xf32> to memref<64xf32>
  return
}

// -----

// A function without buffers still gets the (empty) arena argument, so
// every entry has the same calling convention; declarations are untouched.

// CHECK:       module attributes {tcc.arena_size = 0 : i64}
// CHECK-LABEL: func.func @no_buffers
// CHECK-SAME:    (%{{.*}}: memref<4xf32>, %{{.*}}: memref<?xi8> {tcc.arena})
// CHECK-SAME:    attributes {tcc.arena_size = 0 : i64, tcc.memory_plan = []}
// CHECK-LABEL: func.func private @external(memref<4xf32>)
func.func @no_buffers(%x: memref<4xf32>) {
  return
}
func.func private @external(memref<4xf32>)
