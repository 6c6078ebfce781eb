//===- GuardManifest.h - what a compiled model assumes about its inputs ---===//
//
// The parsed form of the guard manifest (docs/ARTIFACT.md): inputs, outputs
// and weights with dtypes and (symbolic) sizes, the symbols' ranges, the
// arena plan and the entry's argument list. It binds the symbols from the
// sizes of the inputs of one call, refusing any input that violates a guard
// with a message naming the input, the dimension, the expected and the
// actual value, and evaluates the output sizes.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_GUARDMANIFEST_H
#define TCC_RUNTIME_GUARDMANIFEST_H

#include "tcc/Runtime/DerivedWeights.h"
#include "tcc/Support/DType.h"
#include "tcc/Support/InputGuard.h"
#include "tcc/Support/SymbolicExpr.h"
#include "tcc/runtime.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tcc {

/// A size symbol and its inclusive range, e.g. s77 in [1, 1024].
struct SymbolRange {
  std::string name;
  int64_t min = 0;
  int64_t max = INT64_MAX;
  std::optional<int64_t> hint;
};

/// An input or output: name, dtype, device and one expression per dimension.
struct TensorSpec {
  std::string name;
  DType dtype = DType::Float32;
  tcc_device device = TCC_DEVICE_CPU;
  std::vector<SymbolicExpr> sizes;
  /// Inputs only ("written"): the program writes it in place, as PyTorch
  /// writes the caller's tensor (x.add_(1) in forward).
  bool written = false;

  int32_t rank() const { return static_cast<int32_t>(sizes.size()); }
  /// "[s77, 100]"
  std::string shapeText() const;
};

/// A parameter, buffer or constant, located in the weights image; or a
/// derived weight, computed by the runtime from others. Also a state: a
/// buffer the forward writes, whose initial value lies in the image.
struct WeightSpec : TensorSpec {
  std::string kind; // "parameter", "buffer", "constant", "derived"
  uint64_t offset = 0;
  uint64_t bytes = 0;
  bool embedded = true;
  /// "host_only": the compiled code does not read it (derived weights do):
  /// bound as any weight, never copied to the device.
  bool hostOnly = false;
  /// "derived": its program over other weights (docs/ARTIFACT.md), as
  /// written and checked. It has no bytes in the weights image and cannot be
  /// bound.
  std::vector<std::string> program;
  std::shared_ptr<const DerivedProgram> derived;

  bool isDerived() const { return derived != nullptr; }
};

/// One buffer of the memory plan: a byte range of the arena and the first and
/// last step that use it.
struct ArenaBuffer {
  int64_t offset = 0;
  int64_t bytes = 0;
  int64_t first = 0;
  int64_t last = 0;
};

/// The arena every instance allocates once, and the plan inside it.
struct ArenaPlan {
  int64_t bytes = 0;
  SymbolBindings plannedAt;
  std::vector<ArenaBuffer> buffers;
};

/// Role of an argument of the forward function.
enum class EntryArgRole { Input, Weight, State, Output, Arena };

/// One memref argument of the forward function, in order.
struct EntryArg {
  EntryArgRole role = EntryArgRole::Input;
  int32_t index = 0;
  int32_t rank = 0;
};

/// A compiled shape specialization (docs/ARTIFACT.md): the symbol ranges
/// it covers, its entries and its arena. The first is always the generic
/// one (every symbol's whole range); `tcc compile --specialize` adds static
/// ones, each binding some symbols to one value.
struct Specialization {
  std::string name;
  std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> symbols;
  std::string entrySymbol;  ///< its CPU (or CUDA-only) entry
  std::string cudaSymbol;   ///< its CUDA entry beside a CPU one, else ""
  int64_t arenaBytes = 0;   ///< the arena its entry is given

  /// Symbols it fixes to one value (min == max): how specific it is.
  size_t pinnedSymbols() const;
  /// Whether `symbols` (a call's bindings) lie in every one of its ranges.
  bool covers(const SymbolBindings &symbols) const;
  /// "s77 == 8", "s0 == 1 && s1 == 128", or "any" for the generic one.
  std::string guardText() const;
};

/// One kernel or library call of the compiled program, as kernel formation
/// and fusion left it (for `tcc inspect`; the runtime does not use it).
struct KernelInfo {
  std::string kind;    ///< gemm, attention, row, conv, pointwise, reduction, copy, ...
  std::string detail;  ///< e.g. "bias, gelu_tanh, bf16" or "layer_norm + residual"
  std::vector<std::string> sources; ///< the source ops fused into it
  std::vector<std::string> lines;   ///< their Python `file:line`s
  /// Floating-point operations and bytes moved per call (KernelCost.h);
  /// -1 where the compiler could not count them (symbolic sizes).
  int64_t flops = -1, bytes = -1;
};

/// "size_checks" (tcc/Support/SizeChecks.h): a result dim whose size the
/// export gives as an expression and the operator computes as a window
/// count over its input's dim; every call checks that they agree.
struct SizeCheck {
  std::string op;     ///< "aten.avg_pool2d.default"
  std::string where;  ///< its Python `file:line` ("" if unknown)
  int64_t dim = 0;    ///< the result dim
  SymbolicExpr size;  ///< the export's size of that dim
  SymbolicExpr input; ///< the export's size of the input's dim
  int64_t kernel = 1, stride = 1, padding = 0, dilation = 1;
  bool ceilMode = false;
};

/// The parsed manifest. Immutable after parse().
class GuardManifest {
public:
  /// Parses and validates manifest JSON; throws RuntimeError with
  /// TCC_ERROR_INVALID_MANIFEST on any inconsistency.
  static GuardManifest parse(std::string_view json);

  /// Checks every input of one call against the guards and returns the
  /// symbol values they bind. Throws RuntimeError: TCC_ERROR_INVALID_ARGUMENT
  /// for a wrong count or NULL sizes, TCC_ERROR_GUARD_VIOLATION for a wrong
  /// dtype, device, rank or size. Data pointers are not looked at.
  SymbolBindings bindInputs(const tcc_tensor *inputs, size_t numInputs) const;

  /// Checks every size check under `symbols` (bindInputs does); throws
  /// RuntimeError TCC_ERROR_GUARD_VIOLATION naming the operator, its source
  /// line and both sizes where the window count and the export's size differ.
  void checkSizes(const SymbolBindings &symbols) const;

  /// Checks every enforced export guard against the inputs' sizes
  /// (bindInputs does, after ranks and sizes); throws RuntimeError
  /// TCC_ERROR_GUARD_VIOLATION naming the guard and the sizes it read.
  void checkInputGuards(const tcc_tensor *inputs) const;

  /// The specialization a call with `symbols` runs: the most specific (most
  /// pinned symbols; the first of those) whose ranges hold every symbol, so
  /// the generic one (index 0) when no static one does.
  size_t selectSpecialization(const SymbolBindings &symbols) const;

  /// The largest arena any specialization needs: the one arena an instance
  /// allocates, whichever runs.
  int64_t maxArenaBytes() const;

  /// Sizes of every output under `symbols`.
  std::vector<std::vector<int64_t>> outputSizes(const SymbolBindings &symbols) const;

  /// The range of `name`, or null.
  const SymbolRange *findSymbol(std::string_view name) const;

  /// Whether this processor runs code compiled for the x86-64 level `isa`.
  static bool hostSupportsCpuIsa(std::string_view isa);

  std::string model;
  std::string source;
  std::vector<std::string> targets;
  /// The CUDA path's matrix arithmetic (--precision): fp32, tf32 or bf16;
  /// empty without a CUDA path.
  std::string precision;
  std::vector<SymbolRange> symbols;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::vector<WeightSpec> weights;
  /// "weights_file": the weights image the model was compiled with, which
  /// a weights file (WeightsFile.h) must hold: its bytes and SHA-256 (hex).
  /// Absent (bytes 0, "") for a model compiled without weight data.
  uint64_t weightsImageBytes = 0;
  std::string weightsImageSha256;
  /// "states": the buffers the forward writes, which each model instance
  /// keeps from one call to the next (static sizes; never derived).
  std::vector<WeightSpec> states;
  ArenaPlan arena;
  std::string entrySymbol = "tcc_model_forward";
  std::vector<EntryArg> entryArgs;
  std::vector<std::string> checks;
  std::vector<SizeCheck> sizeChecks;
  /// "input_guards": the export's guards the runtime enforces...
  std::vector<InputGuard> inputGuards;
  /// ...and those it does not (outside InputGuard's subset): text, reason.
  std::vector<std::pair<std::string, std::string>> unenforcedGuards;
  /// "value_checks": the export's checks of values computed at run time
  /// (torch._check on .item()), which the compiled code evaluates on every
  /// call; listed for inspect.
  std::vector<std::string> valueChecks;
  /// Never empty after parse(): a manifest without the list gets the
  /// generic one, with the top-level entry and arena.
  std::vector<Specialization> specializations;
  /// "kernels": what the program runs, in order (optional).
  std::vector<KernelInfo> kernels;
  /// "cuda_graphs": whether CUDA runs replay captured graphs (default true;
  /// `tcc compile --no-cuda-graphs` writes false).
  bool cudaGraphs = true;
  /// "profile": the entries mark every kernel (`tcc compile --profile`), so
  /// tcc_model_set_profiling can time them (default false).
  bool profile = false;
  /// "cpu_isa": the x86-64 level the CPU path's code was compiled for
  /// (x86-64, x86-64-v2, -v3 or -v4; empty: none recorded). A CPU run on a
  /// processor without it is refused rather than dying of an illegal
  /// instruction (hostSupportsCpuIsa).
  std::string cpuIsa;

  // Derived by parse() so that the per-call checks allocate nothing.
  /// Every input and output size is a constant.
  bool allStatic = false;
  /// The targets include both cpu and cuda: inputs may be on either device.
  bool anyDevice = false;
  /// Input and output sizes when allStatic.
  std::vector<std::vector<int64_t>> staticInputSizes;
  std::vector<std::vector<int64_t>> staticOutputSizes;
  /// The sizes of every weight and state (always constants).
  std::vector<std::vector<int64_t>> weightSizes;
  std::vector<std::vector<int64_t>> stateSizes;

  /// For an allStatic manifest: true if `inputs` pass every guard, with no
  /// allocation. False means "call bindInputs", which finds the violation
  /// and says what it is.
  bool matchesStatic(const tcc_tensor *inputs, size_t numInputs) const;
};

} // namespace tcc

#endif // TCC_RUNTIME_GUARDMANIFEST_H
