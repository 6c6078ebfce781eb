// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// reduction 0 keeps the pointwise loss, 1 (the default) means over every
// element, 2 sums.
// CHECK-LABEL: func @reductions
// CHECK: %[[D0:.*]] = tcc_graph.sub %arg0, %arg1
// CHECK: %[[NONE:.*]] = tcc_graph.abs %[[D0]] : tensor<2x3xf32>
// CHECK: %[[D1:.*]] = tcc_graph.sub %arg0, %arg1
// CHECK: %[[SQ:.*]] = tcc_graph.mul %[[D1]], %[[D1]]
// CHECK: %[[MEAN:.*]] = tcc_graph.reduce_mean %[[SQ]] {dims = array<i64: 0, 1>, keepdim = false} : (tensor<2x3xf32>) -> tensor<f32>
// CHECK: %[[A2:.*]] = tcc_graph.abs
// CHECK: %[[SUM:.*]] = tcc_graph.reduce_sum %[[A2]] {dims = array<i64: 0, 1>, keepdim = false} : (tensor<2x3xf32>) -> tensor<f32>
// CHECK: return %[[NONE]], %[[MEAN]], %[[SUM]]
func.func @reductions(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<f32>, tensor<f32>) {
  %0 = tcc_graph.operator "torch.ops.aten.l1_loss.default"(%x, %y) {operand_names = ["self", "target"], args = {reduction = 0 : i64}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tcc_graph.operator "torch.ops.aten.mse_loss.default"(%x, %y) {operand_names = ["self", "target"], args = {}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  %2 = tcc_graph.operator "torch.ops.aten.l1_loss.default"(%x, %y) {operand_names = ["self", "target"], args = {reduction = 2 : i64}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<f32>, tensor<f32>
}

// -----

// smooth_l1: 0.5 z z / beta below beta, z - 0.5 beta above (plain l1 for
// beta 0); huber: 0.5 z z below delta, delta (z - 0.5 delta) above.
// CHECK-LABEL: func @smooth
// CHECK: %[[Z:.*]] = tcc_graph.abs
// CHECK: %[[H:.*]] = tcc_graph.mul %{{.*}}, %[[Z]]
// CHECK: %[[HZ:.*]] = tcc_graph.mul %[[H]], %[[Z]]
// CHECK: %[[Q:.*]] = tcc_graph.div %[[HZ]], %{{.*}} : (tensor<4xf32>, tensor<f32>)
// CHECK: %[[QUARTER:.*]] = tcc_graph.constant dense<2.500000e-01>
// CHECK: %[[L:.*]] = tcc_graph.sub %[[Z]], %[[QUARTER]]
// CHECK: %[[BETA:.*]] = tcc_graph.constant dense<5.000000e-01>
// CHECK: %[[SMALL:.*]] = tcc_graph.compare %[[Z]], %[[BETA]] {predicate = "lt"}
// CHECK: %[[SMOOTH:.*]] = tcc_graph.select %[[SMALL]], %[[Q]], %[[L]]
// CHECK: %[[L1:.*]] = tcc_graph.abs
// CHECK: %[[Z2:.*]] = tcc_graph.abs
// CHECK: %[[DELTA:.*]] = tcc_graph.constant dense<2.000000e+00>
// CHECK: %[[LIN:.*]] = tcc_graph.mul %[[DELTA]], %{{.*}}
// CHECK: tcc_graph.compare %[[Z2]], %{{.*}} {predicate = "lt"}
// CHECK: %[[HUBER:.*]] = tcc_graph.select %{{.*}}, %{{.*}}, %[[LIN]]
// CHECK: return %[[SMOOTH]], %[[L1]], %[[HUBER]]
func.func @smooth(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.smooth_l1_loss.default"(%x, %y) {operand_names = ["self", "target"], args = {reduction = 0 : i64, beta = 5.000000e-01 : f64}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.smooth_l1_loss.default"(%x, %y) {operand_names = ["self", "target"], args = {reduction = 0 : i64, beta = 0.000000e+00 : f64}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = tcc_graph.operator "torch.ops.aten.huber_loss.default"(%x, %y) {operand_names = ["self", "target"], args = {reduction = 0 : i64, delta = 2.000000e+00 : f64}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// binary_cross_entropy: logs floored at -100, PyTorch's CPU form, times the
// weight; with logits: log_sigmoid scaled by (pos_weight - 1) target + 1.
// CHECK-LABEL: func @bce
// CHECK: %[[FLOOR:.*]] = tcc_graph.constant dense<-1.000000e+02>
// CHECK: %[[N:.*]] = tcc_graph.neg %arg0
// CHECK: %[[L1P:.*]] = tcc_graph.log1p %[[N]]
// CHECK: %[[LOGNOT:.*]] = tcc_graph.maximum %[[L1P]], %[[FLOOR]]
// CHECK: %[[LOG:.*]] = tcc_graph.log %arg0
// CHECK: %[[LOGX:.*]] = tcc_graph.maximum %[[LOG]], %[[FLOOR]]
// CHECK: %[[TM1:.*]] = tcc_graph.sub %arg1, %{{.*}}
// CHECK: %[[NEGPART:.*]] = tcc_graph.mul %[[TM1]], %[[LOGNOT]]
// CHECK: %[[POSPART:.*]] = tcc_graph.mul %arg1, %[[LOGX]]
// CHECK: %[[V:.*]] = tcc_graph.sub %[[NEGPART]], %[[POSPART]]
// CHECK: %[[W:.*]] = tcc_graph.mul %[[V]], %arg2
// CHECK: %[[SUM:.*]] = tcc_graph.reduce_sum %[[W]] {dims = array<i64: 0>, keepdim = false}
// CHECK: tcc_graph.log1p
// CHECK: %[[LS:.*]] = tcc_graph.sub
// CHECK: %[[PW:.*]] = tcc_graph.sub %arg2, %{{.*}}
// CHECK: %[[S:.*]] = tcc_graph.mul %[[PW]], %arg1
// CHECK: %[[SCALE:.*]] = tcc_graph.add %[[S]], %{{.*}}
// CHECK: %[[LSW:.*]] = tcc_graph.mul %[[LS]], %[[SCALE]]
// CHECK: %[[NT:.*]] = tcc_graph.sub %{{.*}}, %arg1 : (tensor<f32>, tensor<4xf32>)
// CHECK: %[[NTX:.*]] = tcc_graph.mul %[[NT]], %arg0
// CHECK: %[[LOGITS:.*]] = tcc_graph.sub %[[NTX]], %[[LSW]]
// CHECK: return %[[SUM]], %[[LOGITS]]
func.func @bce(%p: tensor<4xf32>, %t: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.binary_cross_entropy.default"(%p, %t, %w) {operand_names = ["self", "target", "weight"], args = {reduction = 2 : i64}} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %1 = tcc_graph.operator "torch.ops.aten.binary_cross_entropy_with_logits.default"(%p, %t, %w) {operand_names = ["self", "target", "pos_weight"], args = {reduction = 0 : i64}} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<f32>, tensor<4xf32>
}

// -----

// kl_div: xlogy(t, t) - t x (0 where t is 0, NaN where t is), or with
// log_target exp(t) (t - x).
// CHECK-LABEL: func @kl
// CHECK: %[[LOG:.*]] = tcc_graph.log %arg1
// CHECK: %[[TLOGT:.*]] = tcc_graph.mul %arg1, %[[LOG]]
// CHECK: %[[ZERO:.*]] = tcc_graph.constant dense<0.000000e+00>
// CHECK: %[[TZERO:.*]] = tcc_graph.compare %arg1, %[[ZERO]] {predicate = "eq"}
// CHECK: %[[Z:.*]] = tcc_graph.select %[[TZERO]], %[[ZERO]], %[[TLOGT]]
// CHECK: %[[NAN:.*]] = tcc_graph.compare %arg1, %arg1 {predicate = "ne"}
// CHECK: %[[XLOGY:.*]] = tcc_graph.select %[[NAN]], %arg1, %[[Z]]
// CHECK: %[[TX:.*]] = tcc_graph.mul %arg1, %arg0
// CHECK: %[[KL:.*]] = tcc_graph.sub %[[XLOGY]], %[[TX]]
// CHECK: %[[E:.*]] = tcc_graph.exp %arg1
// CHECK: %[[D:.*]] = tcc_graph.sub %arg1, %arg0
// CHECK: %[[KLLOG:.*]] = tcc_graph.mul %[[E]], %[[D]]
// CHECK: return %[[KL]], %[[KLLOG]]
func.func @kl(%x: tensor<4xf32>, %t: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.kl_div.default"(%x, %t) {operand_names = ["self", "target"], args = {reduction = 0 : i64}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.kl_div.default"(%x, %t) {operand_names = ["self", "target"], args = {reduction = 0 : i64, log_target = true}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// hinge_embedding: max(margin - x, 0) where target != 1 plus x where
// target != -1; margin_ranking: max(-t (x1 - x2) + margin, 0).
// CHECK-LABEL: func @margins
// CHECK: %[[GAP:.*]] = tcc_graph.sub %{{.*}}, %arg0
// CHECK: %[[HINGE:.*]] = tcc_graph.maximum %[[GAP]], %{{.*}}
// CHECK: %[[ZERO:.*]] = tcc_graph.constant dense<0.000000e+00>
// CHECK: %[[NP:.*]] = tcc_graph.compare %arg1, %{{.*}} {predicate = "ne"}
// CHECK: %[[NN:.*]] = tcc_graph.compare %arg1, %{{.*}} {predicate = "ne"}
// CHECK: %[[OM:.*]] = tcc_graph.select %[[NP]], %[[HINGE]], %[[ZERO]]
// CHECK: %[[OS:.*]] = tcc_graph.select %[[NN]], %arg0, %[[ZERO]]
// CHECK: %[[ADD:.*]] = tcc_graph.add %[[OM]], %[[OS]]
// CHECK: tcc_graph.reduce_mean %[[ADD]]
// CHECK: %[[D:.*]] = tcc_graph.sub %arg0, %arg2
// CHECK: %[[NT:.*]] = tcc_graph.neg %arg1
// CHECK: %[[V:.*]] = tcc_graph.mul %[[NT]], %[[D]]
// CHECK: %[[S:.*]] = tcc_graph.add %[[V]], %{{.*}}
// CHECK: tcc_graph.maximum %[[S]], %{{.*}}
func.func @margins(%x: tensor<4xf32>, %t: tensor<4xf32>, %z: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.hinge_embedding_loss.default"(%x, %t) {operand_names = ["self", "target"], args = {margin = 5.000000e-01 : f64}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %1 = tcc_graph.operator "torch.ops.aten.margin_ranking_loss.default"(%x, %z, %t) {operand_names = ["input1", "input2", "target"], args = {margin = 1.000000e-01 : f64, reduction = 0 : i64}} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<f32>, tensor<4xf32>
}

// -----

// nll_loss: -w[t] x[t] gathered along the class dim, 0 (and no weight) where
// t is ignore_index (read as class 0 for the gather); mean divides by the
// weights taken. cross_entropy with class indices: log_softmax, then the same.
// CHECK-LABEL: func @nll
// CHECK: %[[IGN:.*]] = tcc_graph.constant dense<1> : tensor<i64>
// CHECK: %[[KEEP:.*]] = tcc_graph.compare %arg1, %[[IGN]] {predicate = "ne"}
// CHECK: %[[SAFE:.*]] = tcc_graph.select %[[KEEP]], %arg1, %{{.*}}
// CHECK: %[[IDX:.*]] = tcc_graph.reshape %[[SAFE]] : (tensor<2xi64>) -> tensor<2x1xi64>
// CHECK: %[[G:.*]] = tcc_graph.gather %arg0, %[[IDX]] {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xi64>) -> tensor<2x1xf32>
// CHECK: %[[PICK:.*]] = tcc_graph.reshape %[[G]] : (tensor<2x1xf32>) -> tensor<2xf32>
// CHECK: %[[W:.*]] = tcc_graph.take %arg2, %[[SAFE]] {dim = 0 : i64}
// CHECK: %[[TAKEN:.*]] = tcc_graph.select %[[KEEP]], %[[W]], %{{.*}}
// CHECK: %[[P:.*]] = tcc_graph.mul %[[PICK]], %[[TAKEN]]
// CHECK: %[[L:.*]] = tcc_graph.neg %[[P]]
// CHECK: %[[SUM:.*]] = tcc_graph.reduce_sum %[[L]]
// CHECK: %[[WSUM:.*]] = tcc_graph.reduce_sum %[[TAKEN]]
// CHECK: %[[MEAN:.*]] = tcc_graph.div %[[SUM]], %[[WSUM]]
// CHECK: %[[LOGP:.*]] = tcc_graph.softmax %arg0 {dim = 1 : i64, log}
// CHECK: tcc_graph.constant dense<-100> : tensor<i64>
// CHECK: tcc_graph.gather %[[LOGP]]
// CHECK: %[[CE:.*]] = tcc_graph.neg
// CHECK: return %[[MEAN]], %[[CE]]
func.func @nll(%x: tensor<2x3xf32>, %t: tensor<2xi64>, %w: tensor<3xf32>) -> (tensor<f32>, tensor<2xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.nll_loss_nd.default"(%x, %t, %w) {operand_names = ["self", "target", "weight"], args = {reduction = 1 : i64, ignore_index = 1 : i64}} : (tensor<2x3xf32>, tensor<2xi64>, tensor<3xf32>) -> tensor<f32>
  %1 = tcc_graph.operator "torch.ops.aten.cross_entropy_loss.default"(%x, %t) {operand_names = ["self", "target"], args = {reduction = 0 : i64}} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2xf32>
  return %0, %1 : tensor<f32>, tensor<2xf32>
}

// -----

// cross_entropy with class probabilities: -sum_c target logp, mean over the
// other elements.
// CHECK-LABEL: func @ce_probabilities
// CHECK: %[[LOGP:.*]] = tcc_graph.softmax %arg0 {dim = 1 : i64, log}
// CHECK: %[[V:.*]] = tcc_graph.mul %[[LOGP]], %arg1
// CHECK: %[[S:.*]] = tcc_graph.reduce_sum %[[V]] {dims = array<i64: 1>, keepdim = false}
// CHECK: %[[N:.*]] = tcc_graph.neg %[[S]]
// CHECK: tcc_graph.reduce_mean %[[N]] {dims = array<i64: 0>, keepdim = false} : (tensor<2xf32>) -> tensor<f32>
func.func @ce_probabilities(%x: tensor<2x3xf32>, %p: tensor<2x3xf32>) -> tensor<f32> {
  %0 = tcc_graph.operator "torch.ops.aten.cross_entropy_loss.default"(%x, %p) {operand_names = ["self", "target"], args = {}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// pairwise_distance: the p-norm of x1 - x2 + eps over the last dim;
// triplet_margin: max(margin + d(a, p) - d(a, n), 0), d(a, n) the smaller of
// it and d(p, n) with swap.
// CHECK-LABEL: func @triplet
// CHECK: %[[D:.*]] = tcc_graph.sub %arg0, %arg1
// CHECK: %[[EPS:.*]] = tcc_graph.constant dense<9.99999997E-7>
// CHECK: %[[S:.*]] = tcc_graph.add %[[D]], %[[EPS]]
// CHECK: %[[A:.*]] = tcc_graph.abs %[[S]]
// CHECK: %[[PD:.*]] = tcc_graph.reduce_sum %[[A]] {dims = array<i64: 1>, keepdim = false}
// CHECK: %[[DPOS:.*]] = tcc_graph.sqrt
// CHECK: %[[DNEG:.*]] = tcc_graph.sqrt
// CHECK: tcc_graph.sub %arg1, %arg2
// CHECK: %[[DSWAP:.*]] = tcc_graph.sqrt
// CHECK: %[[MIN:.*]] = tcc_graph.minimum %[[DNEG]], %[[DSWAP]]
// CHECK: %[[M:.*]] = tcc_graph.add %{{.*}}, %[[DPOS]]
// CHECK: %[[GAP:.*]] = tcc_graph.sub %[[M]], %[[MIN]]
// CHECK: %[[H:.*]] = tcc_graph.maximum %[[GAP]], %{{.*}}
// CHECK: %[[L:.*]] = tcc_graph.reduce_mean %[[H]]
// CHECK: return %[[PD]], %[[L]]
func.func @triplet(%a: tensor<3x4xf32>, %p: tensor<3x4xf32>, %n: tensor<3x4xf32>) -> (tensor<3xf32>, tensor<f32>) {
  %0 = tcc_graph.operator "torch.ops.aten.pairwise_distance.default"(%a, %p) {operand_names = ["x1", "x2"], args = {p = 1.000000e+00 : f64}} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3xf32>
  %1 = tcc_graph.operator "torch.ops.aten.triplet_margin_loss.default"(%a, %p, %n) {operand_names = ["anchor", "positive", "negative"], args = {swap = true}} : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<f32>
  return %0, %1 : tensor<3xf32>, tensor<f32>
}

// -----

// multi_margin_loss: max(0, (margin - x[y]) + x[i]) over the classes i other
// than the target, summed and divided by C, then the mean over samples.
// CHECK-LABEL: func @multi_margin
// CHECK: %[[T:.*]] = tcc_graph.reshape %arg1 : (tensor<5xi64>) -> tensor<5x1xi64>
// CHECK: %[[XY:.*]] = tcc_graph.gather %arg0, %[[T]] {dim = 1 : i64}
// CHECK: %[[B:.*]] = tcc_graph.sub %{{.*}}, %[[XY]]
// CHECK: %[[Z:.*]] = tcc_graph.add %[[B]], %arg0
// CHECK: %[[H:.*]] = tcc_graph.maximum %[[Z]]
// CHECK: %[[NE:.*]] = tcc_graph.compare %{{.*}}, %[[T]] {predicate = "ne"}
// CHECK: %[[K:.*]] = tcc_graph.select %[[NE]], %[[H]]
// CHECK: %[[S:.*]] = tcc_graph.reduce_sum %[[K]] {dims = array<i64: 1>, keepdim = false}
// CHECK: %[[P:.*]] = tcc_graph.div %[[S]]
// CHECK: %[[M:.*]] = tcc_graph.reduce_mean %[[P]]
// CHECK: return %[[M]]
func.func @multi_margin(%x: tensor<5x4xf32>, %t: tensor<5xi64>) -> tensor<f32> {
  %0 = tcc_graph.operator "torch.ops.aten.multi_margin_loss.default"(%x, %t) {operand_names = ["self", "target"], args = {}} : (tensor<5x4xf32>, tensor<5xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// multilabel_margin_loss: a row's targets end at its first negative entry
// (a running count of negatives still 0); u_j = x[t_j]; every listed j and
// every non-target class d add max(0, 1 - u_j + x_d); the sum over both
// divides by C.
// CHECK-LABEL: func @multilabel_margin_loss
// CHECK: %[[NEG:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "lt"} : (tensor<2x4xi64>, tensor<i64>) -> tensor<2x4xi1>
// CHECK: %[[SEEN:.*]] = tcc_graph.cumsum %{{.*}} {dim = 1 : i64} : tensor<2x4xi64>
// CHECK: %[[LISTED:.*]] = tcc_graph.compare %[[SEEN]], %{{.*}} {predicate = "eq"}
// CHECK: %[[U:.*]] = tcc_graph.gather %arg0, %{{.*}} {dim = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
// CHECK: %[[HITS:.*]] = tcc_graph.bitwise_and %{{.*}}, %{{.*}} : (tensor<2x4x4xi1>, tensor<2x4x1xi1>) -> tensor<2x4x4xi1>
// CHECK: %[[Z:.*]] = tcc_graph.add %{{.*}}, %{{.*}} : (tensor<2x4x1xf32>, tensor<2x1x4xf32>) -> tensor<2x4x4xf32>
// CHECK: %[[T:.*]] = tcc_graph.select %{{.*}}, %[[Z]], %{{.*}} : (tensor<2x4x4xi1>, tensor<2x4x4xf32>, tensor<f32>) -> tensor<2x4x4xf32>
// CHECK: %[[S:.*]] = tcc_graph.reduce_sum %[[T]] {dims = array<i64: 1, 2>, keepdim = false} : (tensor<2x4x4xf32>) -> tensor<2xf32>
// CHECK: %[[C:.*]] = tcc_graph.constant dense<4.000000e+00> : tensor<f32>
// CHECK: %[[L:.*]] = tcc_graph.div %[[S]], %[[C]]
// CHECK: tcc_graph.reduce_mean %[[L]]
func.func @multilabel_margin_loss(%x: tensor<2x4xf32>, %t: tensor<2x4xi64>) -> tensor<f32> {
  %0 = tcc_graph.operator "torch.ops.aten.multilabel_margin_loss.default"(%x, %t) {operand_names = ["self", "target"], args = {reduction = 1 : i64}} : (tensor<2x4xf32>, tensor<2x4xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// nll_loss over a symbolic batch and class count: the targets reshaped
// around the class dim by their run-time length, gathered.
// CHECK-LABEL: func @nll_loss_symbolic
// CHECK: %[[SAFE:.*]] = tcc_graph.select %{{.*}}, %arg1, %{{.*}} : (tensor<?xi1>, tensor<?xi64>, tensor<i64>) -> tensor<?xi64>
// CHECK: %[[N:.*]] = tensor.dim %arg1, %{{.*}} : tensor<?xi64>
// CHECK: %[[INDEX:.*]] = tcc_graph.reshape %[[SAFE]] sizes(%[[N]]) : (tensor<?xi64>) -> tensor<?x1xi64>
// CHECK: %[[PICKED:.*]] = tcc_graph.gather %arg0, %[[INDEX]] {dim = 1 : i64} : (tensor<?x?xf32>, tensor<?x1xi64>) -> tensor<?x1xf32>
// CHECK: tcc_graph.reshape %[[PICKED]] sizes(%[[N]]) : (tensor<?x1xf32>) -> tensor<?xf32>
func.func @nll_loss_symbolic(%x: tensor<?x?xf32>, %t: tensor<?xi64>) -> tensor<?xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.nll_loss_nd.default"(%x, %t) {operand_names = ["self", "target"], args = {reduction = 0 : i64}} : (tensor<?x?xf32>, tensor<?xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// nll_loss_forward: the loss and the total weight of the targets taken
// (what the mean divides by); without a reduction the total weight is 0.
// CHECK-LABEL: func @nll_loss_forward
// CHECK: %[[TAKEN:.*]] = tcc_graph.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<5xi1>, tensor<5xf32>, tensor<f32>) -> tensor<5xf32>
// CHECK: %[[SUM:.*]] = tcc_graph.reduce_sum %{{.*}} {dims = array<i64: 0>, keepdim = false} : (tensor<5xf32>) -> tensor<f32>
// CHECK: %[[TOTAL:.*]] = tcc_graph.reduce_sum %[[TAKEN]] {dims = array<i64: 0>, keepdim = false} : (tensor<5xf32>) -> tensor<f32>
// CHECK: %[[MEAN:.*]] = tcc_graph.div %[[SUM]], %[[TOTAL]]
// CHECK: %[[NONE:.*]] = tcc_graph.neg
// CHECK-NEXT: %[[ZERO:.*]] = tcc_graph.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: return %[[MEAN]], %[[TOTAL]], %[[NONE]], %[[ZERO]]
func.func @nll_loss_forward(%x: tensor<5x4xf32>, %t: tensor<5xi64>, %w: tensor<4xf32>) -> (tensor<f32>, tensor<f32>, tensor<5xf32>, tensor<f32>) {
  %0:2 = tcc_graph.operator "torch.ops.aten.nll_loss_forward.default"(%x, %t, %w) {operand_names = ["self", "target", "weight"], args = {reduction = 1 : i64, ignore_index = 2 : i64}} : (tensor<5x4xf32>, tensor<5xi64>, tensor<4xf32>) -> (tensor<f32>, tensor<f32>)
  %1:2 = tcc_graph.operator "torch.ops.aten.nll_loss_forward.default"(%x, %t) {operand_names = ["self", "target"], args = {reduction = 0 : i64, ignore_index = -100 : i64}} : (tensor<5x4xf32>, tensor<5xi64>) -> (tensor<5xf32>, tensor<f32>)
  return %0#0, %0#1, %1#0, %1#1 : tensor<f32>, tensor<f32>, tensor<5xf32>, tensor<f32>
}
