// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics | FileCheck %s

// Training-mode batch norm without running statistics: mean and biased
// variance per channel over the other dims in f64, y = (x - mean) * invstd
// * w + b; save_mean and save_invstd are the [C] statistics.
// CHECK-LABEL: func @native_batch_norm_training
// CHECK: %[[XD:.*]] = tcc_graph.cast %arg0 : (tensor<4x3x5xf32>) -> tensor<4x3x5xf64>
// CHECK: %[[M:.*]] = tcc_graph.reduce_mean %[[XD]] {dims = array<i64: 0, 2>, keepdim = true} : (tensor<4x3x5xf64>) -> tensor<1x3x1xf64>
// CHECK: %[[C:.*]] = tcc_graph.sub %[[XD]], %[[M]]
// CHECK: %[[SQ:.*]] = tcc_graph.mul %[[C]], %[[C]]
// CHECK: %[[V:.*]] = tcc_graph.reduce_mean %[[SQ]] {dims = array<i64: 0, 2>, keepdim = true}
// CHECK: %[[I:.*]] = tcc_graph.rsqrt
// CHECK: %[[N:.*]] = tcc_graph.mul %[[C]], %[[I]]
// CHECK: %[[Y:.*]] = tcc_graph.cast %[[N]] : (tensor<4x3x5xf64>) -> tensor<4x3x5xf32>
// CHECK: %[[W:.*]] = tcc_graph.reshape %arg1 : (tensor<3xf32>) -> tensor<3x1xf32>
// CHECK: tcc_graph.mul %[[Y]], %[[W]]
// CHECK: tcc_graph.add
// CHECK: tcc_graph.reshape %[[M]] : (tensor<1x3x1xf64>) -> tensor<3xf64>
// CHECK: tcc_graph.reshape %[[I]] : (tensor<1x3x1xf64>) -> tensor<3xf64>
func.func @native_batch_norm_training(%x: tensor<4x3x5xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0:3 = tcc_graph.operator "torch.ops.aten.native_batch_norm.default"(%x, %w, %b) {operand_names = ["input", "weight", "bias"], args = {training = true, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64}} : (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1, %0#2 : tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Eval mode: the inference form on the running statistics; save_mean and
// save_invstd are empty, as on PyTorch's CPU.
// CHECK-LABEL: func @native_batch_norm_eval
// CHECK: tcc_graph.rsqrt
// CHECK: %[[E:.*]] = tcc_graph.constant dense<0.000000e+00> : tensor<0xf32>
// CHECK: %[[F:.*]] = tcc_graph.constant dense<0.000000e+00> : tensor<0xf32>
// CHECK: return %{{.*}}, %[[E]], %[[F]]
func.func @native_batch_norm_eval(%x: tensor<4x3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> (tensor<4x3xf32>, tensor<0xf32>, tensor<0xf32>) {
  %0:3 = tcc_graph.operator "torch.ops.aten.native_batch_norm.default"(%x, %m, %v) {operand_names = ["input", "running_mean", "running_var"], args = {training = false, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64}} : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<0xf32>, tensor<0xf32>)
  return %0#0, %0#1, %0#2 : tensor<4x3xf32>, tensor<0xf32>, tensor<0xf32>
}

// -----

// An empty input: empty results (updating empty running statistics changes
// nothing).
// CHECK-LABEL: func @batch_norm_empty
// CHECK: %[[E:.*]] = tcc_graph.constant dense<0.000000e+00> : tensor<0xf32>
// CHECK: return %[[E]]
func.func @batch_norm_empty(%x: tensor<0xf32>, %m: tensor<0xf32>, %v: tensor<0xf32>) -> tensor<0xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.batch_norm.default"(%x, %m, %v) {operand_names = ["input", "running_mean", "running_var"], args = {training = true}} : (tensor<0xf32>, tensor<0xf32>, tensor<0xf32>) -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

// With running statistics, training mode would update them in place.
func.func @batch_norm_with_update(%x: tensor<4x3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{operator 'aten._batch_norm_with_update.default': in training mode PyTorch updates running_mean and running_var in place, which the compiled model would not do; export in eval mode (model.eval()) or without running statistics (track_running_stats=False)}}
  %0:4 = tcc_graph.operator "torch.ops.aten._batch_norm_with_update.default"(%x, %m, %v) {operand_names = ["input", "running_mean", "running_var"], args = {momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64}} : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<0xui8>)
  return %0#0 : tensor<4x3xf32>
}
