//===- Explain.h - what tcc would do with a model, without compiling it ---===//
//
// `tcc explain`: reads the model, imports it, legalizes every operator
// (recording each refusal rather than stopping at the first), and when all
// are supported runs the graph passes, kernel formation, bufferization and
// memory planning; no LLVM, no PTX. The answer is one JSON object
// (docs/EXPLAIN.md): the operators with their counts and status, every
// refused one at its Python line, the kernels tcc would form, the guards,
// the planned arena and its peak.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_PIPELINES_EXPLAIN_H
#define TCC_PIPELINES_EXPLAIN_H

#include "tcc/Pipelines/Options.h"

#include <nlohmann/json.hpp>

namespace tcc {

/// Explains `options.input` (compiled as `options.target` and
/// `options.precision` would be) into `report`. Returns the exit code: 0
/// when tcc supports the whole model, 1 when it refuses an operator or
/// cannot read the model (the report says why), 3 for an internal error.
int explainModel(const CompileOptions &options, nlohmann::json &report);

} // namespace tcc

#endif // TCC_PIPELINES_EXPLAIN_H
