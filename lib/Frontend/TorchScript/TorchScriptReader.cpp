//===- TorchScriptReader.cpp - options, input detection, entry point ------===//
#include "tcc/Frontend/TorchScript/TorchScriptReader.h"

#include "Conversion.h"
#include "tcc/Frontend/FrontendError.h"
#include "tcc/Frontend/TorchScript/TorchScriptCode.h"

#include <fstream>
#include <sstream>

using namespace tcc;
using namespace tcc::frontend;
using namespace tcc::frontend::torchscript;

namespace {
std::optional<std::string> readText(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    return std::nullopt;
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

bool startsWithGraph(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  char buf[64] = {};
  f.read(buf, sizeof buf - 1);
  std::string head(buf, static_cast<size_t>(f.gcount()));
  size_t b = head.find_first_not_of(" \t\r\n");
  return b != std::string::npos && head.compare(b, 6, "graph(") == 0;
}

/// "10x100", "Bx100" → dims; a symbolic dim must be declared with --symbol.
std::vector<SymDim> parseDims(const std::string &text, const std::string &option) {
  std::vector<SymDim> dims;
  if (text.empty() || text == "scalar")
    return dims;
  size_t start = 0;
  while (start <= text.size()) {
    size_t x = text.find('x', start);
    // A symbol may itself contain 'x' only if it is not followed by digits;
    // keep it simple: split on every 'x'.
    std::string d = text.substr(start, x == std::string::npos ? std::string::npos : x - start);
    if (d.empty())
      throw FrontendError("--input-shape " + option + ": empty dimension");
    if (d.find_first_not_of("0123456789") == std::string::npos) {
      int64_t v = std::stoll(d);
      dims.push_back(SymDim{v, "", v});
    } else {
      if (!(std::isalpha(static_cast<unsigned char>(d[0])) || d[0] == '_'))
        throw FrontendError("--input-shape " + option + ": bad dimension '" + d + "'");
      dims.push_back(SymDim{std::nullopt, d, 0});
    }
    if (x == std::string::npos)
      break;
    start = x + 1;
  }
  return dims;
}
} // namespace

bool frontend::isTorchScriptInput(const std::string &path) {
  return startsWithGraph(path) || isTorchScriptArchive(path);
}

ExportedProgram frontend::readTorchScript(const TorchScriptOptions &options) {
  ConversionInput in;
  in.sourceName = options.input;

  for (const std::string &s : options.symbols) {
    size_t eq = s.find('='), colon = s.find(':', eq == std::string::npos ? 0 : eq);
    if (eq == std::string::npos || colon == std::string::npos || eq == 0)
      throw FrontendError("--symbol " + s + ": expected NAME=MIN:MAX");
    RangeConstraint r;
    try {
      r.min = std::stoll(s.substr(eq + 1, colon - eq - 1));
      r.max = std::stoll(s.substr(colon + 1));
    } catch (const std::exception &) {
      throw FrontendError("--symbol " + s + ": expected NAME=MIN:MAX with integers");
    }
    if (r.min > r.max || r.min < 0)
      throw FrontendError("--symbol " + s + ": empty or negative range");
    in.symbols[s.substr(0, eq)] = r;
  }
  for (const std::string &s : options.inputShapes) {
    size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw FrontendError("--input-shape " + s + ": expected NAME=DIMS (e.g. x=10x100)");
    std::string name = s.substr(0, eq), dims = s.substr(eq + 1);
    size_t colon = dims.find(':');
    if (colon != std::string::npos) {
      std::optional<DType> dt = parseDType(dims.substr(colon + 1));
      if (!dt)
        throw FrontendError("--input-shape " + s + ": unknown dtype '" +
                            dims.substr(colon + 1) + "' (float32, int64, ...)");
      in.inputDTypes[name] = *dt;
      dims = dims.substr(0, colon);
    }
    try {
      in.inputShapes[name] = parseDims(dims, s);
    } catch (const std::out_of_range &) {
      throw FrontendError("--input-shape " + s + ": dimension too large");
    }
  }

  std::optional<TorchScriptArchive> archive;
  if (!options.weights.empty())
    archive = readTorchScriptArchive(options.weights);

  TsGraph graph;
  if (startsWithGraph(options.input)) {
    std::optional<std::string> text = readText(options.input);
    if (!text)
      throw FrontendError(options.input + ": cannot read the file");
    graph = parseTorchScriptGraph(*text, options.input);
  } else if (isTorchScriptArchive(options.input)) {
    TorchScriptArchive self = readTorchScriptArchive(options.input);
    graph = graphFromArchiveCode(self, !in.inputShapes.empty());
    in.positionalInputs = self.tracedInputs;
    if (!archive)
      archive = std::move(self);
  } else {
    std::ifstream f(options.input);
    if (!f)
      throw FrontendError(options.input + ": cannot read the file");
    throw FrontendError(options.input + ": not a TorchScript graph dump (text starting with "
                                        "'graph(') nor a torch.jit.save archive");
  }
  in.graph = &graph;
  in.archive = archive ? &*archive : nullptr;
  return convertTorchScriptGraph(in);
}
