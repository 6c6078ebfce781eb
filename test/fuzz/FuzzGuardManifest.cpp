//===- FuzzGuardManifest.cpp - libFuzzer: the guard manifest --------------===//
//
// GuardManifest::parse, which every model.so runs on the manifest it embeds
// (or a user's edited <name>.guards.json), then the per-call guards on
// inputs built from what was parsed: every symbol at its minimum, at its
// maximum and at its hint. parse must refuse an inconsistent manifest with a
// RuntimeError; the guards must accept inputs of the sizes the manifest
// itself describes or refuse them with a RuntimeError, and the output sizes
// must be computable for every binding the guards accept.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/GuardManifest.h"
#include "tcc/Runtime/RuntimeError.h"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace {

enum class Pick { Min, Max, Hint };

/// Input tensors whose sizes are the manifest's expressions evaluated with
/// every symbol at `pick`; false when an expression cannot be evaluated.
bool makeInputs(const tcc::GuardManifest &m, Pick pick,
                std::vector<std::vector<int64_t>> &sizes, std::vector<tcc_tensor> &tensors) {
  tcc::SymbolBindings symbols;
  for (const tcc::SymbolRange &s : m.symbols)
    symbols[s.name] = pick == Pick::Min ? s.min : pick == Pick::Max ? s.max : s.hint.value_or(s.min);
  sizes.clear();
  tensors.clear();
  for (const tcc::TensorSpec &spec : m.inputs) {
    std::vector<int64_t> dims;
    for (const tcc::SymbolicExpr &e : spec.sizes) {
      try {
        dims.push_back(e.evaluate(symbols));
      } catch (const tcc::SymbolicExprError &) {
        return false;
      }
    }
    sizes.push_back(std::move(dims));
  }
  for (size_t i = 0; i < m.inputs.size(); ++i)
    tensors.push_back({nullptr, static_cast<int32_t>(m.inputs[i].dtype), m.inputs[i].device,
                       m.inputs[i].rank(), sizes[i].data()});
  return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  tcc::GuardManifest m;
  try {
    m = tcc::GuardManifest::parse(text);
  } catch (const tcc::RuntimeError &) {
    return 0;
  }
  std::vector<std::vector<int64_t>> sizes;
  std::vector<tcc_tensor> tensors;
  for (Pick pick : {Pick::Min, Pick::Max, Pick::Hint}) {
    if (!makeInputs(m, pick, sizes, tensors))
      continue;
    (void)m.matchesStatic(tensors.data(), tensors.size());
    try {
      tcc::SymbolBindings bound = m.bindInputs(tensors.data(), tensors.size());
      (void)m.outputSizes(bound);
    } catch (const tcc::RuntimeError &) {
    }
  }
  for (const tcc::SymbolRange &s : m.symbols)
    (void)m.findSymbol(s.name);
  return 0;
}
