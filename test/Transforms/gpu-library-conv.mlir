// tcc-gpu-library-conv: convolutions of the planned program become
// tcc_conv2d_f32 calls (argument order: n, c, h, w, f, kh, kw, oh, ow,
// strideH, strideW, dilationH, dilationW, groups, x, weight, y, accumulate,
// compute, stream); -canonicalize folds the static sizes.
// RUN: tcc-opt %s -split-input-file -tcc-gpu-library-conv -canonicalize | FileCheck %s
// RUN: tcc-opt %s -split-input-file -tcc-gpu-library-conv='tf32=true' -canonicalize | FileCheck %s --check-prefix=TF32

// A zero-filled arena buffer: the fill is erased and cuDNN overwrites the
// output (accumulate 0); the stream argument is added.
// CHECK-LABEL: func.func @conv_zero_init(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<2x8x10x10xf32>, %[[W:[a-z0-9]+]]: memref<8x8x3x3xf32>, %[[ARENA:[a-z0-9]+]]: memref<?xi8> {tcc.arena}, %[[STREAM:[a-z0-9]+]]: !llvm.ptr {tcc.stream})
// CHECK-NOT:     linalg.fill
// CHECK:         %[[Y:.*]] = memref.view %[[ARENA]]
// CHECK-NOT:     linalg.fill
// CHECK:         memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:         %[[XP:.*]] = llvm.inttoptr
// CHECK:         memref.extract_aligned_pointer_as_index %[[W]]
// CHECK:         %[[WP:.*]] = llvm.inttoptr
// CHECK:         memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK:         %[[YP:.*]] = llvm.inttoptr
// CHECK:         call @tcc_conv2d_f32(%c2_i64, %c8_i64, %c10_i64, %c10_i64, %c8_i64, %c3_i64, %c3_i64, %c8_i64, %c8_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %[[XP]], %[[WP]], %[[YP]], %c0_i32, %c0_i32, %[[STREAM]])
// CHECK-NOT:     linalg.conv_2d
// CHECK:         linalg.generic
// CHECK:       func.func private @tcc_conv2d_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, !llvm.ptr)

// TF32-LABEL:  func.func @conv_zero_init(
// TF32:          call @tcc_conv2d_f32({{.*}}, %c0_i32, %c1_i32, %{{.*}})
func.func @conv_zero_init(%x: memref<2x8x10x10xf32>, %w: memref<8x8x3x3xf32>, %arena: memref<?xi8> {tcc.arena}) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %y = memref.view %arena[%c0][] : memref<?xi8> to memref<2x8x8x8xf32>
  linalg.fill ins(%cst : f32) outs(%y : memref<2x8x8x8xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : memref<2x8x10x10xf32>, memref<8x8x3x3xf32>) outs(%y : memref<2x8x8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%y : memref<2x8x8x8xf32>) {
  ^bb0(%o: f32):
    %0 = arith.maximumf %o, %cst : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// The bias broadcast stays a kernel; cuDNN accumulates into it (accumulate
// 1). Stride 2, dilation 2x1 from the attributes; an existing stream
// argument is used.
// CHECK-LABEL: func.func @conv_bias_strided(
// CHECK-SAME:    %[[STREAM:[a-z0-9]+]]: !llvm.ptr {tcc.stream}, %{{.*}}: memref<?xi8> {tcc.arena})
// CHECK:         linalg.generic
// CHECK:         call @tcc_conv2d_f32(%c2_i64, %c16_i64, %c9_i64, %c7_i64, %c4_i64, %c3_i64, %c3_i64, %c3_i64, %c3_i64, %c2_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %c1_i32, %c0_i32, %[[STREAM]])
// CHECK-NOT:     linalg.conv_2d
// CHECK:         return
func.func @conv_bias_strided(%x: memref<2x16x9x7xf32>, %w: memref<4x16x3x3xf32>, %bias: memref<4xf32>, %y: memref<2x4x3x3xf32>, %s: !llvm.ptr {tcc.stream}, %arena: memref<?xi8> {tcc.arena}) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : memref<4xf32>) outs(%y : memref<2x4x3x3xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<[2, 1]> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w : memref<2x16x9x7xf32>, memref<4x16x3x3xf32>) outs(%y : memref<2x4x3x3xf32>)
  return
}

// -----

// Groups: [N, G, C, H, W] = [1, 4, 2, 6, 6] is [1, 8, 6, 6] in memory, the
// weight [G, F, C, KH, KW] = [4, 3, 2, 3, 3] is [12, 2, 3, 3]. A zero fill
// that something else reads before the convolution stays (accumulate 0
// all the same).
// CHECK-LABEL: func.func @conv_grouped(
// CHECK:         linalg.fill
// CHECK:         linalg.copy
// CHECK:         call @tcc_conv2d_f32(%c1_i64, %c8_i64, %c6_i64, %c6_i64, %c12_i64, %c3_i64, %c3_i64, %c4_i64, %c4_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c4_i64, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %c0_i32, %c0_i32, %arg5)
// CHECK-NOT:     linalg.conv_2d
func.func @conv_grouped(%x: memref<1x4x2x6x6xf32>, %w: memref<4x3x2x3x3xf32>, %y: memref<1x4x3x4x4xf32>, %z: memref<1x4x3x4x4xf32>, %arena: memref<?xi8> {tcc.arena}) {
  %cst = arith.constant 0.000000e+00 : f32
  linalg.fill ins(%cst : f32) outs(%y : memref<1x4x3x4x4xf32>)
  linalg.copy ins(%y : memref<1x4x3x4x4xf32>) outs(%z : memref<1x4x3x4x4xf32>)
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : memref<1x4x2x6x6xf32>, memref<4x3x2x3x3xf32>) outs(%y : memref<1x4x3x4x4xf32>)
  return
}

// -----

// Two convolutions into one zero-filled buffer: the second must not take the
// fill (the first one's call, by pointer, wrote the buffer since): the first
// overwrites (accumulate 0, fill erased), the second accumulates.
// CHECK-LABEL: func.func @two_into_one(
// CHECK-NOT:     linalg.fill
// CHECK:         call @tcc_conv2d_f32({{.*}}, %c0_i32, %c0_i32, %{{.*}})
// CHECK:         call @tcc_conv2d_f32({{.*}}, %c1_i32, %c0_i32, %{{.*}})
func.func @two_into_one(%x: memref<1x2x6x6xf32>, %w: memref<2x2x3x3xf32>, %y: memref<1x2x4x4xf32>, %arena: memref<?xi8> {tcc.arena}) {
  %cst = arith.constant 0.000000e+00 : f32
  linalg.fill ins(%cst : f32) outs(%y : memref<1x2x4x4xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : memref<1x2x6x6xf32>, memref<2x2x3x3xf32>) outs(%y : memref<1x2x4x4xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : memref<1x2x6x6xf32>, memref<2x2x3x3xf32>) outs(%y : memref<1x2x4x4xf32>)
  return
}

// -----

// A dynamic batch: its size is read from the buffer at run time.
// CHECK-LABEL: func.func @conv_dynamic_batch(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<?x3x18x18xf32>
// CHECK:         %{{.*}}, %{{.*}}, %[[N:.*]]:4, %{{.*}}:4 = memref.extract_strided_metadata %[[X]]
// CHECK:         %[[N64:.*]] = arith.index_cast %[[N]]#0 : index to i64
// CHECK:         call @tcc_conv2d_f32(%[[N64]], %c3_i64, %c18_i64, %c18_i64, %c8_i64, %c3_i64, %c3_i64, %c16_i64, %c16_i64,
func.func @conv_dynamic_batch(%x: memref<?x3x18x18xf32>, %w: memref<8x3x3x3xf32>, %y: memref<?x8x16x16xf32>, %arena: memref<?xi8> {tcc.arena}) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : memref<?x3x18x18xf32>, memref<8x3x3x3xf32>) outs(%y : memref<?x8x16x16xf32>)
  return
}

// -----

// Not taken: a strided (non-identity) output, f16 operands, a function that
// is not planned (no tcc.arena).
// CHECK-LABEL: func.func @not_convs(
// CHECK-NOT:     call @tcc_conv2d_f32
// CHECK:         linalg.conv_2d_nchw_fchw
// CHECK:         linalg.conv_2d_nchw_fchw
// CHECK:         return
// CHECK-LABEL: func.func @unplanned(
// CHECK:         linalg.conv_2d_nchw_fchw
// CHECK-NOT:     func.func private @tcc_conv2d_f32
func.func @not_convs(%x: memref<1x2x6x6xf32>, %w: memref<2x2x3x3xf32>, %y: memref<1x2x8x8xf32>, %xh: memref<1x2x6x6xf16>, %wh: memref<2x2x3x3xf16>, %yh: memref<1x2x4x4xf16>, %arena: memref<?xi8> {tcc.arena}) {
  %sub = memref.subview %y[0, 0, 2, 2] [1, 2, 4, 4] [1, 1, 1, 1] : memref<1x2x8x8xf32> to memref<1x2x4x4xf32, strided<[128, 64, 8, 1], offset: 18>>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : memref<1x2x6x6xf32>, memref<2x2x3x3xf32>) outs(%sub : memref<1x2x4x4xf32, strided<[128, 64, 8, 1], offset: 18>>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%xh, %wh : memref<1x2x6x6xf16>, memref<2x2x3x3xf16>) outs(%yh : memref<1x2x4x4xf16>)
  return
}
func.func @unplanned(%x: memref<1x2x6x6xf32>, %w: memref<2x2x3x3xf32>, %y: memref<1x2x4x4xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : memref<1x2x6x6xf32>, memref<2x2x3x3xf32>) outs(%y : memref<1x2x4x4xf32>)
  return
}
