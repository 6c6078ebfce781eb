//===- TccGraphOps.h - tcc_graph operations -------------------------------===//
#ifndef TCC_DIALECTS_TCCGRAPH_IR_TCCGRAPHOPS_H
#define TCC_DIALECTS_TCCGRAPH_IR_TCCGRAPHOPS_H

#include "dialects/TccGraph/IR/TccGraphDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#define GET_OP_CLASSES
#include "dialects/TccGraph/IR/TccGraphOps.h.inc"

namespace tcc::graph {
/// The PyTorch broadcast of two shapes (ShapedType::kDynamic for `?`), or
/// failure if a pair of static sizes differs and neither is 1.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);
} // namespace tcc::graph

#endif // TCC_DIALECTS_TCCGRAPH_IR_TCCGRAPHOPS_H
