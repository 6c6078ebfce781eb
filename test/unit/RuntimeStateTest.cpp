//===- RuntimeStateTest.cpp - state a model instance carries between runs -===//
//
// A hand-written forward stands in for compiled code that writes its buffer
// in place, as tcc-bufferize makes it: total += x; y = total. The state must
// start at its value in the weights image, persist from call to call, be
// readable, writable and resettable through Model and the C ABI, and stay
// per instance.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/Model.h"
#include "tcc/Runtime/RuntimeError.h"
#include "tcc/runtime.h"

#include "TestWeightsFile.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <unistd.h>

using namespace tcc;

namespace {

/// Input x [3], state total [3] (initial value at offset 64 of the image),
/// weight scale [3] at offset 0, output y [3] = total after total += scale*x.
const char *kStateManifest = R"json({
  "format": "tcc-guard-manifest", "version": 1, "model": "running_sum",
  "inputs":  [ { "name": "x", "dtype": "float32", "device": "cpu", "sizes": [3] } ],
  "outputs": [ { "name": "y", "dtype": "float32", "sizes": [3] } ],
  "weights": [ { "name": "scale", "kind": "parameter", "dtype": "float32",
                 "sizes": [3], "offset": 0, "bytes": 12, "embedded": true } ],
  "states":  [ { "name": "total", "kind": "buffer", "dtype": "float32",
                 "sizes": [3], "offset": 64, "bytes": 12, "embedded": true } ],
  "arena":   { "bytes": 0 },
  "entry":   { "symbol": "tcc_model_forward",
               "args": [ { "role": "input",  "index": 0, "rank": 1 },
                         { "role": "weight", "index": 0, "rank": 1 },
                         { "role": "state",  "index": 0, "rank": 1 },
                         { "role": "output", "index": 0, "rank": 1 },
                         { "role": "arena",  "index": 0, "rank": 1 } ] }
})json";

template <typename T> T *pointer(int64_t word) {
  return reinterpret_cast<T *>(static_cast<intptr_t>(word));
}

/// total += scale * x (in place, in the state's descriptor); y = total.
void accumulateForward(int64_t *packed) {
  const int64_t *x = packed, *scale = packed + 5, *total = packed + 10, *y = packed + 15;
  auto *xd = pointer<const float>(x[1]);
  auto *sd = pointer<const float>(scale[1]);
  auto *td = pointer<float>(total[1]);
  auto *yd = pointer<float>(y[1]);
  for (int64_t i = 0; i < total[3]; ++i) {
    td[i] += sd[i] * xd[i];
    yd[i] = td[i];
  }
}

/// scale = (1, 2, 3) at 0; the state's initial value (10, 20, 30) at 64.
alignas(64) const float kImage[32] = {1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                      10, 20, 30};

std::unique_ptr<Model> makeModel() {
  return std::make_unique<Model>(kStateManifest, reinterpret_cast<const uint8_t *>(kImage),
                                 sizeof(kImage), &accumulateForward);
}

std::vector<float> call(Model &m, std::vector<float> x) {
  static const int64_t sizes[1] = {3};
  std::vector<float> y(3);
  tcc_tensor in{x.data(), TCC_DTYPE_FLOAT32, TCC_DEVICE_CPU, 1, sizes};
  tcc_tensor out{y.data(), TCC_DTYPE_FLOAT32, TCC_DEVICE_CPU, 1, sizes};
  m.run(&in, 1, &out, 1);
  return y;
}

std::vector<float> state(Model &m) {
  std::vector<float> s(3);
  m.readState(0, s.data(), TCC_DEVICE_CPU, 12);
  return s;
}

} // namespace

TEST_CASE("State starts at its exported value and persists from call to call",
          "[runtime][state]") {
  auto m = makeModel();
  REQUIRE(m->manifest().states.size() == 1);
  CHECK(state(*m) == std::vector<float>{10, 20, 30});
  CHECK(call(*m, {1, 1, 1}) == std::vector<float>{11, 22, 33});
  CHECK(call(*m, {1, 1, 1}) == std::vector<float>{12, 24, 36});
  CHECK(call(*m, {-2, 0, 1}) == std::vector<float>{10, 24, 39});
  CHECK(state(*m) == std::vector<float>{10, 24, 39});
}

TEST_CASE("State is reset, written and read per instance", "[runtime][state]") {
  auto a = makeModel(), b = makeModel();
  call(*a, {1, 1, 1});
  call(*a, {1, 1, 1});
  // Another instance of the same model has its own state.
  CHECK(call(*b, {1, 0, 0}) == std::vector<float>{11, 20, 30});
  a->resetState();
  CHECK(state(*a) == std::vector<float>{10, 20, 30});
  const float written[3] = {0, 0, 100};
  a->writeState(0, written, TCC_DEVICE_CPU, sizeof(written));
  CHECK(call(*a, {1, 1, 1}) == std::vector<float>{1, 2, 103});
  // The embedded initial value is untouched by the runs and the write.
  a->resetState();
  CHECK(state(*a) == std::vector<float>{10, 20, 30});
  CHECK(state(*b) == std::vector<float>{11, 20, 30});
}

TEST_CASE("State copies are checked", "[runtime][state]") {
  auto m = makeModel();
  float buffer[4] = {};
  CHECK_THROWS_WITH(m->readState(0, buffer, TCC_DEVICE_CPU, 16),
                    Catch::Contains("state 'total': expected 12 bytes (float32 [3]), got 16"));
  CHECK_THROWS_WITH(m->readState(1, buffer, TCC_DEVICE_CPU, 12),
                    Catch::Contains("has 1 state(s), no #1"));
  CHECK_THROWS_WITH(m->writeState(0, nullptr, TCC_DEVICE_CPU, 12),
                    Catch::Contains("the source is NULL"));
  CHECK_THROWS_WITH(m->readState(0, buffer, 7, 12), Catch::Contains("unknown device code 7"));
}

TEST_CASE("A weights file carries the state's initial value", "[runtime][state]") {
  // --external-weights: nothing embedded; the state starts at zeros until
  // the file gives its initial value.
  std::string manifest = kStateManifest;
  for (std::string from : {"\"embedded\": true }", "\"embedded\": true }"})
    manifest.replace(manifest.find(from), from.size(), "\"embedded\": false }");
  Model m(manifest, nullptr, 0, &accumulateForward);
  CHECK(state(m) == std::vector<float>{0, 0, 0});
  auto path = std::filesystem::temp_directory_path() /
              ("tcc-state-test-" + std::to_string(getpid()) + ".bin");
  float image[19] = {1, 2, 3};
  image[16] = 5, image[17] = 6, image[18] = 7;
  writeWeightsFile(path, image, sizeof(image));
  m.loadWeightsFile(path.string());
  CHECK(state(m) == std::vector<float>{5, 6, 7});
  CHECK(call(m, {1, 1, 1}) == std::vector<float>{6, 8, 10});
  // A file too short for the state is refused.
  writeWeightsFile(path, image, 70);
  CHECK_THROWS_WITH(m.loadWeightsFile(path.string()),
                    Catch::Contains("the manifest needs 76"));
  std::filesystem::remove(path);
}

TEST_CASE("A manifest's state is validated", "[runtime][state]") {
  std::string manifest = kStateManifest;
  std::string bytes = "\"offset\": 64, \"bytes\": 12";
  manifest.replace(manifest.find(bytes), bytes.size(), "\"offset\": 64, \"bytes\": 16");
  CHECK_THROWS_WITH(Model(manifest, reinterpret_cast<const uint8_t *>(kImage), sizeof(kImage),
                          &accumulateForward),
                    Catch::Contains("16 bytes do not match float32 [3]"));
  // An initial value outside the image.
  CHECK_THROWS_WITH(
      Model(kStateManifest, reinterpret_cast<const uint8_t *>(kImage), 70, &accumulateForward),
      Catch::Contains("state 'total' lies outside the 70-byte weights image"));
}

TEST_CASE("The C ABI reads, writes and resets state", "[runtime][state]") {
  tcc_model handle(makeModel());
  tcc_model *m = &handle;
  CHECK(tcc_model_num_states(m) == 1);
  tcc_tensor_info info;
  REQUIRE(tcc_model_state_info(m, 0, &info) == TCC_OK);
  CHECK(std::string(info.name) == "total");
  CHECK(info.bytes == 12);
  CHECK(info.embedded == 1);
  CHECK(tcc_model_state_info(m, 1, &info) == TCC_ERROR_INVALID_ARGUMENT);
  call(*handle.model, {1, 1, 1});
  float s[3];
  REQUIRE(tcc_model_read_state(m, 0, s, TCC_DEVICE_CPU, sizeof(s)) == TCC_OK);
  CHECK(s[2] == 33);
  const float zeros[3] = {};
  REQUIRE(tcc_model_write_state(m, 0, zeros, TCC_DEVICE_CPU, sizeof(zeros)) == TCC_OK);
  REQUIRE(tcc_model_read_state(m, 0, s, TCC_DEVICE_CPU, sizeof(s)) == TCC_OK);
  CHECK(s[0] == 0);
  REQUIRE(tcc_model_reset_state(m) == TCC_OK);
  REQUIRE(tcc_model_read_state(m, 0, s, TCC_DEVICE_CPU, sizeof(s)) == TCC_OK);
  CHECK(s[1] == 20);
  CHECK(tcc_model_read_state(m, -1, s, TCC_DEVICE_CPU, sizeof(s)) == TCC_ERROR_INVALID_ARGUMENT);
  CHECK(tcc_model_read_state(m, 0, s, TCC_DEVICE_CPU, 4) == TCC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(tcc_last_error()).find("expected 12 bytes") != std::string::npos);
  CHECK(tcc_model_num_states(nullptr) == -1);
  CHECK(tcc_model_reset_state(nullptr) == TCC_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("Runs on one instance from several threads keep every update",
          "[runtime][state]") {
  auto m = makeModel();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 250; ++i)
        call(*m, {1, 1, 1});
    });
  for (std::thread &t : threads)
    t.join();
  // 1000 serialized runs, none lost.
  CHECK(state(*m) == std::vector<float>{1010, 2020, 3030});
}

TEST_CASE("A state bound to the caller's memory is written there in place", "[runtime][state]") {
  auto m = makeModel();
  std::vector<float> mine = {100, 200, 300};
  m->bindState(0, mine.data(), TCC_DEVICE_CPU, 12);
  CHECK(call(*m, {1, 1, 1}) == std::vector<float>{101, 202, 303});
  CHECK(mine == std::vector<float>{101, 202, 303});
  CHECK(state(*m) == mine);
  // Reset writes the initial value into the caller's memory.
  m->resetState();
  CHECK(mine == std::vector<float>{10, 20, 30});
  call(*m, {1, 0, 0});
  // Unbound: the instance's memory takes the value the binding held.
  m->bindState(0, nullptr, TCC_DEVICE_CPU, 12);
  mine.assign(3, -1.0f);
  CHECK(call(*m, {1, 1, 1}) == std::vector<float>{12, 22, 33});
  // Memory of the other path: a CPU run is refused by name.
  float fake[3];
  m->bindState(0, fake, TCC_DEVICE_CUDA, 12);
  CHECK_THROWS_WITH(call(*m, {1, 1, 1}),
                    Catch::Contains("state 'total' is bound to device memory; a CPU run needs it "
                                    "in host memory"));
  CHECK_THROWS_WITH(m->bindState(0, mine.data(), TCC_DEVICE_CPU, 8),
                    Catch::Contains("expected 12 bytes"));
}
