//===- MemoryPlannerTest.cpp - Tests for the greedy-by-size planner -------===//

#include "tcc/Support/MemoryPlanner.h"

#include <catch2/catch.hpp>

#include <random>

using tcc::BufferLifetime;
using tcc::MemoryPlan;
using tcc::planMemoryGreedyBySize;

TEST_CASE("memory planner: empty input", "[memplan]") {
  MemoryPlan plan = planMemoryGreedyBySize({});
  CHECK(plan.offsets.empty());
  CHECK(plan.arenaBytes == 0);
}

TEST_CASE("memory planner: disjoint lifetimes share memory", "[memplan]") {
  // a -> b -> c chain: a dies when b is produced, so a and c can share.
  std::vector<BufferLifetime> buffers = {
      {4096, 0, 1}, {4096, 1, 2}, {4096, 2, 3}};
  MemoryPlan plan = planMemoryGreedyBySize(buffers);
  REQUIRE(tcc::isValidMemoryPlan(buffers, plan));
  CHECK(plan.offsets == std::vector<uint64_t>{0, 4096, 0});
  CHECK(plan.arenaBytes == 8192);

  std::vector<BufferLifetime> sequential = {{1000, 0, 0}, {3000, 1, 1}};
  plan = planMemoryGreedyBySize(sequential);
  CHECK(plan.offsets == std::vector<uint64_t>{0, 0});
  CHECK(plan.arenaBytes == 3000);
}

TEST_CASE("memory planner: overlapping lifetimes never overlap in memory",
          "[memplan]") {
  std::vector<BufferLifetime> buffers = {{100, 0, 5}, {200, 2, 3}, {300, 3, 9}};
  MemoryPlan plan = planMemoryGreedyBySize(buffers);
  REQUIRE(tcc::isValidMemoryPlan(buffers, plan));
  // Largest first at 0, then 200 bytes after it (aligned), then 100 bytes.
  CHECK(plan.offsets == std::vector<uint64_t>{576, 320, 0});
  CHECK(plan.arenaBytes == 676);
}

TEST_CASE("memory planner: randomized plans are valid", "[memplan]") {
  std::mt19937_64 rng(20261122);
  for (int trial = 0; trial < 200; ++trial) {
    std::uniform_int_distribution<int> countDist(1, 40);
    std::uniform_int_distribution<uint64_t> sizeDist(0, 5000);
    std::uniform_int_distribution<int64_t> posDist(0, 60);
    std::uniform_int_distribution<int64_t> lenDist(0, 15);
    std::vector<BufferLifetime> buffers(countDist(rng));
    uint64_t alignedSum = 0;
    for (BufferLifetime &b : buffers) {
      b.bytes = sizeDist(rng);
      b.first = posDist(rng);
      b.last = b.first + lenDist(rng);
      alignedSum += (b.bytes + 63) / 64 * 64;
    }
    MemoryPlan plan = planMemoryGreedyBySize(buffers);
    INFO("trial " << trial);
    REQUIRE(plan.offsets.size() == buffers.size());
    // Exhaustive pairwise check, written out here rather than trusting
    // isValidMemoryPlan alone.
    for (size_t i = 0; i < buffers.size(); ++i) {
      CHECK(plan.offsets[i] % 64 == 0);
      CHECK(plan.offsets[i] + buffers[i].bytes <= plan.arenaBytes);
      for (size_t j = 0; j < i; ++j) {
        const BufferLifetime &a = buffers[i], &b = buffers[j];
        bool liveTogether = a.first <= b.last && b.first <= a.last;
        if (!liveTogether || a.bytes == 0 || b.bytes == 0)
          continue;
        bool apart = plan.offsets[i] + a.bytes <= plan.offsets[j] ||
                     plan.offsets[j] + b.bytes <= plan.offsets[i];
        CHECK(apart);
      }
    }
    CHECK(tcc::isValidMemoryPlan(buffers, plan));
    CHECK(plan.arenaBytes <= alignedSum);
  }
}

TEST_CASE("memory planner: alignment", "[memplan]") {
  std::vector<BufferLifetime> buffers = {{10, 0, 2}, {7, 1, 3}, {3, 2, 2}};
  MemoryPlan plan = planMemoryGreedyBySize(buffers);
  CHECK(plan.offsets == std::vector<uint64_t>{0, 64, 128});
  CHECK(plan.arenaBytes == 131);

  plan = planMemoryGreedyBySize(buffers, /*alignment=*/16);
  CHECK(plan.offsets == std::vector<uint64_t>{0, 16, 32});
  CHECK(tcc::isValidMemoryPlan(buffers, plan, 16));
  CHECK_FALSE(tcc::isValidMemoryPlan(buffers, plan, 64));

  plan = planMemoryGreedyBySize(buffers, /*alignment=*/1);
  CHECK(plan.offsets == std::vector<uint64_t>{0, 10, 17});
  CHECK(plan.arenaBytes == 20);
}

TEST_CASE("memory planner: total never exceeds the sum of sizes",
          "[memplan]") {
  std::vector<BufferLifetime> allLive = {
      {640, 0, 9}, {128, 0, 9}, {1024, 0, 9}, {64, 0, 9}};
  MemoryPlan plan = planMemoryGreedyBySize(allLive);
  REQUIRE(tcc::isValidMemoryPlan(allLive, plan));
  CHECK(plan.arenaBytes == 640 + 128 + 1024 + 64);
  // Largest first: 1024 at 0, 640 at 1024, 128 at 1664, 64 at 1792.
  CHECK(plan.offsets == std::vector<uint64_t>{1024, 1664, 0, 1792});
}

TEST_CASE("memory planner: fills gaps below larger buffers", "[memplan]") {
  // big0 [0,1] and big1 [2,3] share offset 0; the 512-byte [0,0] and the
  // 256-byte [1,2] each conflict with a big one and go right above it; the
  // 64-byte [3,3] reuses the 256-byte one's memory.
  std::vector<BufferLifetime> buffers = {
      {1024, 0, 1}, {1024, 2, 3}, {256, 1, 2}, {64, 3, 3}, {512, 0, 0}};
  MemoryPlan plan = planMemoryGreedyBySize(buffers);
  REQUIRE(tcc::isValidMemoryPlan(buffers, plan));
  CHECK(plan.offsets == std::vector<uint64_t>{0, 0, 1024, 1024, 1024});
  CHECK(plan.arenaBytes == 1536);
}

TEST_CASE("memory planner: deterministic", "[memplan]") {
  std::vector<BufferLifetime> buffers;
  for (int i = 0; i < 50; ++i)
    buffers.push_back({static_cast<uint64_t>((i * 37) % 7) * 100, i % 11,
                       i % 11 + i % 5});
  MemoryPlan first = planMemoryGreedyBySize(buffers);
  for (int i = 0; i < 5; ++i) {
    MemoryPlan again = planMemoryGreedyBySize(buffers);
    CHECK(again.offsets == first.offsets);
    CHECK(again.arenaBytes == first.arenaBytes);
  }
  // Equal sizes and lifetimes: input order decides.
  std::vector<BufferLifetime> twins = {{128, 0, 1}, {128, 0, 1}};
  CHECK(planMemoryGreedyBySize(twins).offsets ==
        std::vector<uint64_t>{0, 128});
}
