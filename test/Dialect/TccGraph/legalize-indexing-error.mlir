// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file -verify-diagnostics

func.func @two_index_tensors_one_mask(%x: tensor<4x5xf32>, %i: tensor<3xi64>, %m: tensor<5xi1>) -> tensor<?xf32> {
  // expected-error @+1 {{operator 'aten.index.Tensor': only integer index tensors are supported (boolean masks are not)}}
  %0 = tcc_graph.operator "torch.ops.aten.index.Tensor"(%x, %i, %m) {operand_names = ["self", "indices.0", "indices.1"], args = {}} : (tensor<4x5xf32>, tensor<3xi64>, tensor<5xi1>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @bool_mask(%x: tensor<4xf32>, %m: tensor<4xi1>) -> tensor<?xf32> {
  // expected-error @+1 {{operator 'aten.index.Tensor': only integer index tensors are supported (boolean masks are not)}}
  %0 = tcc_graph.operator "torch.ops.aten.index.Tensor"(%x, %m) {operand_names = ["self", "indices.0"], args = {}} : (tensor<4xf32>, tensor<4xi1>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @dim_out_of_range(%x: tensor<4x5xf32>, %i: tensor<3xi64>) -> tensor<4x3xf32> {
  // expected-error @+1 {{operator 'aten.index_select.default': dim 2 out of range for rank 2}}
  %0 = tcc_graph.operator "torch.ops.aten.index_select.default"(%x, %i) {operand_names = ["self", "index"], args = {dim = 2 : i64}} : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @bad_expand(%x: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{operator 'aten.expand.default': 'tcc_graph.broadcast' op input dim 0 of size 3 cannot broadcast to 2}}
  %0 = tcc_graph.operator "torch.ops.aten.expand.default"(%x) {operand_names = ["self"], args = {size = array<i64: 2, 4>}} : (tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @strided_past_end(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{operator 'aten.as_strided.default': 'tcc_graph.as_strided' op reads element 9 of an input with 6 elements}}
  %0 = tcc_graph.operator "torch.ops.aten.as_strided.default"(%x) {operand_names = ["self"], args = {size = array<i64: 2, 3>, stride = array<i64: 3, 2>, storage_offset = 2 : i64}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_rank(%x: tensor<4x5xf32>, %i: tensor<3xi64>) -> tensor<3xf32> {
  // expected-error @+1 {{operator 'aten.gather.default': 'tcc_graph.gather' op index rank 1 differs from the input rank 2}}
  %0 = tcc_graph.operator "torch.ops.aten.gather.default"(%x, %i) {operand_names = ["self", "index"], args = {dim = 0 : i64}} : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @expand_symbolic(%x: tensor<1x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{the export gives no symbolic sizes for this result}}
  %0 = tcc_graph.operator "torch.ops.aten.expand.default"(%x) {operand_names = ["self"], args = {size = array<i64: -1, 4>}} : (tensor<1x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @reflect_pad(%x: tensor<2x4xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{operator 'aten.pad.default': reflect padding of -1 and 3 for a dim of size 4 is not supported}}
  %0 = tcc_graph.operator "torch.ops.aten.pad.default"(%x) {operand_names = ["self"], args = {pad = array<i64: -1, 3>, mode = "reflect"}} : (tensor<2x4xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @slice_scatter_symbolic(%x: tensor<?x4xf32>, %s: tensor<2x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{operator 'aten.slice_scatter.default': dimension 0 is symbolic; only a slice [0:4:2] of literal non-negative bounds and step 1 is supported}}
  %0 = tcc_graph.operator "torch.ops.aten.slice_scatter.default"(%x, %s) {operand_names = ["self", "src"], args = {dim = 0 : i64, start = 0 : i64, end = 4 : i64, step = 2 : i64}} : (tensor<?x4xf32>, tensor<2x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @slice_scatter_mismatch(%x: tensor<4x6xf32>, %s: tensor<4x3xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{operator 'aten.slice_scatter.default': src of type 'tensor<4x3xf32>' does not match the slice [1:3:1] of 'tensor<4x6xf32>'}}
  %0 = tcc_graph.operator "torch.ops.aten.slice_scatter.default"(%x, %s) {operand_names = ["self", "src"], args = {dim = 1 : i64, start = 1 : i64, end = 3 : i64, step = 1 : i64}} : (tensor<4x6xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @select_scatter_out_of_range(%x: tensor<4x6xf32>, %r: tensor<6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{index 4 out of range for size 4}}
  %0 = tcc_graph.operator "torch.ops.aten.select_scatter.default"(%x, %r) {operand_names = ["self", "src"], args = {dim = 0 : i64, index = 4 : i64}} : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// The importer found no tensor holding the storage read (StridedStorage.h).
func.func @strided_storage_unknown(%x: tensor<4x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operator 'aten.as_strided.default': it reads storage elements 0 to 3 under 'x'}}
  %0 = tcc_graph.operator "torch.ops.aten.as_strided.default"(%x) {operand_names = ["self"], args = {size = array<i64: 4>, stride = array<i64: 1>}, tcc.storage_error = "it reads storage elements 0 to 3 under 'x'"} : (tensor<4x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gather_scalar_dim(%x: tensor<f32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  // expected-error @+1 {{operator 'aten.gather.default': dim 1 out of range for rank 0}}
  %0 = tcc_graph.operator "torch.ops.aten.gather.default"(%x, %i) {operand_names = ["self", "index"], args = {dim = 1 : i64}} : (tensor<f32>, tensor<2xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @as_strided_scatter_past_end(%x: tensor<3x3xf32>, %s: tensor<2x2xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{operator 'aten.as_strided_scatter.default': the view reaches storage element 9 of 9}}
  %0 = tcc_graph.operator "torch.ops.aten.as_strided_scatter.default"(%x, %s) {operand_names = ["self", "src"], args = {size = array<i64: 2, 2>, stride = array<i64: 3, 4>, storage_offset = 2 : i64}} : (tensor<3x3xf32>, tensor<2x2xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// bilinear of f64 is refused (its f32 arithmetic would not be PyTorch's),
// by name.
func.func @interpolate_f64(%y: tensor<1x2x4x5xf64>) -> tensor<1x2x4x10xf64> {
  // expected-error @+1 {{operator 'aten.upsample_bilinear2d.vec': expects an f32, f16 or bf16 (N, C, spatial...) tensor}}
  %0 = tcc_graph.operator "torch.ops.aten.upsample_bilinear2d.vec"(%y) {operand_names = ["input"], args = {output_size = array<i64: 4, 10>, align_corners = false}} : (tensor<1x2x4x5xf64>) -> tensor<1x2x4x10xf64>
  return %0 : tensor<1x2x4x10xf64>
}
