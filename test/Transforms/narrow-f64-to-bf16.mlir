// RUN: tcc-opt %s -tcc-narrow-f64-to-bf16-through-f32 | FileCheck %s

// f64 to bf16 rounds through f32, as PyTorch's conversion does; other
// truncations are left alone.
// CHECK-LABEL: func @narrow
// CHECK: %[[F:.*]] = arith.truncf %arg0 : f64 to f32
// CHECK: %[[B:.*]] = arith.truncf %[[F]] : f32 to bf16
// CHECK: %[[V:.*]] = arith.truncf %arg1 : vector<4xf64> to vector<4xf32>
// CHECK: arith.truncf %[[V]] : vector<4xf32> to vector<4xbf16>
// CHECK: arith.truncf %arg2 : f32 to bf16
// CHECK: arith.truncf %arg0 : f64 to f16
func.func @narrow(%d: f64, %v: vector<4xf64>, %s: f32) -> (bf16, vector<4xbf16>, bf16, f16) {
  %0 = arith.truncf %d : f64 to bf16
  %1 = arith.truncf %v : vector<4xf64> to vector<4xbf16>
  %2 = arith.truncf %s : f32 to bf16
  %3 = arith.truncf %d : f64 to f16
  return %0, %1, %2, %3 : bf16, vector<4xbf16>, bf16, f16
}
