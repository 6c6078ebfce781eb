// RUN: tcc-opt %s -tcc-pad-attention-masks -split-input-file | FileCheck %s

// A bound weight read as a mask through a reshape that keeps its rows (a
// relative-position bias of 49 keys: 98-byte rows): a derived weight of
// 56-key rows (its program reads the weight and joins zeros), reshaped, and
// sliced back to 49 keys for the kernel; the bound weight stays on the host.
// CHECK-LABEL: func @bound_weight
// CHECK-SAME:  %arg3: tensor<3x49x49xbf16> {tcc.host_only, tcc.name = "bias", tcc.role = "weight", tcc.sizes = [3, 49, 49]}
// CHECK-SAME:  %arg4: tensor<3x49x56xbf16> {tcc.derived = ["weight:bias", "const:0", "broadcast:3,49,7", "concat:2"], tcc.name = "derived:bias:0", tcc.role = "weight", tcc.sizes = [3, 49, 56]}
// CHECK:       %[[R:.*]] = tcc_graph.reshape %arg4 : (tensor<3x49x56xbf16>) -> tensor<1x3x49x56xbf16>
// CHECK:       %[[S:.*]] = tcc_graph.slice %[[R]] {dim = 3 : i64, end = 49 : i64, start = 0 : i64, step = 1 : i64} : (tensor<1x3x49x56xbf16>) -> tensor<1x3x49x49xbf16>
// CHECK:       tcc_kernel.attention {{.*}} mask(%[[S]] : tensor<1x3x49x49xbf16>)
func.func @bound_weight(%q: tensor<8x3x49x32xbf16> {tcc.name = "q", tcc.role = "input", tcc.sizes = [8, 3, 49, 32]},
                        %k: tensor<8x3x49x32xbf16> {tcc.name = "k", tcc.role = "input", tcc.sizes = [8, 3, 49, 32]},
                        %v: tensor<8x3x49x32xbf16> {tcc.name = "v", tcc.role = "input", tcc.sizes = [8, 3, 49, 32]},
                        %b: tensor<3x49x49xbf16> {tcc.name = "bias", tcc.role = "weight", tcc.sizes = [3, 49, 49]}) -> tensor<8x3x49x32xbf16> {
  %m = tcc_graph.reshape %b : (tensor<3x49x49xbf16>) -> tensor<1x3x49x49xbf16>
  %e = tensor.empty() : tensor<8x3x49x32xbf16>
  %o = tcc_kernel.attention ins(%q, %k, %v : tensor<8x3x49x32xbf16>, tensor<8x3x49x32xbf16>, tensor<8x3x49x32xbf16>) mask(%m : tensor<1x3x49x49xbf16>) outs(%e : tensor<8x3x49x32xbf16>) {scale = 0.17677669529663687 : f64} -> tensor<8x3x49x32xbf16>
  return %o : tensor<8x3x49x32xbf16>
}

// -----

// A derived f32 mask per window (rows of 5 keys: 20 bytes) read directly by
// two attention kernels: replaced in place by one of 8-key rows (same name,
// its program extended), each kernel reading its own slice.
// CHECK-LABEL: func @derived_weight
// CHECK-SAME:  %arg1: tensor<4x2x5x8xf32> {tcc.derived = ["weight:t", "const:2", "mul", "const:0", "broadcast:4,2,5,3", "concat:3"], tcc.name = "derived:t:0", tcc.role = "weight", tcc.sizes = [4, 2, 5, 8]}
// CHECK-NOT:   tensor<4x2x5x5xf32> {tcc.derived
// CHECK:       %[[S1:.*]] = tcc_graph.slice %arg1 {dim = 3 : i64, end = 5 : i64, start = 0 : i64, step = 1 : i64} : (tensor<4x2x5x8xf32>) -> tensor<4x2x5x5xf32>
// CHECK:       %[[A:.*]] = tcc_kernel.attention {{.*}} mask(%[[S1]] : tensor<4x2x5x5xf32>)
// CHECK:       %[[S2:.*]] = tcc_graph.slice %arg1 {{.*}} -> tensor<4x2x5x5xf32>
// CHECK:       tcc_kernel.attention ins(%[[A]], %[[A]], %[[A]] : {{.*}}) mask(%[[S2]] : tensor<4x2x5x5xf32>)
func.func @derived_weight(%x: tensor<4x2x5x16xf32> {tcc.name = "x", tcc.role = "input", tcc.sizes = [4, 2, 5, 16]},
                          %t: tensor<4x2x5x5xf32> {tcc.derived = ["weight:t", "const:2", "mul"], tcc.name = "derived:t:0", tcc.role = "weight", tcc.sizes = [4, 2, 5, 5]}) -> tensor<4x2x5x16xf32> {
  %e = tensor.empty() : tensor<4x2x5x16xf32>
  %a = tcc_kernel.attention ins(%x, %x, %x : tensor<4x2x5x16xf32>, tensor<4x2x5x16xf32>, tensor<4x2x5x16xf32>) mask(%t : tensor<4x2x5x5xf32>) outs(%e : tensor<4x2x5x16xf32>) {scale = 0.25 : f64} -> tensor<4x2x5x16xf32>
  %o = tcc_kernel.attention ins(%a, %a, %a : tensor<4x2x5x16xf32>, tensor<4x2x5x16xf32>, tensor<4x2x5x16xf32>) mask(%t : tensor<4x2x5x5xf32>) outs(%e : tensor<4x2x5x16xf32>) {scale = 0.25 : f64} -> tensor<4x2x5x16xf32>
  return %o : tensor<4x2x5x16xf32>
}

// -----

// Left alone: rows of 64 bf16 keys (128 bytes, already aligned); a weight
// also read by an op that is not a mask; a mask computed from an input;
// a reshape that moves the keys into another dim.
// CHECK-LABEL: func @left_alone
// CHECK-NOT:   tcc.derived
// CHECK-NOT:   tcc_graph.slice
// CHECK-NOT:   tcc.host_only
func.func @left_alone(%x: tensor<2x2x64x32xbf16> {tcc.name = "x", tcc.role = "input", tcc.sizes = [2, 2, 64, 32]},
                      %k: tensor<2x2x50x32xbf16> {tcc.name = "kv", tcc.role = "input", tcc.sizes = [2, 2, 50, 32]},
                      %m: tensor<2x1x64x50xbf16> {tcc.name = "m", tcc.role = "input", tcc.sizes = [2, 1, 64, 50]},
                      %aligned: tensor<2x64x64xbf16> {tcc.name = "aligned", tcc.role = "weight", tcc.sizes = [2, 64, 64]},
                      %shared: tensor<2x64x50xbf16> {tcc.name = "shared", tcc.role = "weight", tcc.sizes = [2, 64, 50]},
                      %flat: tensor<2x64x10x5xbf16> {tcc.name = "flat", tcc.role = "weight", tcc.sizes = [2, 64, 10, 5]})
    -> (tensor<2x2x64x32xbf16>, tensor<2x2x64x32xbf16>, tensor<2x64x50xbf16>, tensor<2x2x64x32xbf16>, tensor<2x2x64x32xbf16>) {
  %e = tensor.empty() : tensor<2x2x64x32xbf16>
  %a = tcc_kernel.attention ins(%x, %x, %x : tensor<2x2x64x32xbf16>, tensor<2x2x64x32xbf16>, tensor<2x2x64x32xbf16>) mask(%aligned : tensor<2x64x64xbf16>) outs(%e : tensor<2x2x64x32xbf16>) {scale = 0.25 : f64} -> tensor<2x2x64x32xbf16>
  %b = tcc_kernel.attention ins(%x, %k, %k : tensor<2x2x64x32xbf16>, tensor<2x2x50x32xbf16>, tensor<2x2x50x32xbf16>) mask(%shared : tensor<2x64x50xbf16>) outs(%e : tensor<2x2x64x32xbf16>) {scale = 0.25 : f64} -> tensor<2x2x64x32xbf16>
  %s = tcc_graph.add %shared, %shared : (tensor<2x64x50xbf16>, tensor<2x64x50xbf16>) -> tensor<2x64x50xbf16>
  %c = tcc_kernel.attention ins(%x, %k, %k : tensor<2x2x64x32xbf16>, tensor<2x2x50x32xbf16>, tensor<2x2x50x32xbf16>) mask(%m : tensor<2x1x64x50xbf16>) outs(%e : tensor<2x2x64x32xbf16>) {scale = 0.25 : f64} -> tensor<2x2x64x32xbf16>
  %f = tcc_graph.reshape %flat : (tensor<2x64x10x5xbf16>) -> tensor<2x64x50xbf16>
  %d = tcc_kernel.attention ins(%x, %k, %k : tensor<2x2x64x32xbf16>, tensor<2x2x50x32xbf16>, tensor<2x2x50x32xbf16>) mask(%f : tensor<2x64x50xbf16>) outs(%e : tensor<2x2x64x32xbf16>) {scale = 0.25 : f64} -> tensor<2x2x64x32xbf16>
  return %a, %b, %s, %c, %d : tensor<2x2x64x32xbf16>, tensor<2x2x64x32xbf16>, tensor<2x64x50xbf16>, tensor<2x2x64x32xbf16>, tensor<2x2x64x32xbf16>
}
