//===- Patterns.h - tcc_graph to linalg patterns, by op family ------------===//
#ifndef TCC_LIB_CONVERSION_TCCGRAPHTOLINALG_PATTERNS_H
#define TCC_LIB_CONVERSION_TCCGRAPHTOLINALG_PATTERNS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#include <functional>

namespace tcc {
void populateElementwiseToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateMatmulToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateConvPoolToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateReductionToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateDataMovementToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateConcatRotationToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateConcatGatherToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateSequenceToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateIndexingToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateSpecialFunctionToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// An all-parallel generic computing `body` on one element of each operand
/// (broadcast, NumPy rules) into `resultType`; null when a dynamic result
/// size has no source.
mlir::Value
buildPointwise(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType resultType,
               mlir::ValueRange operands,
               const std::function<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                               mlir::ValueRange)> &body);

/// `v` broadcast (NumPy rules) to `type` as an all-parallel generic, with the
/// symbolic sizes `dynamicSizes` or else from `v`; null when a dynamic result
/// size has no source.
mlir::Value broadcastTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        mlir::RankedTensorType type, mlir::ValueRange dynamicSizes = {});

/// Sizes of `type` as OpFoldResults; dynamic ones are taken from
/// `dynamicFrom[i]` = (value, dim) (one entry per result dim). Fails when a
/// dynamic size has no source, so the pattern fails instead of crashing.
mlir::FailureOr<llvm::SmallVector<mlir::OpFoldResult>>
mixedSizes(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
           llvm::ArrayRef<std::pair<mlir::Value, int64_t>> dynamicFrom);
/// A tensor.empty of `type` filled with `value`.
mlir::Value makeFilled(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                       llvm::ArrayRef<mlir::OpFoldResult> sizes, mlir::TypedAttr value);
/// `v` (rank >= 1) collapsed to 1-D in row-major order, itself when already
/// 1-D; a view after bufferization.
mlir::Value flatten(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
/// `v` with its elements converted to `elementType` as PyTorch's .to(dtype)
/// does, as an all-parallel generic.
mlir::Value convertElements(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                            mlir::Type elementType);
/// Where PyTorch accumulates sums of `elementType`: f32 for f16 and bf16
/// (matmuls, sums, means), else the type itself.
mlir::Type accumulatorType(mlir::Type elementType);
/// How a reduction combines an element into its accumulator.
using ReduceCombine =
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::Value element,
                                   mlir::Value acc)>;
/// `src` reduced over `dims` (sorted) into `init` (the other dims, in src's
/// order) by `combine`: one generic, kept dims then reduced dims as loops.
mlir::Value reduceDims(mlir::OpBuilder &b, mlir::Location loc, mlir::Value src,
                       llvm::ArrayRef<int64_t> dims, mlir::Value init, ReduceCombine combine);
/// `src` (a float tensor) summed over `dims` (sorted) into `init` (the other
/// dims, in src's order). Sums of many terms (static sizes) are summed in
/// blocks, then the blocks' sums, to keep rounding errors small
/// (BlockedSum.cpp).
mlir::Value sumDims(mlir::OpBuilder &b, mlir::Location loc, mlir::Value src,
                    llvm::ArrayRef<int64_t> dims, mlir::Value init);
/// The float attribute `v` of `elementType`.
mlir::TypedAttr floatAttr(mlir::OpBuilder &b, mlir::Type elementType, double v);
} // namespace tcc

#endif
