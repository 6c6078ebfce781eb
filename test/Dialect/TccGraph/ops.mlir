// RUN: tcc-opt %s | tcc-opt | FileCheck %s
// Round trip of every tcc_graph op.

// CHECK-LABEL: func @elementwise
func.func @elementwise(%a: tensor<4x12xf32>, %b: tensor<12xf32>) -> tensor<4x12xf32> {
  // CHECK: tcc_graph.constant dense<2.000000e+00> : tensor<f32>
  %c = tcc_graph.constant dense<2.0> : tensor<f32>
  // CHECK: tcc_graph.add %{{.*}}, %{{.*}} : (tensor<4x12xf32>, tensor<12xf32>) -> tensor<4x12xf32>
  %0 = tcc_graph.add %a, %b : (tensor<4x12xf32>, tensor<12xf32>) -> tensor<4x12xf32>
  // CHECK: tcc_graph.mul
  %1 = tcc_graph.mul %0, %c : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32>
  // CHECK: tcc_graph.sin %{{.*}} : tensor<4x12xf32>
  %2 = tcc_graph.sin %1 : tensor<4x12xf32>
  %3 = tcc_graph.relu %2 : tensor<4x12xf32>
  return %3 : tensor<4x12xf32>
}

// CHECK-LABEL: func @structured
func.func @structured(%x: tensor<?x3x16x16xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  // CHECK: tcc_graph.conv2d %{{.*}}, %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>}
  %0 = tcc_graph.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<?x3x16x16xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<?x8x16x16xf32>
  // CHECK: tcc_graph.max_pool2d
  %1 = tcc_graph.max_pool2d %0 {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<?x8x16x16xf32>) -> tensor<?x8x8x8xf32>
  // CHECK: tcc_graph.reduce_mean %{{.*}} {dims = array<i64: 2, 3>, keepdim = false}
  %2 = tcc_graph.reduce_mean %1 {dims = array<i64: 2, 3>, keepdim = false} : (tensor<?x8x8x8xf32>) -> tensor<?x8xf32>
  return %2 : tensor<?x8xf32>
}

// CHECK-LABEL: func @data_movement
func.func @data_movement(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<8x2xf32> {
  // CHECK: tcc_graph.concat %{{.*}}, %{{.*}} {dim = 1 : i64}
  %0 = tcc_graph.concat %a, %b {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  // CHECK: tcc_graph.transpose %{{.*}} {permutation = array<i64: 1, 0>}
  %1 = tcc_graph.transpose %0 {permutation = array<i64: 1, 0>} : (tensor<2x8xf32>) -> tensor<8x2xf32>
  // CHECK: tcc_graph.reshape
  %2 = tcc_graph.reshape %1 : (tensor<8x2xf32>) -> tensor<16xf32>
  %3 = tcc_graph.reshape %2 : (tensor<16xf32>) -> tensor<8x2xf32>
  return %3 : tensor<8x2xf32>
}

// CHECK-LABEL: func @generic_operator
func.func @generic_operator(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: tcc_graph.operator "torch.ops.aten.relu.default"(%{{.*}}) {args = {}, operand_names = ["self"]}
  %0 = tcc_graph.operator "torch.ops.aten.relu.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func @special_function
func.func @special_function(%x: tensor<2x4xf32>, %n: tensor<4xf32>) -> tensor<2x4xf32> {
  // CHECK: tcc_graph.special_function "chebyshev_polynomial_t"(%{{.*}}, %{{.*}}) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %0 = tcc_graph.special_function "chebyshev_polynomial_t"(%x, %n) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// CHECK-LABEL: func @check
func.func @check(%ok: tensor<2x1x1xi1>, %x: tensor<2x5x5xf32>) -> tensor<2x5x5xf32> {
  // CHECK: tcc_graph.check %{{.*}}, %{{.*}} "linalg.inv: singular" : (tensor<2x1x1xi1>, tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
  %0 = tcc_graph.check %ok, %x "linalg.inv: singular" : (tensor<2x1x1xi1>, tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
  return %0 : tensor<2x5x5xf32>
}

// CHECK-LABEL: func @index_copy
// CHECK: tcc_graph.index_copy %{{.*}}[%{{.*}}], %{{.*}} {dim = 2 : i64, message = "out of range"} : (tensor<1x4x64x8xbf16>, tensor<?xi64>, tensor<1x4x?x8xbf16>) -> tensor<1x4x64x8xbf16>
func.func @index_copy(%c: tensor<1x4x64x8xbf16>, %p: tensor<?xi64>, %s: tensor<1x4x?x8xbf16>) -> tensor<1x4x64x8xbf16> {
  %0 = tcc_graph.index_copy %c[%p], %s {dim = 2 : i64, message = "out of range"} : (tensor<1x4x64x8xbf16>, tensor<?xi64>, tensor<1x4x?x8xbf16>) -> tensor<1x4x64x8xbf16>
  return %0 : tensor<1x4x64x8xbf16>
}

// CHECK-LABEL: func @rnn
// CHECK: tcc_graph.rnn %{{.*}} h0 %{{.*}} c0 %{{.*}} weights %{{.*}}, %{{.*}} {batch_first, mode = "lstm", num_layers = 1 : i64} : (tensor<2x?x4xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<32x4xf32>, tensor<32x8xf32>) -> (tensor<2x?x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>)
func.func @rnn(%x: tensor<2x?x4xf32>, %h0: tensor<1x2x8xf32>, %c0: tensor<1x2x8xf32>, %w: tensor<32x4xf32>, %u: tensor<32x8xf32>) -> tensor<2x?x8xf32> {
  %r:3 = tcc_graph.rnn %x h0 %h0 c0 %c0 weights %w, %u {batch_first, mode = "lstm", num_layers = 1 : i64} : (tensor<2x?x4xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<32x4xf32>, tensor<32x8xf32>) -> (tensor<2x?x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>)
  return %r#0 : tensor<2x?x8xf32>
}

// CHECK-LABEL: func @quantization
// CHECK: tcc_graph.quantize %{{.*}}, %{{.*}}, %{{.*}} {quant_max = 255 : i64, quant_min = 0 : i64} : (tensor<2x8xf32>, tensor<f64>, tensor<i64>) -> tensor<2x8xui8>
// CHECK: tcc_graph.dequantize %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i64, quant_max = 127 : i64, quant_min = -128 : i64} : (tensor<4x8xi8>, tensor<4xf32>, tensor<4xi64>) -> tensor<4x8xf32>
func.func @quantization(%x: tensor<2x8xf32>, %s: tensor<f64>, %z: tensor<i64>, %w: tensor<4x8xi8>, %ws: tensor<4xf32>, %wz: tensor<4xi64>) -> (tensor<2x8xui8>, tensor<4x8xf32>) {
  %q = tcc_graph.quantize %x, %s, %z {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<2x8xf32>, tensor<f64>, tensor<i64>) -> tensor<2x8xui8>
  %d = tcc_graph.dequantize %w, %ws, %wz {axis = 0 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : (tensor<4x8xi8>, tensor<4xf32>, tensor<4xi64>) -> tensor<4x8xf32>
  return %q, %d : tensor<2x8xui8>, tensor<4x8xf32>
}
