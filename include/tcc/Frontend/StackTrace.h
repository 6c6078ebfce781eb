//===- StackTrace.h - user source locations from export stack traces ------===//
//
// Each node of an exported graph carries metadata.stack_trace, the Python
// traceback of the call that produced it. Diagnostics point at the user's
// line, not at torch's own modules, so the reader picks the innermost frame
// outside torch: the line that called the operator.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_FRONTEND_STACKTRACE_H
#define TCC_FRONTEND_STACKTRACE_H

#include <string>
#include <string_view>

namespace tcc::frontend {

/// A Python source line. Empty file and line 0 when unknown.
struct SourceLocation {
  std::string file;
  int line = 0;

  bool known() const { return !file.empty(); }
};

/// The last (innermost) `File "X", line N` frame of a traceback whose path is
/// not inside torch (does not contain "/site-packages/torch/" or "/torch/nn/"),
/// else the first frame, else an unknown location.
SourceLocation userSourceLocation(std::string_view stackTrace);

} // namespace tcc::frontend

#endif // TCC_FRONTEND_STACKTRACE_H
