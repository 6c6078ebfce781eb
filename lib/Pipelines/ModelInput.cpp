//===- ModelInput.cpp - the model file a compile or an explain reads ------===//
#include "tcc/Pipelines/ModelInput.h"

#include "tcc/Frontend/ExportedProgramReader.h"
#include "tcc/Frontend/FrontendError.h"
#include "tcc/Frontend/TorchScript/TorchScriptReader.h"

#include <sys/stat.h>

int tcc::readModelInput(const CompileOptions &options, frontend::ExportedProgram &program,
                        std::string &error) {
  try {
    // A FIFO or a device would block the readers or never end: a regular
    // file (or a directory, which the reader names as such) only.
    struct stat info;
    if (::stat(options.input.c_str(), &info) == 0 && !S_ISREG(info.st_mode) &&
        !S_ISDIR(info.st_mode))
      throw frontend::FrontendError(options.input + ": not a regular file");
    if (frontend::isTorchScriptInput(options.input)) {
      // A TorchScript dump (text starting with "graph(") or torch.jit.save archive.
      frontend::TorchScriptOptions ts;
      ts.input = options.input;
      ts.weights = options.weights;
      ts.inputShapes = options.inputShapes;
      ts.symbols = options.symbols;
      program = frontend::readTorchScript(ts);
    } else {
      if (!options.weights.empty() || !options.inputShapes.empty() || !options.symbols.empty())
        throw frontend::FrontendError(options.input + ": --weights, --input-shape and --symbol "
                                      "apply to TorchScript input only");
      program = frontend::readExportedProgram(options.input);
    }
  } catch (const frontend::FrontendError &e) {
    error = e.what();
    return 1;
  } catch (const std::exception &e) {
    error = e.what();
    return 3;
  }
  return 0;
}
