//===- Decompositions.h - the whole ops spelled out in primitive ops ------===//
//
// softmax, layer_norm, rms_norm and attention stay whole through
// legalization for kernel formation; these functions write one of them as
// primitive tcc_graph ops. tcc-decompose-graph applies them to every such op;
// tcc-form-kernels to those it does not make kernels, as soon as it has
// decided (so that an attention's matrix products still become GEMMs).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_DIALECTS_TCCGRAPH_TRANSFORMS_DECOMPOSITIONS_H
#define TCC_DIALECTS_TCCGRAPH_TRANSFORMS_DECOMPOSITIONS_H

#include "mlir/IR/Operation.h"

namespace tcc::graph {

/// Whether `op` is one of the whole ops (softmax, layer_norm, rms_norm,
/// attention).
bool isWholeOp(mlir::Operation *op);

/// Replaces the whole op `op` by primitive ops computing the same result
/// (in f32 for f16/bf16 inputs) and erases it.
void decomposeWholeOp(mlir::Operation *op);

} // namespace tcc::graph

#endif // TCC_DIALECTS_TCCGRAPH_TRANSFORMS_DECOMPOSITIONS_H
