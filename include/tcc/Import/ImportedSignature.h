//===- ImportedSignature.h - the entry's signature in export terms --------===//
#ifndef TCC_IMPORT_IMPORTEDSIGNATURE_H
#define TCC_IMPORT_IMPORTEDSIGNATURE_H

#include "tcc/Frontend/ExportedProgram.h"

#include <string>
#include <vector>

namespace tcc {

/// How the imported function's signature maps back to the export.
struct ImportedSignature {
  /// Graph value names of the user inputs, in argument order.
  std::vector<std::string> inputs;
  /// Input specs of the weights, in argument order after the inputs.
  std::vector<frontend::InputSpec> weights;
  /// Graph value names of the user outputs, in result order.
  std::vector<std::string> outputs;
};

} // namespace tcc

#endif // TCC_IMPORT_IMPORTEDSIGNATURE_H
