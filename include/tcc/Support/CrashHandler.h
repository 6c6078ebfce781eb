//===- CrashHandler.h - a crash in tcc is an internal error (exit 3) -----===//
//
// A compiler bug that crashes (a segmentation fault, an assertion's abort)
// must not look like a problem with the user's model, nor end without a word:
// the handler says what tcc was doing and exits with the internal-error code.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_CRASHHANDLER_H
#define TCC_SUPPORT_CRASHHANDLER_H

namespace tcc {

/// Installs handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT (on an
/// alternate stack, so deep recursion is reported too) that print one message
/// naming the signal and the crash context and exit with `exitCode`.
void installCrashHandler(int exitCode);

/// What tcc is doing now ("pass tcc-legalize-graph"), named if it crashes.
/// Copied into a fixed buffer; the handler reads it without allocating.
void setCrashContext(const char *what);

} // namespace tcc

#endif // TCC_SUPPORT_CRASHHANDLER_H
