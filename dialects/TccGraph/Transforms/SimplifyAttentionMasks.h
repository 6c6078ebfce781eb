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

#include "dialects/TccGraph/IR/TccGraphOps.h"

#include "llvm/ADT/ArrayRef.h"

namespace tcc::graph {

/// Each of `ops` whose mask depends on no input: its mask dropped where it
/// keeps every key, the causal flag where it keeps exactly key j <= i for
/// query i (Passes.td, tcc-simplify-attention-masks). The ops are replaced.
void simplifyKnownAttentionMasks(llvm::ArrayRef<AttentionOp> ops);

} // namespace tcc::graph

#endif // TCC_GRAPH_TRANSFORMS_SIMPLIFYATTENTIONMASKS_H
