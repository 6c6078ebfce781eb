//===- SymbolBinding.h - an exported program with symbols made constants --===//
//
// A shape specialization (`tcc compile --specialize s77=8`) is the same
// program with some size symbols bound to values: every size, stride and
// sym_int value over those symbols is rewritten, so that the importer sees
// static shapes where the binding fixes them and the static pipeline (kernel
// formation, memory planning at exact sizes) applies.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_FRONTEND_SYMBOLBINDING_H
#define TCC_FRONTEND_SYMBOLBINDING_H

#include "tcc/Frontend/ExportedProgram.h"
#include "tcc/Support/SymbolicExpr.h"

#include <map>
#include <string>

namespace tcc::frontend {

/// Binds `values` in `program` for the lifetime of this object and restores
/// the program's shapes when it ends; the weights are never copied. A size
/// whose symbols are all bound becomes static; one that also mentions
/// unbound symbols gets the bound values written into its expression
/// ("s0*s1" with s0 = 8 becomes "8*s1"). Throws SymbolicExprError for an
/// expression it cannot evaluate (a division by zero).
class ScopedSymbolBinding {
public:
  ScopedSymbolBinding(ExportedProgram &program, const SymbolBindings &values);
  ~ScopedSymbolBinding();
  ScopedSymbolBinding(const ScopedSymbolBinding &) = delete;
  ScopedSymbolBinding &operator=(const ScopedSymbolBinding &) = delete;

private:
  ExportedProgram &program;
  std::map<std::string, TensorMeta> savedTensorValues;
  std::map<std::string, SymDim> savedSymIntValues;
  std::map<std::string, RangeConstraint> savedRanges;
};

} // namespace tcc::frontend

#endif // TCC_FRONTEND_SYMBOLBINDING_H
