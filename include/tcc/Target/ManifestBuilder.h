//===- ManifestBuilder.h - the guard manifest of a compiled model ---------===//
//
// Writes the JSON described in docs/ARTIFACT.md from the export, the entry's
// signature, the weight layout and the memory plan. Pure C++ so it can be
// unit-tested without MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_TARGET_MANIFESTBUILDER_H
#define TCC_TARGET_MANIFESTBUILDER_H

#include "tcc/Import/ImportedSignature.h"
#include "tcc/Support/CpuIsa.h"
#include "tcc/Support/SymbolicExpr.h"
#include "tcc/Support/TargetSet.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tcc {

/// One buffer of the arena plan.
struct PlannedBuffer {
  int64_t offset = 0, bytes = 0, first = 0, last = 0;
};

struct PlannedArena {
  int64_t bytes = 0;
  std::vector<PlannedBuffer> buffers;
};

/// Where each weight's bytes live in the weights blob, in signature order,
/// then each state's initial value (its buffer's value in the export).
struct WeightLayout {
  struct Entry {
    std::string name;
    int64_t offset = 0, bytes = 0;
    bool embedded = false;  ///< bytes are in the blob (else bound at run time)
  };
  std::vector<Entry> entries;       ///< signature.weights, then signature.states
  std::vector<uint8_t> blob;  ///< 64-byte aligned entries, concatenated

  /// Lays out the weights of `signature`, taking bytes from the program's
  /// weights/constants when it has them (the offsets and sizes alone, blob
  /// left empty, without `copyBytes`).
  static WeightLayout build(const frontend::ExportedProgram &program,
                            const ImportedSignature &signature, bool copyBytes = true);
};

/// A weight the runtime computes from other weights with a postfix program
/// (tcc-hoist-weight-expressions; docs/ARTIFACT.md). It has no bytes in the
/// weights image and is never bound.
struct DerivedWeight {
  std::string name;
  DType dtype = DType::Float32;
  std::vector<int64_t> sizes;
  std::vector<std::string> program;
};

/// One argument of the compiled entry, in order (docs/ARTIFACT.md): its
/// role ("input", "weight", "state", "output" or "arena"), its index among
/// the manifest's tensors of that role, and its rank.
struct EntryArgument {
  std::string role;
  int64_t index = 0;
  int64_t rank = 0;
  bool operator==(const EntryArgument &o) const {
    return role == o.role && index == o.index && rank == o.rank;
  }
};

/// A static shape specialization compiled beside the generic variant
/// (`tcc compile --specialize`): the symbols it binds and its arena.
struct SpecializationInfo {
  std::string name;      ///< "s77=8"
  SymbolBindings values; ///< the bound symbols
  int64_t arenaBytes = 0;
};

struct ManifestInfo {
  std::string modelName;
  TargetSet targets{Target::Cpu};
  bool weightsEmbedded = true;
  /// The entry's weight arguments after the exported ones, in order.
  std::vector<DerivedWeight> derivedWeights;
  /// Exported weights the entry does not read (only derived weights do):
  /// bound by the user, never copied to the device.
  std::vector<std::string> hostOnlyWeights;
  /// The static specializations, in entry order after the generic variant.
  std::vector<SpecializationInfo> specializations;
  /// The compiled entry's arguments as the planned function has them; empty:
  /// inputs, weights, states, derived weights, outputs, arena.
  std::vector<EntryArgument> entryArgs;
  /// "size_checks": the export's result sizes the runtime compares with the
  /// operators' window counts (tcc/Support/SizeChecks.h); a JSON array.
  nlohmann::json sizeChecks = nlohmann::json::array();
  /// "cpu_isa": the x86-64 level the CPU path's code needs (resolved; none
  /// without a CPU target); the runtime refuses a CPU run on a processor
  /// without it.
  std::optional<CpuIsa> cpuIsa;
  /// "precision": what a CUDA path's matrix products compute with (written
  /// with a CUDA target only).
  std::string precision = "fp32";
  /// "cuda_graphs": false when CUDA runs must not be replayed as graphs.
  bool cudaGraphs = true;
  /// "profile": the entries mark every kernel (tcc compile --profile).
  bool profile = false;
  /// "kernels" and "kernel_graph" (KernelInventory.h); null: not written.
  nlohmann::json kernels, kernelGraph;
  /// "weights_file": the weights the model was compiled with, by size and
  /// hash, which a weights file must hold (tcc/Support/WeightsFile.h).
  struct WeightsFile {
    int64_t bytes = 0;
    std::string sha256; ///< hex; "" for a model without weight data
  } weightsFile;
};

/// "input_guards": the export's guards_code, each with whether the runtime
/// enforces it (InputGuard parses it against the compiled inputs) and, where
/// not, why.
nlohmann::json inputGuardsJson(const frontend::ExportedProgram &program,
                               const ImportedSignature &signature);

nlohmann::json buildManifest(const frontend::ExportedProgram &program,
                             const ImportedSignature &signature,
                             const WeightLayout &weights, const PlannedArena &arena,
                             const ManifestInfo &info);

} // namespace tcc

#endif // TCC_TARGET_MANIFESTBUILDER_H
