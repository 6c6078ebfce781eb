//===- HostObjectEmitter.h - LLVM-dialect module to an x86-64 object ------===//
#ifndef TCC_TARGET_HOSTOBJECTEMITTER_H
#define TCC_TARGET_HOSTOBJECTEMITTER_H

#include "tcc/Support/CpuIsa.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace tcc {

/// The level `isa` names: a level as it is, and for Native the highest level
/// this processor has (never the processor's own model: its extra features,
/// AVX-512 VNNI, AMX, ..., are in no manifest level, and code using them would
/// die of an illegal instruction on another processor of the same level).
CpuIsa resolveCpuIsa(CpuIsa isa);

struct HostObjectOptions {
  int optLevel = 2;
  /// An x86-64 level or Native (resolveCpuIsa): the code runs on every
  /// processor of that level. The default is CompileOptions::cpuIsa's.
  CpuIsa cpu = CpuIsa::X86_64_V3;
  /// Where LLVM is, for a progress line: "optimize: function 12/206" (in
  /// each sweep of the optimization pipeline over the defined functions),
  /// "optimize: GlobalOptPass" (a pass on the whole module), "machine code:
  /// function 30/205" (an object's code, function by function). `milestone`:
  /// a new pass or sweep, or its first or last function, worth drawing even
  /// when the line was drawn a moment ago.
  std::function<void(const std::string &where, bool milestone)> progress;
};

/// The layout version of `tcc_model_descriptor` the emitted object holds
/// (TCC_MODEL_DESCRIPTOR_VERSION of include/tcc/runtime.h).
inline constexpr uint32_t kModelDescriptorVersion = 2;

/// What the object exports (docs/ARTIFACT.md).
struct ModelSymbols {
  std::string name;          ///< a C identifier (modelNameIsValid); the descriptor is tcc_model_<name>
  bool defineCreate = false; ///< also `tcc_model_create()` (model.so: one model per library)
};

/// `tcc_model_<name>`: the symbol of the descriptor of the model `name`.
std::string descriptorSymbol(const std::string &modelName);

/// Translates each variant's module (LLVM dialect, with `func @forward`
/// taking expanded memref descriptors; the generic variant first, then the
/// static specializations in manifest order) to LLVM IR, links them into one
/// and adds what docs/ARTIFACT.md promises: the entries
/// `tcc_model_forward[_<k>](int64_t *packed)` (and their CUDA twins), the
/// manifest and the weights, all private, reached through one exported
/// descriptor named after the model.
llvm::Expected<std::unique_ptr<llvm::Module>>
buildHostModule(llvm::ArrayRef<mlir::ModuleOp> variants, llvm::LLVMContext &llvmContext,
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
