// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics

// Each unsupported operator is reported once, at the node's source location.
func.func @unsupported(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unsupported operator 'aten.linalg_matrix_exp.default'}}
  %0 = tcc_graph.operator "torch.ops.aten.linalg_matrix_exp.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tcc_graph.operator "torch.ops.aten.linalg_matrix_exp.default"(%0) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{unsupported operator 'aten.poisson.default'}}
  %2 = tcc_graph.operator "torch.ops.aten.poisson.default"(%1) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

func.func @training_batch_norm(%x: tensor<2x8x4x4xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<2x8x4x4xf32> {
  // expected-error @+1 {{operator 'aten.batch_norm.default': in training mode PyTorch updates running_mean and running_var in place, which the compiled model would not do}}
  %0 = tcc_graph.operator "torch.ops.aten.batch_norm.default"(%x, %m, %v) {operand_names = ["input", "running_mean", "running_var"], args = {training = true}} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  return %0 : tensor<2x8x4x4xf32>
}

// -----

// Integer floor division works for signed integers (samples/integer_ops); a
// uint8 one is refused by name.
func.func @rounding_div_uint8(%x: tensor<4xui8>, %y: tensor<4xui8>) -> tensor<4xui8> {
  // expected-error @+1 {{operator 'aten.div.Tensor_mode': division with rounding of 'ui8' tensors (signed integers and floats only)}}
  %0 = tcc_graph.operator "torch.ops.aten.div.Tensor_mode"(%x, %y) {operand_names = ["self", "other"], args = {rounding_mode = "floor"}} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// An unread in-place operator still writes its input: it is not dropped.
func.func @dead_inplace(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unsupported operator 'aten.exponential_.default'}}
  %0 = tcc_graph.operator "torch.ops.aten.exponential_.default"(%x) {operand_names = ["self"], args = {}} : (tensor<4xf32>) -> tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

// A legalizer's op that does not take these inputs (a product of integers)
// is refused at the operator, by name; the verifier does not get to report
// it later as if the IR were the user's.
func.func @prod_of_integers(%x: tensor<3x4xi64>) -> tensor<3xi64> {
  // expected-error @+1 {{operator 'aten.prod.dim_int' is not supported for these inputs: 'tcc_graph.reduce_prod' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<3x4xi64>'}}
  %0 = tcc_graph.operator "torch.ops.aten.prod.dim_int"(%x) {operand_names = ["self"], args = {dim = 1 : i64}} : (tensor<3x4xi64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// batch_norm's channels are dim 1: a rank-1 input is refused, not read past
// its shape (an empty one has an empty result: legalize-batch-norm.mlir).
func.func @batch_norm_rank1(%x: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{operator 'aten.batch_norm.default': expects an input of rank 2 or more, got 'tensor<3xf32>'}}
  %0 = tcc_graph.operator "torch.ops.aten.batch_norm.default"(%x, %m, %v) {operand_names = ["input", "running_mean", "running_var"], args = {training = false}} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @rot90_same_dims(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{operator 'aten.rot90.default': dims [1, -1] for a rank-2 tensor}}
  %0 = tcc_graph.operator "torch.ops.aten.rot90.default"(%x) {operand_names = ["self"], args = {k = 1 : i64, dims = array<i64: 1, -1>}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @glu_odd(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{glu: dim -1 of size 3 does not halve (even)}}
  %0 = tcc_graph.operator "torch.ops.aten.glu.default"(%x) {operand_names = ["self"], args = {dim = -1 : i64}} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @prelu_weights(%x: tensor<2x3xf32>, %w: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{prelu: 4 weights for an input of type 'tensor<2x3xf32>'}}
  %0 = tcc_graph.operator "torch.ops.aten.prelu.default"(%x, %w) {operand_names = ["self", "weight"], args = {}} : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A loss's reduction other than none (0), mean (1) and sum (2) is refused.
func.func @loss_reduction(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{operator 'aten.l1_loss.default': reduction 3 is unknown (0 none, 1 mean, 2 sum)}}
  %0 = tcc_graph.operator "torch.ops.aten.l1_loss.default"(%x, %y) {operand_names = ["self", "target"], args = {reduction = 3 : i64}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @label_smoothing(%x: tensor<2x3xf32>, %t: tensor<2xi64>) -> tensor<f32> {
  // expected-error @+1 {{cross_entropy with label_smoothing is not supported yet}}
  %0 = tcc_graph.operator "torch.ops.aten.cross_entropy_loss.default"(%x, %t) {operand_names = ["self", "target"], args = {label_smoothing = 1.000000e-01 : f64}} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @polygamma_negative(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operator 'aten.polygamma.default': does not support negative n (-1), as PyTorch}}
  %0 = tcc_graph.operator "torch.ops.aten.polygamma.default"(%x) {operand_names = ["self"], args = {n = -1 : i64}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @mvlgamma_p0(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operator 'aten.mvlgamma.default': needs p >= 1, not 0 (PyTorch raises)}}
  %0 = tcc_graph.operator "torch.ops.aten.mvlgamma.default"(%x) {operand_names = ["self"], args = {p = 0 : i64}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @polynomial_half(%x: tensor<4xf16>, %n: tensor<4xf16>) -> tensor<4xf16> {
  // expected-error @+1 {{operator 'aten.special_chebyshev_polynomial_t.default': is computed in float32 or float64 only, not 'f16' (PyTorch has no kernel for it)}}
  %0 = tcc_graph.operator "torch.ops.aten.special_chebyshev_polynomial_t.default"(%x, %n) {operand_names = ["x", "n"], args = {}} : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// uint8 tensors (`ui8`): +, -, *, negation, bitwise ops, comparisons and
// conversions compute on them; an op that would need an unsigned form tcc
// does not build (maximum, here) is refused at the operator, with the way out.
func.func @maximum_of_uint8(%x: tensor<4xui8>, %y: tensor<4xui8>) -> tensor<4xui8> {
  // expected-error @+1 {{operator 'aten.maximum.default' is not supported for these inputs: on uint8 tensors tcc computes +, -, *, negation, bitwise and/or, comparisons and conversions ('tcc_graph.maximum' is none of them); convert first, e.g. x.int() or x.float()}}
  %0 = tcc_graph.operator "torch.ops.aten.maximum.default"(%x, %y) {operand_names = ["self", "other"], args = {}} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// A clamp of a bool tensor keeping its type: refused. (An integer tensor
// clamped by a float bound is float, as in PyTorch: legalize-activations.mlir.)
func.func @clamp_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{operator 'aten.clamp.default': clamp of a 'i1' tensor is supported for signed integers with integer bounds only}}
  %0 = tcc_graph.operator "torch.ops.aten.clamp.default"(%x) {operand_names = ["self"], args = {min = 0 : i64}} : (tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// The linear algebra factorizations are unrolled over the matrix order.
func.func @inv_too_large(%a: tensor<17x17xf32>) -> tensor<17x17xf32> {
  // expected-error @+1 {{operator 'aten.linalg_inv.default': supports matrices of at most 16 rows and columns (its factorization is unrolled), not 'tensor<17x17xf32>'}}
  %0 = tcc_graph.operator "torch.ops.aten.linalg_inv.default"(%a) {operand_names = ["A"], args = {}} : (tensor<17x17xf32>) -> tensor<17x17xf32>
  return %0 : tensor<17x17xf32>
}

// -----

// grid_sample: bicubic and 3-D grids are refused by name.
func.func @grid_sampler_bicubic(%x: tensor<1x2x3x4xf32>, %g: tensor<1x2x3x2xf32>) -> tensor<1x2x2x3xf32> {
  // expected-error @+1 {{operator 'aten.grid_sampler_2d.default': mode 'bicubic' is not supported yet (bilinear and nearest are)}}
  %0 = tcc_graph.operator "torch.ops.aten.grid_sampler_2d.default"(%x, %g) {operand_names = ["input", "grid"], args = {interpolation_mode = 2 : i64, padding_mode = 0 : i64, align_corners = false}} : (tensor<1x2x3x4xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x2x3xf32>
  return %0 : tensor<1x2x2x3xf32>
}

// -----

func.func @det_half(%a: tensor<3x3xf16>) -> tensor<f16> {
  // expected-error @+1 {{operator 'aten.linalg_det.default': needs a float32 or float64 'A' (PyTorch's linear algebra takes no other type), not 'tensor<3x3xf16>'}}
  %0 = tcc_graph.operator "torch.ops.aten.linalg_det.default"(%a) {operand_names = ["A"], args = {}} : (tensor<3x3xf16>) -> tensor<f16>
  return %0 : tensor<f16>
}

// -----

func.func @lu_factor_no_pivot(%a: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>) {
  // expected-error @+1 {{operator 'aten.linalg_lu_factor.default': without pivoting is not supported (PyTorch's CPU path refuses it too)}}
  %0:2 = tcc_graph.operator "torch.ops.aten.linalg_lu_factor.default"(%a) {operand_names = ["A"], args = {pivot = false}} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>)
  return %0#0, %0#1 : tensor<3x3xf32>, tensor<3xi32>
}

// -----

// The Jacobi eigenvalue sweeps are unrolled: at most 8 x 8.
func.func @svdvals_too_large(%a: tensor<9x9xf32>) -> tensor<9xf32> {
  // expected-error @+1 {{operator 'aten.linalg_svdvals.default': supports matrices with at most 8 rows or columns (its Jacobi sweeps are unrolled), not 9 x 9}}
  %0 = tcc_graph.operator "torch.ops.aten.linalg_svdvals.default"(%a) {operand_names = ["A"], args = {}} : (tensor<9x9xf32>) -> tensor<9xf32>
  return %0 : tensor<9xf32>
}

// -----

func.func @nextafter_f64(%x: tensor<4xf64>, %y: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error @+1 {{operator 'aten.nextafter.default': on float64 needs more precision than float64 (float32, float16 and bfloat16 are supported)}}
  %0 = tcc_graph.operator "torch.ops.aten.nextafter.default"(%x, %y) {operand_names = ["self", "other"], args = {}} : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// full_matrices of a non-square matrix: the completing columns are any
// basis of the complement; tcc refuses rather than choose one.
func.func @svd_full_non_square(%a: tensor<3x2xf32>) -> (tensor<3x3xf32>, tensor<2xf32>, tensor<2x2xf32>) {
  // expected-error @+1 {{operator 'aten.linalg_svd.default': with full matrices of a non-square matrix is not supported (the completing columns are an arbitrary basis), not 3 x 2}}
  %0:3 = tcc_graph.operator "torch.ops.aten.linalg_svd.default"(%a) {operand_names = ["A"], args = {full_matrices = true}} : (tensor<3x2xf32>) -> (tensor<3x3xf32>, tensor<2xf32>, tensor<2x2xf32>)
  return %0#0, %0#1, %0#2 : tensor<3x3xf32>, tensor<2xf32>, tensor<2x2xf32>
}

// -----

// cond through the other norms needs an inverse: only p None, 2 and -2.
func.func @cond_fro(%a: tensor<3x3xf32>) -> tensor<f32> {
  // expected-error @+1 {{operator 'aten.linalg_cond.default': supports p None, 2 and -2 (through singular values) only}}
  %0 = tcc_graph.operator "torch.ops.aten.linalg_cond.default"(%a) {operand_names = ["self"], args = {p = "fro"}} : (tensor<3x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// ormqr needs C with as many rows (from the left) as the reflectors have.
func.func @ormqr_mismatch(%a: tensor<4x2xf32>, %tau: tensor<2xf32>, %c: tensor<3x3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{operator 'aten.ormqr.default': needs C of the reflectors' batch dims and type, with as many rows (left) or columns (right) as they have rows}}
  %0 = tcc_graph.operator "torch.ops.aten.ormqr.default"(%a, %tau, %c) {operand_names = ["self", "input2", "input3"], args = {}} : (tensor<4x2xf32>, tensor<2xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// cross without a dim takes the first dim of size 3 at run time: a symbolic
// one before the static 3 might be it (eager would then transform along it).
func.func @cross_symbolic_no_dim(%a: tensor<?x3xf32>, %b: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{operator 'aten.cross.default': without a dim over symbolic sizes is not supported (the dim it takes depends on them): give dim}}
  %0 = tcc_graph.operator "torch.ops.aten.cross.default"(%a, %b) {operand_names = ["self", "other"], args = {}} : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// tensordot contracting symbolic sizes the export does not state as one.
func.func @tensordot_unrelated_sizes(%a: tensor<2x?xf32> {tcc.sizes = [2, "s0"]}, %b: tensor<?x3xf32> {tcc.sizes = ["s1", 3]}) -> tensor<2x3xf32> {
  // expected-error @+1 {{operator 'aten.tensordot.default': contracts dims 1 and 0 whose symbolic sizes the export does not state as equal}}
  %0 = tcc_graph.operator "torch.ops.aten.tensordot.default"(%a, %b) {operand_names = ["self", "other"], args = {dims_self = array<i64: 1>, dims_other = array<i64: 0>}} : (tensor<2x?xf32>, tensor<?x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// item() of a tensor of several elements: PyTorch raises.
func.func @item_of_many(%x: tensor<2xf32>) -> tensor<f64> {
  // expected-error @+1 {{operator 'aten.item.default': needs a tensor of one element (static sizes), not 'tensor<2xf32>'}}
  %0 = tcc_graph.operator "torch.ops.aten.item.default"(%x) {operand_names = ["self"], args = {}} : (tensor<2xf32>) -> tensor<f64>
  return %0 : tensor<f64>
}
