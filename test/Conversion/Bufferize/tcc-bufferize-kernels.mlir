// RUN: tcc-opt %s -tcc-bufferize -split-input-file | FileCheck %s

// A tcc_kernel op bufferizes to itself on memrefs: its inputs read in place,
// its init (a tensor.empty) a fresh allocation that is never copied into,
// here promoted to the caller's output buffer.
// CHECK-LABEL: func @gemm(
// CHECK-SAME:    %[[X:.*]]: memref<4x8xf32>, %[[W:.*]]: memref<16x8xf32>, %[[OUT:.*]]: memref<4x16xf32>)
// CHECK-NOT:     memref.copy
// CHECK-NOT:     linalg.copy
// CHECK:         tcc_kernel.gemm ins(%[[X]], %[[W]] : memref<4x8xf32>, memref<16x8xf32>) outs(%[[OUT]] : memref<4x16xf32>) transpose_b
// CHECK-NEXT:    return
func.func @gemm(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %y = tcc_kernel.gemm ins(%x, %w : tensor<4x8xf32>, tensor<16x8xf32>) outs(%e : tensor<4x16xf32>) transpose_b -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// A slice with a step leaves rows with a stride: the GEMM reads a packed copy.
// CHECK-LABEL: func @strided_operand(
// CHECK:         %[[VIEW:.*]] = memref.subview %{{.*}}[0, 0] [4, 8] [1, 2] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 2]>>
// CHECK:         %[[PACKED:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
// CHECK:         linalg.copy ins(%[[VIEW]] : memref<4x8xf32, strided<[16, 2]>>) outs(%[[PACKED]] : memref<4x8xf32>)
// CHECK:         tcc_kernel.gemm ins(%[[PACKED]], %{{.*}} : memref<4x8xf32>, memref<8x8xf32>)
func.func @strided_operand(%x: tensor<4x16xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %s = tensor.extract_slice %x[0, 0] [4, 8] [1, 2] : tensor<4x16xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %y = tcc_kernel.gemm ins(%s, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Two results: the normalized rows and the residual sum, each in its own buffer.
// CHECK-LABEL: func @row_two_outputs(
// CHECK-SAME:    %[[OUT0:[a-z0-9]+]]: memref<4x64xf32>, %[[OUT1:[a-z0-9]+]]: memref<4x64xf32>)
// CHECK:         tcc_kernel.row layer_norm ins(%{{.*}} : memref<4x64xf32>) residual(%{{.*}} : memref<4x64xf32>) outs(%[[OUT0]], %[[OUT1]] : memref<4x64xf32>, memref<4x64xf32>)
func.func @row_two_outputs(%x: tensor<4x64xf32>, %r: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>) {
  %e0 = tensor.empty() : tensor<4x64xf32>
  %e1 = tensor.empty() : tensor<4x64xf32>
  %y:2 = tcc_kernel.row layer_norm ins(%x : tensor<4x64xf32>) residual(%r : tensor<4x64xf32>) outs(%e0, %e1 : tensor<4x64xf32>, tensor<4x64xf32>) {eps = 1.0e-5 : f64} -> tensor<4x64xf32>, tensor<4x64xf32>
  return %y#0, %y#1 : tensor<4x64xf32>, tensor<4x64xf32>
}

// -----

// Views become memref views of the operands' buffers: the kernel reads the
// packed projection in place and writes the [B, L, H·D] result buffer; the
// views attribute is gone (the memref types carry the strides).
// CHECK-LABEL: func @attention_views(
// CHECK-SAME:    %[[QKV:.*]]: memref<2x16x384xbf16>, %[[OUT:.*]]: memref<2x16x128xbf16>)
// CHECK-NOT:     memref.copy
// CHECK-DAG:     %[[Q:.*]] = memref.reinterpret_cast %[[QKV]] to offset: [0], sizes: [2, 2, 16, 64], strides: [6144, 64, 384, 1]
// CHECK-DAG:     %[[K:.*]] = memref.reinterpret_cast %[[QKV]] to offset: [128], sizes: [2, 2, 16, 64], strides: [6144, 64, 384, 1]
// CHECK-DAG:     %[[V:.*]] = memref.reinterpret_cast %[[QKV]] to offset: [256], sizes: [2, 2, 16, 64], strides: [6144, 64, 384, 1]
// CHECK-DAG:     %[[O:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [2, 2, 16, 64], strides: [2048, 64, 128, 1]
// CHECK:         tcc_kernel.attention ins(%[[Q]], %[[K]], %[[V]] : {{.*}}) outs(%[[O]] : memref<2x2x16x64xbf16, strided<[2048, 64, 128, 1]>>) {scale = 1.250000e-01 : f64}
// CHECK-NEXT:    return
func.func @attention_views(%qkv: tensor<2x16x384xbf16>) -> tensor<2x16x128xbf16> {
  %e = tensor.empty() : tensor<2x16x128xbf16>
  %o = tcc_kernel.attention ins(%qkv, %qkv, %qkv : tensor<2x16x384xbf16>, tensor<2x16x384xbf16>, tensor<2x16x384xbf16>)
         outs(%e : tensor<2x16x128xbf16>) {scale = 0.125 : f64, views = [
           {sizes = array<i64: 2, 2, 16, 64>, strides = array<i64: 6144, 64, 384, 1>, offset = 0 : i64},
           {sizes = array<i64: 2, 2, 16, 64>, strides = array<i64: 6144, 64, 384, 1>, offset = 128 : i64},
           {sizes = array<i64: 2, 2, 16, 64>, strides = array<i64: 6144, 64, 384, 1>, offset = 256 : i64},
           {sizes = array<i64: 2, 2, 16, 64>, strides = array<i64: 2048, 64, 128, 1>, offset = 0 : i64}]} -> tensor<2x16x128xbf16>
  return %o : tensor<2x16x128xbf16>
}

// -----

// A convolution whose result is inserted into a concatenation writes straight
// into its slice (empty-tensor elimination): an NCHW channel slice differs from
// a dense tensor only in its batch stride, which tcc_conv2d takes. No copy of
// the slice onto itself is left.
// CHECK-LABEL: func @conv_into_slice(
// CHECK:         linalg.copy ins(%arg0
// CHECK:         %[[S:.*]] = memref.subview %arg2[0, 8, 0, 0] [2, 4, 6, 6]
// CHECK:         tcc_kernel.conv ins(%arg0, %arg1 : {{.*}}) outs(%[[S]] : memref<2x4x6x6xf32, strided<[432, 36, 6, 1], offset: 288>>)
// CHECK-NOT:     linalg.copy
// CHECK:         return
func.func @conv_into_slice(%x: tensor<2x8x6x6xf32>, %w: tensor<4x8x3x3xf32>) -> tensor<2x12x6x6xf32> {
  %e = tensor.empty() : tensor<2x4x6x6xf32>
  %y = tcc_kernel.conv ins(%x, %w : tensor<2x8x6x6xf32>, tensor<4x8x3x3xf32>) outs(%e : tensor<2x4x6x6xf32>) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} -> tensor<2x4x6x6xf32>
  %d = tensor.empty() : tensor<2x12x6x6xf32>
  %a = tensor.insert_slice %x into %d[0, 0, 0, 0] [2, 8, 6, 6] [1, 1, 1, 1] : tensor<2x8x6x6xf32> into tensor<2x12x6x6xf32>
  %c = tensor.insert_slice %y into %a[0, 8, 0, 0] [2, 4, 6, 6] [1, 1, 1, 1] : tensor<2x4x6x6xf32> into tensor<2x12x6x6xf32>
  return %c : tensor<2x12x6x6xf32>
}

// -----

// A channels-last channel slice is strided per pixel, which tcc's depthwise
// kernel takes (tcc_conv2d reads all four strides) and the loops index: a
// depthwise convolution writes straight into its slice, as the pooling does
// into the first.
// CHECK-LABEL: func @nhwc_depthwise_into_slice(
// CHECK-NOT:     linalg.copy
// CHECK:         %[[P:.*]] = memref.subview %arg3[0, 0, 0, 0] [2, 6, 6, 8]
// CHECK:         linalg.pooling_nhwc_max {{.*}} outs(%[[P]] : memref<2x6x6x8xf32, strided<[432, 72, 12, 1]>>)
// CHECK:         %[[S:.*]] = memref.subview %arg3[0, 0, 0, 8] [2, 6, 6, 4]
// CHECK:         tcc_kernel.conv ins(%arg2, %arg1 : {{.*}}) outs(%[[S]] : memref<2x6x6x4xf32, strided<[432, 72, 12, 1], offset: 8>>)
// CHECK-NOT:     linalg.copy
// CHECK:         return
func.func @nhwc_depthwise_into_slice(%in: tensor<2x12x12x8xf32>, %w: tensor<4x3x3x1xf32>, %z: tensor<2x6x6x4xf32>) -> tensor<2x6x6x12xf32> {
  %d = tensor.empty() : tensor<2x6x6x12xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  %pe = tensor.empty() : tensor<2x6x6x8xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<2x6x6x8xf32>) -> tensor<2x6x6x8xf32>
  %x = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%in, %window : tensor<2x12x12x8xf32>, tensor<2x2xf32>) outs(%pf : tensor<2x6x6x8xf32>) -> tensor<2x6x6x8xf32>
  %e = tensor.empty() : tensor<2x6x6x4xf32>
  %y = tcc_kernel.conv ins(%z, %w : tensor<2x6x6x4xf32>, tensor<4x3x3x1xf32>) outs(%e : tensor<2x6x6x4xf32>) {channels_last, dilation = array<i64: 1, 1>, groups = 4 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} -> tensor<2x6x6x4xf32>
  %a = tensor.insert_slice %x into %d[0, 0, 0, 0] [2, 6, 6, 8] [1, 1, 1, 1] : tensor<2x6x6x8xf32> into tensor<2x6x6x12xf32>
  %c = tensor.insert_slice %y into %a[0, 0, 0, 8] [2, 6, 6, 4] [1, 1, 1, 1] : tensor<2x6x6x4xf32> into tensor<2x6x6x12xf32>
  return %c : tensor<2x6x6x12xf32>
}

// -----

// Other channels-last convolutions run in cuDNN, which finds no algorithm for
// views with strided pixels: the convolution writes its own buffer, copied
// into the slice after.
// CHECK-LABEL: func @nhwc_conv_slice_keeps_copy(
// CHECK:         tcc_kernel.conv {{.*}} outs(%[[OWN:.*]] : memref<2x6x6x4xf32>)
// CHECK:         linalg.copy ins(%[[OWN]] : memref<2x6x6x4xf32>)
func.func @nhwc_conv_slice_keeps_copy(%x: tensor<2x6x6x8xf32>, %w: tensor<4x3x3x8xf32>) -> tensor<2x6x6x12xf32> {
  %e = tensor.empty() : tensor<2x6x6x4xf32>
  %y = tcc_kernel.conv ins(%x, %w : tensor<2x6x6x8xf32>, tensor<4x3x3x8xf32>) outs(%e : tensor<2x6x6x4xf32>) {channels_last, dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} -> tensor<2x6x6x4xf32>
  %d = tensor.empty() : tensor<2x6x6x12xf32>
  %a = tensor.insert_slice %x into %d[0, 0, 0, 0] [2, 6, 6, 8] [1, 1, 1, 1] : tensor<2x6x6x8xf32> into tensor<2x6x6x12xf32>
  %c = tensor.insert_slice %y into %a[0, 0, 0, 8] [2, 6, 6, 4] [1, 1, 1, 1] : tensor<2x6x6x4xf32> into tensor<2x6x6x12xf32>
  return %c : tensor<2x6x6x12xf32>
}

// -----

// A padded tensor (a pooling's input) is a fill and an insert of its source:
// a channels-last depthwise convolution writes straight into the interior.
// CHECK-LABEL: func @nhwc_depthwise_into_padded(
// CHECK:         %[[BUF:.*]] = memref.alloc() {{.*}} : memref<2x8x8x4xf32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[BUF]] : memref<2x8x8x4xf32>)
// CHECK:         %[[IN:.*]] = memref.subview %[[BUF]][0, 1, 1, 0] [2, 6, 6, 4]
// CHECK:         tcc_kernel.conv {{.*}} outs(%[[IN]] : memref<2x6x6x4xf32, strided<[256, 32, 4, 1], offset: 36>>)
// CHECK-NOT:     linalg.copy
// CHECK:         linalg.pooling_nhwc_max {{.*}} ins(%[[BUF]], %{{.*}} : memref<2x8x8x4xf32>
func.func @nhwc_depthwise_into_padded(%x: tensor<2x6x6x4xf32>, %w: tensor<4x3x3x1xf32>) -> tensor<2x4x4x4xf32> {
  %e = tensor.empty() : tensor<2x6x6x4xf32>
  %y = tcc_kernel.conv ins(%x, %w : tensor<2x6x6x4xf32>, tensor<4x3x3x1xf32>) outs(%e : tensor<2x6x6x4xf32>) {channels_last, dilation = array<i64: 1, 1>, groups = 4 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} -> tensor<2x6x6x4xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %y low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<2x6x6x4xf32> to tensor<2x8x8x4xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  %oe = tensor.empty() : tensor<2x4x4x4xf32>
  %of = linalg.fill ins(%ninf : f32) outs(%oe : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %o = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%p, %window : tensor<2x8x8x4xf32>, tensor<2x2xf32>) outs(%of : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  return %o : tensor<2x4x4x4xf32>
}

// -----

// An NCHW image must stay packed (tcc_cpu_conv2d's sgemm writes it densely):
// into a padded interior, whose rows are strided, the convolution writes its
// own buffer, copied after.
// CHECK-LABEL: func @nchw_conv_padded_keeps_copy(
// CHECK:         tcc_kernel.conv {{.*}} outs(%[[OWN:.*]] : memref<2x4x6x6xf32>)
// CHECK:         linalg.copy ins(%[[OWN]] : memref<2x4x6x6xf32>)
func.func @nchw_conv_padded_keeps_copy(%x: tensor<2x8x6x6xf32>, %w: tensor<4x8x3x3xf32>) -> tensor<2x4x8x8xf32> {
  %e = tensor.empty() : tensor<2x4x6x6xf32>
  %y = tcc_kernel.conv ins(%x, %w : tensor<2x8x6x6xf32>, tensor<4x8x3x3xf32>) outs(%e : tensor<2x4x6x6xf32>) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} -> tensor<2x4x6x6xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %y low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x4x6x6xf32> to tensor<2x4x8x8xf32>
  return %p : tensor<2x4x8x8xf32>
}

// -----

// A convolution that reads the concatenation so far (the buffer's leading
// channels) and appends to it (the next ones) reads and writes disjoint slices
// of one buffer: no conflict, so it writes its slice in place. Only the
// function's input is copied in.
// CHECK-LABEL: func @conv_appends_to_its_input(
// CHECK:         %[[FIRST:.*]] = memref.subview %arg2[0, 0, 0, 0] [2, 8, 6, 6]
// CHECK:         linalg.copy ins(%arg0 : memref<2x8x6x6xf32>) outs(%[[FIRST]]
// CHECK-DAG:     %[[OUT:.*]] = memref.subview %arg2[0, 8, 0, 0] [2, 4, 6, 6]
// CHECK-DAG:     %[[IN:.*]] = memref.subview %arg2[0, 0, 0, 0] [2, 8, 6, 6]
// CHECK:         tcc_kernel.conv ins(%[[IN]], %arg1 : {{.*}}) outs(%[[OUT]] : memref<2x4x6x6xf32, strided<[432, 36, 6, 1], offset: 288>>)
// CHECK-NOT:     linalg.copy
// CHECK:         return
func.func @conv_appends_to_its_input(%x: tensor<2x8x6x6xf32>, %w: tensor<4x8x3x3xf32>) -> tensor<2x12x6x6xf32> {
  %d = tensor.empty() : tensor<2x12x6x6xf32>
  %a = tensor.insert_slice %x into %d[0, 0, 0, 0] [2, 8, 6, 6] [1, 1, 1, 1] : tensor<2x8x6x6xf32> into tensor<2x12x6x6xf32>
  %in = tensor.extract_slice %a[0, 0, 0, 0] [2, 8, 6, 6] [1, 1, 1, 1] : tensor<2x12x6x6xf32> to tensor<2x8x6x6xf32>
  %e = tensor.empty() : tensor<2x4x6x6xf32>
  %y = tcc_kernel.conv ins(%in, %w : tensor<2x8x6x6xf32>, tensor<4x8x3x3xf32>) outs(%e : tensor<2x4x6x6xf32>) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} -> tensor<2x4x6x6xf32>
  %c = tensor.insert_slice %y into %a[0, 8, 0, 0] [2, 4, 6, 6] [1, 1, 1, 1] : tensor<2x4x6x6xf32> into tensor<2x12x6x6xf32>
  return %c : tensor<2x12x6x6xf32>
}

// -----

// Slices that overlap are a conflict: a convolution reading channels 0..8
// and writing channels 4..8 of the same buffer reads a copy of its input.
// CHECK-LABEL: func @conv_overlapping_slices(
// CHECK:         %[[COPY:.*]] = memref.alloc() {{.*}} : memref<2x8x6x6xf32>
// CHECK:         linalg.copy ins(%{{.*}} : memref<2x8x6x6xf32, strided<[288, 36, 6, 1]>>) outs(%[[COPY]] : memref<2x8x6x6xf32>)
// CHECK:         tcc_kernel.conv ins(%[[COPY]], %arg1 : {{.*}}) outs(%{{.*}} : memref<2x4x6x6xf32, strided<[288, 36, 6, 1], offset: 144>>)
func.func @conv_overlapping_slices(%x: tensor<2x8x6x6xf32>, %w: tensor<4x8x3x3xf32>) -> tensor<2x8x6x6xf32> {
  %d = tensor.empty() : tensor<2x8x6x6xf32>
  %a = tensor.insert_slice %x into %d[0, 0, 0, 0] [2, 8, 6, 6] [1, 1, 1, 1] : tensor<2x8x6x6xf32> into tensor<2x8x6x6xf32>
  %in = tensor.extract_slice %a[0, 0, 0, 0] [2, 8, 6, 6] [1, 1, 1, 1] : tensor<2x8x6x6xf32> to tensor<2x8x6x6xf32>
  %e = tensor.empty() : tensor<2x4x6x6xf32>
  %y = tcc_kernel.conv ins(%in, %w : tensor<2x8x6x6xf32>, tensor<4x8x3x3xf32>) outs(%e : tensor<2x4x6x6xf32>) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} -> tensor<2x4x6x6xf32>
  %c = tensor.insert_slice %y into %a[0, 4, 0, 0] [2, 4, 6, 6] [1, 1, 1, 1] : tensor<2x4x6x6xf32> into tensor<2x8x6x6xf32>
  return %c : tensor<2x8x6x6xf32>
}

// -----

// Two reductions initialized from one fill (CSE merges identical ones): each
// gets its own fill of its own buffer, right before it, and nothing is
// copied (shared, the second would get a new buffer and a copy of the
// first's filled one).
// CHECK-LABEL: func @shared_fill(
// CHECK-SAME:    %[[X:.*]]: memref<4x8xf32>, %[[Y:.*]]: memref<4x8xf32>, %[[OUT0:.*]]: memref<4xf32>, %[[OUT1:.*]]: memref<4xf32>)
// CHECK-NOT:     copy
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[OUT0]] : memref<4xf32>)
// CHECK-NEXT:    linalg.reduce ins(%[[X]] : memref<4x8xf32>) outs(%[[OUT0]] : memref<4xf32>)
// CHECK-NOT:     copy
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[OUT1]] : memref<4xf32>)
// CHECK-NEXT:    linalg.reduce ins(%[[Y]] : memref<4x8xf32>) outs(%[[OUT1]] : memref<4xf32>)
// CHECK-NOT:     copy
// CHECK:         return
func.func @shared_fill(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %a = linalg.reduce ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %b = linalg.reduce ins(%y : tensor<4x8xf32>) outs(%init : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
