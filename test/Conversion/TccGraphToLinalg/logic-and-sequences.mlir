// RUN: tcc-opt %s -convert-tcc-graph-to-linalg -split-input-file | FileCheck %s

// Integer compare, bool to float cast (0/1, unsigned), and select.
// CHECK-LABEL: func @mask
// CHECK: linalg.generic
// CHECK: arith.cmpi slt
// CHECK: linalg.generic
// CHECK: arith.uitofp %{{.*}} : i1 to f32
// CHECK: linalg.generic
// CHECK: arith.select
func.func @mask(%a: tensor<2x6xi64>, %b: tensor<i64>, %x: tensor<2x6xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>) {
  %m = tcc_graph.compare %a, %b {predicate = "lt"} : (tensor<2x6xi64>, tensor<i64>) -> tensor<2x6xi1>
  %f = tcc_graph.cast %m : (tensor<2x6xi1>) -> tensor<2x6xf32>
  %s = tcc_graph.select %m, %x, %f : (tensor<2x6xi1>, tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>
  return %f, %s : tensor<2x6xf32>, tensor<2x6xf32>
}

// -----

// Float to int truncates toward zero; != NaN is unordered.
// CHECK-LABEL: func @float_int
// CHECK: arith.fptosi %{{.*}} : f32 to i64
// CHECK: arith.cmpf une
func.func @float_int(%x: tensor<4xf32>) -> (tensor<4xi64>, tensor<4xi1>) {
  %i = tcc_graph.cast %x : (tensor<4xf32>) -> tensor<4xi64>
  %n = tcc_graph.compare %x, %x {predicate = "ne"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %i, %n : tensor<4xi64>, tensor<4xi1>
}

// -----

// iota: start + index * step from linalg.index.
// CHECK-LABEL: func @iota
// CHECK: linalg.generic
// CHECK: linalg.index 0
// CHECK: arith.muli
// CHECK: arith.addi
func.func @iota() -> tensor<5xi64> {
  %0 = tcc_graph.iota {start = 1.0 : f64, step = 2.0 : f64} : tensor<5xi64>
  return %0 : tensor<5xi64>
}

// -----

// cumsum: a reduction loop k over the scanned dim, adding x[k] where k <= j.
// CHECK-LABEL: func @cumsum
// CHECK: linalg.fill
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: arith.cmpi ule
// CHECK: arith.select
// CHECK: arith.addi
func.func @cumsum(%x: tensor<2x6xi64>) -> tensor<2x6xi64> {
  %0 = tcc_graph.cumsum %x {dim = 1 : i64} : tensor<2x6xi64>
  return %0 : tensor<2x6xi64>
}

// -----

// A bf16 cumsum accumulates in f32 and is rounded once, as PyTorch's: each
// element widened, the running sums f32, one truncf at the end.
// CHECK-LABEL: func @cumsum_bf16
// CHECK: linalg.fill {{.*}} -> tensor<2x6xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: -> tensor<2x6xf32>
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @cumsum_bf16(%x: tensor<2x6xbf16>) -> tensor<2x6xbf16> {
  %0 = tcc_graph.cumsum %x {dim = 1 : i64} : tensor<2x6xbf16>
  return %0 : tensor<2x6xbf16>
}

// -----

// A splat constant becomes a fill, not a stored array.
// CHECK-LABEL: func @splat
// CHECK: linalg.fill
// CHECK-NOT: arith.constant dense
func.func @splat() -> tensor<3x3xf32> {
  %0 = tcc_graph.constant dense<1.5> : tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// fmod: remf for floats, remsi for integers (the sign of the dividend).
// CHECK-LABEL: func @fmod
// CHECK: linalg.generic
// CHECK: arith.remf
// CHECK: linalg.generic
// CHECK: arith.remsi
func.func @fmod(%x: tensor<2x6xf32>, %y: tensor<f32>, %a: tensor<2x6xi64>, %b: tensor<6xi64>) -> (tensor<2x6xf32>, tensor<2x6xi64>) {
  %0 = tcc_graph.fmod %x, %y : (tensor<2x6xf32>, tensor<f32>) -> tensor<2x6xf32>
  %1 = tcc_graph.fmod %a, %b : (tensor<2x6xi64>, tensor<6xi64>) -> tensor<2x6xi64>
  return %0, %1 : tensor<2x6xf32>, tensor<2x6xi64>
}

// -----

// dim_size: the size read from the tensor and filled into a rank-0 tensor.
// CHECK-LABEL: func @dim_size
// CHECK: %[[D:.*]] = tensor.dim %arg0, %{{.*}} : tensor<2x?xi64>
// CHECK: %[[I:.*]] = arith.index_cast %[[D]] : index to i64
// CHECK: linalg.fill ins(%[[I]] : i64) outs(%{{.*}} : tensor<i64>)
func.func @dim_size(%x: tensor<2x?xi64>) -> tensor<i64> {
  %0 = tcc_graph.dim_size %x {dim = 1 : i64} : (tensor<2x?xi64>) -> tensor<i64>
  return %0 : tensor<i64>
}
