//===- CompileDriver.cpp - `tcc compile`: model file to model.so ----------===//
//
// read → import → graph/linalg/bufferize/plan/LLVM pipelines → host object →
// link with the runtime. Every failure is one clear line on stderr with a
// stable exit code; IR can be dumped after every pass.
//
//===----------------------------------------------------------------------===//
#include "tcc/Pipelines/CompileDriver.h"
#include "tcc/Support/CrashHandler.h"

#include "dialects/TccGraph/IR/TccGraphDialect.h"

#include "tcc/Frontend/SymbolBinding.h"
#include "tcc/Import/GraphImporter.h"
#include "tcc/Pipelines/ArenaPlan.h"
#include "tcc/Pipelines/CompileProgress.h"
#include "tcc/Pipelines/CudaPipeline.h"
#include "tcc/Pipelines/KernelInventory.h"
#include "tcc/Pipelines/LineDiagnostics.h"
#include "tcc/Pipelines/ModelInput.h"
#include "tcc/Pipelines/ShapeSpecialization.h"
#include "tcc/Pipelines/Pipelines.h"
#include "tcc/Pipelines/Registration.h"
#include "tcc/Target/HostObjectEmitter.h"
#include "tcc/Target/ManifestBuilder.h"
#include "tcc/Target/ModelLinker.h"
#include "tcc/Target/ModelName.h"
#include "tcc/Support/EntrySymbols.h"
#include "tcc/Support/Sha256.h"
#include "tcc/Support/SizeChecks.h"
#include "tcc/Support/WeightsFile.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"

#include <map>
#include "llvm/IR/Module.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

#include <cstdlib>
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <fstream>

using namespace mlir;
using namespace tcc;

namespace {
constexpr int kExitOk = 0, kExitUserError = 1, kExitUsage = 2, kExitInternal = 3;

/// Writes the module after every pass to DIR/NN_<pass>.mlir.
/// Names the pass in flight for the crash handler (tcc/Support/CrashHandler.h),
/// and tells a pass that refused the model (its diagnostic says why, the IR is
/// still valid) from one that left invalid IR: a verifier failure after tcc's
/// own pass is tcc's bug, whatever the message reads like.
class PassOutcomeInstrumentation : public PassInstrumentation {
public:
  std::string invalidAfter; // the pass after which the IR stopped verifying

private:
  static std::string nameOf(Pass *pass) {
    return pass->getArgument().empty() ? pass->getName().str() : pass->getArgument().str();
  }
  void runBeforePass(Pass *pass, Operation *) override {
    setCrashContext(("pass " + nameOf(pass)).c_str());
  }
  /// TCC_DEBUG_INVALID_IR_AFTER=<pass>: that pass's result gets an op the
  /// verifier rejects, so the path of a tcc bug (exit 3, the pass named) can
  /// be tested without one (test/Tools/internal-error.test).
  void runAfterPass(Pass *pass, Operation *op) override {
    const char *breakAfter = std::getenv("TCC_DEBUG_INVALID_IR_AFTER");
    if (!breakAfter || nameOf(pass) != breakAfter || !invalidAfter.empty() ||
        op->getNumRegions() == 0 || op->getRegion(0).empty())
      return;
    // An op of no dialect: no pass erases it (its effects are unknown), and
    // the next verification rejects it.
    OpBuilder b = OpBuilder::atBlockBegin(&op->getRegion(0).front());
    b.create(OperationState(op->getLoc(), "tcc_debug.invalid_ir"));
    invalidAfter = nameOf(pass);
  }
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    // Legalization refuses an operator after verifying the ops it built for
    // it; those stay behind, invalid, beside the message naming the operator.
    if (!invalidAfter.empty() || nameOf(pass) == "tcc-legalize-graph")
      return;
    // Verified quietly: the verifier's own message has been printed already
    // when it was what failed.
    ScopedDiagnosticHandler quiet(op->getContext(), [](Diagnostic &) { return success(); });
    if (failed(verify(op)))
      invalidAfter = nameOf(pass);
  }
};

class DumpToDirectoryConfig : public PassManager::IRPrinterConfig {
public:
  DumpToDirectoryConfig(std::string dir, int &counter, std::vector<std::string> alsoPrint)
      : IRPrinterConfig(/*printModuleScope=*/true), dir(std::move(dir)), counter(counter),
        alsoPrint(std::move(alsoPrint)) {}
  void printAfterIfEnabled(Pass *pass, Operation *op, PrintCallbackFn printCallback) override {
    // --print-ir-after still prints to stderr when the directory dump is on.
    if (llvm::is_contained(alsoPrint, pass->getArgument().str())) {
      llvm::errs() << "// -----// IR Dump After " << pass->getName() << " ("
                   << pass->getArgument() << ") //----- //\n";
      printCallback(llvm::errs());
      llvm::errs() << "\n";
    }
    char prefix[8];
    std::snprintf(prefix, sizeof prefix, "%02d_", ++counter);
    std::string path = dir + "/" + prefix + pass->getArgument().str() + ".mlir";
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (!ec)
      printCallback(os);
  }

private:
  std::string dir;
  int &counter;
  std::vector<std::string> alsoPrint;
};

/// Times the phases for --timing and names each on the progress line.
class PhaseTimer {
public:
  PhaseTimer(bool enabled, CompileProgress &progress) : enabled(enabled), progress(progress) {}
  void start(const std::string &phase) {
    stop();
    current = phase;
    progress.phase(phase);
    setCrashContext(("phase '" + phase + "'").c_str());
    begin = std::chrono::steady_clock::now();
  }
  void stop() {
    if (current.empty())
      return;
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
    phases.push_back({current, ms});
    current.clear();
  }
  void report() {
    stop();
    progress.stop();
    if (!enabled)
      return;
    double total = 0;
    int width = 12; // wider for the phases of --specialize's variants
    for (auto &[name, ms] : phases)
      width = std::max(width, static_cast<int>(name.size()));
    llvm::errs() << "tcc: compile time by phase\n";
    for (auto &[name, ms] : phases) {
      llvm::errs() << llvm::format("  %-*s %9.1f ms\n", width, name.c_str(), ms);
      total += ms;
    }
    llvm::errs() << llvm::format("  %-*s %9.1f ms\n", width, "total", total);
  }

private:
  bool enabled;
  CompileProgress &progress;
  std::string current; // "" between phases
  std::chrono::steady_clock::time_point begin;
  std::vector<std::pair<std::string, double>> phases;
};

/// One variant of the model as it goes through the pipeline: the generic
/// one (dynamic sizes), or a static specialization of --specialize.
struct CompiledVariant {
  std::string name; ///< "" for the generic variant, else "s77=8"
  OwningOpRef<ModuleOp> module;
  ImportedSignature signature;
  PlannedArena arena;
  ManifestInfo weightUse; ///< its derived and host-only weights
  bool weightUseRead = false;
  nlohmann::json sizeChecks; ///< tcc-legalize-graph's (readSizeChecks)
  nlohmann::json kernels, kernelGraph;
  std::string dumpDir; ///< where --dump-ir-after-all writes its IR
  int dumpCounter = 0;
  /// Appended to its phase names when there are several variants, for the
  /// progress line and --timing: " [s77=8, variant 2/3]".
  std::string label;
};

/// Whether two variants read the same weights (every variant is called with
/// the entry arguments the manifest lists once).
bool sameWeightUse(const ManifestInfo &a, const ManifestInfo &b) {
  if (a.hostOnlyWeights != b.hostOnlyWeights || a.derivedWeights.size() != b.derivedWeights.size() ||
      a.entryArgs != b.entryArgs)
    return false;
  for (size_t i = 0; i < a.derivedWeights.size(); ++i) {
    const DerivedWeight &x = a.derivedWeights[i], &y = b.derivedWeights[i];
    if (x.name != y.name || x.dtype != y.dtype || x.sizes != y.sizes || x.program != y.program)
      return false;
  }
  return true;
}

std::string replaceExtension(const std::string &path, const std::string &ext) {
  llvm::SmallString<256> p(path);
  llvm::sys::path::replace_extension(p, "");
  return std::string(p) + ext;
}

bool writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

/// The compile's files (the artifact, its guards.json and weights.bin),
/// written under temporary names beside their final ones and renamed into
/// place together once all are written: a compile that fails late leaves
/// the previous outputs as they were, never a new manifest beside an old
/// model. Temporaries not committed are removed.
class StagedOutputs {
public:
  ~StagedOutputs() {
    for (const auto &[temporary, final] : files)
      llvm::sys::fs::remove(temporary);
  }
  /// The name to write `path` under until commit().
  std::string stage(const std::string &path) {
    std::string temporary = path + ".tcc-tmp-" + std::to_string(llvm::sys::Process::getProcessId());
    files.push_back({temporary, path});
    return temporary;
  }
  /// Renames every staged file into place; "" or why one could not be.
  std::string commit() {
    for (const auto &[temporary, final] : files)
      if (std::error_code ec = llvm::sys::fs::rename(temporary, final))
        return "cannot write " + final + ": " + ec.message();
    files.clear();
    return "";
  }

private:
  std::vector<std::pair<std::string, std::string>> files;
};

/// Why writing `output` (and the files written beside it) would destroy the
/// input, or "".
std::string outputOverwritesInput(const CompileOptions &options) {
  if (options.output == "-")
    return "";
  for (const std::string &path :
       {options.output, replaceExtension(options.output, ".guards.json"),
        replaceExtension(options.output, ".weights.bin")}) {
    bool same = false;
    if (!llvm::sys::fs::equivalent(path, options.input, same) && same)
      return "the output " + path + " is the input " + options.input +
             ": it would be overwritten; choose another -o";
  }
  return "";
}

/// The window checks tcc-legalize-graph recorded on the module
/// (tcc/Support/SizeChecks.h), as the manifest's "size_checks" entries.
nlohmann::json readSizeChecks(ModuleOp module) {
  nlohmann::json out = nlohmann::json::array();
  auto checks = module->getAttrOfType<ArrayAttr>(kSizeChecksAttrName);
  for (Attribute a : checks ? checks.getValue() : ArrayRef<Attribute>{}) {
    auto dict = dyn_cast<DictionaryAttr>(a);
    if (!dict)
      continue;
    nlohmann::json entry = nlohmann::json::object();
    for (NamedAttribute field : dict) {
      std::string key = field.getName().str();
      if (auto s = dyn_cast<StringAttr>(field.getValue()))
        entry[key] = s.str();
      else if (auto b = dyn_cast<BoolAttr>(field.getValue()))
        entry[key] = b.getValue();
      else if (auto i = dyn_cast<IntegerAttr>(field.getValue()))
        entry[key] = i.getInt();
    }
    out.push_back(std::move(entry));
  }
  return out;
}

/// The weights tcc-hoist-weight-expressions derived (the entry's weight
/// arguments after the exported ones), the exported weights it left unread
/// and every entry argument's role and index, from the planned entry's
/// argument attributes. False if the arguments do not follow the export's
/// signature as expected (a tcc bug).
bool readWeightUse(ModuleOp module, const ImportedSignature &signature, ManifestInfo &info) {
  using graph::TccGraphDialect;
  func::FuncOp entry;
  module.walk([&](func::FuncOp f) {
    if (!entry && isPlannedEntry(f))
      entry = f;
  });
  if (!entry)
    return true;
  size_t weightIndex = 0;
  std::map<std::string, int64_t> counts;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    auto role = entry.getArgAttrOfType<StringAttr>(i, TccGraphDialect::getRoleAttrName());
    auto shaped = dyn_cast<ShapedType>(entry.getArgumentTypes()[i]);
    // Out-params (tcc-bufferize's) are the arguments without a role.
    std::string roleName = entry.getArgAttr(i, kArenaAttrName) ? "arena"
                           : role                              ? role.str()
                                                               : "output";
    if (!shaped)
      return false;
    info.entryArgs.push_back({roleName, counts[roleName]++, shaped.getRank()});
    if (roleName != "weight")
      continue;
    auto name = entry.getArgAttrOfType<StringAttr>(i, TccGraphDialect::getPublicNameAttrName());
    auto program = entry.getArgAttrOfType<ArrayAttr>(i, TccGraphDialect::getDerivedAttrName());
    size_t index = weightIndex++;
    if (!name)
      return false;
    if (index < signature.weights.size()) {
      if (program || name.getValue() != signature.weights[index].target)
        return false;
      if (entry.getArgAttr(i, TccGraphDialect::getHostOnlyAttrName()))
        info.hostOnlyWeights.push_back(name.str());
      continue;
    }
    auto type = dyn_cast<ShapedType>(entry.getArgumentTypes()[i]);
    if (!program || !type || !type.hasStaticShape())
      return false;
    DerivedWeight d;
    d.name = name.str();
    Type elt = type.getElementType();
    d.dtype = elt.isF64() ? DType::Float64 : elt.isF16() ? DType::Float16
              : elt.isBF16() ? DType::BFloat16 : DType::Float32;
    d.sizes.assign(type.getShape().begin(), type.getShape().end());
    for (Attribute token : program)
      d.program.push_back(cast<StringAttr>(token).str());
    info.derivedWeights.push_back(std::move(d));
  }
  return weightIndex == signature.weights.size() + info.derivedWeights.size() &&
         counts["input"] == static_cast<int64_t>(signature.inputs.size()) &&
         counts[TccGraphDialect::kStateRole.str()] ==
             static_cast<int64_t>(signature.states.size()) &&
         counts["output"] == static_cast<int64_t>(signature.outputs.size()) &&
         counts["arena"] == 1 && counts.size() <= 5;
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

  if (options.output.empty()) {
    err() << "tcc compile: error: -o names no file\n";
    return kExitUsage;
  }
  if (std::string why = outputOverwritesInput(options); !why.empty()) {
    err() << "tcc compile: error: " << why << "\n";
    return kExitUsage;
  }
  if (options.output != "-" && llvm::sys::fs::is_directory(options.output)) {
    err() << "tcc compile: error: -o " << options.output
          << " is a directory; name the file to write (e.g. " << options.output
          << "/model.so)\n";
    return kExitUsage;
  }
  StagedOutputs staged;

  // Flags naming passes must name real ones: a typo would silently print nothing.
  if (!options.printIRAfter.empty()) {
    static bool registered = (registerTccPasses(), true);
    (void)registered;
    for (const std::string &name : options.printIRAfter)
      if (!mlir::PassInfo::lookup(name)) {
        err() << "tcc compile: error: --print-ir-after: no pass named '" << name
                     << "' (names are pass flags such as tcc-legalize-graph; see tcc-opt --help)\n";
        return kExitUsage;
      }
  }

  // 1. Read the export.
  timer.start("read");
  frontend::ExportedProgram program;
  std::string readError;
  if (int rc = readModelInput(options, program, readError)) {
    if (rc == kExitInternal)
      err() << "tcc: internal error while reading " << options.input << ": " << readError << "\n";
    else
      err() << "tcc: error: " << readError << "\n";
    return rc;
  }

  // --specialize: static variants compiled beside the generic one, each a
  // whole compile of the program with those symbols bound.
  std::vector<ShapeSpecialization> specializations;
  if (!options.specialize.empty()) {
    std::string error = parseShapeSpecializations(options.specialize, program, specializations);
    if (error.empty() && (options.emit == OutputKind::MLIR || options.compileTo < CompilePhase::Output))
      error = "--specialize makes one artifact of several compiles: it needs --emit so, obj, "
              "llvm or ptx";
    // The marks number the generic variant's kernels (the manifest's list);
    // a variant's own kernels would be timed under those numbers.
    if (error.empty() && options.profile)
      error = "--profile and --specialize cannot be combined yet: the per-kernel times follow "
              "the generic variant's kernels only";
    if (!error.empty()) {
      err() << "tcc compile: error: " << error << "\n";
      return kExitUsage;
    }
  }

  DialectRegistry registry;
  registerTccDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  ctx.printOpOnDiagnostic(false);
  if (options.timing || !options.printIRAfter.empty() || !options.dumpIRAfterAll.empty())
    ctx.disableMultithreading();
  LineDiagnostics diagnostics(ctx, &progress);

  // 3. The pass pipeline, in two parts: up to the memory plan (read back for
  // the manifest), then the LLVM lowering.
  CompilePhase last = options.compileTo;
  if (options.emit == OutputKind::MLIR && last == CompilePhase::Output)
    last = CompilePhase::LLVM;
  // --target: which lowerings run after the plan (cpu, cuda, or both;
  // tcc-split-targets makes one entry per target).
  bool wantCpu = false, wantCuda = false;
  for (llvm::StringRef t : llvm::split(llvm::StringRef(options.target), ','))
    (t.trim() == "cuda" ? wantCuda : wantCpu) = true;
  if (options.emit == OutputKind::PTX && !wantCuda) {
    err() << "tcc compile: error: --emit ptx needs --target cuda\n";
    return kExitUsage;
  }
  // One pass pipeline (Pipelines.cpp), run in two parts so that the memory
  // plan and the kernels can be read between them: up to the plan, then the
  // lowering of every target and the host code.
  std::string invalidAfter; // set when a pass left IR that does not verify
  auto runPipeline = [&](CompiledVariant &v, const std::string &name, bool lowering) -> bool {
    timer.start(name + v.label);
    PassManager pm(&ctx);
    pm.enableVerifier(options.verifyEach);
    auto outcome = std::make_unique<PassOutcomeInstrumentation>();
    PassOutcomeInstrumentation *watch = outcome.get();
    pm.addInstrumentation(std::move(outcome));
    if (!v.dumpDir.empty())
      pm.enableIRPrinting(std::make_unique<DumpToDirectoryConfig>(
          v.dumpDir, v.dumpCounter, options.printIRAfter));
    else if (!options.printIRAfter.empty()) {
      auto names = options.printIRAfter;
      pm.enableIRPrinting(
          [](Pass *, Operation *) { return false; },
          [names](Pass *p, Operation *) {
            return llvm::is_contained(names, p->getArgument().str());
          },
          /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
    }
    if (options.timing)
      pm.enableTiming();
    if (lowering)
      buildLoweringPassPipeline(pm, options);
    else
      buildCompilePassPipeline(pm, options, std::min(last, CompilePhase::Planned));
    if (progress.enabled())
      pm.addInstrumentation(progress.passSteps(static_cast<int>(pm.size())));
    bool ok = succeeded(pm.run(*v.module));
    invalidAfter = watch->invalidAfter;
    return ok;
  };
  // A failed pass has normally said why (a user error at a source line); one
  // that failed silently is a tcc bug, reported as such rather than exiting mutely.
  auto pipelineFailed = [&](const CompiledVariant &v, const char *phase) {
    if (!v.name.empty())
      err() << "tcc: note: while compiling specialization " << v.name << "\n";
    if (!invalidAfter.empty()) {
      err() << "tcc: internal error: the IR was invalid after pass '" << invalidAfter
                   << "' (the message above). This is a bug in tcc, not in the model: "
                   << "please report it with the command line and the model "
                   << "(--dump-ir-after-all DIR writes the IR each pass was given).\n";
      return kExitInternal;
    }
    if (diagnostics.errorCount())
      return kExitUserError;
    err() << "tcc: internal error: the " << phase
                 << " passes failed without a diagnostic; please report this with the model\n";
    return kExitInternal;
  };
  // 2. and 3. for one variant: import the program as it stands (its symbols
  // bound for a static variant), run the pipeline, read the plan.
  auto compileVariant = [&](CompiledVariant &v) -> int {
    timer.start("import" + v.label);
    v.module = importExportedProgram(ctx, program, v.signature);
    if (!v.module)
      return kExitUserError;
    if (!options.dumpIRAfterAll.empty()) {
      // A static variant's IR goes to its own subdirectory, DIR/s77=8/.
      v.dumpDir = v.name.empty() ? options.dumpIRAfterAll : options.dumpIRAfterAll + "/" + v.name;
      if (std::error_code ec = llvm::sys::fs::create_directories(v.dumpDir)) {
        err() << "tcc: error: cannot create " << v.dumpDir << ": " << ec.message() << "\n";
        return kExitUserError;
      }
      std::error_code ec;
      llvm::raw_fd_ostream os(v.dumpDir + "/00_import.mlir", ec);
      if (!ec)
        v.module->print(os);
    }
    if (!runPipeline(v, "pipeline", false))
      return pipelineFailed(v, "graph/kernel/linalg/bufferization/planning");
    v.arena = readArenaPlan(*v.module);
    if (std::string error = arenaLimitError(v.arena, program); !error.empty()) {
      err() << "tcc: error: " << error << "\n";
      return kExitUserError;
    }
    // Read here, while the entry still carries its argument attributes.
    v.weightUseRead = readWeightUse(*v.module, v.signature, v.weightUse);
    v.sizeChecks = readSizeChecks(*v.module);
    v.kernels = describeKernels(*v.module);
    v.kernelGraph = describeKernelEdges(*v.module);
    if (last >= CompilePhase::LLVM && !runPipeline(v, "lower", true))
      return pipelineFailed(v, wantCuda ? "CPU/CUDA lowering" : "CPU lowering");
    return kExitOk;
  };

  std::vector<CompiledVariant> variants(1 + specializations.size());
  for (size_t i = 1; i < variants.size(); ++i)
    variants[i].name = specializations[i - 1].name;
  if (variants.size() > 1)
    for (size_t i = 0; i < variants.size(); ++i)
      variants[i].label = " [" + (i ? variants[i].name : kGenericSpecializationName) +
                          ", variant " + std::to_string(i + 1) + "/" +
                          std::to_string(variants.size()) + "]";
  if (int rc = compileVariant(variants[0]))
    return rc;
  for (size_t i = 0; i < specializations.size(); ++i) {
    CompiledVariant &v = variants[i + 1];
    try {
      frontend::ScopedSymbolBinding bound(program, specializations[i].values);
      if (int rc = compileVariant(v))
        return rc;
    } catch (const SymbolicExprError &e) {
      err() << "tcc: error: specialization " << v.name << ": " << e.what() << "\n";
      return kExitUserError;
    }
    // Every variant takes the generic one's entry arguments (docs/ARTIFACT.md).
    if (!sameWeightUse(variants[0].weightUse, v.weightUse)) {
      err() << "tcc: internal error: specialization " << v.name
            << " derives other weights than the generic variant; please report this with "
               "the model\n";
      return kExitInternal;
    }
  }
  const CompiledVariant &generic = variants[0];
  const ImportedSignature &signature = generic.signature;
  ManifestInfo info = generic.weightUse;
  info.sizeChecks = generic.sizeChecks;
  bool weightUseRead = generic.weightUseRead;
  // Each variant's kernels are a PTX module of their own; with several, each
  // follows a line naming its variant (ptxas takes one module at a time).
  std::string ptx;
  for (CompiledVariant &v : variants) {
    if (variants.size() > 1)
      ptx += "// ----- specialization " + (v.name.empty() ? kGenericSpecializationName : v.name) + "\n";
    for (const std::string &text : collectPtx(*v.module))
      ptx += text;
  }
  // Textual outputs (PTX, IR at a phase) go to the output path or stdout.
  auto writeTextOutput = [&](const std::string &text) {
    if (options.output == "-") {
      llvm::outs() << text;
    } else if (!writeFile(staged.stage(options.output), text)) {
      err() << "tcc: error: cannot write " << options.output << "\n";
      return kExitUserError;
    } else if (std::string why = staged.commit(); !why.empty()) {
      err() << "tcc: error: " << why << "\n";
      return kExitUserError;
    }
    timer.report();
    return kExitOk;
  };
  if (options.emit == OutputKind::PTX)
    return writeTextOutput(ptx);

  if (options.emit == OutputKind::MLIR || last < CompilePhase::Output) {
    std::string text;
    llvm::raw_string_ostream os(text);
    variants[0].module->print(os);
    return writeTextOutput(text);
  }

  // 4. The manifest, the weights and the host object.
  timer.start("codegen");
  WeightLayout weights = WeightLayout::build(program, signature);
  info.modelName = options.name.empty() ? defaultModelName(options.output) : options.name;
  if (std::string error = modelNameError(info.modelName); !error.empty()) {
    err() << "tcc: error: " << error << "\n";
    return kExitUsage;
  }
  info.weightsEmbedded = !options.externalWeights;
  if (!weightUseRead) {
    err() << "tcc: internal error: the entry's weight arguments do not match the "
                    "export's weights and derived weights; please report this with the model\n";
    return kExitInternal;
  }
  for (size_t i = 1; i < variants.size(); ++i)
    info.specializations.push_back(
        {specializations[i - 1].name, specializations[i - 1].values, variants[i].arena.bytes});
  nlohmann::json manifestJson = buildManifest(program, signature, weights, generic.arena, info);
  if (manifestJson.contains("input_guards"))
    for (const nlohmann::json &guard : manifestJson["input_guards"])
      if (!guard["enforced"].get<bool>())
        err() << "tcc: warning: the export's guard " << guard["text"].dump()
              << " is not checked at run time: " << guard["reason"].get<std::string>()
              << "\n";
  // The weights the model was compiled with, by hash: a weights file must
  // hold exactly these (tcc/Support/WeightsFile.h). None without weight data.
  std::array<uint8_t, 32> weightsDigest{};
  if (!weights.blob.empty()) {
    Sha256 hash;
    hash.update(weights.blob.data(), weights.blob.size());
    weightsDigest = hash.finish();
    manifestJson["weights_file"] = {{"format", weightsfile::kVersion},
                                    {"bytes", weights.blob.size()},
                                    {"sha256", Sha256::toHex(weightsDigest)}};
  }
  manifestJson["kernels"] = generic.kernels;
  manifestJson["kernel_graph"] = generic.kernelGraph;
  // --profile: the entries call tcc_profile_mark before every kernel (the
  // runtime accepts tcc_model_set_profiling only then).
  if (options.profile)
    manifestJson["profile"] = true;
  // The x86-64 level the CPU path's code needs: the runtime refuses a CPU run
  // on a processor without it rather than die of an illegal instruction.
  std::string cpuIsa = resolveCpuIsa(options.cpuIsa);
  if (wantCpu)
    manifestJson["cpu_isa"] = cpuIsa;
  if (wantCuda) {
    // The CUDA entry takes the same packed arguments, as device pointers.
    manifestJson["targets"] = wantCpu ? nlohmann::json{"cpu", "cuda"} : nlohmann::json{"cuda"};
    const char *key = wantCpu ? "cuda_symbol" : "symbol";
    if (!wantCpu)
      for (auto &input : manifestJson["inputs"])
        input["device"] = "cuda";
    manifestJson["entry"][key] = entrySymbol(0, true);
    auto &specs = manifestJson["specializations"];
    for (size_t i = 0; i < specs.size(); ++i)
      specs[i]["entry"][key] = entrySymbol(i, true);
    // What the CUDA path's matrix products compute with (convert-tcc-kernel-to-cuda).
    manifestJson["precision"] = options.precision;
    if (!options.cudaGraphs)
      manifestJson["cuda_graphs"] = false;
  }
  std::string manifest = manifestJson.dump(2);
  std::string guardsPath = replaceExtension(options.output, ".guards.json");
  if (!writeFile(staged.stage(guardsPath), manifest + "\n")) {
    err() << "tcc: error: cannot write " << guardsPath << "\n";
    return kExitUserError;
  }
  std::vector<uint8_t> embedded = options.externalWeights ? std::vector<uint8_t>{} : weights.blob;
  if (options.externalWeights) {
    std::string path = replaceExtension(options.output, ".weights.bin");
    std::string file = weightsfile::encode(weights.blob.size(), weightsDigest);
    if (weights.blob.empty()) {
      Sha256 hash;
      file = weightsfile::encode(0, hash.finish());
    }
    file.append(weights.blob.begin(), weights.blob.end());
    if (!writeFile(staged.stage(path), file)) {
      err() << "tcc: error: cannot write " << path << "\n";
      return kExitUserError;
    }
  }
  // The artifact last; then every file takes its name at once.
  auto commit = [&]() {
    if (std::string why = staged.commit(); !why.empty()) {
      err() << "tcc: error: " << why << "\n";
      return kExitUserError;
    }
    timer.report();
    return kExitOk;
  };
  llvm::LLVMContext llvmContext;
  ModelSymbols symbols;
  symbols.name = info.modelName;
  symbols.defineCreate = options.emit == OutputKind::SharedObject;
  std::vector<ModuleOp> modules;
  for (CompiledVariant &v : variants)
    modules.push_back(*v.module);
  auto llvmModule = buildHostModule(modules, llvmContext, manifest, embedded, symbols);
  if (!llvmModule) {
    err() << "tcc: internal error: " << llvm::toString(llvmModule.takeError()) << "\n";
    return kExitInternal;
  }
  HostObjectOptions hostOptions;
  hostOptions.optLevel = options.optLevel;
  hostOptions.cpu = cpuIsa;
  if (progress.enabled())
    hostOptions.progress = [&progress](const std::string &where, bool milestone) {
      progress.step(where, milestone);
    };
  if (options.emit == OutputKind::LLVMIR) {
    if (llvm::Error e = emitHostIR(**llvmModule, staged.stage(options.output), hostOptions)) {
      err() << "tcc: error: " << llvm::toString(std::move(e)) << "\n";
      return kExitUserError;
    }
    return commit();
  }
  // A model object is the model alone (its descriptor and private code): the
  // program that links it links the runtime once for all its models.
  if (options.emit == OutputKind::Object) {
    if (llvm::Error e = emitHostObject(**llvmModule, staged.stage(options.output), hostOptions)) {
      err() << "tcc: error: " << llvm::toString(std::move(e)) << "\n";
      return kExitUserError;
    }
    return commit();
  }
  llvm::SmallString<128> objectPath;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("tcc-model", "o", objectPath)) {
    err() << "tcc: error: cannot create a temporary file: " << ec.message() << "\n";
    return kExitInternal;
  }
  llvm::FileRemover removeObject(objectPath);
  if (llvm::Error e = emitHostObject(**llvmModule, std::string(objectPath), hostOptions)) {
    err() << "tcc: internal error: " << llvm::toString(std::move(e)) << "\n";
    return kExitInternal;
  }

  // 5. Link with the runtime into model.so.
  timer.start("link");
  LinkOptions link;
  link.cxx = options.cxx;
  link.argv0 = argv0;
  if (llvm::Error e = linkSharedObject(std::string(objectPath), staged.stage(options.output), link)) {
    err() << "tcc: error: " << llvm::toString(std::move(e)) << "\n";
    return kExitInternal;
  }
  return commit();
}
