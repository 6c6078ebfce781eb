//===- CompileProgress.cpp - one updating progress line on a terminal -----===//
#include "tcc/Pipelines/CompileProgress.h"
#include "tcc/Support/CrashHandler.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

using namespace tcc;

namespace {
/// Steps are the passes run on the top-level module; passes nested on the
/// functions run inside one of them (their adaptor), on many functions at
/// once when the context is multithreaded: those count the functions.
class PassSteps : public mlir::PassInstrumentation {
public:
  PassSteps(CompileProgress &progress, int total) : progress(progress), total(total) {}

private:
  void runBeforePass(mlir::Pass *pass, mlir::Operation *op) override {
    std::lock_guard<std::mutex> lock(mutex);
    mlir::Operation *parent = op->getParentOp();
    bool milestone = true;
    if (mlir::isa<mlir::ModuleOp>(op) && !parent) {
      ++done;
      name = pass->getArgument().str();
      functionsDone.clear();
      functions = 0;
      if (name.empty()) {
        // An adaptor running passes on each function: count them.
        name = "function passes";
        for (mlir::Operation &child : mlir::cast<mlir::ModuleOp>(op).getBody()->getOperations())
          functions += mlir::isa<mlir::FunctionOpInterface>(child);
      }
    } else if (functions && mlir::isa<mlir::FunctionOpInterface>(op) && parent &&
               !parent->getParentOp()) {
      milestone = name != pass->getArgument();
      name = pass->getArgument().str();
      functionsDone.insert(op);
      milestone |= functionsDone.size() == 1 || functionsDone.size() == functions;
    } else {
      return;
    }
    std::string text = "pass " + std::to_string(done) + "/" + std::to_string(total) + " " + name;
    if (!functionsDone.empty())
      text += ": function " + std::to_string(functionsDone.size()) + "/" +
              std::to_string(functions);
    progress.step(text, milestone);
  }

  CompileProgress &progress;
  int total, done = 0;
  std::mutex mutex;
  std::string name;
  size_t functions = 0;
  llvm::DenseSet<mlir::Operation *> functionsDone;
};

void writeAll(const std::string &text) {
  size_t at = 0;
  while (at < text.size()) {
    ssize_t n = ::write(STDERR_FILENO, text.data() + at, text.size() - at);
    if (n <= 0)
      return;
    at += static_cast<size_t>(n);
  }
}

/// The terminal's width, so that the line never wraps (a wrapped line
/// cannot be redrawn in place).
size_t terminalColumns() {
  struct winsize size {};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 8)
    return size.ws_col;
  return 80;
}
} // namespace

bool CompileProgress::stderrIsTerminal() { return ::isatty(STDERR_FILENO) == 1; }

CompileProgress::CompileProgress(bool enabled)
    : drawing(enabled), begin(std::chrono::steady_clock::now()) {
  if (drawing)
    ticker = std::thread([this] { tick(); });
}

CompileProgress::~CompileProgress() { stop(); }

void CompileProgress::tick() {
  std::unique_lock<std::mutex> lock(mutex);
  while (!stopped) {
    drawLocked();
    wake.wait_for(lock, std::chrono::milliseconds(200));
  }
}

void CompileProgress::phase(const std::string &name) {
  if (!drawing)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  phaseName = name;
  stepText.clear();
  drawLocked();
}

void CompileProgress::step(const std::string &text, bool milestone) {
  if (!drawing)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  stepText = text;
  // Thousands of steps (functions) a second would be thousands of writes:
  // the ticker draws what is left.
  if (milestone || std::chrono::steady_clock::now() - lastDraw >= std::chrono::milliseconds(50))
    drawLocked();
}

void CompileProgress::printAbove(const std::string &line) {
  if (!drawing) {
    writeAll(line);
    return;
  }
  std::lock_guard<std::mutex> lock(mutex);
  eraseLocked();
  writeAll(line);
  // The ticker draws the line again below it.
}

void CompileProgress::stop() {
  if (!drawing)
    return;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (stopped)
      return;
    stopped = true;
    eraseLocked();
  }
  wake.notify_all();
  if (ticker.joinable())
    ticker.join();
}

void CompileProgress::drawLocked() {
  if (stopped || phaseName.empty())
    return;
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  char elapsed[32];
  std::snprintf(elapsed, sizeof elapsed, "%.1f s", seconds);
  std::string text = "tcc: " + phaseName + (stepText.empty() ? "" : "  " + stepText) + "  " +
                     elapsed;
  size_t columns = terminalColumns() - 1;
  if (text.size() > columns)
    text = text.substr(0, columns);
  writeAll("\r\033[K" + text);
  shown = true;
  lastDraw = std::chrono::steady_clock::now();
}

void CompileProgress::eraseLocked() {
  if (!shown)
    return;
  writeAll("\r\033[K");
  shown = false;
}

std::unique_ptr<mlir::PassInstrumentation> CompileProgress::passSteps(int total) {
  return std::make_unique<PassSteps>(*this, total);
}

void PhaseTimer::start(const std::string &phase) {
  stop();
  current = phase;
  progress.phase(phase);
  setCrashContext(("phase '" + phase + "'").c_str());
  begin = std::chrono::steady_clock::now();
}

void PhaseTimer::stop() {
  if (current.empty())
    return;
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
  phases.push_back({current, ms});
  current.clear();
}

void PhaseTimer::report() {
  stop();
  progress.stop();
  if (!enabled)
    return;
  double total = 0;
  int width = 12; // wider for the phases of --specialize's variants
  for (auto &[name, ms] : phases)
    width = std::max(width, static_cast<int>(name.size()));
  llvm::errs() << "tcc: compile time by phase\n";
  for (auto &[name, ms] : phases) {
    llvm::errs() << llvm::format("  %-*s %9.1f ms\n", width, name.c_str(), ms);
    total += ms;
  }
  llvm::errs() << llvm::format("  %-*s %9.1f ms\n", width, "total", total);
}
