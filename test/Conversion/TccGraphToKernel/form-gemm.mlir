// RUN: tcc-opt %s -tcc-form-kernels -split-input-file | FileCheck %s
// RUN: tcc-opt %s -tcc-form-kernels='cpu-only=true' -split-input-file | FileCheck %s --check-prefix=CPU

// linear + relu: the weight's transpose becomes transpose_b, bias and relu the
// epilogue; the dynamic batch size comes from the input.
// CHECK-LABEL: func @linear_relu
// CHECK:     %[[C0:.*]] = arith.constant 0 : index
// CHECK:     %[[D:.*]] = tensor.dim %arg0, %[[C0]] : tensor<?x100xf32>
// CHECK:     %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x10xf32>
// CHECK:     %[[Y:.*]] = tcc_kernel.gemm ins(%arg0, %arg1 : tensor<?x100xf32>, tensor<10x100xf32>) bias(%arg2 : tensor<10xf32>) outs(%[[E]] : tensor<?x10xf32>) transpose_b activation(relu) -> tensor<?x10xf32>
// CHECK:     return %[[Y]]
// CHECK-NOT: tcc_graph.
func.func @linear_relu(%x: tensor<?x100xf32>, %w: tensor<10x100xf32>, %b: tensor<10xf32>) -> tensor<?x10xf32> {
  %wt = tcc_graph.transpose %w {permutation = array<i64: 1, 0>} : (tensor<10x100xf32>) -> tensor<100x10xf32>
  %mm = tcc_graph.matmul %x, %wt : (tensor<?x100xf32>, tensor<100x10xf32>) -> tensor<?x10xf32>
  %y = tcc_graph.add %mm, %b : (tensor<?x10xf32>, tensor<10xf32>) -> tensor<?x10xf32>
  %r = tcc_graph.relu %y : tensor<?x10xf32>
  return %r : tensor<?x10xf32>
}

// -----

// A linear on [B, L, K] viewed as [B·L, K] (GPT-2's Conv1D): the epilogue is
// followed through the reshape that keeps N, the residual add is folded in
// (reshaped to the product's shape), and the result reshaped back.
// CHECK-LABEL: func @addmm_residual
// CHECK:     %[[R:.*]] = tcc_graph.reshape %arg3 : (tensor<2x16x64xf32>) -> tensor<32x64xf32>
// CHECK:     %[[Y:.*]] = tcc_kernel.gemm ins(%arg0, %arg1 : tensor<32x64xf32>, tensor<64x64xf32>) bias(%arg2 : tensor<64xf32>) residual(%[[R]] : tensor<32x64xf32>) outs(%{{.*}} : tensor<32x64xf32>) -> tensor<32x64xf32>
// CHECK:     tcc_graph.reshape %[[Y]] : (tensor<32x64xf32>) -> tensor<2x16x64xf32>
func.func @addmm_residual(%x: tensor<32x64xf32>, %w: tensor<64x64xf32>, %b: tensor<64xf32>, %res: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %mm = tcc_graph.matmul %x, %w : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
  %y = tcc_graph.add %mm, %b : (tensor<32x64xf32>, tensor<64xf32>) -> tensor<32x64xf32>
  %v = tcc_graph.reshape %y : (tensor<32x64xf32>) -> tensor<2x16x64xf32>
  %o = tcc_graph.add %res, %v : (tensor<2x16x64xf32>, tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  return %o : tensor<2x16x64xf32>
}

// -----

// GELU written out with tanh (aten.gelu(approximate='tanh') or GPT-2's
// NewGELU) after the bias: cuBLASLt's GELU epilogue.
// CHECK-LABEL: func @gelu_tanh
// CHECK:     tcc_kernel.gemm ins(%arg0, %arg1 : tensor<8x16xbf16>, tensor<16x32xbf16>) bias(%arg2 : tensor<32xbf16>) outs(%{{.*}} : tensor<8x32xbf16>) activation(gelu_tanh) -> tensor<8x32xbf16>
// CHECK-NOT: tcc_graph.tanh
func.func @gelu_tanh(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>, %b: tensor<32xbf16>) -> tensor<8x32xbf16> {
  %mm = tcc_graph.matmul %x, %w : (tensor<8x16xbf16>, tensor<16x32xbf16>) -> tensor<8x32xbf16>
  %h = tcc_graph.add %mm, %b : (tensor<8x32xbf16>, tensor<32xbf16>) -> tensor<8x32xbf16>
  %half = tcc_graph.constant dense<5.000000e-01> : tensor<bf16>
  %a = tcc_graph.mul %h, %half : (tensor<8x32xbf16>, tensor<bf16>) -> tensor<8x32xbf16>
  %sq = tcc_graph.mul %h, %h : (tensor<8x32xbf16>, tensor<8x32xbf16>) -> tensor<8x32xbf16>
  %cube = tcc_graph.mul %sq, %h : (tensor<8x32xbf16>, tensor<8x32xbf16>) -> tensor<8x32xbf16>
  %k = tcc_graph.constant dense<4.471500e-02> : tensor<bf16>
  %kc = tcc_graph.mul %cube, %k : (tensor<8x32xbf16>, tensor<bf16>) -> tensor<8x32xbf16>
  %in = tcc_graph.add %h, %kc : (tensor<8x32xbf16>, tensor<8x32xbf16>) -> tensor<8x32xbf16>
  %s = tcc_graph.constant dense<7.978850e-01> : tensor<bf16>
  %t0 = tcc_graph.mul %in, %s : (tensor<8x32xbf16>, tensor<bf16>) -> tensor<8x32xbf16>
  %t = tcc_graph.tanh %t0 : tensor<8x32xbf16>
  %one = tcc_graph.constant dense<1.000000e+00> : tensor<bf16>
  %p = tcc_graph.add %t, %one : (tensor<8x32xbf16>, tensor<bf16>) -> tensor<8x32xbf16>
  %g = tcc_graph.mul %a, %p : (tensor<8x32xbf16>, tensor<8x32xbf16>) -> tensor<8x32xbf16>
  return %g : tensor<8x32xbf16>
}

// -----

// Attention scores written by hand: the transposed key is transpose_b and the
// scale is alpha; batch dims broadcast (the key shared by 4 heads).
// CHECK-LABEL: func @scores
// CHECK:     tcc_kernel.gemm ins(%arg0, %arg1 : tensor<2x4x16x8xf32>, tensor<2x1x16x8xf32>) outs(%{{.*}} : tensor<2x4x16x16xf32>) transpose_b {alpha = 1.250000e-01 : f64} -> tensor<2x4x16x16xf32>
func.func @scores(%q: tensor<2x4x16x8xf32>, %k: tensor<2x1x16x8xf32>) -> tensor<2x4x16x16xf32> {
  %kt = tcc_graph.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<2x1x16x8xf32>) -> tensor<2x1x8x16xf32>
  %s = tcc_graph.matmul %q, %kt : (tensor<2x4x16x8xf32>, tensor<2x1x8x16xf32>) -> tensor<2x4x16x16xf32>
  %c = tcc_graph.constant dense<8.0> : tensor<f32>
  %y = tcc_graph.div %s, %c : (tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16x16xf32>
  return %y : tensor<2x4x16x16xf32>
}

// -----

// Exact (erf) GELU is no library epilogue: it stays for a pointwise kernel.
// The product, read twice, keeps no epilogue.
// CHECK-LABEL: func @erf_gelu_stays
// CHECK:     %[[Y:.*]] = tcc_kernel.gemm ins(%arg0, %arg1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<8x32xf32>) -> tensor<8x32xf32>
// CHECK:     tcc_graph.erf
func.func @erf_gelu_stays(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %mm = tcc_graph.matmul %x, %w : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %c = tcc_graph.constant dense<0.707106769> : tensor<f32>
  %s = tcc_graph.mul %mm, %c : (tensor<8x32xf32>, tensor<f32>) -> tensor<8x32xf32>
  %e = tcc_graph.erf %s : tensor<8x32xf32>
  %g = tcc_graph.mul %mm, %e : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  return %g : tensor<8x32xf32>
}

// -----

// A residual after an activation is not an epilogue (the libraries add C
// before the activation).
// CHECK-LABEL: func @relu_then_residual
// CHECK:     %[[Y:.*]] = tcc_kernel.gemm {{.*}} activation(relu) -> tensor<8x32xf32>
// CHECK:     tcc_graph.add %[[Y]], %arg2
func.func @relu_then_residual(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %r: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %mm = tcc_graph.matmul %x, %w : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %a = tcc_graph.relu %mm : tensor<8x32xf32>
  %o = tcc_graph.add %a, %r : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  return %o : tensor<8x32xf32>
}

// -----

// A patch embedding (stride = kernel 16, no padding): the image cut into
// patches (one transposing copy), one GEMM with the reshaped weight and the
// bias, back to NCHW.
// CHECK-LABEL: func @patch_embedding
// CHECK:     %[[P:.*]] = tcc_graph.reshape %arg0 : (tensor<2x3x32x48xbf16>) -> tensor<2x3x2x16x3x16xbf16>
// CHECK:     %[[T:.*]] = tcc_graph.transpose %[[P]] {permutation = array<i64: 0, 2, 4, 1, 3, 5>}
// CHECK:     %[[A:.*]] = tcc_graph.reshape %[[T]] : (tensor<2x2x3x3x16x16xbf16>) -> tensor<12x768xbf16>
// CHECK:     %[[W:.*]] = tcc_graph.reshape %arg1 : (tensor<64x3x16x16xbf16>) -> tensor<64x768xbf16>
// CHECK:     %[[Y:.*]] = tcc_kernel.gemm ins(%[[A]], %[[W]] : tensor<12x768xbf16>, tensor<64x768xbf16>) bias(%arg2 : tensor<64xbf16>) outs(%{{.*}} : tensor<12x64xbf16>) transpose_b
// CHECK:     tcc_graph.transpose %{{.*}} {permutation = array<i64: 0, 3, 1, 2>} : (tensor<2x2x3x64xbf16>) -> tensor<2x64x2x3xbf16>
// CHECK-NOT: tcc_graph.conv2d
func.func @patch_embedding(%x: tensor<2x3x32x48xbf16>, %w: tensor<64x3x16x16xbf16>, %b: tensor<64xbf16>) -> tensor<2x64x2x3xbf16> {
  %y = tcc_graph.conv2d %x, %w, %b {stride = array<i64: 16, 16>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x3x32x48xbf16>, tensor<64x3x16x16xbf16>, tensor<64xbf16>) -> tensor<2x64x2x3xbf16>
  return %y : tensor<2x64x2x3xbf16>
}

// -----

// An LM head over a vocabulary of 50257 (rows of 100514 bytes, not a
// multiple of 16): written into rows padded to 50264 elements (16-byte
// aligned for the tensor-core kernels), a slice of which is the result.
// CHECK-LABEL: func @unaligned_rows
// CHECK:     %[[P:.*]] = tensor.empty() : tensor<16x50264xbf16>
// CHECK:     %[[S:.*]] = tensor.extract_slice %[[P]][0, 0] [16, 50257] [1, 1] : tensor<16x50264xbf16> to tensor<16x50257xbf16>
// CHECK:     tcc_kernel.gemm ins(%arg0, %arg1 : tensor<16x768xbf16>, tensor<50257x768xbf16>) outs(%[[S]] : tensor<16x50257xbf16>) transpose_b -> tensor<16x50257xbf16>
func.func @unaligned_rows(%x: tensor<16x768xbf16>, %w: tensor<50257x768xbf16>) -> tensor<16x50257xbf16> {
  %wt = tcc_graph.transpose %w {permutation = array<i64: 1, 0>} : (tensor<50257x768xbf16>) -> tensor<768x50257xbf16>
  %y = tcc_graph.matmul %x, %wt : (tensor<16x768xbf16>, tensor<768x50257xbf16>) -> tensor<16x50257xbf16>
  return %y : tensor<16x50257xbf16>
}

// -----

// In f32 only when f32 products run on tensor cores (--precision tf32/bf16).
// RUN: tcc-opt %s -tcc-form-kernels='f32-tensor-cores=true' -split-input-file | FileCheck %s --check-prefix=TC
// CHECK-LABEL: func @unaligned_rows_f32
// CHECK:       tcc_kernel.gemm ins(%arg0, %arg1 : tensor<16x768xf32>, tensor<768x50257xf32>)
// TC-LABEL:    func @unaligned_rows_f32
// CHECK-NOT:   tensor.extract_slice
// TC:          %[[S:.*]] = tensor.extract_slice %{{.*}}[0, 0] [16, 50257] [1, 1] : tensor<16x50260xf32> to tensor<16x50257xf32>
// TC:          tcc_kernel.gemm ins(%arg0, %arg1 : tensor<16x768xf32>, tensor<768x50257xf32>) outs(%[[S]] : tensor<16x50257xf32>)
func.func @unaligned_rows_f32(%x: tensor<16x768xf32>, %w: tensor<768x50257xf32>) -> tensor<16x50257xf32> {
  %y = tcc_graph.matmul %x, %w : (tensor<16x768xf32>, tensor<768x50257xf32>) -> tensor<16x50257xf32>
  return %y : tensor<16x50257xf32>
}

// -----

// The exact GELU (aten.gelu, BERT's) after an f32 product: the product's
// epilogue only where the program is compiled for the CPU alone (oneDNN's
// post-op); cuBLASLt has no erf GELU, so otherwise it stays pointwise ops.
// CHECK-LABEL: func @gelu_erf
// CHECK:     tcc_kernel.gemm {{.*}} bias(%arg2 : tensor<32xf32>) {{.*}}-> tensor<8x32xf32>
// CHECK-NOT: activation(
// CHECK:     tcc_graph.erf
// CPU-LABEL: func @gelu_erf
// CPU:       tcc_kernel.gemm {{.*}} bias(%arg2 : tensor<32xf32>) outs({{.*}}) activation(gelu_erf) -> tensor<8x32xf32>
// CPU-NOT:   tcc_graph.erf
func.func @gelu_erf(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %mm = tcc_graph.matmul %x, %w : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %h = tcc_graph.add %mm, %b : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %half = tcc_graph.constant dense<5.000000e-01> : tensor<f32>
  %a = tcc_graph.mul %half, %h : (tensor<f32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = tcc_graph.constant dense<0.70710678118654757> : tensor<f32>
  %e0 = tcc_graph.mul %h, %r : (tensor<8x32xf32>, tensor<f32>) -> tensor<8x32xf32>
  %e = tcc_graph.erf %e0 : tensor<8x32xf32>
  %one = tcc_graph.constant dense<1.000000e+00> : tensor<f32>
  %p = tcc_graph.add %one, %e : (tensor<f32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  %g = tcc_graph.mul %a, %p : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  return %g : tensor<8x32xf32>
}

// -----

// An f64 product forms no GEMM kernel (those compute f32, f16 and bf16): it
// stays a tcc_graph.matmul, lowered to a linalg matmul accumulating in f64.
// CHECK-LABEL: func @f64_stays_matmul
// CHECK-NOT:     tcc_kernel.gemm
// CHECK:         tcc_graph.matmul
// CPU-LABEL: func @f64_stays_matmul
// CPU-NOT:     tcc_kernel.gemm
func.func @f64_stays_matmul(%a: tensor<4x8xf64>, %b: tensor<8x5xf64>) -> tensor<4x5xf64> {
  %0 = tcc_graph.matmul %a, %b : (tensor<4x8xf64>, tensor<8x5xf64>) -> tensor<4x5xf64>
  return %0 : tensor<4x5xf64>
}

// -----

// A residual added behind a transpose of the product (ConvNeXt's block end:
// the product channels-last, permuted back to NCHW, plus the block's input,
// itself channels-last permuted the same way): the GEMM adds the residual's
// channels-last source and its result is permuted after.
// CHECK-LABEL: func @residual_behind_transpose
// CHECK:     %[[Y:.*]] = tcc_kernel.gemm {{.*}} bias(%arg2 : tensor<6xf32>) residual(%arg3 : tensor<2x4x4x6xf32>)
// CHECK:     %[[T:.*]] = tcc_graph.transpose %[[Y]] {permutation = array<i64: 0, 3, 1, 2>}
// CHECK-NOT: tcc_graph.add
// CHECK:     return %[[T]]
// CPU-LABEL: func @residual_behind_transpose
// CPU:       tcc_kernel.gemm {{.*}} residual(%arg3 : tensor<2x4x4x6xf32>)
func.func @residual_behind_transpose(%x: tensor<2x4x4x8xf32>, %w: tensor<8x6xf32>, %b: tensor<6xf32>, %r: tensor<2x4x4x6xf32>) -> tensor<2x6x4x4xf32> {
  %y = tcc_graph.matmul %x, %w : (tensor<2x4x4x8xf32>, tensor<8x6xf32>) -> tensor<2x4x4x6xf32>
  %a = tcc_graph.add %y, %b : (tensor<2x4x4x6xf32>, tensor<6xf32>) -> tensor<2x4x4x6xf32>
  %t = tcc_graph.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : (tensor<2x4x4x6xf32>) -> tensor<2x6x4x4xf32>
  %rt = tcc_graph.transpose %r {permutation = array<i64: 0, 3, 1, 2>} : (tensor<2x4x4x6xf32>) -> tensor<2x6x4x4xf32>
  %s = tcc_graph.add %t, %rt : (tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32>
  return %s : tensor<2x6x4x4xf32>
}

// -----

// A residual that is no permutation of a channels-last tensor would need a
// transposing copy for the GEMM: the add stays after the transpose.
// CHECK-LABEL: func @nchw_residual_stays
// CHECK:     tcc_kernel.gemm {{.*}} bias(%arg2 : tensor<6xf32>) outs
// CHECK:     tcc_graph.transpose
// CHECK:     tcc_graph.add
// CPU-LABEL: func @nchw_residual_stays
func.func @nchw_residual_stays(%x: tensor<2x4x4x8xf32>, %w: tensor<8x6xf32>, %b: tensor<6xf32>, %r: tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32> {
  %y = tcc_graph.matmul %x, %w : (tensor<2x4x4x8xf32>, tensor<8x6xf32>) -> tensor<2x4x4x6xf32>
  %a = tcc_graph.add %y, %b : (tensor<2x4x4x6xf32>, tensor<6xf32>) -> tensor<2x4x4x6xf32>
  %t = tcc_graph.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : (tensor<2x4x4x6xf32>) -> tensor<2x6x4x4xf32>
  %s = tcc_graph.add %t, %r : (tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32>
  return %s : tensor<2x6x4x4xf32>
}

// -----

// A product over one term is an outer product: a broadcast multiply (one
// rounding of each exact product, as the GEMM's), no library call.
// CHECK-LABEL: func @outer_product
// CHECK-NOT: tcc_kernel.gemm
// CHECK: %[[P:.*]] = tcc_graph.mul %arg0, %arg1 : (tensor<1x32x1xf32>, tensor<1x1x7xf32>) -> tensor<1x32x7xf32>
// CHECK: return %[[P]]
func.func @outer_product(%freq: tensor<1x32x1xf32>, %pos: tensor<1x1x7xf32>) -> tensor<1x32x7xf32> {
  %0 = tcc_graph.matmul %freq, %pos : (tensor<1x32x1xf32>, tensor<1x1x7xf32>) -> tensor<1x32x7xf32>
  return %0 : tensor<1x32x7xf32>
}

// -----

// A weight transposed into an outer product is read by the multiply (the
// transpose of a [3, 1] weight folds to a reshape).
// CHECK-LABEL: func @outer_product_transposed
// CHECK-NOT: tcc_kernel.gemm
// CHECK: %[[T:.*]] = tcc_graph.reshape %arg1
// CHECK: tcc_graph.mul %arg0, %[[T]] : (tensor<4x1xbf16>, tensor<1x3xbf16>) -> tensor<4x3xbf16>
func.func @outer_product_transposed(%x: tensor<4x1xbf16>, %w: tensor<3x1xbf16>) -> tensor<4x3xbf16> {
  %t = tcc_graph.transpose %w {permutation = array<i64: 1, 0>} : (tensor<3x1xbf16>) -> tensor<1x3xbf16>
  %0 = tcc_graph.matmul %x, %t : (tensor<4x1xbf16>, tensor<1x3xbf16>) -> tensor<4x3xbf16>
  return %0 : tensor<4x3xbf16>
}
