//===- CrashHandlerTest.cpp - a crash becomes exit 3 with one message ----===//
#include "tcc/Support/CrashHandler.h"

#include <catch2/catch.hpp>

#include <csignal>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {
/// Runs `crash` in a child process with the handler installed; returns its
/// exit status and what it wrote to stderr.
std::pair<int, std::string> crashInChild(void (*crash)()) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    tcc::installCrashHandler(3);
    tcc::setCrashContext("pass tcc-legalize-graph");
    crash();
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;)
    text.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {status, text};
}

void segfault() { raise(SIGSEGV); }
void abortNow() { abort(); }
int recurse(int n) { volatile char pad[4096]; pad[0] = static_cast<char>(n); return recurse(n + 1) + pad[0]; }
void overflowStack() { recurse(0); }
} // namespace

TEST_CASE("a crash exits with the internal-error code and names the context", "[crash]") {
  for (auto crash : {segfault, abortNow, overflowStack}) {
    auto [status, text] = crashInChild(crash);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 3);
    CHECK(text.find("tcc: internal error: ") == 0);
    CHECK(text.find("in pass tcc-legalize-graph. This is a bug in tcc") != std::string::npos);
  }
}
