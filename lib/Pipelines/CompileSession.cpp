//===- CompileSession.cpp - one model file through tcc's pipeline ---------===//
//
// Reading, the context, --specialize and the import serve tcc compile and tcc
// explain alike; compileVariants is tcc compile's: every pass of the
// pipeline, observed (a pass that leaves invalid IR is named as tcc's bug,
// IR dumped or printed after passes), and the plan read back per variant.
//
//===----------------------------------------------------------------------===//
#include "tcc/Pipelines/CompileSession.h"

#include "dialects/TccGraph/IR/TccGraphDialect.h"

#include "tcc/Frontend/SymbolBinding.h"
#include "tcc/Import/GraphImporter.h"
#include "tcc/Pipelines/ArenaPlan.h"
#include "tcc/Pipelines/CompileProgress.h"
#include "tcc/Pipelines/KernelInventory.h"
#include "tcc/Pipelines/LineDiagnostics.h"
#include "tcc/Pipelines/ModelInput.h"
#include "tcc/Pipelines/Pipelines.h"
#include "tcc/Pipelines/Registration.h"
#include "tcc/Support/CrashHandler.h"
#include "tcc/Support/EntrySymbols.h"
#include "tcc/Support/SizeChecks.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

#include <cstdlib>
#include <map>

using namespace mlir;
using namespace tcc;

namespace {
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

CompileSession::CompileSession(const CompileOptions &options)
    : opts(options) {}

CompileSession::~CompileSession() = default;

int CompileSession::read(std::string &error) { return readModelInput(opts, exported, error); }

std::string CompileSession::parseSpecializations() {
  return parseShapeSpecializations(opts.specialize, exported, variantsWanted);
}

MLIRContext &CompileSession::context() {
  if (!ctx) {
    DialectRegistry registry;
    registerTccDialects(registry);
    ctx = std::make_unique<MLIRContext>(registry);
    ctx->loadAllAvailableDialects();
    ctx->printOpOnDiagnostic(false);
    if (opts.timing || !opts.printIRAfter.empty() || !opts.dumpIRAfterAll.empty())
      ctx->disableMultithreading();
  }
  return *ctx;
}

OwningOpRef<ModuleOp> CompileSession::import(ImportedSignature &signature) {
  return importExportedProgram(context(), exported, signature);
}

CompilePhase CompileSession::lastPhase() const {
  if (opts.emit == OutputKind::MLIR && opts.compileTo == CompilePhase::Output)
    return CompilePhase::LLVM;
  return opts.compileTo;
}

llvm::raw_ostream &CompileSession::err() {
  if (progressLine)
    progressLine->stop();
  return llvm::errs();
}

// One pass pipeline (Pipelines.cpp), run in two parts so that the memory
// plan and the kernels can be read between them: up to the plan, then the
// lowering of every target and the host code.
bool CompileSession::runPipeline(CompiledVariant &v, const std::string &name, bool lowering,
                                 PhaseTimer &timer, CompileProgress &progress) {
  timer.start(name + v.label);
  PassManager pm(&context());
  pm.enableVerifier(opts.verifyEach);
  auto outcome = std::make_unique<PassOutcomeInstrumentation>();
  PassOutcomeInstrumentation *watch = outcome.get();
  pm.addInstrumentation(std::move(outcome));
  if (!v.dumpDir.empty())
    pm.enableIRPrinting(std::make_unique<DumpToDirectoryConfig>(v.dumpDir, v.dumpCounter,
                                                                opts.printIRAfter));
  else if (!opts.printIRAfter.empty()) {
    auto names = opts.printIRAfter;
    pm.enableIRPrinting(
        [](Pass *, Operation *) { return false; },
        [names](Pass *p, Operation *) { return llvm::is_contained(names, p->getArgument().str()); },
        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
  }
  if (opts.timing)
    pm.enableTiming();
  if (lowering)
    buildLoweringPassPipeline(pm, opts);
  else
    buildCompilePassPipeline(pm, opts, std::min(lastPhase(), CompilePhase::Planned));
  if (progress.enabled())
    pm.addInstrumentation(progress.passSteps(static_cast<int>(pm.size())));
  bool ok = succeeded(pm.run(*v.module));
  invalidAfter = watch->invalidAfter;
  return ok;
}

// A failed pass has normally said why (a user error at a source line); one
// that failed silently is a tcc bug, reported as such rather than exiting mutely.
int CompileSession::pipelineFailed(const CompiledVariant &v, const char *phase) {
  if (!v.name.empty())
    err() << "tcc: note: while compiling specialization " << v.name << "\n";
  if (!invalidAfter.empty()) {
    err() << "tcc: internal error: the IR was invalid after pass '" << invalidAfter
          << "' (the message above). This is a bug in tcc, not in the model: "
          << "please report it with the command line and the model "
          << "(--dump-ir-after-all DIR writes the IR each pass was given).\n";
    return kExitInternal;
  }
  if (lineDiagnostics->errorCount())
    return kExitUserError;
  err() << "tcc: internal error: the " << phase
        << " passes failed without a diagnostic; please report this with the model\n";
  return kExitInternal;
}

// Import the program as it stands (its symbols bound for a static variant),
// run the pipeline, read the plan.
int CompileSession::compileVariant(CompiledVariant &v, PhaseTimer &timer,
                                   CompileProgress &progress) {
  timer.start("import" + v.label);
  v.module = import(v.signature);
  if (!v.module)
    return kExitUserError;
  if (!opts.dumpIRAfterAll.empty()) {
    // A static variant's IR goes to its own subdirectory, DIR/s77=8/.
    v.dumpDir = v.name.empty() ? opts.dumpIRAfterAll : opts.dumpIRAfterAll + "/" + v.name;
    if (std::error_code ec = llvm::sys::fs::create_directories(v.dumpDir)) {
      err() << "tcc: error: cannot create " << v.dumpDir << ": " << ec.message() << "\n";
      return kExitUserError;
    }
    std::error_code ec;
    llvm::raw_fd_ostream os(v.dumpDir + "/00_import.mlir", ec);
    if (!ec)
      v.module->print(os);
  }
  if (!runPipeline(v, "pipeline", false, timer, progress))
    return pipelineFailed(v, "graph/kernel/linalg/bufferization/planning");
  v.arena = readArenaPlan(*v.module);
  if (std::string error = arenaLimitError(v.arena, exported); !error.empty()) {
    err() << "tcc: error: " << error << "\n";
    return kExitUserError;
  }
  // Read here, while the entry still carries its argument attributes.
  v.weightUseRead = readWeightUse(*v.module, v.signature, v.manifest);
  v.manifest.sizeChecks = readSizeChecks(*v.module);
  v.manifest.kernels = describeKernels(*v.module);
  v.manifest.kernelGraph = describeKernelEdges(*v.module);
  if (lastPhase() >= CompilePhase::LLVM && !runPipeline(v, "lower", true, timer, progress))
    return pipelineFailed(v, opts.targets.has(Target::Cuda) ? "CPU/CUDA lowering" : "CPU lowering");
  return kExitOk;
}

int CompileSession::compileVariants(std::vector<CompiledVariant> &variants, PhaseTimer &timer,
                                    CompileProgress &progress) {
  progressLine = &progress;
  MLIRContext &mlirContext = context();
  lineDiagnostics = std::make_unique<LineDiagnostics>(mlirContext, &progress);
  variants.clear();
  variants.resize(1 + variantsWanted.size());
  for (size_t i = 1; i < variants.size(); ++i)
    variants[i].name = variantsWanted[i - 1].name;
  if (variants.size() > 1)
    for (size_t i = 0; i < variants.size(); ++i)
      variants[i].label = " [" + (i ? variants[i].name : kGenericSpecializationName) +
                          ", variant " + std::to_string(i + 1) + "/" +
                          std::to_string(variants.size()) + "]";
  if (int rc = compileVariant(variants[0], timer, progress))
    return rc;
  for (size_t i = 0; i < variantsWanted.size(); ++i) {
    CompiledVariant &v = variants[i + 1];
    try {
      frontend::ScopedSymbolBinding bound(exported, variantsWanted[i].values);
      if (int rc = compileVariant(v, timer, progress))
        return rc;
    } catch (const SymbolicExprError &e) {
      err() << "tcc: error: specialization " << v.name << ": " << e.what() << "\n";
      return kExitUserError;
    }
    // Every variant takes the generic one's entry arguments (docs/ARTIFACT.md).
    if (!sameWeightUse(variants[0].manifest, v.manifest)) {
      err() << "tcc: internal error: specialization " << v.name
            << " derives other weights than the generic variant; please report this with "
               "the model\n";
      return kExitInternal;
    }
  }
  return kExitOk;
}
