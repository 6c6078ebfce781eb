//===- Profile.h - per-kernel times of an instrumented artifact -----------===//
//
// `tcc compile --profile` makes the entries call tcc_profile_mark(k) before
// kernel k and tcc_profile_mark(N) before returning (tcc-instrument-kernels).
// While a Model runs with profiling on, it points this thread's active
// session at a record of the marks: the CPU path reads the steady clock at
// each mark, the CUDA path records an event per mark on the run's stream.
// Kernel k took mark k+1 - mark k. With no session a mark returns at once.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_PROFILE_H
#define TCC_RUNTIME_PROFILE_H

#include <chrono>
#include <cstdint>
#include <vector>

extern "C" void tcc_profile_mark(int32_t k);

namespace tcc::profile {

/// The marks of one run of an entry (N kernels: marks 0..N).
struct Session {
  explicit Session(size_t marks) : cpuTimes(marks), seen(marks, false) {}
  std::vector<std::chrono::steady_clock::time_point> cpuTimes;
  std::vector<bool> seen;
  /// CUDA: one event per mark (CUevent), recorded on `stream`; null events
  /// for a CPU run.
  void *const *events = nullptr;
  void *stream = nullptr;
};

/// The session tcc_profile_mark records into on this thread (null: none).
Session *&active();

/// Sets the thread's active session for its lifetime.
class ScopedSession {
public:
  explicit ScopedSession(Session *s) : previous_(active()) { active() = s; }
  ~ScopedSession() { active() = previous_; }
  ScopedSession(const ScopedSession &) = delete;
  ScopedSession &operator=(const ScopedSession &) = delete;

private:
  Session *previous_;
};

/// What an instance accumulates over its profiled runs.
struct Accumulator {
  bool enabled = false;
  bool cudaGraphsBefore = true; ///< restored when profiling is turned off
  uint64_t runs = 0;            ///< profiled runs
  std::vector<double> totalMs;  ///< per kernel
  std::vector<int64_t> calls;   ///< per kernel: runs that reached its mark and the next
  std::vector<void *> events;   ///< CUDA: N + 1 CUevents, created by the first CUDA run

  void reset(size_t kernels) {
    runs = 0;
    totalMs.assign(kernels, 0.0);
    calls.assign(kernels, 0);
  }
  /// Adds a CPU run's marks.
  void addCpu(const Session &s);
  /// CUDA: creates the `marks` events once (the driver must have events).
  void createEvents(size_t marks);
  /// Adds a CUDA run's marks: the elapsed time between consecutive events
  /// (the stream has been synchronized). Throws RuntimeError.
  void addCuda(const Session &s);
  void destroyEvents();
};

} // namespace tcc::profile

#endif // TCC_RUNTIME_PROFILE_H
