// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics | FileCheck %s

// conv3d as a sum over the kernel's depth (2 here) of conv2d ops whose batch
// holds the output's depth: the input padded along depth (1 each side) and
// moved to [N, D, C, H, W], one strided depth slice per kernel depth index,
// the bias added once.
// CHECK-LABEL: func @conv3d
// CHECK: %[[P:.*]] = tcc_graph.concat %{{.*}}, %arg0, %{{.*}} {dim = 2 : i64} : ({{.*}}) -> tensor<2x4x7x6x7xf32>
// CHECK: %[[T:.*]] = tcc_graph.transpose %[[P]] {permutation = array<i64: 0, 2, 1, 3, 4>} : (tensor<2x4x7x6x7xf32>) -> tensor<2x7x4x6x7xf32>
// CHECK: %[[S0:.*]] = tcc_graph.slice %[[T]] {dim = 1 : i64, end = 5 : i64, start = 0 : i64, step = 2 : i64}
// CHECK: %[[X0:.*]] = tcc_graph.reshape %[[S0]] : (tensor<2x3x4x6x7xf32>) -> tensor<6x4x6x7xf32>
// CHECK: %[[C0:.*]] = tcc_graph.conv2d %[[X0]], %{{.*}}, %arg2 {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<6x4x6x7xf32>, tensor<3x4x3x3xf32>, tensor<3xf32>) -> tensor<6x3x6x7xf32>
// CHECK: tcc_graph.slice %[[T]] {dim = 1 : i64, end = 6 : i64, start = 1 : i64, step = 2 : i64}
// CHECK: %[[C1:.*]] = tcc_graph.conv2d %{{.*}}, %{{.*}} {{{.*}}} : (tensor<6x4x6x7xf32>, tensor<3x4x3x3xf32>) -> tensor<6x3x6x7xf32>
// CHECK: %[[SUM:.*]] = tcc_graph.add %[[C0]], %[[C1]]
// CHECK: %[[R:.*]] = tcc_graph.reshape %[[SUM]] : (tensor<6x3x6x7xf32>) -> tensor<2x3x3x6x7xf32>
// CHECK: %[[Y:.*]] = tcc_graph.transpose %[[R]] {permutation = array<i64: 0, 2, 1, 3, 4>}
// CHECK: return %[[Y]]
func.func @conv3d(%x: tensor<2x4x5x6x7xf32>, %w: tensor<3x4x2x3x3xf32>, %b: tensor<3xf32>) -> tensor<2x3x3x6x7xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.conv3d.default"(%x, %w, %b) {operand_names = ["input", "weight", "bias"], args = {stride = array<i64: 2, 1, 1>, padding = array<i64: 1, 1, 1>}} : (tensor<2x4x5x6x7xf32>, tensor<3x4x2x3x3xf32>, tensor<3xf32>) -> tensor<2x3x3x6x7xf32>
  return %0 : tensor<2x3x3x6x7xf32>
}

// -----

// padding='same' with an even kernel: dilation * (k - 1) = 3 split as 1
// before and 2 after, the odd one as explicit zeros; an unbatched input is a
// batch of one.
// CHECK-LABEL: func @conv2d_same_unbatched
// CHECK: %[[X:.*]] = tcc_graph.reshape %arg0 : (tensor<4x5x5xf32>) -> tensor<1x4x5x5xf32>
// CHECK: %[[Z:.*]] = tcc_graph.constant dense<0.000000e+00> : tensor<1x4x1x5xf32>
// CHECK: %[[P:.*]] = tcc_graph.concat %[[X]], %[[Z]] {dim = 2 : i64}
// CHECK: %[[C:.*]] = tcc_graph.conv2d %[[P]], %arg1 {dilation = array<i64: 3, 3>, groups = 1 : i64, padding = array<i64: 1, 3>, stride = array<i64: 1, 1>} : (tensor<1x4x6x5xf32>, tensor<1x4x2x3xf32>) -> tensor<1x1x5x5xf32>
// CHECK: tcc_graph.reshape %[[C]] : (tensor<1x1x5x5xf32>) -> tensor<1x5x5xf32>
func.func @conv2d_same_unbatched(%x: tensor<4x5x5xf32>, %w: tensor<1x4x2x3xf32>) -> tensor<1x5x5xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.conv2d.padding"(%x, %w) {operand_names = ["input", "weight"], args = {padding = "same", dilation = array<i64: 3>}} : (tensor<4x5x5xf32>, tensor<1x4x2x3xf32>) -> tensor<1x5x5xf32>
  return %0 : tensor<1x5x5xf32>
}

// -----

// conv1d with padding='valid' on an unbatched input.
// CHECK-LABEL: func @conv1d_valid_unbatched
// CHECK: tcc_graph.conv2d %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 2>} : (tensor<1x4x1x5xf32>, tensor<1x4x1x3xf32>) -> tensor<1x1x1x2xf32>
func.func @conv1d_valid_unbatched(%x: tensor<4x5xf32>, %w: tensor<1x4x3xf32>) -> tensor<1x2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.conv1d.padding"(%x, %w) {operand_names = ["input", "weight"], args = {padding = "valid", stride = array<i64: 2>}} : (tensor<4x5xf32>, tensor<1x4x3xf32>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}

// -----

// conv_transpose3d: spread by the stride, padded, the kernel flipped along
// its three spatial dims, then the 3-D convolution as above.
// CHECK-LABEL: func @conv_transpose3d
// CHECK: %[[X:.*]] = tcc_graph.concat {{.*}} -> tensor<1x2x5x5x5xf32>
// CHECK-COUNT-3: tcc_graph.take
// CHECK: tcc_graph.transpose %{{.*}} {permutation = array<i64: 0, 2, 1, 3, 4, 5>} : (tensor<1x2x3x2x2x2xf32>) -> tensor<1x3x2x2x2x2xf32>
// CHECK: tcc_graph.transpose %[[X]] {permutation = array<i64: 0, 2, 1, 3, 4>}
// CHECK-COUNT-2: tcc_graph.conv2d {{.*}} : (tensor<4x2x5x5xf32>, tensor<3x2x2x2xf32>) -> tensor<4x3x4x4xf32>
// CHECK: tcc_graph.add
// CHECK: tcc_graph.transpose {{.*}} -> tensor<1x3x4x4x4xf32>
func.func @conv_transpose3d(%x: tensor<1x2x2x2x2xf32>, %w: tensor<2x3x2x2x2xf32>) -> tensor<1x3x4x4x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.conv_transpose3d.input"(%x, %w) {operand_names = ["input", "weight"], args = {stride = array<i64: 2>}} : (tensor<1x2x2x2x2xf32>, tensor<2x3x2x2x2xf32>) -> tensor<1x3x4x4x4xf32>
  return %0 : tensor<1x3x4x4x4xf32>
}

// -----

func.func @conv3d_dynamic(%x: tensor<1x2x?x4x4xf32>, %w: tensor<3x2x1x1x1xf32>) -> tensor<1x3x?x4x4xf32> {
  // expected-error @+1 {{3-D convolution needs static channel and spatial sizes}}
  %0 = tcc_graph.operator "torch.ops.aten.conv3d.default"(%x, %w) {operand_names = ["input", "weight"], args = {}} : (tensor<1x2x?x4x4xf32>, tensor<3x2x1x1x1xf32>) -> tensor<1x3x?x4x4xf32>
  return %0 : tensor<1x3x?x4x4xf32>
}

// -----

// im2col (nn.functional.unfold): one strided slice of the padded input per
// kernel offset, stacked after the channels: [N, C * kh * kw, L].
// CHECK-LABEL: func @im2col
// CHECK: %[[P:.*]] = tcc_graph.concat {{.*}} {dim = 2 : i64} : ({{.*}}) -> tensor<2x3x6x4xf32>
// CHECK: %[[R:.*]] = tcc_graph.slice %[[P]] {dim = 2 : i64, end = 5 : i64, start = 0 : i64, step = 2 : i64}
// CHECK: tcc_graph.slice %[[R]] {dim = 3 : i64, end = 3 : i64, start = 0 : i64, step = 1 : i64} : (tensor<2x3x3x4xf32>) -> tensor<2x3x3x3xf32>
// CHECK-COUNT-3: tcc_graph.slice %{{.*}} {dim = 3 : i64
// CHECK: %[[S:.*]] = tcc_graph.concat {{.*}} {dim = 2 : i64} : ({{.*}}) -> tensor<2x3x4x3x3xf32>
// CHECK: tcc_graph.reshape %[[S]] : (tensor<2x3x4x3x3xf32>) -> tensor<2x12x9xf32>
func.func @im2col(%x: tensor<2x3x4x4xf32>) -> tensor<2x12x9xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.im2col.default"(%x) {operand_names = ["self"], args = {kernel_size = array<i64: 2, 2>, dilation = array<i64: 1, 1>, padding = array<i64: 1, 0>, stride = array<i64: 2, 1>}} : (tensor<2x3x4x4xf32>) -> tensor<2x12x9xf32>
  return %0 : tensor<2x12x9xf32>
}

// -----

// im2col over symbolic sizes: per spatial dim the windows' positions
// k * dilation + o * stride from iotas (a symbolic window count read at run
// time, the call checking one window fits), two takes, the kernel offsets
// moved before the windows, then [N, C * kh * kw, oh * ow] by the run-time
// sizes.
// CHECK-LABEL: func @im2col_symbolic
// CHECK: %[[OK:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "ge"}
// CHECK: tcc_graph.check %[[OK]], %{{.*}} "aten.im2col.default: no window of 2 fits spatial dim 0"
// CHECK: tcc_graph.iota sizes(%{{.*}}) {start = 0.000000e+00 : f64, step = 2.000000e+00 : f64} : tensor<?xi64>
// CHECK: %[[ROWS:.*]] = tcc_graph.take %{{.*}}, %{{.*}} {dim = 2 : i64} : (tensor<?x3x?x?xf32>, tensor<2x?xi64>) -> tensor<?x3x2x?x?xf32>
// CHECK: %[[TILES:.*]] = tcc_graph.take %[[ROWS]], %{{.*}} {dim = 4 : i64} : (tensor<?x3x2x?x?xf32>, tensor<2x?xi64>) -> tensor<?x3x2x?x2x?xf32>
// CHECK: %[[T:.*]] = tcc_graph.transpose %[[TILES]] {permutation = array<i64: 0, 1, 2, 4, 3, 5>}
// CHECK: tcc_graph.reshape %[[T]] sizes(%{{.*}}, %{{.*}}) : (tensor<?x3x2x2x?x?xf32>) -> tensor<?x12x?xf32>
func.func @im2col_symbolic(%x: tensor<?x3x?x?xf32>) -> tensor<?x12x?xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.im2col.default"(%x) {operand_names = ["self"], args = {kernel_size = array<i64: 2, 2>, dilation = array<i64: 1, 1>, padding = array<i64: 1, 0>, stride = array<i64: 2, 1>}} : (tensor<?x3x?x?xf32>) -> tensor<?x12x?xf32>
  return %0 : tensor<?x12x?xf32>
}

// -----

// _convolution (both overloads) is convolution with backend flags that
// change no result: the same conv2d; transposed=True the transposed form.
// CHECK-LABEL: func @underscore_convolution
// CHECK: tcc_graph.conv2d %arg0, %arg1, %arg2 {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>}
// CHECK: tcc_graph.conv2d %arg0, %arg1 {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>}
func.func @underscore_convolution(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x2x2xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten._convolution.default"(%x, %w, %b) {operand_names = ["input", "weight", "bias"], args = {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64, benchmark = false, deterministic = false, cudnn_enabled = false, allow_tf32 = false}} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %1 = tcc_graph.operator "torch.ops.aten._convolution.deprecated"(%x, %w) {operand_names = ["input", "weight"], args = {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64, benchmark = false, deterministic = false, cudnn_enabled = false}} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x2x2xf32>
  return %0, %1 : tensor<1x4x6x6xf32>, tensor<1x4x2x2xf32>
}

// -----

// A bf16 conv3d over a kernel depth of 2: the operands widened to f32, the
// depth slices' 2-D convolutions summed in f32, one rounding at the end (as
// PyTorch accumulates the 3-D window; bf16 partial sums were 12 ulps off).
// CHECK-LABEL: func @conv3d_bf16
// CHECK-DAG: tcc_graph.cast %arg0 {{.*}} -> tensor<1x2x4x5x5xf32>
// CHECK-DAG: tcc_graph.cast %arg1 {{.*}} -> tensor<3x2x2x3x3xf32>
// CHECK-COUNT-2: tcc_graph.conv2d {{.*}} -> tensor<3x3x3x3xf32>
// CHECK: tcc_graph.add {{.*}} -> tensor<3x3x3x3xf32>
// CHECK: tcc_graph.cast {{.*}} -> tensor<1x3x3x3x3xbf16>
// CHECK-NOT: tcc_graph.conv2d
func.func @conv3d_bf16(%x: tensor<1x2x4x5x5xbf16>, %w: tensor<3x2x2x3x3xbf16>) -> tensor<1x3x3x3x3xbf16> {
  %0 = tcc_graph.operator "torch.ops.aten.conv3d.default"(%x, %w) {operand_names = ["input", "weight"], args = {}} : (tensor<1x2x4x5x5xbf16>, tensor<3x2x2x3x3xbf16>) -> tensor<1x3x3x3x3xbf16>
  return %0 : tensor<1x3x3x3x3xbf16>
}
