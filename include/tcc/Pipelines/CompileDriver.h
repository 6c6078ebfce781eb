//===- CompileDriver.h - `tcc compile`: model file to model.so ------------===//
#ifndef TCC_PIPELINES_COMPILEDRIVER_H
#define TCC_PIPELINES_COMPILEDRIVER_H

#include "tcc/Pipelines/Options.h"

namespace tcc {

/// Runs the whole compile; prints diagnostics (one line each, `file:line:
/// error: ...`) and progress to stderr. Returns the process exit code
/// (0 ok, 1 input error, 3 internal error).
int compileModel(const CompileOptions &options, const char *argv0);

} // namespace tcc

#endif // TCC_PIPELINES_COMPILEDRIVER_H
