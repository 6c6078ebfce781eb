// RUN: tcc-opt %s -tcc-form-kernels -split-input-file | FileCheck %s

// Per-head views of linear outputs ([B, L, H, D] transposed to [B, H, L, D])
// and the transpose back are folded in: the kernel reads and writes
// [B, L, H, D] (bshd), nothing is copied.
// CHECK-LABEL: func @bshd_views
// CHECK:     %[[E:.*]] = tensor.empty() : tensor<2x16x4x64xf32>
// CHECK:     %[[O:.*]] = tcc_kernel.attention ins(%arg0, %arg1, %arg2 : tensor<2x16x4x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x64xf32>) outs(%[[E]] : tensor<2x16x4x64xf32>) {bshd = array<i1: true, true, true, true>, causal, scale = 1.250000e-01 : f64} -> tensor<2x16x4x64xf32>
// CHECK:     return %[[O]]
// CHECK-NOT: tcc_graph.transpose
func.func @bshd_views(%q: tensor<2x16x4x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x64xf32>) -> tensor<2x16x4x64xf32> {
  %qt = tcc_graph.transpose %q {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x64xf32>) -> tensor<2x4x16x64xf32>
  %kt = tcc_graph.transpose %k {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x64xf32>) -> tensor<2x4x16x64xf32>
  %vt = tcc_graph.transpose %v {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x64xf32>) -> tensor<2x4x16x64xf32>
  %o = tcc_graph.attention %qt, %kt, %vt {causal, scale = 0.125 : f64} : (tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>) -> tensor<2x4x16x64xf32>
  %ot = tcc_graph.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x64xf32>) -> tensor<2x16x4x64xf32>
  return %ot : tensor<2x16x4x64xf32>
}

// -----

// transformers' repeat_kv (unsqueeze, expand, reshape) is undone: the kernel
// shares each of the 2 key/value heads among 4 query heads. The mask's
// broadcast goes too (the kernel broadcasts with stride 0).
// CHECK-LABEL: func @repeat_kv
// CHECK:     tcc_kernel.attention ins(%arg0, %arg1, %arg2 : tensor<1x8x32x64xbf16>, tensor<1x2x32x64xbf16>, tensor<1x2x32x64xbf16>) mask(%arg3 : tensor<1x1x32x32xi1>) outs(%{{.*}} : tensor<1x8x32x64xbf16>) {scale = 1.250000e-01 : f64}
// CHECK-NOT: tcc_graph.broadcast
func.func @repeat_kv(%q: tensor<1x8x32x64xbf16>, %k: tensor<1x2x32x64xbf16>, %v: tensor<1x2x32x64xbf16>, %m: tensor<1x1x32x32xi1>) -> tensor<1x8x32x64xbf16> {
  %k1 = tcc_graph.reshape %k : (tensor<1x2x32x64xbf16>) -> tensor<1x2x1x32x64xbf16>
  %k2 = tcc_graph.broadcast %k1 : (tensor<1x2x1x32x64xbf16>) -> tensor<1x2x4x32x64xbf16>
  %k3 = tcc_graph.reshape %k2 : (tensor<1x2x4x32x64xbf16>) -> tensor<1x8x32x64xbf16>
  %v1 = tcc_graph.reshape %v : (tensor<1x2x32x64xbf16>) -> tensor<1x2x1x32x64xbf16>
  %v2 = tcc_graph.broadcast %v1 : (tensor<1x2x1x32x64xbf16>) -> tensor<1x2x4x32x64xbf16>
  %v3 = tcc_graph.reshape %v2 : (tensor<1x2x4x32x64xbf16>) -> tensor<1x8x32x64xbf16>
  %mb = tcc_graph.broadcast %m : (tensor<1x1x32x32xi1>) -> tensor<1x8x32x32xi1>
  %o = tcc_graph.attention %q, %k3, %v3, mask %mb {scale = 0.125 : f64} : (tensor<1x8x32x64xbf16>, tensor<1x8x32x64xbf16>, tensor<1x8x32x64xbf16>, tensor<1x8x32x32xi1>) -> tensor<1x8x32x64xbf16>
  return %o : tensor<1x8x32x64xbf16>
}

// -----

// A symbolic sequence length: the result's size comes from the query.
// CHECK-LABEL: func @dynamic_length
// CHECK:     %[[C2:.*]] = arith.constant 2 : index
// CHECK:     %[[L:.*]] = tensor.dim %arg0, %[[C2]] : tensor<2x12x?x64xf16>
// CHECK:     %[[E:.*]] = tensor.empty(%[[L]]) : tensor<2x12x?x64xf16>
// CHECK:     tcc_kernel.attention {{.*}} mask(%arg3 : tensor<2x1x1x?xf16>) outs(%[[E]] : tensor<2x12x?x64xf16>)
func.func @dynamic_length(%q: tensor<2x12x?x64xf16>, %k: tensor<2x12x?x64xf16>, %v: tensor<2x12x?x64xf16>, %m: tensor<2x1x1x?xf16>) -> tensor<2x12x?x64xf16> {
  %o = tcc_graph.attention %q, %k, %v, mask %m {scale = 0.125 : f64} : (tensor<2x12x?x64xf16>, tensor<2x12x?x64xf16>, tensor<2x12x?x64xf16>, tensor<2x1x1x?xf16>) -> tensor<2x12x?x64xf16>
  return %o : tensor<2x12x?x64xf16>
}

// -----

// A head size the fused kernel lacks (160): decomposed on the spot, its two
// products become GEMMs.
// CHECK-LABEL: func @unsupported_head_size
// CHECK-NOT: tcc_kernel.attention
// CHECK:     tcc_kernel.gemm {{.*}} transpose_b {alpha =
// CHECK:     tcc_graph.exp
// CHECK:     tcc_kernel.gemm
// CHECK-NOT: tcc_graph.attention
func.func @unsupported_head_size(%q: tensor<2x4x16x160xf32>) -> tensor<2x4x16x160xf32> {
  %o = tcc_graph.attention %q, %q, %q {scale = 0.144 : f64} : (tensor<2x4x16x160xf32>, tensor<2x4x16x160xf32>, tensor<2x4x16x160xf32>) -> tensor<2x4x16x160xf32>
  return %o : tensor<2x4x16x160xf32>
}

// -----

// Attention written out (q·kᵀ, scale, masked_fill of ~causal with -inf,
// softmax, ·v) is raised and forms the same kernel; the mask is the kept one
// (the negation is undone), read with broadcast strides.
// CHECK-LABEL: func @written_out
// CHECK:     tcc_kernel.attention ins(%arg0, %arg1, %arg2 : tensor<2x2x8x64xf32>, tensor<2x2x8x64xf32>, tensor<2x2x8x64xf32>) mask(%arg3 : tensor<8x8xi1>) outs(%{{.*}} : tensor<2x2x8x64xf32>) {scale = 1.250000e-01 : f64}
// CHECK-NOT: tcc_graph.softmax
// CHECK-NOT: tcc_graph.matmul
func.func @written_out(%q: tensor<2x2x8x64xf32>, %k: tensor<2x2x8x64xf32>, %v: tensor<2x2x8x64xf32>, %keep: tensor<8x8xi1>) -> tensor<2x2x8x64xf32> {
  %kt = tcc_graph.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<2x2x8x64xf32>) -> tensor<2x2x64x8xf32>
  %s = tcc_graph.matmul %q, %kt : (tensor<2x2x8x64xf32>, tensor<2x2x64x8xf32>) -> tensor<2x2x8x8xf32>
  %c = tcc_graph.constant dense<1.250000e-01> : tensor<f32>
  %ss = tcc_graph.mul %s, %c : (tensor<2x2x8x8xf32>, tensor<f32>) -> tensor<2x2x8x8xf32>
  %no = tcc_graph.constant dense<false> : tensor<i1>
  %drop = tcc_graph.compare %keep, %no {predicate = "eq"} : (tensor<8x8xi1>, tensor<i1>) -> tensor<8x8xi1>
  %ninf = tcc_graph.constant dense<0xFF800000> : tensor<f32>
  %m = tcc_graph.select %drop, %ninf, %ss : (tensor<8x8xi1>, tensor<f32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
  %p = tcc_graph.softmax %m {dim = 3 : i64} : (tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
  %o = tcc_graph.matmul %p, %v : (tensor<2x2x8x8xf32>, tensor<2x2x8x64xf32>) -> tensor<2x2x8x64xf32>
  return %o : tensor<2x2x8x64xf32>
}
// -----

// torchvision's shifted-window attention: the query scaled by a constant
// (folded into the kernel's scale: 0.25 · 0.5), the relative-position bias
// [1, H, N, N] added, then a mask per window added through a 5-D view
// [B, P, H, N, N] of the scores. Both masks become one 5-D sum, which the
// kernel reads with the batch split as [B, P]; no score matrix is left.
// CHECK-LABEL: func @shifted_window
// CHECK:     %[[B5:.*]] = tcc_graph.reshape %arg3 : (tensor<1x2x16x16xf32>) -> tensor<1x1x2x16x16xf32>
// CHECK:     %[[M5:.*]] = tcc_graph.add %arg4, %[[B5]] : (tensor<1x4x1x16x16xf32>, tensor<1x1x2x16x16xf32>) -> tensor<1x4x2x16x16xf32>
// CHECK:     tcc_kernel.attention ins(%arg0, %arg1, %arg2 : tensor<8x2x16x16xf32>, tensor<8x2x16x16xf32>, tensor<8x2x16x16xf32>) mask(%[[M5]] : tensor<1x4x2x16x16xf32>) outs(%{{.*}} : tensor<8x2x16x16xf32>) {scale = 1.250000e-01 : f64}
// CHECK-NOT: tcc_graph.softmax
// CHECK-NOT: tcc_graph.matmul
// CHECK-NOT: tcc_graph.mul
// CHECK-NOT: tcc_graph.broadcast
func.func @shifted_window(%q: tensor<8x2x16x16xf32>, %k: tensor<8x2x16x16xf32>, %v: tensor<8x2x16x16xf32>, %bias: tensor<1x2x16x16xf32>, %mask: tensor<1x4x1x16x16xf32>) -> tensor<8x2x16x16xf32> {
  %c = tcc_graph.constant dense<2.500000e-01> : tensor<f32>
  %qs = tcc_graph.mul %q, %c : (tensor<8x2x16x16xf32>, tensor<f32>) -> tensor<8x2x16x16xf32>
  %kt = tcc_graph.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<8x2x16x16xf32>) -> tensor<8x2x16x16xf32>
  %s = tcc_graph.matmul %qs, %kt : (tensor<8x2x16x16xf32>, tensor<8x2x16x16xf32>) -> tensor<8x2x16x16xf32>
  %h = tcc_graph.constant dense<5.000000e-01> : tensor<f32>
  %sh = tcc_graph.mul %s, %h : (tensor<8x2x16x16xf32>, tensor<f32>) -> tensor<8x2x16x16xf32>
  %sb = tcc_graph.add %sh, %bias : (tensor<8x2x16x16xf32>, tensor<1x2x16x16xf32>) -> tensor<8x2x16x16xf32>
  %s5 = tcc_graph.reshape %sb : (tensor<8x2x16x16xf32>) -> tensor<2x4x2x16x16xf32>
  %sm = tcc_graph.add %s5, %mask : (tensor<2x4x2x16x16xf32>, tensor<1x4x1x16x16xf32>) -> tensor<2x4x2x16x16xf32>
  %s4 = tcc_graph.reshape %sm : (tensor<2x4x2x16x16xf32>) -> tensor<8x2x16x16xf32>
  %p = tcc_graph.softmax %s4 {dim = 3 : i64} : (tensor<8x2x16x16xf32>) -> tensor<8x2x16x16xf32>
  %o = tcc_graph.matmul %p, %v : (tensor<8x2x16x16xf32>, tensor<8x2x16x16xf32>) -> tensor<8x2x16x16xf32>
  return %o : tensor<8x2x16x16xf32>
}

// -----

// GPT-2's heads: slices of the packed q|k|v projection, split into heads and
// transposed. The kernel reads the three views of the projection and writes
// [B, L, H·D] itself: no slice, transpose or copy is left.
// CHECK-LABEL: func @packed_projection_views
// CHECK:     %[[E:.*]] = tensor.empty() : tensor<2x16x128xf32>
// CHECK:     %[[O:.*]] = tcc_kernel.attention ins(%arg0, %arg0, %arg0 : tensor<2x16x384xf32>, tensor<2x16x384xf32>, tensor<2x16x384xf32>) outs(%[[E]] : tensor<2x16x128xf32>) {causal, scale = 1.250000e-01 : f64, views = [{offset = 0 : i64, sizes = array<i64: 2, 2, 16, 64>, strides = array<i64: 6144, 64, 384, 1>}, {offset = 128 : i64, sizes = array<i64: 2, 2, 16, 64>, strides = array<i64: 6144, 64, 384, 1>}, {offset = 256 : i64, sizes = array<i64: 2, 2, 16, 64>, strides = array<i64: 6144, 64, 384, 1>}, {offset = 0 : i64, sizes = array<i64: 2, 2, 16, 64>, strides = array<i64: 2048, 64, 128, 1>}]}
// CHECK:     return %[[O]]
// CHECK-NOT: tcc_graph.
func.func @packed_projection_views(%qkv: tensor<2x16x384xf32>) -> tensor<2x16x128xf32> {
  %q0 = tcc_graph.slice %qkv {dim = 2 : i64, end = 128 : i64, start = 0 : i64, step = 1 : i64} : (tensor<2x16x384xf32>) -> tensor<2x16x128xf32>
  %k0 = tcc_graph.slice %qkv {dim = 2 : i64, end = 256 : i64, start = 128 : i64, step = 1 : i64} : (tensor<2x16x384xf32>) -> tensor<2x16x128xf32>
  %v0 = tcc_graph.slice %qkv {dim = 2 : i64, end = 384 : i64, start = 256 : i64, step = 1 : i64} : (tensor<2x16x384xf32>) -> tensor<2x16x128xf32>
  %q1 = tcc_graph.reshape %q0 : (tensor<2x16x128xf32>) -> tensor<2x16x2x64xf32>
  %k1 = tcc_graph.reshape %k0 : (tensor<2x16x128xf32>) -> tensor<2x16x2x64xf32>
  %v1 = tcc_graph.reshape %v0 : (tensor<2x16x128xf32>) -> tensor<2x16x2x64xf32>
  %q = tcc_graph.transpose %q1 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x16x2x64xf32>) -> tensor<2x2x16x64xf32>
  %k = tcc_graph.transpose %k1 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x16x2x64xf32>) -> tensor<2x2x16x64xf32>
  %v = tcc_graph.transpose %v1 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x16x2x64xf32>) -> tensor<2x2x16x64xf32>
  %o = tcc_graph.attention %q, %k, %v {causal, scale = 0.125 : f64} : (tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32>) -> tensor<2x2x16x64xf32>
  %ot = tcc_graph.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x2x16x64xf32>) -> tensor<2x16x2x64xf32>
  %r = tcc_graph.reshape %ot : (tensor<2x16x2x64xf32>) -> tensor<2x16x128xf32>
  return %r : tensor<2x16x128xf32>
}

// -----

// torchvision's MultiheadAttention takes [L, B, E]: the input transpose and
// the projection's bias move past the product (rows commute with it), so the
// GEMM reads [B, L, E] and the attention reads views of its [B, L, 3E] result.
// CHECK-LABEL: func @sequence_first_projection
// CHECK:     %[[P:.*]] = tcc_kernel.gemm ins(%arg0, %arg1 : tensor<2x16x128xf32>, tensor<128x384xf32>) bias(%arg2 : tensor<384xf32>) outs(%{{.*}} : tensor<2x16x384xf32>)
// CHECK:     tcc_kernel.attention ins(%[[P]], %[[P]], %[[P]] : tensor<2x16x384xf32>, tensor<2x16x384xf32>, tensor<2x16x384xf32>)
// CHECK-NOT: tcc_graph.transpose
func.func @sequence_first_projection(%x: tensor<2x16x128xf32>, %w: tensor<128x384xf32>, %b: tensor<384xf32>) -> tensor<2x2x16x64xf32> {
  %xt = tcc_graph.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<2x16x128xf32>) -> tensor<16x2x128xf32>
  %p = tcc_graph.matmul %xt, %w : (tensor<16x2x128xf32>, tensor<128x384xf32>) -> tensor<16x2x384xf32>
  %pb = tcc_graph.add %p, %b : (tensor<16x2x384xf32>, tensor<384xf32>) -> tensor<16x2x384xf32>
  %s = tcc_graph.reshape %pb : (tensor<16x2x384xf32>) -> tensor<16x2x3x2x64xf32>
  %q0 = tcc_graph.slice %s {dim = 2 : i64, end = 1 : i64, start = 0 : i64, step = 1 : i64} : (tensor<16x2x3x2x64xf32>) -> tensor<16x2x1x2x64xf32>
  %k0 = tcc_graph.slice %s {dim = 2 : i64, end = 2 : i64, start = 1 : i64, step = 1 : i64} : (tensor<16x2x3x2x64xf32>) -> tensor<16x2x1x2x64xf32>
  %v0 = tcc_graph.slice %s {dim = 2 : i64, end = 3 : i64, start = 2 : i64, step = 1 : i64} : (tensor<16x2x3x2x64xf32>) -> tensor<16x2x1x2x64xf32>
  %q1 = tcc_graph.reshape %q0 : (tensor<16x2x1x2x64xf32>) -> tensor<16x2x2x64xf32>
  %k1 = tcc_graph.reshape %k0 : (tensor<16x2x1x2x64xf32>) -> tensor<16x2x2x64xf32>
  %v1 = tcc_graph.reshape %v0 : (tensor<16x2x1x2x64xf32>) -> tensor<16x2x2x64xf32>
  %q = tcc_graph.transpose %q1 {permutation = array<i64: 1, 2, 0, 3>} : (tensor<16x2x2x64xf32>) -> tensor<2x2x16x64xf32>
  %k = tcc_graph.transpose %k1 {permutation = array<i64: 1, 2, 0, 3>} : (tensor<16x2x2x64xf32>) -> tensor<2x2x16x64xf32>
  %v = tcc_graph.transpose %v1 {permutation = array<i64: 1, 2, 0, 3>} : (tensor<16x2x2x64xf32>) -> tensor<2x2x16x64xf32>
  %o = tcc_graph.attention %q, %k, %v {scale = 0.125 : f64} : (tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32>) -> tensor<2x2x16x64xf32>
  return %o : tensor<2x2x16x64xf32>
}

// -----

// Attention written out with a causal mask it builds from positions
// (masked_fill(j > i, -inf)): raised, then the mask known at compile time
// is the kernel's causal flag, no mask read (its ops are dead: the
// pipeline's canonicalizer removes them).
// CHECK-LABEL: func @written_out_causal
// CHECK:     tcc_kernel.attention ins(%arg0, %arg1, %arg2 : tensor<2x2x8x64xf32>, tensor<2x2x8x64xf32>, tensor<2x2x8x64xf32>) outs(%{{.*}} : tensor<2x2x8x64xf32>) {causal, scale = 1.250000e-01 : f64}
func.func @written_out_causal(%q: tensor<2x2x8x64xf32>, %k: tensor<2x2x8x64xf32>, %v: tensor<2x2x8x64xf32>) -> tensor<2x2x8x64xf32> {
  %kt = tcc_graph.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<2x2x8x64xf32>) -> tensor<2x2x64x8xf32>
  %s = tcc_graph.matmul %q, %kt : (tensor<2x2x8x64xf32>, tensor<2x2x64x8xf32>) -> tensor<2x2x8x8xf32>
  %c = tcc_graph.constant dense<1.250000e-01> : tensor<f32>
  %ss = tcc_graph.mul %s, %c : (tensor<2x2x8x8xf32>, tensor<f32>) -> tensor<2x2x8x8xf32>
  %i = tcc_graph.iota {start = 0.0 : f64, step = 1.0 : f64} : tensor<8xi64>
  %r = tcc_graph.reshape %i : (tensor<8xi64>) -> tensor<8x1xi64>
  %drop = tcc_graph.compare %i, %r {predicate = "gt"} : (tensor<8xi64>, tensor<8x1xi64>) -> tensor<8x8xi1>
  %ninf = tcc_graph.constant dense<0xFF800000> : tensor<f32>
  %m = tcc_graph.select %drop, %ninf, %ss : (tensor<8x8xi1>, tensor<f32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
  %p = tcc_graph.softmax %m {dim = 3 : i64} : (tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
  %o = tcc_graph.matmul %p, %v : (tensor<2x2x8x8xf32>, tensor<2x2x8x64xf32>) -> tensor<2x2x8x64xf32>
  return %o : tensor<2x2x8x64xf32>
}
