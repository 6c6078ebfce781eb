//===- ArtifactWriter.h - the files of one compile ------------------------===//
//
// What `tcc compile` writes once the pipeline has run: the guard manifest
// (built here, in one piece, from ManifestBuilder), the weights (embedded in
// the artifact or in a weights file beside it), and the artifact itself —
// a model.so linked with the runtime, a model object, or host LLVM IR. Every
// file is written under a temporary name and renamed into place together at
// the end: a compile that fails late leaves the previous outputs as they were.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_TARGET_ARTIFACTWRITER_H
#define TCC_TARGET_ARTIFACTWRITER_H

#include "tcc/Target/ManifestBuilder.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tcc {

/// What to write and how.
struct ArtifactOptions {
  enum class Kind { SharedObject, Object, LLVMIR };
  std::string output; ///< the artifact's path; guards.json and weights.bin go beside it
  Kind kind = Kind::SharedObject;
  std::string modelName;        ///< "" = from the output's file name
  bool externalWeights = false; ///< weights.bin beside the artifact instead of embedded
  int optLevel = 2;
  CpuIsa cpuIsa = CpuIsa::X86_64_V3; ///< resolved (resolveCpuIsa)
  std::string cxx, argv0;            ///< the link's C++ driver and tcc's own path
  /// A phase starts ("codegen", "link"), for the progress line and --timing.
  std::function<void(const std::string &)> phase = [](const std::string &) {};
  /// Where LLVM is (HostObjectOptions::progress); empty: not reported.
  std::function<void(const std::string &, bool)> progress;
  /// Where messages go (after erasing the progress line).
  std::function<llvm::raw_ostream &()> err = []() -> llvm::raw_ostream & { return llvm::errs(); };
};

/// `artifact` with its extension replaced by `ext` (".guards.json").
std::string besideArtifact(const std::string &artifact, const std::string &ext);

/// Why writing `output` and the files beside it would overwrite `input`, or "".
std::string outputOverwritesInput(const std::string &output, const std::string &input);

class ArtifactWriter {
public:
  explicit ArtifactWriter(ArtifactOptions options) : options(std::move(options)) {}
  ~ArtifactWriter();
  ArtifactWriter(const ArtifactWriter &) = delete;
  ArtifactWriter &operator=(const ArtifactWriter &) = delete;

  /// Text (PTX, IR at a phase) to the output path, or to stdout for "-".
  /// Returns the exit code (0, or 1 when it cannot be written).
  int writeText(const std::string &text);

  /// The artifact of `modules` (the generic variant first, then the static
  /// ones): the manifest of `info` (its model name, weight use and kernels;
  /// the weights file's hash and the CPU level added here) as guards.json and
  /// inside the artifact, the weights, the object, IR or linked model.so.
  /// Returns the exit code: 0, 1 (a file cannot be written), 2 (a model name
  /// that is no C identifier) or 3 (tcc's bug: LLVM or the link failed).
  int write(const frontend::ExportedProgram &program, const ImportedSignature &signature,
            const PlannedArena &arena, ManifestInfo info, llvm::ArrayRef<mlir::ModuleOp> modules);

private:
  /// The name to write `path` under until commit().
  std::string stage(const std::string &path);
  /// Renames every staged file into place; "" or why one could not be.
  std::string commit();
  /// Prints "tcc: error: " (or "tcc: internal error: ") and the message;
  /// returns `code`.
  int failed(int code, const std::string &message, bool internal = false);

  ArtifactOptions options;
  std::vector<std::pair<std::string, std::string>> staged; ///< (temporary, final)
};

} // namespace tcc

#endif // TCC_TARGET_ARTIFACTWRITER_H
