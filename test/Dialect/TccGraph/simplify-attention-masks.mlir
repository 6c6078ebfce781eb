// RUN: tcc-opt %s -tcc-simplify-attention-masks -canonicalize -split-input-file | FileCheck %s

// A bool mask from positions (key j kept for query i when j <= i) is the
// causal flag; the ops computing it are dead.
// CHECK-LABEL: func @causal_bool
// CHECK-NOT:     tcc_graph.iota
// CHECK:         tcc_graph.attention %arg0, %arg1, %arg2 {causal, scale = 1.250000e-01 : f64}
func.func @causal_bool(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32> {
  %i = tcc_graph.iota {start = 0.0 : f64, step = 1.0 : f64} : tensor<16xi64>
  %r = tcc_graph.reshape %i : (tensor<16xi64>) -> tensor<16x1xi64>
  %m = tcc_graph.compare %i, %r {predicate = "le"} : (tensor<16xi64>, tensor<16x1xi64>) -> tensor<16x16xi1>
  %o = tcc_graph.attention %q, %k, %v, mask %m {scale = 0.125 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<16x16xi1>) -> tensor<2x4x16x8xf32>
  return %o : tensor<2x4x16x8xf32>
}

// -----

// As transformers builds it for packed sequences: positions broadcast over
// the batch, a cumulative sum of sequence starts, gathers of both by a
// flattened index, and the two comparisons combined.
// CHECK-LABEL: func @causal_packed
// CHECK-NOT:     tcc_graph.cumsum
// CHECK:         tcc_graph.attention %arg0, %arg1, %arg2 {causal, scale = 1.250000e-01 : f64}
func.func @causal_packed(%q: tensor<2x4x8x8xbf16>, %k: tensor<2x4x8x8xbf16>, %v: tensor<2x4x8x8xbf16>) -> tensor<2x4x8x8xbf16> {
  %pos = tcc_graph.iota {start = 0.0 : f64, step = 1.0 : f64} : tensor<8xi64>
  %row = tcc_graph.reshape %pos : (tensor<8xi64>) -> tensor<1x8xi64>
  %ids = tcc_graph.broadcast %row : (tensor<1x8xi64>) -> tensor<2x8xi64>
  %first = tcc_graph.slice %ids {dim = 1 : i64, start = 0 : i64, end = 1 : i64, step = 1 : i64} : (tensor<2x8xi64>) -> tensor<2x1xi64>
  %one = tcc_graph.constant dense<1> : tensor<i64>
  %before = tcc_graph.sub %first, %one : (tensor<2x1xi64>, tensor<i64>) -> tensor<2x1xi64>
  %cat = tcc_graph.concat %before, %ids {dim = 1 : i64} : (tensor<2x1xi64>, tensor<2x8xi64>) -> tensor<2x9xi64>
  %lo = tcc_graph.slice %cat {dim = 1 : i64, start = 0 : i64, end = 8 : i64, step = 1 : i64} : (tensor<2x9xi64>) -> tensor<2x8xi64>
  %hi = tcc_graph.slice %cat {dim = 1 : i64, start = 1 : i64, end = 9 : i64, step = 1 : i64} : (tensor<2x9xi64>) -> tensor<2x8xi64>
  %d = tcc_graph.sub %hi, %lo : (tensor<2x8xi64>, tensor<2x8xi64>) -> tensor<2x8xi64>
  %starts = tcc_graph.compare %d, %one {predicate = "ne"} : (tensor<2x8xi64>, tensor<i64>) -> tensor<2x8xi1>
  %s64 = tcc_graph.cast %starts : (tensor<2x8xi1>) -> tensor<2x8xi64>
  %seq = tcc_graph.cumsum %s64 {dim = 1 : i64} : tensor<2x8xi64>
  %b = tcc_graph.iota {start = 0.0 : f64, step = 1.0 : f64} : tensor<2xi64>
  %b4 = tcc_graph.reshape %b : (tensor<2xi64>) -> tensor<2x1x1x1xi64>
  %eight = tcc_graph.constant dense<8> : tensor<i64>
  %base = tcc_graph.mul %b4, %eight : (tensor<2x1x1x1xi64>, tensor<i64>) -> tensor<2x1x1x1xi64>
  %qi = tcc_graph.reshape %pos : (tensor<8xi64>) -> tensor<1x1x8x1xi64>
  %kj = tcc_graph.reshape %pos : (tensor<8xi64>) -> tensor<1x1x1x8xi64>
  %qa = tcc_graph.add %base, %qi : (tensor<2x1x1x1xi64>, tensor<1x1x8x1xi64>) -> tensor<2x1x8x1xi64>
  %ka = tcc_graph.add %base, %kj : (tensor<2x1x1x1xi64>, tensor<1x1x1x8xi64>) -> tensor<2x1x1x8xi64>
  %flat = tcc_graph.reshape %ids : (tensor<2x8xi64>) -> tensor<16xi64>
  %qp = tcc_graph.take %flat, %qa {dim = 0 : i64} : (tensor<16xi64>, tensor<2x1x8x1xi64>) -> tensor<2x1x8x1xi64>
  %kp = tcc_graph.take %flat, %ka {dim = 0 : i64} : (tensor<16xi64>, tensor<2x1x1x8xi64>) -> tensor<2x1x1x8xi64>
  %causal = tcc_graph.compare %kp, %qp {predicate = "le"} : (tensor<2x1x1x8xi64>, tensor<2x1x8x1xi64>) -> tensor<2x1x8x8xi1>
  %sflat = tcc_graph.reshape %seq : (tensor<2x8xi64>) -> tensor<16xi64>
  %qs = tcc_graph.take %sflat, %qa {dim = 0 : i64} : (tensor<16xi64>, tensor<2x1x8x1xi64>) -> tensor<2x1x8x1xi64>
  %ks = tcc_graph.take %sflat, %ka {dim = 0 : i64} : (tensor<16xi64>, tensor<2x1x1x8xi64>) -> tensor<2x1x1x8xi64>
  %same = tcc_graph.compare %qs, %ks {predicate = "eq"} : (tensor<2x1x8x1xi64>, tensor<2x1x1x8xi64>) -> tensor<2x1x8x8xi1>
  %m = tcc_graph.bitwise_and %causal, %same : (tensor<2x1x8x8xi1>, tensor<2x1x8x8xi1>) -> tensor<2x1x8x8xi1>
  %o = tcc_graph.attention %q, %k, %v, mask %m {scale = 0.125 : f64} : (tensor<2x4x8x8xbf16>, tensor<2x4x8x8xbf16>, tensor<2x4x8x8xbf16>, tensor<2x1x8x8xi1>) -> tensor<2x4x8x8xbf16>
  return %o : tensor<2x4x8x8xbf16>
}

// -----

// A mask that keeps every key (BERT's, from positions >= 0, broadcast over
// the keys) is dropped; an added mask of 0 or -inf (and of the dtype's most
// negative value) above the diagonal is causal; a causal op keeps its flag
// when its mask keeps all.
// CHECK-LABEL: func @keeps_all_and_float
// CHECK:         %[[A:.*]] = tcc_graph.attention %arg0, %arg1, %arg2 {scale = 1.250000e-01 : f64}
// CHECK:         %[[B:.*]] = tcc_graph.attention %arg0, %arg1, %arg2 {causal, scale = 1.250000e-01 : f64}
// CHECK:         %[[C:.*]] = tcc_graph.attention %arg0, %arg1, %arg2 {causal, scale = 1.250000e-01 : f64}
// CHECK:         %[[D:.*]] = tcc_graph.attention %arg0, %arg1, %arg2 {causal, scale = 1.250000e-01 : f64}
// CHECK:         return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @keeps_all_and_float(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>)
    -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) {
  %i = tcc_graph.iota {start = 0.0 : f64, step = 1.0 : f64} : tensor<4xi64>
  %zero = tcc_graph.constant dense<0> : tensor<i64>
  %col = tcc_graph.reshape %i : (tensor<4xi64>) -> tensor<1x1x4x1xi64>
  %all = tcc_graph.compare %col, %zero {predicate = "ge"} : (tensor<1x1x4x1xi64>, tensor<i64>) -> tensor<1x1x4x1xi1>
  %a = tcc_graph.attention %q, %k, %v, mask %all {scale = 0.125 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x1x4x1xi1>) -> tensor<1x2x4x8xf32>
  %r = tcc_graph.reshape %i : (tensor<4xi64>) -> tensor<4x1xi64>
  %keep = tcc_graph.compare %i, %r {predicate = "le"} : (tensor<4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %fz = tcc_graph.constant dense<0.0> : tensor<f32>
  %ninf = tcc_graph.constant dense<0xFF800000> : tensor<f32>
  %fmin = tcc_graph.constant dense<-3.40282347E+38> : tensor<f32>
  %add1 = tcc_graph.select %keep, %fz, %ninf : (tensor<4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<4x4xf32>
  %b = tcc_graph.attention %q, %k, %v, mask %add1 {scale = 0.125 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xf32>) -> tensor<1x2x4x8xf32>
  %add2 = tcc_graph.select %keep, %fz, %fmin : (tensor<4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<4x4xf32>
  %c = tcc_graph.attention %q, %k, %v, mask %add2 {scale = 0.125 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xf32>) -> tensor<1x2x4x8xf32>
  %d = tcc_graph.attention %q, %k, %v, mask %all {causal, scale = 0.125 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x1x4x1xi1>) -> tensor<1x2x4x8xf32>
  return %a, %b, %c, %d : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
}

// -----

// Left alone: a mask from an input, a mask keeping j >= i (not causal), a
// sliding window (causal and i - j < 2), a mask with one key hidden by a
// finite value (-100 changes the softmax), a causal mask of a causal op that
// also hides the diagonal.
// CHECK-LABEL: func @left_alone
// CHECK-COUNT-5: tcc_graph.attention %arg0, %arg1, %arg2, mask
func.func @left_alone(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>, %in: tensor<4x4xi1>)
    -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) {
  %a = tcc_graph.attention %q, %k, %v, mask %in {scale = 0.125 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xi1>) -> tensor<1x2x4x8xf32>
  %i = tcc_graph.iota {start = 0.0 : f64, step = 1.0 : f64} : tensor<4xi64>
  %r = tcc_graph.reshape %i : (tensor<4xi64>) -> tensor<4x1xi64>
  %upper = tcc_graph.compare %i, %r {predicate = "ge"} : (tensor<4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %b = tcc_graph.attention %q, %k, %v, mask %upper {scale = 0.125 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xi1>) -> tensor<1x2x4x8xf32>
  %keep = tcc_graph.compare %i, %r {predicate = "le"} : (tensor<4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %dist = tcc_graph.sub %r, %i : (tensor<4x1xi64>, tensor<4xi64>) -> tensor<4x4xi64>
  %two = tcc_graph.constant dense<2> : tensor<i64>
  %near = tcc_graph.compare %dist, %two {predicate = "lt"} : (tensor<4x4xi64>, tensor<i64>) -> tensor<4x4xi1>
  %window = tcc_graph.bitwise_and %keep, %near : (tensor<4x4xi1>, tensor<4x4xi1>) -> tensor<4x4xi1>
  %c = tcc_graph.attention %q, %k, %v, mask %window {scale = 0.125 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xi1>) -> tensor<1x2x4x8xf32>
  %fz = tcc_graph.constant dense<0.0> : tensor<f32>
  %small = tcc_graph.constant dense<-100.0> : tensor<f32>
  %soft = tcc_graph.select %keep, %fz, %small : (tensor<4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<4x4xf32>
  %d = tcc_graph.attention %q, %k, %v, mask %soft {scale = 0.125 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xf32>) -> tensor<1x2x4x8xf32>
  %strict = tcc_graph.compare %i, %r {predicate = "lt"} : (tensor<4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %e = tcc_graph.attention %q, %k, %v, mask %strict {causal, scale = 0.125 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xi1>) -> tensor<1x2x4x8xf32>
  return %a, %b, %c, %d, %e : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
}

// -----

// The evaluator through the other ops a mask is built with: a transposed
// comparison, positions reversed by a take with negative indices and
// subtracted from 3, a slice with a step (even keys against twice the
// query's position), a concatenation. Each is causal.
// CHECK-LABEL: func @causal_through_views
// CHECK-COUNT-4: tcc_graph.attention %arg0, %arg1, %arg2 {causal, scale = 1.250000e-01 : f64}
// CHECK-NOT:     mask
func.func @causal_through_views(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>)
    -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) {
  %i = tcc_graph.iota {start = 0.0 : f64, step = 1.0 : f64} : tensor<4xi64>
  %r = tcc_graph.reshape %i : (tensor<4xi64>) -> tensor<4x1xi64>
  %upper = tcc_graph.compare %i, %r {predicate = "ge"} : (tensor<4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %lower = tcc_graph.transpose %upper {permutation = array<i64: 1, 0>} : (tensor<4x4xi1>) -> tensor<4x4xi1>
  %a = tcc_graph.attention %q, %k, %v, mask %lower {scale = 0.125 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xi1>) -> tensor<1x2x4x8xf32>
  %minus = tcc_graph.iota {start = -1.0 : f64, step = -1.0 : f64} : tensor<4xi64>
  %rev = tcc_graph.take %i, %minus {dim = 0 : i64} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %three = tcc_graph.constant dense<3> : tensor<i64>
  %p = tcc_graph.sub %three, %rev : (tensor<i64>, tensor<4xi64>) -> tensor<4xi64>
  %pr = tcc_graph.reshape %p : (tensor<4xi64>) -> tensor<4x1xi64>
  %m2 = tcc_graph.compare %p, %pr {predicate = "le"} : (tensor<4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %b = tcc_graph.attention %q, %k, %v, mask %m2 {scale = 0.125 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xi1>) -> tensor<1x2x4x8xf32>
  %e = tcc_graph.iota {start = 0.0 : f64, step = 1.0 : f64} : tensor<8xi64>
  %even = tcc_graph.slice %e {dim = 0 : i64, start = 0 : i64, end = 8 : i64, step = 2 : i64} : (tensor<8xi64>) -> tensor<4xi64>
  %c2x = tcc_graph.constant dense<2> : tensor<i64>
  %twice = tcc_graph.mul %r, %c2x : (tensor<4x1xi64>, tensor<i64>) -> tensor<4x1xi64>
  %m3 = tcc_graph.compare %even, %twice {predicate = "le"} : (tensor<4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %c = tcc_graph.attention %q, %k, %v, mask %m3 {scale = 0.125 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xi1>) -> tensor<1x2x4x8xf32>
  %two = tcc_graph.iota {start = 0.0 : f64, step = 1.0 : f64} : tensor<2xi64>
  %c2 = tcc_graph.constant dense<2> : tensor<i64>
  %hi = tcc_graph.add %two, %c2 : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %cat = tcc_graph.concat %two, %hi {dim = 0 : i64} : (tensor<2xi64>, tensor<2xi64>) -> tensor<4xi64>
  %cr = tcc_graph.reshape %cat : (tensor<4xi64>) -> tensor<4x1xi64>
  %m4 = tcc_graph.compare %cat, %cr {predicate = "le"} : (tensor<4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %d = tcc_graph.attention %q, %k, %v, mask %m4 {scale = 0.125 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xi1>) -> tensor<1x2x4x8xf32>
  return %a, %b, %c, %d : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
}

// -----

// A take whose index is out of range is not evaluated (PyTorch would
// raise): the mask stays, and with it the check at run time.
// CHECK-LABEL: func @index_out_of_range
// CHECK: tcc_graph.attention %arg0, %arg1, %arg2, mask
func.func @index_out_of_range(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %i = tcc_graph.iota {start = 0.0 : f64, step = 1.0 : f64} : tensor<4xi64>
  %far = tcc_graph.iota {start = 1.0 : f64, step = 1.0 : f64} : tensor<4xi64>
  %t = tcc_graph.take %i, %far {dim = 0 : i64} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %r = tcc_graph.reshape %t : (tensor<4xi64>) -> tensor<4x1xi64>
  %m = tcc_graph.compare %t, %r {predicate = "le"} : (tensor<4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %o = tcc_graph.attention %q, %k, %v, mask %m {scale = 0.125 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xi1>) -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}
