//===- CompileDriver.cpp - `tcc compile`: model file to model.so ----------===//
//
// read → import → graph/kernel/linalg/bufferize/plan/LLVM pipelines
// (CompileSession) → manifest, weights, host object, link (ArtifactWriter).
// Every failure is one clear line on stderr with a stable exit code; IR can
// be dumped after every pass.
//
//===----------------------------------------------------------------------===//
#include "tcc/Pipelines/CompileDriver.h"

#include "tcc/Pipelines/CompileProgress.h"
#include "tcc/Pipelines/CudaPipeline.h"
#include "tcc/Pipelines/CompileSession.h"
#include "tcc/Pipelines/KernelInventory.h"
#include "tcc/Pipelines/Registration.h"
#include "tcc/Target/ArtifactWriter.h"
#include "tcc/Support/EntrySymbols.h"
#include "tcc/Target/HostObjectEmitter.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"

using namespace mlir;
using namespace tcc;

namespace {

/// Why the options cannot make a compile ("" if they can): the output path,
/// the pass names of --print-ir-after, --specialize's needs, --emit ptx's.
std::string usageError(CompileSession &session) {
  const CompileOptions &options = session.options();
  if (options.output.empty())
    return "-o names no file";
  if (std::string why = outputOverwritesInput(options.output, options.input); !why.empty())
    return why;
  if (options.output != "-" && llvm::sys::fs::is_directory(options.output))
    return "-o " + options.output + " is a directory; name the file to write (e.g. " +
           options.output + "/model.so)";
  // Flags naming passes must name real ones: a typo would silently print nothing.
  if (!options.printIRAfter.empty()) {
    static bool registered = (registerTccPasses(), true);
    (void)registered;
    for (const std::string &name : options.printIRAfter)
      if (!mlir::PassInfo::lookup(name))
        return "--print-ir-after: no pass named '" + name +
               "' (names are pass flags such as tcc-legalize-graph; see tcc-opt --help)";
  }
  return "";
}

/// --specialize's needs, once the program is read: "" or why not.
std::string specializationError(CompileSession &session) {
  const CompileOptions &options = session.options();
  if (options.specialize.empty())
    return "";
  std::string error = session.parseSpecializations();
  if (error.empty() && (options.emit == OutputKind::MLIR || options.compileTo < CompilePhase::Output))
    error = "--specialize makes one artifact of several compiles: it needs --emit so, obj, "
            "llvm or ptx";
  // The marks number the generic variant's kernels (the manifest's list); a
  // variant's own kernels would be timed under those numbers.
  if (error.empty() && options.profile)
    error = "--profile and --specialize cannot be combined yet: the per-kernel times follow "
            "the generic variant's kernels only";
  return error;
}

ArtifactOptions::Kind artifactKind(OutputKind emit) {
  switch (emit) {
  case OutputKind::Object:
    return ArtifactOptions::Kind::Object;
  case OutputKind::LLVMIR:
    return ArtifactOptions::Kind::LLVMIR;
  default:
    return ArtifactOptions::Kind::SharedObject;
  }
}

/// Each variant's kernels are a PTX module of their own; with several, each
/// follows a line naming its variant (ptxas takes one module at a time).
std::string variantsPtx(const std::vector<CompiledVariant> &variants) {
  std::string ptx;
  for (const CompiledVariant &v : variants) {
    if (variants.size() > 1)
      ptx += "// ----- specialization " + (v.name.empty() ? kGenericSpecializationName : v.name) +
             "\n";
    for (const std::string &text : collectPtx(*v.module))
      ptx += text;
  }
  return ptx;
}

} // namespace

int tcc::compileModel(const CompileOptions &options, const char *argv0) {
  // The progress line, on a terminal only; not beside output that goes to
  // stderr as the passes run (IR printing, --timing's pass report).
  CompileProgress progress(!options.quiet && !options.timing && options.printIRAfter.empty() &&
                           CompileProgress::stderrIsTerminal());
  // Messages other than diagnostics end the compile: the line goes first.
  auto err = [&]() -> llvm::raw_ostream & {
    progress.stop();
    return llvm::errs();
  };
  PhaseTimer timer(options.timing, progress);
  CompileSession session(options);
  if (std::string error = usageError(session); !error.empty()) {
    err() << "tcc compile: error: " << error << "\n";
    return kExitUsage;
  }
  if (!options.targets.has(Target::Cuda) && options.emit == OutputKind::PTX) {
    err() << "tcc compile: error: --emit ptx needs --target cuda\n";
    return kExitUsage;
  }

  timer.start("read");
  std::string readError;
  if (int rc = session.read(readError)) {
    err() << (rc == kExitInternal ? "tcc: internal error while reading " + options.input + ": "
                                  : std::string("tcc: error: "))
          << readError << "\n";
    return rc;
  }
  if (std::string error = specializationError(session); !error.empty()) {
    err() << "tcc compile: error: " << error << "\n";
    return kExitUsage;
  }
  std::vector<CompiledVariant> variants;
  if (int rc = session.compileVariants(variants, timer, progress))
    return rc;

  ArtifactOptions artifact;
  artifact.output = options.output;
  artifact.kind = artifactKind(options.emit);
  artifact.modelName = options.name;
  artifact.externalWeights = options.externalWeights;
  artifact.optLevel = options.optLevel;
  artifact.cpuIsa = resolveCpuIsa(options.cpuIsa);
  artifact.cxx = options.cxx;
  artifact.argv0 = argv0 ? argv0 : "";
  artifact.phase = [&](const std::string &phase) { timer.start(phase); };
  if (progress.enabled())
    artifact.progress = [&progress](const std::string &where, bool milestone) {
      progress.step(where, milestone);
    };
  artifact.err = err;
  ArtifactWriter writer(artifact);
  auto finish = [&](int rc) {
    if (rc == kExitOk)
      timer.report();
    return rc;
  };
  // Textual outputs (PTX, IR at a phase) go to the output path or stdout.
  if (options.emit == OutputKind::PTX)
    return finish(writer.writeText(variantsPtx(variants)));
  if (options.emit == OutputKind::MLIR || session.lastPhase() < CompilePhase::Output) {
    std::string text;
    llvm::raw_string_ostream os(text);
    variants[0].module->print(os);
    return finish(writer.writeText(text));
  }

  // The artifact: the generic variant's manifest with every variant's arena.
  const CompiledVariant &generic = variants[0];
  if (!generic.weightUseRead) {
    err() << "tcc: internal error: the entry's weight arguments do not match the export's "
             "weights and derived weights; please report this with the model\n";
    return kExitInternal;
  }
  ManifestInfo info = generic.manifest;
  for (size_t i = 1; i < variants.size(); ++i)
    info.specializations.push_back({session.specializations()[i - 1].name,
                                    session.specializations()[i - 1].values,
                                    variants[i].arena.bytes});
  info.targets = options.targets;
  if (options.targets.has(Target::Cpu))
    info.cpuIsa = artifact.cpuIsa;
  info.precision = precisionName(options.precision);
  info.cudaGraphs = options.cudaGraphs;
  info.profile = options.profile;
  std::vector<ModuleOp> modules;
  for (CompiledVariant &v : variants)
    modules.push_back(*v.module);
  return finish(
      writer.write(session.program(), generic.signature, generic.arena, std::move(info), modules));
}
