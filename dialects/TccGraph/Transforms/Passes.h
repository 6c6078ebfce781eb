//===- Passes.h - passes on the tcc_graph dialect -------------------------===//
#ifndef TCC_DIALECTS_TCCGRAPH_TRANSFORMS_PASSES_H
#define TCC_DIALECTS_TCCGRAPH_TRANSFORMS_PASSES_H

#include "dialects/TccGraph/IR/TccGraphDialect.h"
#include "tcc/Support/DerivedWeightProgram.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tcc::graph {
#define GEN_PASS_DECL
#include "dialects/TccGraph/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialects/TccGraph/Transforms/Passes.h.inc"
} // namespace tcc::graph

#endif // TCC_DIALECTS_TCCGRAPH_TRANSFORMS_PASSES_H
