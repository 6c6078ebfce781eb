// RUN: tcc-opt %s -split-input-file -verify-diagnostics

func.func @gemm_k_mismatch(%a: tensor<4x8xf32>, %b: tensor<9x5xf32>, %e: tensor<4x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'tcc_kernel.gemm' op contracts 8 with 9 terms}}
  %y = tcc_kernel.gemm ins(%a, %b : tensor<4x8xf32>, tensor<9x5xf32>) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

func.func @gemm_result_shape(%a: tensor<4x8xf32>, %b: tensor<8x5xf32>, %e: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{'tcc_kernel.gemm' op result [4, 6] is not [..., 4, 5]}}
  %y = tcc_kernel.gemm ins(%a, %b : tensor<4x8xf32>, tensor<8x5xf32>) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}

// -----

func.func @gemm_batch(%a: tensor<3x4x8xf32>, %b: tensor<2x8x5xf32>, %e: tensor<3x4x5xf32>) -> tensor<3x4x5xf32> {
  // expected-error @+1 {{'tcc_kernel.gemm' op operand batch [2] does not broadcast to [3]}}
  %y = tcc_kernel.gemm ins(%a, %b : tensor<3x4x8xf32>, tensor<2x8x5xf32>) outs(%e : tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  return %y : tensor<3x4x5xf32>
}

// -----

func.func @gemm_bias(%a: tensor<4x8xf32>, %b: tensor<8x5xf32>, %bias: tensor<4xf32>, %e: tensor<4x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'tcc_kernel.gemm' op bias must be [5], got [4]}}
  %y = tcc_kernel.gemm ins(%a, %b : tensor<4x8xf32>, tensor<8x5xf32>) bias(%bias : tensor<4xf32>) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

func.func @gemm_residual_activation(%a: tensor<4x8xf32>, %b: tensor<8x5xf32>, %r: tensor<4x5xf32>, %e: tensor<4x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'tcc_kernel.gemm' op a residual add cannot follow an activation in one epilogue}}
  %y = tcc_kernel.gemm ins(%a, %b : tensor<4x8xf32>, tensor<8x5xf32>) residual(%r : tensor<4x5xf32>) outs(%e : tensor<4x5xf32>) activation(relu) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

func.func @gemm_types(%a: tensor<4x8xbf16>, %b: tensor<8x5xf32>, %e: tensor<4x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'tcc_kernel.gemm' op operands must have the result's element type 'f32'}}
  %y = tcc_kernel.gemm ins(%a, %b : tensor<4x8xbf16>, tensor<8x5xf32>) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

func.func @gemm_mixed(%a: memref<4x8xf32>, %b: tensor<8x5xf32>, %e: tensor<4x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'tcc_kernel.gemm' op operands must be all ranked tensors or all memrefs}}
  %y = tcc_kernel.gemm ins(%a, %b : memref<4x8xf32>, tensor<8x5xf32>) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

func.func @gemm_memref_result(%a: memref<4x8xf32>, %b: memref<8x5xf32>, %e: memref<4x5xf32>) {
  // expected-error @+1 {{'tcc_kernel.gemm' op on memrefs has no results}}
  %y = tcc_kernel.gemm ins(%a, %b : memref<4x8xf32>, memref<8x5xf32>) outs(%e : memref<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @attention_heads(%q: tensor<2x6x16x64xf32>, %k: tensor<2x4x16x64xf32>, %e: tensor<2x6x16x64xf32>) -> tensor<2x6x16x64xf32> {
  // expected-error @+1 {{'tcc_kernel.attention' op key/value heads (4) must divide query heads (6)}}
  %o = tcc_kernel.attention ins(%q, %k, %k : tensor<2x6x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>) outs(%e : tensor<2x6x16x64xf32>) {scale = 1.0 : f64} -> tensor<2x6x16x64xf32>
  return %o : tensor<2x6x16x64xf32>
}

// -----

func.func @attention_head_size(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x16x32xf32>, %e: tensor<2x4x16x32xf32>) -> tensor<2x4x16x32xf32> {
  // expected-error @+1 {{'tcc_kernel.attention' op query and key head sizes differ: 64 and 32}}
  %o = tcc_kernel.attention ins(%q, %k, %k : tensor<2x4x16x64xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>) outs(%e : tensor<2x4x16x32xf32>) {scale = 1.0 : f64} -> tensor<2x4x16x32xf32>
  return %o : tensor<2x4x16x32xf32>
}

// -----

func.func @attention_rank(%q: tensor<4x16x64xf32>, %e: tensor<4x16x64xf32>) -> tensor<4x16x64xf32> {
  // expected-error @+1 {{'tcc_kernel.attention' op query, key, value and result must have rank 4}}
  %o = tcc_kernel.attention ins(%q, %q, %q : tensor<4x16x64xf32>, tensor<4x16x64xf32>, tensor<4x16x64xf32>) outs(%e : tensor<4x16x64xf32>) {scale = 1.0 : f64} -> tensor<4x16x64xf32>
  return %o : tensor<4x16x64xf32>
}

// -----

func.func @attention_mask(%q: tensor<2x4x16x64xf32>, %m: tensor<3x1x16x16xi1>, %e: tensor<2x4x16x64xf32>) -> tensor<2x4x16x64xf32> {
  // expected-error @+1 {{'tcc_kernel.attention' op mask [3, 1, 16, 16] does not broadcast to [2, 4, 16, 16]}}
  %o = tcc_kernel.attention ins(%q, %q, %q : tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>) mask(%m : tensor<3x1x16x16xi1>) outs(%e : tensor<2x4x16x64xf32>) {scale = 1.0 : f64} -> tensor<2x4x16x64xf32>
  return %o : tensor<2x4x16x64xf32>
}

// -----

func.func @attention_mask_type(%q: tensor<2x4x16x64xf32>, %m: tensor<16x16xi8>, %e: tensor<2x4x16x64xf32>) -> tensor<2x4x16x64xf32> {
  // expected-error @+1 {{'tcc_kernel.attention' op mask must be i1 or 'f32', got 'i8'}}
  %o = tcc_kernel.attention ins(%q, %q, %q : tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>) mask(%m : tensor<16x16xi8>) outs(%e : tensor<2x4x16x64xf32>) {scale = 1.0 : f64} -> tensor<2x4x16x64xf32>
  return %o : tensor<2x4x16x64xf32>
}

// -----

func.func @attention_bshd(%q: tensor<2x4x16x64xf32>, %e: tensor<2x4x16x64xf32>) -> tensor<2x4x16x64xf32> {
  // expected-error @+1 {{'tcc_kernel.attention' op bshd needs one entry for each of query, key, value and result}}
  %o = tcc_kernel.attention ins(%q, %q, %q : tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>) outs(%e : tensor<2x4x16x64xf32>) {bshd = array<i1: true>, scale = 1.0 : f64} -> tensor<2x4x16x64xf32>
  return %o : tensor<2x4x16x64xf32>
}

// -----

func.func @row_dims(%x: tensor<4x8xf32>, %e: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tcc_kernel.row' op normalizes 3 trailing dims of a rank-2 input}}
  %y = tcc_kernel.row softmax ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {num_dims = 3 : i64} -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @row_sum_without_residual(%x: tensor<4x8xf32>, %e: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // expected-error @+1 {{'tcc_kernel.row' op a sum output needs a residual}}
  %y:2 = tcc_kernel.row layer_norm ins(%x : tensor<4x8xf32>) outs(%e, %e : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>, tensor<4x8xf32>
  return %y#0, %y#1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

func.func @row_softmax_weight(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %e: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tcc_kernel.row' op only normalizations take a weight or bias}}
  %y = tcc_kernel.row softmax ins(%x : tensor<4x8xf32>) weight(%w : tensor<8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @row_weight_shape(%x: tensor<4x8xf32>, %w: tensor<4xf32>, %e: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tcc_kernel.row' op weight and bias must be floats of the row's shape [8]}}
  %y = tcc_kernel.row rms_norm ins(%x : tensor<4x8xf32>) weight(%w : tensor<4xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @row_rms_bias(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %e: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tcc_kernel.row' op only layer_norm takes a bias}}
  %y = tcc_kernel.row rms_norm ins(%x : tensor<4x8xf32>) weight(%w : tensor<8xf32>) bias(%w : tensor<8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @row_result_shape(%x: tensor<4x8xf32>, %e: tensor<4x9xf32>) -> tensor<4x9xf32> {
  // expected-error @+1 {{'tcc_kernel.row' op result must have the input's shape [4, 8]}}
  %y = tcc_kernel.row softmax ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x9xf32>) -> tensor<4x9xf32>
  return %y : tensor<4x9xf32>
}

// -----

func.func @attention_view_bounds(%qkv: tensor<2x16x384xf32>, %e: tensor<2x2x16x64xf32>) -> tensor<2x2x16x64xf32> {
  // expected-error @+1 {{'tcc_kernel.attention' op view reads element 12351 of a tensor of 12288}}
  %o = tcc_kernel.attention ins(%qkv, %qkv, %qkv : tensor<2x16x384xf32>, tensor<2x16x384xf32>, tensor<2x16x384xf32>) outs(%e : tensor<2x2x16x64xf32>) {scale = 1.0 : f64, views = [{sizes = array<i64: 2, 2, 16, 64>, strides = array<i64: 6144, 64, 384, 1>, offset = 320 : i64}, unit, unit, unit]} -> tensor<2x2x16x64xf32>
  return %o : tensor<2x2x16x64xf32>
}

// -----

func.func @attention_view_head_dim(%qkv: tensor<2x16x384xf32>, %e: tensor<2x2x16x64xf32>) -> tensor<2x2x16x64xf32> {
  // expected-error @+1 {{'tcc_kernel.attention' op a view's head dim must be contiguous (stride 1)}}
  %o = tcc_kernel.attention ins(%qkv, %qkv, %qkv : tensor<2x16x384xf32>, tensor<2x16x384xf32>, tensor<2x16x384xf32>) outs(%e : tensor<2x2x16x64xf32>) {scale = 1.0 : f64, views = [{sizes = array<i64: 2, 2, 16, 64>, strides = array<i64: 6144, 1, 384, 2>, offset = 0 : i64}, unit, unit, unit]} -> tensor<2x2x16x64xf32>
  return %o : tensor<2x2x16x64xf32>
}

// -----

func.func @attention_view_bshd(%qkv: tensor<2x16x384xf32>, %e: tensor<2x2x16x64xf32>) -> tensor<2x2x16x64xf32> {
  // expected-error @+1 {{'tcc_kernel.attention' op a tensor with a view is not bshd}}
  %o = tcc_kernel.attention ins(%qkv, %qkv, %qkv : tensor<2x16x384xf32>, tensor<2x16x384xf32>, tensor<2x16x384xf32>) outs(%e : tensor<2x2x16x64xf32>) {bshd = array<i1: true, false, false, false>, scale = 1.0 : f64, views = [{sizes = array<i64: 2, 2, 16, 64>, strides = array<i64: 6144, 64, 384, 1>, offset = 0 : i64}, unit, unit, unit]} -> tensor<2x2x16x64xf32>
  return %o : tensor<2x2x16x64xf32>
}

// -----

func.func @conv_spatial(%x: tensor<2x8x16x16xf32>, %w: tensor<4x8x3x3xf32>, %e: tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32> {
  // expected-error @+1 {{'tcc_kernel.conv' op spatial dim 0 of the result is 16, expected 14}}
  %y = tcc_kernel.conv ins(%x, %w : tensor<2x8x16x16xf32>, tensor<4x8x3x3xf32>) outs(%e : tensor<2x4x16x16xf32>)
         {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} -> tensor<2x4x16x16xf32>
  return %y : tensor<2x4x16x16xf32>
}

// -----

func.func @conv_groups(%x: tensor<2x8x16x16xf32>, %w: tensor<6x4x3x3xf32>, %e: tensor<2x6x16x16xf32>) -> tensor<2x6x16x16xf32> {
  // expected-error @+1 {{'tcc_kernel.conv' op groups 4 must divide the input's channels 8 and the filters 6}}
  %y = tcc_kernel.conv ins(%x, %w : tensor<2x8x16x16xf32>, tensor<6x4x3x3xf32>) outs(%e : tensor<2x6x16x16xf32>)
         {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 4 : i64} -> tensor<2x6x16x16xf32>
  return %y : tensor<2x6x16x16xf32>
}

// -----

func.func @conv_gelu(%x: tensor<2x8x16x16xf32>, %w: tensor<4x8x1x1xf32>, %e: tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32> {
  // expected-error @+1 {{'tcc_kernel.conv' op takes no gelu_tanh activation}}
  %y = tcc_kernel.conv ins(%x, %w : tensor<2x8x16x16xf32>, tensor<4x8x1x1xf32>) outs(%e : tensor<2x4x16x16xf32>) activation(gelu_tanh)
         {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} -> tensor<2x4x16x16xf32>
  return %y : tensor<2x4x16x16xf32>
}

// -----

func.func @conv_input_activation_window_too_large(%x: tensor<2x8x16x16xf32>, %w: tensor<8x1x9x9xf32>, %e: tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{'tcc_kernel.conv' op takes relu6 on its input only as a depthwise convolution tcc's kernel computes}}
  %y = tcc_kernel.conv ins(%x, %w : tensor<2x8x16x16xf32>, tensor<8x1x9x9xf32>) input_activation(relu6) outs(%e : tensor<2x8x16x16xf32>)
         {stride = array<i64: 1, 1>, padding = array<i64: 4, 4>, dilation = array<i64: 1, 1>, groups = 8 : i64} -> tensor<2x8x16x16xf32>
  return %y : tensor<2x8x16x16xf32>
}

// -----

func.func @gemm_silu(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'tcc_kernel.gemm' op takes relu, gelu_tanh or gelu_erf as its activation, got silu}}
  %y = tcc_kernel.gemm ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) activation(silu) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @scatter_source_shape(%s: tensor<2x3xf32>, %i: tensor<4xi64>, %m: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'tcc_kernel.scatter' op source dim 1 must be the index's length}}
  %y = tcc_kernel.scatter ins(%s : tensor<2x3xf32>) index(%i : tensor<4xi64>) outs(%m : tensor<2x8xf32>) {dim = 1 : i64, message = ""} -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @scatter_float_index(%s: tensor<2x3xf32>, %i: tensor<3xf32>, %m: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'tcc_kernel.scatter' op the index must be integers, got 'f32'}}
  %y = tcc_kernel.scatter ins(%s : tensor<2x3xf32>) index(%i : tensor<3xf32>) outs(%m : tensor<2x8xf32>) {dim = 1 : i64, message = ""} -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @scatter_dim(%s: tensor<2x3xf32>, %i: tensor<3xi64>, %m: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'tcc_kernel.scatter' op dim 2 is out of range for rank 2}}
  %y = tcc_kernel.scatter ins(%s : tensor<2x3xf32>) index(%i : tensor<3xi64>) outs(%m : tensor<2x8xf32>) {dim = 2 : i64, message = ""} -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @rnn_missing_cell_state(%x: tensor<5x2x4xf32>, %w: tensor<32x4xf32>, %u: tensor<32x8xf32>,
                                  %y: tensor<5x2x8xf32>, %h: tensor<1x2x8xf32>) -> tensor<5x2x8xf32> {
  // expected-error @+1 {{'tcc_kernel.rnn' op has 3 outputs (output, h_n, c_n), got 2}}
  %r:2 = tcc_kernel.rnn lstm ins(%x : tensor<5x2x4xf32>) weights(%w, %u : tensor<32x4xf32>, tensor<32x8xf32>) outs(%y, %h : tensor<5x2x8xf32>, tensor<1x2x8xf32>) {num_layers = 1 : i64} -> tensor<5x2x8xf32>, tensor<1x2x8xf32>
  return %r#0 : tensor<5x2x8xf32>
}

// -----

func.func @rnn_f16(%x: tensor<5x2x4xf16>, %w: tensor<8x4xf16>, %u: tensor<8x8xf16>,
                   %y: tensor<5x2x8xf16>, %h: tensor<1x2x8xf16>) -> tensor<5x2x8xf16> {
  // expected-error @+1 {{'tcc_kernel.rnn' op computes f32 tensors only, got 'f16'}}
  %r:2 = tcc_kernel.rnn rnn_tanh ins(%x : tensor<5x2x4xf16>) weights(%w, %u : tensor<8x4xf16>, tensor<8x8xf16>) outs(%y, %h : tensor<5x2x8xf16>, tensor<1x2x8xf16>) {num_layers = 1 : i64} -> tensor<5x2x8xf16>, tensor<1x2x8xf16>
  return %r#0 : tensor<5x2x8xf16>
}

// -----

func.func @scatter_view_outside_base(%s: tensor<16xf32>, %i: tensor<1xi64>, %m: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  // expected-error @+1 {{'tcc_kernel.scatter' op a source view reaches outside its base's 16 elements}}
  %y = tcc_kernel.scatter ins(%s : tensor<16xf32>) index(%i : tensor<1xi64>) outs(%m : tensor<2x8x4xf32>) {dim = 1 : i64, message = "", source_views = [{offset = 9 : i64, sizes = array<i64: 2, 1, 4>, strides = array<i64: 8, 0, 1>}]} -> tensor<2x8x4xf32>
  return %y : tensor<2x8x4xf32>
}

// -----

func.func @scatter_view_shape(%s: tensor<16xf32>, %i: tensor<1xi64>, %m: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  // expected-error @+1 {{'tcc_kernel.scatter' op source dim 1 must be the index's length}}
  %y = tcc_kernel.scatter ins(%s : tensor<16xf32>) index(%i : tensor<1xi64>) outs(%m : tensor<2x8x4xf32>) {dim = 1 : i64, message = "", source_views = [{offset = 0 : i64, sizes = array<i64: 2, 2, 4>, strides = array<i64: 8, 4, 1>}]} -> tensor<2x8x4xf32>
  return %y : tensor<2x8x4xf32>
}

// -----

func.func @scatter_sources_inits(%s: tensor<2x3xf32>, %i: tensor<3xi64>, %m: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'tcc_kernel.scatter' op needs one init per source, and at least one source; got 2 sources and 1 inits}}
  %y = tcc_kernel.scatter ins(%s, %s : tensor<2x3xf32>, tensor<2x3xf32>) index(%i : tensor<3xi64>) outs(%m : tensor<2x8xf32>) {dim = 1 : i64, message = ""} -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @scatter_sources_shapes(%s: tensor<2x3xf32>, %t: tensor<1x3xf32>, %i: tensor<3xi64>, %m: tensor<2x8xf32>, %n: tensor<1x8xf32>) -> (tensor<2x8xf32>, tensor<1x8xf32>) {
  // expected-error @+1 {{'tcc_kernel.scatter' op every source must have one shape}}
  %y:2 = tcc_kernel.scatter ins(%s, %t : tensor<2x3xf32>, tensor<1x3xf32>) index(%i : tensor<3xi64>) outs(%m, %n : tensor<2x8xf32>, tensor<1x8xf32>) {dim = 1 : i64, message = ""} -> tensor<2x8xf32>, tensor<1x8xf32>
  return %y#0, %y#1 : tensor<2x8xf32>, tensor<1x8xf32>
}

// -----

func.func @qconv_float_input(%x: tensor<1x4x4x4xf32>, %w: tensor<8x4x1x1xi8>, %s: tensor<8xf32>, %wz: tensor<8xi64>, %xz: tensor<i64>, %e: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error @+1 {{'tcc_kernel.qconv' op takes a u8 or s8 input and an s8 weight}}
  %y = tcc_kernel.qconv ins(%x, %w : tensor<1x4x4x4xf32>, tensor<8x4x1x1xi8>) scales(%s : tensor<8xf32>) zero_points(%wz, %xz : tensor<8xi64>, tensor<i64>) outs(%e : tensor<1x8x4x4xf32>) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, quant_min = 0 : i64, quant_max = 0 : i64} -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

func.func @qconv_requantize_to_f32(%x: tensor<1x4x4x4xui8>, %w: tensor<8x4x1x1xi8>, %s: tensor<8xf32>, %wz: tensor<8xi64>, %xz: tensor<i64>, %ys: tensor<f32>, %yz: tensor<i64>, %e: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error @+1 {{'tcc_kernel.qconv' op requantizes to u8 or s8}}
  %y = tcc_kernel.qconv ins(%x, %w : tensor<1x4x4x4xui8>, tensor<8x4x1x1xi8>) scales(%s : tensor<8xf32>) zero_points(%wz, %xz : tensor<8xi64>, tensor<i64>) requantize(%ys, %yz : tensor<f32>, tensor<i64>) outs(%e : tensor<1x8x4x4xf32>) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, quant_min = 0 : i64, quant_max = 255 : i64} -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

func.func @qconv_scales(%x: tensor<1x4x4x4xui8>, %w: tensor<8x4x1x1xi8>, %s: tensor<4xf32>, %wz: tensor<8xi64>, %xz: tensor<i64>, %e: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error @+1 {{'tcc_kernel.qconv' op scales and bias must be f32 [8], weight zero points i64}}
  %y = tcc_kernel.qconv ins(%x, %w : tensor<1x4x4x4xui8>, tensor<8x4x1x1xi8>) scales(%s : tensor<4xf32>) zero_points(%wz, %xz : tensor<8xi64>, tensor<i64>) outs(%e : tensor<1x8x4x4xf32>) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, quant_min = 0 : i64, quant_max = 0 : i64} -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

func.func @qconv_range(%x: tensor<1x4x4x4xui8>, %w: tensor<8x4x1x1xi8>, %s: tensor<8xf32>, %wz: tensor<8xi64>, %xz: tensor<i64>, %ys: tensor<f32>, %yz: tensor<i64>, %e: tensor<1x8x4x4xi8>) -> tensor<1x8x4x4xi8> {
  // expected-error @+1 {{'tcc_kernel.qconv' op quant range [0, 255] does not fit 'i8'}}
  %y = tcc_kernel.qconv ins(%x, %w : tensor<1x4x4x4xui8>, tensor<8x4x1x1xi8>) scales(%s : tensor<8xf32>) zero_points(%wz, %xz : tensor<8xi64>, tensor<i64>) requantize(%ys, %yz : tensor<f32>, tensor<i64>) outs(%e : tensor<1x8x4x4xi8>) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, quant_min = 0 : i64, quant_max = 255 : i64} -> tensor<1x8x4x4xi8>
  return %y : tensor<1x8x4x4xi8>
}

// -----

func.func @qconv_silu(%x: tensor<1x4x4x4xui8>, %w: tensor<8x4x1x1xi8>, %s: tensor<8xf32>, %wz: tensor<8xi64>, %xz: tensor<i64>, %e: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error @+1 {{'tcc_kernel.qconv' op takes no silu activation}}
  %y = tcc_kernel.qconv ins(%x, %w : tensor<1x4x4x4xui8>, tensor<8x4x1x1xi8>) scales(%s : tensor<8xf32>) zero_points(%wz, %xz : tensor<8xi64>, tensor<i64>) outs(%e : tensor<1x8x4x4xf32>) activation(silu) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, quant_min = 0 : i64, quant_max = 0 : i64} -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

func.func @qconv_residual_shape(%x: tensor<1x4x4x4xui8>, %w: tensor<8x4x1x1xi8>, %s: tensor<8xf32>, %wz: tensor<8xi64>, %xz: tensor<i64>, %r: tensor<1x8x2x2xf32>, %e: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error @+1 {{'tcc_kernel.qconv' op residual must be f32 of the result's shape [1, 8, 4, 4]}}
  %y = tcc_kernel.qconv ins(%x, %w : tensor<1x4x4x4xui8>, tensor<8x4x1x1xi8>) scales(%s : tensor<8xf32>) zero_points(%wz, %xz : tensor<8xi64>, tensor<i64>) residual(%r : tensor<1x8x2x2xf32>) outs(%e : tensor<1x8x4x4xf32>) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, quant_min = 0 : i64, quant_max = 0 : i64} -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// NCHW shapes given to a channels-last qconv: the channels are the last dim.
func.func @qconv_channels_last_shapes(%x: tensor<1x4x6x6xui8>, %w: tensor<8x4x1x1xi8>, %s: tensor<8xf32>, %wz: tensor<8xi64>, %xz: tensor<i64>, %e: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+1 {{'tcc_kernel.qconv' op result [1, 8, 6, 6] does not fit input [1, 4, 6, 6] and weight [8, 4, 1, 1]}}
  %y = tcc_kernel.qconv ins(%x, %w : tensor<1x4x6x6xui8>, tensor<8x4x1x1xi8>) scales(%s : tensor<8xf32>) zero_points(%wz, %xz : tensor<8xi64>, tensor<i64>) outs(%e : tensor<1x8x6x6xf32>) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, quant_min = 0 : i64, quant_max = 0 : i64, channels_last} -> tensor<1x8x6x6xf32>
  return %y : tensor<1x8x6x6xf32>
}

// -----

// qconv's result sizes are checked as conv's (one shared check): a 3x3 filter
// without padding over 4x4 gives 2x2, not 4x4.
func.func @qconv_spatial(%x: tensor<1x4x4x4xui8>, %w: tensor<8x4x3x3xi8>, %s: tensor<8xf32>, %wz: tensor<8xi64>, %xz: tensor<i64>, %e: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error @+1 {{'tcc_kernel.qconv' op spatial dim 0 of the result is 4, expected 2}}
  %y = tcc_kernel.qconv ins(%x, %w : tensor<1x4x4x4xui8>, tensor<8x4x3x3xi8>) scales(%s : tensor<8xf32>) zero_points(%wz, %xz : tensor<8xi64>, tensor<i64>) outs(%e : tensor<1x8x4x4xf32>) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, quant_min = 0 : i64, quant_max = 255 : i64} -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}
