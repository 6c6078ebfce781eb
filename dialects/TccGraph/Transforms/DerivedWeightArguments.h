//===- DerivedWeightArguments.h - entry arguments the runtime computes -*- C++ -*-===//
//
// A derived weight is an entry argument of role `weight` with a program
// (`tcc.derived`, docs/ARTIFACT.md) that the runtime evaluates from other
// weights. Shared by the passes that create them: tcc-hoist-weight-
// expressions and tcc-pad-attention-masks.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_GRAPH_TRANSFORMS_DERIVEDWEIGHTARGUMENTS_H
#define TCC_GRAPH_TRANSFORMS_DERIVEDWEIGHTARGUMENTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/StringSet.h"

#include <string>

namespace tcc::graph {

/// The string attribute `attr` of `func`'s argument `arg` (tcc.role,
/// tcc.name); empty if it has none.
llvm::StringRef argumentString(mlir::func::FuncOp func, mlir::BlockArgument arg,
                               llvm::StringRef attr);

/// The public names of a function's arguments, and new derived weights'
/// names unique among them.
class DerivedWeightNames {
public:
  explicit DerivedWeightNames(mlir::func::FuncOp func);

  /// "derived:<source>:<k>" with the first k no argument has taken (taken
  /// from then on).
  std::string fresh(llvm::StringRef source);

private:
  llvm::StringSet<> names;
};

/// Appends to `func` a weight argument of `type` named `name` whose value is
/// `program`'s (tcc.derived, tcc.sizes, tcc.role and tcc.name set); null if
/// the function refuses it.
mlir::BlockArgument appendDerivedWeight(mlir::func::FuncOp func, mlir::RankedTensorType type,
                                        llvm::StringRef name,
                                        llvm::ArrayRef<std::string> program,
                                        mlir::Location loc);

} // namespace tcc::graph

#endif // TCC_GRAPH_TRANSFORMS_DERIVEDWEIGHTARGUMENTS_H
