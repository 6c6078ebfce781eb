//===- LineDiagnostics.cpp - one stderr line per diagnostic ---------------===//
#include "tcc/Pipelines/LineDiagnostics.h"

#include "dialects/TccGraph/IR/SourceLocation.h"
#include "tcc/Pipelines/CompileProgress.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

tcc::LineDiagnostics::LineDiagnostics(MLIRContext &ctx, CompileProgress *progress)
    : ctx(&ctx), progress(progress) {
  id = ctx.getDiagEngine().registerHandler([this](Diagnostic &d) {
    std::string lines;
    print(d, lines);
    if (this->progress)
      this->progress->printAbove(lines);
    else
      llvm::errs() << lines;
    if (d.getSeverity() == DiagnosticSeverity::Error)
      ++errors;
    return success();
  });
}

tcc::LineDiagnostics::~LineDiagnostics() { ctx->getDiagEngine().eraseHandler(id); }

void tcc::LineDiagnostics::print(Diagnostic &d, std::string &out) {
  const char *sev = d.getSeverity() == DiagnosticSeverity::Error     ? "error"
                    : d.getSeverity() == DiagnosticSeverity::Warning ? "warning"
                    : d.getSeverity() == DiagnosticSeverity::Note    ? "note"
                                                                      : "remark";
  std::string loc = graph::formatSourceLocation(d.getLocation());
  out += (loc.empty() ? "tcc" : loc) + ": " + sev + ": " + d.str() + "\n";
  for (Diagnostic &note : d.getNotes())
    print(note, out);
}
