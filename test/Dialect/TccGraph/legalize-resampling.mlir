// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics | FileCheck %s

// Bicubic with align_corners: real = 0.75 * o, base = min(floor(real), 3),
// t = real - base clamped to [0, 1], the cubic convolution weights of t + 1,
// t, 1 - t, 2 - t as ATen's float steps; the width first (four takes at
// base - 1 .. base + 2, clamped, summed in tap order), then the height.
// CHECK-LABEL: func @bicubic
// CHECK: %[[O:.*]] = tcc_graph.iota {{.*}} : tensor<5xf32>
// CHECK: %[[S:.*]] = tcc_graph.constant dense<7.500000e-01> : tensor<f32>
// CHECK: %[[REAL:.*]] = tcc_graph.mul %[[S]], %[[O]]
// CHECK: %[[FL:.*]] = tcc_graph.floor %[[REAL]]
// CHECK: tcc_graph.constant dense<-7.500000e-01> : tensor<f32>
// CHECK: tcc_graph.constant dense<-3.750000e+00> : tensor<f32>
// CHECK: tcc_graph.constant dense<-6.000000e+00> : tensor<f32>
// CHECK: tcc_graph.constant dense<1.250000e+00> : tensor<f32>
// CHECK: tcc_graph.constant dense<2.250000e+00> : tensor<f32>
// CHECK: %[[T0:.*]] = tcc_graph.take %arg0, %{{.*}} {dim = 3 : i64} : (tensor<1x1x4x4xf32>, tensor<5xi64>) -> tensor<1x1x4x5xf32>
// CHECK: tcc_graph.take %arg0, %{{.*}} {dim = 3 : i64}
// CHECK: tcc_graph.take %arg0, %{{.*}} {dim = 3 : i64}
// CHECK: tcc_graph.take %arg0, %{{.*}} {dim = 3 : i64}
// CHECK: %[[ROWS:.*]] = tcc_graph.add %{{.*}}, %{{.*}} : (tensor<1x1x4x5xf32>, tensor<1x1x4x5xf32>) -> tensor<1x1x4x5xf32>
// CHECK: tcc_graph.iota {{.*}} : tensor<3xf32>
// CHECK: tcc_graph.take %[[ROWS]], %{{.*}} {dim = 2 : i64} : (tensor<1x1x4x5xf32>, tensor<3xi64>) -> tensor<1x1x3x5xf32>
func.func @bicubic(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x5xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.upsample_bicubic2d.vec"(%x) {operand_names = ["input"], args = {output_size = array<i64: 3, 5>, align_corners = true}} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x5xf32>
  return %0 : tensor<1x1x3x5xf32>
}

// -----

// bf16 (issue 39 item 3): computed in f32, rounded once at the end.
// CHECK-LABEL: func @bicubic_bf16
// CHECK: %[[X:.*]] = tcc_graph.cast %arg0 : (tensor<1x1x4x4xbf16>) -> tensor<1x1x4x4xf32>
// CHECK: tcc_graph.take %[[X]], %{{.*}} {dim = 3 : i64} : (tensor<1x1x4x4xf32>, tensor<5xi64>) -> tensor<1x1x4x5xf32>
// CHECK: %[[Y:.*]] = tcc_graph.cast %{{.*}} : (tensor<1x1x3x5xf32>) -> tensor<1x1x3x5xbf16>
// CHECK: return %[[Y]]
func.func @bicubic_bf16(%x: tensor<1x1x4x4xbf16>) -> tensor<1x1x3x5xbf16> {
  %0 = tcc_graph.operator "torch.ops.aten.upsample_bicubic2d.vec"(%x) {operand_names = ["input"], args = {output_size = array<i64: 3, 5>, align_corners = true}} : (tensor<1x1x4x4xbf16>) -> tensor<1x1x3x5xbf16>
  return %0 : tensor<1x1x3x5xbf16>
}

// -----

// Antialiased bilinear, downsampling the height 10 -> 3 (scale 10/3): center
// = scale * (o + 0.5) through f64, the window [trunc(center - support + 0.5),
// trunc(center + support + 0.5)) clamped to the input, up to 9 taps of the
// triangle filter of (j + lo - center + 0.5) * 0.3, normalized by their sum;
// a tap past an output's window is selected out. The width keeps its size
// and is left as it is.
// CHECK-LABEL: func @bilinear_aa
// CHECK: %[[O:.*]] = tcc_graph.iota {start = 5.000000e-01 : f64, step = 1.000000e+00 : f64} : tensor<3xf64>
// CHECK: %[[SC:.*]] = tcc_graph.constant dense<3.3333332538604736> : tensor<f64>
// CHECK: %[[C64:.*]] = tcc_graph.mul %[[SC]], %[[O]]
// CHECK: %[[CENTER:.*]] = tcc_graph.cast %[[C64]] : (tensor<3xf64>) -> tensor<3xf32>
// CHECK: tcc_graph.constant dense<0.30000001192092896> : tensor<f64>
// CHECK: tcc_graph.abs
// CHECK: %[[W0:.*]] = tcc_graph.div %{{.*}}, %[[TOTAL:.*]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-COUNT-8: tcc_graph.div %{{.*}}, %[[TOTAL]]
// CHECK: tcc_graph.take %arg0, %{{.*}} {dim = 2 : i64} : (tensor<1x1x10x4xf32>, tensor<3xi64>) -> tensor<1x1x3x4xf32>
// CHECK: tcc_graph.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x1x3x1xi1>, tensor<1x1x3x4xf32>, tensor<f32>) -> tensor<1x1x3x4xf32>
// CHECK-NOT: {dim = 3 : i64}
// CHECK: return
func.func @bilinear_aa(%x: tensor<1x1x10x4xf32>) -> tensor<1x1x3x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten._upsample_bilinear2d_aa.default"(%x) {operand_names = ["self"], args = {output_size = array<i64: 3, 4>, align_corners = false}} : (tensor<1x1x10x4xf32>) -> tensor<1x1x3x4xf32>
  return %0 : tensor<1x1x3x4xf32>
}

// -----

// Only f32 (ATen computes other types' weights in their own precision).
func.func @bicubic_f64(%x: tensor<1x1x4x4xf64>) -> tensor<1x1x3x5xf64> {
  // expected-error @+1 {{operator 'aten.upsample_bicubic2d.vec': expects an f32, f16 or bf16 [N, C, H, W] tensor}}
  %0 = tcc_graph.operator "torch.ops.aten.upsample_bicubic2d.vec"(%x) {operand_names = ["input"], args = {output_size = array<i64: 3, 5>, align_corners = true}} : (tensor<1x1x4x4xf64>) -> tensor<1x1x3x5xf64>
  return %0 : tensor<1x1x3x5xf64>
}

// -----

// Over a symbolic height (interpolate(size=(2 * h, w))): the output
// positions are an iota of the export's length 2 * s0, and n and h are read
// at run time for the scale and the clamp (issue 39).
// CHECK-LABEL: func @bicubic_symbolic
// CHECK: %[[H:.*]] = tensor.dim %arg0, %c2
// CHECK: %[[N:.*]] = arith.muli %c2{{.*}}, %[[H]]
// CHECK: %[[O:.*]] = tcc_graph.iota sizes(%[[N]]) {{.*}} : tensor<?xf32>
// CHECK: tcc_graph.dim_size %[[O]] {dim = 0 : i64}
// CHECK: tcc_graph.dim_size %{{.*}} {dim = 2 : i64} : (tensor<1x1x?x4xf32>) -> tensor<i64>
// CHECK: tcc_graph.take %{{.*}} {dim = 2 : i64} : (tensor<1x1x?x4xf32>, tensor<?xi64>) -> tensor<1x1x?x4xf32>
func.func @bicubic_symbolic(%x: tensor<1x1x?x4xf32> {tcc.sizes = [1, 1, "s0", 4]}) -> tensor<1x1x?x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.upsample_bicubic2d.vec"(%x) {operand_names = ["input"], args = {align_corners = false}, tcc.sizes = [[1, 1, "2*s0", 4]]} : (tensor<1x1x?x4xf32>) -> tensor<1x1x?x4xf32>
  return %0 : tensor<1x1x?x4xf32>
}

// -----

// affine_grid_generator (issue 39): x = linspace(-1, 1, W) * (W - 1) / W
// along W, y the same along H, each times its column of theta, plus the
// constant column, in bmm's order.
// CHECK-LABEL: func @affine_grid
// CHECK: %[[XS:.*]] = tcc_graph.iota {{.*}} : tensor<5xf32>
// CHECK: %[[X:.*]] = tcc_graph.reshape %{{.*}} : (tensor<5xf32>) -> tensor<1x1x5x1xf32>
// CHECK: %[[Y:.*]] = tcc_graph.reshape %{{.*}} : (tensor<4xf32>) -> tensor<1x4x1x1xf32>
// CHECK: %[[T0:.*]] = tcc_graph.slice %arg0 {dim = 2 : i64, end = 1 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[C0:.*]] = tcc_graph.reshape %[[T0]] : (tensor<2x2x1xf32>) -> tensor<2x1x1x2xf32>
// CHECK: %[[XT:.*]] = tcc_graph.mul %[[X]], %[[C0]] : (tensor<1x1x5x1xf32>, tensor<2x1x1x2xf32>) -> tensor<2x1x5x2xf32>
// CHECK: %[[YT:.*]] = tcc_graph.mul %[[Y]], %{{.*}} : (tensor<1x4x1x1xf32>, tensor<2x1x1x2xf32>) -> tensor<2x4x1x2xf32>
// CHECK: %[[S:.*]] = tcc_graph.add %[[XT]], %[[YT]]
// CHECK: tcc_graph.add %[[S]], %{{.*}} : (tensor<2x4x5x2xf32>, tensor<2x1x1x2xf32>) -> tensor<2x4x5x2xf32>
func.func @affine_grid(%t: tensor<2x2x3xf32>) -> tensor<2x4x5x2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.affine_grid_generator.default"(%t) {operand_names = ["theta"], args = {size = array<i64: 2, 1, 4, 5>, align_corners = false}} : (tensor<2x2x3xf32>) -> tensor<2x4x5x2xf32>
  return %0 : tensor<2x4x5x2xf32>
}
