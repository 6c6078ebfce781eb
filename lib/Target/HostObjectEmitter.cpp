//===- HostObjectEmitter.cpp - LLVM-dialect module to an x86-64 object ----===//
#include "tcc/Target/HostObjectEmitter.h"

#include "tcc/Support/EntrySymbols.h"
#include "tcc/Transforms/GpuConventions.h"

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Pass.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace {
/// A private constant holding `bytes` (NUL-terminated if asked), aligned to
/// `align`: only the model's descriptor points at it.
GlobalVariable *addBlob(Module &m, StringRef name, ArrayRef<char> bytes, unsigned align,
                        bool nulTerminate) {
  std::string data(bytes.begin(), bytes.end());
  if (nulTerminate)
    data.push_back('\0');
  Constant *init = ConstantDataArray::getRaw(data, data.size(), Type::getInt8Ty(m.getContext()));
  auto *gv = new GlobalVariable(m, init->getType(), /*isConstant=*/true,
                                GlobalValue::PrivateLinkage, init, name);
  gv->setAlignment(Align(align));
  return gv;
}

/// `entryName(int64_t *packed[, void *stream])`: loads one word per
/// parameter of the expanded `impl` (all but a trailing stream) and calls it.
/// The CPU entry is tcc_model_forward(packed) around `forward`; the CUDA entry
/// tcc_model_forward_cuda(packed, stream) around `forward_cuda`, whose last
/// parameter is the stream its kernels are launched on.
/// The entry stays external until buildHostModule has linked every variant
/// into one module (the linker only brings over what is external or used).
Error addEntryWrapper(Module &m, Function *impl, StringRef entryName, bool withStream) {
  impl->setLinkage(GlobalValue::InternalLinkage);
  LLVMContext &ctx = m.getContext();
  auto *ptrTy = PointerType::getUnqual(ctx);
  auto *i64 = Type::getInt64Ty(ctx);
  SmallVector<Type *> params{ptrTy};
  if (withStream)
    params.push_back(ptrTy);
  auto *fnTy = FunctionType::get(Type::getVoidTy(ctx), params, false);
  Function *entry = Function::Create(fnTy, GlobalValue::ExternalLinkage, entryName, m);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", entry));
  SmallVector<Value *> args;
  size_t packedParams = impl->arg_size() - (withStream ? 1 : 0);
  if (withStream && (impl->arg_size() == 0 || !impl->getArg(packedParams)->getType()->isPointerTy()))
    return createStringError(inconvertibleErrorCode(),
                             "the CUDA entry function lacks its trailing stream parameter");
  for (size_t i = 0; i < packedParams; ++i) {
    Value *slot = b.CreateConstGEP1_64(i64, entry->getArg(0), i);
    Value *word = b.CreateLoad(i64, slot);
    Type *t = impl->getArg(i)->getType();
    if (t->isPointerTy())
      args.push_back(b.CreateIntToPtr(word, t));
    else if (t->isIntegerTy(64))
      args.push_back(word);
    else
      return createStringError(inconvertibleErrorCode(),
                               "unexpected parameter type in the entry function");
  }
  if (withStream)
    args.push_back(entry->getArg(1));
  b.CreateCall(impl, args);
  b.CreateRetVoid();
  return Error::success();
}

/// Wraps `forward` (CPU) and `forward_cuda` (CUDA), whichever are present,
/// as the entries of variant `variant` (tcc/Support/EntrySymbols.h).
Error addEntryWrappers(Module &m, size_t variant) {
  Function *cpu = m.getFunction("forward");
  Function *cuda = m.getFunction(tcc::kCudaForwardName);
  if (!cpu && !cuda)
    return createStringError(inconvertibleErrorCode(), "no 'forward' function to wrap");
  if (cpu)
    if (Error e = addEntryWrapper(m, cpu, tcc::entrySymbol(variant, false), /*withStream=*/false))
      return e;
  if (cuda)
    if (Error e = addEntryWrapper(m, cuda, tcc::entrySymbol(variant, true), /*withStream=*/true))
      return e;
  return Error::success();
}

/// Links variant module `variant` into `m`. Everything it defines but its
/// entries becomes internal first, so that its kernels, `forward` and
/// embedded PTX, named as the other variants' are, get new names instead of
/// clashing; its global constructors (the CUDA path's module loads) append.
Error linkVariant(Module &m, std::unique_ptr<Module> variantModule, size_t variant) {
  std::string cpuEntry = tcc::entrySymbol(variant, false);
  std::string cudaEntry = tcc::entrySymbol(variant, true);
  for (Function &f : *variantModule)
    if (!f.isDeclaration() && f.getName() != cpuEntry && f.getName() != cudaEntry)
      f.setLinkage(GlobalValue::InternalLinkage);
  for (GlobalVariable &g : variantModule->globals())
    if (!g.isDeclaration() && !g.hasAppendingLinkage())
      g.setLinkage(GlobalValue::InternalLinkage);
  if (Linker::linkModules(m, std::move(variantModule)))
    return createStringError(inconvertibleErrorCode(),
                             "linking specialization #" + std::to_string(variant) +
                                 " into the model's module failed");
  return Error::success();
}

/// `const tcc_model_descriptor tcc_model_<name>` (include/tcc/runtime.h):
/// the object's only exported symbol besides `tcc_model_create` in model.so.
/// The field order and types mirror the C struct; LLVM's natural struct
/// layout is the C layout on x86-64.
GlobalVariable *addDescriptor(Module &m, const tcc::ModelSymbols &symbols,
                              GlobalVariable *manifest, uint64_t manifestSize,
                              GlobalVariable *weights, uint64_t weightsSize, size_t variants) {
  LLVMContext &ctx = m.getContext();
  auto *ptrTy = PointerType::getUnqual(ctx);
  auto *i32 = Type::getInt32Ty(ctx);
  auto *i64 = Type::getInt64Ty(ctx);
  auto *type = StructType::create(
      ctx, {i32, ptrTy, ptrTy, i64, ptrTy, i64, ptrTy, ptrTy, i64, ptrTy}, "tcc_model_descriptor");
  auto *entryType = StructType::create(ctx, {ptrTy, ptrTy}, "tcc_model_entry");
  StringRef nameText(symbols.name);
  GlobalVariable *name = addBlob(m, "tcc.model_name", ArrayRef<char>(nameText.data(), nameText.size()),
                                 1, /*nulTerminate=*/true);
  auto entry = [&](size_t variant, bool cuda) -> Constant * {
    Function *f = m.getFunction(tcc::entrySymbol(variant, cuda));
    return f ? static_cast<Constant *>(f) : ConstantPointerNull::get(ptrTy);
  };
  // The static specializations' entries, in manifest order after the generic one.
  Constant *table = ConstantPointerNull::get(ptrTy);
  if (variants > 1) {
    std::vector<Constant *> rows;
    for (size_t v = 1; v < variants; ++v)
      rows.push_back(ConstantStruct::get(entryType, {entry(v, false), entry(v, true)}));
    auto *arrayType = ArrayType::get(entryType, rows.size());
    table = new GlobalVariable(m, arrayType, /*isConstant=*/true, GlobalValue::PrivateLinkage,
                               ConstantArray::get(arrayType, rows), "tcc.specializations");
  }
  Constant *init = ConstantStruct::get(
      type, {ConstantInt::get(i32, tcc::kModelDescriptorVersion), name, manifest,
             ConstantInt::get(i64, manifestSize), weights, ConstantInt::get(i64, weightsSize),
             entry(0, false), entry(0, true), ConstantInt::get(i64, variants - 1), table});
  auto *gv = new GlobalVariable(m, type, /*isConstant=*/true, GlobalValue::ExternalLinkage, init,
                                tcc::descriptorSymbol(symbols.name));
  gv->setAlignment(Align(8));
  return gv;
}

/// model.so's `tcc_model *tcc_model_create(void)`: the runtime's
/// tcc_model_create_from applied to this object's descriptor.
void addDefaultCreate(Module &m, GlobalVariable *descriptor) {
  LLVMContext &ctx = m.getContext();
  auto *ptrTy = PointerType::getUnqual(ctx);
  FunctionCallee createFrom = m.getOrInsertFunction(
      "tcc_model_create_from", FunctionType::get(ptrTy, {ptrTy}, false));
  Function *create = Function::Create(FunctionType::get(ptrTy, {}, false),
                                      GlobalValue::ExternalLinkage, "tcc_model_create", m);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", create));
  b.CreateRet(b.CreateCall(createFrom, {descriptor}));
}

Expected<std::unique_ptr<TargetMachine>> makeTargetMachine(const tcc::HostObjectOptions &o) {
  InitializeNativeTarget();
  InitializeNativeTargetAsmPrinter();
  Triple triple(sys::getDefaultTargetTriple());
  std::string error;
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return createStringError(inconvertibleErrorCode(), error);
  // A level's name is LLVM's name of that CPU.
  std::string cpu = tcc::cpuIsaName(tcc::resolveCpuIsa(o.cpu));
  TargetOptions options;
  auto level = o.optLevel >= 3 ? CodeGenOptLevel::Aggressive
               : o.optLevel == 0 ? CodeGenOptLevel::None : CodeGenOptLevel::Default;
  std::unique_ptr<TargetMachine> tm(target->createTargetMachine(
      triple, cpu, "", options, Reloc::PIC_, std::nullopt, level));
  if (!tm)
    return createStringError(inconvertibleErrorCode(), "cannot create a target machine for " + cpu);
  return tm;
}

using ProgressFn = std::function<void(const std::string &, bool)>;

unsigned definedFunctions(const Module &m) {
  unsigned n = 0;
  for (const Function &f : m)
    n += !f.isDeclaration();
  return n;
}

/// A pass at the end of the machine code pipeline: it runs on each function
/// right after that function's code was emitted (the codegen passes share one
/// function pass manager), so its count is the progress of the stage.
class CountEmittedFunctions : public FunctionPass {
public:
  static char ID;
  CountEmittedFunctions(ProgressFn progress, unsigned total)
      : FunctionPass(ID), progress(std::move(progress)), total(total) {}
  bool runOnFunction(Function &) override {
    ++done;
    progress("machine code: function " + std::to_string(done) + "/" + std::to_string(total),
             done == 1 || done == total);
    return false;
  }
  StringRef getPassName() const override { return "tcc: count emitted functions"; }

private:
  ProgressFn progress;
  unsigned total, done = 0;
};
char CountEmittedFunctions::ID = 0;

void optimize(Module &m, TargetMachine &tm, int optLevel, const ProgressFn &progress) {
  m.setDataLayout(tm.createDataLayout());
  m.setTargetTriple(tm.getTargetTriple());
  for (Function &f : m)
    if (!f.isDeclaration()) {
      f.addFnAttr("target-cpu", tm.getTargetCPU());
      f.addFnAttr("target-features", tm.getTargetFeatureString());
    }
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  // Progress: the defined functions each sweep of function passes has
  // reached, and the passes on the whole module by name (they can take
  // long: a pass that walks the initializers sees every weight byte).
  PassInstrumentationCallbacks callbacks;
  DenseSet<const Function *> reached;
  unsigned total = definedFunctions(m);
  if (progress)
    callbacks.registerBeforeNonSkippedPassCallback([&](StringRef name, Any ir) {
      if (const Function *const *f = llvm::any_cast<const Function *>(&ir)) {
        if (reached.insert(*f).second)
          progress("optimize: function " + std::to_string(reached.size()) + "/" +
                       std::to_string(total),
                   reached.size() == 1 || reached.size() == total);
      } else if (llvm::any_cast<const Module *>(&ir)) {
        // A new sweep over the functions, or a pass of its own.
        reached.clear();
        if (!name.contains("Adaptor") && !name.contains("PassManager") &&
            !name.contains("Wrapper") && !name.starts_with("RequireAnalysis"))
          progress("optimize: " + name.str(), /*milestone=*/true);
      }
    });
  // CalledValuePropagation finds the targets of indirect calls; the host code
  // has none worth it (kernels are called directly), and its solver took 42%
  // of DenseNet-121's whole CPU-path compile (perf on the 2-core machine).
  callbacks.registerShouldRunOptionalPassCallback(
      [](StringRef name, Any) { return name != "CalledValuePropagationPass"; });
  PassBuilder pb(&tm, PipelineTuningOptions(), std::nullopt, &callbacks);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  OptimizationLevel level = optLevel >= 3 ? OptimizationLevel::O3
                            : optLevel == 2 ? OptimizationLevel::O2
                            : optLevel == 1 ? OptimizationLevel::O1 : OptimizationLevel::O0;
  ModulePassManager mpm = level == OptimizationLevel::O0
                              ? pb.buildO0DefaultPipeline(level)
                              : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(m, mam);
}
} // namespace

tcc::CpuIsa tcc::resolveCpuIsa(CpuIsa isa) {
  if (isa != CpuIsa::Native)
    return isa;
  // The features of each level (the x86-64 psABI's micro-architecture levels).
  StringMap<bool> host = sys::getHostCPUFeatures();
  auto all = [&](std::initializer_list<const char *> features) {
    return llvm::all_of(features, [&](const char *f) { return host.lookup(f); });
  };
  bool v2 = all({"cx16", "sahf", "popcnt", "sse3", "sse4.1", "sse4.2", "ssse3"});
  bool v3 = v2 && all({"avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave"});
  bool v4 = v3 && all({"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"});
  return v4 ? CpuIsa::X86_64_V4 : v3 ? CpuIsa::X86_64_V3 : v2 ? CpuIsa::X86_64_V2 : CpuIsa::X86_64;
}

std::string tcc::descriptorSymbol(const std::string &modelName) {
  return "tcc_model_" + modelName;
}

Expected<std::unique_ptr<Module>>
tcc::buildHostModule(ArrayRef<mlir::ModuleOp> variants, LLVMContext &llvmContext,
                     const std::string &manifestJson, const std::vector<uint8_t> &weights,
                     const ModelSymbols &symbols) {
  std::unique_ptr<Module> m;
  for (size_t v = 0; v < variants.size(); ++v) {
    std::unique_ptr<Module> translated =
        mlir::translateModuleToLLVMIR(variants[v], llvmContext, "tcc_model");
    if (!translated)
      return createStringError(inconvertibleErrorCode(),
                               "translation of the LLVM dialect to LLVM IR failed");
    if (Error e = addEntryWrappers(*translated, v))
      return std::move(e);
    if (!m)
      m = std::move(translated);
    else if (Error e = linkVariant(*m, std::move(translated), v))
      return std::move(e);
  }
  if (!m)
    return createStringError(inconvertibleErrorCode(), "no module to translate");
  // Everything the pipeline defined stays private to the object (kernels,
  // `forward`, the entries): only the descriptor names the model, so
  // differently named models link into one program.
  for (Function &f : *m) {
    if (f.isDeclaration())
      continue;
    f.setLinkage(GlobalValue::InternalLinkage);
    // Outlined kernels stay separate functions (see tcc-outline-kernels).
    if (f.getName().contains("_kernel_"))
      f.addFnAttr(Attribute::NoInline);
  }
  for (GlobalVariable &g : m->globals())
    if (!g.isDeclaration() && !g.hasAppendingLinkage() && !g.hasLocalLinkage())
      g.setLinkage(GlobalValue::InternalLinkage);
  GlobalVariable *manifest = addBlob(*m, "tcc.manifest",
                                     ArrayRef<char>(manifestJson.data(), manifestJson.size()), 8,
                                     /*nulTerminate=*/true);
  // A section of its own, which tools read from the file (ElfSection.h).
  manifest->setSection(tcc::kManifestSectionName);
  GlobalVariable *weightBlob = addBlob(
      *m, "tcc.weights",
      ArrayRef<char>(reinterpret_cast<const char *>(weights.data()), weights.size()), 64,
      /*nulTerminate=*/false);
  GlobalVariable *descriptor = addDescriptor(*m, symbols, manifest, manifestJson.size(), weightBlob,
                                             weights.size(), variants.size());
  if (symbols.defineCreate)
    addDefaultCreate(*m, descriptor);
  std::string err;
  raw_string_ostream os(err);
  if (verifyModule(*m, &os))
    return createStringError(inconvertibleErrorCode(), "invalid LLVM IR: " + err);
  return m;
}

Error tcc::emitHostObject(Module &m, const std::string &path, const HostObjectOptions &o) {
  auto tm = makeTargetMachine(o);
  if (!tm)
    return tm.takeError();
  optimize(m, **tm, o.optLevel, o.progress);
  std::error_code ec;
  raw_fd_ostream out(path, ec, sys::fs::OF_None);
  if (ec)
    return createStringError(ec, "cannot write " + path + ": " + ec.message());
  legacy::PassManager pm;
  if ((*tm)->addPassesToEmitFile(pm, out, nullptr, CodeGenFileType::ObjectFile))
    return createStringError(inconvertibleErrorCode(), "the target cannot emit object files");
  if (o.progress)
    pm.add(new CountEmittedFunctions(o.progress, definedFunctions(m)));
  pm.run(m);
  out.flush();
  return Error::success();
}

Error tcc::emitHostIR(Module &m, const std::string &path, const HostObjectOptions &o) {
  auto tm = makeTargetMachine(o);
  if (!tm)
    return tm.takeError();
  optimize(m, **tm, o.optLevel, o.progress);
  std::error_code ec;
  raw_fd_ostream out(path, ec, sys::fs::OF_None);
  if (ec)
    return createStringError(ec, "cannot write " + path + ": " + ec.message());
  m.print(out, nullptr);
  return Error::success();
}
