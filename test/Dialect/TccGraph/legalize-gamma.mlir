// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// lgamma: Lanczos (g = 7, 9 terms) in f64 on max(x, 1 - x), the reflection
// log(pi / |sin(pi r)|) - lgamma(1 - x) below 1/2 with r = x - round(x),
// +inf at +-inf, rounded back to f32.
// CHECK-LABEL: func @lgamma
// CHECK: %[[X:.*]] = tcc_graph.cast %arg0 : (tensor<4xf32>) -> tensor<4xf64>
// CHECK: %[[REFLECT:.*]] = tcc_graph.compare %[[X]], %{{.*}} {predicate = "lt"}
// CHECK: tcc_graph.constant dense<0.99999999999980993> : tensor<f64>
// CHECK: tcc_graph.constant dense<676.5203681218851> : tensor<f64>
// CHECK: tcc_graph.constant dense<1.5056327351493116E-7> : tensor<f64>
// CHECK: %[[HALFLOG:.*]] = tcc_graph.constant dense<0.91893853320467278> : tensor<f64>
// CHECK: %[[LANCZOS:.*]] = tcc_graph.add %{{.*}}, %[[HALFLOG]]
// CHECK: %[[NEAREST:.*]] = tcc_graph.round %[[X]]
// CHECK: %[[R:.*]] = tcc_graph.sub %[[X]], %[[NEAREST]]
// CHECK: tcc_graph.sin
// CHECK: %[[REFLECTED:.*]] = tcc_graph.sub %{{.*}}, %[[LANCZOS]]
// CHECK: tcc_graph.select %[[REFLECT]], %[[REFLECTED]], %[[LANCZOS]]
// CHECK: tcc_graph.constant dense<0x7FF0000000000000> : tensor<f64>
// CHECK: %[[OUT:.*]] = tcc_graph.cast %{{.*}} : (tensor<4xf64>) -> tensor<4xf32>
// CHECK: return %[[OUT]]
func.func @lgamma(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.lgamma.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// digamma (here special_psi) in f32 as ATen's calc_digamma: 1 - x for
// negative x, ten unrolled shifts while x < 10, 10's value, the asymptotic
// series below 1e17; pi / tan(pi r) in f64 for negative x; NaN at negative
// integers, -+inf at +-0 (copysign(inf, -x)).
// CHECK-LABEL: func @digamma
// CHECK-COUNT-10: tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "lt"} : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
// CHECK: tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "eq"}
// CHECK: tcc_graph.constant dense<2.25175261> : tensor<f32>
// CHECK: tcc_graph.constant dense<9.99999984E+16> : tensor<f32>
// CHECK: tcc_graph.log
// CHECK: %[[XD:.*]] = tcc_graph.cast %arg0 : (tensor<4xf32>) -> tensor<4xf64>
// CHECK: %[[WHOLE:.*]] = tcc_graph.trunc %[[XD]]
// CHECK: tcc_graph.tan
// CHECK: tcc_graph.cast %{{.*}} : (tensor<4xf64>) -> tensor<4xf32>
// CHECK: tcc_graph.constant dense<0x7FC00000> : tensor<f32>
// CHECK: tcc_graph.copysign
// CHECK: return
func.func @digamma(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.special_psi.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// polygamma: n = 1 is ATen's trigamma (sin(pi x) with pi in f32, six shifts);
// n >= 2 is (-1)^(n+1) exp(lgamma(n + 1)) zeta(n + 1, x): 6 zeta(4, x) for 3.
// CHECK-LABEL: func @polygamma
// CHECK: tcc_graph.constant dense<3.14159274> : tensor<f32>
// CHECK: tcc_graph.sin
// CHECK: %[[ORDER:.*]] = tcc_graph.constant dense<4.000000e+00> : tensor<f32>
// CHECK: %[[ZETA:.*]] = tcc_graph.special_function "zeta"(%[[ORDER]], %arg0) : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[SIX:.*]] = tcc_graph.constant dense<6.000000e+00> : tensor<f32>
// CHECK: tcc_graph.mul %[[SIX]], %[[ZETA]]
func.func @polygamma(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.polygamma.default"(%x) {operand_names = ["self"], args = {n = 1 : i64}} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.special_polygamma.default"(%x) {operand_names = ["self"], args = {n = 3 : i64}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// mvlgamma(x, 3): lgamma(x - 1), lgamma(x - 1/2), lgamma(x) summed, plus
// 3 * 2 / 4 * log(pi).
// CHECK-LABEL: func @mvlgamma
// CHECK: tcc_graph.constant dense<-1.000000e+00> : tensor<f32>
// CHECK: tcc_graph.constant dense<-5.000000e-01> : tensor<f32>
// CHECK: tcc_graph.constant dense<0.000000e+00> : tensor<f32>
// CHECK: tcc_graph.constant dense<1.71709478> : tensor<f32>
// CHECK: return
func.func @mvlgamma(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.special_multigammaln.default"(%x) {operand_names = ["self"], args = {p = 3 : i64}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// zeta(x, q) with a Python number for q (or x).
// CHECK-LABEL: func @zeta
// CHECK: %[[Q:.*]] = tcc_graph.constant dense<2.500000e+00> : tensor<f32>
// CHECK: tcc_graph.special_function "zeta"(%arg0, %[[Q]]) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: %[[X:.*]] = tcc_graph.constant dense<3.000000e+00> : tensor<f32>
// CHECK: tcc_graph.special_function "zeta"(%[[X]], %arg0) : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
func.func @zeta(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.special_zeta.other_scalar"(%x) {operand_names = ["self"], args = {other = 2.5 : f64}} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.special_zeta.self_scalar"(%x) {operand_names = ["other"], args = {self = 3.0 : f64}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
