// RUN: tcc-opt %s -convert-tcc-kernel-to-cuda -split-input-file | FileCheck %s
// RUN: tcc-opt %s -convert-tcc-kernel-to-cuda='tf32=true' -split-input-file | FileCheck %s --check-prefix=TF32

// A planned entry (it has a tcc.arena argument) gets a stream argument; the
// GEMM becomes one tcc_gemm call: dtype 0 (f32), compute 0, batch 1 x 1,
// m = 10, n = 10, k = 100, A with lda 100, B transposed (ldb 100), C (ldc 10),
// no residual, bias, epilogue 3 (bias + relu), alpha 1.
// CHECK-LABEL: func @linear_relu
// CHECK-SAME:    %[[STREAM:[a-z0-9]+]]: !llvm.ptr {tcc.stream}
// CHECK:         call @tcc_gemm(%c0_i32, %c0_i32{{[_0-9]*}}, %c1_i64, %c1_i64{{[_0-9]*}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %c0_i64, %c0_i64{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %{{[0-9]+}}, %{{[0-9]+}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c1_i32, %{{[0-9]+}}, %{{[0-9]+}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %{{[0-9]+}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %{{[0-9]+}}, %c3_i32, %cst, %[[STREAM]])
// CHECK:       func.func private @tcc_gemm(i32, i32, i64, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i32, !llvm.ptr, i64, i64, i64, i32, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i32, f32, !llvm.ptr)
// TF32-LABEL:  func @linear_relu
// TF32:          call @tcc_gemm(%c0_i32{{.*}}, %c1_i32
func.func @linear_relu(%x: memref<10x100xf32>, %w: memref<10x100xf32>, %b: memref<10xf32>, %y: memref<10x10xf32>, %arena: memref<?xi8> {tcc.arena}) {
  tcc_kernel.gemm ins(%x, %w : memref<10x100xf32>, memref<10x100xf32>) bias(%b : memref<10xf32>) outs(%y : memref<10x10xf32>) transpose_b activation(relu)
  return
}

// -----

// Three batch dims: the first becomes a host loop advancing the pointers, the
// last two tcc_gemm's batch0/batch1 (bf16 = dtype 2).
// CHECK-LABEL: func @three_batch_dims
// CHECK:         scf.for
// CHECK:           llvm.getelementptr
// CHECK:           call @tcc_gemm(%c2_i32
func.func @three_batch_dims(%a: memref<2x3x4x8x16xbf16>, %b: memref<2x3x4x16x8xbf16>, %c: memref<2x3x4x8x8xbf16>, %arena: memref<?xi8> {tcc.arena}) {
  tcc_kernel.gemm ins(%a, %b : memref<2x3x4x8x16xbf16>, memref<2x3x4x16x8xbf16>) outs(%c : memref<2x3x4x8x8xbf16>)
  return
}

// -----

// Attention: f16 (dtype 1), query heads 8 over key/value heads 2, a bool mask
// (kind 1) broadcast over batch and heads (strides 0), no batch period (0, 0),
// causal, the scale.
// CHECK-LABEL: func @attention
// CHECK:         call @tcc_attention(%c1_i32, %c0_i32, {{.*}}, %c1_i32{{[_0-9]*}}, %c0_i64, %c0_i64{{[_0-9]*}}, %{{[0-9]+}}, %{{[0-9]+}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c1_i32{{[_0-9]*}}, %cst, %arg6)
// TF32-LABEL:  func @attention
// TF32:          call @tcc_attention(%c1_i32, %c1_i32
func.func @attention(%q: memref<2x8x16x64xf16>, %k: memref<2x2x16x64xf16>, %v: memref<2x2x16x64xf16>, %m: memref<16x16xi1>, %o: memref<2x8x16x64xf16>, %arena: memref<?xi8> {tcc.arena}) {
  tcc_kernel.attention ins(%q, %k, %v : memref<2x8x16x64xf16>, memref<2x2x16x64xf16>, memref<2x2x16x64xf16>) mask(%m : memref<16x16xi1>) outs(%o : memref<2x8x16x64xf16>) {causal, scale = 0.125 : f64}
  return
}

// -----

// A mask per window, [B / P, P, H, Lq, Lk] = [1, 4, 1, 16, 16] for a batch
// of 8: its dim 1 gives the batch stride and the period (4), its dim 0 the
// outer stride (0: shared by all images), heads broadcast (0).
// CHECK-LABEL: func @attention_window_mask
// CHECK:         call @tcc_attention(%c0_i32, %c0_i32{{[_0-9]*}}, {{.*}}, %c2_i32{{[_0-9]*}}, %{{[0-9]+}}, %c0_i64{{[_0-9]*}}, %{{[0-9]+}}, %{{[0-9]+}}, %c4_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %cst, %arg6)
func.func @attention_window_mask(%q: memref<8x2x16x16xf32>, %k: memref<8x2x16x16xf32>, %v: memref<8x2x16x16xf32>, %m: memref<1x4x1x16x16xf32>, %o: memref<8x2x16x16xf32>, %arena: memref<?xi8> {tcc.arena}) {
  tcc_kernel.attention ins(%q, %k, %v : memref<8x2x16x16xf32>, memref<8x2x16x16xf32>, memref<8x2x16x16xf32>) mask(%m : memref<1x4x1x16x16xf32>) outs(%o : memref<8x2x16x16xf32>) {scale = 0.25 : f64}
  return
}

// -----

// Rows of a [2, 16, 64] tensor: the leading dims collapse, one call takes
// 32 rows of 64; kind 3 (rms_norm), bf16 in and out (2), the weight's type
// f32 (0).
// CHECK-LABEL: func @rms_norm
// CHECK:         memref.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : memref<2x16x64xbf16> into memref<32x64xbf16>
// CHECK-NOT:     scf.for
// CHECK:         call @tcc_row(%c3_i32, %c2_i32{{.*}}, %c2_i32{{.*}}, %c0_i32
func.func @rms_norm(%x: memref<2x16x64xbf16>, %w: memref<64xf32>, %y: memref<2x16x64xbf16>, %arena: memref<?xi8> {tcc.arena}) {
  tcc_kernel.row rms_norm ins(%x : memref<2x16x64xbf16>) weight(%w : memref<64xf32>) outs(%y : memref<2x16x64xbf16>) {eps = 1.0e-6 : f64}
  return
}

// -----

// A view whose leading dims do not collapse (a slice of a longer batch
// stride): the first dim becomes a host loop around the call.
// CHECK-LABEL: func @row_strided_batch
// CHECK:         scf.for
// CHECK:           call @tcc_row(%c2_i32
func.func @row_strided_batch(%x: memref<2x16x64xf32, strided<[2048, 64, 1]>>, %y: memref<2x16x64xf32>, %arena: memref<?xi8> {tcc.arena}) {
  tcc_kernel.row layer_norm ins(%x : memref<2x16x64xf32, strided<[2048, 64, 1]>>) outs(%y : memref<2x16x64xf32>) {eps = 1.0e-5 : f64}
  return
}

// -----

// A convolution is one tcc_conv2d call: n, c, h, w, f, r, s, oh, ow, the
// padding, stride and dilation, groups, the strides of input, output and
// residual (four each, read from the memrefs; the output here is a channel
// slice of a 24-channel buffer; zeros for the absent residual; conv-calls.mlir
// checks their values), the pointers (the residual's null), dtype 0,
// compute 0 (1 with TF32), activation 1 (relu), layout 0 (NCHW).
// CHECK-LABEL: func @conv_into_slice
// CHECK:         call @tcc_conv2d(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c8_i64, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %c0_i32, %c0_i32{{[_0-9]*}}, %c1_i32, %c0_i32{{[_0-9]*}}, %{{.*}})
// CHECK:       func.func private @tcc_conv2d(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, !llvm.ptr)
// TF32-LABEL:  func @conv_into_slice
// TF32:          call @tcc_conv2d({{.*}}, %c0_i32, %c1_i32{{[_0-9]*}}, %c1_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %{{.*}})
func.func @conv_into_slice(%x: memref<2x8x16x16xf32>, %w: memref<8x1x3x3xf32>, %b: memref<8xf32>, %big: memref<2x24x16x16xf32>, %arena: memref<?xi8> {tcc.arena}) {
  %y = memref.subview %big[0, 8, 0, 0] [2, 8, 16, 16] [1, 1, 1, 1] : memref<2x24x16x16xf32> to memref<2x8x16x16xf32, strided<[6144, 256, 16, 1], offset: 2048>>
  tcc_kernel.conv ins(%x, %w : memref<2x8x16x16xf32>, memref<8x1x3x3xf32>) bias(%b : memref<8xf32>) outs(%y : memref<2x8x16x16xf32, strided<[6144, 256, 16, 1], offset: 2048>>) activation(relu) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 8 : i64}
  return
}
