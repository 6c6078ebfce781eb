//===- CpuParallel.cpp - the CPU path's one thread pool (libgomp's) -------===//
#include "tcc/Runtime/CpuParallel.h"

#include "OneDnnLibrary.h"

#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace {

/// libgomp's entries tcc_parallel_for needs (GCC's OpenMP ABI).
struct Gomp {
  void (*parallel)(void (*fn)(void *), void *data, unsigned threads, unsigned flags) = nullptr;
  int (*threadNum)() = nullptr;
  int (*numThreads)() = nullptr;
  int (*inParallel)() = nullptr;
};

struct Pool {
  int threads = 1;
  Gomp gomp; ///< all null when libgomp is missing (every loop then runs serially)
};

const Pool &pool() {
  static const Pool p = [] {
    Pool p;
    p.threads = tcc::cpu::parallelThreadCount(std::getenv("TCC_NUM_THREADS"));
    // One thread: today's serial code, no library opened.
    if (p.threads > 1)
      if (void *h = tcc::cpu::onednn::openOpenMpLibrary("libgomp.so.1")) {
        Gomp g;
        g.parallel = reinterpret_cast<decltype(g.parallel)>(dlsym(h, "GOMP_parallel"));
        g.threadNum = reinterpret_cast<decltype(g.threadNum)>(dlsym(h, "omp_get_thread_num"));
        g.numThreads = reinterpret_cast<decltype(g.numThreads)>(dlsym(h, "omp_get_num_threads"));
        g.inParallel = reinterpret_cast<decltype(g.inParallel)>(dlsym(h, "omp_in_parallel"));
        if (g.parallel && g.threadNum && g.numThreads && g.inParallel)
          p.gomp = g;
      }
    if (const char *debug = std::getenv("TCC_DEBUG_THREADS"); debug && *debug && *debug != '0')
      std::fprintf(stderr, "tcc: CPU thread pool: %d thread%s (%s)\n", p.threads,
                   p.threads == 1 ? "" : "s",
                   p.threads == 1 ? "serial" : p.gomp.parallel ? "libgomp" : "libgomp missing: serial");
    return p;
  }();
  return p;
}

struct Job {
  void (*body)(void *, int64_t, int64_t);
  void *context;
  int64_t begin, count;
  const Gomp *gomp;
};

/// Each team member's share of [begin, begin + count): contiguous, sizes
/// differing by at most one.
void runShare(void *data) {
  const Job &job = *static_cast<const Job *>(data);
  const int64_t t = job.gomp->threadNum(), n = job.gomp->numThreads();
  const int64_t base = job.count / n, extra = job.count % n;
  const int64_t lo = job.begin + t * base + std::min(t, extra);
  const int64_t hi = lo + base + (t < extra ? 1 : 0);
  if (lo < hi)
    job.body(job.context, lo, hi);
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

extern "C" int tcc_cpu_thread_count(void) { return pool().threads; }

extern "C" void tcc_parallel_for(void (*body)(void *, int64_t, int64_t), void *context,
                                 int64_t begin, int64_t end, int64_t grain) {
  const int64_t count = end - begin;
  if (count <= 0)
    return;
  const Pool &p = pool();
  int64_t parts = std::min<int64_t>(p.threads, count);
  if (grain > 1)
    parts = std::min(parts, count / grain);
  // Inside an OpenMP region (a caller's own, or a nested call) the calling
  // thread already is one of the cores' threads: no second team.
  if (parts <= 1 || !p.gomp.parallel || p.gomp.inParallel()) {
    body(context, begin, end);
    return;
  }
  Job job{body, context, begin, count, &p.gomp};
  p.gomp.parallel(runShare, &job, static_cast<unsigned>(parts), 0);
}
