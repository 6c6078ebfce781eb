//===- FuzzExportedProgram.cpp - libFuzzer: .pt2 archives and model.json --===//
//
// The frontend's entry point, readExportedProgram: a .pt2 zip (model.json,
// weights and constants with their configs) or a bare model.json, chosen by
// content. Every input must either read or be refused with a FrontendError;
// any other exception (the driver's "internal error"), crash, hang or
// sanitizer report is a finding.
//
//===----------------------------------------------------------------------===//
#include "FuzzInputFile.h"

#include "tcc/Frontend/ExportedProgramReader.h"
#include "tcc/Frontend/FrontendError.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static tcc::fuzz::FuzzInputFile file;
  const std::string &path = file.write(data, size);
  try {
    tcc::frontend::ExportedProgram program = tcc::frontend::readExportedProgram(path);
    // Touch what a reader hands on: every value's type, every payload.
    size_t bytes = 0;
    for (const auto &[name, meta] : program.tensorValues)
      bytes += tcc::frontend::formatTensorType(meta).size();
    for (const auto &[name, tensor] : program.weights)
      bytes += tensor.bytes.size();
    (void)bytes;
  } catch (const tcc::frontend::FrontendError &) {
  }
  return 0;
}
