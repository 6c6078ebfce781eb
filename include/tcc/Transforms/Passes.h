//===- Passes.h - tcc transformation passes ---------------------*- C++ -*-===//
//
// Declarations of the passes in Passes.td. Everything generated lands in
// namespace `tcc`: `tcc::createPlanMemoryPass()`, `tcc::PlanMemoryPassOptions`
// and `tcc::registerTccTransformsPasses()`.
//
//===----------------------------------------------------------------------===//

#ifndef TCC_TRANSFORMS_PASSES_H
#define TCC_TRANSFORMS_PASSES_H

#include "tcc/Support/CommandLineParsers.h"

#include "mlir/Pass/Pass.h"

namespace tcc {

#define GEN_PASS_DECL
#include "tcc/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tcc/Transforms/Passes.h.inc"

} // namespace tcc

#endif // TCC_TRANSFORMS_PASSES_H
