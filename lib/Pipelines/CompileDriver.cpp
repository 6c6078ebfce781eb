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

#include "tcc/Import/GraphImporter.h"
#include "tcc/Pipelines/ArenaPlan.h"
#include "tcc/Pipelines/CompileProgress.h"
#include "tcc/Pipelines/CudaPipeline.h"
#include "tcc/Pipelines/KernelInventory.h"
#include "tcc/Pipelines/LineDiagnostics.h"
#include "tcc/Pipelines/ModelInput.h"
#include "tcc/Pipelines/Pipelines.h"
#include "tcc/Pipelines/Registration.h"
#include "tcc/Target/HostObjectEmitter.h"
#include "tcc/Target/ManifestBuilder.h"
#include "tcc/Target/ModelLinker.h"
#include "tcc/Target/ModelName.h"
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
  void start(const char *phase) {
    stop();
    current = phase;
    progress.phase(phase);
    setCrashContext((std::string("phase '") + phase + "'").c_str());
    begin = std::chrono::steady_clock::now();
  }
  void stop() {
    if (!current)
      return;
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
    phases.push_back({current, ms});
    current = nullptr;
  }
  void report() {
    stop();
    progress.stop();
    if (!enabled)
      return;
    double total = 0;
    llvm::errs() << "tcc: compile time by phase\n";
    for (auto &[name, ms] : phases) {
      llvm::errs() << llvm::format("  %-12s %9.1f ms\n", name, ms);
      total += ms;
    }
    llvm::errs() << llvm::format("  %-12s %9.1f ms\n", "total", total);
  }

private:
  bool enabled;
  CompileProgress &progress;
  const char *current = nullptr;
  std::chrono::steady_clock::time_point begin;
  std::vector<std::pair<const char *, double>> phases;
};

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

/// The weights tcc-hoist-weight-expressions derived (the entry's weight
/// arguments after the exported ones) and the exported weights it left
/// unread, from the planned entry's argument attributes. False if the
/// arguments do not follow the exported weights as expected (a tcc bug).
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
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    auto role = entry.getArgAttrOfType<StringAttr>(i, TccGraphDialect::getRoleAttrName());
    if (!role || role.getValue() != "weight")
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
  return weightIndex == signature.weights.size() + info.derivedWeights.size();
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

  // 2. Import into tcc_graph.
  timer.start("import");
  DialectRegistry registry;
  registerTccDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  ctx.printOpOnDiagnostic(false);
  if (options.timing || !options.printIRAfter.empty() || !options.dumpIRAfterAll.empty())
    ctx.disableMultithreading();
  LineDiagnostics diagnostics(ctx, &progress);
  ImportedSignature signature;
  OwningOpRef<ModuleOp> module = importExportedProgram(ctx, program, signature);
  if (!module)
    return kExitUserError;

  int dumpCounter = 0;
  if (!options.dumpIRAfterAll.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(options.dumpIRAfterAll)) {
      err() << "tcc: error: cannot create " << options.dumpIRAfterAll << ": " << ec.message() << "\n";
      return kExitUserError;
    }
    std::error_code ec;
    llvm::raw_fd_ostream os(options.dumpIRAfterAll + "/00_import.mlir", ec);
    if (!ec)
      module->print(os);
  }

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
  auto runPipeline = [&](const char *name, bool lowering) -> bool {
    timer.start(name);
    PassManager pm(&ctx);
    pm.enableVerifier(options.verifyEach);
    auto outcome = std::make_unique<PassOutcomeInstrumentation>();
    PassOutcomeInstrumentation *watch = outcome.get();
    pm.addInstrumentation(std::move(outcome));
    if (!options.dumpIRAfterAll.empty())
      pm.enableIRPrinting(std::make_unique<DumpToDirectoryConfig>(
          options.dumpIRAfterAll, dumpCounter, options.printIRAfter));
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
    bool ok = succeeded(pm.run(*module));
    invalidAfter = watch->invalidAfter;
    return ok;
  };
  // A failed pass has normally said why (a user error at a source line); one
  // that failed silently is a tcc bug, reported as such rather than exiting mutely.
  auto pipelineFailed = [&](const char *phase) {
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
  if (!runPipeline("pipeline", false))
    return pipelineFailed("graph/kernel/linalg/bufferization/planning");
  PlannedArena arena = readArenaPlan(*module);
  if (std::string error = arenaLimitError(arena, program); !error.empty()) {
    err() << "tcc: error: " << error << "\n";
    return kExitUserError;
  }
  // Read here, while the entry still carries its argument attributes.
  ManifestInfo info;
  bool weightUseRead = readWeightUse(*module, signature, info);
  nlohmann::json kernels = describeKernels(*module);
  nlohmann::json kernelGraph = describeKernelEdges(*module);
  std::vector<std::string> ptx;
  if (last >= CompilePhase::LLVM) {
    if (!runPipeline("lower", true))
      return pipelineFailed(wantCuda ? "CPU/CUDA lowering" : "CPU lowering");
    ptx = collectPtx(*module);
  }
  // Textual outputs (PTX, IR at a phase) go to the output path or stdout.
  auto writeTextOutput = [&](const std::string &text) {
    if (options.output == "-")
      llvm::outs() << text;
    else if (!writeFile(options.output, text)) {
      err() << "tcc: error: cannot write " << options.output << "\n";
      return kExitUserError;
    }
    timer.report();
    return kExitOk;
  };
  if (options.emit == OutputKind::PTX) {
    std::string text;
    for (const std::string &p : ptx)
      text += p;
    return writeTextOutput(text);
  }

  if (options.emit == OutputKind::MLIR || last < CompilePhase::Output) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
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
  nlohmann::json manifestJson = buildManifest(program, signature, weights, arena, info);
  manifestJson["kernels"] = kernels;
  manifestJson["kernel_graph"] = kernelGraph;
  // --profile: the entries call tcc_profile_mark before every kernel (the
  // runtime accepts tcc_model_set_profiling only then).
  if (options.profile)
    manifestJson["profile"] = true;
  // The x86-64 level the CPU path's code needs: the runtime refuses a CPU run
  // on a processor without it rather than die of an illegal instruction.
  if (wantCpu)
    manifestJson["cpu_isa"] = HostObjectOptions().cpu;
  if (wantCuda) {
    // The CUDA entry takes the same packed arguments, as device pointers.
    manifestJson["targets"] = wantCpu ? nlohmann::json{"cpu", "cuda"} : nlohmann::json{"cuda"};
    if (!wantCpu) {
      for (auto &input : manifestJson["inputs"])
        input["device"] = "cuda";
      manifestJson["entry"]["symbol"] = "tcc_model_forward_cuda";
    } else {
      manifestJson["entry"]["cuda_symbol"] = "tcc_model_forward_cuda";
    }
    // What the CUDA path's matrix products compute with (convert-tcc-kernel-to-cuda).
    manifestJson["precision"] = options.precision;
    if (!options.cudaGraphs)
      manifestJson["cuda_graphs"] = false;
  }
  std::string manifest = manifestJson.dump(2);
  std::string guardsPath = replaceExtension(options.output, ".guards.json");
  if (!writeFile(guardsPath, manifest + "\n")) {
    err() << "tcc: error: cannot write " << guardsPath << "\n";
    return kExitUserError;
  }
  std::vector<uint8_t> embedded = options.externalWeights ? std::vector<uint8_t>{} : weights.blob;
  if (options.externalWeights) {
    std::string path = replaceExtension(options.output, ".weights.bin");
    if (!writeFile(path, std::string(weights.blob.begin(), weights.blob.end()))) {
      err() << "tcc: error: cannot write " << path << "\n";
      return kExitUserError;
    }
  }
  llvm::LLVMContext llvmContext;
  ModelSymbols symbols;
  symbols.name = info.modelName;
  symbols.defineCreate = options.emit == OutputKind::SharedObject;
  auto llvmModule = buildHostModule(*module, llvmContext, manifest, embedded, symbols);
  if (!llvmModule) {
    err() << "tcc: internal error: " << llvm::toString(llvmModule.takeError()) << "\n";
    return kExitInternal;
  }
  HostObjectOptions hostOptions;
  hostOptions.optLevel = options.optLevel;
  if (progress.enabled())
    hostOptions.progress = [&progress](const std::string &where, bool milestone) {
      progress.step(where, milestone);
    };
  if (options.emit == OutputKind::LLVMIR) {
    if (llvm::Error e = emitHostIR(**llvmModule, options.output, hostOptions)) {
      err() << "tcc: error: " << llvm::toString(std::move(e)) << "\n";
      return kExitUserError;
    }
    timer.report();
    return kExitOk;
  }
  // A model object is the model alone (its descriptor and private code): the
  // program that links it links the runtime once for all its models.
  if (options.emit == OutputKind::Object) {
    if (llvm::Error e = emitHostObject(**llvmModule, options.output, hostOptions)) {
      err() << "tcc: error: " << llvm::toString(std::move(e)) << "\n";
      return kExitUserError;
    }
    timer.report();
    return kExitOk;
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
  if (llvm::Error e = linkSharedObject(std::string(objectPath), options.output, link)) {
    err() << "tcc: error: " << llvm::toString(std::move(e)) << "\n";
    return kExitInternal;
  }
  timer.report();
  return kExitOk;
}
