//===- CrashHandler.cpp - a crash in tcc is an internal error (exit 3) ---===//
#include "tcc/Support/CrashHandler.h"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <unistd.h>

namespace {
int gExitCode = 3;
char gContext[256] = "";
alignas(16) char gAltStack[64 * 1024];

void writeText(const char *s) {
  // Only async-signal-safe calls in here: write(2), no allocation.
  ssize_t ignored = ::write(STDERR_FILENO, s, std::strlen(s));
  (void)ignored;
}

const char *signalName(int sig) {
  switch (sig) {
  case SIGSEGV: return "a segmentation fault";
  case SIGBUS: return "a bus error";
  case SIGILL: return "an illegal instruction";
  case SIGFPE: return "an arithmetic exception";
  case SIGABRT: return "an abort";
  default: return "a fatal signal";
  }
}

void onCrash(int sig) {
  writeText("tcc: internal error: ");
  writeText(signalName(sig));
  if (gContext[0]) {
    writeText(" in ");
    writeText(gContext);
  }
  writeText(". This is a bug in tcc, not in the model: please report it with the command "
            "line and the model (--dump-ir-after-all DIR writes the IR each pass was given).\n");
  ::_exit(gExitCode);
}
} // namespace

void tcc::installCrashHandler(int exitCode) {
  gExitCode = exitCode;
  stack_t ss{};
  ss.ss_sp = gAltStack;
  ss.ss_size = sizeof(gAltStack);
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = onCrash;
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT})
    sigaction(sig, &sa, nullptr);
}

void tcc::setCrashContext(const char *what) {
  std::strncpy(gContext, what ? what : "", sizeof(gContext) - 1);
  gContext[sizeof(gContext) - 1] = '\0';
}
