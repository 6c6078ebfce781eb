//===- ModelName.h - the name a compiled model's symbols carry ------------===//
//
// `tcc compile --name encoder` exports the model's descriptor as
// `tcc_model_encoder` (docs/ARTIFACT.md), so that differently named model
// objects link into one program. The name is a C identifier that does not
// collide with the runtime's own `tcc_model_*` functions.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_TARGET_MODELNAME_H
#define TCC_TARGET_MODELNAME_H

#include <string>

namespace tcc {

/// Why `name` cannot name a model ("" if it can): not a C identifier, too
/// long, or `tcc_model_<name>` is a function of include/tcc/runtime.h.
std::string modelNameError(const std::string &name);

/// The default name for an output path: its file name without extension, with
/// every character outside [A-Za-z0-9_] replaced by '_' and a leading digit
/// prefixed by '_' ("resnet-50.v2.o" -> "resnet_50"); "model" when nothing is
/// left. A reserved result gets a "_model" suffix.
std::string defaultModelName(const std::string &outputPath);

} // namespace tcc

#endif // TCC_TARGET_MODELNAME_H
