//===- FrontendTestErrors.cpp - broken inputs give one-line errors --------===//
//
// Each case builds its broken input from a real sample (a rewritten zip or
// JSON file in a temporary directory) and checks that the error names what
// is wrong and where. The sweeps at the end check that no mutation of a real
// file crashes, hangs or throws anything but FrontendError.
//
//===----------------------------------------------------------------------===//
#include "FrontendTestSupport.h"

#include <catch2/catch.hpp>

using namespace tcc::frontend;
using namespace tcc::frontend::test;
using Json = nlohmann::json;

namespace {

const char *kModelEntry = "model/models/model.json";

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// mymodule_dynamic_batch's model.json, parsed.
Json dynamicBatchModel() {
  ZipEntries entries = readZip(samplePath("mymodule_dynamic_batch/model.pt2"));
  return Json::parse(entry(entries, kModelEntry));
}

/// Writes `doc` as a bare model.json and returns the reader's error.
std::string jsonError(const TempDir &dir, const Json &doc) {
  std::string path = dir.file("model.json");
  writeFile(path, doc.dump());
  return readError(path);
}

} // namespace

TEST_CASE("unreadable files name the path", "[frontend]") {
  TempDir dir;
  std::string missing = dir.file("missing.pt2");
  std::string e = readError(missing);
  CHECK(contains(e, missing));
  CHECK(contains(e, "cannot open"));

  e = readError(dir.file(""));
  CHECK(contains(e, "is a directory"));

  std::string garbage = dir.file("garbage.pt2");
  writeFile(garbage, std::string("\x7f" "ELF\x01\x02\x03 not a model", 20));
  e = readError(garbage);
  CHECK(contains(e, garbage));
  CHECK(contains(e, "neither a .pt2 (zip) archive nor a model.json"));

  std::string empty = dir.file("empty.json");
  writeFile(empty, "");
  CHECK(contains(readError(empty), "neither"));
}

TEST_CASE("truncated or corrupt archives name the path and entry",
          "[frontend]") {
  TempDir dir;
  std::string bytes = readFile(samplePath("mymodule/model.pt2"));
  std::string truncated = dir.file("truncated.pt2");
  writeFile(truncated, bytes.substr(0, bytes.size() / 2));
  std::string e = readError(truncated);
  CHECK(contains(e, truncated));
  CHECK(contains(e, "zip"));

  // Flip one byte inside weight_0's data: the CRC check catches it.
  std::string name = "model/data/weights/weight_0";
  size_t header = bytes.find(name);
  REQUIRE(header != std::string::npos);
  std::string corrupt = bytes;
  corrupt[header + name.size() + 200] ^= 0x55;
  std::string corruptPath = dir.file("corrupt.pt2");
  writeFile(corruptPath, corrupt);
  e = readError(corruptPath);
  CHECK(contains(e, corruptPath));
  CHECK(contains(e, name));
  CHECK(e.find('\n') == std::string::npos);
}

TEST_CASE("missing models/model.json names the entry", "[frontend]") {
  TempDir dir;
  std::string path = editedArchive(
      dir, [](ZipEntries &entries) { removeEntry(entries, kModelEntry); });
  std::string e = readError(path);
  CHECK(contains(e, path));
  CHECK(contains(e, "models/model.json"));
}

TEST_CASE("schema major version other than 8", "[frontend]") {
  TempDir dir;
  Json doc = dynamicBatchModel();
  doc["schema_version"] = {{"major", 9}, {"minor", 0}};
  std::string e = jsonError(dir, doc);
  CHECK(contains(e, "schema version 9.0 is not supported (tcc reads 8.x)"));
  CHECK(contains(e, dir.file("model.json")));

  std::string path = editedArchive(dir, [](ZipEntries &entries) {
    editJsonEntry(entries, kModelEntry, [](Json &d) {
      d["schema_version"]["major"] = 9;
      d["schema_version"]["minor"] = 0;
    });
  });
  e = readError(path);
  CHECK(contains(e, kModelEntry));
  CHECK(contains(e, "schema version 9.0 is not supported (tcc reads 8.x)"));
}

TEST_CASE("malformed JSON gives the parse position", "[frontend]") {
  TempDir dir;
  std::string path = dir.file("bad.json");
  writeFile(path, "{\"schema_version\": {\"major\": 8,, \"minor\": 17}}");
  std::string e = readError(path);
  CHECK(contains(e, path));
  CHECK(contains(e, "malformed JSON"));
  CHECK(contains(e, "byte 32"));
  CHECK(contains(e, "line 1, column 32"));

  std::string archive = editedArchive(dir, [](ZipEntries &entries) {
    entry(entries, kModelEntry).resize(100);
  });
  e = readError(archive);
  CHECK(contains(e, kModelEntry));
  CHECK(contains(e, "malformed JSON"));
}

TEST_CASE("a value no graph input or earlier node defines", "[frontend]") {
  TempDir dir;
  Json doc = dynamicBatchModel();
  doc["graph_module"]["graph"]["nodes"][1]["inputs"][0]["arg"]["as_tensor"]
     ["name"] = "nope";
  std::string e = jsonError(dir, doc);
  CHECK(contains(e, "node 'relu'"));
  CHECK(contains(e, "'nope'"));
  CHECK(contains(e, "no graph input or earlier node defines"));

  // Using a later node's output counts as dangling too.
  doc = dynamicBatchModel();
  doc["graph_module"]["graph"]["nodes"][0]["inputs"][0]["arg"]["as_tensor"]
     ["name"] = "relu";
  e = jsonError(dir, doc);
  CHECK(contains(e, "node 'linear'"));
  CHECK(contains(e, "'relu'"));

  doc = dynamicBatchModel();
  doc["graph_module"]["graph"]["outputs"][0]["as_tensor"]["name"] = "gone";
  e = jsonError(dir, doc);
  CHECK(contains(e, "graph output 0"));
  CHECK(contains(e, "'gone'"));
}

TEST_CASE("unknown or unsupported dtype codes name the tensor", "[frontend]") {
  TempDir dir;
  Json doc = dynamicBatchModel();
  doc["graph_module"]["graph"]["tensor_values"]["x"]["dtype"] = 99;
  std::string e = jsonError(dir, doc);
  CHECK(contains(e, "tensor 'x'"));
  CHECK(contains(e, "unknown dtype code 99"));

  doc["graph_module"]["graph"]["tensor_values"]["x"]["dtype"] = 9;
  e = jsonError(dir, doc);
  CHECK(contains(e, "tensor 'x'"));
  CHECK(contains(e, "9 (COMPLEXHALF)"));
}

TEST_CASE("wrong field types and missing fields name the field",
          "[frontend]") {
  TempDir dir;
  Json doc = dynamicBatchModel();
  doc["graph_module"]["graph"]["nodes"][0]["target"] = 42;
  std::string e = jsonError(dir, doc);
  CHECK(contains(e, "graph_module.graph.nodes[0] (node 'linear').target"));
  CHECK(contains(e, "expected a string, got number"));

  doc = dynamicBatchModel();
  doc["graph_module"].erase("signature");
  e = jsonError(dir, doc);
  CHECK(contains(e, "graph_module: missing field 'signature'"));

  doc = dynamicBatchModel();
  doc["graph_module"]["graph"]["tensor_values"]["x"]["sizes"][0]["as_expr"]
     ["expr_str"] = "Abs(s77)";
  e = jsonError(dir, doc);
  CHECK(contains(e, "tensor_values.x.sizes[0]"));
  CHECK(contains(e, "Abs(s77)"));
}

TEST_CASE("range bounds: null, strings and huge numbers mean unbounded",
          "[frontend]") {
  TempDir dir;
  Json doc = dynamicBatchModel();
  auto &ranges = doc["range_constraints"];
  ranges["s77"]["max_val"] = nullptr;
  ranges["a"] = {{"min_val", 2}, {"max_val", "inf"}};
  ranges["b"] = {{"min_val", 0}, {"max_val", 9223372036854775807ull}};
  ranges["c"] = {{"min_val", "-oo"}, {"max_val", 18446744073709551615ull}};
  ranges["d"] = {{"min_val", 1}, {"max_val", 1e300}};
  std::string path = dir.file("ranges.json");
  writeFile(path, doc.dump());
  ExportedProgram p = readExportedProgram(path);
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  CHECK(p.rangeConstraints.at("s77").min == 1);
  CHECK(p.rangeConstraints.at("s77").max == kMax);
  CHECK(p.rangeConstraints.at("a").max == kMax);
  CHECK(p.rangeConstraints.at("b").max == kMax);
  CHECK(p.rangeConstraints.at("c").min == std::numeric_limits<int64_t>::min());
  CHECK(p.rangeConstraints.at("c").max == kMax);
  CHECK(p.rangeConstraints.at("d").max == kMax);
}

TEST_CASE("bare Infinity and NaN tokens from Python's json are read",
          "[frontend]") {
  TempDir dir;
  Json doc = dynamicBatchModel();
  doc["graph_module"]["graph"]["nodes"][1]["inputs"].push_back(
      {{"name", "lo"}, {"arg", {{"as_float", "PLACEHOLDER_A"}}}});
  doc["graph_module"]["graph"]["nodes"][1]["inputs"].push_back(
      {{"name", "hi"}, {"arg", {{"as_float", "Infinity"}}}});
  std::string text = doc.dump();
  // A bare token, as json.dumps(float('-inf')) writes it.
  text.replace(text.find("\"PLACEHOLDER_A\""), 15, "-Infinity");
  std::string path = dir.file("inf.json");
  writeFile(path, text);
  ExportedProgram p = readExportedProgram(path);
  CHECK(p.nodes[1].input("lo")->f == -std::numeric_limits<double>::infinity());
  CHECK(p.nodes[1].input("hi")->f == std::numeric_limits<double>::infinity());
}

//===----------------------------------------------------------------------===//
// Sweeps: no input crashes
//===----------------------------------------------------------------------===//

TEST_CASE("every truncation of model.json is a FrontendError", "[frontend]") {
  ZipEntries entries = readZip(samplePath("mymodule_dynamic_batch/model.pt2"));
  const std::string &text = entry(entries, kModelEntry);
  for (size_t n = 0; n < text.size(); n += 13) {
    INFO("prefix " << n);
    CHECK_THROWS_AS(readExportedProgramJson(text.substr(0, n), "t.json"),
                    FrontendError);
  }
}

TEST_CASE("every truncation of a .pt2 is a FrontendError", "[frontend]") {
  TempDir dir;
  std::string bytes = readFile(samplePath("mymodule/model.pt2"));
  std::string path = dir.file("cut.pt2");
  for (size_t n = 0; n < bytes.size(); n += 211) {
    INFO("prefix " << n);
    writeFile(path, bytes.substr(0, n));
    CHECK(readError(path) != "<no error>");
  }
}

TEST_CASE("flipping bytes of a .pt2 never crashes", "[frontend]") {
  TempDir dir;
  const std::string bytes = readFile(samplePath("mymodule/model.pt2"));
  std::string path = dir.file("flipped.pt2");
  size_t rejected = 0;
  for (size_t k = 0; k < bytes.size(); k += 29) {
    INFO("byte " << k);
    std::string flipped = bytes;
    flipped[k] = static_cast<char>(flipped[k] ^ 0xA5);
    writeFile(path, flipped);
    // Either reads (the byte was unused, e.g. in a pickle nobody reads) or
    // fails with a FrontendError; anything else escapes readError.
    rejected += readError(path) != "<no error>";
  }
  CHECK(rejected > 0);
}

TEST_CASE("replacing or removing any JSON field never crashes",
          "[frontend]") {
  const Json original = dynamicBatchModel();
  const Json flat = original.flatten();
  const Json replacements[] = {nullptr,  "text", -1, 18446744073709551615ull,
                               1.5,      Json::object(), Json::array(),
                               Json::array({1, 2})};
  size_t accepted = 0, rejected = 0;
  auto attempt = [&](const Json &doc) {
    try {
      readExportedProgramJson(doc.dump(), "sweep.json");
      ++accepted;
    } catch (const FrontendError &e) {
      CHECK(std::string(e.what()).find('\n') == std::string::npos);
      ++rejected;
    }
  };
  for (auto it = flat.begin(); it != flat.end(); ++it) {
    Json::json_pointer pointer(it.key());
    for (const Json &replacement : replacements) {
      Json doc = original;
      doc[pointer] = replacement;
      attempt(doc);
    }
    // Remove the leaf and, one level up, its container.
    for (Json::json_pointer p = pointer; !p.empty(); p = p.parent_pointer()) {
      Json doc = original;
      const std::string last = p.back();
      Json &parent = doc[p.parent_pointer()];
      if (parent.is_object())
        parent.erase(last);
      else if (parent.is_array())
        parent.erase(static_cast<size_t>(std::stoul(last)));
      attempt(doc);
      if (p.parent_pointer() != pointer.parent_pointer())
        break;
    }
  }
  CHECK(rejected > 0);
  CHECK(accepted > 0);
}

TEST_CASE("stride expressions tcc cannot parse are kept; such sizes are errors",
          "[frontend]") {
  // Strides may hold functions tcc does not read (Abs here); tcc reads only
  // their traced values, so they must not stop the import. A size must parse.
  TempDir dir;
  const Json absExpr = {{"as_expr",
                         {{"expr_str", "Abs(Mul(Integer(100), Symbol('s77', "
                                       "positive=True, integer=True)))"},
                          {"hint", {{"as_int", 100}}}}}};
  Json doc = dynamicBatchModel();
  Json &x = doc["graph_module"]["graph"]["tensor_values"]["x"];
  x["strides"][0] = absExpr;
  CHECK(jsonError(dir, doc) == "<no error>");
  x["sizes"][0] = absExpr;
  std::string error = jsonError(dir, doc);
  CHECK(contains(error, "tensor_values.x.sizes[0]"));
  CHECK(contains(error, "function 'Abs' is not supported"));
}
