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
#include "tcc/Support/InputGuard.h"

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
    // guards_code as the compiler parses it (ManifestBuilder), then as the
    // runtime evaluates it: refused or evaluated, never a crash.
    static const std::vector<tcc::GuardInput> inputs{{"x", 4}, {"y", 2}};
    struct Sizes : tcc::GuardInputSizes {
      int64_t size(size_t input, size_t dim) const override {
        return static_cast<int64_t>(input * 7 + dim * 3 + 1);
      }
    } sizes;
    for (const std::string &text : program.guardsCode) {
      try {
        bytes += tcc::InputGuard::parse(text, inputs).holds(sizes);
      } catch (const tcc::InputGuardError &) {
      }
    }
    (void)bytes;
  } catch (const tcc::frontend::FrontendError &) {
  }
  return 0;
}
