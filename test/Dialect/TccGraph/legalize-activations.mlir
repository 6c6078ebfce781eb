// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// CHECK-LABEL: func @sigmoid
// CHECK: %[[NEG:.*]] = tcc_graph.neg %arg0
// CHECK: %[[EXP:.*]] = tcc_graph.exp %[[NEG]]
// CHECK: %[[DEN:.*]] = tcc_graph.add %{{.*}}, %[[EXP]]
// CHECK: tcc_graph.div %{{.*}}, %[[DEN]]
func.func @sigmoid(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.sigmoid.default"(%x) {operand_names = ["self"], args = {}} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// gelu (exact): 0.5 x (1 + erf(x / sqrt 2))
// CHECK-LABEL: func @gelu
// CHECK: tcc_graph.constant dense<0.7071067{{[0-9]*}}> : tensor<f32>
// CHECK: tcc_graph.erf
// CHECK-NOT: tcc_graph.tanh
func.func @gelu(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.gelu.default"(%x) {operand_names = ["self"], args = {}} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func @gelu_tanh
// CHECK: tcc_graph.tanh
// CHECK-NOT: tcc_graph.erf
func.func @gelu_tanh(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.gelu.default"(%x) {operand_names = ["self"], args = {approximate = "tanh"}} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// clamp: maximum with the lower bound, minimum with the upper.
// CHECK-LABEL: func @clamp
// CHECK: %[[LO:.*]] = tcc_graph.maximum %arg0, %{{.*}}
// CHECK: tcc_graph.minimum %[[LO]], %{{.*}}
func.func @clamp(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.clamp.default"(%x) {operand_names = ["self"], args = {min = -5.000000e-01 : f64, max = 7.500000e-01 : f64}} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// clamp_min and clamp_max: one bound each.
// CHECK-LABEL: func @clamp_one_bound
// CHECK: tcc_graph.maximum %arg0, %{{.*}}
// CHECK-NOT: tcc_graph.minimum %arg0
// CHECK: tcc_graph.minimum %arg0, %{{.*}}
// CHECK-NOT: tcc_graph.operator
func.func @clamp_one_bound(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.clamp_min.default"(%x) {operand_names = ["self"], args = {min = 1.000000e-01 : f64}} : (tensor<8xf32>) -> tensor<8xf32>
  %1 = tcc_graph.operator "torch.ops.aten.clamp_max.default"(%x) {operand_names = ["self"], args = {max = 2.500000e-01 : f64}} : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// softplus: x where beta x > threshold, else max(x, 0) + log1p(exp(-|beta x|)) / beta
// CHECK-LABEL: func @softplus
// CHECK: %[[BETA:.*]] = tcc_graph.constant dense<3.000000e+00>
// CHECK: %[[BX:.*]] = tcc_graph.mul %[[BETA]], %arg0
// CHECK: tcc_graph.abs
// CHECK: tcc_graph.log1p
// CHECK: %[[SMOOTH:.*]] = tcc_graph.add
// CHECK: %[[T:.*]] = tcc_graph.constant dense<2.000000e-01>
// CHECK: %[[LIN:.*]] = tcc_graph.compare %[[BX]], %[[T]] {predicate = "gt"}
// CHECK: tcc_graph.select %[[LIN]], %arg0, %[[SMOOTH]]
func.func @softplus(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.softplus.default"(%x) {operand_names = ["self"], args = {beta = 3 : i64, threshold = 2.000000e-01 : f64}} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// stack: a unit dim inserted in each input, then concat.
// CHECK-LABEL: func @stack
// CHECK: tcc_graph.reshape %arg0 : (tensor<8xf32>) -> tensor<1x8xf32>
// CHECK: tcc_graph.concat %{{.*}}, %{{.*}} {dim = 0 : i64} : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
func.func @stack(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.stack.default"(%x, %y) {operand_names = ["tensors.0", "tensors.1"], args = {}} : (tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// elu honours scale and input_scale:
// scale * (max(x, 0) + alpha * (exp(input_scale * min(x, 0)) - 1)).
// CHECK-LABEL: func @elu_scaled
// CHECK: %[[POS:.*]] = tcc_graph.maximum %arg0, %{{.*}}
// CHECK: %[[BELOW:.*]] = tcc_graph.minimum %arg0, %{{.*}}
// CHECK: %[[IN_SCALE:.*]] = tcc_graph.constant dense<3.000000e+00> : tensor<f32>
// CHECK: %[[SCALED:.*]] = tcc_graph.mul %[[IN_SCALE]], %[[BELOW]]
// CHECK: %[[EXP:.*]] = tcc_graph.exp %[[SCALED]]
// CHECK: %[[NEG:.*]] = tcc_graph.sub %[[EXP]], %{{.*}}
// CHECK: %[[ALPHA:.*]] = tcc_graph.constant dense<2.500000e-01> : tensor<f32>
// CHECK: %[[TAIL:.*]] = tcc_graph.mul %[[ALPHA]], %[[NEG]]
// CHECK: %[[SUM:.*]] = tcc_graph.add %[[POS]], %[[TAIL]]
// CHECK: %[[SCALE:.*]] = tcc_graph.constant dense<1.500000e+00> : tensor<f32>
// CHECK: %[[OUT:.*]] = tcc_graph.mul %[[SCALE]], %[[SUM]]
// CHECK: return %[[OUT]]
func.func @elu_scaled(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.elu.default"(%x) {operand_names = ["self"], args = {alpha = 2.500000e-01 : f64, scale = 1.500000e+00 : f64, input_scale = 3.000000e+00 : f64}} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// elu with the defaults (nn.ELU) builds no scale multiplications.
// CHECK-LABEL: func @elu_default
// CHECK: %[[BELOW:.*]] = tcc_graph.minimum %arg0
// CHECK: tcc_graph.exp %[[BELOW]]
// CHECK: %[[SUM:.*]] = tcc_graph.add
// CHECK-NEXT: return %[[SUM]]
func.func @elu_default(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.elu.default"(%x) {operand_names = ["self"], args = {alpha = 1.000000e+00 : f64}} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Integer inputs: relu and relu6 keep a signed integer type (max/min with
// integer constants); sigmoid of an int64 tensor is float32, computed on the
// converted input.
// CHECK-LABEL: func @integer_activations
// CHECK: %[[Z:.*]] = tcc_graph.constant dense<0> : tensor<i64>
// CHECK: %[[R:.*]] = tcc_graph.maximum %arg0, %[[Z]] : (tensor<8xi64>, tensor<i64>) -> tensor<8xi64>
// CHECK: %[[SIX:.*]] = tcc_graph.constant dense<6> : tensor<i64>
// CHECK: tcc_graph.minimum %{{.*}}, %[[SIX]] : (tensor<8xi64>, tensor<i64>) -> tensor<8xi64>
// CHECK: %[[F:.*]] = tcc_graph.cast %arg0 : (tensor<8xi64>) -> tensor<8xf32>
// CHECK: tcc_graph.neg %[[F]]
func.func @integer_activations(%x: tensor<8xi64>) -> (tensor<8xi64>, tensor<8xi64>, tensor<8xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.relu.default"(%x) {operand_names = ["self"], args = {}} : (tensor<8xi64>) -> tensor<8xi64>
  %1 = tcc_graph.operator "torch.ops.aten.relu6.default"(%x) {operand_names = ["self"], args = {}} : (tensor<8xi64>) -> tensor<8xi64>
  %2 = tcc_graph.operator "torch.ops.aten.sigmoid.default"(%x) {operand_names = ["self"], args = {}} : (tensor<8xi64>) -> tensor<8xf32>
  return %0, %1, %2 : tensor<8xi64>, tensor<8xi64>, tensor<8xf32>
}

// -----

// exp of an int64 tensor and a clamp of one with float bounds are float32:
// the input is converted first (a tensor.cast from i64 to f32 was built
// before, which does not verify).
// CHECK-LABEL: func @integer_to_float
// CHECK: %[[F:.*]] = tcc_graph.cast %arg0 : (tensor<8xi64>) -> tensor<8xf32>
// CHECK: tcc_graph.exp %[[F]] : tensor<8xf32>
// CHECK: %[[G:.*]] = tcc_graph.cast %arg0 : (tensor<8xi64>) -> tensor<8xf32>
// CHECK: tcc_graph.maximum %[[G]], %{{.*}} : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK-NOT: tensor.cast
func.func @integer_to_float(%x: tensor<8xi64>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.exp.default"(%x) {operand_names = ["self"], args = {}} : (tensor<8xi64>) -> tensor<8xf32>
  %1 = tcc_graph.operator "torch.ops.aten.clamp.default"(%x) {operand_names = ["self"], args = {min = -1.5 : f64, max = 2.5 : f64}} : (tensor<8xi64>) -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
