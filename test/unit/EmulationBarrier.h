//===- EmulationBarrier.h - a reusable barrier for emulated GPU threads ---===//
//
// The host emulations of tcc's kernels (AttentionEmulation.h,
// GemvEmulation.h) run a block or a warp as std::threads; this barrier is
// their __syncthreads / __syncwarp and the rendezvous of their shuffles.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_TEST_UNIT_EMULATIONBARRIER_H
#define TCC_TEST_UNIT_EMULATIONBARRIER_H

#include <condition_variable>
#include <mutex>

namespace tcc_emulation {

/// A reusable barrier for `count` threads.
class Barrier {
public:
  explicit Barrier(int count) : count(count) {}
  void wait() {
    std::unique_lock<std::mutex> lock(mutex);
    const unsigned long gen = generation;
    if (++arrived == count) {
      arrived = 0;
      ++generation;
      done.notify_all();
      return;
    }
    done.wait(lock, [&] { return generation != gen; });
  }

private:
  std::mutex mutex;
  std::condition_variable done;
  int count, arrived = 0;
  unsigned long generation = 0;
};

} // namespace tcc_emulation

#endif // TCC_TEST_UNIT_EMULATIONBARRIER_H
