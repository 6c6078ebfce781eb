// RUN: tcc-opt %s | tcc-opt | FileCheck %s

// CHECK-LABEL: func @gemm_linear
// CHECK: tcc_kernel.gemm ins(%{{.*}}, %{{.*}} : tensor<8x128x768xf32>, tensor<3072x768xf32>) bias(%{{.*}} : tensor<3072xf32>) outs(%{{.*}} : tensor<8x128x3072xf32>) transpose_b activation(gelu_tanh) -> tensor<8x128x3072xf32>
func.func @gemm_linear(%x: tensor<8x128x768xf32>, %w: tensor<3072x768xf32>, %b: tensor<3072xf32>) -> tensor<8x128x3072xf32> {
  %e = tensor.empty() : tensor<8x128x3072xf32>
  %y = tcc_kernel.gemm ins(%x, %w : tensor<8x128x768xf32>, tensor<3072x768xf32>) bias(%b : tensor<3072xf32>)
         outs(%e : tensor<8x128x3072xf32>) transpose_b activation(gelu_tanh) -> tensor<8x128x3072xf32>
  return %y : tensor<8x128x3072xf32>
}

// CHECK-LABEL: func @gemm_batched_residual
// CHECK: tcc_kernel.gemm ins(%{{.*}}, %{{.*}} : tensor<2x12x128x64xbf16>, tensor<2x1x64x128xbf16>) residual(%{{.*}} : tensor<2x12x128x128xbf16>) outs(%{{.*}} : tensor<2x12x128x128xbf16>) {alpha = 1.250000e-01 : f64} -> tensor<2x12x128x128xbf16>
func.func @gemm_batched_residual(%a: tensor<2x12x128x64xbf16>, %b: tensor<2x1x64x128xbf16>, %r: tensor<2x12x128x128xbf16>) -> tensor<2x12x128x128xbf16> {
  %e = tensor.empty() : tensor<2x12x128x128xbf16>
  %y = tcc_kernel.gemm ins(%a, %b : tensor<2x12x128x64xbf16>, tensor<2x1x64x128xbf16>) residual(%r : tensor<2x12x128x128xbf16>)
         outs(%e : tensor<2x12x128x128xbf16>) {alpha = 0.125 : f64} -> tensor<2x12x128x128xbf16>
  return %y : tensor<2x12x128x128xbf16>
}

// CHECK-LABEL: func @gemm_on_memrefs
// CHECK: tcc_kernel.gemm ins(%{{.*}}, %{{.*}} : memref<?x100xf32>, memref<10x100xf32>) outs(%{{.*}} : memref<?x10xf32>) transpose_b activation(relu){{$}}
func.func @gemm_on_memrefs(%x: memref<?x100xf32>, %w: memref<10x100xf32>, %y: memref<?x10xf32>) {
  tcc_kernel.gemm ins(%x, %w : memref<?x100xf32>, memref<10x100xf32>) outs(%y : memref<?x10xf32>) transpose_b activation(relu)
  return
}

// CHECK-LABEL: func @attention_bshd_gqa
// CHECK: tcc_kernel.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4x256x16x64xf32>, tensor<4x256x4x64xf32>, tensor<4x256x4x64xf32>) outs(%{{.*}} : tensor<4x256x16x64xf32>) {bshd = array<i1: true, true, true, true>, causal, scale = 1.250000e-01 : f64} -> tensor<4x256x16x64xf32>
func.func @attention_bshd_gqa(%q: tensor<4x256x16x64xf32>, %k: tensor<4x256x4x64xf32>, %v: tensor<4x256x4x64xf32>) -> tensor<4x256x16x64xf32> {
  %e = tensor.empty() : tensor<4x256x16x64xf32>
  %o = tcc_kernel.attention ins(%q, %k, %v : tensor<4x256x16x64xf32>, tensor<4x256x4x64xf32>, tensor<4x256x4x64xf32>)
         outs(%e : tensor<4x256x16x64xf32>) {bshd = array<i1: true, true, true, true>, causal, scale = 0.125 : f64} -> tensor<4x256x16x64xf32>
  return %o : tensor<4x256x16x64xf32>
}

// CHECK-LABEL: func @attention_bool_mask
// CHECK: tcc_kernel.attention ins({{.*}}) mask(%{{.*}} : tensor<2x1x1x?xi1>) outs(%{{.*}} : tensor<2x12x?x64xf16>) {scale = 1.250000e-01 : f64} -> tensor<2x12x?x64xf16>
func.func @attention_bool_mask(%q: tensor<2x12x?x64xf16>, %k: tensor<2x12x?x64xf16>, %v: tensor<2x12x?x64xf16>, %m: tensor<2x1x1x?xi1>, %e: tensor<2x12x?x64xf16>) -> tensor<2x12x?x64xf16> {
  %o = tcc_kernel.attention ins(%q, %k, %v : tensor<2x12x?x64xf16>, tensor<2x12x?x64xf16>, tensor<2x12x?x64xf16>)
         mask(%m : tensor<2x1x1x?xi1>) outs(%e : tensor<2x12x?x64xf16>) {scale = 0.125 : f64} -> tensor<2x12x?x64xf16>
  return %o : tensor<2x12x?x64xf16>
}

// CHECK-LABEL: func @row_layer_norm_residual
// CHECK: %{{.*}}:2 = tcc_kernel.row layer_norm ins(%{{.*}} : tensor<8x128x768xf32>) residual(%{{.*}} : tensor<8x128x768xf32>) weight(%{{.*}} : tensor<768xf32>) bias(%{{.*}} : tensor<768xf32>) outs(%{{.*}}, %{{.*}} : tensor<8x128x768xf32>, tensor<8x128x768xf32>) {eps = 9.9999999999999998E-13 : f64} -> tensor<8x128x768xf32>, tensor<8x128x768xf32>
func.func @row_layer_norm_residual(%x: tensor<8x128x768xf32>, %r: tensor<8x128x768xf32>, %w: tensor<768xf32>, %b: tensor<768xf32>) -> (tensor<8x128x768xf32>, tensor<8x128x768xf32>) {
  %e = tensor.empty() : tensor<8x128x768xf32>
  %e2 = tensor.empty() : tensor<8x128x768xf32>
  %y:2 = tcc_kernel.row layer_norm ins(%x : tensor<8x128x768xf32>) residual(%r : tensor<8x128x768xf32>)
           weight(%w : tensor<768xf32>) bias(%b : tensor<768xf32>) outs(%e, %e2 : tensor<8x128x768xf32>, tensor<8x128x768xf32>)
           {eps = 1.0e-12 : f64} -> tensor<8x128x768xf32>, tensor<8x128x768xf32>
  return %y#0, %y#1 : tensor<8x128x768xf32>, tensor<8x128x768xf32>
}

// CHECK-LABEL: func @row_softmax_to_f32
// CHECK: tcc_kernel.row softmax ins(%{{.*}} : tensor<4x50257xbf16>) outs(%{{.*}} : tensor<4x50257xf32>) -> tensor<4x50257xf32>
func.func @row_softmax_to_f32(%x: tensor<4x50257xbf16>) -> tensor<4x50257xf32> {
  %e = tensor.empty() : tensor<4x50257xf32>
  %y = tcc_kernel.row softmax ins(%x : tensor<4x50257xbf16>) outs(%e : tensor<4x50257xf32>) -> tensor<4x50257xf32>
  return %y : tensor<4x50257xf32>
}

// Query, key and value are views of one packed [B, L, 3·H·D] projection; the
// result is written as [B, L, H·D].
// CHECK-LABEL: func @attention_views
// CHECK: tcc_kernel.attention ins(%arg0, %arg0, %arg0 : tensor<2x16x384xbf16>, tensor<2x16x384xbf16>, tensor<2x16x384xbf16>) outs(%{{.*}} : tensor<2x16x128xbf16>) {scale = 1.250000e-01 : f64, views = [{offset = 0 : i64, sizes = array<i64: 2, 2, 16, 64>, strides = array<i64: 6144, 64, 384, 1>}, {offset = 128 : i64, sizes = array<i64: 2, 2, 16, 64>, strides = array<i64: 6144, 64, 384, 1>}, {offset = 256 : i64, sizes = array<i64: 2, 2, 16, 64>, strides = array<i64: 6144, 64, 384, 1>}, {offset = 0 : i64, sizes = array<i64: 2, 2, 16, 64>, strides = array<i64: 2048, 64, 128, 1>}]} -> tensor<2x16x128xbf16>
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

// CHECK-LABEL: func @conv_residual_relu
// CHECK: tcc_kernel.conv ins(%{{.*}}, %{{.*}} : tensor<?x64x56x56xf32>, tensor<64x64x3x3xf32>) bias(%{{.*}} : tensor<64xf32>) residual(%{{.*}} : tensor<?x64x56x56xf32>) outs(%{{.*}} : tensor<?x64x56x56xf32>) activation(relu) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} -> tensor<?x64x56x56xf32>
func.func @conv_residual_relu(%x: tensor<?x64x56x56xf32>, %w: tensor<64x64x3x3xf32>, %b: tensor<64xf32>, %r: tensor<?x64x56x56xf32>, %e: tensor<?x64x56x56xf32>) -> tensor<?x64x56x56xf32> {
  %y = tcc_kernel.conv ins(%x, %w : tensor<?x64x56x56xf32>, tensor<64x64x3x3xf32>) bias(%b : tensor<64xf32>)
         residual(%r : tensor<?x64x56x56xf32>) outs(%e : tensor<?x64x56x56xf32>) activation(relu)
         {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} -> tensor<?x64x56x56xf32>
  return %y : tensor<?x64x56x56xf32>
}

// A scatter on tensors (its init the tensor written) and on buffers.
// CHECK-LABEL: func @scatter
// CHECK: tcc_kernel.scatter ins(%{{.*}} : tensor<1x4x?x64xbf16>) index(%{{.*}} : tensor<?xi64>) outs(%{{.*}} : tensor<1x4x2048x64xbf16>) {dim = 2 : i64, message = "m.py:3: out of range"} -> tensor<1x4x2048x64xbf16>
// CHECK: tcc_kernel.scatter ins(%{{.*}} : memref<2x3xf32>) index(%{{.*}} : memref<3xi32>) outs(%{{.*}} : memref<2x8xf32>) {dim = 1 : i64, message = ""}
func.func @scatter(%new: tensor<1x4x?x64xbf16>, %pos: tensor<?xi64>, %cache: tensor<1x4x2048x64xbf16>,
                   %s: memref<2x3xf32>, %i: memref<3xi32>, %m: memref<2x8xf32>) -> tensor<1x4x2048x64xbf16> {
  %k = tcc_kernel.scatter ins(%new : tensor<1x4x?x64xbf16>) index(%pos : tensor<?xi64>) outs(%cache : tensor<1x4x2048x64xbf16>) {dim = 2 : i64, message = "m.py:3: out of range"} -> tensor<1x4x2048x64xbf16>
  tcc_kernel.scatter ins(%s : memref<2x3xf32>) index(%i : memref<3xi32>) outs(%m : memref<2x8xf32>) {dim = 1 : i64, message = ""}
  return %k : tensor<1x4x2048x64xbf16>
}

// CHECK-LABEL: func @rnn
// CHECK: tcc_kernel.rnn gru ins(%{{.*}} : tensor<?x2x4xf32>) h0(%{{.*}} : tensor<1x2x8xf32>) weights(%{{.*}}, %{{.*}} : tensor<24x4xf32>, tensor<24x8xf32>) outs(%{{.*}}, %{{.*}} : tensor<?x2x8xf32>, tensor<1x2x8xf32>) {num_layers = 1 : i64} -> tensor<?x2x8xf32>, tensor<1x2x8xf32>
func.func @rnn(%x: tensor<?x2x4xf32>, %h0: tensor<1x2x8xf32>, %w: tensor<24x4xf32>, %u: tensor<24x8xf32>,
               %y: tensor<?x2x8xf32>, %h: tensor<1x2x8xf32>) -> tensor<?x2x8xf32> {
  %r:2 = tcc_kernel.rnn gru ins(%x : tensor<?x2x4xf32>) h0(%h0 : tensor<1x2x8xf32>) weights(%w, %u : tensor<24x4xf32>, tensor<24x8xf32>) outs(%y, %h : tensor<?x2x8xf32>, tensor<1x2x8xf32>) {num_layers = 1 : i64} -> tensor<?x2x8xf32>, tensor<1x2x8xf32>
  return %r#0 : tensor<?x2x8xf32>
}

// CHECK-LABEL: func @qconv
// CHECK: tcc_kernel.qconv ins(%{{.*}}, %{{.*}} : tensor<2x16x8x8xui8>, tensor<32x16x3x3xi8>) scales(%{{.*}} : tensor<32xf32>) zero_points(%{{.*}}, %{{.*}} : tensor<32xi64>, tensor<i64>) bias(%{{.*}} : tensor<32xf32>) requantize(%{{.*}}, %{{.*}} : tensor<f32>, tensor<i64>) outs(%{{.*}} : tensor<2x32x8x8xui8>) activation(relu) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, quant_max = 255 : i64, quant_min = 0 : i64, stride = array<i64: 1, 1>} -> tensor<2x32x8x8xui8>
// CHECK: tcc_kernel.qconv ins(%{{.*}}, %{{.*}} : memref<4x16x1x1xi8>, memref<10x16x1x1xi8>) scales(%{{.*}} : memref<10xf32>) zero_points(%{{.*}}, %{{.*}} : memref<10xi64>, memref<i64>) residual(%{{.*}} : memref<4x10x1x1xf32>) outs(%{{.*}} : memref<4x10x1x1xf32>) {
func.func @qconv(%x: tensor<2x16x8x8xui8>, %w: tensor<32x16x3x3xi8>, %s: tensor<32xf32>, %wz: tensor<32xi64>,
    %xz: tensor<i64>, %b: tensor<32xf32>, %ys: tensor<f32>, %yz: tensor<i64>, %e: tensor<2x32x8x8xui8>,
    %mx: memref<4x16x1x1xi8>, %mw: memref<10x16x1x1xi8>, %ms: memref<10xf32>, %mwz: memref<10xi64>,
    %mxz: memref<i64>, %my: memref<4x10x1x1xf32>, %mr: memref<4x10x1x1xf32>) -> tensor<2x32x8x8xui8> {
  %y = tcc_kernel.qconv ins(%x, %w : tensor<2x16x8x8xui8>, tensor<32x16x3x3xi8>) scales(%s : tensor<32xf32>)
         zero_points(%wz, %xz : tensor<32xi64>, tensor<i64>) bias(%b : tensor<32xf32>)
         requantize(%ys, %yz : tensor<f32>, tensor<i64>) outs(%e : tensor<2x32x8x8xui8>) activation(relu)
         {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64,
          quant_min = 0 : i64, quant_max = 255 : i64} -> tensor<2x32x8x8xui8>
  tcc_kernel.qconv ins(%mx, %mw : memref<4x16x1x1xi8>, memref<10x16x1x1xi8>) scales(%ms : memref<10xf32>)
         zero_points(%mwz, %mxz : memref<10xi64>, memref<i64>) residual(%mr : memref<4x10x1x1xf32>)
         outs(%my : memref<4x10x1x1xf32>)
         {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64,
          quant_min = 0 : i64, quant_max = 0 : i64}
  return %y : tensor<2x32x8x8xui8>
}

// CHECK-LABEL: func @qconv_channels_last
// CHECK: tcc_kernel.qconv ins(%{{.*}}, %{{.*}} : tensor<2x8x8x16xui8>, tensor<32x16x3x3xi8>) {{.*}} outs(%{{.*}} : tensor<2x4x4x32xui8>) {channels_last, dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, quant_max = 255 : i64, quant_min = 0 : i64, stride = array<i64: 2, 2>} -> tensor<2x4x4x32xui8>
func.func @qconv_channels_last(%x: tensor<2x8x8x16xui8>, %w: tensor<32x16x3x3xi8>, %s: tensor<32xf32>, %wz: tensor<32xi64>,
    %xz: tensor<i64>, %ys: tensor<f32>, %yz: tensor<i64>, %e: tensor<2x4x4x32xui8>) -> tensor<2x4x4x32xui8> {
  %y = tcc_kernel.qconv ins(%x, %w : tensor<2x8x8x16xui8>, tensor<32x16x3x3xi8>) scales(%s : tensor<32xf32>)
         zero_points(%wz, %xz : tensor<32xi64>, tensor<i64>) requantize(%ys, %yz : tensor<f32>, tensor<i64>)
         outs(%e : tensor<2x4x4x32xui8>)
         {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64,
          quant_min = 0 : i64, quant_max = 255 : i64, channels_last} -> tensor<2x4x4x32xui8>
  return %y : tensor<2x4x4x32xui8>
}
