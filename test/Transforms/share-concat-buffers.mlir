// RUN: tcc-opt %s --pass-pipeline="builtin.module(func.func(tcc-share-concat-buffers))" -split-input-file | FileCheck %s

// DenseNet's pattern: cat(x0, y1), then cat(x0, y1, y2) with y2 computed from
// the first. One [2, 16] buffer: x0 and y1 inserted once, the first
// concatenation its leading [2, 12] slice, y2 inserted after.
// CHECK-LABEL: func @dense
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x16x6x6xf32>
// CHECK: %[[A:.*]] = tensor.insert_slice %arg0 into %[[E]][0, 0, 0, 0] [2, 8, 6, 6]
// CHECK: %[[B:.*]] = tensor.insert_slice %{{.*}} into %[[A]][0, 8, 0, 0] [2, 4, 6, 6]
// CHECK: %[[C1:.*]] = tensor.extract_slice %[[B]][0, 0, 0, 0] [2, 12, 6, 6]
// CHECK: %[[Z:.*]] = math.exp %[[C1]]
// CHECK: %[[Y2:.*]] = tensor.extract_slice %[[Z]]
// CHECK: %[[C2:.*]] = tensor.insert_slice %[[Y2]] into %[[B]][0, 12, 0, 0] [2, 4, 6, 6]
// CHECK-NOT: tensor.empty
// CHECK: return %[[C2]]
func.func @dense(%x0: tensor<2x8x6x6xf32>, %w: tensor<4x8x6x6xf32>) -> tensor<2x16x6x6xf32> {
  %e0 = tensor.empty() : tensor<2x12x6x6xf32>
  %x1 = math.exp %x0 : tensor<2x8x6x6xf32>
  %y1 = tensor.extract_slice %x1[0, 0, 0, 0] [2, 4, 6, 6] [1, 1, 1, 1] : tensor<2x8x6x6xf32> to tensor<2x4x6x6xf32>
  %a0 = tensor.insert_slice %x0 into %e0[0, 0, 0, 0] [2, 8, 6, 6] [1, 1, 1, 1] : tensor<2x8x6x6xf32> into tensor<2x12x6x6xf32>
  %c1 = tensor.insert_slice %y1 into %a0[0, 8, 0, 0] [2, 4, 6, 6] [1, 1, 1, 1] : tensor<2x4x6x6xf32> into tensor<2x12x6x6xf32>
  %z = math.exp %c1 : tensor<2x12x6x6xf32>
  %y2 = tensor.extract_slice %z[0, 0, 0, 0] [2, 4, 6, 6] [1, 1, 1, 1] : tensor<2x12x6x6xf32> to tensor<2x4x6x6xf32>
  %e1 = tensor.empty() : tensor<2x16x6x6xf32>
  %b0 = tensor.insert_slice %x0 into %e1[0, 0, 0, 0] [2, 8, 6, 6] [1, 1, 1, 1] : tensor<2x8x6x6xf32> into tensor<2x16x6x6xf32>
  %b1 = tensor.insert_slice %y1 into %b0[0, 8, 0, 0] [2, 4, 6, 6] [1, 1, 1, 1] : tensor<2x4x6x6xf32> into tensor<2x16x6x6xf32>
  %c2 = tensor.insert_slice %y2 into %b1[0, 12, 0, 0] [2, 4, 6, 6] [1, 1, 1, 1] : tensor<2x4x6x6xf32> into tensor<2x16x6x6xf32>
  return %c2 : tensor<2x16x6x6xf32>
}

// -----

// Different inputs (not a prefix), or another dim: left alone.
// CHECK-LABEL: func @unrelated
// CHECK-COUNT-2: tensor.empty
func.func @unrelated(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %e0 = tensor.empty() : tensor<2x8xf32>
  %a = tensor.insert_slice %x into %e0[0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x8xf32>
  %c1 = tensor.insert_slice %y into %a[0, 4] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x8xf32>
  %e1 = tensor.empty() : tensor<2x8xf32>
  %b = tensor.insert_slice %y into %e1[0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x8xf32>
  %c2 = tensor.insert_slice %x into %b[0, 4] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x8xf32>
  return %c1, %c2 : tensor<2x8xf32>, tensor<2x8xf32>
}
