// RUN: tcc-opt %s -tcc-legalize-graph | FileCheck %s

// A convolution or pooling over a symbolic size: the export gives its
// result's size as an expression, valid only under guards torch.export
// keeps beside the graph (ceil_mode's choices), while the kernel counts
// PyTorch's windows over the input's size at run time (issue 39: at sizes
// that broke the guards, a silent wrong answer). The legalizer records, per
// symbolic result dim, the export's expression, the input's (the producer's
// tcc.sizes, here the conv's for the pool) and the window arithmetic; the
// guard manifest carries them and each call checks them before any kernel.
// Static dims (the batch, the channels) and 'same' padding record nothing.
// CHECK: module attributes {tcc.size_checks = [
// CHECK-SAME: {ceil_mode = false, dilation = 1 : i64, dim = 2 : i64, input = "s53", kernel = 3 : i64, operator = "aten.conv2d.default", padding = 1 : i64, size = "(s53 - 1)//2 + 1", stride = 2 : i64, where = "m.py:7"}
// CHECK-SAME: {ceil_mode = false, dilation = 1 : i64, dim = 3 : i64, input = "s0", kernel = 3 : i64, operator = "aten.conv2d.default", padding = 1 : i64, size = "(s0 - 1)//2 + 1", stride = 2 : i64, where = "m.py:7"}
// CHECK-SAME: {ceil_mode = true, dilation = 1 : i64, dim = 2 : i64, input = "(s53 - 1)//2 + 1", kernel = 2 : i64, operator = "aten.max_pool2d.default", padding = 1 : i64, size = "(s53 - 1)//6 + 1", stride = 3 : i64, where = "m.py:8"}
// CHECK-SAME: {ceil_mode = true, dilation = 1 : i64, dim = 3 : i64, input = "(s0 - 1)//2 + 1", kernel = 2 : i64, operator = "aten.max_pool2d.default", padding = 1 : i64, size = "(s0 - 1)//6 + 1", stride = 3 : i64, where = "m.py:8"}
// CHECK-SAME: {ceil_mode = false, dilation = 2 : i64, dim = 2 : i64, input = "s53", kernel = 5 : i64, operator = "aten.max_pool1d.default", padding = 0 : i64, size = "s53 - 8", stride = 1 : i64, where = "m.py:9"}]
// CHECK-NOT: tcc.operand_sizes
// CHECK: tcc_graph.conv2d
// CHECK: tcc_graph.max_pool2d
module {
  func.func @forward(%x: tensor<2x3x?x?xf32> {tcc.sizes = [2, 3, "s53", "s0"]}, %w: tensor<4x3x3x3xf32>, %l: tensor<2x3x?xf32> {tcc.sizes = [2, 3, "s53"]}, %w2: tensor<4x3x3x3xf32>) -> (tensor<2x4x?x?xf32>, tensor<2x3x?xf32>, tensor<2x4x?x?xf32>) {
    %0 = tcc_graph.operator "torch.ops.aten.conv2d.default"(%x, %w) {operand_names = ["input", "weight"], args = {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>}, tcc.sizes = [[2, 4, "(s53 - 1)//2 + 1", "(s0 - 1)//2 + 1"]]} : (tensor<2x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x?x?xf32> loc("m.py":7:0)
    %1 = tcc_graph.operator "torch.ops.aten.max_pool2d.default"(%0) {operand_names = ["self"], args = {kernel_size = array<i64: 2, 2>, stride = array<i64: 3, 3>, padding = array<i64: 1, 1>, ceil_mode = true}, tcc.sizes = [[2, 4, "(s53 - 1)//6 + 1", "(s0 - 1)//6 + 1"]]} : (tensor<2x4x?x?xf32>) -> tensor<2x4x?x?xf32> loc("m.py":8:0)
    %2 = tcc_graph.operator "torch.ops.aten.max_pool1d.default"(%l) {operand_names = ["self"], args = {kernel_size = array<i64: 5>, stride = array<i64: 1>, dilation = array<i64: 2>}, tcc.sizes = [[2, 3, "s53 - 8"]]} : (tensor<2x3x?xf32>) -> tensor<2x3x?xf32> loc("m.py":9:0)
    %3 = tcc_graph.operator "torch.ops.aten.conv2d.default"(%x, %w2) {operand_names = ["input", "weight"], args = {padding = "same"}, tcc.sizes = [[2, 4, "s53", "s0"]]} : (tensor<2x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x?x?xf32> loc("m.py":10:0)
    return %1, %2, %3 : tensor<2x4x?x?xf32>, tensor<2x3x?xf32>, tensor<2x4x?x?xf32>
  }
}
