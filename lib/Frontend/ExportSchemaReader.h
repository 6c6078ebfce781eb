//===- ExportSchemaReader.h - model.json into ExportedProgram -------------===//
//
// Internal to the frontend: the parts of the schema reader that the archive
// reader and the weight loader share. Each throws FrontendError whose message
// names the JSON location; callers prefix the file and entry.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_FRONTEND_EXPORTSCHEMAREADER_H
#define TCC_LIB_FRONTEND_EXPORTSCHEMAREADER_H

#include "JsonFields.h"

#include "tcc/Frontend/ExportedProgram.h"

namespace tcc::frontend {

/// The graph, signature and range constraints of a parsed model.json
/// (weights and constants stay empty; sourcePath is not set). Checks the
/// schema version first.
ExportedProgram parseExportedProgram(const Json &root);

/// A schema TensorMeta; `tensorName` names the tensor in messages.
TensorMeta parseTensorMeta(const Json &v, const std::string &where,
                           const std::string &tensorName);

/// A schema SymInt ({"as_int": n} or {"as_expr": {...}}). Without
/// `exprMustParse`, an expression tcc cannot parse is kept as written.
SymDim parseSymInt(const Json &v, const std::string &where, bool exprMustParse = true);

/// A schema Device: "cpu", "cuda:0", ...
std::string parseDevice(const Json &v, const std::string &where);

/// A schema Argument union.
Argument parseArgument(const Json &v, const std::string &where);

} // namespace tcc::frontend

#endif // TCC_LIB_FRONTEND_EXPORTSCHEMAREADER_H
