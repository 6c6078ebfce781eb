//===- Profile.cpp - tcc_profile_mark and the per-kernel accumulation -----===//
#include "tcc/Runtime/Profile.h"

#include "tcc/Runtime/CudaDriver.h"

#include <string>

namespace tcc::profile {

Session *&active() {
  thread_local Session *session = nullptr;
  return session;
}

void Accumulator::addCpu(const Session &s) {
  ++runs;
  for (size_t k = 0; k + 1 < s.seen.size() && k < totalMs.size(); ++k)
    if (s.seen[k] && s.seen[k + 1]) {
      totalMs[k] +=
          std::chrono::duration<double, std::milli>(s.cpuTimes[k + 1] - s.cpuTimes[k]).count();
      ++calls[k];
    }
}

void Accumulator::createEvents(size_t marks) {
  if (events.size() == marks)
    return;
  destroyEvents();
  const cuda::Driver &d = cuda::Driver::get();
  for (size_t i = 0; i < marks; ++i) {
    cuda::CUevent e = nullptr;
    d.check(d.cuEventCreate(&e, /*CU_EVENT_DEFAULT: timed*/ 0), "cuEventCreate (profiling)");
    events.push_back(e);
  }
}

void Accumulator::addCuda(const Session &s) {
  const cuda::Driver &d = cuda::Driver::get();
  ++runs;
  for (size_t k = 0; k + 1 < s.seen.size() && k < totalMs.size(); ++k) {
    if (!s.seen[k] || !s.seen[k + 1])
      continue;
    float ms = 0;
    d.check(d.cuEventElapsedTime(&ms, static_cast<cuda::CUevent>(events[k]),
                                 static_cast<cuda::CUevent>(events[k + 1])),
            "cuEventElapsedTime (profiling kernel " + std::to_string(k) + ")");
    totalMs[k] += ms;
    ++calls[k];
  }
}

void Accumulator::destroyEvents() {
  if (events.empty())
    return;
  const cuda::Driver &d = cuda::Driver::get();
  for (void *e : events)
    (void)d.cuEventDestroy(static_cast<cuda::CUevent>(e));
  events.clear();
}

} // namespace tcc::profile

/// Called by an instrumented entry before kernel k (k = N: before it
/// returns). Not profiling: one thread-local load and a test.
extern "C" __attribute__((visibility("default"))) void tcc_profile_mark(int32_t k) {
  tcc::profile::Session *s = tcc::profile::active();
  if (!s || k < 0 || static_cast<size_t>(k) >= s->seen.size())
    return;
  size_t i = static_cast<size_t>(k);
  s->seen[i] = true;
  if (s->events) {
    const tcc::cuda::Driver &d = tcc::cuda::Driver::get();
    // An error here shows as a missing time (the event was never recorded).
    if (d.cuEventRecord(static_cast<tcc::cuda::CUevent>(s->events[i]),
                        static_cast<tcc::cuda::CUstream>(s->stream)) != 0)
      s->seen[i] = false;
    return;
  }
  s->cpuTimes[i] = std::chrono::steady_clock::now();
}
