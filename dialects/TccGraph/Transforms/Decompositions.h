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

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace tcc::graph {

/// Whether `op` is one of the whole ops (softmax, layer_norm, rms_norm,
/// attention).
bool isWholeOp(mlir::Operation *op);

/// Replaces the whole op `op` by primitive ops computing the same result
/// (in f32 for f16/bf16 inputs) and erases it.
void decomposeWholeOp(mlir::Operation *op);

/// The value of a rank-0 tcc_graph.constant as a double, or nullopt.
std::optional<double> scalarConstant(mlir::Value v);

/// quantize's multiplier C(1 / f64(scale)) in `computeType` (f32 or f64),
/// the scale's shape: a constant where the scale is one (PT2E's Python
/// numbers), the same arithmetic done at compile time.
mlir::Value quantizeMultiplier(mlir::OpBuilder &b, mlir::Location loc, mlir::Value scale,
                               mlir::Type computeType);

} // namespace tcc::graph

#endif // TCC_DIALECTS_TCCGRAPH_TRANSFORMS_DECOMPOSITIONS_H
