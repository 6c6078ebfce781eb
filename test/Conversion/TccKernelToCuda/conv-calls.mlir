// RUN: tcc-opt %s -convert-tcc-kernel-to-cuda -canonicalize -split-input-file | FileCheck %s

// tcc_conv2d takes each tensor's four strides in batch, channel, row, column
// order whatever the layout. A channels-last output that is a channel slice
// of a 24-channel buffer: (6144, 1, 384, 24), its pointer 8 elements (32
// bytes) in; the packed NHWC input: (2048, 1, 128, 8); no residual: zeros;
// layout 1 (NHWC, the filter's).
// CHECK-LABEL: func @nhwc_channel_slice
// CHECK:         %[[Y:.*]] = arith.addi %{{.*}}, %c32 : index
// CHECK:         call @tcc_conv2d(%c2_i64, %c8_i64, %c16_i64, %c16_i64, %c8_i64, %c3_i64, %c3_i64, %c16_i64, %c16_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64,
// CHECK-SAME:      %c2048_i64, %c1_i64, %c128_i64, %c8_i64, %c6144_i64, %c1_i64, %c384_i64, %c24_i64, %c0_i64, %c0_i64, %c0_i64, %c0_i64,
// CHECK-SAME:      %c0_i32, %c0_i32, %c0_i32, %c1_i32, %arg{{[0-9]+}})
func.func @nhwc_channel_slice(%x: memref<2x16x16x8xf32>, %w: memref<8x3x3x8xf32>, %big: memref<2x16x16x24xf32>, %arena: memref<?xi8> {tcc.arena}) {
  %y = memref.subview %big[0, 0, 0, 8] [2, 16, 16, 8] [1, 1, 1, 1] : memref<2x16x16x24xf32> to memref<2x16x16x8xf32, strided<[6144, 384, 24, 1], offset: 8>>
  tcc_kernel.conv ins(%x, %w : memref<2x16x16x8xf32>, memref<8x3x3x8xf32>) outs(%y : memref<2x16x16x8xf32, strided<[6144, 384, 24, 1], offset: 8>>) {channels_last, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64}
  return
}

// -----

// The interior of a padded channels-last buffer (a pooling's input) as the
// output, strided per row too: (5184, 1, 288, 16) in 18x18 images of 16
// channels; a residual that is channels 16..31 of a 32-channel buffer:
// (8192, 1, 512, 32).
// CHECK-LABEL: func @nhwc_padded_interior
// CHECK:         call @tcc_conv2d(%c1_i64, %c16_i64, %c16_i64, %c16_i64, %c16_i64, %c1_i64, %c1_i64, %c16_i64, %c16_i64, %c0_i64, %c0_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64,
// CHECK-SAME:      %c4096_i64, %c1_i64, %c256_i64, %c16_i64, %c5184_i64, %c1_i64, %c288_i64, %c16_i64, %c8192_i64, %c1_i64, %c512_i64, %c32_i64,
func.func @nhwc_padded_interior(%x: memref<1x16x16x16xf32>, %w: memref<16x1x1x16xf32>, %padded: memref<1x18x18x16xf32>, %res: memref<1x16x16x32xf32>, %arena: memref<?xi8> {tcc.arena}) {
  %y = memref.subview %padded[0, 1, 1, 0] [1, 16, 16, 16] [1, 1, 1, 1] : memref<1x18x18x16xf32> to memref<1x16x16x16xf32, strided<[5184, 288, 16, 1], offset: 304>>
  %z = memref.subview %res[0, 0, 0, 16] [1, 16, 16, 16] [1, 1, 1, 1] : memref<1x16x16x32xf32> to memref<1x16x16x16xf32, strided<[8192, 512, 32, 1], offset: 16>>
  tcc_kernel.conv ins(%x, %w : memref<1x16x16x16xf32>, memref<16x1x1x16xf32>) residual(%z : memref<1x16x16x16xf32, strided<[8192, 512, 32, 1], offset: 16>>) outs(%y : memref<1x16x16x16xf32, strided<[5184, 288, 16, 1], offset: 304>>) {channels_last, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64}
  return
}

// -----

// Activations go as one code: the epilogue's in bits 0-7 (relu6: 2), the
// input's in bits 8-15 (silu: 3 << 8): 770.
// CHECK-LABEL: func @depthwise_activations
// CHECK:         call @tcc_conv2d(
// CHECK-SAME:      %c0_i32, %c0_i32, %c770_i32, %c1_i32, %arg{{[0-9]+}})
func.func @depthwise_activations(%x: memref<2x8x8x16xf32>, %w: memref<16x3x3x1xf32>, %y: memref<2x8x8x16xf32>, %arena: memref<?xi8> {tcc.arena}) {
  tcc_kernel.conv ins(%x, %w : memref<2x8x8x16xf32>, memref<16x3x3x1xf32>) input_activation(silu) outs(%y : memref<2x8x8x16xf32>) activation(relu6) {channels_last, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 16 : i64}
  return
}
