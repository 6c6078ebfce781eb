//===- HostObjectEmitter.h - LLVM-dialect module to an x86-64 object ------===//
#ifndef TCC_TARGET_HOSTOBJECTEMITTER_H
#define TCC_TARGET_HOSTOBJECTEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace tcc {

struct HostObjectOptions {
  int optLevel = 2;
  std::string cpu = "x86-64-v2";  ///< portable default; "native" for this machine
};

/// The layout version of `tcc_model_descriptor` the emitted object holds
/// (TCC_MODEL_DESCRIPTOR_VERSION of include/tcc/runtime.h).
inline constexpr uint32_t kModelDescriptorVersion = 1;

/// What the object exports (docs/ARTIFACT.md).
struct ModelSymbols {
  std::string name;          ///< a C identifier (modelNameIsValid); the descriptor is tcc_model_<name>
  bool defineCreate = false; ///< also `tcc_model_create()` (model.so: one model per library)
};

/// `tcc_model_<name>`: the symbol of the descriptor of the model `name`.
std::string descriptorSymbol(const std::string &modelName);

/// Translates `module` (LLVM dialect, with `func @forward` taking expanded
/// memref descriptors) to LLVM IR and adds what docs/ARTIFACT.md promises:
/// the entries `tcc_model_forward(int64_t *packed)` (and its CUDA twin), the
/// manifest and the weights, all private, reached through one exported
/// descriptor named after the model.
llvm::Expected<std::unique_ptr<llvm::Module>>
buildHostModule(mlir::ModuleOp module, llvm::LLVMContext &llvmContext,
                const std::string &manifestJson, const std::vector<uint8_t> &weights,
                const ModelSymbols &symbols);

/// Optimizes `llvmModule` and writes a relocatable object to `path`.
llvm::Error emitHostObject(llvm::Module &llvmModule, const std::string &path,
                           const HostObjectOptions &options);

/// Optimizes `llvmModule` (as emitHostObject would) and writes textual IR.
llvm::Error emitHostIR(llvm::Module &llvmModule, const std::string &path,
                       const HostObjectOptions &options);

} // namespace tcc

#endif // TCC_TARGET_HOSTOBJECTEMITTER_H
