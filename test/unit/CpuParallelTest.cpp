//===- CpuParallelTest.cpp - the CPU path's thread pool -------------------===//
#include "tcc/Runtime/CpuParallel.h"

#include <catch2/catch.hpp>

#include <sched.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace {

int coresAllowed() {
  cpu_set_t set;
  REQUIRE(sched_getaffinity(0, sizeof(set), &set) == 0);
  return CPU_COUNT(&set);
}

/// What tcc_parallel_for's parts covered, and on which threads.
struct Coverage {
  std::vector<std::atomic<int>> hits;
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::vector<std::pair<int64_t, int64_t>> parts;
  explicit Coverage(size_t n) : hits(n) {}
};

void record(void *context, int64_t begin, int64_t end) {
  auto &c = *static_cast<Coverage *>(context);
  for (int64_t i = begin; i < end; ++i)
    c.hits[i]++;
  std::lock_guard<std::mutex> lock(c.mutex);
  c.threads.insert(std::this_thread::get_id());
  c.parts.push_back({begin, end});
}

} // namespace

TEST_CASE("The thread count is TCC_NUM_THREADS, else the cores allowed", "[runtime]") {
  CHECK(tcc::cpu::parallelThreadCount("3") == 3);
  CHECK(tcc::cpu::parallelThreadCount("1") == 1);
  CHECK(tcc::cpu::parallelThreadCount(nullptr) == coresAllowed());
  CHECK(tcc::cpu::parallelThreadCount("") == coresAllowed());
  CHECK(tcc::cpu::parallelThreadCount("0") == coresAllowed());
  CHECK(tcc::cpu::parallelThreadCount("-2") == coresAllowed());
  CHECK(tcc::cpu::parallelThreadCount("2x") == coresAllowed());
}

TEST_CASE("tcc_parallel_for covers every iteration once", "[runtime]") {
  for (int64_t n : {1, 2, 7, 1000}) {
    for (int64_t grain : {0, 1, 3, 5000}) {
      Coverage c(static_cast<size_t>(n) + 5);
      tcc_parallel_for(record, &c, 5, 5 + n, grain);
      for (int64_t i = 0; i < n + 5; ++i)
        CHECK(c.hits[i].load() == (i >= 5 ? 1 : 0));
      // No part smaller than the grain unless it is the whole range.
      if (grain > 1 && c.parts.size() > 1)
        for (auto [b, e] : c.parts)
          CHECK(e - b >= grain);
      CHECK(c.threads.size() <= static_cast<size_t>(tcc_cpu_thread_count()));
    }
  }
  Coverage none(4);
  tcc_parallel_for(record, &none, 3, 3, 1);
  tcc_parallel_for(record, &none, 3, 1, 1);
  CHECK(none.parts.empty());
}

namespace {
/// Parts that return only once `want` threads are inside one at the same
/// time (or after 10 s): the pool really has that many threads.
struct Rendezvous {
  std::mutex mutex;
  std::condition_variable cv;
  std::set<std::thread::id> inside;
  size_t want = 0;
  bool met = false;
};

void meet(void *context, int64_t, int64_t) {
  auto &r = *static_cast<Rendezvous *>(context);
  std::unique_lock<std::mutex> lock(r.mutex);
  r.inside.insert(std::this_thread::get_id());
  if (r.inside.size() >= r.want)
    r.met = true;
  r.cv.notify_all();
  r.cv.wait_for(lock, std::chrono::seconds(10), [&] { return r.met; });
}
} // namespace

TEST_CASE("tcc_parallel_for runs on TCC_NUM_THREADS threads, and callers at once",
          "[runtime]") {
  const int threads = tcc_cpu_thread_count();
  CHECK(threads == tcc::cpu::parallelThreadCount(std::getenv("TCC_NUM_THREADS")));
  Rendezvous r;
  r.want = static_cast<size_t>(threads);
  tcc_parallel_for(meet, &r, 0, threads, 1);
  CHECK(r.met);
  CHECK(r.inside.size() == static_cast<size_t>(threads));
  // Two callers at once (one may find the pool busy and run alone) each get
  // every iteration exactly once.
  Coverage a(100000), b(100000);
  std::thread ta([&] { for (int k = 0; k < 20; ++k) tcc_parallel_for(record, &a, 0, 100000, 64); });
  std::thread tb([&] { for (int k = 0; k < 20; ++k) tcc_parallel_for(record, &b, 0, 100000, 64); });
  ta.join();
  tb.join();
  bool all = true;
  for (size_t i = 0; i < 100000; ++i)
    all &= a.hits[i].load() == 20 && b.hits[i].load() == 20;
  CHECK(all);
}
