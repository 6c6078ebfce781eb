// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// special_bessel_j0: |x|; up to 5 (x^2 - r1)(x^2 - r2) RP(x^2) / RQ(x^2)
// (1 - x^2 / 4 below 1e-5); beyond, Hankel's form in 25 / x^2 with the
// phase pi / 4, cos first; a select picks per element.
// CHECK-LABEL: func @bessel_j0
// CHECK: %[[X:.*]] = tcc_graph.abs %arg0
// CHECK: tcc_graph.constant dense<-4.794432E+9> : tensor<f32>
// CHECK: tcc_graph.constant dense<5.78318596> : tensor<f32>
// CHECK: tcc_graph.constant dense<9.99999974E-6> : tensor<f32>
// CHECK: tcc_graph.constant dense<2.500000e+01> : tensor<f32>
// CHECK: tcc_graph.constant dense<0.785398185> : tensor<f32>
// CHECK: tcc_graph.cos
// CHECK: tcc_graph.sin
// CHECK: %[[SMALL:.*]] = tcc_graph.compare %[[X]], %{{.*}} {predicate = "le"}
// CHECK: %[[R:.*]] = tcc_graph.select %[[SMALL]]
// CHECK: return %[[R]]
func.func @bessel_j0(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.special_bessel_j0.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// special_bessel_j1: odd (the sign of x restored last), its zeros r1, r2 and
// the phase 3 pi / 4.
// CHECK-LABEL: func @bessel_j1
// CHECK: tcc_graph.constant dense<14.6819706> : tensor<f32>
// CHECK: tcc_graph.constant dense<2.3561945> : tensor<f32>
// CHECK: %[[NEG:.*]] = tcc_graph.compare %arg0, %{{.*}} {predicate = "lt"}
// CHECK: %[[R:.*]] = tcc_graph.select %[[NEG]]
// CHECK: return %[[R]]
func.func @bessel_j1(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.special_bessel_j1.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// special_bessel_y0 and y1: YP / YQ plus 2/pi log(x) J(x) up to 5, the sine
// first beyond; NaN below 0, -inf at 0. A float64 tensor computes in f64.
// CHECK-LABEL: func @bessel_y
// CHECK: tcc_graph.log %arg0
// CHECK: tcc_graph.constant dense<0.63661977236758138> : tensor<f64>
// CHECK: tcc_graph.constant dense<0x7FF8000000000000> : tensor<f64>
// CHECK: tcc_graph.constant dense<0xFFF0000000000000> : tensor<f64>
// CHECK: tcc_graph.log %arg1
// CHECK: tcc_graph.constant dense<0xFF800000> : tensor<f32>
func.func @bessel_y(%x: tensor<4xf64>, %y: tensor<4xf32>) -> (tensor<4xf64>, tensor<4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.special_bessel_y0.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf64>) -> tensor<4xf64>
  %1 = tcc_graph.operator "torch.ops.aten.special_bessel_y1.default"(%y) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf64>, tensor<4xf32>
}
