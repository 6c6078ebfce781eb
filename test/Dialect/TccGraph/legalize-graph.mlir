// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// CHECK-LABEL: func @linear_relu
// CHECK: %[[WT:.*]] = tcc_graph.transpose %arg1 {permutation = array<i64: 1, 0>} : (tensor<10x100xf32>) -> tensor<100x10xf32>
// CHECK: %[[MM:.*]] = tcc_graph.matmul %arg0, %[[WT]] : (tensor<?x100xf32>, tensor<100x10xf32>) -> tensor<?x10xf32>
// CHECK: %[[ADD:.*]] = tcc_graph.add %[[MM]], %arg2 : (tensor<?x10xf32>, tensor<10xf32>) -> tensor<?x10xf32>
// CHECK: tcc_graph.relu %[[ADD]] : tensor<?x10xf32>
// CHECK-NOT: tcc_graph.operator
func.func @linear_relu(%x: tensor<?x100xf32>, %w: tensor<10x100xf32>, %b: tensor<10xf32>) -> tensor<?x10xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.linear.default"(%x, %w, %b) {operand_names = ["input", "weight", "bias"], args = {}} : (tensor<?x100xf32>, tensor<10x100xf32>, tensor<10xf32>) -> tensor<?x10xf32>
  %1 = tcc_graph.operator "torch.ops.aten.relu.default"(%0) {operand_names = ["self"], args = {}} : (tensor<?x10xf32>) -> tensor<?x10xf32>
  return %1 : tensor<?x10xf32>
}

// -----

// Python scalars become rank-0 constants; alpha scales `other`.
// CHECK-LABEL: func @scalars
// CHECK-DAG: %[[C15:.*]] = tcc_graph.constant dense<1.500000e+00> : tensor<f32>
// CHECK-DAG: %[[C2:.*]] = tcc_graph.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[S:.*]] = tcc_graph.mul %[[C15]], %[[C2]]
// CHECK: tcc_graph.sub %arg0, %[[S]] : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32>
func.func @scalars(%x: tensor<4x12xf32>) -> tensor<4x12xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.sub.Tensor"(%x) {operand_names = ["self"], args = {other = 1.5 : f64, alpha = 2 : i64}} : (tensor<4x12xf32>) -> tensor<4x12xf32>
  return %0 : tensor<4x12xf32>
}

// -----

// batch_norm in inference: per-channel scale and shift, reshaped to [C, 1, 1].
// CHECK-LABEL: func @batch_norm
// CHECK: tcc_graph.rsqrt
// CHECK: tcc_graph.reshape %{{.*}} : (tensor<8xf32>) -> tensor<8x1x1xf32>
// CHECK: tcc_graph.mul %arg0, %{{.*}} : (tensor<2x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<2x8x4x4xf32>
// CHECK: tcc_graph.add %{{.*}}, %{{.*}} : (tensor<2x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<2x8x4x4xf32>
func.func @batch_norm(%x: tensor<2x8x4x4xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<2x8x4x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.batch_norm.default"(%x, %w, %b, %m, %v) {operand_names = ["input", "weight", "bias", "running_mean", "running_var"], args = {training = false, momentum = 0.1 : f64, eps = 1.0e-05 : f64, cudnn_enabled = false}} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  return %0 : tensor<2x8x4x4xf32>
}

// -----

// softmax stays whole for kernel formation (decompose-graph.mlir spells it out).
// CHECK-LABEL: func @softmax
// CHECK: tcc_graph.softmax %arg0 {dim = 1 : i64} : (tensor<4x12xf32>) -> tensor<4x12xf32>
func.func @softmax(%x: tensor<4x12xf32>) -> tensor<4x12xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.softmax.int"(%x) {operand_names = ["self"], args = {dim = -1 : i64}} : (tensor<4x12xf32>) -> tensor<4x12xf32>
  return %0 : tensor<4x12xf32>
}

// -----

// A dtype PyTorch converts to first: f32 to f64 is computed in f64; bf16 with
// an f32 result stays one row kernel (it computes half inputs in f32); a 0-d
// input is a one-element row.
// CHECK-LABEL: func @softmax_dtype
// CHECK: %[[W:.*]] = tcc_graph.cast %arg0 : (tensor<4x12xf32>) -> tensor<4x12xf64>
// CHECK: tcc_graph.softmax %[[W]] {dim = 1 : i64} : (tensor<4x12xf64>) -> tensor<4x12xf64>
// CHECK: tcc_graph.softmax %arg1 {dim = 0 : i64, log} : (tensor<4xbf16>) -> tensor<4xf32>
// CHECK: %[[R:.*]] = tcc_graph.reshape %arg2 : (tensor<f32>) -> tensor<1xf32>
// CHECK: %[[S:.*]] = tcc_graph.softmax %[[R]] {dim = 0 : i64} : (tensor<1xf32>) -> tensor<1xf32>
// CHECK: tcc_graph.reshape %[[S]] : (tensor<1xf32>) -> tensor<f32>
func.func @softmax_dtype(%x: tensor<4x12xf32>, %h: tensor<4xbf16>, %s: tensor<f32>) -> (tensor<4x12xf64>, tensor<4xf32>, tensor<f32>) {
  %0 = tcc_graph.operator "torch.ops.aten.softmax.int"(%x) {operand_names = ["self"], args = {dim = -1 : i64, dtype = 7 : i64}} : (tensor<4x12xf32>) -> tensor<4x12xf64>
  %1 = tcc_graph.operator "torch.ops.aten._log_softmax.default"(%h) {operand_names = ["self"], args = {dim = 0 : i64, half_to_float = true}} : (tensor<4xbf16>) -> tensor<4xf32>
  %2 = tcc_graph.operator "torch.ops.aten.softmax.int"(%s) {operand_names = ["self"], args = {dim = 0 : i64}} : (tensor<f32>) -> tensor<f32>
  return %0, %1, %2 : tensor<4x12xf64>, tensor<4xf32>, tensor<f32>
}

// -----

// CHECK-LABEL: func @conv_pool
// CHECK: tcc_graph.conv2d %arg0, %arg1, %arg2 {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>}
// CHECK: tcc_graph.max_pool2d %{{.*}} {ceil_mode = false, count_include_pad = false, dilation = array<i64: 1, 1>, kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>}
// CHECK: tcc_graph.reduce_mean %{{.*}} {dims = array<i64: 2, 3>, keepdim = true}
// CHECK: tcc_graph.reshape %{{.*}} : (tensor<2x8x1x1xf32>) -> tensor<2x8xf32>
func.func @conv_pool(%x: tensor<2x3x16x16xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.conv2d.default"(%x, %w, %b) {operand_names = ["input", "weight", "bias"], args = {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>}} : (tensor<2x3x16x16xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x8x8xf32>
  %1 = tcc_graph.operator "torch.ops.aten.max_pool2d.default"(%0) {operand_names = ["self"], args = {kernel_size = array<i64: 2, 2>}} : (tensor<2x8x8x8xf32>) -> tensor<2x8x4x4xf32>
  %2 = tcc_graph.operator "torch.ops.aten.adaptive_avg_pool2d.default"(%1) {operand_names = ["self"], args = {output_size = array<i64: 1, 1>}} : (tensor<2x8x4x4xf32>) -> tensor<2x8x1x1xf32>
  %3 = tcc_graph.operator "torch.ops.aten.flatten.using_ints"(%2) {operand_names = ["self"], args = {start_dim = 1 : i64}} : (tensor<2x8x1x1xf32>) -> tensor<2x8xf32>
  return %3 : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func @views
// CHECK: tcc_graph.transpose %arg0 {permutation = array<i64: 2, 0, 1>}
// CHECK: tcc_graph.transpose %{{.*}} {permutation = array<i64: 0, 2, 1>}
// CHECK: tcc_graph.concat %{{.*}}, %{{.*}} {dim = 1 : i64}
// CHECK: tcc_graph.reduce_sum %{{.*}} {dims = array<i64: 1>, keepdim = false}
func.func @views(%x: tensor<4x3x4xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.permute.default"(%x) {operand_names = ["self"], args = {dims = array<i64: 2, 0, 1>}} : (tensor<4x3x4xf32>) -> tensor<4x4x3xf32>
  %1 = tcc_graph.operator "torch.ops.aten.transpose.int"(%0) {operand_names = ["self"], args = {dim0 = 1 : i64, dim1 = 2 : i64}} : (tensor<4x4x3xf32>) -> tensor<4x3x4xf32>
  %2 = tcc_graph.operator "torch.ops.aten.cat.default"(%1, %x) {operand_names = ["tensors.0", "tensors.1"], args = {dim = -2 : i64}} : (tensor<4x3x4xf32>, tensor<4x3x4xf32>) -> tensor<4x6x4xf32>
  %3 = tcc_graph.operator "torch.ops.aten.sum.dim_IntList"(%2) {operand_names = ["self"], args = {dim = array<i64: 1>}} : (tensor<4x6x4xf32>) -> tensor<4x4xf32>
  %4 = tcc_graph.operator "torch.ops.aten.mean.dim"(%3) {operand_names = ["self"], args = {dim = array<i64: -1>}} : (tensor<4x4xf32>) -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// swapaxes names its dims axis0/axis1 (swapdims dim0/dim1): a transpose of
// those two, not of the default first two.
// CHECK-LABEL: func @swapaxes
// CHECK: tcc_graph.transpose %arg0 {permutation = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
// CHECK: tcc_graph.transpose %arg0 {permutation = array<i64: 2, 1, 0>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
func.func @swapaxes(%x: tensor<2x3x4xf32>) -> (tensor<2x4x3xf32>, tensor<4x3x2xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.swapaxes.default"(%x) {operand_names = ["self"], args = {axis0 = 1 : i64, axis1 = -1 : i64}} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %1 = tcc_graph.operator "torch.ops.aten.swapdims.default"(%x) {operand_names = ["self"], args = {dim0 = 0 : i64, dim1 = 2 : i64}} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  return %0, %1 : tensor<2x4x3xf32>, tensor<4x3x2xf32>
}

// -----

// Nodes nobody reads are dropped before legalization, not refused
// (wav2vec2's LayerDrop draws a random number in eval mode and ignores it);
// a dead chain goes whole.
// CHECK-LABEL: func @dead_nodes
// CHECK-NOT:   tcc_graph.operator
// CHECK:       %[[Y:.*]] = tcc_graph.relu %arg0
// CHECK-NEXT:  return %[[Y]]
func.func @dead_nodes(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tcc_graph.operator "torch.ops.aten.rand.default"() {operand_names = [], args = {size = [1]}} : () -> tensor<1xf32>
  %c = tcc_graph.operator "torch.ops.aten.lt.Scalar"(%r) {operand_names = ["self"], args = {other = 0.1 : f64}} : (tensor<1xf32>) -> tensor<1xi1>
  %y = tcc_graph.operator "torch.ops.aten.relu.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A number on the left (core ATen's affine_grid: sub.Tensor(27, arange)):
// a scalar of the result's type (it was "expected a tensor operand 'self'").
// CHECK-LABEL: func @number_minus_tensor
// CHECK: %[[N:.*]] = tcc_graph.constant dense<27> : tensor<i64>
// CHECK: tcc_graph.sub %[[N]], %arg0 : (tensor<i64>, tensor<5xi64>) -> tensor<5xi64>
func.func @number_minus_tensor(%x: tensor<5xi64>) -> tensor<5xi64> {
  %0 = tcc_graph.operator "torch.ops.aten.sub.Tensor"(%x) {operand_names = ["other"], args = {self = 27 : i64}} : (tensor<5xi64>) -> tensor<5xi64>
  return %0 : tensor<5xi64>
}
