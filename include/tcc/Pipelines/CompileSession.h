//===- CompileSession.h - one model file through tcc's pipeline -----------===//
//
// What `tcc compile` and `tcc explain` share: the options, the program read
// from the model file, the MLIRContext its modules live in, the --specialize
// variants, and the import. compileModel (CompileDriver.cpp) runs each
// variant through the whole pass pipeline (compileVariants) and hands the
// results to the ArtifactWriter; explainModel (Explain.cpp) runs the generic
// program phase by phase and reports what it finds.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_PIPELINES_COMPILESESSION_H
#define TCC_PIPELINES_COMPILESESSION_H

#include "tcc/Frontend/ExportedProgram.h"
#include "tcc/Import/ImportedSignature.h"
#include "tcc/Pipelines/Options.h"
#include "tcc/Pipelines/ShapeSpecialization.h"
#include "tcc/Support/ExitCodes.h"
#include "tcc/Target/ManifestBuilder.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace tcc {

class CompileProgress;
class LineDiagnostics;
class PhaseTimer;

/// One variant of the model as it goes through the pipeline: the generic
/// one (dynamic sizes), or a static specialization of --specialize.
struct CompiledVariant {
  std::string name; ///< "" for the generic variant, else "s77=8"
  mlir::OwningOpRef<mlir::ModuleOp> module;
  ImportedSignature signature;
  PlannedArena arena;
  /// Its derived and host-only weights, its entry's arguments, its size
  /// checks and kernels, read from the planned module for the manifest.
  ManifestInfo manifest;
  bool weightUseRead = false; ///< false: the entry's arguments were not as expected (tcc's bug)
  std::string dumpDir;        ///< where --dump-ir-after-all writes its IR
  int dumpCounter = 0;
  /// Appended to its phase names when there are several variants, for the
  /// progress line and --timing: " [s77=8, variant 2/3]".
  std::string label;
};

class CompileSession {
public:
  explicit CompileSession(const CompileOptions &options);
  ~CompileSession();
  CompileSession(const CompileSession &) = delete;
  CompileSession &operator=(const CompileSession &) = delete;

  const CompileOptions &options() const { return opts; }

  /// Reads the model file: 0, or the exit code (1: not a model tcc reads,
  /// 3: tcc's bug) with `error` saying why.
  int read(std::string &error);
  frontend::ExportedProgram &program() { return exported; }

  /// Reads --specialize against the program: "" or the usage error.
  std::string parseSpecializations();
  const std::vector<ShapeSpecialization> &specializations() const { return variantsWanted; }

  /// The context the modules live in, made on first use (its diagnostics
  /// printed by no one until a handler is installed).
  mlir::MLIRContext &context();

  /// The program as it stands (a variant's symbols bound) imported into the
  /// context; null after a diagnostic.
  mlir::OwningOpRef<mlir::ModuleOp> import(ImportedSignature &signature);

  /// tcc compile's pipeline on the generic variant and every specialization:
  /// import, the passes up to the memory plan (read back for the manifest),
  /// then the lowerings when `compileTo` goes that far. Diagnostics print as
  /// source lines; `timer` names each phase. Returns the exit code, with the
  /// reason printed to `err()`.
  int compileVariants(std::vector<CompiledVariant> &variants, PhaseTimer &timer,
                      CompileProgress &progress);

  /// Where the pipeline stops: --compile-to, or LLVM for --emit mlir.
  CompilePhase lastPhase() const;

private:
  int compileVariant(CompiledVariant &v, PhaseTimer &timer, CompileProgress &progress);
  bool runPipeline(CompiledVariant &v, const std::string &name, bool lowering, PhaseTimer &timer,
                   CompileProgress &progress);
  int pipelineFailed(const CompiledVariant &v, const char *phase);
  llvm::raw_ostream &err();

  const CompileOptions &opts;
  frontend::ExportedProgram exported;
  std::vector<ShapeSpecialization> variantsWanted;
  std::unique_ptr<mlir::MLIRContext> ctx;
  std::unique_ptr<LineDiagnostics> lineDiagnostics;
  CompileProgress *progressLine = nullptr;
  std::string invalidAfter; ///< the pass after which the IR stopped verifying
};

} // namespace tcc

#endif // TCC_PIPELINES_COMPILESESSION_H
