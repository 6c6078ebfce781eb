//===- FrontendTestSamples.cpp - reading real torch.export artifacts ------===//
//
// Every sample in samples/ and the graph-only seed samples, read through the
// public entry point, with counts and values checked against what torch 2.11
// wrote (inspected with Python's zipfile and json).
//
//===----------------------------------------------------------------------===//
#include "FrontendTestSupport.h"

#include "tcc/Frontend/ExportedProgramReader.h"
#include "tcc/Frontend/FrontendError.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace tcc;
using namespace tcc::frontend;
using namespace tcc::frontend::test;

namespace {

size_t totalBytes(const std::map<std::string, TensorData> &payloads) {
  size_t n = 0;
  for (const auto &[name, data] : payloads)
    n += data.bytes.size();
  return n;
}

size_t countInputs(const ExportedProgram &p, InputKind kind) {
  size_t n = 0;
  for (const InputSpec &s : p.inputSpecs)
    n += s.kind == kind;
  return n;
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

TEST_CASE("foo: two user inputs, no weights", "[frontend]") {
  ExportedProgram p = readExportedProgram(samplePath("foo/model.pt2"));
  CHECK(p.schemaMajor == 8);
  CHECK(p.schemaMinor == 17);
  CHECK(p.torchVersion == "2.11.0+cu130");
  CHECK(p.sourcePath == samplePath("foo/model.pt2"));
  REQUIRE(p.nodes.size() == 3);
  CHECK(p.nodes[0].target == "torch.ops.aten.sin.default");
  CHECK(p.nodes[2].target == "torch.ops.aten.add.Tensor");
  CHECK(p.inputSpecs.size() == 2);
  CHECK(countInputs(p, InputKind::UserInput) == 2);
  CHECK(p.weights.empty());
  CHECK(p.constants.empty());
  REQUIRE(p.graphOutputs.size() == 1);
  CHECK(p.graphOutputs[0].kind == Argument::Tensor);
  REQUIRE(p.outputSpecs.size() == 1);
  CHECK(p.outputSpecs[0].kind == OutputKind::UserOutput);
  CHECK(p.outputSpecs[0].graphName == p.graphOutputs[0].tensor);
}

TEST_CASE("mymodule: parameters, weight bytes and source locations",
          "[frontend]") {
  std::string path = samplePath("mymodule/model.pt2");
  ExportedProgram p = readExportedProgram(path);
  REQUIRE(p.nodes.size() == 2);
  REQUIRE(p.inputSpecs.size() == 3);
  CHECK(p.inputSpecs[0].kind == InputKind::Parameter);
  CHECK(p.inputSpecs[0].graphName == "p_lin_weight");
  CHECK(p.inputSpecs[0].target == "lin.weight");
  CHECK(p.inputSpecs[2].kind == InputKind::UserInput);
  CHECK(p.inputSpecs[2].graphName == "x");

  const Node &linear = p.nodes[0];
  CHECK(linear.name == "linear");
  CHECK(linear.target == "torch.ops.aten.linear.default");
  REQUIRE(linear.input("weight"));
  CHECK(linear.input("weight")->kind == Argument::Tensor);
  CHECK(linear.input("weight")->tensor == "p_lin_weight");
  CHECK(linear.input("no_such_argument") == nullptr);
  CHECK(endsWith(linear.loc.file, "seed_samples.py"));
  CHECK(linear.loc.line == 13);
  CHECK(linear.stackTrace.find("linear.py") != std::string::npos);

  REQUIRE(p.weights.size() == 2);
  const TensorData &w = p.weights.at("lin.weight");
  CHECK(w.meta.dtype == DType::Float32);
  REQUIRE(w.meta.sizes.size() == 2);
  CHECK(*w.meta.sizes[0].value == 10);
  CHECK(*w.meta.sizes[1].value == 100);
  CHECK(w.bytes.size() == 4000);
  CHECK(p.weights.at("lin.bias").bytes.size() == 40);

  // The bytes are the archive entry's bytes.
  ZipEntries entries = readZip(path);
  const std::string &raw = entry(entries, "model/data/weights/weight_0");
  REQUIRE(raw.size() == 4000);
  CHECK(std::memcmp(raw.data(), w.bytes.data(), raw.size()) == 0);

  const TensorMeta &x = p.tensorValues.at("x");
  CHECK(x.contiguous);
  CHECK(x.device == "cpu");
  CHECK(formatTensorType(x) == "[10, 100] float32");
}

TEST_CASE("mymodule_dynamic_batch: symbolic batch with its range",
          "[frontend]") {
  ExportedProgram p =
      readExportedProgram(samplePath("mymodule_dynamic_batch/model.pt2"));
  const TensorMeta &x = p.tensorValues.at("x");
  REQUIRE(x.sizes.size() == 2);
  CHECK_FALSE(x.sizes[0].isStatic());
  CHECK(x.sizes[0].expr == "s77");
  CHECK(x.sizes[0].hint == 10);
  CHECK(x.sizes[1].isStatic());
  CHECK(*x.sizes[1].value == 100);
  CHECK(p.tensorValues.at("relu").sizes[0].expr == "s77");
  CHECK(formatTensorType(x) == "[s77, 100] float32");
  REQUIRE(p.rangeConstraints.count("s77"));
  CHECK(p.rangeConstraints.at("s77").min == 1);
  CHECK(p.rangeConstraints.at("s77").max == 1024);
  CHECK(p.weights.size() == 2);
}

TEST_CASE("outer_module: nested module parameters", "[frontend]") {
  ExportedProgram p = readExportedProgram(samplePath("outer_module/model.pt2"));
  CHECK(p.nodes.size() == 4);
  CHECK(p.inputSpecs.size() == 5);
  CHECK(countInputs(p, InputKind::Parameter) == 4);
  REQUIRE(p.weights.size() == 4);
  CHECK(p.weights.count("inner_module.lin.weight"));
  CHECK(p.weights.count("outer_lin.weight"));
  CHECK(totalBytes(p.weights) == 4128);
}

TEST_CASE("small_cnn: buffers, int64 weights and list arguments",
          "[frontend]") {
  ExportedProgram p = readExportedProgram(samplePath("small_cnn/model.pt2"));
  CHECK(p.nodes.size() == 15);
  CHECK(p.inputSpecs.size() == 20);
  CHECK(countInputs(p, InputKind::Parameter) == 13);
  CHECK(countInputs(p, InputKind::Buffer) == 6);
  CHECK(p.weights.size() == 19);
  CHECK(totalBytes(p.weights) == 13848);
  const TensorData &tracked = p.weights.at("bn1.num_batches_tracked");
  CHECK(tracked.meta.dtype == DType::Int64);
  CHECK(tracked.bytes.size() == 8);

  const Node &conv = p.nodes[0];
  CHECK(conv.target == "torch.ops.aten.conv2d.default");
  REQUIRE(conv.input("stride"));
  CHECK(conv.input("stride")->kind == Argument::Ints);
  CHECK(conv.input("stride")->ints == std::vector<int64_t>{1, 1});
  const Node &bn = p.nodes[1];
  REQUIRE(bn.input("eps"));
  CHECK(bn.input("eps")->kind == Argument::Float);
  CHECK(bn.input("eps")->f == Approx(1e-5));
  CHECK(bn.input("training")->kind == Argument::Bool);
  CHECK_FALSE(bn.input("training")->b);
  bool sawCat = false;
  for (const Node &n : p.nodes)
    if (n.target == "torch.ops.aten.cat.default") {
      sawCat = true;
      CHECK(n.input("tensors")->kind == Argument::Tensors);
      CHECK(n.input("tensors")->tensors.size() == 2);
    }
  CHECK(sawCat);
}

TEST_CASE("ops_mix: many operators, two outputs, a buffer", "[frontend]") {
  ExportedProgram p = readExportedProgram(samplePath("ops_mix/model.pt2"));
  CHECK(p.nodes.size() == 31);
  CHECK(p.inputSpecs.size() == 5);
  CHECK(p.graphOutputs.size() == 2);
  CHECK(p.outputSpecs.size() == 2);
  CHECK(countInputs(p, InputKind::Buffer) == 1);
  CHECK(p.weights.size() == 3);
  CHECK(totalBytes(p.weights) == 336);
}

TEST_CASE("bare model.json files read without weights", "[frontend]") {
  ExportedProgram cnn = readExportedProgram(samplePath("small_cnn/model.json"));
  CHECK(cnn.nodes.size() == 15);
  CHECK(cnn.inputSpecs.size() == 20);
  CHECK(cnn.weights.empty());

  ExportedProgram ops = readExportedProgram(samplePath("ops_mix/model.json"));
  CHECK(ops.nodes.size() == 31);
  ExportedProgram bare = readExportedProgram(samplePath("mymodule_bare/model.json"));
  CHECK(bare.nodes.size() == 2);
  CHECK(bare.weights.empty());
}

TEST_CASE("densenet121 bare JSON", "[frontend]") {
  std::string path = seedSamplePath("densenet121_bs16_graph_only/model.json");
  if (path.empty())
    return; // The seed samples live outside the repository.
  ExportedProgram p = readExportedProgram(path);
  CHECK(p.nodes.size() == 431);
  CHECK(p.inputSpecs.size() == 728);
  CHECK(countInputs(p, InputKind::Parameter) == 364);
  CHECK(countInputs(p, InputKind::Buffer) == 363);
  CHECK(countInputs(p, InputKind::UserInput) == 1);
  CHECK(p.weights.empty());
  CHECK(formatTensorType(p.tensorValues.at("x")) == "[16, 3, 128, 128] float32");
  // The first conv's trace starts in torchvision, then enters torch.nn.
  CHECK(endsWith(p.nodes[0].loc.file, "torchvision/models/densenet.py"));
  CHECK(p.nodes[0].loc.line == 213);
  size_t cats = 0;
  for (const Node &n : p.nodes)
    cats += n.target == "torch.ops.aten.cat.default";
  CHECK(cats > 50);
}

TEST_CASE("resnet50 bare JSON", "[frontend]") {
  std::string path = seedSamplePath("resnet50_bs32_graph_only/model.json");
  if (path.empty())
    return;
  ExportedProgram p = readExportedProgram(path);
  CHECK(p.nodes.size() == 175);
  CHECK(p.inputSpecs.size() == 321);
}

TEST_CASE("content, not the extension, decides archive or JSON",
          "[frontend]") {
  TempDir dir;
  std::string jsonNamedPt2 = dir.file("graph.pt2");
  writeFile(jsonNamedPt2, readFile(samplePath("mymodule_bare/model.json")));
  ExportedProgram a = readExportedProgram(jsonNamedPt2);
  CHECK(a.nodes.size() == 2);
  CHECK(a.weights.empty());

  std::string zipNamedJson = dir.file("archive.json");
  writeFile(zipNamedJson, readFile(samplePath("mymodule/model.pt2")));
  ExportedProgram b = readExportedProgram(zipNamedJson);
  CHECK(b.weights.size() == 2);
}

TEST_CASE("archive entries at the root or under another top folder",
          "[frontend]") {
  ZipEntries original = readZip(samplePath("mymodule/model.pt2"));
  for (std::string top : {"", "my_export/"}) {
    ZipEntries moved;
    for (const auto &[name, bytes] : original)
      moved.emplace_back(top + name.substr(std::strlen("model/")), bytes);
    TempDir dir;
    writeZip(dir.file("m.pt2"), moved);
    ExportedProgram p = readExportedProgram(dir.file("m.pt2"));
    CHECK(p.weights.size() == 2);
    CHECK(p.weights.at("lin.weight").bytes.size() == 4000);
  }
}
