// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// max_pool1d_with_indices (kernel 3, stride 2, padding 1 over 9): the values
// by the pooling lowering; the windows' input positions o * 2 - 1 + k from
// iotas, -1 outside [0, 9); one take of every window [6, 5, 3]; the index
// kept is the last NaN of a window, else its first maximum (window - max of
// window - k over the maxima), as PyTorch's `val > maxval || isnan(val)`.
// CHECK-LABEL: func @max_pool1d
// CHECK: %[[VALUES:.*]] = tcc_graph.reshape %{{.*}} : (tensor<2x3x1x5xf32>) -> tensor<2x3x5xf32>
// CHECK: %[[O:.*]] = tcc_graph.reshape %{{.*}} : (tensor<5xi64>) -> tensor<5x1xi64>
// CHECK: %[[K:.*]] = tcc_graph.reshape %{{.*}} : (tensor<3xi64>) -> tensor<1x3xi64>
// CHECK: %[[POS:.*]] = tcc_graph.add %{{.*}}, %{{.*}} : (tensor<5x1xi64>, tensor<1x3xi64>) -> tensor<5x3xi64>
// CHECK: %[[TABLE:.*]] = tcc_graph.select %{{.*}}, %[[POS]], %{{.*}} : (tensor<5x3xi1>, tensor<5x3xi64>, tensor<i64>) -> tensor<5x3xi64>
// CHECK: %[[INSIDE:.*]] = tcc_graph.compare %[[TABLE]], %{{.*}} {predicate = "ge"}
// CHECK: %[[CLAMPED:.*]] = tcc_graph.maximum %[[TABLE]]
// CHECK: %[[FLAT:.*]] = tcc_graph.reshape %arg0 : (tensor<2x3x9xf32>) -> tensor<6x9xf32>
// CHECK: %[[WINDOWS:.*]] = tcc_graph.take %[[FLAT]], %[[CLAMPED]] {dim = 1 : i64} : (tensor<6x9xf32>, tensor<5x3xi64>) -> tensor<6x5x3xf32>
// CHECK: %[[NAN:.*]] = tcc_graph.compare %[[WINDOWS]], %[[WINDOWS]] {predicate = "ne"}
// CHECK: %[[LARGEST:.*]] = tcc_graph.reduce_max %{{.*}} {dims = array<i64: 2>, keepdim = true} : (tensor<6x5x3xf32>) -> tensor<6x5x1xf32>
// CHECK: tcc_graph.compare %[[WINDOWS]], %[[LARGEST]] {predicate = "eq"}
// CHECK: %[[HASNAN:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "gt"} : (tensor<6x5x1xf32>, tensor<f32>) -> tensor<6x5x1xi1>
// CHECK: %[[CHOSEN:.*]] = tcc_graph.select %[[HASNAN]]
// CHECK: %[[OFFSET:.*]] = tcc_graph.cast %[[CHOSEN]] : (tensor<6x5x1xf32>) -> tensor<6x5x1xi64>
// CHECK: %[[EVERY:.*]] = tcc_graph.broadcast %[[CLAMPED]] : (tensor<5x3xi64>) -> tensor<6x5x3xi64>
// CHECK: %[[INDEX:.*]] = tcc_graph.gather %[[EVERY]], %[[OFFSET]] {dim = 2 : i64}
// CHECK: %[[R:.*]] = tcc_graph.reshape %[[INDEX]] : (tensor<6x5x1xi64>) -> tensor<2x3x5xi64>
// CHECK: return %[[VALUES]], %[[R]]
func.func @max_pool1d(%x: tensor<2x3x9xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xi64>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.max_pool1d_with_indices.default"(%x) {operand_names = ["self"], args = {kernel_size = array<i64: 3>, stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, ceil_mode = false}} : (tensor<2x3x9xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xi64>)
  return %0#0, %0#1 : tensor<2x3x5xf32>, tensor<2x3x5xi64>
}

// -----

// adaptive_max_pool1d from 7 to 3 of an unbatched [C, L] input: windows
// [floor(o 7 / 3), ceil((o + 1) 7 / 3)) in f64, at most 3 long.
// CHECK-LABEL: func @adaptive
// CHECK: tcc_graph.concat
// CHECK: tcc_graph.floor %{{.*}} : tensor<3x1xf64>
// CHECK: tcc_graph.ceil %{{.*}} : tensor<3x1xf64>
// CHECK: tcc_graph.take %arg0, %{{.*}} {dim = 1 : i64} : (tensor<2x7xf32>, tensor<3x3xi64>) -> tensor<2x3x3xf32>
// CHECK: tcc_graph.gather
// CHECK: tcc_graph.reshape %{{.*}} : (tensor<2x3x1xi64>) -> tensor<2x3xi64>
func.func @adaptive(%x: tensor<2x7xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.adaptive_max_pool1d.default"(%x) {operand_names = ["self"], args = {output_size = array<i64: 3>}} : (tensor<2x7xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xi64>
}

// -----

// Indices nobody reads are not computed.
// CHECK-LABEL: func @unused_indices
// CHECK: tcc_graph.max_pool2d
// CHECK-NOT: tcc_graph.take
// CHECK: return
func.func @unused_indices(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32> {
  %0:2 = tcc_graph.operator "torch.ops.aten.max_pool2d_with_indices.default"(%x) {operand_names = ["self"], args = {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false}} : (tensor<1x2x6x6xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
  return %0#0 : tensor<1x2x3x3xf32>
}

// -----

// An unbatched max_pool2d ([C, H, W]) is pooled as a batch of one (it was
// taken for 1-D pooling and failed in the linalg lowering).
// CHECK-LABEL: func @unbatched
// CHECK: %[[B:.*]] = tcc_graph.reshape %arg0 : (tensor<2x4x6xf32>) -> tensor<1x2x4x6xf32>
// CHECK: %[[P:.*]] = tcc_graph.max_pool2d %[[B]] {{.*}} : (tensor<1x2x4x6xf32>) -> tensor<1x2x2x3xf32>
// CHECK: tcc_graph.reshape %[[P]] : (tensor<1x2x2x3xf32>) -> tensor<2x2x3xf32>
func.func @unbatched(%x: tensor<2x4x6xf32>) -> tensor<2x2x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.max_pool2d.default"(%x) {operand_names = ["self"], args = {kernel_size = array<i64: 2, 2>}} : (tensor<2x4x6xf32>) -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}

// -----

// Indices over symbolic sizes (sliding windows): the output positions are
// iotas of the pooled values' sizes, the input's sizes bound and flatten the
// positions at run time, and the [outputs, window] table, the planes and
// the result reshape by the run-time sizes.
// CHECK-LABEL: func @indices_symbolic
// CHECK: %[[P:.*]] = tcc_graph.max_pool2d %arg0
// CHECK-DAG: %[[W:.*]] = tcc_graph.dim_size %arg0 {dim = 3 : i64}
// CHECK-DAG: tcc_graph.iota sizes(%{{.*}}) {{.*}} : tensor<?xi64>
// CHECK: %[[FLAT:.*]] = tcc_graph.mul %{{.*}}, %[[W]]
// CHECK: %[[T:.*]] = tcc_graph.reshape %{{.*}} : (tensor<?x?x2x2xi64>) -> tensor<?x4xi64>
// CHECK: tcc_graph.reshape %arg0 sizes(%{{.*}}, %{{.*}}) : (tensor<?x2x?x?xf32>) -> tensor<?x?xf32>
// CHECK: tcc_graph.take {{.*}} -> tensor<?x?x4xf32>
// CHECK: %[[G:.*]] = tcc_graph.gather
// CHECK: %[[I:.*]] = tcc_graph.reshape %[[G]] sizes(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<?x?x1xi64>) -> tensor<?x2x?x?xi64>
// CHECK: return %[[P]], %[[I]]
func.func @indices_symbolic(%x: tensor<?x2x?x?xf32>) -> (tensor<?x2x?x?xf32>, tensor<?x2x?x?xi64>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.max_pool2d_with_indices.default"(%x) {operand_names = ["self"], args = {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false}} : (tensor<?x2x?x?xf32>) -> (tensor<?x2x?x?xf32>, tensor<?x2x?x?xi64>)
  return %0#0, %0#1 : tensor<?x2x?x?xf32>, tensor<?x2x?x?xi64>
}

// -----

// Adaptive windows over a symbolic length n: each reads n positions from
// its start (the longest window depends on n), those past its end outside;
// the window offsets and the first-maximum scores use n read at run time.
// CHECK-LABEL: func @adaptive_indices_symbolic
// CHECK: %[[N:.*]] = tcc_graph.dim_size %arg0 {dim = 1 : i64}
// CHECK: tcc_graph.iota sizes(%{{.*}}) {{.*}} : tensor<?xi64>
// CHECK: tcc_graph.take %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<2x?xf32>, tensor<3x?xi64>) -> tensor<2x3x?xf32>
// CHECK: %[[W:.*]] = tcc_graph.dim_size %{{.*}} {dim = 1 : i64} : (tensor<3x?xi64>) -> tensor<i64>
// CHECK: tcc_graph.cast %[[W]] : (tensor<i64>) -> tensor<f32>
// CHECK: tcc_graph.gather
// CHECK: return
func.func @adaptive_indices_symbolic(%x: tensor<2x?xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.adaptive_max_pool1d.default"(%x) {operand_names = ["self"], args = {output_size = array<i64: 3>}} : (tensor<2x?xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xi64>
}
