// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics | FileCheck %s

// Random operators draw from tcc_graph.random with the state and stream the
// frontend attached (issue 39): rand is the uniform draw, randn a Box-Muller
// transform of streams 2k and 2k + 1, randint low + bits mod (high - low),
// bernoulli a draw below p.
// CHECK-LABEL: func.func @draws
// CHECK: tcc_graph.random %arg0 {stream = 0 : i64} : (tensor<1xi64>) -> tensor<4x8xf32>
// CHECK: %[[U1:.*]] = tcc_graph.random %arg0 sizes(%{{.*}}) {stream = 2 : i64} : (tensor<1xi64>) -> tensor<?x8xf32>
// CHECK: %[[U2:.*]] = tcc_graph.random %arg0 sizes(%{{.*}}) {stream = 3 : i64} : (tensor<1xi64>) -> tensor<?x8xf32>
// CHECK: tcc_graph.log
// CHECK: tcc_graph.sqrt
// CHECK: tcc_graph.cos
// CHECK: %[[BITS:.*]] = tcc_graph.random %arg0 {stream = 4 : i64} : (tensor<1xi64>) -> tensor<16xi64>
// CHECK: tcc_graph.fmod %[[BITS]]
// CHECK: tcc_graph.add
// CHECK: %[[P:.*]] = tcc_graph.random %arg0 {stream = 6 : i64} : (tensor<1xi64>) -> tensor<4x8xf32>
// CHECK: tcc_graph.compare %[[P]], %arg2 {predicate = "lt"}
// CHECK: tcc_graph.cast
func.func @draws(%state: tensor<1xi64>, %x: tensor<?x8xf32> {tcc.sizes = ["s0", 8]}, %p: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<?x8xf32>, tensor<16xi64>, tensor<4x8xf32>) {
  %u = tcc_graph.operator "torch.ops.aten.rand.default"(%state) {operand_names = ["tcc.random_state"], args = {size = array<i64: 4, 8>, "tcc.random_stream" = 0 : i64}} : (tensor<1xi64>) -> tensor<4x8xf32>
  %n = tcc_graph.operator "torch.ops.aten.randn_like.default"(%x, %state) {operand_names = ["self", "tcc.random_state"], args = {"tcc.random_stream" = 1 : i64}, tcc.sizes = [["s0", 8]]} : (tensor<?x8xf32>, tensor<1xi64>) -> tensor<?x8xf32>
  %r = tcc_graph.operator "torch.ops.aten.randint.low"(%state) {operand_names = ["tcc.random_state"], args = {low = 3 : i64, high = 10 : i64, size = array<i64: 16>, "tcc.random_stream" = 2 : i64}} : (tensor<1xi64>) -> tensor<16xi64>
  %b = tcc_graph.operator "torch.ops.aten.bernoulli.default"(%p, %state) {operand_names = ["self", "tcc.random_state"], args = {"tcc.random_stream" = 3 : i64}} : (tensor<4x8xf32>, tensor<1xi64>) -> tensor<4x8xf32>
  return %u, %n, %r, %b : tensor<4x8xf32>, tensor<?x8xf32>, tensor<16xi64>, tensor<4x8xf32>
}

// -----

// An empty range: PyTorch raises, so tcc refuses at compile time.
func.func @empty_range(%state: tensor<1xi64>) -> tensor<16xi64> {
  // expected-error @+1 {{operator 'aten.randint.low': draws from [5, 5), which is empty (PyTorch raises)}}
  %r = tcc_graph.operator "torch.ops.aten.randint.low"(%state) {operand_names = ["tcc.random_state"], args = {low = 5 : i64, high = 5 : i64, size = array<i64: 16>, "tcc.random_stream" = 0 : i64}} : (tensor<1xi64>) -> tensor<16xi64>
  return %r : tensor<16xi64>
}

// -----

// Without the state (a graph not read by tcc compile's frontend).
func.func @no_state() -> tensor<4xf32> {
  // expected-error @+1 {{operator 'aten.rand.default': draws random numbers, which tcc takes only from a .pt2 archive or model.json read by tcc compile}}
  %u = tcc_graph.operator "torch.ops.aten.rand.default"() {operand_names = [], args = {size = array<i64: 4>}} : () -> tensor<4xf32>
  return %u : tensor<4xf32>
}
