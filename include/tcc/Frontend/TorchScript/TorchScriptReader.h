//===- TorchScriptReader.h - TorchScript input as an ExportedProgram ------===//
//
// Entry point of the TorchScript frontend: a graph dump (str(graph) of a
// traced, inlined, frozen or scripted module) or a torch.jit.save archive,
// read into the same ExportedProgram the torch.export path produces, so
// every later pass, operator, manifest and guard applies unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_FRONTEND_TORCHSCRIPT_TORCHSCRIPTREADER_H
#define TCC_FRONTEND_TORCHSCRIPT_TORCHSCRIPTREADER_H

#include "tcc/Frontend/ExportedProgram.h"

#include <string>
#include <vector>

namespace tcc::frontend {

struct TorchScriptOptions {
  /// A graph dump (text starting with "graph(") or a torch.jit.save archive.
  std::string input;
  /// --weights: the module's torch.jit.save archive; parameters are looked
  /// up by attribute path ("lin.weight"). For an archive input, the archive
  /// itself is used when this is empty.
  std::string weights;
  /// --input-shape NAME=DIMS, e.g. "x=10x100", "x=Bx100", "x=2x3x16x16:float32"
  /// (NAME is the dump's input name with or without its ".N" suffix).
  std::vector<std::string> inputShapes;
  /// --symbol NAME=MIN:MAX for symbolic dimensions of --input-shape.
  std::vector<std::string> symbols;
};

/// True when `path` holds a TorchScript graph dump or a TorchScript archive
/// (decided by content: text starting with "graph(", or a zip with
/// <top>/data.pkl), so a driver can pick this frontend.
bool isTorchScriptInput(const std::string &path);

/// Reads a TorchScript dump or archive. Throws FrontendError (one line) for
/// malformed text ("file:LINE:COL: ..."), unsupported nodes (with their
/// source range and the advice to use torch.export), missing shapes or
/// weights, and bad options.
ExportedProgram readTorchScript(const TorchScriptOptions &options);

} // namespace tcc::frontend

#endif // TCC_FRONTEND_TORCHSCRIPT_TORCHSCRIPTREADER_H
