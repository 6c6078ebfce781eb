// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// A complex tensor is a real one with its (re, im) pairs in a last dim of 2;
// the importer lists the complex operands and results. view_as_real and
// view_as_complex keep the bytes; real/imag slice a part; conj negates the
// imaginary part.
// CHECK-LABEL: func @parts
// CHECK: %[[IM:.*]] = tcc_graph.slice %arg0 {dim = 2 : i64, end = 2 : i64, start = 1 : i64, step = 1 : i64} : (tensor<3x4x2xf32>) -> tensor<3x4x1xf32>
// CHECK: %[[IMR:.*]] = tcc_graph.reshape %[[IM]] : (tensor<3x4x1xf32>) -> tensor<3x4xf32>
// CHECK: %[[NEG:.*]] = tcc_graph.neg %{{.*}} : tensor<3x4xf32>
// CHECK: %[[CONJ:.*]] = tcc_graph.concat %{{.*}}, %{{.*}} {dim = 2 : i64} : (tensor<3x4x1xf32>, tensor<3x4x1xf32>) -> tensor<3x4x2xf32>
// CHECK: return %arg0, %[[IMR]], %[[CONJ]]
func.func @parts(%z: tensor<3x4x2xf32>) -> (tensor<3x4x2xf32>, tensor<3x4xf32>, tensor<3x4x2xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.view_as_real.default"(%z) {operand_names = ["self"], args = {}, tcc.complex_operands = array<i64: 0>} : (tensor<3x4x2xf32>) -> tensor<3x4x2xf32>
  %1 = tcc_graph.operator "torch.ops.aten.imag.default"(%z) {operand_names = ["self"], args = {}, tcc.complex_operands = array<i64: 0>} : (tensor<3x4x2xf32>) -> tensor<3x4xf32>
  %2 = tcc_graph.operator "torch.ops.aten.conj_physical.default"(%z) {operand_names = ["self"], args = {}, tcc.complex_operands = array<i64: 0>, tcc.complex_results = array<i64: 0>} : (tensor<3x4x2xf32>) -> tensor<3x4x2xf32>
  return %0, %1, %2 : tensor<3x4x2xf32>, tensor<3x4xf32>, tensor<3x4x2xf32>
}

// -----

// complex(re, im) broadcasts both parts to the result's shape and pairs
// them; a conversion of a real tensor to complex128 pairs it, converted,
// with zeros.
// CHECK-LABEL: func @construct
// CHECK: %[[IM:.*]] = tcc_graph.broadcast %arg1 : (tensor<1x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[RE1:.*]] = tcc_graph.reshape %arg0 : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
// CHECK: %[[IM1:.*]] = tcc_graph.reshape %[[IM]] : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
// CHECK: tcc_graph.concat %[[RE1]], %[[IM1]] {dim = 2 : i64} : (tensor<2x3x1xf32>, tensor<2x3x1xf32>) -> tensor<2x3x2xf32>
// CHECK: %[[D:.*]] = tcc_graph.cast %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf64>
// CHECK: %[[Z:.*]] = tcc_graph.constant dense<0.000000e+00> : tensor<2x3xf64>
// CHECK: tcc_graph.concat {{.*}} {dim = 2 : i64} : (tensor<2x3x1xf64>, tensor<2x3x1xf64>) -> tensor<2x3x2xf64>
func.func @construct(%re: tensor<2x3xf32>, %im: tensor<1x3xf32>) -> (tensor<2x3x2xf32>, tensor<2x3x2xf64>) {
  %0 = tcc_graph.operator "torch.ops.aten.complex.default"(%re, %im) {operand_names = ["real", "imag"], args = {}, tcc.complex_results = array<i64: 0>} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3x2xf32>
  %1 = tcc_graph.operator "torch.ops.aten.to.dtype"(%re) {operand_names = ["self"], args = {dtype = 11 : i64}, tcc.complex_results = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3x2xf64>
  return %0, %1 : tensor<2x3x2xf32>, tensor<2x3x2xf64>
}

// -----

// mul of complex tensors: (a + ib)(c + id) = (ac - bd) + i(ad + bc); abs in
// f64, rounded once.
// CHECK-LABEL: func @mul_abs
// CHECK-NOT: tcc_graph.constant
// CHECK-COUNT-4: tcc_graph.mul %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: tcc_graph.sub
// CHECK: tcc_graph.add
// CHECK: tcc_graph.concat {{.*}} -> tensor<4x2xf32>
// CHECK: tcc_graph.cast %{{.*}} : (tensor<4xf32>) -> tensor<4xf64>
// CHECK: tcc_graph.sqrt %{{.*}} : tensor<4xf64>
// CHECK: tcc_graph.cast %{{.*}} : (tensor<4xf64>) -> tensor<4xf32>
func.func @mul_abs(%x: tensor<4x2xf32>, %y: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.mul.Tensor"(%x, %y) {operand_names = ["self", "other"], args = {}, tcc.complex_operands = array<i64: 0, 1>, tcc.complex_results = array<i64: 0>} : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %1 = tcc_graph.operator "torch.ops.aten.abs.default"(%x) {operand_names = ["self"], args = {}, tcc.complex_operands = array<i64: 0>} : (tensor<4x2xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4x2xf32>, tensor<4xf32>
}

// -----

// angle of a real tensor: pi below zero, else 0, NaN kept.
// CHECK-LABEL: func @angle_real
// CHECK: %[[BELOW:.*]] = tcc_graph.compare %arg0, %{{.*}} {predicate = "lt"}
// CHECK: %[[A:.*]] = tcc_graph.select %[[BELOW]], %{{.*}}, %{{.*}} : (tensor<4xi1>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
// CHECK: %[[NAN:.*]] = tcc_graph.compare %arg0, %arg0 {predicate = "ne"}
// CHECK: tcc_graph.select %[[NAN]], %arg0, %[[A]]
func.func @angle_real(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.angle.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A real operand of complex arithmetic has a zero imaginary part, made once
// before the products; the real one broadcasts.
// CHECK-LABEL: func @mul_by_real
// CHECK: %[[Z:.*]] = tcc_graph.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK: %[[AC:.*]] = tcc_graph.mul %{{.*}}, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: %[[BD:.*]] = tcc_graph.mul %{{.*}}, %[[Z]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: tcc_graph.sub %[[AC]], %[[BD]]
// CHECK: tcc_graph.concat {{.*}} -> tensor<2x3x2xf32>
func.func @mul_by_real(%z: tensor<2x3x2xf32>, %r: tensor<3xf32>) -> tensor<2x3x2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.mul.Tensor"(%z, %r) {operand_names = ["self", "other"], args = {}, tcc.complex_operands = array<i64: 0>, tcc.complex_results = array<i64: 0>} : (tensor<2x3x2xf32>, tensor<3xf32>) -> tensor<2x3x2xf32>
  return %0 : tensor<2x3x2xf32>
}

// -----

// complex of a symbolic-length real part and a 0-d imaginary part: the
// imaginary part stretched to the real part's run-time length.
// CHECK-LABEL: func @complex_symbolic
// CHECK: %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?xf32>
// CHECK: %[[IM:.*]] = tcc_graph.broadcast %arg1 sizes(%[[N]]) : (tensor<f32>) -> tensor<?xf32>
// CHECK: %[[RE1:.*]] = tcc_graph.reshape %arg0 : (tensor<?xf32>) -> tensor<?x1xf32>
// CHECK: %[[IM1:.*]] = tcc_graph.reshape %[[IM]] : (tensor<?xf32>) -> tensor<?x1xf32>
// CHECK: tcc_graph.concat %[[RE1]], %[[IM1]] {dim = 1 : i64} : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x2xf32>
func.func @complex_symbolic(%re: tensor<?xf32>, %im: tensor<f32>) -> tensor<?x2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.complex.default"(%re, %im) {operand_names = ["real", "imag"], args = {}, tcc.complex_results = array<i64: 0>} : (tensor<?xf32>, tensor<f32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}
