// RUN: tcc-opt %s -tcc-hoist-weight-expressions -split-input-file | FileCheck %s
// RUN: tcc-opt %s -tcc-hoist-weight-expressions="max-elements=16" -split-input-file | FileCheck %s --check-prefix=SMALL

// Inference batch norm as tcc-legalize-graph writes it: scale and shift
// become derived weights, the reshapes to [C, 1, 1] stay in the graph on
// them, and the batch norm's weights, read by nothing else, are host-only.
// The f64 epsilon cast to f32 is part of the program ("cast:float32").
// CHECK-LABEL: func @batch_norm
// CHECK-SAME: %arg1: tensor<8xf32> {tcc.host_only, tcc.name = "bn.weight", tcc.role = "weight"
// CHECK-SAME: %arg2: tensor<8xf32> {tcc.host_only, tcc.name = "bn.bias", tcc.role = "weight"
// CHECK-SAME: %arg3: tensor<8xf32> {tcc.host_only, tcc.name = "bn.running_mean", tcc.role = "weight"
// CHECK-SAME: %arg4: tensor<8xf32> {tcc.host_only, tcc.name = "bn.running_var", tcc.role = "weight"
// CHECK-SAME: %arg5: tensor<8xf32> {tcc.derived = ["weight:bn.running_var", "const:1.0000000000000001e-05", "cast:float32", "add", "rsqrt", "weight:bn.weight", "mul"], tcc.name = "derived:bn.weight:0", tcc.role = "weight", tcc.sizes = [8]}
// CHECK-SAME: %arg6: tensor<8xf32> {tcc.derived = ["const:0", "weight:bn.running_mean", "weight:bn.running_var", "const:1.0000000000000001e-05", "cast:float32", "add", "rsqrt", "weight:bn.weight", "mul", "mul", "sub", "weight:bn.bias", "add"], tcc.name = "derived:bn.weight:1", tcc.role = "weight", tcc.sizes = [8]}
// CHECK-NOT: tcc_graph.rsqrt
// CHECK: %[[SCALE:.*]] = tcc_graph.reshape %arg5 : (tensor<8xf32>) -> tensor<8x1x1xf32>
// CHECK: %[[SHIFT:.*]] = tcc_graph.reshape %arg6 : (tensor<8xf32>) -> tensor<8x1x1xf32>
// CHECK: %[[Y:.*]] = tcc_graph.mul %arg0, %[[SCALE]]
// CHECK: tcc_graph.add %[[Y]], %[[SHIFT]]
// CHECK-NOT: tcc_graph.constant
// SMALL-LABEL: func @batch_norm
// SMALL: tcc.name = "derived:bn.weight:0"
func.func @batch_norm(%x: tensor<2x8x4x4xf32> {tcc.name = "x", tcc.role = "input", tcc.sizes = [2, 8, 4, 4]},
                      %w: tensor<8xf32> {tcc.name = "bn.weight", tcc.role = "weight", tcc.sizes = [8]},
                      %b: tensor<8xf32> {tcc.name = "bn.bias", tcc.role = "weight", tcc.sizes = [8]},
                      %mean: tensor<8xf32> {tcc.name = "bn.running_mean", tcc.role = "weight", tcc.sizes = [8]},
                      %var: tensor<8xf32> {tcc.name = "bn.running_var", tcc.role = "weight", tcc.sizes = [8]}) -> tensor<2x8x4x4xf32> {
  %eps = tcc_graph.constant dense<1.0e-05> : tensor<f64>
  %epsf = tcc_graph.cast %eps : (tensor<f64>) -> tensor<f32>
  %zero = tcc_graph.constant dense<0.0> : tensor<f32>
  %0 = tcc_graph.add %var, %epsf : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = tcc_graph.rsqrt %0 : tensor<8xf32>
  %2 = tcc_graph.mul %1, %w : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = tcc_graph.mul %mean, %2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = tcc_graph.sub %zero, %3 : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %5 = tcc_graph.add %4, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %6 = tcc_graph.reshape %2 : (tensor<8xf32>) -> tensor<8x1x1xf32>
  %7 = tcc_graph.reshape %5 : (tensor<8xf32>) -> tensor<8x1x1xf32>
  %8 = tcc_graph.mul %x, %6 : (tensor<2x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<2x8x4x4xf32>
  %9 = tcc_graph.add %8, %7 : (tensor<2x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<2x8x4x4xf32>
  return %9 : tensor<2x8x4x4xf32>
}

// -----

// Batch norm folded into a convolution's weights, W' = W * scale[F, 1, 1, 1]:
// one derived weight of the convolution's shape, W host-only. The program
// keeps the reshape below the arithmetic. With max-elements=16 the [4, 3, 3, 3]
// product is too large: only the scale (4 elements) is derived.
// CHECK-LABEL: func @folded_conv
// CHECK-SAME: %arg1: tensor<4x3x3x3xf32> {tcc.host_only, tcc.name = "conv.weight"
// CHECK-SAME: %arg4: tensor<4x3x3x3xf32> {tcc.derived = ["weight:conv.weight", "weight:bn.running_var", "const:0.5", "add", "rsqrt", "weight:bn.weight", "mul", "reshape:4,1,1,1", "mul"], tcc.name = "derived:conv.weight:0", tcc.role = "weight", tcc.sizes = [4, 3, 3, 3]}
// CHECK-NEXT: tcc_graph.conv2d %arg0, %arg4 {
// CHECK-NOT: tcc_graph.mul
// SMALL-LABEL: func @folded_conv
// SMALL-SAME: %arg1: tensor<4x3x3x3xf32> {tcc.name = "conv.weight"
// SMALL-SAME: %arg4: tensor<4xf32> {tcc.derived = ["weight:bn.running_var", "const:0.5", "add", "rsqrt", "weight:bn.weight", "mul"], tcc.name = "derived:bn.weight:0"
// SMALL: %[[S:.*]] = tcc_graph.reshape %arg4 : (tensor<4xf32>) -> tensor<4x1x1x1xf32>
// SMALL: %[[W:.*]] = tcc_graph.mul %arg1, %[[S]]
// SMALL: tcc_graph.conv2d %arg0, %[[W]]
func.func @folded_conv(%x: tensor<1x3x8x8xf32> {tcc.name = "x", tcc.role = "input", tcc.sizes = [1, 3, 8, 8]},
                       %cw: tensor<4x3x3x3xf32> {tcc.name = "conv.weight", tcc.role = "weight", tcc.sizes = [4, 3, 3, 3]},
                       %w: tensor<4xf32> {tcc.name = "bn.weight", tcc.role = "weight", tcc.sizes = [4]},
                       %var: tensor<4xf32> {tcc.name = "bn.running_var", tcc.role = "weight", tcc.sizes = [4]}) -> tensor<1x4x6x6xf32> {
  %half = tcc_graph.constant dense<0.5> : tensor<f32>
  %0 = tcc_graph.add %var, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = tcc_graph.rsqrt %0 : tensor<4xf32>
  %2 = tcc_graph.mul %1, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = tcc_graph.reshape %2 : (tensor<4xf32>) -> tensor<4x1x1x1xf32>
  %4 = tcc_graph.mul %cw, %3 : (tensor<4x3x3x3xf32>, tensor<4x1x1x1xf32>) -> tensor<4x3x3x3xf32>
  %5 = tcc_graph.conv2d %x, %4 {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %5 : tensor<1x4x6x6xf32>
}

// -----

// Views of a weight cost nothing today: a transposed linear weight and a
// reshaped bias are left alone, and the weight stays on the device.
// CHECK-LABEL: func @pure_views
// CHECK-NOT: tcc.derived
// CHECK-NOT: tcc.host_only
// CHECK: tcc_graph.transpose %arg1
// CHECK: tcc_graph.reshape %arg2
func.func @pure_views(%x: tensor<2x16xf32> {tcc.name = "x", tcc.role = "input", tcc.sizes = [2, 16]},
                      %w: tensor<10x16xf32> {tcc.name = "fc.weight", tcc.role = "weight", tcc.sizes = [10, 16]},
                      %b: tensor<10xf32> {tcc.name = "fc.bias", tcc.role = "weight", tcc.sizes = [10]}) -> tensor<2x10xf32> {
  %0 = tcc_graph.transpose %w {permutation = array<i64: 1, 0>} : (tensor<10x16xf32>) -> tensor<16x10xf32>
  %1 = tcc_graph.matmul %x, %0 : (tensor<2x16xf32>, tensor<16x10xf32>) -> tensor<2x10xf32>
  %2 = tcc_graph.reshape %b : (tensor<10xf32>) -> tensor<1x10xf32>
  %3 = tcc_graph.add %1, %2 : (tensor<2x10xf32>, tensor<1x10xf32>) -> tensor<2x10xf32>
  return %3 : tensor<2x10xf32>
}

// -----

// A transposed derived weight: the transpose stays in the graph, where GEMM
// formation recognises it, above the derived argument; a cast between float
// types is arithmetic.
// CHECK-LABEL: func @transposed_cast
// CHECK-SAME: %arg1: tensor<10x16xbf16> {tcc.host_only, tcc.name = "fc.weight"
// CHECK-SAME: %arg2: tensor<10x16xf32> {tcc.derived = ["weight:fc.weight", "cast:float32"], tcc.name = "derived:fc.weight:0"
// CHECK: %[[T:.*]] = tcc_graph.transpose %arg2 {permutation = array<i64: 1, 0>}
// CHECK: tcc_graph.matmul %arg0, %[[T]]
func.func @transposed_cast(%x: tensor<2x16xf32> {tcc.name = "x", tcc.role = "input", tcc.sizes = [2, 16]},
                           %w: tensor<10x16xbf16> {tcc.name = "fc.weight", tcc.role = "weight", tcc.sizes = [10, 16]}) -> tensor<2x10xf32> {
  %0 = tcc_graph.cast %w : (tensor<10x16xbf16>) -> tensor<10x16xf32>
  %1 = tcc_graph.transpose %0 {permutation = array<i64: 1, 0>} : (tensor<10x16xf32>) -> tensor<16x10xf32>
  %2 = tcc_graph.matmul %x, %1 : (tensor<2x16xf32>, tensor<16x10xf32>) -> tensor<2x10xf32>
  return %2 : tensor<2x10xf32>
}

// -----

// Dynamic shapes are never derived: the broadcast to the batch size stays in
// the graph (on the derived [1, 8] product below it), and arithmetic that
// reads an input is no weight expression.
// CHECK-LABEL: func @dynamic_broadcast
// CHECK-SAME: %arg2: tensor<1x8xf32> {tcc.derived = ["weight:scale", "const:2", "mul"], tcc.name = "derived:scale:0"
// CHECK: %[[N:.*]] = tensor.dim %arg0
// CHECK: %[[B:.*]] = tcc_graph.broadcast %arg2 sizes(%[[N]]) : (tensor<1x8xf32>) -> tensor<?x8xf32>
// CHECK: %[[Y:.*]] = tcc_graph.mul %arg0, %[[B]]
// CHECK: tcc_graph.add %[[Y]], %arg1
func.func @dynamic_broadcast(%x: tensor<?x8xf32> {tcc.name = "x", tcc.role = "input", tcc.sizes = ["s0", 8]},
                             %s: tensor<1x8xf32> {tcc.name = "scale", tcc.role = "weight", tcc.sizes = [1, 8]}) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %two = tcc_graph.constant dense<2.0> : tensor<f32>
  %0 = tcc_graph.mul %s, %two : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %1 = tcc_graph.broadcast %0 sizes(%n) : (tensor<1x8xf32>) -> tensor<?x8xf32>
  %2 = tcc_graph.mul %x, %1 : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %3 = tcc_graph.add %2, %s : (tensor<?x8xf32>, tensor<1x8xf32>) -> tensor<?x8xf32>
  return %3 : tensor<?x8xf32>
}

// -----

// A weight expression that is only returned stays (an output must not alias
// a weight); one used directly and through a view is derived once; a name
// already taken by a parameter is skipped.
// CHECK-LABEL: func @returned_and_shared
// CHECK-SAME: %arg1: tensor<4xf32> {tcc.name = "w", tcc.role = "weight"
// CHECK-SAME: %arg2: tensor<4xf32> {tcc.host_only, tcc.name = "derived:w:0", tcc.role = "weight"
// CHECK-SAME: %arg3: tensor<4xf32> {tcc.derived = ["weight:w", "exp"], tcc.name = "derived:w:1"
// CHECK-NOT: tcc.derived
// CHECK: %[[R:.*]] = tcc_graph.reshape %arg3 : (tensor<4xf32>) -> tensor<1x4xf32>
// CHECK: %[[M:.*]] = tcc_graph.mul %arg0, %[[R]]
// CHECK: %[[A:.*]] = tcc_graph.add %arg0, %arg3
// CHECK: %[[E:.*]] = tcc_graph.exp %arg1
// CHECK: return %[[M]], %[[A]], %[[E]]
func.func @returned_and_shared(%x: tensor<2x4xf32> {tcc.name = "x", tcc.role = "input", tcc.sizes = [2, 4]},
                               %w: tensor<4xf32> {tcc.name = "w", tcc.role = "weight", tcc.sizes = [4]},
                               %taken: tensor<4xf32> {tcc.name = "derived:w:0", tcc.role = "weight", tcc.sizes = [4]})
    -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>) {
  %0 = tcc_graph.exp %w : tensor<4xf32>
  %1 = tcc_graph.reshape %0 : (tensor<4xf32>) -> tensor<1x4xf32>
  %2 = tcc_graph.mul %x, %1 : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  %3 = tcc_graph.add %x, %0 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %4 = tcc_graph.exp %w : tensor<4xf32>
  return %2, %3, %4 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>
}

// -----

// Arithmetic on constants alone reads no weight: it stays in the graph.
// CHECK-LABEL: func @constants_only
// CHECK-NOT: tcc.derived
// CHECK: %[[C:.*]] = tcc_graph.cast
// CHECK: tcc_graph.mul %arg0, %[[C]]
func.func @constants_only(%x: tensor<4xf32> {tcc.name = "x", tcc.role = "input", tcc.sizes = [4]}) -> tensor<4xf32> {
  %c = tcc_graph.constant dense<3.0> : tensor<f64>
  %0 = tcc_graph.cast %c : (tensor<f64>) -> tensor<f32>
  %1 = tcc_graph.mul %x, %0 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Swin's shifted-window mask as torch.export writes it: a zero tensor whose
// slices are filled from lifted scalar constants (weights), compared and
// selected. The whole mask becomes one derived weight; a value read twice
// within it (%filled) is computed once (keep/recall), the comparison's i1
// stays inside the program, and the view above the select stays in the graph.
// CHECK-LABEL: func @window_mask
// CHECK-SAME: %arg1: tensor<f32> {tcc.host_only, tcc.name = "lifted_tensor_0"
// CHECK-SAME: %arg2: tensor<4x4x4xf32> {tcc.derived = ["const:0", "broadcast:4,4", "slice:0,0,1,2", "weight:lifted_tensor_0", "broadcast:2,4", "concat:0", "keep:0", "reshape:4,1,4", "recall:0", "reshape:4,4,1", "sub", "const:0", "compare:ne", "const:-100", "const:0", "select"], tcc.name = "derived:lifted_tensor_0:0", tcc.role = "weight", tcc.sizes = [4, 4, 4]}
// CHECK-NOT: tcc_graph.compare
// CHECK-NOT: tcc_graph.slice
// CHECK: %[[M:.*]] = tcc_graph.reshape %arg2 : (tensor<4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK: tcc_graph.add %arg0, %[[M]]
func.func @window_mask(%x: tensor<2x4x4x4xf32> {tcc.name = "x", tcc.role = "input", tcc.sizes = [2, 4, 4, 4]},
                       %c: tensor<f32> {tcc.name = "lifted_tensor_0", tcc.role = "weight", tcc.sizes = []}) -> tensor<2x4x4x4xf32> {
  %zero = tcc_graph.constant dense<0.0> : tensor<4x4xf32>
  %top = tcc_graph.slice %zero {dim = 0 : i64, start = 0 : i64, end = 2 : i64, step = 1 : i64} : (tensor<4x4xf32>) -> tensor<2x4xf32>
  %fill = tcc_graph.broadcast %c : (tensor<f32>) -> tensor<2x4xf32>
  %filled = tcc_graph.concat %top, %fill {dim = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %row = tcc_graph.reshape %filled : (tensor<4x4xf32>) -> tensor<4x1x4xf32>
  %col = tcc_graph.reshape %filled : (tensor<4x4xf32>) -> tensor<4x4x1xf32>
  %diff = tcc_graph.sub %row, %col : (tensor<4x1x4xf32>, tensor<4x4x1xf32>) -> tensor<4x4x4xf32>
  %z = tcc_graph.constant dense<0.0> : tensor<f32>
  %ne = tcc_graph.compare %diff, %z {predicate = "ne"} : (tensor<4x4x4xf32>, tensor<f32>) -> tensor<4x4x4xi1>
  %big = tcc_graph.constant dense<-100.0> : tensor<f32>
  %mask = tcc_graph.select %ne, %big, %z : (tensor<4x4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<4x4x4xf32>
  %m4 = tcc_graph.reshape %mask : (tensor<4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %y = tcc_graph.add %x, %m4 : (tensor<2x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  return %y : tensor<2x4x4x4xf32>
}

// -----

// A relative-position bias (Swin, T5-style tables): a float table taken by an
// integer index buffer, viewed per head. The take is the program (the views
// above it stay in the graph); the index buffer and the table become host-only.
// CHECK-LABEL: func @relative_position_bias
// CHECK-SAME: %arg1: tensor<7x2xf32> {tcc.host_only, tcc.name = "table"
// CHECK-SAME: %arg2: tensor<9xi64> {tcc.host_only, tcc.name = "index"
// CHECK-SAME: %arg3: tensor<9x2xf32> {tcc.derived = ["weight:table", "weight:index", "take:0"], tcc.name = "derived:table:0"
// CHECK-NOT: tcc_graph.take
// CHECK: %[[R:.*]] = tcc_graph.reshape %arg3 : (tensor<9x2xf32>) -> tensor<3x3x2xf32>
// CHECK: tcc_graph.transpose %[[R]]
func.func @relative_position_bias(%x: tensor<4x2x3x3xf32> {tcc.name = "x", tcc.role = "input", tcc.sizes = [4, 2, 3, 3]},
                                  %t: tensor<7x2xf32> {tcc.name = "table", tcc.role = "weight", tcc.sizes = [7, 2]},
                                  %i: tensor<9xi64> {tcc.name = "index", tcc.role = "weight", tcc.sizes = [9]}) -> tensor<4x2x3x3xf32> {
  %g = tcc_graph.take %t, %i {dim = 0 : i64} : (tensor<7x2xf32>, tensor<9xi64>) -> tensor<9x2xf32>
  %r = tcc_graph.reshape %g : (tensor<9x2xf32>) -> tensor<3x3x2xf32>
  %p = tcc_graph.transpose %r {permutation = array<i64: 2, 0, 1>} : (tensor<3x3x2xf32>) -> tensor<2x3x3xf32>
  %b = tcc_graph.reshape %p : (tensor<2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %y = tcc_graph.add %x, %b : (tensor<4x2x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<4x2x3x3xf32>
  return %y : tensor<4x2x3x3xf32>
}

// -----

// Rotary tables (LLaMA's): positions (an iota, offset by 0, cast to f32 —
// known here, a sequence: one `iota` token) times the inverse frequencies,
// joined twice, cos and sin, cast to bf16. Each table is a derived weight;
// the positions feeding anything else stay in the graph.
// CHECK-LABEL: func @rotary_tables
// CHECK-SAME: tcc.derived = ["iota:4,0,1", "reshape:1,4,1", "weight:inv_freq", "mul", "keep:0", "recall:0", "concat:2", "cos", "cast:bfloat16"], tcc.name = "derived:inv_freq:0"
// CHECK-SAME: tcc.derived = ["iota:4,0,1", "reshape:1,4,1", "weight:inv_freq", "mul", "keep:0", "recall:0", "concat:2", "sin", "cast:bfloat16"], tcc.name = "derived:inv_freq:1"
// CHECK-NOT: tcc_graph.cos
// CHECK-NOT: tcc_graph.sin
// CHECK: tcc_graph.iota
func.func @rotary_tables(%x: tensor<2x4x4xbf16> {tcc.name = "x", tcc.role = "input", tcc.sizes = [2, 4, 4]},
                         %f: tensor<2xf32> {tcc.name = "inv_freq", tcc.role = "weight", tcc.sizes = [2]})
    -> (tensor<2x4x4xbf16>, tensor<4xi64>) {
  %i = tcc_graph.iota {start = 0.0 : f64, step = 1.0 : f64} : tensor<4xi64>
  %zero = tcc_graph.constant dense<0> : tensor<i64>
  %pos = tcc_graph.add %i, %zero : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
  %col = tcc_graph.reshape %pos : (tensor<4xi64>) -> tensor<1x4x1xi64>
  %pf = tcc_graph.cast %col : (tensor<1x4x1xi64>) -> tensor<1x4x1xf32>
  %freqs = tcc_graph.mul %pf, %f : (tensor<1x4x1xf32>, tensor<2xf32>) -> tensor<1x4x2xf32>
  %emb = tcc_graph.concat %freqs, %freqs {dim = 2 : i64} : (tensor<1x4x2xf32>, tensor<1x4x2xf32>) -> tensor<1x4x4xf32>
  %c = tcc_graph.cos %emb : tensor<1x4x4xf32>
  %s = tcc_graph.sin %emb : tensor<1x4x4xf32>
  %cb = tcc_graph.cast %c : (tensor<1x4x4xf32>) -> tensor<1x4x4xbf16>
  %sb = tcc_graph.cast %s : (tensor<1x4x4xf32>) -> tensor<1x4x4xbf16>
  %xc = tcc_graph.mul %x, %cb : (tensor<2x4x4xbf16>, tensor<1x4x4xbf16>) -> tensor<2x4x4xbf16>
  %xs = tcc_graph.mul %x, %sb : (tensor<2x4x4xbf16>, tensor<1x4x4xbf16>) -> tensor<2x4x4xbf16>
  %y = tcc_graph.add %xc, %xs : (tensor<2x4x4xbf16>, tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  return %y, %pos : tensor<2x4x4xbf16>, tensor<4xi64>
}
