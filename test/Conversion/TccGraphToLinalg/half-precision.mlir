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
// CHECK:         linalg.reduce
// CHECK:           arith.addf %{{.*}} : f32
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
// CHECK:         linalg.reduce
// CHECK:           arith.maximumf %{{.*}} : bf16
func.func @sum_bf16(%x: tensor<4x1024xbf16>) -> (tensor<4xbf16>, tensor<4xbf16>) {
  %0 = tcc_graph.reduce_sum %x {dims = array<i64: 1>, keepdim = false} : (tensor<4x1024xbf16>) -> tensor<4xbf16>
  %1 = tcc_graph.reduce_max %x {dims = array<i64: 1>, keepdim = false} : (tensor<4x1024xbf16>) -> tensor<4xbf16>
  return %0, %1 : tensor<4xbf16>, tensor<4xbf16>
}
