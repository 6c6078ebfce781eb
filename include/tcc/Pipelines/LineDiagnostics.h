//===- LineDiagnostics.h - one stderr line per diagnostic -----------------===//
//
// What `tcc compile` prints for an MLIR diagnostic: `model.py:13: error:
// unsupported operator ...`, the op's Python source line first.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_PIPELINES_LINEDIAGNOSTICS_H
#define TCC_PIPELINES_LINEDIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"

#include <string>

namespace tcc {

class CompileProgress;

/// Prints every diagnostic of `ctx` (and its notes) as one line on stderr
/// while it lives, above the progress line if there is one, and counts the
/// errors.
class LineDiagnostics {
public:
  explicit LineDiagnostics(mlir::MLIRContext &ctx, CompileProgress *progress = nullptr);
  ~LineDiagnostics();
  LineDiagnostics(const LineDiagnostics &) = delete;
  LineDiagnostics &operator=(const LineDiagnostics &) = delete;

  int errorCount() const { return errors; }

private:
  void print(mlir::Diagnostic &d, std::string &out);

  mlir::MLIRContext *ctx;
  CompileProgress *progress;
  mlir::DiagnosticEngine::HandlerID id;
  int errors = 0;
};

} // namespace tcc

#endif // TCC_PIPELINES_LINEDIAGNOSTICS_H
