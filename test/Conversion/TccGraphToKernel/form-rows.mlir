// RUN: tcc-opt %s -tcc-form-kernels -split-input-file | FileCheck %s

// A post-norm block's residual add folds into the layer_norm (read once).
// CHECK-LABEL: func @layer_norm_residual
// CHECK:     %[[Y:.*]] = tcc_kernel.row layer_norm ins(%arg0 : tensor<8x128x768xf32>) residual(%arg1 : tensor<8x128x768xf32>) weight(%arg2 : tensor<768xf32>) bias(%arg3 : tensor<768xf32>) outs(%{{.*}} : tensor<8x128x768xf32>) {eps = 9.9999999999999998E-13 : f64} -> tensor<8x128x768xf32>
// CHECK-NOT: tcc_graph.add
func.func @layer_norm_residual(%x: tensor<8x128x768xf32>, %r: tensor<8x128x768xf32>, %w: tensor<768xf32>, %b: tensor<768xf32>) -> tensor<8x128x768xf32> {
  %h = tcc_graph.add %x, %r : (tensor<8x128x768xf32>, tensor<8x128x768xf32>) -> tensor<8x128x768xf32>
  %y = tcc_graph.layer_norm %h, weight %w, bias %b {eps = 1.0e-12 : f64, num_dims = 1 : i64} : (tensor<8x128x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<8x128x768xf32>
  return %y : tensor<8x128x768xf32>
}

// -----

// Pre-norm: the sum is the residual stream and is read again, so the kernel
// writes it as its second result.
// CHECK-LABEL: func @layer_norm_writes_sum
// CHECK:     %[[Y:.*]]:2 = tcc_kernel.row layer_norm ins(%arg0 : tensor<4x64xbf16>) residual(%arg1 : tensor<4x64xbf16>) outs(%{{.*}}, %{{.*}} : tensor<4x64xbf16>, tensor<4x64xbf16>) {eps = 1.000000e-05 : f64} -> tensor<4x64xbf16>, tensor<4x64xbf16>
// CHECK:     tcc_graph.mul %[[Y]]#0, %[[Y]]#1
func.func @layer_norm_writes_sum(%x: tensor<4x64xbf16>, %r: tensor<4x64xbf16>) -> tensor<4x64xbf16> {
  %h = tcc_graph.add %x, %r : (tensor<4x64xbf16>, tensor<4x64xbf16>) -> tensor<4x64xbf16>
  %y = tcc_graph.layer_norm %h {eps = 1.0e-5 : f64, num_dims = 1 : i64} : (tensor<4x64xbf16>) -> tensor<4x64xbf16>
  %z = tcc_graph.mul %y, %h : (tensor<4x64xbf16>, tensor<4x64xbf16>) -> tensor<4x64xbf16>
  return %z : tensor<4x64xbf16>
}

// -----

// transformers' hand-written RMSNorm on a bf16 input (upcast, mean of
// squares, rsqrt, downcast, weight): one row kernel on the bf16 input.
// CHECK-LABEL: func @hand_written_rms_norm
// CHECK:     %[[Y:.*]] = tcc_kernel.row rms_norm ins(%arg0 : tensor<2x16x64xbf16>) weight(%arg1 : tensor<64xbf16>) outs(%{{.*}} : tensor<2x16x64xbf16>) {eps = 9.9999999747524271E-7 : f64} -> tensor<2x16x64xbf16>
// CHECK:     return %[[Y]]
func.func @hand_written_rms_norm(%x: tensor<2x16x64xbf16>, %w: tensor<64xbf16>) -> tensor<2x16x64xbf16> {
  %h = tcc_graph.cast %x : (tensor<2x16x64xbf16>) -> tensor<2x16x64xf32>
  %sq = tcc_graph.mul %h, %h : (tensor<2x16x64xf32>, tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  %m = tcc_graph.reduce_mean %sq {dims = array<i64: 2>, keepdim = true} : (tensor<2x16x64xf32>) -> tensor<2x16x1xf32>
  %eps = tcc_graph.constant dense<9.99999997E-7> : tensor<f32>
  %a = tcc_graph.add %m, %eps : (tensor<2x16x1xf32>, tensor<f32>) -> tensor<2x16x1xf32>
  %r = tcc_graph.rsqrt %a : tensor<2x16x1xf32>
  %n = tcc_graph.mul %h, %r : (tensor<2x16x64xf32>, tensor<2x16x1xf32>) -> tensor<2x16x64xf32>
  %d = tcc_graph.cast %n : (tensor<2x16x64xf32>) -> tensor<2x16x64xbf16>
  %y = tcc_graph.mul %w, %d : (tensor<64xbf16>, tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16>
  return %y : tensor<2x16x64xbf16>
}

// -----

// softmax over the last dim is a row kernel (to f32: half_to_float); over
// another dim it is decomposed.
// CHECK-LABEL: func @softmaxes
// CHECK:     tcc_kernel.row softmax ins(%arg0 : tensor<4x8xbf16>) outs(%{{.*}} : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK:     tcc_kernel.row log_softmax ins(%arg0 : tensor<4x8xbf16>)
// CHECK:     tcc_graph.reduce_max %{{.*}} {dims = array<i64: 0>
// CHECK-NOT: tcc_graph.softmax
func.func @softmaxes(%x: tensor<4x8xbf16>) -> (tensor<4x8xf32>, tensor<4x8xbf16>, tensor<4x8xbf16>) {
  %a = tcc_graph.softmax %x {dim = 1 : i64} : (tensor<4x8xbf16>) -> tensor<4x8xf32>
  %b = tcc_graph.softmax %x {dim = 1 : i64, log} : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %c = tcc_graph.softmax %x {dim = 0 : i64} : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
  return %a, %b, %c : tensor<4x8xf32>, tensor<4x8xbf16>, tensor<4x8xbf16>
}
