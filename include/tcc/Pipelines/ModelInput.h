//===- ModelInput.h - the model file a compile or an explain reads --------===//
//
// One reader for every input `tcc compile` and `tcc explain` take: a
// torch.export archive (.pt2), a bare model.json, a TorchScript dump or a
// torch.jit.save archive (with --weights, --input-shape, --symbol).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_PIPELINES_MODELINPUT_H
#define TCC_PIPELINES_MODELINPUT_H

#include "tcc/Frontend/ExportedProgram.h"
#include "tcc/Pipelines/Options.h"

namespace tcc {

/// Reads `options.input` into `program`. Returns 0, or the exit code with
/// the message in `error`: 1 for an unreadable or invalid model (or
/// TorchScript options given for another input), 3 for a tcc bug.
int readModelInput(const CompileOptions &options, frontend::ExportedProgram &program,
                   std::string &error);

} // namespace tcc

#endif // TCC_PIPELINES_MODELINPUT_H
