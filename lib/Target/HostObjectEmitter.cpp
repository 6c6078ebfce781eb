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
/// `const char name[]` holding `bytes`, plus `const uint64_t name_size`.
void addBlob(Module &m, StringRef name, StringRef sizeName, ArrayRef<char> bytes,
             unsigned align, bool nulTerminate) {
  LLVMContext &ctx = m.getContext();
  std::string data(bytes.begin(), bytes.end());
  uint64_t size = data.size();
  if (nulTerminate)
    data.push_back('\0');
  Constant *init = ConstantDataArray::getRaw(data, data.size(), Type::getInt8Ty(ctx));
  auto *gv = new GlobalVariable(m, init->getType(), /*isConstant=*/true,
                                GlobalValue::ExternalLinkage, init, name);
  gv->setAlignment(Align(align));
  auto *i64 = Type::getInt64Ty(ctx);
  new GlobalVariable(m, i64, true, GlobalValue::ExternalLinkage,
                     ConstantInt::get(i64, size), sizeName);
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
  // Only the entry is exported: kernels and `forward` stay private to the
  // object, so several models can be linked into one program.
  for (Function &f : m) {
    // tcc_model_forward and tcc_model_forward_cuda: both entries stay.
    if (f.isDeclaration() || f.getName().starts_with("tcc_model_"))
      continue;
    f.setLinkage(GlobalValue::InternalLinkage);
    // Outlined kernels stay separate functions (see tcc-outline-kernels).
    if (f.getName().contains("_kernel_"))
      f.addFnAttr(Attribute::NoInline);
  }
  return Error::success();
}

/// Wraps `forward` (CPU) and `forward_cuda` (CUDA), whichever are present.
Error addEntryWrappers(Module &m) {
  Function *cpu = m.getFunction("forward");
  Function *cuda = m.getFunction("forward_cuda");
  if (!cpu && !cuda)
    return createStringError(inconvertibleErrorCode(), "no 'forward' function to wrap");
  if (cpu)
    if (Error e = addEntryWrapper(m, cpu, "tcc_model_forward", /*withStream=*/false))
      return e;
  if (cuda)
    if (Error e = addEntryWrapper(m, cuda, "tcc_model_forward_cuda", /*withStream=*/true))
      return e;
  return Error::success();
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

Expected<std::unique_ptr<Module>>
tcc::buildHostModule(mlir::ModuleOp module, LLVMContext &llvmContext,
                     const std::string &manifestJson, const std::vector<uint8_t> &weights) {
  std::unique_ptr<Module> m = mlir::translateModuleToLLVMIR(module, llvmContext, "tcc_model");
  if (!m)
    return createStringError(inconvertibleErrorCode(),
                             "translation of the LLVM dialect to LLVM IR failed");
  if (Error e = addEntryWrappers(*m))
    return std::move(e);
  addBlob(*m, "tcc_model_manifest_json", "tcc_model_manifest_size",
          ArrayRef<char>(manifestJson.data(), manifestJson.size()), 8, true);
  addBlob(*m, "tcc_model_weights", "tcc_model_weights_size",
          ArrayRef<char>(reinterpret_cast<const char *>(weights.data()), weights.size()), 64,
          false);
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
