// RUN: tcc-opt %s -tcc-decompose-graph -split-input-file | FileCheck %s

// A softmax over a leading dim: max, shift, exp, sum, divide.
// CHECK-LABEL: func @softmax_dim0
// CHECK: %[[MAX:.*]] = tcc_graph.reduce_max %arg0 {dims = array<i64: 0>, keepdim = true}
// CHECK: %[[SUB:.*]] = tcc_graph.sub %arg0, %[[MAX]]
// CHECK: %[[EXP:.*]] = tcc_graph.exp %[[SUB]]
// CHECK: %[[SUM:.*]] = tcc_graph.reduce_sum %[[EXP]] {dims = array<i64: 0>, keepdim = true}
// CHECK: tcc_graph.div %[[EXP]], %[[SUM]]
// CHECK-NOT: tcc_graph.softmax
func.func @softmax_dim0(%x: tensor<4x12xf32>) -> tensor<4x12xf32> {
  %0 = tcc_graph.softmax %x {dim = 0 : i64} : (tensor<4x12xf32>) -> tensor<4x12xf32>
  return %0 : tensor<4x12xf32>
}

// -----

// bf16 is normalized in f32 and rounded once.
// CHECK-LABEL: func @layer_norm_bf16
// CHECK: %[[X:.*]] = tcc_graph.cast %arg0 : (tensor<2x8xbf16>) -> tensor<2x8xf32>
// CHECK: tcc_graph.reduce_mean %[[X]] {dims = array<i64: 1>, keepdim = true}
// CHECK: tcc_graph.rsqrt
// CHECK: tcc_graph.cast %arg1 : (tensor<8xbf16>) -> tensor<8xf32>
// CHECK: tcc_graph.cast %arg2 : (tensor<8xbf16>) -> tensor<8xf32>
// CHECK: tcc_graph.cast %{{.*}} : (tensor<2x8xf32>) -> tensor<2x8xbf16>
func.func @layer_norm_bf16(%x: tensor<2x8xbf16>, %w: tensor<8xbf16>, %b: tensor<8xbf16>) -> tensor<2x8xbf16> {
  %0 = tcc_graph.layer_norm %x, weight %w, bias %b {eps = 1.0e-5 : f64, num_dims = 1 : i64} : (tensor<2x8xbf16>, tensor<8xbf16>, tensor<8xbf16>) -> tensor<2x8xbf16>
  return %0 : tensor<2x8xbf16>
}

// -----

// rms_norm rounds the normalized value to the input's type before the weight.
// CHECK-LABEL: func @rms_norm_bf16
// CHECK: tcc_graph.rsqrt
// CHECK: %[[N:.*]] = tcc_graph.cast %{{.*}} : (tensor<2x8xf32>) -> tensor<2x8xbf16>
// CHECK: tcc_graph.mul %[[N]], %arg1 : (tensor<2x8xbf16>, tensor<8xbf16>) -> tensor<2x8xbf16>
func.func @rms_norm_bf16(%x: tensor<2x8xbf16>, %w: tensor<8xbf16>) -> tensor<2x8xbf16> {
  %0 = tcc_graph.rms_norm %x, %w {eps = 1.0e-6 : f64, num_dims = 1 : i64} : (tensor<2x8xbf16>, tensor<8xbf16>) -> tensor<2x8xbf16>
  return %0 : tensor<2x8xbf16>
}

// -----

// Attention: q·kᵀ, the scale, the causal mask (iota rows/cols compared), a
// softmax that gives 0 to a query keeping no key (the max of an all -inf row
// is replaced by 0, a zero sum by 1), ·v.
// CHECK-LABEL: func @attention_causal
// CHECK: %[[KT:.*]] = tcc_graph.transpose %arg1 {permutation = array<i64: 0, 1, 3, 2>}
// CHECK: %[[S:.*]] = tcc_graph.matmul %arg0, %[[KT]] : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
// CHECK: tcc_graph.mul %[[S]], %{{.*}} : (tensor<2x4x6x6xf32>, tensor<f32>)
// CHECK: %[[CAUSAL:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "le"} : (tensor<6xi64>, tensor<6x1xi64>) -> tensor<6x6xi1>
// CHECK: tcc_graph.select %[[CAUSAL]]
// CHECK: %[[MAX:.*]] = tcc_graph.reduce_max
// CHECK: %[[ALLMASKED:.*]] = tcc_graph.compare %[[MAX]], %{{.*}} {predicate = "eq"}
// CHECK: tcc_graph.select %[[ALLMASKED]]
// CHECK: tcc_graph.exp
// CHECK: %[[SUM:.*]] = tcc_graph.reduce_sum
// CHECK: %[[EMPTY:.*]] = tcc_graph.compare %[[SUM]], %{{.*}} {predicate = "eq"}
// CHECK: tcc_graph.select %[[EMPTY]]
// CHECK: tcc_graph.matmul %{{.*}}, %arg2 : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
func.func @attention_causal(%q: tensor<2x4x6x8xf32>, %k: tensor<2x4x6x8xf32>, %v: tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32> {
  %0 = tcc_graph.attention %q, %k, %v {causal, scale = 0.35355339059327373 : f64} : (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  return %0 : tensor<2x4x6x8xf32>
}

// -----

// Grouped-query heads: 4 query heads over 2 key/value heads become groups
// that the matrix products broadcast over.
// CHECK-LABEL: func @attention_gqa
// CHECK: tcc_graph.reshape %arg0 : (tensor<1x4x6x8xf32>) -> tensor<1x2x2x6x8xf32>
// CHECK: tcc_graph.reshape %arg1 : (tensor<1x2x6x8xf32>) -> tensor<1x2x1x6x8xf32>
// CHECK: tcc_graph.matmul {{.*}} -> tensor<1x2x2x6x6xf32>
// CHECK: tcc_graph.reshape {{.*}} : (tensor<1x2x2x6x8xf32>) -> tensor<1x4x6x8xf32>
func.func @attention_gqa(%q: tensor<1x4x6x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>) -> tensor<1x4x6x8xf32> {
  %0 = tcc_graph.attention %q, %k, %v {scale = 0.35355339059327373 : f64} : (tensor<1x4x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x4x6x8xf32>
  return %0 : tensor<1x4x6x8xf32>
}

// -----

// A bf16 attention the kernels do not take (rank 3) decomposes in f32: both
// products and the softmax, the result rounded once (rounding the scores and
// probabilities put it 5 ulps from PyTorch's, whose kernels compute in f32).
// CHECK-LABEL: func @attention_bf16_rank3
// CHECK: %[[Q:.*]] = tcc_graph.cast %arg0 : (tensor<4x3x8xbf16>) -> tensor<4x3x8xf32>
// CHECK: %[[K:.*]] = tcc_graph.cast %arg1 : (tensor<4x6x8xbf16>) -> tensor<4x6x8xf32>
// CHECK: %[[V:.*]] = tcc_graph.cast %arg2 : (tensor<4x6x8xbf16>) -> tensor<4x6x8xf32>
// CHECK: tcc_graph.matmul %[[Q]], %{{.*}} : (tensor<4x3x8xf32>, tensor<4x8x6xf32>) -> tensor<4x3x6xf32>
// CHECK-NOT: bf16
// CHECK: %[[O:.*]] = tcc_graph.matmul %{{.*}}, %[[V]] : (tensor<4x3x6xf32>, tensor<4x6x8xf32>) -> tensor<4x3x8xf32>
// CHECK: %[[R:.*]] = tcc_graph.cast %[[O]] : (tensor<4x3x8xf32>) -> tensor<4x3x8xbf16>
// CHECK: return %[[R]]
func.func @attention_bf16_rank3(%q: tensor<4x3x8xbf16>, %k: tensor<4x6x8xbf16>, %v: tensor<4x6x8xbf16>) -> tensor<4x3x8xbf16> {
  %0 = tcc_graph.attention %q, %k, %v {causal, scale = 0.35355339059327373 : f64} : (tensor<4x3x8xbf16>, tensor<4x6x8xbf16>, tensor<4x6x8xbf16>) -> tensor<4x3x8xbf16>
  return %0 : tensor<4x3x8xbf16>
}

// -----

// Quantize per tensor: x * f32(1 / f64(scale)), round half to even, add the
// zero point, clamp to the range, convert (quantized_decomposed's order;
// through i32, which vectorizes).
// CHECK-LABEL: func @quantize_per_tensor
// CHECK: %[[ONE:.*]] = tcc_graph.constant dense<1.000000e+00> : tensor<f64>
// CHECK: %[[INV:.*]] = tcc_graph.div %[[ONE]], %arg1
// CHECK: %[[INVF:.*]] = tcc_graph.cast %[[INV]] : (tensor<f64>) -> tensor<f32>
// CHECK: %[[ZP:.*]] = tcc_graph.cast %arg2 : (tensor<i64>) -> tensor<f32>
// CHECK: %[[M:.*]] = tcc_graph.mul %arg0, %[[INVF]]
// CHECK: %[[R:.*]] = tcc_graph.round %[[M]]
// CHECK: %[[A:.*]] = tcc_graph.add %[[R]], %[[ZP]]
// CHECK: %[[LO:.*]] = tcc_graph.constant dense<-1.280000e+02> : tensor<f32>
// CHECK: %[[HI:.*]] = tcc_graph.constant dense<1.270000e+02> : tensor<f32>
// CHECK: %[[C0:.*]] = tcc_graph.maximum %[[A]], %[[LO]]
// CHECK: %[[C1:.*]] = tcc_graph.minimum %[[C0]], %[[HI]]
// CHECK: %[[W:.*]] = tcc_graph.cast %[[C1]] : (tensor<2x3xf32>) -> tensor<2x3xi32>
// CHECK: tcc_graph.cast %[[W]] : (tensor<2x3xi32>) -> tensor<2x3xi8>
func.func @quantize_per_tensor(%x: tensor<2x3xf32>, %s: tensor<f64>, %z: tensor<i64>) -> tensor<2x3xi8> {
  %0 = tcc_graph.quantize %x, %s, %z {quant_min = -128 : i64, quant_max = 127 : i64} : (tensor<2x3xf32>, tensor<f64>, tensor<i64>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

// Dequantize per channel: (q - zp) in i64 (exact, as PyTorch), converted
// to the scales' type and scaled; the parameters broadcast along axis 0.
// CHECK-LABEL: func @dequantize_per_channel
// CHECK: %[[Q:.*]] = tcc_graph.cast %arg0 : (tensor<8x3xi8>) -> tensor<8x3xi64>
// CHECK: %[[ZP:.*]] = tcc_graph.reshape %arg2 : (tensor<8xi64>) -> tensor<8x1xi64>
// CHECK: %[[D:.*]] = tcc_graph.sub %[[Q]], %[[ZP]] : (tensor<8x3xi64>, tensor<8x1xi64>) -> tensor<8x3xi64>
// CHECK: %[[DF:.*]] = tcc_graph.cast %[[D]] : (tensor<8x3xi64>) -> tensor<8x3xf32>
// CHECK: %[[S:.*]] = tcc_graph.reshape %arg1 : (tensor<8xf32>) -> tensor<8x1xf32>
// CHECK: tcc_graph.mul %[[DF]], %[[S]] : (tensor<8x3xf32>, tensor<8x1xf32>) -> tensor<8x3xf32>
func.func @dequantize_per_channel(%q: tensor<8x3xi8>, %s: tensor<8xf32>, %z: tensor<8xi64>) -> tensor<8x3xf32> {
  %0 = tcc_graph.dequantize %q, %s, %z {axis = 0 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : (tensor<8x3xi8>, tensor<8xf32>, tensor<8xi64>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

// A constant scale and zero point (PT2E's Python numbers) fold at compile
// time in the same arithmetic: f32(1 / 0.1) is 10, no division in the loop.
// CHECK-LABEL: func @quantize_constant_scale
// CHECK-NOT: tcc_graph.div
// CHECK: %[[INV:.*]] = tcc_graph.constant dense<1.000000e+01> : tensor<f32>
// CHECK: %[[ZP:.*]] = tcc_graph.constant dense<1.280000e+02> : tensor<f32>
// CHECK: tcc_graph.mul %arg0, %[[INV]]
func.func @quantize_constant_scale(%x: tensor<4xf32>) -> tensor<4xui8> {
  %s = tcc_graph.constant dense<0.1> : tensor<f64>
  %z = tcc_graph.constant dense<128> : tensor<i64>
  %0 = tcc_graph.quantize %x, %s, %z {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<4xf32>, tensor<f64>, tensor<i64>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}
