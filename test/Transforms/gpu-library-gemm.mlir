// tcc-gpu-library-gemm: matmul-shaped generics of the planned program become
// tcc_gemm_f32 calls (argument order: batch, m, n, k, A, lda, strideA, transA,
// B, ldb, strideB, transB, C, ldc, strideC, accumulate, bias, epilogue,
// compute, stream); -canonicalize folds the static sizes and strides.
// RUN: tcc-opt %s -split-input-file -tcc-gpu-library-gemm -canonicalize | FileCheck %s
// RUN: tcc-opt %s -split-input-file -tcc-gpu-library-gemm='tf32=true' -canonicalize | FileCheck %s --check-prefix=TF32

// Linear + bias + ReLU, in place (MyModule's planned program): one call with
// RELU_BIAS, the fill and both generics gone.
// CHECK-LABEL: func.func @linear_bias_relu(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<10x100xf32>, %[[W:[a-z0-9]+]]: memref<10x100xf32>, %[[BIAS:[a-z0-9]+]]: memref<10xf32>, %[[OUT:[a-z0-9]+]]: memref<10x10xf32>, %{{.*}}: memref<?xi8> {tcc.arena}, %[[STREAM:[a-z0-9]+]]: !llvm.ptr {tcc.stream})
// CHECK-NOT:     linalg.
// CHECK:         %[[XI:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:         %[[XP:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr
// CHECK:         memref.extract_aligned_pointer_as_index %[[W]]
// CHECK:         %[[WP:.*]] = llvm.inttoptr
// CHECK:         memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK:         %[[OP:.*]] = llvm.inttoptr
// CHECK:         memref.extract_aligned_pointer_as_index %[[BIAS]]
// CHECK:         %[[BP:.*]] = llvm.inttoptr
// CHECK:         call @tcc_gemm_f32(%c1_i64, %c10_i64, %c10_i64, %c100_i64, %[[XP]], %c100_i64, %c0_i64, %c0_i32, %[[WP]], %c100_i64, %c0_i64, %c1_i32, %[[OP]], %c10_i64, %c0_i64, %c0_i32, %[[BP]], %c3_i32, %c0_i32, %[[STREAM]])
// CHECK-NOT:     linalg.
// CHECK:         return
// CHECK:       func.func private @tcc_gemm_f32(i64, i64, i64, i64, !llvm.ptr, i64, i64, i32, !llvm.ptr, i64, i64, i32, !llvm.ptr, i64, i64, i32, !llvm.ptr, i32, i32, !llvm.ptr)

// TF32-LABEL:  func.func @linear_bias_relu(
// TF32:          call @tcc_gemm_f32({{.*}}, %c3_i32, %c1_i32, %{{.*}})

#mA = affine_map<(d0, d1, d2) -> (d0, d2)>
#mWt = affine_map<(d0, d1, d2) -> (d1, d2)>
#mC = affine_map<(d0, d1, d2) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @linear_bias_relu(%x: memref<10x100xf32>, %w: memref<10x100xf32>, %bias: memref<10xf32>, %out: memref<10x10xf32>, %arena: memref<?xi8> {tcc.arena}) {
  %cst = arith.constant 0.000000e+00 : f32
  linalg.fill ins(%cst : f32) outs(%out : memref<10x10xf32>)
  linalg.generic {indexing_maps = [#mA, #mWt, #mC], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<10x100xf32>, memref<10x100xf32>) outs(%out : memref<10x10xf32>) {
  ^bb0(%in: f32, %in_0: f32, %o: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%out, %bias : memref<10x10xf32>, memref<10xf32>) outs(%out : memref<10x10xf32>) {
  ^bb0(%in: f32, %in_0: f32, %o: f32):
    %0 = arith.addf %in, %in_0 : f32
    %1 = arith.maximumf %0, %cst : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// A plain matmul into an arena buffer, nothing fusable after it: no epilogue,
// beta = 0 (the fill is erased); the sin stays a kernel.
// CHECK-LABEL: func.func @matmul_then_sin(
// CHECK-NOT:     linalg.fill
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         %[[T:.*]] = memref.view
// CHECK:         call @tcc_gemm_f32(%c1_i64, %c4_i64, %c16_i64, %c8_i64, %{{[0-9]+}}, %c8_i64, %c0_i64, %c0_i32, %{{[0-9]+}}, %c16_i64, %c0_i64, %c0_i32, %{{[0-9]+}}, %c16_i64, %c0_i64, %c0_i32, %[[NULL]], %c0_i32, %c0_i32, %arg4)
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[T]] : memref<4x16xf32>) outs(%arg2 : memref<4x16xf32>)
// CHECK:           math.sin

#mA = affine_map<(d0, d1, d2) -> (d0, d2)>
#mB = affine_map<(d0, d1, d2) -> (d2, d1)>
#mC = affine_map<(d0, d1, d2) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @matmul_then_sin(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %out: memref<4x16xf32>, %arena: memref<?xi8> {tcc.arena}) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %t = memref.view %arena[%c0][] : memref<?xi8> to memref<4x16xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<4x16xf32>)
  linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%t : memref<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%t : memref<4x16xf32>) outs(%out : memref<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %0 = math.sin %x : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Bias + exact (erf) GELU into the output: cuBLASLt's GELU is the tanh
// approximation, so only the bias is fused; the GELU stays a kernel reading
// the GEMM's temporary, without its bias operand.
// CHECK-LABEL: func.func @linear_bias_gelu_erf(
// CHECK-NOT:     linalg.fill
// CHECK:         %[[T:.*]] = memref.view
// CHECK:         call @tcc_gemm_f32(%c1_i64, %c4_i64, %c16_i64, %c8_i64, %{{[0-9]+}}, %c8_i64, %c0_i64, %c0_i32, %{{[0-9]+}}, %c8_i64, %c0_i64, %c1_i32, %{{[0-9]+}}, %c16_i64, %c0_i64, %c0_i32, %{{[0-9]+}}, %c1_i32, %c0_i32, %arg5)
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[T]] : memref<4x16xf32>) outs(%arg3 : memref<4x16xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      arith.mulf %[[IN]], %{{.*}} : f32
// CHECK-NEXT:      %[[S:.*]] = arith.mulf %[[IN]], %{{.*}} : f32
// CHECK-NEXT:      math.erf %[[S]] : f32

#mA = affine_map<(d0, d1, d2) -> (d0, d2)>
#mWt = affine_map<(d0, d1, d2) -> (d1, d2)>
#mC = affine_map<(d0, d1, d2) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @linear_bias_gelu_erf(%x: memref<4x8xf32>, %w: memref<16x8xf32>, %bias: memref<16xf32>, %out: memref<4x16xf32>, %arena: memref<?xi8> {tcc.arena}) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %half = arith.constant 5.000000e-01 : f32
  %one = arith.constant 1.000000e+00 : f32
  %rsqrt2 = arith.constant 0.707106769 : f32
  %t = memref.view %arena[%c0][] : memref<?xi8> to memref<4x16xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<4x16xf32>)
  linalg.generic {indexing_maps = [#mA, #mWt, #mC], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<4x8xf32>, memref<16x8xf32>) outs(%t : memref<4x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%t, %bias : memref<4x16xf32>, memref<16xf32>) outs(%out : memref<4x16xf32>) {
  ^bb0(%in: f32, %b: f32, %o: f32):
    %0 = arith.addf %in, %b : f32
    %1 = arith.mulf %0, %half : f32
    %2 = arith.mulf %0, %rsqrt2 : f32
    %3 = math.erf %2 : f32
    %4 = arith.addf %3, %one : f32
    %5 = arith.mulf %1, %4 : f32
    linalg.yield %5 : f32
  }
  return
}

// -----

// Bias + tanh GELU from one arena buffer into another that does not overlap
// the operands: GELU_BIAS, written straight into the second buffer.
// CHECK-LABEL: func.func @linear_bias_gelu_tanh(
// CHECK-NOT:     linalg.fill
// CHECK:         %[[G:.*]] = memref.view %arg4[%c256][] : memref<?xi8> to memref<4x16xf32>
// CHECK:         memref.extract_aligned_pointer_as_index %[[G]]
// CHECK:         %[[GP:.*]] = llvm.inttoptr
// CHECK:         call @tcc_gemm_f32(%c1_i64, %c4_i64, %c16_i64, %c8_i64, %{{[0-9]+}}, %c8_i64, %c0_i64, %c0_i32, %{{[0-9]+}}, %c8_i64, %c0_i64, %c1_i32, %[[GP]], %c16_i64, %c0_i64, %c0_i32, %{{[0-9]+}}, %c5_i32, %c0_i32, %arg5)
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[G]] : memref<4x16xf32>) outs(%arg3 : memref<4x16xf32>)
// CHECK-NOT:       math.tanh
// CHECK:           math.sin

#mA = affine_map<(d0, d1, d2) -> (d0, d2)>
#mWt = affine_map<(d0, d1, d2) -> (d1, d2)>
#mC = affine_map<(d0, d1, d2) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @linear_bias_gelu_tanh(%x: memref<4x8xf32>, %w: memref<16x8xf32>, %bias: memref<16xf32>, %out: memref<4x16xf32>, %arena: memref<?xi8> {tcc.arena}) {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.000000e+00 : f32
  %half = arith.constant 5.000000e-01 : f32
  %one = arith.constant 1.000000e+00 : f32
  %k0 = arith.constant 0.797884583 : f32
  %k1 = arith.constant 4.471500e-02 : f32
  %t = memref.view %arena[%c0][] : memref<?xi8> to memref<4x16xf32>
  %g = memref.view %arena[%c256][] : memref<?xi8> to memref<4x16xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<4x16xf32>)
  linalg.generic {indexing_maps = [#mA, #mWt, #mC], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<4x8xf32>, memref<16x8xf32>) outs(%t : memref<4x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%t, %bias : memref<4x16xf32>, memref<16xf32>) outs(%g : memref<4x16xf32>) {
  ^bb0(%in: f32, %b: f32, %o: f32):
    %0 = arith.addf %in, %b : f32
    %1 = arith.mulf %0, %0 : f32
    %2 = arith.mulf %1, %0 : f32
    %3 = arith.mulf %2, %k1 : f32
    %4 = arith.addf %0, %3 : f32
    %5 = arith.mulf %4, %k0 : f32
    %6 = math.tanh %5 : f32
    %7 = arith.mulf %0, %half : f32
    %8 = arith.addf %6, %one : f32
    %9 = arith.mulf %7, %8 : f32
    linalg.yield %9 : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%g : memref<4x16xf32>) outs(%out : memref<4x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = math.sin %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Batched A [2, 5, 8] times a weight shared by both batches, read transposed
// ([16, 8], linear on a 3-D input): batch stride 0 for B; the runtime folds
// the batch into m.
// CHECK-LABEL: func.func @batched_shared_weight(
// CHECK:         call @tcc_gemm_f32(%c2_i64, %c5_i64, %c16_i64, %c8_i64, %{{[0-9]+}}, %c8_i64, %c40_i64, %c0_i32, %{{[0-9]+}}, %c8_i64, %c0_i64, %c1_i32, %{{[0-9]+}}, %c16_i64, %c80_i64, %c0_i32, %{{[0-9]+}}, %c0_i32, %c0_i32, %arg4)
// CHECK-NOT:     linalg.

#mA = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#mWt = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#mC = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @batched_shared_weight(%x: memref<2x5x8xf32>, %w: memref<16x8xf32>, %out: memref<2x5x16xf32>, %arena: memref<?xi8> {tcc.arena}) {
  %zero = arith.constant 0.000000e+00 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<2x5x16xf32>)
  linalg.generic {indexing_maps = [#mA, #mWt, #mC], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : memref<2x5x8xf32>, memref<16x8xf32>) outs(%out : memref<2x5x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// bmm with a dynamic batch, A transposed ([b, k, m]): sizes and strides come
// from the descriptors at run time. No fill before it: C is accumulated into.
// CHECK-LABEL: func.func @bmm_accumulate(
// CHECK:         %{{.*}}, %{{.*}}, %[[SIZES:.*]]:3, %{{.*}}:3 = memref.extract_strided_metadata %arg2
// CHECK:         %[[B:.*]] = arith.index_cast %[[SIZES]]#0 : index to i64
// CHECK:         call @tcc_gemm_f32(%[[B]], %c5_i64, %c16_i64, %c8_i64, %{{[0-9]+}}, %c5_i64, %c40_i64, %c1_i32, %{{[0-9]+}}, %c16_i64, %c128_i64, %c0_i32, %{{[0-9]+}}, %c16_i64, %c80_i64, %c1_i32, %{{[0-9]+}}, %c0_i32, %c0_i32, %arg4)
// CHECK-NOT:     linalg.

#mAt = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
#mB = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#mC = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @bmm_accumulate(%a: memref<?x8x5xf32>, %b: memref<?x8x16xf32>, %out: memref<?x5x16xf32>, %arena: memref<?xi8> {tcc.arena}) {
  linalg.generic {indexing_maps = [#mAt, #mB, #mC], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : memref<?x8x5xf32>, memref<?x8x16xf32>) outs(%out : memref<?x5x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// Not GEMMs: a contraction with computation fused into its body, and one
// whose A has a non-unit innermost stride; both stay linalg.
// CHECK-LABEL: func.func @not_gemms(
// CHECK-SAME:    %{{.*}}: memref<?xi8> {tcc.arena})
// CHECK-NOT:     call
// CHECK:         linalg.generic
// CHECK:           math.exp
// CHECK:         linalg.generic {{.*}} ins(%arg1, %arg2 : memref<4x8xf32, strided<[1, 4]>>, memref<8x16xf32>)
// CHECK-NOT:     call

#mA = affine_map<(d0, d1, d2) -> (d0, d2)>
#mB = affine_map<(d0, d1, d2) -> (d2, d1)>
#mC = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @not_gemms(%a: memref<4x8xf32>, %s: memref<4x8xf32, strided<[1, 4]>>, %b: memref<8x16xf32>, %out: memref<4x16xf32>, %out2: memref<4x16xf32>, %arena: memref<?xi8> {tcc.arena}) {
  linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%out : memref<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %e = math.exp %x : f32
    %0 = arith.mulf %e, %y : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"]} ins(%s, %b : memref<4x8xf32, strided<[1, 4]>>, memref<8x16xf32>) outs(%out2 : memref<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// GPT-2's Conv1D (addmm on a 3-D input, weight [k, n]): the bias add writes a
// buffer whose memref.view memory planning put between the contraction and
// the bias generic. The call reads that view's pointer and strides, so it goes
// after the view (was: before the contraction, reading it before its
// definition).
// CHECK-LABEL: func.func @bias_into_view_defined_after_gemm(
// CHECK-NOT:     linalg.
// CHECK:         %[[G:.*]] = memref.view %arg3[%c256][] : memref<?xi8> to memref<2x4x16xf32>
// CHECK:         memref.extract_aligned_pointer_as_index %[[G]]
// CHECK:         %[[GP:.*]] = llvm.inttoptr
// CHECK:         call @tcc_gemm_f32(%c2_i64, %c4_i64, %c16_i64, %c8_i64, %{{[0-9]+}}, %c8_i64, %c32_i64, %c0_i32, %{{[0-9]+}}, %c16_i64, %c0_i64, %c0_i32, %[[GP]], %c16_i64, %c64_i64, %c0_i32, %{{[0-9]+}}, %c1_i32, %c0_i32, %arg4)
// CHECK-NEXT:    memref.subview %[[G]]
// CHECK-NOT:     linalg.

#mA = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#mW = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#mC = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d2)>
func.func @bias_into_view_defined_after_gemm(%x: memref<2x4x8xf32>, %w: memref<8x16xf32>, %bias: memref<16xf32>, %arena: memref<?xi8> {tcc.arena}) -> memref<2x4x8xf32, strided<[64, 16, 1], offset: 8>> {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.000000e+00 : f32
  %t = memref.view %arena[%c0][] : memref<?xi8> to memref<2x4x16xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<2x4x16xf32>)
  linalg.generic {indexing_maps = [#mA, #mW, #mC], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : memref<2x4x8xf32>, memref<8x16xf32>) outs(%t : memref<2x4x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  }
  %g = memref.view %arena[%c256][] : memref<?xi8> to memref<2x4x16xf32>
  linalg.generic {indexing_maps = [#id3, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%t, %bias : memref<2x4x16xf32>, memref<16xf32>) outs(%g : memref<2x4x16xf32>) {
  ^bb0(%in: f32, %b: f32, %o: f32):
    %0 = arith.addf %in, %b : f32
    linalg.yield %0 : f32
  }
  %s = memref.subview %g[0, 0, 8] [2, 4, 8] [1, 1, 1] : memref<2x4x16xf32> to memref<2x4x8xf32, strided<[64, 16, 1], offset: 8>>
  return %s : memref<2x4x8xf32, strided<[64, 16, 1], offset: 8>>
}
