//===- Patterns.h - tcc_graph to linalg patterns, by op family ------------===//
#ifndef TCC_LIB_CONVERSION_TCCGRAPHTOLINALG_PATTERNS_H
#define TCC_LIB_CONVERSION_TCCGRAPHTOLINALG_PATTERNS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tcc {
void populateElementwiseToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateMatmulToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateConvPoolToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateReductionToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateDataMovementToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateSequenceToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// Sizes of `type` as OpFoldResults; dynamic ones are taken from
/// `dynamicFrom[i]` = (value, dim) (one entry per result dim). Fails when a
/// dynamic size has no source, so the pattern fails instead of crashing.
mlir::FailureOr<llvm::SmallVector<mlir::OpFoldResult>>
mixedSizes(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
           llvm::ArrayRef<std::pair<mlir::Value, int64_t>> dynamicFrom);
/// A tensor.empty of `type` filled with `value`.
mlir::Value makeFilled(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                       llvm::ArrayRef<mlir::OpFoldResult> sizes, mlir::TypedAttr value);
/// The float attribute `v` of `elementType`.
mlir::TypedAttr floatAttr(mlir::OpBuilder &b, mlir::Type elementType, double v);
} // namespace tcc

#endif
