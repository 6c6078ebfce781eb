//===- ShapeSpecialization.h - the variants `--specialize` asks for -------===//
//
// `tcc compile --specialize s77=1,8,32` compiles static variants of the model
// beside its generic (dynamic) one, in one artifact. This reads the flag's
// values against the export's symbols and names each variant; the compile
// driver compiles each (lib/Pipelines/CompileDriver.cpp) and the runtime
// picks one per call (GuardManifest::selectSpecialization).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_PIPELINES_SHAPESPECIALIZATION_H
#define TCC_PIPELINES_SHAPESPECIALIZATION_H

#include "tcc/Frontend/ExportedProgram.h"
#include "tcc/Support/SymbolicExpr.h"

#include <string>
#include <vector>

namespace tcc {

/// One static variant: the symbols it binds and its manifest name
/// ("s77=8", "s0=1,s1=128").
struct ShapeSpecialization {
  std::string name;
  SymbolBindings values;
};

/// The most variants one compile makes: each is a whole compile.
inline constexpr size_t kMaxSpecializations = 64;

/// Reads `--specialize` flags (each `NAME=V[,V...]`, several dims in one
/// flag separated by `;`, the flag repeatable) against `program`'s symbols:
/// one variant per combination of the dims' values (their cartesian
/// product), in the order given. Returns "" or a usage error naming the
/// problem (an unknown dim, a value outside its range, a model without
/// symbolic dims).
std::string parseShapeSpecializations(const std::vector<std::string> &flags,
                                      const frontend::ExportedProgram &program,
                                      std::vector<ShapeSpecialization> &variants);

} // namespace tcc

#endif // TCC_PIPELINES_SHAPESPECIALIZATION_H
