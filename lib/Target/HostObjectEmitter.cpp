//===- HostObjectEmitter.cpp - LLVM-dialect module to an x86-64 object ----===//
#include "tcc/Target/HostObjectEmitter.h"

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
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
Error addEntryWrapper(Module &m, Function *impl, StringRef entryName, bool withStream) {
  impl->setLinkage(GlobalValue::InternalLinkage);
  LLVMContext &ctx = m.getContext();
  auto *ptrTy = PointerType::getUnqual(ctx);
  auto *i64 = Type::getInt64Ty(ctx);
  SmallVector<Type *> params{ptrTy};
  if (withStream)
    params.push_back(ptrTy);
  auto *fnTy = FunctionType::get(Type::getVoidTy(ctx), params, false);
  Function *entry = Function::Create(fnTy, GlobalValue::InternalLinkage, entryName, m);
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

/// Wraps `forward` (CPU) and `forward_cuda` (CUDA), whichever are present;
/// returns the two entries (null where absent).
Expected<std::pair<Function *, Function *>> addEntryWrappers(Module &m) {
  Function *cpu = m.getFunction("forward");
  Function *cuda = m.getFunction("forward_cuda");
  if (!cpu && !cuda)
    return createStringError(inconvertibleErrorCode(), "no 'forward' function to wrap");
  if (cpu)
    if (Error e = addEntryWrapper(m, cpu, "tcc_model_forward", /*withStream=*/false))
      return std::move(e);
  if (cuda)
    if (Error e = addEntryWrapper(m, cuda, "tcc_model_forward_cuda", /*withStream=*/true))
      return std::move(e);
  return std::make_pair(m.getFunction("tcc_model_forward"), m.getFunction("tcc_model_forward_cuda"));
}

/// `const tcc_model_descriptor tcc_model_<name>` (include/tcc/runtime.h):
/// the object's only exported symbol besides `tcc_model_create` in model.so.
/// The field order and types mirror the C struct; LLVM's natural struct
/// layout is the C layout on x86-64.
GlobalVariable *addDescriptor(Module &m, const tcc::ModelSymbols &symbols,
                              GlobalVariable *manifest, uint64_t manifestSize,
                              GlobalVariable *weights, uint64_t weightsSize, Function *forward,
                              Function *forwardCuda) {
  LLVMContext &ctx = m.getContext();
  auto *ptrTy = PointerType::getUnqual(ctx);
  auto *i32 = Type::getInt32Ty(ctx);
  auto *i64 = Type::getInt64Ty(ctx);
  auto *type = StructType::create(ctx, {i32, ptrTy, ptrTy, i64, ptrTy, i64, ptrTy, ptrTy},
                                  "tcc_model_descriptor");
  StringRef nameText(symbols.name);
  GlobalVariable *name = addBlob(m, "tcc.model_name", ArrayRef<char>(nameText.data(), nameText.size()),
                                 1, /*nulTerminate=*/true);
  auto orNull = [&](Function *f) -> Constant * {
    return f ? static_cast<Constant *>(f) : ConstantPointerNull::get(ptrTy);
  };
  Constant *init = ConstantStruct::get(
      type, {ConstantInt::get(i32, tcc::kModelDescriptorVersion), name, manifest,
             ConstantInt::get(i64, manifestSize), weights, ConstantInt::get(i64, weightsSize),
             orNull(forward), orNull(forwardCuda)});
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
  std::string cpu = o.cpu == "native" ? sys::getHostCPUName().str() : o.cpu;
  TargetOptions options;
  auto level = o.optLevel >= 3 ? CodeGenOptLevel::Aggressive
               : o.optLevel == 0 ? CodeGenOptLevel::None : CodeGenOptLevel::Default;
  std::unique_ptr<TargetMachine> tm(target->createTargetMachine(
      triple, cpu, "", options, Reloc::PIC_, std::nullopt, level));
  if (!tm)
    return createStringError(inconvertibleErrorCode(), "cannot create a target machine for " + cpu);
  return tm;
}

void optimize(Module &m, TargetMachine &tm, int optLevel) {
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
  PassBuilder pb(&tm);
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

std::string tcc::descriptorSymbol(const std::string &modelName) {
  return "tcc_model_" + modelName;
}

Expected<std::unique_ptr<Module>>
tcc::buildHostModule(mlir::ModuleOp module, LLVMContext &llvmContext,
                     const std::string &manifestJson, const std::vector<uint8_t> &weights,
                     const ModelSymbols &symbols) {
  std::unique_ptr<Module> m = mlir::translateModuleToLLVMIR(module, llvmContext, "tcc_model");
  if (!m)
    return createStringError(inconvertibleErrorCode(),
                             "translation of the LLVM dialect to LLVM IR failed");
  auto entries = addEntryWrappers(*m);
  if (!entries)
    return entries.takeError();
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
  GlobalVariable *weightBlob = addBlob(
      *m, "tcc.weights",
      ArrayRef<char>(reinterpret_cast<const char *>(weights.data()), weights.size()), 64,
      /*nulTerminate=*/false);
  GlobalVariable *descriptor = addDescriptor(*m, symbols, manifest, manifestJson.size(), weightBlob,
                                             weights.size(), entries->first, entries->second);
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
  optimize(m, **tm, o.optLevel);
  std::error_code ec;
  raw_fd_ostream out(path, ec, sys::fs::OF_None);
  if (ec)
    return createStringError(ec, "cannot write " + path + ": " + ec.message());
  legacy::PassManager pm;
  if ((*tm)->addPassesToEmitFile(pm, out, nullptr, CodeGenFileType::ObjectFile))
    return createStringError(inconvertibleErrorCode(), "the target cannot emit object files");
  pm.run(m);
  out.flush();
  return Error::success();
}

Error tcc::emitHostIR(Module &m, const std::string &path, const HostObjectOptions &o) {
  auto tm = makeTargetMachine(o);
  if (!tm)
    return tm.takeError();
  optimize(m, **tm, o.optLevel);
  std::error_code ec;
  raw_fd_ostream out(path, ec, sys::fs::OF_None);
  if (ec)
    return createStringError(ec, "cannot write " + path + ": " + ec.message());
  m.print(out, nullptr);
  return Error::success();
}
