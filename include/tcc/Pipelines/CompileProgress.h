//===- CompileProgress.h - one updating progress line on a terminal -------===//
//
// `tcc compile` on a terminal shows where a long compile is: the phase, the
// pass k of N within it and the time so far, on one line of stderr that is
// redrawn in place and erased when the compile ends. Nothing is drawn when
// stderr is not a terminal (CI logs, pipes) or with --quiet.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_PIPELINES_COMPILEPROGRESS_H
#define TCC_PIPELINES_COMPILEPROGRESS_H

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace mlir {
class PassInstrumentation;
} // namespace mlir

namespace tcc {

class CompileProgress {
public:
  /// Draws only when `enabled`: at every phase and step, and from a ticker
  /// thread every 200 ms in between (the elapsed time).
  explicit CompileProgress(bool enabled);
  ~CompileProgress();
  CompileProgress(const CompileProgress &) = delete;
  CompileProgress &operator=(const CompileProgress &) = delete;

  /// Whether stderr is a terminal (the default for drawing).
  static bool stderrIsTerminal();

  bool enabled() const { return drawing; }
  /// A new phase ("read", "pipeline", "codegen", ...); its step count is reset.
  void phase(const std::string &name);
  /// Where the phase is ("pass 12/80 tcc-bufferize", "machine code:
  /// function 300/1040"): drawn at once for a `milestone` (a new pass, a
  /// first or last function), else at most every 50 ms.
  void step(const std::string &text, bool milestone = true);
  /// Writes `line` (ending in a newline) above the progress line.
  /// Thread-safe, as are phase and step.
  void printAbove(const std::string &line);
  /// Erases the line and draws no more: other output follows.
  void stop();

  /// An instrumentation that reports the top-level passes of a pass
  /// manager of `total` passes as steps, e.g. "pass 12/80 tcc-bufferize",
  /// and in passes run on each function, the functions done so far
  /// ("pass 14/36 convert-linalg-to-loops: function 312/1040": the outlined
  /// kernels are functions).
  std::unique_ptr<mlir::PassInstrumentation> passSteps(int total);

private:
  void tick();
  void drawLocked();
  void eraseLocked();

  bool drawing;
  std::mutex mutex;
  std::condition_variable wake;
  bool stopped = false;
  bool shown = false;  ///< the line is on the screen
  std::string phaseName, stepText;
  std::chrono::steady_clock::time_point begin, lastDraw;
  std::thread ticker;
};

/// Times the phases of a compile for --timing and names each on the
/// progress line (and in the crash handler's report).
class PhaseTimer {
public:
  PhaseTimer(bool enabled, CompileProgress &progress) : enabled(enabled), progress(progress) {}
  /// Ends the phase in flight and starts `phase`.
  void start(const std::string &phase);
  /// Ends the phase in flight, if any.
  void stop();
  /// Ends the compile's progress line and, with --timing, prints each
  /// phase's milliseconds and their total to stderr.
  void report();

private:
  bool enabled;
  CompileProgress &progress;
  std::string current; // "" between phases
  std::chrono::steady_clock::time_point begin;
  std::vector<std::pair<std::string, double>> phases;
};

} // namespace tcc

#endif // TCC_PIPELINES_COMPILEPROGRESS_H
