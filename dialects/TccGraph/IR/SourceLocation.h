//===- SourceLocation.h - an op's Python source, as users read it ---------===//
//
// The importer gives each op the file and line of the Python code that made
// it (or the graph node's name when the export has no stack trace). The
// compiler's diagnostics and the run-time checks it compiles in both quote
// it the same way.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_DIALECTS_TCCGRAPH_IR_SOURCELOCATION_H
#define TCC_DIALECTS_TCCGRAPH_IR_SOURCELOCATION_H

#include "mlir/IR/Location.h"

#include <string>

namespace tcc::graph {

/// "model.py:13" for file locations, "node 'relu'" for node names, "" if
/// neither is known.
std::string formatSourceLocation(mlir::Location loc);

} // namespace tcc::graph

#endif // TCC_DIALECTS_TCCGRAPH_IR_SOURCELOCATION_H
