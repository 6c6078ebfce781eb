//===- ProfileTest.cpp - per-kernel times of an instrumented entry --------===//
//
// A hand-written forward stands in for an artifact compiled with --profile:
// it calls tcc_profile_mark before each of its two "kernels" (the first
// sleeps 20 ms, the second 2 ms) and at its end, as tcc-instrument-kernels
// makes the compiled entries do.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/Model.h"
#include "tcc/Runtime/Profile.h"
#include "tcc/Runtime/RuntimeError.h"
#include "tcc/runtime.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <thread>

using namespace tcc;

namespace {

std::string manifest(bool profile) {
  return std::string(R"json({
  "format": "tcc-guard-manifest", "version": 1, "model": "marks",
  "inputs":  [ { "name": "x", "dtype": "float32", "device": "cpu", "sizes": [4] } ],
  "outputs": [ { "name": "y", "dtype": "float32", "sizes": [4] } ],
  "weights": [],
  "arena":   { "bytes": 64 },
  "kernels": [ { "kind": "pointwise", "detail": "1 loop" }, { "kind": "copy", "detail": "" } ],
  "entry":   { "symbol": "tcc_model_forward",
               "args": [ { "role": "input",  "index": 0, "rank": 1 },
                         { "role": "output", "index": 0, "rank": 1 },
                         { "role": "arena",  "index": 0, "rank": 1 } ] })json") +
         (profile ? R"json(, "profile": true })json" : "}");
}

void markedForward(int64_t *) {
  tcc_profile_mark(0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  tcc_profile_mark(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  tcc_profile_mark(2);
}

void runOnce(Model &m) {
  float x[4] = {}, y[4] = {};
  int64_t sizes[1] = {4};
  tcc_tensor in = {x, TCC_DTYPE_FLOAT32, TCC_DEVICE_CPU, 1, sizes};
  tcc_tensor out = {y, TCC_DTYPE_FLOAT32, TCC_DEVICE_CPU, 1, sizes};
  m.run(&in, 1, &out, 1);
}

} // namespace

TEST_CASE("A mark outside a profiled run does nothing", "[runtime][profile]") {
  REQUIRE(profile::active() == nullptr);
  tcc_profile_mark(0);
  tcc_profile_mark(-1);
  tcc_profile_mark(1 << 30);
}

TEST_CASE("Profiled CPU runs accumulate each kernel's time between its marks",
          "[runtime][profile]") {
  Model m(manifest(true), nullptr, 0, &markedForward);
  // Not profiling: nothing is recorded.
  runOnce(m);
  std::vector<double> ms;
  std::vector<int64_t> calls;
  m.profileTimes(ms, calls);
  REQUIRE(ms.size() == 2);
  CHECK(calls == std::vector<int64_t>{0, 0});

  m.setProfiling(true);
  CHECK(m.profiling());
  CHECK(!m.cudaGraphs()); // graphs would skip the marks
  for (int i = 0; i < 3; ++i)
    runOnce(m);
  m.profileTimes(ms, calls);
  CHECK(m.profileRuns() == 3);
  CHECK(calls == std::vector<int64_t>{3, 3});
  CHECK(ms[0] >= 3 * 20.0);
  CHECK(ms[1] >= 3 * 2.0);
  CHECK(ms[0] > ms[1]);
  // The session ends with the run.
  CHECK(profile::active() == nullptr);

  // Through the C ABI.
  tcc_model *c = new tcc_model(std::make_unique<Model>(manifest(true), nullptr, 0, &markedForward));
  REQUIRE(tcc_model_set_profiling(c, 1) == TCC_OK);
  runOnce(*c->model);
  double total[2] = {};
  int64_t count[2] = {};
  int32_t n = 0;
  int64_t runs = 0;
  REQUIRE(tcc_model_profile(c, total, count, 2, &n, &runs) == TCC_OK);
  CHECK(n == 2);
  CHECK(runs == 1);
  CHECK(count[0] == 1);
  CHECK(total[0] >= 20.0);
  REQUIRE(tcc_model_reset_profile(c) == TCC_OK);
  REQUIRE(tcc_model_profile(c, total, count, 2, &n, &runs) == TCC_OK);
  CHECK(runs == 0);
  CHECK(count[0] == 0);
  // Off again: CUDA graphs back as they were.
  REQUIRE(tcc_model_set_profiling(c, 0) == TCC_OK);
  CHECK(c->model->cudaGraphs());
  tcc_model_destroy(c);
}

TEST_CASE("Profiling an artifact without marks is refused", "[runtime][profile]") {
  Model m(manifest(false), nullptr, 0, &markedForward);
  try {
    m.setProfiling(true);
    FAIL("expected a RuntimeError");
  } catch (const RuntimeError &e) {
    CHECK(e.status() == TCC_ERROR_UNSUPPORTED);
    CHECK(std::string(e.what()).find("compile it with tcc compile --profile") !=
          std::string::npos);
  }
  CHECK(!m.profiling());
}
