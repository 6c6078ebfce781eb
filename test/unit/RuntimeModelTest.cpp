//===- RuntimeModelTest.cpp - Model, packed descriptors, weights, C ABI ---===//
//
// A hand-written forward function stands in for compiled code: it records the
// packed words it receives and computes out = x + 1 (+ bias[0] when bound)
// from the descriptors alone, which checks the calling convention of
// docs/ARTIFACT.md exactly.
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
#include <tuple>

#include <unistd.h>

using namespace tcc;

namespace {

/// Input x [s0, 4], weights w [2, 4] (embedded) and bias [4] (external),
/// output y [s0, 4], arena 256 bytes.
const char *kManifest = R"json({
  "format": "tcc-guard-manifest", "version": 1, "model": "add_one",
  "symbols": { "s0": { "min": 1, "max": 16 } },
  "inputs":  [ { "name": "x", "dtype": "float32", "device": "cpu", "sizes": ["s0", 4] } ],
  "outputs": [ { "name": "y", "dtype": "float32", "sizes": ["s0", 4] } ],
  "weights": [ { "name": "w", "kind": "parameter", "dtype": "float32",
                 "sizes": [2, 4], "offset": 0, "bytes": 32, "embedded": true },
               { "name": "bias", "kind": "buffer", "dtype": "float32",
                 "sizes": [4], "offset": 64, "bytes": 16, "embedded": false } ],
  "arena":   { "bytes": 256 },
  "entry":   { "symbol": "tcc_model_forward",
               "args": [ { "role": "input",  "index": 0, "rank": 2 },
                         { "role": "weight", "index": 0, "rank": 2 },
                         { "role": "weight", "index": 1, "rank": 1 },
                         { "role": "output", "index": 0, "rank": 2 },
                         { "role": "arena",  "index": 0, "rank": 1 } ] }
})json";

constexpr size_t kPackedWords = 7 + 7 + 5 + 7 + 5;
thread_local std::vector<int64_t> recorded;

template <typename T> T *pointer(int64_t word) {
  return reinterpret_cast<T *>(static_cast<intptr_t>(word));
}

/// y[i, j] = x[i, j] + 1 + bias[j], through the descriptors' strides.
void addOneForward(int64_t *packed) {
  recorded.assign(packed, packed + kPackedWords);
  const int64_t *x = packed, *bias = packed + 14, *y = packed + 19, *arena = packed + 26;
  auto *xData = pointer<const float>(x[1]) + x[2];
  auto *bData = pointer<const float>(bias[1]) + bias[2];
  auto *yData = pointer<float>(y[1]) + y[2];
  for (int64_t i = 0; i < y[3]; ++i)
    for (int64_t j = 0; j < y[4]; ++j)
      yData[i * y[5] + j * y[6]] = xData[i * x[5] + j * x[6]] + 1.0f + bData[j * bias[4]];
  // The arena is scratch: prove it is writable over its whole length.
  std::memset(pointer<uint8_t>(arena[1]), 0xab, static_cast<size_t>(arena[3]));
}

/// The embedded weights image: w at 0, bias (not embedded) would be at 64.
alignas(64) const float kWeightsImage[16] = {1, 2, 3, 4, 5, 6, 7, 8};

struct Tensor {
  std::vector<int64_t> sizes;
  std::vector<float> data;
  explicit Tensor(std::vector<int64_t> s) : sizes(std::move(s)) {
    int64_t n = 1;
    for (int64_t d : sizes)
      n *= d;
    data.resize(static_cast<size_t>(n));
  }
  tcc_tensor view() {
    return {data.data(), TCC_DTYPE_FLOAT32, TCC_DEVICE_CPU,
            static_cast<int32_t>(sizes.size()), sizes.data()};
  }
};

std::unique_ptr<Model> makeModel() {
  return std::make_unique<Model>(kManifest, reinterpret_cast<const uint8_t *>(kWeightsImage),
                                 sizeof(kWeightsImage), &addOneForward);
}

template <typename Fn> std::pair<tcc_status, std::string> failure(Fn fn) {
  try {
    fn();
  } catch (const RuntimeError &e) {
    return {e.status(), e.what()};
  }
  return {TCC_OK, ""};
}

} // namespace

TEST_CASE("Model packs memref descriptors as docs/ARTIFACT.md says", "[runtime]") {
  auto model = makeModel();
  float bias[4] = {0, 10, 20, 30};
  model->bindWeight("bias", bias, sizeof(bias));

  Tensor x({3, 4}), y({3, 4});
  for (size_t i = 0; i < x.data.size(); ++i)
    x.data[i] = static_cast<float>(i);
  tcc_tensor in = x.view(), out = y.view();
  model->run(&in, 1, &out, 1);

  REQUIRE(recorded.size() == kPackedWords);
  auto word = [](const void *p) { return static_cast<int64_t>(reinterpret_cast<intptr_t>(p)); };
  // x: allocated, aligned, offset, sizes, strides.
  CHECK(recorded[0] == word(x.data.data()));
  CHECK(recorded[1] == word(x.data.data()));
  CHECK(std::vector<int64_t>(recorded.begin() + 2, recorded.begin() + 7) ==
        std::vector<int64_t>{0, 3, 4, 4, 1});
  // w: embedded, inside the image at its offset.
  CHECK(recorded[7] == word(kWeightsImage));
  CHECK(recorded[8] == word(kWeightsImage));
  CHECK(std::vector<int64_t>(recorded.begin() + 9, recorded.begin() + 14) ==
        std::vector<int64_t>{0, 2, 4, 4, 1});
  // bias: the caller's pointer, not a copy.
  CHECK(recorded[14] == word(bias));
  CHECK(std::vector<int64_t>(recorded.begin() + 16, recorded.begin() + 19) ==
        std::vector<int64_t>{0, 4, 1});
  // y
  CHECK(recorded[19] == word(y.data.data()));
  CHECK(std::vector<int64_t>(recorded.begin() + 21, recorded.begin() + 26) ==
        std::vector<int64_t>{0, 3, 4, 4, 1});
  // arena: rank 1, i8, manifest bytes, 64-byte aligned, owned by the model.
  CHECK(recorded[26] == word(model->arenaData()));
  CHECK(recorded[27] % 64 == 0);
  CHECK(std::vector<int64_t>(recorded.begin() + 28, recorded.end()) ==
        std::vector<int64_t>{0, 256, 1});
  CHECK(model->arenaBytes() == 256);

  for (size_t i = 0; i < y.data.size(); ++i)
    CHECK(y.data[i] == x.data[i] + 1.0f + bias[i % 4]);
}

TEST_CASE("Model arenas are allocated once per instance", "[runtime]") {
  auto a = makeModel(), b = makeModel();
  CHECK(a->arenaData() != b->arenaData());
  CHECK(reinterpret_cast<uintptr_t>(a->arenaData()) % kRuntimeAlignment == 0);
  float bias[4] = {};
  a->bindWeight("bias", bias, sizeof(bias));
  const uint8_t *arena = a->arenaData();
  Tensor x({2, 4}), y({2, 4});
  tcc_tensor in = x.view(), out = y.view();
  a->run(&in, 1, &out, 1);
  a->run(&in, 1, &out, 1);
  CHECK(a->arenaData() == arena);
}

TEST_CASE("Model binds weights by name and checks their size", "[runtime]") {
  auto model = makeModel();
  float bias[4] = {};
  auto wrongSize = failure([&] { model->bindWeight("bias", bias, 12); });
  CHECK(wrongSize.first == TCC_ERROR_INVALID_ARGUMENT);
  CHECK(wrongSize.second == "weight 'bias': expected 16 bytes (float32 [4]), got 12");
  auto unknown = failure([&] { model->bindWeight("lin.weight", bias, 16); });
  CHECK(unknown.second == "model 'add_one' has no weight named 'lin.weight'");

  // The external weight is missing until bound.
  Tensor x({2, 4}), y({2, 4});
  tcc_tensor in = x.view(), out = y.view();
  auto missing = failure([&] { model->run(&in, 1, &out, 1); });
  CHECK(missing.first == TCC_ERROR_MISSING_WEIGHT);
  CHECK(missing.second == "weight 'bias' (#1) is not embedded and was never bound "
                          "(tcc_model_bind_weight or tcc_model_load_weights)");

  // Replacing an embedded weight keeps the caller's pointer.
  float w[8] = {};
  model->bindWeight("w", w, sizeof(w));
  CHECK(model->weightData(0) == w);
  model->bindWeight("bias", bias, sizeof(bias));
  CHECK(model->weightData(1) == bias);
  model->run(&in, 1, &out, 1);
}

TEST_CASE("Model loads a weights file at manifest offsets", "[runtime]") {
  auto path = std::filesystem::temp_directory_path() /
              ("tcc-weights-test-" + std::to_string(::getpid()) + ".bin");
  float image[20] = {};
  for (int i = 0; i < 8; ++i)
    image[i] = 100.0f + i; // w at offset 0
  for (int i = 0; i < 4; ++i)
    image[16 + i] = 0.5f * i; // bias at offset 64
  writeWeightsFile(path, image, sizeof(image));
  auto model = makeModel();
  model->loadWeightsFile(path.string());
  const auto *w = static_cast<const float *>(model->weightData(0));
  const auto *bias = static_cast<const float *>(model->weightData(1));
  CHECK(reinterpret_cast<uintptr_t>(w) % kRuntimeAlignment == 0);
  CHECK(w[7] == 107.0f);
  CHECK(bias[3] == 1.5f);

  writeWeightsFile(path, image, 70);
  auto shortFile = failure([&] { makeModel()->loadWeightsFile(path.string()); });
  CHECK(shortFile.first == TCC_ERROR_IO);
  CHECK(shortFile.second ==
        path.string() + ": weights file has 70 bytes of weights, the manifest needs 80");
  // Bytes appended after the image, a changed byte, no header at all.
  writeWeightsFile(path, image, sizeof(image));
  {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << "garbage";
  }
  CHECK(failure([&] { makeModel()->loadWeightsFile(path.string()); }).second ==
        path.string() + ": 87 bytes follow its header, which says 80 (damaged, or bytes appended)");
  writeWeightsFile(path, image, sizeof(image));
  {
    std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(64 + 5);
    f.put('\x7f');
  }
  CHECK(failure([&] { makeModel()->loadWeightsFile(path.string()); }).second ==
        path.string() + ": damaged: its weights do not match the hash in its header");
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char *>(image), sizeof(image));
  }
  CHECK(failure([&] { makeModel()->loadWeightsFile(path.string()); }).second.find(
            "not a tcc weights file") != std::string::npos);
  std::filesystem::remove(path);
  CHECK(failure([&] { makeModel()->loadWeightsFile(path.string()); }).second ==
        path.string() + ": cannot open weights file");
}

TEST_CASE("Model refuses outputs of the wrong size and guards the inputs", "[runtime]") {
  auto model = makeModel();
  float bias[4] = {};
  model->bindWeight("bias", bias, sizeof(bias));
  Tensor x({2, 4}), y({3, 4}), big({17, 4});
  tcc_tensor in = x.view(), out = y.view();
  auto wrongOut = failure([&] { model->run(&in, 1, &out, 1); });
  CHECK(wrongOut.first == TCC_ERROR_INVALID_ARGUMENT);
  CHECK(wrongOut.second == "output 'y' (#0): expected sizes [2, 4], got [3, 4]");
  tcc_tensor tooBig = big.view();
  auto guard = failure([&] { model->run(&tooBig, 1, &out, 1); });
  CHECK(guard.first == TCC_ERROR_GUARD_VIOLATION);
  CHECK(guard.second == "input 'x' (#0) dimension 0: expected s0 in [1, 16], got 17");
  CHECK(model->outputSizes(&in, 1) == std::vector<std::vector<int64_t>>{{2, 4}});
  CHECK(failure([&] { model->run(&in, 1, &out, 0); }).second == "expected 1 output(s), got 0");
}

TEST_CASE("Model rejects embedded weights outside the image", "[runtime]") {
  auto bad = failure([] {
    Model(kManifest, reinterpret_cast<const uint8_t *>(kWeightsImage), 16, &addOneForward);
  });
  CHECK(bad.first == TCC_ERROR_INVALID_MANIFEST);
  CHECK(bad.second == "invalid guard manifest: embedded weight 'w' lies outside the 16-byte "
                      "weights image");
}

TEST_CASE("Model instances run concurrently on separate threads", "[runtime]") {
  auto runMany = [](float offset, bool *ok) {
    auto model = makeModel();
    float bias[4] = {offset, offset, offset, offset};
    model->bindWeight("bias", bias, sizeof(bias));
    Tensor x({16, 4}), y({16, 4});
    tcc_tensor in = x.view(), out = y.view();
    *ok = true;
    for (int iter = 0; iter < 200; ++iter) {
      model->run(&in, 1, &out, 1);
      *ok &= y.data[63] == 1.0f + offset;
    }
  };
  bool ok1 = false, ok2 = false;
  std::thread t1(runMany, 1.0f, &ok1), t2(runMany, 2.0f, &ok2);
  t1.join();
  t2.join();
  CHECK(ok1);
  CHECK(ok2);
}

TEST_CASE("C ABI wraps a Model: queries, run, status and last error", "[runtime]") {
  tcc_model *m = new tcc_model(makeModel());
  CHECK(std::string(tcc_model_name(m)) == "add_one");
  CHECK(tcc_model_num_inputs(m) == 1);
  CHECK(tcc_model_num_outputs(m) == 1);
  CHECK(tcc_model_num_weights(m) == 2);
  CHECK(tcc_model_num_symbols(m) == 1);
  CHECK(tcc_model_arena_bytes(m) == 256);
  size_t size = 0;
  CHECK(std::string(tcc_model_manifest(m, &size)) == kManifest);
  CHECK(size == std::strlen(kManifest));

  tcc_tensor_info info;
  REQUIRE(tcc_model_input_info(m, 0, &info) == TCC_OK);
  CHECK(std::string(info.name) == "x");
  CHECK(info.dtype == TCC_DTYPE_FLOAT32);
  CHECK(info.rank == 2);
  CHECK(info.sizes[0] == -1);
  CHECK(info.sizes[1] == 4);
  CHECK(std::string(info.size_exprs[0]) == "s0");
  CHECK(std::string(info.size_exprs[1]) == "4");
  CHECK(info.bytes == -1);
  REQUIRE(tcc_model_weight_info(m, 1, &info) == TCC_OK);
  CHECK(std::string(info.name) == "bias");
  CHECK(info.bytes == 16);
  CHECK(info.embedded == 0);
  CHECK(tcc_model_output_info(m, 1, &info) == TCC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(tcc_last_error()) == "output index 1 out of range (model 'add_one' has 1)");
  const char *name;
  int64_t lo, hi;
  REQUIRE(tcc_model_symbol_info(m, 0, &name, &lo, &hi) == TCC_OK);
  CHECK(std::string(name) == "s0");
  CHECK(lo == 1);
  CHECK(hi == 16);

  Tensor x({5, 4}), y({5, 4}), wide({5, 5});
  tcc_tensor in = x.view();
  int64_t outSizes[2] = {};
  int64_t *outSizePtrs[1] = {outSizes};
  REQUIRE(tcc_model_output_sizes(m, &in, 1, outSizePtrs, 1) == TCC_OK);
  CHECK(outSizes[0] == 5);
  CHECK(outSizes[1] == 4);

  tcc_tensor out = y.view();
  CHECK(tcc_model_run(m, &in, 1, &out, 1) == TCC_ERROR_MISSING_WEIGHT);
  float bias[4] = {};
  CHECK(tcc_model_bind_weight(m, "bias", bias, 15) == TCC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(tcc_last_error()) == "weight 'bias': expected 16 bytes (float32 [4]), got 15");
  REQUIRE(tcc_model_bind_weight(m, "bias", bias, sizeof(bias)) == TCC_OK);
  REQUIRE(tcc_model_run(m, &in, 1, &out, 1) == TCC_OK);
  CHECK(y.data[0] == 1.0f);

  tcc_tensor bad = wide.view();
  CHECK(tcc_model_run(m, &bad, 1, &out, 1) == TCC_ERROR_GUARD_VIOLATION);
  CHECK(std::string(tcc_last_error()) == "input 'x' (#0) dimension 1: expected 4, got 5");
  CHECK(tcc_model_run(nullptr, &in, 1, &out, 1) == TCC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(tcc_last_error()) == "model is NULL");
  CHECK(tcc_model_load_weights(m, "/nonexistent/w.bin") == TCC_ERROR_IO);

  CHECK(std::string(tcc_status_string(TCC_ERROR_GUARD_VIOLATION)) == "guard violation");
  CHECK(std::string(tcc_dtype_name(TCC_DTYPE_BFLOAT16)) == "bfloat16");
  CHECK(tcc_dtype_size(TCC_DTYPE_INT64) == 8);
  CHECK(static_cast<int>(DType::Bool) == TCC_DTYPE_BOOL);
  tcc_model_destroy(m);
}

namespace {
/// kManifest with a static variant for s0 = 2 (arena 64 bytes) and one for
/// s0 = 8 whose arena (512) is larger than the generic one's.
std::string specializedManifest() {
  std::string json = kManifest;
  json.insert(json.rfind('}'), R"json(,
  "specializations": [
    { "name": "generic", "symbols": { "s0": [1, 16] } },
    { "name": "s0=2", "symbols": { "s0": [2, 2] }, "arena": { "bytes": 64 } },
    { "name": "s0=8", "symbols": { "s0": [8, 8] }, "arena": { "bytes": 512 } } ]
)json");
  return json;
}

/// Which entry ran and the arena length it was given.
thread_local int ranEntry = -1;
thread_local int64_t ranArenaBytes = -1;
template <int Entry> void recordingForward(int64_t *packed) {
  ranEntry = Entry;
  ranArenaBytes = packed[26 + 3];
  addOneForward(packed);
}
} // namespace

TEST_CASE("Model runs the specialization the input sizes select", "[runtime][specialize]") {
  Model model(specializedManifest(), reinterpret_cast<const uint8_t *>(kWeightsImage),
              sizeof(kWeightsImage),
              {{&recordingForward<0>, nullptr}, {&recordingForward<1>, nullptr},
               {&recordingForward<2>, nullptr}});
  float bias[4] = {};
  model.bindWeight("bias", bias, sizeof(bias));
  // One arena for all, as large as the largest variant needs.
  CHECK(model.arenaBytes() == 512);
  CHECK(model.lastSpecialization() == -1);
  for (auto [batch, entry, arena] : {std::tuple<int64_t, int, int64_t>{2, 1, 64}, {8, 2, 512},
                                     {3, 0, 256}}) {
    Tensor x({batch, 4}), y({batch, 4});
    tcc_tensor in = x.view(), out = y.view();
    model.run(&in, 1, &out, 1);
    CHECK(ranEntry == entry);
    CHECK(ranArenaBytes == arena);
    CHECK(model.lastSpecialization() == entry);
    CHECK(y.data[0] == 1.0f);
  }
  // Forced onto the generic variant (what TCC_SPECIALIZATION=generic does).
  model.setSpecializations(false);
  Tensor x({2, 4}), y({2, 4});
  tcc_tensor in = x.view(), out = y.view();
  model.run(&in, 1, &out, 1);
  CHECK(ranEntry == 0);
  CHECK(ranArenaBytes == 256);
}

TEST_CASE("Model refuses entries that do not match the specializations",
          "[runtime][specialize]") {
  auto image = reinterpret_cast<const uint8_t *>(kWeightsImage);
  auto [status, message] = failure([&] {
    Model(specializedManifest(), image, sizeof(kWeightsImage), &addOneForward);
  });
  CHECK(status == TCC_ERROR_INVALID_MANIFEST);
  CHECK(message == "invalid guard manifest: it lists 3 specialization(s), the model object has "
                   "entries for 1");
  auto [status2, message2] = failure([&] {
    Model(specializedManifest(), image, sizeof(kWeightsImage),
          {{&addOneForward, nullptr}, {nullptr, nullptr}, {&addOneForward, nullptr}});
  });
  CHECK(status2 == TCC_ERROR_INVALID_MANIFEST);
  CHECK(message2 == "specialization 's0=2' lacks a path the generic variant has");
}

namespace {

/// A complex64 input z [3] and output w [3]: the compiled code sees both as
/// float32 [3, 2], the (re, im) pairs a last dim of 2 (docs/ARTIFACT.md).
const char *kComplexManifest = R"json({
  "format": "tcc-guard-manifest", "version": 1, "model": "conj",
  "inputs":  [ { "name": "z", "dtype": "complex64", "device": "cpu", "sizes": [3] } ],
  "outputs": [ { "name": "w", "dtype": "complex64", "sizes": [3] } ],
  "weights": [], "arena": { "bytes": 64 },
  "entry":   { "symbol": "tcc_model_forward",
               "args": [ { "role": "input",  "index": 0, "rank": 2 },
                         { "role": "output", "index": 0, "rank": 2 },
                         { "role": "arena",  "index": 0, "rank": 1 } ] }
})json";

constexpr size_t kComplexWords = 7 + 7 + 5;
thread_local std::vector<int64_t> complexRecorded;

/// w = conj(z), through the descriptors' sizes and strides.
void conjForward(int64_t *packed) {
  complexRecorded.assign(packed, packed + kComplexWords);
  const int64_t *z = packed, *w = packed + 7;
  auto *zData = pointer<const float>(z[1]);
  auto *wData = pointer<float>(w[1]);
  for (int64_t i = 0; i < w[3]; ++i) {
    wData[i * w[5]] = zData[i * z[5]];
    wData[i * w[5] + w[6]] = -zData[i * z[5] + z[6]];
  }
}

} // namespace

TEST_CASE("Model passes complex tensors as (re, im) pairs in a last dim of 2", "[runtime]") {
  Model model(kComplexManifest, nullptr, 0, &conjForward);
  float z[6] = {1, 2, 3, -4, 0, 5}, w[6] = {};
  int64_t sizes[1] = {3};
  tcc_tensor in = {z, TCC_DTYPE_COMPLEX64, TCC_DEVICE_CPU, 1, sizes};
  tcc_tensor out = {w, TCC_DTYPE_COMPLEX64, TCC_DEVICE_CPU, 1, sizes};
  model.run(&in, 1, &out, 1);
  REQUIRE(complexRecorded.size() == kComplexWords);
  // z: offset 0, sizes [3, 2], strides [2, 1].
  CHECK(std::vector<int64_t>(complexRecorded.begin() + 2, complexRecorded.begin() + 7) ==
        std::vector<int64_t>{0, 3, 2, 2, 1});
  CHECK(std::vector<int64_t>(complexRecorded.begin() + 9, complexRecorded.begin() + 14) ==
        std::vector<int64_t>{0, 3, 2, 2, 1});
  CHECK(std::vector<float>(w, w + 6) == std::vector<float>{1, -2, 3, 4, 0, -5});
  CHECK(tcc_dtype_size(TCC_DTYPE_COMPLEX64) == 8);
  CHECK(std::string(tcc_dtype_name(TCC_DTYPE_COMPLEX128)) == "complex128");

  // A float32 tensor where the manifest says complex64 is a guard violation.
  tcc_tensor real = {z, TCC_DTYPE_FLOAT32, TCC_DEVICE_CPU, 1, sizes};
  auto [status, message] = failure([&] { model.run(&real, 1, &out, 1); });
  CHECK(status == TCC_ERROR_GUARD_VIOLATION);

  // The entry's rank counts the pair dim: 1 is not the compiled code's.
  std::string wrongRank = kComplexManifest;
  wrongRank.replace(wrongRank.find("\"rank\": 2"), 9, "\"rank\": 1");
  auto [status2, message2] = failure([&] { Model(wrongRank, nullptr, 0, &conjForward); });
  CHECK(status2 == TCC_ERROR_INVALID_MANIFEST);
  CHECK(message2 == "invalid guard manifest: entry argument input #0 has rank 1, expected 2");
}
