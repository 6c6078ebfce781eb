//===- ExportedProgramReader.cpp - read .pt2 archives and model.json ------===//
//
// Decides between archive and bare JSON by the file's first bytes, reads the
// program, then (for an archive) the weights and constants, and checks that
// every parameter, buffer and constant of the signature has bytes that agree
// with the graph's metadata.
//
//===----------------------------------------------------------------------===//
#include "tcc/Frontend/ExportedProgramReader.h"

#include "ExportArchiveReader.h"
#include "ExportSchemaReader.h"
#include "GraphVerifier.h"
#include "RandomState.h"
#include "RuntimeAssertions.h"
#include "ScalarValues.h"
#include "WeightLoader.h"

#include "tcc/Frontend/FrontendError.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sys/stat.h>

namespace tcc::frontend {

namespace {

/// Local file header or end-of-central-directory (an empty zip).
bool hasZipMagic(const char *head, size_t n) {
  return n >= 4 && head[0] == 'P' && head[1] == 'K' &&
         ((head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6));
}

bool sameShape(const TensorMeta &a, const TensorMeta &b) {
  if (a.dtype != b.dtype || a.sizes.size() != b.sizes.size())
    return false;
  for (size_t k = 0; k < a.sizes.size(); ++k)
    if (a.sizes[k].value != b.sizes[k].value || a.sizes[k].expr != b.sizes[k].expr)
      return false;
  return true;
}

const char *inputKindName(InputKind kind) {
  switch (kind) {
  case InputKind::Parameter: return "parameter";
  case InputKind::Buffer: return "buffer";
  case InputKind::TensorConstant: return "tensor constant";
  default: return "input";
  }
}

/// Every parameter, buffer and tensor constant of the signature has bytes,
/// and they agree with the graph input's dtype and sizes.
void checkPayloadsCoverSignature(const ExportedProgram &program,
                                 const ExportArchiveReader &archive,
                                 const std::string &weightsConfig,
                                 const std::string &constantsConfig) {
  for (const InputSpec &spec : program.inputSpecs) {
    if (spec.kind != InputKind::Parameter && spec.kind != InputKind::Buffer &&
        spec.kind != InputKind::TensorConstant)
      continue;
    bool isWeight = spec.kind == InputKind::Parameter ||
                    (spec.kind == InputKind::Buffer && spec.persistent);
    // Look in both maps: which one torch files a buffer under has changed.
    const auto &primary = isWeight ? program.weights : program.constants;
    const auto &secondary = isWeight ? program.constants : program.weights;
    const TensorData *data = nullptr;
    if (auto it = primary.find(spec.target); it != primary.end())
      data = &it->second;
    else if (auto it2 = secondary.find(spec.target); it2 != secondary.end())
      data = &it2->second;
    std::string who = archive.path() + ": " + inputKindName(spec.kind) + " '" +
                      spec.target + "' (graph input '" + spec.graphName + "')";
    if (!data) {
      const std::string &config = isWeight ? weightsConfig : constantsConfig;
      throw FrontendError(who + " has no data: " +
                          (archive.hasEntry(config)
                               ? "'" + config + "' has no entry for it"
                               : "archive has no entry '" + config + "'"));
    }
    auto graphMeta = program.tensorValues.find(spec.graphName);
    if (graphMeta != program.tensorValues.end() &&
        !sameShape(data->meta, graphMeta->second))
      throw FrontendError(who + " is " + formatTensorType(data->meta) +
                          " in the archive but " +
                          formatTensorType(graphMeta->second) + " in the graph");
  }
}

ExportedProgram readArchive(const std::string &path) {
  ExportArchiveReader archive(path);
  std::string modelEntry = archive.findModelJson();
  std::vector<uint8_t> text = archive.readEntry(modelEntry);
  ExportedProgram program = readExportedProgramJson(
      std::string_view(reinterpret_cast<const char *>(text.data()), text.size()),
      path + ": " + modelEntry);
  program.sourcePath = path;

  // "<top>/models/model.json" -> "<top>/", model name "model".
  std::string top = modelEntry.substr(0, modelEntry.size() -
                                             std::strlen("models/model.json"));
  const std::string modelName = "model";
  std::string weightsFolder = top + "data/weights/";
  std::string constantsFolder = top + "data/constants/";
  std::string weightsConfig = weightsFolder + modelName + "_weights_config.json";
  std::string constantsConfig =
      constantsFolder + modelName + "_constants_config.json";
  program.weights =
      loadPayloads(archive, weightsConfig, weightsFolder, PayloadKind::Weight);
  program.constants = loadPayloads(archive, constantsConfig, constantsFolder,
                                   PayloadKind::Constant);
  checkPayloadsCoverSignature(program, archive, weightsConfig, constantsConfig);
  return program;
}

} // namespace

ExportedProgram readExportedProgramJson(std::string_view jsonText,
                                        const std::string &sourceName) {
  try {
    ExportedProgram program = parseExportedProgram(parseJsonText(jsonText));
    verifyGraph(program);
    tensorizeScalarValues(program);
    collectRuntimeAssertions(program);
    program.sourcePath = sourceName;
    return program;
  } catch (const FrontendError &e) {
    throw FrontendError(sourceName + ": " + e.what());
  } catch (const Json::exception &e) {
    // Backstop: the readers check types before access, so this is a bug.
    throw FrontendError(sourceName + ": malformed model.json: " + e.what());
  }
}

namespace {

ExportedProgram readProgramFile(const std::string &path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    throw FrontendError(path + ": cannot open: " + std::strerror(errno));
  if (S_ISDIR(info.st_mode))
    throw FrontendError(path + ": is a directory, not a .pt2 or model.json");
  if (!S_ISREG(info.st_mode))
    throw FrontendError(path + ": not a regular file");
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw FrontendError(path + ": cannot open: " + std::strerror(errno));
  char head[4] = {};
  file.read(head, sizeof(head));
  if (hasZipMagic(head, static_cast<size_t>(file.gcount())))
    return readArchive(path);

  // What it is, from its first bytes, before the whole file is read (a
  // large file that is neither would cost its size in memory to refuse).
  file.clear();
  file.seekg(0);
  char c = 0;
  while (file.get(c) && (c == ' ' || c == '\t' || c == '\r' || c == '\n')) {
  }
  if (!file || c != '{')
    throw FrontendError(path + ": neither a .pt2 (zip) archive nor a "
                               "model.json (it starts with neither 'PK' nor "
                               "'{')");
  constexpr uint64_t kMaxJsonBytes = uint64_t(1) << 30;
  if (static_cast<uint64_t>(info.st_size) > kMaxJsonBytes)
    throw FrontendError(path + ": a model.json of " + std::to_string(info.st_size) +
                        " bytes, more than tcc reads (1 GiB): weights belong in a .pt2 archive");
  file.clear();
  file.seekg(0);
  std::string text((std::istreambuf_iterator<char>(file)),
                   std::istreambuf_iterator<char>());
  if (file.bad())
    throw FrontendError(path + ": read error");
  return readExportedProgramJson(text, path);
}

} // namespace

ExportedProgram readExportedProgram(const std::string &path) {
  ExportedProgram program = readProgramFile(path);
  // After the payloads are read (the state's initial value is a constant).
  attachRandomState(program);
  return program;
}

} // namespace tcc::frontend
