//===- ExportedProgramReader.h - read .pt2 archives and model.json --------===//
//
// Entry points of the frontend: a .pt2 archive written by torch.export.save
// (graph, weights and constants) or a bare model.json (graph only). Which one
// a file is, is decided by its content (zip magic), not its extension.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_FRONTEND_EXPORTEDPROGRAMREADER_H
#define TCC_FRONTEND_EXPORTEDPROGRAMREADER_H

#include "tcc/Frontend/ExportedProgram.h"

#include <string>
#include <string_view>

namespace tcc::frontend {

/// Reads a .pt2 archive or a bare model.json. Throws FrontendError (one line
/// naming the file, the archive entry and the node or value) for unreadable,
/// truncated, malformed or unsupported input; never reads out of bounds.
ExportedProgram readExportedProgram(const std::string &path);

/// Reads the text of a model.json; `sourceName` is used in messages and as
/// ExportedProgram::sourcePath. No weights are read.
ExportedProgram readExportedProgramJson(std::string_view jsonText,
                                        const std::string &sourceName);

} // namespace tcc::frontend

#endif // TCC_FRONTEND_EXPORTEDPROGRAMREADER_H
