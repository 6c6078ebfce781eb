//===- ConstantEvaluator.h - tcc_graph values computed at compile time -*- C++ -*-===//
//
// Evaluates a tcc_graph value that depends on no function argument (built
// from constants and iotas only: the causal mask a transformers model derives
// from positions, a mask that keeps everything) by running its ops on the
// host, with PyTorch's semantics for each. Static shapes, integer and float
// element types; anything else (an argument, an op it does not know, an index
// out of range, too many elements) gives nothing.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_GRAPH_TRANSFORMS_CONSTANTEVALUATOR_H
#define TCC_GRAPH_TRANSFORMS_CONSTANTEVALUATOR_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace tcc::graph {

/// A value known at compile time: its shape and its elements in row-major
/// order, integers (i1 as 0/1) as `ints`, floats as `floats` (each rounded to
/// the element type after every op, as the op's own dtype would).
struct KnownTensor {
  std::vector<int64_t> shape;
  mlir::Type elementType;
  std::vector<int64_t> ints;
  std::vector<double> floats;

  bool isFloat() const;
  int64_t numElements() const;
};

/// Evaluates values on demand, remembering each one it computed.
class ConstantEvaluator {
public:
  /// No intermediate value larger than this is computed.
  static constexpr int64_t kMaxElements = int64_t(1) << 22;

  /// The elements of `v`, or nothing when it cannot be known here.
  const KnownTensor *evaluate(mlir::Value v);

private:
  std::optional<KnownTensor> compute(mlir::Value v);
  /// Each value asked for: its elements, or null when unknown (owned
  /// separately: pointers handed out stay valid as the map grows).
  llvm::DenseMap<mlir::Value, std::unique_ptr<KnownTensor>> known;
  int depth = 0;
};

} // namespace tcc::graph

#endif // TCC_GRAPH_TRANSFORMS_CONSTANTEVALUATOR_H
