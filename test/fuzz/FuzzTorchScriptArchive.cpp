//===- FuzzTorchScriptArchive.cpp - libFuzzer: torch.jit.save archives ----===//
//
// A TorchScript archive as `tcc compile model.pt` reads it: the zip, the
// unpickler (data.pkl, constants.pkl, traced_inputs.pkl), the storages, the
// serialized code executed symbolically into a graph (graphFromArchiveCode),
// and the conversion to an ExportedProgram. Every input must convert or be
// refused with a FrontendError.
//
//===----------------------------------------------------------------------===//
#include "Conversion.h"
#include "FuzzInputFile.h"

#include "tcc/Frontend/FrontendError.h"
#include "tcc/Frontend/TorchScript/TorchScriptArchive.h"
#include "tcc/Frontend/TorchScript/TorchScriptCode.h"

#include <cstddef>
#include <cstdint>

using namespace tcc::frontend;
using namespace tcc::frontend::torchscript;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static tcc::fuzz::FuzzInputFile file;
  const std::string &path = file.write(data, size);
  try {
    if (!isTorchScriptArchive(path))
      return 0;
    TorchScriptArchive archive = readTorchScriptArchive(path);
    TsGraph graph = graphFromArchiveCode(archive);
    ConversionInput in;
    in.graph = &graph;
    in.sourceName = path;
    in.archive = &archive;
    in.positionalInputs = archive.tracedInputs;
    ExportedProgram program = convertTorchScriptGraph(in);
    (void)program;
  } catch (const FrontendError &) {
  }
  return 0;
}
