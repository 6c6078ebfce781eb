//===- ArtifactWriter.cpp - the files of one compile ----------------------===//
#include "tcc/Target/ArtifactWriter.h"

#include "tcc/Support/ExitCodes.h"
#include "tcc/Support/Sha256.h"
#include "tcc/Support/WeightsFile.h"
#include "tcc/Target/HostObjectEmitter.h"
#include "tcc/Target/ModelLinker.h"
#include "tcc/Target/ModelName.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <fstream>

using namespace tcc;

namespace {
bool writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}
} // namespace

std::string tcc::besideArtifact(const std::string &artifact, const std::string &ext) {
  llvm::SmallString<256> p(artifact);
  llvm::sys::path::replace_extension(p, "");
  return std::string(p) + ext;
}

std::string tcc::outputOverwritesInput(const std::string &output, const std::string &input) {
  if (output == "-")
    return "";
  for (const std::string &path : {output, besideArtifact(output, ".guards.json"),
                                  besideArtifact(output, ".weights.bin")}) {
    bool same = false;
    if (!llvm::sys::fs::equivalent(path, input, same) && same)
      return "the output " + path + " is the input " + input +
             ": it would be overwritten; choose another -o";
  }
  return "";
}

ArtifactWriter::~ArtifactWriter() {
  for (const auto &[temporary, final] : staged)
    llvm::sys::fs::remove(temporary);
}

std::string ArtifactWriter::stage(const std::string &path) {
  std::string temporary = path + ".tcc-tmp-" + std::to_string(llvm::sys::Process::getProcessId());
  staged.push_back({temporary, path});
  return temporary;
}

std::string ArtifactWriter::commit() {
  for (const auto &[temporary, final] : staged)
    if (std::error_code ec = llvm::sys::fs::rename(temporary, final))
      return "cannot write " + final + ": " + ec.message();
  staged.clear();
  return "";
}

int ArtifactWriter::failed(int code, const std::string &message, bool internal) {
  options.err() << (internal ? "tcc: internal error: " : "tcc: error: ") << message << "\n";
  return code;
}

int ArtifactWriter::writeText(const std::string &text) {
  if (options.output == "-") {
    llvm::outs() << text;
    return kExitOk;
  }
  if (!writeFile(stage(options.output), text))
    return failed(kExitUserError, "cannot write " + options.output);
  if (std::string why = commit(); !why.empty())
    return failed(kExitUserError, why);
  return kExitOk;
}

int ArtifactWriter::write(const frontend::ExportedProgram &program,
                          const ImportedSignature &signature, const PlannedArena &arena,
                          ManifestInfo info, llvm::ArrayRef<mlir::ModuleOp> modules) {
  options.phase("codegen");
  WeightLayout weights = WeightLayout::build(program, signature);
  info.modelName = options.modelName.empty() ? defaultModelName(options.output) : options.modelName;
  if (std::string error = modelNameError(info.modelName); !error.empty())
    return failed(kExitUsage, error);
  info.weightsEmbedded = !options.externalWeights;
  // The weights the model was compiled with, by hash: a weights file must
  // hold exactly these. None without weight data.
  std::array<uint8_t, 32> weightsDigest{};
  if (!weights.blob.empty()) {
    Sha256 hash;
    hash.update(weights.blob.data(), weights.blob.size());
    weightsDigest = hash.finish();
    info.weightsFile = {static_cast<int64_t>(weights.blob.size()), Sha256::toHex(weightsDigest)};
  }
  nlohmann::json manifestJson = buildManifest(program, signature, weights, arena, info);
  if (manifestJson.contains("input_guards"))
    for (const nlohmann::json &guard : manifestJson["input_guards"])
      if (!guard["enforced"].get<bool>())
        options.err() << "tcc: warning: the export's guard " << guard["text"].dump()
                      << " is not checked at run time: " << guard["reason"].get<std::string>()
                      << "\n";
  std::string manifest = manifestJson.dump(2);
  std::string guardsPath = besideArtifact(options.output, ".guards.json");
  if (!writeFile(stage(guardsPath), manifest + "\n"))
    return failed(kExitUserError, "cannot write " + guardsPath);
  if (options.externalWeights) {
    std::string path = besideArtifact(options.output, ".weights.bin");
    std::string file = weightsfile::encode(weights.blob.size(), weightsDigest);
    if (weights.blob.empty()) {
      Sha256 hash;
      file = weightsfile::encode(0, hash.finish());
    }
    file.append(weights.blob.begin(), weights.blob.end());
    if (!writeFile(stage(path), file))
      return failed(kExitUserError, "cannot write " + path);
  }
  // The artifact last; then every file takes its name at once.
  auto commitAll = [&]() -> int {
    if (std::string why = commit(); !why.empty())
      return failed(kExitUserError, why);
    return kExitOk;
  };
  std::vector<uint8_t> embedded = options.externalWeights ? std::vector<uint8_t>{} : weights.blob;
  llvm::LLVMContext llvmContext;
  ModelSymbols symbols;
  symbols.name = info.modelName;
  symbols.defineCreate = options.kind == ArtifactOptions::Kind::SharedObject;
  auto llvmModule = buildHostModule(modules, llvmContext, manifest, embedded, symbols);
  if (!llvmModule)
    return failed(kExitInternal, llvm::toString(llvmModule.takeError()), /*internal=*/true);
  HostObjectOptions hostOptions;
  hostOptions.optLevel = options.optLevel;
  hostOptions.cpu = options.cpuIsa;
  hostOptions.progress = options.progress;
  if (options.kind == ArtifactOptions::Kind::LLVMIR) {
    if (llvm::Error e = emitHostIR(**llvmModule, stage(options.output), hostOptions))
      return failed(kExitUserError, llvm::toString(std::move(e)));
    return commitAll();
  }
  // A model object is the model alone (its descriptor and private code): the
  // program that links it links the runtime once for all its models.
  if (options.kind == ArtifactOptions::Kind::Object) {
    if (llvm::Error e = emitHostObject(**llvmModule, stage(options.output), hostOptions))
      return failed(kExitUserError, llvm::toString(std::move(e)));
    return commitAll();
  }
  llvm::SmallString<128> objectPath;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("tcc-model", "o", objectPath))
    return failed(kExitInternal, "cannot create a temporary file: " + ec.message());
  llvm::FileRemover removeObject(objectPath);
  if (llvm::Error e = emitHostObject(**llvmModule, std::string(objectPath), hostOptions))
    return failed(kExitInternal, llvm::toString(std::move(e)), /*internal=*/true);

  // Link with the runtime into model.so.
  options.phase("link");
  LinkOptions link;
  link.cxx = options.cxx;
  link.argv0 = options.argv0;
  if (llvm::Error e = linkSharedObject(std::string(objectPath), stage(options.output), link))
    return failed(kExitInternal, llvm::toString(std::move(e)));
  return commitAll();
}
