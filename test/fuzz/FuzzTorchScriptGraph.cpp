//===- FuzzTorchScriptGraph.cpp - libFuzzer: TorchScript graph dumps ------===//
//
// The text parser of `print(traced.inlined_graph)` dumps
// (parseTorchScriptGraph) and, for what parses, the conversion to an
// ExportedProgram (operator table, shape inference, weights looked up in an
// archive). The first byte picks the weights: none, or one of the samples'
// torch.jit.save archives (read once); the rest is the dump. Every input must
// convert or be refused with a FrontendError.
//
//===----------------------------------------------------------------------===//
#include "Conversion.h"

#include "tcc/Frontend/FrontendError.h"
#include "tcc/Frontend/TorchScript/TorchScriptArchive.h"
#include "tcc/Frontend/TorchScript/TorchScriptGraph.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

using namespace tcc::frontend;
using namespace tcc::frontend::torchscript;

namespace {

/// The archives the first byte chooses from (index 1..N; 0 is none), in the
/// order scripts/fuzz.sh prefixes the seed dumps with.
const std::vector<std::unique_ptr<TorchScriptArchive>> &archives() {
  static const auto all = [] {
    std::vector<std::unique_ptr<TorchScriptArchive>> v;
    for (const char *name : {"mymodule", "outer_module", "small_cnn", "tiny_transformer"})
      v.push_back(std::make_unique<TorchScriptArchive>(readTorchScriptArchive(
          std::string(TCC_SOURCE_DIR) + "/samples/torchscript/" + name + "/model.pt")));
    return v;
  }();
  return all;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  const auto &all = archives();
  size_t pick = data[0] % (all.size() + 1);
  std::string_view text(reinterpret_cast<const char *>(data + 1), size - 1);
  try {
    TsGraph graph = parseTorchScriptGraph(text, "fuzz.txt");
    ConversionInput in;
    in.graph = &graph;
    in.sourceName = "fuzz.txt";
    if (pick) {
      in.archive = all[pick - 1].get();
      in.positionalInputs = in.archive->tracedInputs;
    }
    ExportedProgram program = convertTorchScriptGraph(in);
    (void)program;
  } catch (const FrontendError &) {
  }
  return 0;
}
