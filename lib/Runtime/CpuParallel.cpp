//===- CpuParallel.cpp - the CPU path's thread pool -----------------------===//
//
// Workers sleep on a condition variable between loops (no spinning: beside
// oneDNN's OpenMP threads and PyTorch's they would take the cores those
// need). A loop is cut into chunks (several per thread, none below the
// grain) that the caller and the workers claim with one atomic counter; the
// caller claims chunks too and waits only for workers that took the loop, so
// a worker the OS has not scheduled yet costs nothing: the caller does its
// chunks.
//
// Why not libgomp's team (GOMP_parallel, the pool oneDNN's products run
// on): every region joins all its threads, and in a Python process oneDNN's
// libgomp is PyTorch's (torch/lib/libgomp.so.1 has the same soname and is
// loaded first), whose idle threads spin. On the shared 2-core build machine
// (load 14-16), BERT-base b1 at two threads, three artifacts in one process,
// calls alternating: 968 ms without parallel loops (846938e), 1616 ms with
// the loops and attention's heads as GOMP regions (process CPU 431 against
// 716 ms), 1108 ms on this pool. This pool never runs beside an OpenMP
// region of the same call: tcc_parallel_for is called on the calling thread
// between library calls, when oneDNN's team is idle.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/CpuParallel.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace {

/// One loop: chunk c covers [begin + c·count/chunks, begin + (c+1)·count/chunks).
struct Loop {
  void (*body)(void *, int64_t, int64_t);
  void *context;
  int64_t begin, count, chunks;
  std::atomic<int64_t> next{0};
  int active = 0; ///< workers that took the loop and have not finished (under the mutex)

  void runChunks() {
    for (int64_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < chunks;) {
      int64_t lo = begin + c * count / chunks, hi = begin + (c + 1) * count / chunks;
      body(context, lo, hi);
    }
  }
};

/// Set on the pool's workers: a loop inside a loop runs serially.
thread_local bool insidePool = false;

class WorkerPool {
public:
  explicit WorkerPool(int threads) : threads_(threads) {}

  int threads() const { return threads_; }

  /// Runs `loop` on the caller and whichever workers take it; false when
  /// another caller's loop holds the pool (the caller then runs it alone).
  bool run(Loop &loop) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock())
      return false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (workers_.empty())
        for (int i = 1; i < threads_; ++i)
          workers_.emplace_back([this] { work(); });
      current_ = &loop;
      ++epoch_;
    }
    wake_.notify_all();
    loop.runChunks();
    std::unique_lock<std::mutex> lock(mutex_);
    current_ = nullptr; // a worker that wakes from now on finds nothing
    done_.wait(lock, [&] { return loop.active == 0; });
    return true;
  }

private:
  void work() {
    insidePool = true;
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return current_ && epoch_ != seen; });
      seen = epoch_;
      Loop *loop = current_;
      ++loop->active;
      lock.unlock();
      loop->runChunks();
      lock.lock();
      if (--loop->active == 0)
        done_.notify_all();
    }
  }

  const int threads_;
  std::mutex busy_;  ///< held by the caller whose loop the pool runs
  std::mutex mutex_; ///< guards the fields below
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_; ///< started on the first loop; never joined
  Loop *current_ = nullptr;
  uint64_t epoch_ = 0;
};

WorkerPool &pool() {
  // Leaked: workers may be asleep in it when the process exits.
  static WorkerPool *p = [] {
    auto *p = new WorkerPool(tcc::cpu::parallelThreadCount(std::getenv("TCC_NUM_THREADS")));
    if (const char *debug = std::getenv("TCC_DEBUG_THREADS"); debug && *debug && *debug != '0')
      std::fprintf(stderr, "tcc: CPU thread pool: %d thread%s\n", p->threads(),
                   p->threads() == 1 ? " (the caller's)" : "s");
    return p;
  }();
  return *p;
}

} // namespace

int tcc::cpu::parallelThreadCount(const char *env) {
  if (env && *env) {
    char *end = nullptr;
    long n = std::strtol(env, &end, 10);
    if (end && *end == '\0' && n > 0)
      return static_cast<int>(std::min<long>(n, 1024));
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

extern "C" int tcc_cpu_thread_count(void) { return pool().threads(); }

extern "C" void tcc_parallel_for(void (*body)(void *, int64_t, int64_t), void *context,
                                 int64_t begin, int64_t end, int64_t grain) {
  const int64_t count = end - begin;
  if (count <= 0)
    return;
  WorkerPool &p = pool();
  // A few chunks per thread (the caller takes over those of a worker that
  // is slow to start), each at least `grain` iterations.
  int64_t chunks = std::min<int64_t>(static_cast<int64_t>(p.threads()) * 4, count);
  if (grain > 1)
    chunks = std::min(chunks, count / grain);
  if (p.threads() <= 1 || chunks <= 1 || insidePool) {
    body(context, begin, end);
    return;
  }
  Loop loop{body, context, begin, count, chunks};
  if (!p.run(loop))
    body(context, begin, end);
}
