//===- SimplifyAttentionMasks.h - masks known at compile time --*- C++ -*-===//
//
// Shared by the tcc-simplify-attention-masks pass (sdpa's masks, on the
// graph) and kernel formation (the masks of attention written out as
// matmul, mask, softmax, matmul, which formation raises to tcc_graph.attention
// only then).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_GRAPH_TRANSFORMS_SIMPLIFYATTENTIONMASKS_H
#define TCC_GRAPH_TRANSFORMS_SIMPLIFYATTENTIONMASKS_H

namespace mlir {
class Operation;
} // namespace mlir

namespace tcc::graph {

/// Every tcc_graph.attention under `root` whose mask depends on no input:
/// dropped where it keeps every key, the causal flag where it keeps exactly
/// key j <= i for query i (Passes.td, tcc-simplify-attention-masks).
void simplifyKnownAttentionMasks(mlir::Operation *root);

} // namespace tcc::graph

#endif // TCC_GRAPH_TRANSFORMS_SIMPLIFYATTENTIONMASKS_H
