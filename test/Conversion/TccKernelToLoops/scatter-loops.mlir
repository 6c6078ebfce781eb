// RUN: tcc-opt %s -convert-tcc-kernel-to-loops | FileCheck %s

// A scatter is one parallel nest over the source's elements: each reads its
// index, wraps a negative one, checks the range (the op's message, after its
// source line), and stores at that position only when in range.
// CHECK-LABEL: func @cache_update
// CHECK-SAME: (%[[SRC:.*]]: memref<1x2x?x16xbf16>, %[[POS:.*]]: memref<?xi64>, %[[CACHE:.*]]: memref<1x2x64x16xbf16>)
// CHECK: scf.parallel (%[[B:.*]], %[[H:.*]], %[[T:.*]], %[[D:.*]]) =
// CHECK:   %[[RAW:.*]] = memref.load %[[POS]][%[[T]]] : memref<?xi64>
// CHECK:   %[[AT:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK:   %[[WRAP:.*]] = arith.select {{.*}} : index
// CHECK:   cf.assert %[[OK:.*]], "model.py:7: index out of range for dim 2 of size 64"
// CHECK:   scf.if %[[OK]] {
// CHECK:     %[[V:.*]] = memref.load %[[SRC]][%[[B]], %[[H]], %[[T]], %[[D]]]
// CHECK:     memref.store %[[V]], %[[CACHE]][%[[B]], %[[H]], %[[WRAP]], %[[D]]]
// CHECK-NOT: memref.store
func.func @cache_update(%src: memref<1x2x?x16xbf16>, %pos: memref<?xi64>, %cache: memref<1x2x64x16xbf16>) {
  tcc_kernel.scatter ins(%src : memref<1x2x?x16xbf16>) index(%pos : memref<?xi64>) outs(%cache : memref<1x2x64x16xbf16>) {dim = 2 : i64, message = "model.py:7: index out of range for dim 2 of size 64"}
  return
}

// A scatter of two tensors (a key and a value cache): one nest, one index
// check, a store into each cache.
// CHECK-LABEL: func @key_and_value
// CHECK-SAME: (%[[K:.*]]: memref<1x2x1x16xbf16>, %[[V:.*]]: memref<1x2x1x16xbf16>, %[[POS:.*]]: memref<1xi64>, %[[KC:.*]]: memref<1x2x64x16xbf16>, %[[VC:.*]]: memref<1x2x64x16xbf16>)
// CHECK: scf.parallel
// CHECK:   cf.assert
// CHECK-NOT: cf.assert
// CHECK:   scf.if
// CHECK:     %[[KV:.*]] = memref.load %[[K]]
// CHECK:     memref.store %[[KV]], %[[KC]]
// CHECK:     %[[VV:.*]] = memref.load %[[V]]
// CHECK:     memref.store %[[VV]], %[[VC]]
// CHECK-NOT: scf.parallel
func.func @key_and_value(%k: memref<1x2x1x16xbf16>, %v: memref<1x2x1x16xbf16>, %pos: memref<1xi64>, %kc: memref<1x2x64x16xbf16>, %vc: memref<1x2x64x16xbf16>) {
  tcc_kernel.scatter ins(%k, %v : memref<1x2x1x16xbf16>, memref<1x2x1x16xbf16>) index(%pos : memref<1xi64>) outs(%kc, %vc : memref<1x2x64x16xbf16>, memref<1x2x64x16xbf16>) {dim = 2 : i64, message = "m"}
  return
}
