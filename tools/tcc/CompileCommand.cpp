//===- CompileCommand.cpp - `tcc compile` ---------------------------------===//
#include "tools/tcc/Commands.h"

#include "tcc/Pipelines/CompileDriver.h"

// The options struct is the pipeline's own; main.cpp binds it to flags.
int tcc::runCompileCommand(const CompileCommandOptions &opts) {
  return compileModel(opts.options, opts.argv0);
}
