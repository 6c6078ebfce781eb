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
  /// Input specs of the buffers and parameters the program writes (state
  /// the model instance carries from call to call), in argument order. They
  /// are not among `weights`.
  std::vector<frontend::InputSpec> states;
  /// Indices in `inputs` of the user inputs the program writes in place.
  std::vector<size_t> writtenInputs;
};

} // namespace tcc

#endif // TCC_IMPORT_IMPORTEDSIGNATURE_H
