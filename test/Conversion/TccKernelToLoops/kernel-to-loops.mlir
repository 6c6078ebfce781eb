// RUN: tcc-opt %s -convert-tcc-kernel-to-loops=library-calls=false -split-input-file | FileCheck %s

// A bf16 GEMM: the dot product accumulates in f32, the bias is added in f32
// and the result rounded once.
// CHECK-LABEL: func @gemm_bf16
// CHECK:       scf.parallel (%[[M:.*]], %[[N:.*]]) =
// CHECK:         %[[DOT:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK:           memref.load %arg0[%[[M]], %[[K]]] : memref<4x8xbf16>
// CHECK:           memref.load %arg1[%[[N]], %[[K]]] : memref<16x8xbf16>
// CHECK:           arith.mulf {{.*}} : f32
// CHECK:           arith.addf %[[ACC]], {{.*}} : f32
// CHECK:         %[[B:.*]] = memref.load %arg2[%[[N]]] : memref<16xbf16>
// CHECK:         %[[BF:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK:         %[[Y:.*]] = arith.addf %[[DOT]], %[[BF]] : f32
// CHECK:         %[[R:.*]] = arith.truncf %[[Y]] : f32 to bf16
// CHECK:         memref.store %[[R]], %arg3[%[[M]], %[[N]]]
// CHECK-NOT:   tcc_kernel
func.func @gemm_bf16(%a: memref<4x8xbf16>, %b: memref<16x8xbf16>, %bias: memref<16xbf16>, %c: memref<4x16xbf16>) {
  tcc_kernel.gemm ins(%a, %b : memref<4x8xbf16>, memref<16x8xbf16>) bias(%bias : memref<16xbf16>) outs(%c : memref<4x16xbf16>) transpose_b
  return
}

// -----

// Batch broadcast: the weight has no batch dim, the residual is added last.
// CHECK-LABEL: func @gemm_batched_residual
// CHECK:       scf.parallel (%[[B:.*]], %[[M:.*]], %[[N:.*]]) =
// CHECK:         memref.load %arg0[%[[B]], %[[M]], %{{.*}}] : memref<2x4x8xf32>
// CHECK:         memref.load %arg1[%{{.*}}, %[[N]]] : memref<8x16xf32>
// CHECK:         arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:         memref.load %arg2[%[[B]], %[[M]], %[[N]]]
// CHECK:         arith.addf
// CHECK:         memref.store
func.func @gemm_batched_residual(%a: memref<2x4x8xf32>, %b: memref<8x16xf32>, %r: memref<2x4x16xf32>, %c: memref<2x4x16xf32>) {
  tcc_kernel.gemm ins(%a, %b : memref<2x4x8xf32>, memref<8x16xf32>) residual(%r : memref<2x4x16xf32>) outs(%c : memref<2x4x16xf32>) {alpha = 0.5 : f64}
  return
}

// -----

// Attention: for each (batch, head, query) an online softmax over the keys
// seen (causal: j <= i), the accumulator on the stack, 0 for a query that
// sees no key; the key/value head is h / (H / Hkv).
// CHECK-LABEL: func @attention
// CHECK:       %[[ACC:.*]] = memref.alloca(%{{.*}}) : memref<?xf32>
// CHECK:       scf.for %[[B:.*]] =
// CHECK:         scf.for %[[H:.*]] =
// CHECK:           scf.for %[[I:.*]] =
// CHECK:             %[[G:.*]] = arith.divui %[[H]], %{{.*}} : index
// CHECK:             %[[END:.*]] = arith.minui
// CHECK:             scf.for %{{.*}} = %{{.*}} to %[[END]] {{.*}} -> (f32, f32)
// CHECK:               memref.load %arg3
// CHECK:               arith.select
// CHECK:               arith.maximumf
// CHECK:               math.exp
// CHECK:               math.exp
// CHECK:             arith.cmpf ogt
// CHECK:             memref.store {{.*}}, %arg4[%[[B]], %[[I]], %[[H]], %{{.*}}] : memref<2x16x4x64xf32>
func.func @attention(%q: memref<2x4x16x64xf32>, %k: memref<2x2x16x64xf32>, %v: memref<2x2x16x64xf32>, %m: memref<16x16xi1>, %o: memref<2x16x4x64xf32>) {
  tcc_kernel.attention ins(%q, %k, %v : memref<2x4x16x64xf32>, memref<2x2x16x64xf32>, memref<2x2x16x64xf32>) mask(%m : memref<16x16xi1>) outs(%o : memref<2x16x4x64xf32>) {bshd = array<i1: false, false, false, true>, causal, scale = 0.125 : f64}
  return
}

// -----

// layer_norm with a residual written back: pass 1 sums h and stores it,
// pass 2 the squared deviations, pass 3 writes the output. The sums may be
// reassociated (LLVM vectorizes them with partial sums per lane).
// CHECK-LABEL: func @layer_norm
// CHECK:       scf.parallel (%[[R:.*]]) =
// CHECK:         scf.for {{.*}} -> (f32)
// CHECK:           arith.addf
// CHECK:           memref.store %{{.*}}, %arg5[%[[R]], %{{.*}}]
// CHECK-NEXT:      arith.addf {{.*}} fastmath<reassoc> : f32
// CHECK:         scf.for {{.*}} -> (f32)
// CHECK:           arith.mulf
// CHECK-NEXT:      arith.addf {{.*}} fastmath<reassoc> : f32
// CHECK:         math.rsqrt
// CHECK:         scf.for
// CHECK:           memref.load %arg2
// CHECK:           memref.load %arg3
// CHECK:           memref.store %{{.*}}, %arg4[%[[R]], %{{.*}}]
func.func @layer_norm(%x: memref<8x768xf32>, %res: memref<8x768xf32>, %w: memref<768xf32>, %b: memref<768xf32>, %y: memref<8x768xf32>, %s: memref<8x768xf32>) {
  tcc_kernel.row layer_norm ins(%x : memref<8x768xf32>) residual(%res : memref<8x768xf32>) weight(%w : memref<768xf32>) bias(%b : memref<768xf32>) outs(%y, %s : memref<8x768xf32>, memref<8x768xf32>) {eps = 1.0e-5 : f64}
  return
}

// -----

// A convolution: one parallel loop over the result, sums over the group's
// channels and the window in f32; a window position in the padding loads a
// clamped element and selects 0; bias, residual and ReLU, rounded once.
// CHECK-LABEL: func @conv_bf16
// CHECK:       scf.parallel (%[[N:[a-z0-9]+]], %[[F:[a-z0-9]+]], %[[OH:[a-z0-9]+]], %[[OW:[a-z0-9]+]]) =
// CHECK:         scf.for %[[C:[a-z0-9]+]] = {{.*}} -> (f32)
// CHECK:           scf.for %[[I:[a-z0-9]+]] = {{.*}} -> (f32)
// CHECK:             scf.for %[[J:[a-z0-9]+]] = {{.*}} -> (f32)
// CHECK:               memref.load %arg0[%[[N]], %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x8x16x16xbf16>
// CHECK:               memref.load %arg1[%[[F]], %[[C]], %[[I]], %[[J]]] : memref<4x4x3x3xbf16>
// CHECK:               arith.mulf {{.*}} : f32
// CHECK:               arith.select
// CHECK:         memref.load %arg2[%[[F]]] : memref<4xbf16>
// CHECK:         memref.load %arg3[%[[N]], %[[F]], %[[OH]], %[[OW]]] : memref<2x4x8x8xbf16>
// CHECK:         arith.maximumf
// CHECK:         arith.truncf {{.*}} : f32 to bf16
// CHECK:         memref.store {{.*}}, %arg4[%[[N]], %[[F]], %[[OH]], %[[OW]]]
func.func @conv_bf16(%x: memref<2x8x16x16xbf16>, %w: memref<4x4x3x3xbf16>, %b: memref<4xbf16>, %r: memref<2x4x8x8xbf16>, %y: memref<2x4x8x8xbf16>) {
  tcc_kernel.conv ins(%x, %w : memref<2x8x16x16xbf16>, memref<4x4x3x3xbf16>) bias(%b : memref<4xbf16>) residual(%r : memref<2x4x8x8xbf16>) outs(%y : memref<2x4x8x8xbf16>) activation(relu) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64}
  return
}

// -----

// Channels-last: the same sums, indexing NHWC tensors and FRSC weights.
// CHECK-LABEL: func @conv_nhwc
// CHECK:       scf.parallel (%[[N:[a-z0-9]+]], %[[OH:[a-z0-9]+]], %[[OW:[a-z0-9]+]], %[[F:[a-z0-9]+]]) =
// CHECK:         scf.for %[[C:[a-z0-9]+]] = {{.*}} -> (f32)
// CHECK:           scf.for %[[I:[a-z0-9]+]] = {{.*}} -> (f32)
// CHECK:             scf.for %[[J:[a-z0-9]+]] = {{.*}} -> (f32)
// CHECK:               memref.load %arg0[%[[N]], %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x8x8x4xf32>
// CHECK:               memref.load %arg1[%[[F]], %[[I]], %[[J]], %[[C]]] : memref<6x3x3x4xf32>
// CHECK:         memref.store {{.*}}, %arg2[%[[N]], %[[OH]], %[[OW]], %[[F]]]
func.func @conv_nhwc(%x: memref<2x8x8x4xf32>, %w: memref<6x3x3x4xf32>, %y: memref<2x8x8x6xf32>) {
  tcc_kernel.conv ins(%x, %w : memref<2x8x8x4xf32>, memref<6x3x3x4xf32>) outs(%y : memref<2x8x8x6xf32>) {channels_last, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64}
  return
}
