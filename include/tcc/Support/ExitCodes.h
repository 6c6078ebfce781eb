//===- ExitCodes.h - the exit codes of every tcc command ------------------===//
//
// One meaning per code across `tcc compile`, `explain`, `run`, `generate`,
// ...: the help text of tools/tcc/main.cpp states them, and the compile
// stages (CompileSession, ArtifactWriter) return them.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_EXITCODES_H
#define TCC_SUPPORT_EXITCODES_H

namespace tcc {

enum ExitCode : int {
  kExitOk = 0,
  kExitUserError = 1, ///< the input: a model, file or value tcc refuses, with why
  kExitUsage = 2,     ///< the command line
  kExitInternal = 3,  ///< tcc's own bug
};

} // namespace tcc

#endif // TCC_SUPPORT_EXITCODES_H
