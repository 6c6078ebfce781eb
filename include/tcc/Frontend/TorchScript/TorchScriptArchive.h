//===- TorchScriptArchive.h - what a torch.jit.save archive holds ----------===//
//
// A torch.jit.save archive is a zip with one top folder:
//   <top>/data.pkl            the module object tree (attributes, tensors)
//   <top>/data/N              raw storage bytes of those tensors
//   <top>/constants.pkl, constants/N   tensors the code refers to as CONSTANTS.cN
//   <top>/traced_inputs.pkl   example inputs of a traced module (metadata)
//   <top>/code/__torch__/...  the modules' methods in TorchScript's Python subset
//
//===----------------------------------------------------------------------===//
#ifndef TCC_FRONTEND_TORCHSCRIPT_TORCHSCRIPTARCHIVE_H
#define TCC_FRONTEND_TORCHSCRIPT_TORCHSCRIPTARCHIVE_H

#include "tcc/Frontend/ExportedProgram.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tcc::frontend::torchscript {

struct TorchScriptArchive {
  std::string path;
  /// "model/" (the top folder, with its slash) or "".
  std::string prefix;
  /// Every tensor attribute of the module tree by attribute path
  /// ("lin.weight", "inner.lin.bias"), contiguous bytes.
  std::map<std::string, TensorData> tensors;
  /// Scalar attributes (int, float, bool) by path ("bn.eps"), as doubles.
  std::map<std::string, double> scalars;
  /// Class of each module object by path ("" for the root):
  /// "__torch__.torch.nn.modules.linear.Linear".
  std::map<std::string, std::string> moduleClasses;
  /// CONSTANTS.c0, c1, ... (constants.pkl).
  std::vector<TensorData> constants;
  /// Metadata of the traced example inputs of forward (traced_inputs.pkl);
  /// empty when the archive has none (scripted modules).
  std::vector<TensorMeta> tracedInputs;
  /// Entry names, for lookups of code files.
  std::vector<std::string> entries;

  /// The code file that defines `qualifiedClass` (`__torch__.a.b.C` →
  /// code/__torch__/a/b.py), or nullopt when the archive has none.
  std::optional<std::string> readCodeFor(const std::string &qualifiedClass) const;
};

/// True when `path` is a zip holding `<top>/data.pkl` (a TorchScript archive)
/// rather than a torch.export archive.
bool isTorchScriptArchive(const std::string &path);

/// Reads the archive (module tree, storages, constants, traced input
/// metadata). Throws FrontendError naming the archive and entry.
TorchScriptArchive readTorchScriptArchive(const std::string &path);

} // namespace tcc::frontend::torchscript

#endif // TCC_FRONTEND_TORCHSCRIPT_TORCHSCRIPTARCHIVE_H
