// RUN: tcc-opt %s -convert-tcc-graph-to-linalg -split-input-file -mlir-print-local-scope | FileCheck %s

// ViT's input: the class token expanded to the batch, concatenated before
// the patches, plus the position embedding. The concatenation is one
// generic that picks its input by the token index (reading the class token
// itself, not its broadcast, and each input at a clamped index); nothing is
// inserted into a buffer, so elementwise fusion folds it into the add.
// CHECK-LABEL: func.func @class_token(
// CHECK-SAME:    %[[CLS:[^:]*]]: tensor<1x1x8xf32>, %[[X:[^:]*]]: tensor<2x4x8xf32>
// CHECK-NOT:     tensor.insert_slice
// CHECK:         %[[CAT:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x5x8xf32>)
// CHECK:           %[[B:.*]] = linalg.index 0 : index
// CHECK:           %[[T:.*]] = linalg.index 1 : index
// CHECK:           %[[C:.*]] = linalg.index 2 : index
// CHECK:           tensor.extract %[[CLS]][%{{.*}}, %{{.*}}, %[[C]]] : tensor<1x1x8xf32>
// CHECK:           %[[LOCAL:.*]] = arith.minsi %{{.*}}, %c3 : index
// CHECK:           tensor.extract %[[X]][%[[B]], %[[LOCAL]], %[[C]]] : tensor<2x4x8xf32>
// CHECK:           %[[IN:.*]] = arith.cmpi sge, %[[T]], %c1 : index
// CHECK:           arith.select %[[IN]]
// CHECK:         linalg.generic {{.*}} ins(%[[CAT]], %{{.*}} : tensor<2x5x8xf32>, tensor<1x5x8xf32>)
// CHECK:           arith.addf
// CHECK-NOT:     tensor.insert_slice
func.func @class_token(%cls: tensor<1x1x8xf32>, %x: tensor<2x4x8xf32>, %pos: tensor<1x5x8xf32>) -> tensor<2x5x8xf32> {
  %b = tcc_graph.broadcast %cls : (tensor<1x1x8xf32>) -> tensor<2x1x8xf32>
  %cat = tcc_graph.concat %b, %x {dim = 1 : i64} : (tensor<2x1x8xf32>, tensor<2x4x8xf32>) -> tensor<2x5x8xf32>
  %y = tcc_graph.add %cat, %pos : (tensor<2x5x8xf32>, tensor<1x5x8xf32>) -> tensor<2x5x8xf32>
  return %y : tensor<2x5x8xf32>
}

// -----

// A reader that is not pointwise (the result itself, returned): the
// concatenation is insert_slices, which producers can write in place.
// CHECK-LABEL: func.func @returned(
// CHECK:         tensor.insert_slice
// CHECK:         tensor.insert_slice
func.func @returned(%a: tensor<2x1x8xf32>, %b: tensor<2x4x8xf32>) -> tensor<2x5x8xf32> {
  %cat = tcc_graph.concat %a, %b {dim = 1 : i64} : (tensor<2x1x8xf32>, tensor<2x4x8xf32>) -> tensor<2x5x8xf32>
  return %cat : tensor<2x5x8xf32>
}

// -----

// More than four inputs: each element would load every one of them.
// CHECK-LABEL: func.func @many(
// CHECK-COUNT-5: tensor.insert_slice
func.func @many(%a: tensor<2x1xf32>) -> tensor<2x5xf32> {
  %cat = tcc_graph.concat %a, %a, %a, %a, %a {dim = 1 : i64} : (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
  %y = tcc_graph.neg %cat : tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// DenseNet's features: a concatenation that extends another stays
// insert_slices (tcc-share-concat-buffers builds the chain in one buffer).
// CHECK-LABEL: func.func @extends(
// CHECK-COUNT-4: tensor.insert_slice
func.func @extends(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x3xf32>) -> tensor<2x9xf32> {
  %ab = tcc_graph.concat %a, %b {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  %abc = tcc_graph.concat %ab, %c {dim = 1 : i64} : (tensor<2x6xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
  %y = tcc_graph.neg %abc : tensor<2x9xf32>
  return %y : tensor<2x9xf32>
}

// -----

// torchvision's DenseNet concatenates all features so far in each layer: the
// concatenations share inputs, and stay insert_slices.
// CHECK-LABEL: func.func @shares(
// CHECK-COUNT-5: tensor.insert_slice
func.func @shares(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x3xf32>) -> (tensor<2x6xf32>, tensor<2x9xf32>) {
  %ab = tcc_graph.concat %a, %b {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  %abc = tcc_graph.concat %a, %b, %c {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
  %y = tcc_graph.neg %ab : tensor<2x6xf32>
  %z = tcc_graph.neg %abc : tensor<2x9xf32>
  return %y, %z : tensor<2x6xf32>, tensor<2x9xf32>
}

// -----

// An input with no elements along the dim is never read.
// CHECK-LABEL: func.func @empty_part(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x0xf32>, %[[B:[^:]*]]: tensor<2x3xf32>
// CHECK-NOT:     tensor.extract %[[A]]
// CHECK:         tensor.extract %[[B]]
// CHECK-NOT:     tensor.extract %[[A]]
func.func @empty_part(%a: tensor<2x0xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %cat = tcc_graph.concat %a, %b {dim = 1 : i64} : (tensor<2x0xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = tcc_graph.neg %cat : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Swin's patch merging: four strided slices of one image concatenated along
// channels, read by a layer norm (here: returned). Every input is a view, so
// whatever reads it, the concatenation is one generic reading the image at
// (2i + a, 2j + b): not four copies.
// CHECK-LABEL: func.func @patch_merging(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x4x4x3xf32>
// CHECK-NOT:     tensor.insert_slice
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<2x2x2x12xf32>)
// CHECK:           %[[I:.*]] = linalg.index 1 : index
// CHECK:           %[[J:.*]] = linalg.index 2 : index
// CHECK:           arith.muli %[[I]], %{{.*}} : index
// CHECK:           arith.muli %[[J]], %{{.*}} : index
// CHECK:           tensor.extract %[[X]][{{.*}}] : tensor<2x4x4x3xf32>
// CHECK-COUNT-3:   tensor.extract %[[X]]
// CHECK-NOT:     tensor.insert_slice
func.func @patch_merging(%x: tensor<2x4x4x3xf32>) -> tensor<2x2x2x12xf32> {
  %r0 = tcc_graph.slice %x {dim = 1 : i64, start = 0 : i64, end = 4 : i64, step = 2 : i64} : (tensor<2x4x4x3xf32>) -> tensor<2x2x4x3xf32>
  %r1 = tcc_graph.slice %x {dim = 1 : i64, start = 1 : i64, end = 4 : i64, step = 2 : i64} : (tensor<2x4x4x3xf32>) -> tensor<2x2x4x3xf32>
  %x0 = tcc_graph.slice %r0 {dim = 2 : i64, start = 0 : i64, end = 4 : i64, step = 2 : i64} : (tensor<2x2x4x3xf32>) -> tensor<2x2x2x3xf32>
  %x1 = tcc_graph.slice %r1 {dim = 2 : i64, start = 0 : i64, end = 4 : i64, step = 2 : i64} : (tensor<2x2x4x3xf32>) -> tensor<2x2x2x3xf32>
  %x2 = tcc_graph.slice %r0 {dim = 2 : i64, start = 1 : i64, end = 4 : i64, step = 2 : i64} : (tensor<2x2x4x3xf32>) -> tensor<2x2x2x3xf32>
  %x3 = tcc_graph.slice %r1 {dim = 2 : i64, start = 1 : i64, end = 4 : i64, step = 2 : i64} : (tensor<2x2x4x3xf32>) -> tensor<2x2x2x3xf32>
  %cat = tcc_graph.concat %x0, %x1, %x2, %x3 {dim = 3 : i64} : (tensor<2x2x2x3xf32>, tensor<2x2x2x3xf32>, tensor<2x2x2x3xf32>, tensor<2x2x2x3xf32>) -> tensor<2x2x2x12xf32>
  return %cat : tensor<2x2x2x12xf32>
}
