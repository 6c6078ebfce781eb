//===- FrontendTestPayloads.cpp - weight and constant bytes of a .pt2 -----===//
#include "FrontendTestSupport.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace tcc;
using namespace tcc::frontend;
using namespace tcc::frontend::test;
using Json = nlohmann::json;

namespace {

const char *kWeightsConfig = "model/data/weights/model_weights_config.json";

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

std::string floatBytes(const std::vector<float> &values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<float> asFloats(const std::vector<uint8_t> &bytes) {
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

Json sizesJson(std::initializer_list<int64_t> values) {
  Json list = Json::array();
  for (int64_t v : values)
    list.push_back({{"as_int", v}});
  return list;
}

} // namespace

TEST_CASE("a missing weight entry names the entry and the weight",
          "[frontend]") {
  TempDir dir;
  std::string path = editedArchive(dir, [](ZipEntries &entries) {
    removeEntry(entries, "model/data/weights/weight_0");
  });
  std::string e = readError(path);
  CHECK(contains(e, path));
  CHECK(contains(e, "weight 'lin.weight'"));
  CHECK(contains(e, "archive has no entry 'model/data/weights/weight_0'"));
}

TEST_CASE("a weight whose bytes do not fit its metadata", "[frontend]") {
  TempDir dir;
  std::string path = editedArchive(dir, [](ZipEntries &entries) {
    entry(entries, "model/data/weights/weight_0").resize(3996);
  });
  std::string e = readError(path);
  CHECK(contains(e, "weight 'lin.weight'"));
  CHECK(contains(e, "needs 4000 bytes"));
  CHECK(contains(e, "holds 3996"));
  CHECK(contains(e, "[10, 100] float32"));
}

TEST_CASE("pickled weights are rejected", "[frontend]") {
  TempDir dir;
  std::string path = editedArchive(dir, [](ZipEntries &entries) {
    editJsonEntry(entries, kWeightsConfig, [](Json &config) {
      config["config"]["lin.weight"]["use_pickle"] = true;
    });
  });
  std::string e = readError(path);
  CHECK(contains(e, kWeightsConfig));
  CHECK(contains(e, "'lin.weight'"));
  CHECK(contains(e, "pickled weights are not supported"));
}

TEST_CASE("a parameter without data, or with other metadata than the graph",
          "[frontend]") {
  TempDir dir;
  std::string path = editedArchive(dir, [](ZipEntries &entries) {
    editJsonEntry(entries, kWeightsConfig,
                  [](Json &config) { config["config"].erase("lin.bias"); });
  });
  std::string e = readError(path);
  CHECK(contains(e, "parameter 'lin.bias' (graph input 'p_lin_bias') has no "
                    "data"));
  CHECK(contains(e, kWeightsConfig));

  path = editedArchive(dir, [](ZipEntries &entries) {
    removeEntry(entries, kWeightsConfig);
  });
  e = readError(path);
  CHECK(contains(e, "archive has no entry '" + std::string(kWeightsConfig) + "'"));

  path = editedArchive(dir, [](ZipEntries &entries) {
    editJsonEntry(entries, kWeightsConfig, [](Json &config) {
      config["config"]["lin.bias"]["tensor_meta"]["sizes"] = sizesJson({5});
    });
  });
  e = readError(path);
  CHECK(contains(e, "'lin.bias'"));
  CHECK(contains(e, "[5] float32 in the archive but [10] float32 in the graph"));
}

TEST_CASE("weights that are views of a larger storage are copied out",
          "[frontend]") {
  TempDir dir;
  std::vector<float> storage(1000);
  for (size_t k = 0; k < storage.size(); ++k)
    storage[k] = static_cast<float>(k);
  std::string path = editedArchive(dir, [&](ZipEntries &entries) {
    // lin.bias: elements 2..11 of a 12-element storage.
    entry(entries, "model/data/weights/weight_1") =
        floatBytes(std::vector<float>(storage.begin(), storage.begin() + 12));
    // lin.weight: the transpose of a 100x10 row-major storage.
    entry(entries, "model/data/weights/weight_0") = floatBytes(storage);
    editJsonEntry(entries, kWeightsConfig, [](Json &config) {
      config["config"]["lin.bias"]["tensor_meta"]["storage_offset"] = {
          {"as_int", 2}};
      config["config"]["lin.weight"]["tensor_meta"]["strides"] =
          sizesJson({1, 10});
    });
  });
  ExportedProgram p = readExportedProgram(path);
  std::vector<float> bias = asFloats(p.weights.at("lin.bias").bytes);
  REQUIRE(bias.size() == 10);
  CHECK(bias[0] == 2.0f);
  CHECK(bias[9] == 11.0f);
  const TensorData &w = p.weights.at("lin.weight");
  std::vector<float> weight = asFloats(w.bytes);
  REQUIRE(weight.size() == 1000);
  // weight[i][j] = storage[i + 10*j]
  CHECK(weight[0 * 100 + 1] == 10.0f);
  CHECK(weight[3 * 100 + 7] == 73.0f);
  CHECK(w.meta.contiguous);
  CHECK(*w.meta.strides[0].value == 100);
  CHECK(w.meta.storageOffset == 0);

  // A view reaching past its storage is an error, not an out-of-bounds read.
  path = editedArchive(dir, [&](ZipEntries &entries) {
    editJsonEntry(entries, kWeightsConfig, [](Json &config) {
      config["config"]["lin.bias"]["tensor_meta"]["storage_offset"] = {
          {"as_int", 1}};
    });
  });
  std::string e = readError(path);
  CHECK(contains(e, "weight 'lin.bias'"));
  CHECK(contains(e, "needs 44 bytes"));
  CHECK(contains(e, "holds 40"));
}

TEST_CASE("a storage larger than a contiguous weight is accepted",
          "[frontend]") {
  // torch writes a tensor's whole untyped storage, which may be larger.
  TempDir dir;
  std::string path = editedArchive(dir, [](ZipEntries &entries) {
    entry(entries, "model/data/weights/weight_1").resize(80);
  });
  ExportedProgram p = readExportedProgram(path);
  CHECK(p.weights.at("lin.bias").bytes.size() == 40);
}
