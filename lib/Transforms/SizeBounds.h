//===- SizeBounds.h - upper bounds of a function's dynamic sizes ----------===//
//
// Interval arithmetic over the integer and index values of one function, for
// tcc-plan-memory: every buffer is placed at the size its dynamic dims reach
// at most. Leaves are constants, static dims, and dims of function arguments
// bounded by their `tcc.sizes` attribute and the module's `tcc.symbols`
// ranges; a size that cannot be bounded says where and why.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_TRANSFORMS_SIZEBOUNDS_H
#define TCC_TRANSFORMS_SIZEBOUNDS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tcc {

/// A closed interval [lo, hi] that an integer SSA value is known to lie in.
struct SizeRange {
  int64_t lo;
  int64_t hi;
};

/// Why a size could not be bounded: where, and a sentence naming the culprit.
struct BoundFailure {
  mlir::Location loc;
  std::string reason;
};

/// Interval arithmetic over integer/index values of one function. Leaves are
/// constants, static dims, and dims of function arguments bounded by their
/// `tcc.sizes` attribute and the module's `tcc.symbols` ranges.
class SizeBounder {
public:
  SizeBounder(mlir::func::FuncOp func, mlir::DictionaryAttr symbols)
      : func(func), symbols(symbols) {}

  /// The range of `value`; on failure, `getFailure()` says why.
  mlir::FailureOr<SizeRange> rangeOf(mlir::Value value);
  const BoundFailure &getFailure() const { return *failure; }

private:
  mlir::FailureOr<SizeRange> computeRange(mlir::Value value);
  mlir::FailureOr<SizeRange> dimRange(mlir::Value source, int64_t dim, mlir::Operation *user);
  mlir::FailureOr<SizeRange> argumentDimRange(mlir::BlockArgument arg, int64_t dim);
  mlir::FailureOr<SizeRange> affineRange(mlir::AffineExpr expr, llvm::ArrayRef<SizeRange> operands,
                               unsigned numDims, mlir::Operation *op);
  mlir::FailureOr<SizeRange> fail(mlir::Location loc, const llvm::Twine &reason) {
    failure = BoundFailure{loc, reason.str()};
    return mlir::failure();
  }

  mlir::func::FuncOp func;
  mlir::DictionaryAttr symbols;
  llvm::DenseMap<mlir::Value, SizeRange> known;
  llvm::DenseMap<mlir::Value, BoundFailure> unknown;
  std::optional<BoundFailure> failure;
};

} // namespace tcc

#endif // TCC_TRANSFORMS_SIZEBOUNDS_H
