// RUN: tcc-opt %s -convert-tcc-kernel-to-loops | FileCheck %s

// An f32 GEMM on the CPU path is one tcc_cpu_gemm call with tcc_gemm's
// arguments (tcc/Runtime/CpuGemm.h): dtype f32 (0), compute, batch 1 x 1,
// m, n, k, then A, B (transposed), C, no residual, the bias and its epilogue
// (bias + gelu: 5), alpha and a null stream.
// CHECK-LABEL: func @linear_gelu
// CHECK-NOT: scf.for
// CHECK: call @tcc_cpu_gemm(%{{.*}}) : (i32, i32, i64, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i32, !llvm.ptr, i64, i64, i64, i32, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i32, f32, !llvm.ptr) -> ()
func.func @linear_gelu(%x: memref<4x8xf32>, %w: memref<16x8xf32>, %b: memref<16xf32>, %y: memref<4x16xf32>) {
  tcc_kernel.gemm ins(%x, %w : memref<4x8xf32>, memref<16x8xf32>) bias(%b : memref<16xf32>) outs(%y : memref<4x16xf32>) transpose_b activation(gelu_tanh)
  return
}

// A bf16 GEMM keeps the loops (tcc_cpu_gemm multiplies f32).
// CHECK-LABEL: func @bf16_stays_loops
// CHECK-NOT: tcc_cpu_gemm
// CHECK: scf.for
func.func @bf16_stays_loops(%x: memref<4x8xbf16>, %w: memref<8x16xbf16>, %y: memref<4x16xbf16>) {
  tcc_kernel.gemm ins(%x, %w : memref<4x8xbf16>, memref<8x16xbf16>) outs(%y : memref<4x16xbf16>)
  return
}

// An f32 NCHW convolution is one tcc_cpu_conv2d call with tcc_conv2d's
// arguments (im2col and sgemm in the runtime); its bias and ReLU (1) ride along.
// CHECK-LABEL: func @conv_relu
// CHECK-NOT: scf.for
// CHECK: call @tcc_cpu_conv2d(%{{.*}}) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, !llvm.ptr) -> ()
func.func @conv_relu(%x: memref<2x8x6x6xf32>, %w: memref<4x8x3x3xf32>, %b: memref<4xf32>, %y: memref<2x4x6x6xf32>) {
  tcc_kernel.conv ins(%x, %w : memref<2x8x6x6xf32>, memref<4x8x3x3xf32>) bias(%b : memref<4xf32>) outs(%y : memref<2x4x6x6xf32>) activation(relu) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>}
  return
}

// An f32 attention is one tcc_cpu_attention call with tcc_attention's
// arguments (scores and P·V in sgemm, the masked softmax per row).
// CHECK-LABEL: func @attention_gqa_causal_masked
// CHECK-NOT: scf.for
// CHECK: call @tcc_cpu_attention(
func.func @attention_gqa_causal_masked(%q: memref<2x4x16x64xf32>, %k: memref<2x2x16x64xf32>, %v: memref<2x2x16x64xf32>, %m: memref<16x16xi1>, %o: memref<2x16x4x64xf32>) {
  tcc_kernel.attention ins(%q, %k, %v : memref<2x4x16x64xf32>, memref<2x2x16x64xf32>, memref<2x2x16x64xf32>) mask(%m : memref<16x16xi1>) outs(%o : memref<2x16x4x64xf32>) {bshd = array<i1: false, false, false, true>, causal, scale = 0.125 : f64}
  return
}

// An NCHW output whose rows are strided (the interior of a padded buffer) is
// passed with its strides too: oneDNN reads any (the runtime's loops take
// them where oneDNN is missing). A filter that is not a weight argument:
// activations argument 0, no bound-weight bit.
// CHECK-LABEL: func @conv_padded_interior
// CHECK-NOT: scf.parallel
// CHECK: call @tcc_cpu_conv2d({{.*}}, %c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %{{[0-9]+}})
func.func @conv_padded_interior(%x: memref<2x8x6x6xf32>, %w: memref<4x8x3x3xf32>, %padded: memref<2x4x8x8xf32>) {
  %y = memref.subview %padded[0, 0, 1, 1] [2, 4, 6, 6] [1, 1, 1, 1] : memref<2x4x8x8xf32> to memref<2x4x6x6xf32, strided<[256, 64, 8, 1], offset: 9>>
  tcc_kernel.conv ins(%x, %w : memref<2x8x6x6xf32>, memref<4x8x3x3xf32>) outs(%y : memref<2x4x6x6xf32, strided<[256, 64, 8, 1], offset: 9>>) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>}
  return
}

// A filter that is a weight of the entry (tcc.role = "weight"), seen through
// a view: bit 16 of the activations argument tells the runtime that it may
// keep the filter in oneDNN's layout until weights are bound again.
// Channels-last with SiLU after it (formed for the CPU path alone): 3 | 1 << 16.
// CHECK-LABEL: func @conv_bound_weight_nhwc_silu
// CHECK: call @tcc_cpu_conv2d({{.*}}, %c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c65539_i32, %c1_i32{{[_0-9]*}}, %{{[0-9]+}})
func.func @conv_bound_weight_nhwc_silu(%x: memref<2x6x6x8xf32>, %w: memref<1x4x3x3x8xf32> {tcc.role = "weight"}, %y: memref<2x6x6x4xf32>) {
  %f = memref.collapse_shape %w [[0, 1], [2], [3], [4]] : memref<1x4x3x3x8xf32> into memref<4x3x3x8xf32>
  tcc_kernel.conv ins(%x, %f : memref<2x6x6x8xf32>, memref<4x3x3x8xf32>) outs(%y : memref<2x6x6x4xf32>) activation(silu) {channels_last, dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>}
  return
}

// A linear layer's weight (tcc.role = "weight"): bit 16 of the epilogue
// argument lets the runtime keep it packed in oneDNN's layout until weights
// are bound again. With a bias: 1 | 1 << 16.
// CHECK-LABEL: func @gemm_bound_weight
// CHECK: call @tcc_cpu_gemm({{.*}}, %c65537_i32, %cst{{[_0-9]*}}, %{{[0-9]+}})
func.func @gemm_bound_weight(%x: memref<4x8xf32>, %w: memref<16x8xf32> {tcc.role = "weight"}, %bias: memref<16xf32> {tcc.role = "weight"}, %y: memref<4x16xf32>) {
  tcc_kernel.gemm ins(%x, %w : memref<4x8xf32>, memref<16x8xf32>) bias(%bias : memref<16xf32>) outs(%y : memref<4x16xf32>) transpose_b
  return
}

// The exact GELU in loops (a bf16 product: no library call): 0.5·y·(1 + erf(y/√2)).
// CHECK-LABEL: func @bf16_gelu_erf_loops
// CHECK-NOT: tcc_cpu_gemm
// CHECK: arith.mulf %{{.*}}, %cst{{[_0-9]*}} : f32
// CHECK-NEXT: math.erf
func.func @bf16_gelu_erf_loops(%x: memref<4x8xbf16>, %w: memref<8x16xbf16>, %y: memref<4x16xbf16>) {
  tcc_kernel.gemm ins(%x, %w : memref<4x8xbf16>, memref<8x16xbf16>) outs(%y : memref<4x16xbf16>) activation(gelu_erf)
  return
}
