// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// erfinv: calc_erfinv's rational approximation (|y| <= 0.7, or in
// sqrt(-log((1 - |y|) / 2)) beyond) and two Newton steps through erf;
// +-inf at +-1, NaN beyond.
// CHECK-LABEL: func @erfinv
// CHECK: tcc_graph.constant dense<0.886226892> : tensor<f32>
// CHECK: tcc_graph.copysign
// CHECK: tcc_graph.constant dense<0.699999988> : tensor<f32>
// CHECK-COUNT-2: tcc_graph.erf
// CHECK: tcc_graph.constant dense<0x7F800000> : tensor<f32>
// CHECK: tcc_graph.constant dense<0x7FC00000> : tensor<f32>
// CHECK: return
func.func @erfinv(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.erfinv.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// special_ndtri: the upper tail mirrored (y > 1 - exp(-2)), the middle in
// (y - 1/2)^2, both tails in 1 / sqrt(-2 log y) with two coefficient sets
// split at 8; -inf at 0, inf at 1, NaN outside [0, 1].
// CHECK-LABEL: func @ndtri
// CHECK: tcc_graph.constant dense<0.135335281> : tensor<f32>
// CHECK: tcc_graph.constant dense<2.50662827> : tensor<f32>
// CHECK: tcc_graph.constant dense<-2.000000e+00> : tensor<f32>
// CHECK: tcc_graph.constant dense<8.000000e+00> : tensor<f32>
// CHECK: tcc_graph.constant dense<0xFF800000> : tensor<f32>
// CHECK: return
func.func @ndtri(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.special_ndtri.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// special_erfcx through f64: exp(x^2) erfc(x) below 26, the continued
// fraction beyond, 2 exp(x^2) - erfcx(-x) for negative x, rounded back.
// special_log_ndtr: log(erfcx(-t) / 2) - t^2 below -1, log1p(-erfc(t) / 2)
// above, in f32.
// CHECK-LABEL: func @erfcx_log_ndtr
// CHECK: %[[WIDE:.*]] = tcc_graph.cast %arg0 : (tensor<4xf32>) -> tensor<4xf64>
// CHECK: tcc_graph.erfc %{{.*}} : tensor<4xf64>
// CHECK: tcc_graph.constant dense<2.600000e+01> : tensor<f64>
// CHECK: tcc_graph.constant dense<-2.670000e+01> : tensor<f64>
// CHECK: tcc_graph.cast %{{.*}} : (tensor<4xf64>) -> tensor<4xf32>
// CHECK: tcc_graph.constant dense<0.707106769> : tensor<f32>
// CHECK: tcc_graph.log1p
// CHECK: return
func.func @erfcx_log_ndtr(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.special_erfcx.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.special_log_ndtr.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
