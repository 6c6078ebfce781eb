//===- EntrySymbols.h - names of a model object's entry functions ---------===//
//
// The compiler defines the entries (lib/Target), the manifest names them
// (lib/Target/ManifestBuilder.cpp) and the runtime reads those names
// (lib/Runtime/GuardManifest.cpp): one spelling, here, for all of them.
// An artifact holds one entry per compiled shape specialization
// (docs/ARTIFACT.md): variant 0 is the generic one, with dynamic sizes.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_ENTRYSYMBOLS_H
#define TCC_SUPPORT_ENTRYSYMBOLS_H

#include <cstddef>
#include <string>

namespace tcc {

/// The ELF section of a model object that holds its guard manifest (the
/// JSON text, NUL-terminated): `tcc inspect` reads it from the file without
/// loading it (loading a library runs its code).
constexpr const char *kManifestSectionName = ".tcc.manifest";

/// The manifest's name of the generic variant (the dynamic fallback).
constexpr const char *kGenericSpecializationName = "generic";

/// The entry of variant `variant` of a model object: `tcc_model_forward`
/// (CPU) or `tcc_model_forward_cuda` (CUDA) for the generic variant, with
/// `_<variant>` appended for the others.
inline std::string entrySymbol(size_t variant, bool cuda) {
  std::string name = cuda ? "tcc_model_forward_cuda" : "tcc_model_forward";
  return variant == 0 ? name : name + "_" + std::to_string(variant);
}

} // namespace tcc

#endif // TCC_SUPPORT_ENTRYSYMBOLS_H
