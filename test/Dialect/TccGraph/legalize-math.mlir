// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// Rounding: torch.round is half to even; round(x, -1) divides by 10 first
// (PyTorch's order); integers are already whole; div's floor mode is
// PyTorch's div_floor_floating (the quotient of a - fmod(a, b), adjusted,
// floored; copysign(0, a / b) at 0; a / b where b is 0), not floor(a / b); frac = x - trunc(x).
// CHECK-LABEL: func @rounding
// CHECK: tcc_graph.round %arg0 : tensor<4xf32>
// CHECK: %[[TEN:.*]] = tcc_graph.constant dense<1.000000e+01>
// CHECK: %[[D:.*]] = tcc_graph.div %arg0, %[[TEN]]
// CHECK: %[[R:.*]] = tcc_graph.round %[[D]]
// CHECK: tcc_graph.mul %[[R]], %[[TEN]]
// CHECK: %[[Q:.*]] = tcc_graph.div %arg0, %arg0
// CHECK: %[[MOD:.*]] = tcc_graph.fmod %arg0, %arg0
// CHECK: %[[AM:.*]] = tcc_graph.sub %arg0, %[[MOD]]
// CHECK: %[[DIV:.*]] = tcc_graph.div %[[AM]], %arg0
// CHECK: %[[ADJ:.*]] = tcc_graph.select %{{.*}}, %{{.*}}, %[[DIV]]
// CHECK: %[[FL:.*]] = tcc_graph.floor %[[ADJ]]
// CHECK: %[[UP:.*]] = tcc_graph.select %{{.*}}, %{{.*}}, %[[FL]]
// CHECK: %[[SZ:.*]] = tcc_graph.copysign %{{.*}}, %[[Q]]
// CHECK: %[[R:.*]] = tcc_graph.select %{{.*}}, %[[SZ]], %[[UP]]
// CHECK: %[[FLOORDIV:.*]] = tcc_graph.select %{{.*}}, %[[Q]], %[[R]]
// CHECK: %[[T:.*]] = tcc_graph.trunc %arg0
// CHECK: tcc_graph.sub %arg0, %[[T]]
// CHECK: return %{{.*}}, %{{.*}}, %arg1, %[[FLOORDIV]],
func.func @rounding(%x: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi64>, tensor<4xf32>, tensor<4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.round.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.round.decimals"(%x) {operand_names = ["self"], args = {decimals = -1 : i64}} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = tcc_graph.operator "torch.ops.aten.floor.default"(%i) {operand_names = ["self"], args = {}} : (tensor<4xi64>) -> tensor<4xi64>
  %3 = tcc_graph.operator "torch.ops.aten.div.Tensor_mode"(%x, %x) {operand_names = ["self", "other"], args = {rounding_mode = "floor"}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = tcc_graph.operator "torch.ops.aten.frac.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xi64>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Float functions convert integer inputs first; logaddexp is max + log1p(exp(-|a-b|)),
// a + log 2 where a == b (infinities of one sign included).
// CHECK-LABEL: func @math
// CHECK: %[[F:.*]] = tcc_graph.cast %arg1 : (tensor<4xi64>) -> tensor<4xf32>
// CHECK: tcc_graph.tan %[[F]]
// CHECK: tcc_graph.atan2 %arg0, %arg2
// CHECK: tcc_graph.expm1 %arg0
// CHECK: %[[M:.*]] = tcc_graph.maximum %arg0, %arg2
// CHECK: tcc_graph.log1p
// CHECK: %[[G:.*]] = tcc_graph.add %[[M]]
// CHECK: %[[LN2:.*]] = tcc_graph.constant dense<0.693147182>
// CHECK: %[[S:.*]] = tcc_graph.add %arg0, %[[LN2]]
// CHECK: %[[EQ:.*]] = tcc_graph.compare %arg0, %arg2 {predicate = "eq"}
// CHECK: tcc_graph.select %[[EQ]], %[[S]], %[[G]]
func.func @math(%x: tensor<4xf32>, %i: tensor<4xi64>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.tan.default"(%i) {operand_names = ["self"], args = {}} : (tensor<4xi64>) -> tensor<4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.atan2.default"(%x, %y) {operand_names = ["self", "other"], args = {}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = tcc_graph.operator "torch.ops.aten.expm1.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = tcc_graph.operator "torch.ops.aten.logaddexp.default"(%x, %y) {operand_names = ["self", "other"], args = {}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// rsub = other - alpha * self; addcdiv = self + value * t1 / t2; clamp with
// tensor bounds; sign is 1, -1 or 0 (NaN and -0.0 give 0, as PyTorch).
// CHECK-LABEL: func @composites
// CHECK: %[[ONE:.*]] = tcc_graph.constant dense<1.000000e+00>
// CHECK: %[[A:.*]] = tcc_graph.mul %{{.*}}, %arg0
// CHECK: tcc_graph.sub %[[ONE]], %[[A]]
// CHECK: %[[Q:.*]] = tcc_graph.div %arg1, %arg2
// CHECK: %[[V:.*]] = tcc_graph.mul %{{.*}}, %[[Q]]
// CHECK: tcc_graph.add %arg0, %[[V]]
// CHECK: %[[LO:.*]] = tcc_graph.maximum %arg0, %arg1
// CHECK: tcc_graph.minimum %[[LO]], %arg2
// CHECK: %[[LT:.*]] = tcc_graph.compare %arg0, %{{.*}} {predicate = "lt"}
// CHECK: %[[NEG:.*]] = tcc_graph.select %[[LT]]
// CHECK: %[[GT:.*]] = tcc_graph.compare %arg0, %{{.*}} {predicate = "gt"}
// CHECK: tcc_graph.select %[[GT]], %{{.*}}, %[[NEG]]
func.func @composites(%x: tensor<4xf32>, %y: tensor<4xf32>, %z: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.rsub.Scalar"(%x) {operand_names = ["self"], args = {other = 1.0 : f64, alpha = 2 : i64}} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.addcdiv.default"(%x, %y, %z) {operand_names = ["self", "tensor1", "tensor2"], args = {value = 5.000000e-01 : f64}} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = tcc_graph.operator "torch.ops.aten.clamp.Tensor"(%x, %y, %z) {operand_names = ["self", "min", "max"], args = {}} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = tcc_graph.operator "torch.ops.aten.sign.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// linspace in f64 (start + i step for the first half, end - (n-1-i) step for
// the rest, rounded once; start and end may be 0-d tensors); eye compares row and column indices; flip takes
// n-1, ..., 0; fmax is maximum except where one side is NaN.
// CHECK-LABEL: func @creation_more
// CHECK: %[[START:.*]] = tcc_graph.constant dense<0.000000e+00> : tensor<f64>
// CHECK: %[[END:.*]] = tcc_graph.constant dense<1.000000e+00> : tensor<f64>
// CHECK: %[[SPAN:.*]] = tcc_graph.sub %[[END]], %[[START]]
// CHECK: %[[STEP:.*]] = tcc_graph.div %[[SPAN]], %{{.*}}
// CHECK: %[[I:.*]] = tcc_graph.iota {start = 0.000000e+00 : f64, step = 1.000000e+00 : f64} : tensor<5xf64>
// CHECK: %[[IS:.*]] = tcc_graph.mul %[[I]], %[[STEP]]
// CHECK: %[[F:.*]] = tcc_graph.add %[[START]], %[[IS]]
// CHECK: %[[LEFT:.*]] = tcc_graph.iota {start = 4.000000e+00 : f64, step = -1.000000e+00 : f64} : tensor<5xf64>
// CHECK: %[[LS:.*]] = tcc_graph.mul %[[LEFT]], %[[STEP]]
// CHECK: %[[B:.*]] = tcc_graph.sub %[[END]], %[[LS]]
// CHECK: %[[HALF:.*]] = tcc_graph.compare %[[I]], %{{.*}} {predicate = "lt"}
// CHECK: %[[L:.*]] = tcc_graph.select %[[HALF]], %[[F]], %[[B]]
// CHECK: tcc_graph.cast %[[L]] : (tensor<5xf64>) -> tensor<5xf32>
// CHECK: %[[EQ:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "eq"} : (tensor<3x1xi64>, tensor<1x4xi64>) -> tensor<3x4xi1>
// CHECK: tcc_graph.cast %[[EQ]] : (tensor<3x4xi1>) -> tensor<3x4xf32>
// CHECK: %[[R:.*]] = tcc_graph.iota {start = 2.000000e+00 : f64, step = -1.000000e+00 : f64} : tensor<3xi64>
// CHECK: tcc_graph.take %arg0, %[[R]] {dim = 1 : i64}
// CHECK: %[[M:.*]] = tcc_graph.maximum %arg0, %arg1
// CHECK: %[[XN:.*]] = tcc_graph.compare %arg0, %arg0 {predicate = "ne"}
// CHECK: %[[YN:.*]] = tcc_graph.compare %arg1, %arg1 {predicate = "ne"}
// CHECK: %[[S:.*]] = tcc_graph.select %[[YN]], %arg0, %[[M]]
// CHECK: tcc_graph.select %[[XN]], %arg1, %[[S]]
func.func @creation_more(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<5xf32>, tensor<3x4xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.linspace.default"() {operand_names = [], args = {start = 0 : i64, end = 1 : i64, steps = 5 : i64}} : () -> tensor<5xf32>
  %1 = tcc_graph.operator "torch.ops.aten.eye.m"() {operand_names = [], args = {n = 3 : i64, m = 4 : i64}} : () -> tensor<3x4xf32>
  %2 = tcc_graph.operator "torch.ops.aten.flip.default"(%x) {operand_names = ["self"], args = {dims = array<i64: 1>}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = tcc_graph.operator "torch.ops.aten.fmax.default"(%x, %y) {operand_names = ["self", "other"], args = {}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<5xf32>, tensor<3x4xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// xlogy: x log y, 0 where x is 0, then NaN where y is NaN; xlog1py with a
// Python number for y uses log1p.
// CHECK-LABEL: func @xlogy
// CHECK: %[[LOG:.*]] = tcc_graph.log %arg1
// CHECK: %[[P:.*]] = tcc_graph.mul %arg0, %[[LOG]]
// CHECK: %[[ZERO:.*]] = tcc_graph.constant dense<0.000000e+00>
// CHECK: %[[XZ:.*]] = tcc_graph.compare %arg0, %[[ZERO]] {predicate = "eq"}
// CHECK: %[[Z:.*]] = tcc_graph.select %[[XZ]], %[[ZERO]], %[[P]]
// CHECK: %[[YNAN:.*]] = tcc_graph.compare %arg1, %arg1 {predicate = "ne"}
// CHECK: %[[R:.*]] = tcc_graph.select %[[YNAN]], %arg1, %[[Z]]
// CHECK: %[[TWO:.*]] = tcc_graph.constant dense<2.000000e+00>
// CHECK: tcc_graph.log1p %[[TWO]] : tensor<f32>
// CHECK: return %[[R]],
func.func @xlogy(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.xlogy.Tensor"(%x, %y) {operand_names = ["self", "other"], args = {}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.special_xlog1py.other_scalar"(%x) {operand_names = ["self"], args = {other = 2.000000e+00 : f64}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// prelu: a per-channel weight as [C, 1] against (N, C, L); glu: the first
// half times the sigmoid of the second.
// CHECK-LABEL: func @prelu_glu
// CHECK: %[[W:.*]] = tcc_graph.reshape %arg1 : (tensor<3xf32>) -> tensor<3x1xf32>
// CHECK: %[[POS:.*]] = tcc_graph.compare %arg0, %{{.*}} {predicate = "gt"}
// CHECK: %[[S:.*]] = tcc_graph.mul %[[W]], %arg0 : (tensor<3x1xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK: %[[PRELU:.*]] = tcc_graph.select %[[POS]], %arg0, %[[S]]
// CHECK: %[[A:.*]] = tcc_graph.slice %arg0 {dim = 2 : i64, end = 2 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[B:.*]] = tcc_graph.slice %arg0 {dim = 2 : i64, end = 4 : i64, start = 2 : i64, step = 1 : i64}
// CHECK: tcc_graph.neg %[[B]]
// CHECK: %[[G:.*]] = tcc_graph.div
// CHECK: %[[GLU:.*]] = tcc_graph.mul %[[A]], %[[G]]
// CHECK: return %[[PRELU]], %[[GLU]]
func.func @prelu_glu(%x: tensor<2x3x4xf32>, %w: tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x2xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.prelu.default"(%x, %w) {operand_names = ["self", "weight"], args = {}} : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.glu.default"(%x) {operand_names = ["self"], args = {dim = -1 : i64}} : (tensor<2x3x4xf32>) -> tensor<2x3x2xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<2x3x2xf32>
}

// -----

// nan_to_num: NaN, +inf and -inf replaced in turn (the infinities by f32's
// largest finite values by default).
// CHECK-LABEL: func @nan_to_num
// CHECK: %[[NAN:.*]] = tcc_graph.compare %arg0, %arg0 {predicate = "ne"}
// CHECK: %[[V:.*]] = tcc_graph.constant dense<1.500000e+00>
// CHECK: %[[A:.*]] = tcc_graph.select %[[NAN]], %[[V]], %arg0
// CHECK: %[[INF:.*]] = tcc_graph.constant dense<0x7F800000>
// CHECK: %[[ISINF:.*]] = tcc_graph.compare %arg0, %[[INF]] {predicate = "eq"}
// CHECK: %[[MAX:.*]] = tcc_graph.constant dense<3.40282347E+38>
// CHECK: %[[B:.*]] = tcc_graph.select %[[ISINF]], %[[MAX]], %[[A]]
// CHECK: %[[NINF:.*]] = tcc_graph.constant dense<0xFF800000>
// CHECK: %[[ISNINF:.*]] = tcc_graph.compare %arg0, %[[NINF]] {predicate = "eq"}
// CHECK: %[[MIN:.*]] = tcc_graph.constant dense<-3.40282347E+38>
// CHECK: tcc_graph.select %[[ISNINF]], %[[MIN]], %[[B]]
func.func @nan_to_num(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.nan_to_num.default"(%x) {operand_names = ["self"], args = {nan = 1.5 : f64}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// lerp: self + w (end - self) for |w| < 0.5, else end - (end - self) (1 - w):
// one form for a Python-number weight, a select for a tensor one.
// CHECK-LABEL: func @lerp
// CHECK: %[[W:.*]] = tcc_graph.constant dense<4.000000e-01>
// CHECK: %[[D:.*]] = tcc_graph.sub %arg1, %arg0
// CHECK: %[[WD:.*]] = tcc_graph.mul %[[W]], %[[D]]
// CHECK: %[[S:.*]] = tcc_graph.add %arg0, %[[WD]]
// CHECK-NEXT: tcc_graph.sub %arg1, %arg0
// CHECK: %[[LOW:.*]] = tcc_graph.add %arg0
// CHECK: %[[HIGH:.*]] = tcc_graph.sub %arg1
// CHECK: %[[A:.*]] = tcc_graph.abs %arg2
// CHECK: %[[SMALL:.*]] = tcc_graph.compare %[[A]], %{{.*}} {predicate = "lt"}
// CHECK: %[[T:.*]] = tcc_graph.select %[[SMALL]], %[[LOW]], %[[HIGH]]
// CHECK: return %[[S]], %[[T]]
func.func @lerp(%x: tensor<4xf32>, %e: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.lerp.Scalar"(%x, %e) {operand_names = ["self", "end"], args = {weight = 4.000000e-01 : f64}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.lerp.Tensor"(%x, %e, %w) {operand_names = ["self", "end", "weight"], args = {}} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A bf16 lerp is computed in f32 and rounded once, as PyTorch's kernel: the
// operands widened, the select in f32, one cast back.
// CHECK-LABEL: func @lerp_bf16
// CHECK: %[[X:.*]] = tcc_graph.cast %arg0 : (tensor<4xbf16>) -> tensor<4xf32>
// CHECK: %[[E:.*]] = tcc_graph.cast %arg1 : (tensor<4xbf16>) -> tensor<4xf32>
// CHECK: %[[W:.*]] = tcc_graph.cast %arg2 : (tensor<4xbf16>) -> tensor<4xf32>
// CHECK: tcc_graph.sub %[[E]], %[[X]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[T:.*]] = tcc_graph.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[R:.*]] = tcc_graph.cast %[[T]] : (tensor<4xf32>) -> tensor<4xbf16>
// CHECK: return %[[R]]
func.func @lerp_bf16(%x: tensor<4xbf16>, %e: tensor<4xbf16>, %w: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = tcc_graph.operator "torch.ops.aten.lerp.Tensor"(%x, %e, %w) {operand_names = ["self", "end", "weight"], args = {}} : (tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// heaviside: `values` at 0, else x > 0; hypot: m sqrt(1 + (n/m)^2), 0 where
// m is 0, inf where either side is infinite.
// CHECK-LABEL: func @heaviside_hypot
// CHECK: %[[POS:.*]] = tcc_graph.compare %arg0, %{{.*}} {predicate = "gt"}
// CHECK: %[[STEP:.*]] = tcc_graph.select %[[POS]], %{{.*}}, %{{.*}} : (tensor<4x1xi1>, tensor<f32>, tensor<f32>) -> tensor<4x1xf32>
// CHECK: %[[AT0:.*]] = tcc_graph.compare %arg0, %{{.*}} {predicate = "eq"}
// CHECK: %[[H:.*]] = tcc_graph.select %[[AT0]], %arg1, %[[STEP]] : (tensor<4x1xi1>, tensor<5xf32>, tensor<4x1xf32>) -> tensor<4x5xf32>
// CHECK: %[[AX:.*]] = tcc_graph.abs %arg0
// CHECK: %[[AY:.*]] = tcc_graph.abs %arg1
// CHECK: %[[M:.*]] = tcc_graph.maximum %[[AX]], %[[AY]]
// CHECK: %[[N:.*]] = tcc_graph.minimum %[[AX]], %[[AY]]
// CHECK: %[[R:.*]] = tcc_graph.div %[[N]], %[[M]]
// CHECK: %[[SQ:.*]] = tcc_graph.sqrt
// CHECK: %[[HY:.*]] = tcc_graph.mul %[[M]], %[[SQ]]
// CHECK: %[[INF:.*]] = tcc_graph.constant dense<0x7F800000>
// CHECK: %[[FIN:.*]] = tcc_graph.select %{{.*}}, %{{.*}}, %[[HY]]
// CHECK: %[[ANY:.*]] = tcc_graph.bitwise_or
// CHECK: %[[HYPOT:.*]] = tcc_graph.select %[[ANY]], %[[INF]], %[[FIN]]
// CHECK: return %[[H]], %[[HYPOT]]
func.func @heaviside_hypot(%x: tensor<4x1xf32>, %y: tensor<5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.heaviside.default"(%x, %y) {operand_names = ["self", "values"], args = {}} : (tensor<4x1xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %1 = tcc_graph.operator "torch.ops.aten.hypot.default"(%x, %y) {operand_names = ["self", "other"], args = {}} : (tensor<4x1xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  return %0, %1 : tensor<4x5xf32>, tensor<4x5xf32>
}

// -----

// isfinite: |x| < inf (false for NaN); signbit: copysign(1, x) < 0 (-0.0 too).
// CHECK-LABEL: func @tests
// CHECK: %[[INF:.*]] = tcc_graph.constant dense<0x7F800000>
// CHECK: %[[A:.*]] = tcc_graph.abs %arg0
// CHECK: %[[F:.*]] = tcc_graph.compare %[[A]], %[[INF]] {predicate = "lt"}
// CHECK: %[[C:.*]] = tcc_graph.copysign %{{.*}}, %arg0
// CHECK: %[[S:.*]] = tcc_graph.compare %[[C]], %{{.*}} {predicate = "lt"}
// CHECK: return %[[F]], %[[S]]
func.func @tests(%x: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>) {
  %0 = tcc_graph.operator "torch.ops.aten.isfinite.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xi1>
  %1 = tcc_graph.operator "torch.ops.aten.signbit.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// -----

// i0: both Chebyshev series of PyTorch's calc_i0 (30 terms in x / 2 - 2 on
// [0, 8], 25 in 32 / x - 2 beyond, divided by sqrt(x)), each times exp(|x|),
// one picked per element; i0e leaves out exp.
// CHECK-LABEL: func @bessel
// CHECK: %[[X:.*]] = tcc_graph.abs %arg0
// CHECK: tcc_graph.constant dense<-4.41534163E-18> : tensor<f32>
// CHECK: tcc_graph.constant dense<0.676795303> : tensor<f32>
// CHECK: tcc_graph.constant dense<3.200000e+01> : tensor<f32>
// CHECK: tcc_graph.constant dense<0.804490387> : tensor<f32>
// CHECK: %[[E:.*]] = tcc_graph.exp %[[X]]
// CHECK: %[[NEAR:.*]] = tcc_graph.mul %[[E]], %{{.*}}
// CHECK: %[[FAR:.*]] = tcc_graph.div
// CHECK: %[[SMALL:.*]] = tcc_graph.compare %[[X]], %{{.*}} {predicate = "le"}
// CHECK: %[[R:.*]] = tcc_graph.select %[[SMALL]], %[[NEAR]], %[[FAR]]
// CHECK: return %[[R]]
func.func @bessel(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.i0.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// special_i1: PyTorch's calc_i1 with float's shorter series (the last 17 and
// 7 coefficients), exp(x) x times the first, odd in x; i1e leaves out exp.
// spherical_bessel_j0: its Taylor polynomial below 1/2, sin(x) / x beyond,
// 0 at +-inf.
// CHECK-LABEL: func @bessel_i1
// CHECK: %[[X:.*]] = tcc_graph.abs %arg0
// CHECK: tcc_graph.constant dense<9.38153732E-9> : tensor<f32>
// CHECK: tcc_graph.constant dense<0.252587199> : tensor<f32>
// CHECK: tcc_graph.exp %[[X]]
// CHECK: tcc_graph.constant dense<-3.83538046E-9> : tensor<f32>
// CHECK: tcc_graph.compare %[[X]], %{{.*}} {predicate = "le"}
// CHECK: %[[NEG:.*]] = tcc_graph.compare %arg0, %{{.*}} {predicate = "lt"}
// CHECK: tcc_graph.neg
// CHECK: tcc_graph.select %[[NEG]]
// CHECK: tcc_graph.sin %arg1
// CHECK: tcc_graph.constant dense<0x7F800000> : tensor<f32>
// CHECK: return
func.func @bessel_i1(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.special_i1.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.special_spherical_bessel_j0.default"(%y) {operand_names = ["x"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// special_scaled_modified_bessel_k1: on (0, 2] Cephes' series in x^2 - 2
// plus log(x / 2) times I1 (its double series: 29 terms), times exp(x);
// beyond, the series in 8 / x - 2 over sqrt(x); NaN below 0, inf at 0.
// CHECK-LABEL: func @bessel_k1
// CHECK: %[[GROW:.*]] = tcc_graph.exp %arg0
// CHECK: tcc_graph.constant dense<-7.02386355E-18> : tensor<f32>
// CHECK: tcc_graph.log
// CHECK: tcc_graph.constant dense<2.77791403E-18> : tensor<f32>
// CHECK: tcc_graph.constant dense<8.000000e+00> : tensor<f32>
// CHECK: tcc_graph.sqrt %arg0
// CHECK: tcc_graph.compare %arg0, %{{.*}} {predicate = "le"}
// CHECK: tcc_graph.constant dense<0x7FC00000> : tensor<f32>
// CHECK: tcc_graph.constant dense<0x7F800000> : tensor<f32>
// CHECK: return
func.func @bessel_k1(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.special_scaled_modified_bessel_k1.default"(%x) {operand_names = ["x"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// special_modified_bessel_k0: on (0, 2] Cephes' series in x^2 - 2 less
// log(x / 2) I0(x); beyond, exp(-x) times the series in 8 / x - 2 over
// sqrt(x); NaN below 0, inf at 0. special_modified_bessel_i1 takes I1's
// whole (double) series in float too: 29 terms from 2.77791411e-18.
// CHECK-LABEL: func @modified_bessel
// CHECK: tcc_graph.constant dense<1.37446541E-16> : tensor<f32>
// CHECK: tcc_graph.log
// CHECK: %[[NEGX:.*]] = tcc_graph.neg %arg0
// CHECK: tcc_graph.exp %[[NEGX]]
// CHECK: tcc_graph.constant dense<0x7F800000> : tensor<f32>
// CHECK: tcc_graph.abs %arg1
// CHECK: tcc_graph.constant dense<2.77791403E-18> : tensor<f32>
// CHECK: return
func.func @modified_bessel(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.special_modified_bessel_k0.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.special_modified_bessel_i1.default"(%y) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// special_airy_ai: the oscillating form below -2.09 (sin and cos of
// zeta + pi / 4), the decaying one from 2.09 (exp(zeta)), between them the
// Maclaurin series unrolled to 20 steps, each stopping where ATen's loop
// does (|m / f| <= float's epsilon); 0 beyond 103.892, NaN at +-inf.
// CHECK-LABEL: func @airy
// CHECK: %[[OSC:.*]] = tcc_graph.mul %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: tcc_graph.sin
// CHECK: tcc_graph.cos
// CHECK: tcc_graph.exp
// CHECK-COUNT-20: tcc_graph.constant dense<1.1920929E-7> : tensor<f32>
// CHECK: tcc_graph.constant dense<0.355028063> : tensor<f32>
// CHECK: %[[HIGH:.*]] = tcc_graph.compare %arg0, %{{.*}} {predicate = "ge"}
// CHECK: tcc_graph.select %[[HIGH]]
// CHECK: %[[LOW:.*]] = tcc_graph.compare %arg0, %{{.*}} {predicate = "lt"}
// CHECK: tcc_graph.select %[[LOW]]
// CHECK: tcc_graph.constant dense<1.038920e+02> : tensor<f32>
// CHECK: tcc_graph.constant dense<0x7FC00000> : tensor<f32>
// CHECK: return
func.func @airy(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.special_airy_ai.default"(%x) {operand_names = ["x"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// nextafter in f64: x plus or minus the spacing of its binade (2^(e - 23),
// e = floor(log2 |x|) at least -126), halved toward zero from a power of
// two; then the infinity, x == y and NaN cases.
// CHECK-LABEL: func @nextafter
// CHECK: tcc_graph.log2 {{.*}} : tensor<4xf64>
// CHECK: tcc_graph.floor
// CHECK: tcc_graph.exp2
// CHECK: tcc_graph.add {{.*}} : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK: tcc_graph.cast {{.*}} : (tensor<4xf64>) -> tensor<4xf32>
// CHECK: tcc_graph.copysign
func.func @nextafter(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.nextafter.default"(%x, %y) {operand_names = ["self", "other"], args = {}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// glu along a symbolic dim: halves of n / 2 read at run time (x[:h] a
// slice, x[h:] a take from h), an odd n failing the call.
// CHECK-LABEL: func @glu_symbolic
// CHECK: %[[N:.*]] = tcc_graph.dim_size %arg0 {dim = 0 : i64}
// CHECK: %[[TWO:.*]] = tcc_graph.constant dense<2> : tensor<i64>
// CHECK: %[[R:.*]] = tcc_graph.fmod %[[N]], %[[TWO]]
// CHECK: %[[EVEN:.*]] = tcc_graph.compare %[[R]], %{{.*}} {predicate = "eq"}
// CHECK: %[[X:.*]] = tcc_graph.check %[[EVEN]], %arg0 "aten.glu.default: dim 0 of an odd size does not halve"
// CHECK: %[[H:.*]] = tcc_graph.trunc_div %[[N]], %[[TWO]]
// CHECK: %[[L:.*]] = arith.divui
// CHECK: %[[A:.*]] = tcc_graph.slice %[[X]] sizes(%[[L]]) {dim = 0 : i64, end = 9223372036854775807 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[I:.*]] = tcc_graph.iota sizes(%[[L]])
// CHECK: %[[AT:.*]] = tcc_graph.add %[[I]], %[[H]]
// CHECK: %[[B:.*]] = tcc_graph.take %[[X]], %[[AT]] {dim = 0 : i64} : (tensor<?x4xf32>, tensor<?xi64>) -> tensor<?x4xf32>
// CHECK: tcc_graph.neg %[[B]]
// CHECK: tcc_graph.mul %[[A]]
func.func @glu_symbolic(%x: tensor<?x4xf32> {tcc.sizes = ["s0", 4]}) -> tensor<?x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.glu.default"(%x) {operand_names = ["self"], args = {dim = 0 : i64}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
