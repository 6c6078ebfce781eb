// RUN: tcc-opt %s -convert-tcc-graph-to-linalg -split-input-file | FileCheck %s

// An f16 matmul accumulates in f32, as PyTorch's does: the contraction widens
// each operand inside its body into an f32 accumulator, and one truncf rounds
// the result.
// CHECK-LABEL: func.func @matmul_f16
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x5xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%arg0, %arg1 : tensor<4x8xf16>, tensor<8x5xf16>) outs(%{{.*}} : tensor<4x5xf32>)
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:           arith.mulf %{{.*}} : f32
// CHECK:           arith.addf %{{.*}} : f32
// CHECK:         linalg.generic
// CHECK:           arith.truncf %{{.*}} : f32 to f16
func.func @matmul_f16(%a: tensor<4x8xf16>, %b: tensor<8x5xf16>) -> tensor<4x5xf16> {
  %0 = tcc_graph.matmul %a, %b : (tensor<4x8xf16>, tensor<8x5xf16>) -> tensor<4x5xf16>
  return %0 : tensor<4x5xf16>
}

// -----

// A bf16 sum widens its input to f32, reduces in f32 and rounds once; a max
// stays in bf16 (it is exact).
// CHECK-LABEL: func.func @sum_bf16
// CHECK:         arith.extf %{{.*}} : bf16 to f32
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:           arith.addf %{{.*}} : f32
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:           arith.maximumf %{{.*}} : bf16
func.func @sum_bf16(%x: tensor<4x1024xbf16>) -> (tensor<4xbf16>, tensor<4xbf16>) {
  %0 = tcc_graph.reduce_sum %x {dims = array<i64: 1>, keepdim = false} : (tensor<4x1024xbf16>) -> tensor<4xbf16>
  %1 = tcc_graph.reduce_max %x {dims = array<i64: 1>, keepdim = false} : (tensor<4x1024xbf16>) -> tensor<4xbf16>
  return %0, %1 : tensor<4xbf16>, tensor<4xbf16>
}

// -----

// An f16 convolution accumulates in f32, as PyTorch's does: the bias is
// widened into an f32 accumulator, the named op multiplies the f16 operands
// widened to its f32 output, and one truncf rounds the result.
// CHECK-LABEL: func.func @conv2d_f16
// CHECK:         %[[INIT:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<8xf16>) outs(%{{.*}} : tensor<1x8x4x4xf32>)
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:         %[[CONV:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%arg0, %arg1 : tensor<1x4x6x6xf16>, tensor<8x4x3x3xf16>) outs(%[[INIT]] : tensor<1x8x4x4xf32>)
// CHECK:         %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[CONV]] : tensor<1x8x4x4xf32>) outs(%{{.*}} : tensor<1x8x4x4xf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK:         return %[[OUT]]
func.func @conv2d_f16(%x: tensor<1x4x6x6xf16>, %w: tensor<8x4x3x3xf16>, %b: tensor<8xf16>) -> tensor<1x8x4x4xf16> {
  %0 = tcc_graph.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x6x6xf16>, tensor<8x4x3x3xf16>, tensor<8xf16>) -> tensor<1x8x4x4xf16>
  return %0 : tensor<1x8x4x4xf16>
}

// -----

// Grouped bf16 without bias: zeros in f32, the grouped op into f32, rounded once.
// CHECK-LABEL: func.func @conv2d_grouped_bf16
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x8x4x4xf32>)
// CHECK:         linalg.conv_2d_ngchw_gfchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x2x6x6xbf16>, tensor<2x4x2x3x3xbf16>) outs(%{{.*}} : tensor<1x2x4x4x4xf32>)
// CHECK:         tensor.collapse_shape %{{.*}} : tensor<1x2x4x4x4xf32> into tensor<1x8x4x4xf32>
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
func.func @conv2d_grouped_bf16(%x: tensor<1x4x6x6xbf16>, %w: tensor<8x2x3x3xbf16>) -> tensor<1x8x4x4xbf16> {
  %0 = tcc_graph.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x6x6xbf16>, tensor<8x2x3x3xbf16>) -> tensor<1x8x4x4xbf16>
  return %0 : tensor<1x8x4x4xbf16>
}

// -----

// A bf16 average pool sums its windows into f32 (the named pooling op widens
// each element), divides in f32 and rounds once, as PyTorch's kernels do: a
// bf16 sum lost a bit per term (0.109 for 0.164 over a 3x3 window, the
// sweep's bf16 column).
// CHECK-LABEL: func.func @avg_pool2d_bf16
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x3x4x4xf32>)
// CHECK:         linalg.pooling_nchw_sum {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x3x9x9xbf16>, tensor<3x3xbf16>) outs(%{{.*}} : tensor<1x3x4x4xf32>)
// CHECK:         linalg.generic
// CHECK:           arith.sitofp %{{.*}} : i64 to f32
// CHECK:           arith.divf %{{.*}} : f32
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
func.func @avg_pool2d_bf16(%x: tensor<1x3x9x9xbf16>) -> tensor<1x3x4x4xbf16> {
  %0 = tcc_graph.avg_pool2d %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x9x9xbf16>) -> tensor<1x3x4x4xbf16>
  return %0 : tensor<1x3x4x4xbf16>
}
