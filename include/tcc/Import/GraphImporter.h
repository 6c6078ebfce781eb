//===- GraphImporter.h - an ExportedProgram into the tcc_graph dialect ----===//
//
// Builds `func.func @forward` whose arguments are the user inputs followed by
// the weights (parameters, buffers, lifted constants, in the export's input
// order) and whose results are the user outputs. Every node becomes a
// generic `tcc_graph.operator` at its Python source location; legalization
// decides later what is supported.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_IMPORT_GRAPHIMPORTER_H
#define TCC_IMPORT_GRAPHIMPORTER_H

#include "tcc/Import/ImportedSignature.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <vector>

namespace tcc {

/// Imports `program`; on failure emits diagnostics (at source locations where
/// known) and returns null.
mlir::OwningOpRef<mlir::ModuleOp>
importExportedProgram(mlir::MLIRContext &ctx, const frontend::ExportedProgram &program,
                      ImportedSignature &signature);

/// The MLIR element type of a tcc dtype.
mlir::Type elementTypeFor(mlir::MLIRContext &ctx, DType dtype);

} // namespace tcc

#endif // TCC_IMPORT_GRAPHIMPORTER_H
