//===- ManifestBuilderTest.cpp - the compiler's side of the guard manifest -===//
//
// The manifest the compiler writes must be what the runtime reads: these tests
// build it from a real export and parse it back with the runtime's reader.
//
//===----------------------------------------------------------------------===//
#include "tcc/Frontend/ExportedProgramReader.h"
#include "tcc/Runtime/GuardManifest.h"
#include "tcc/Target/ManifestBuilder.h"

#include <catch2/catch.hpp>

using namespace tcc;

namespace {
std::string sample(const char *name) {
  return std::string(TCC_SOURCE_DIR) + "/samples/" + name + "/model.pt2";
}

/// The signature the importer would build: user inputs, then weights.
ImportedSignature signatureOf(const frontend::ExportedProgram &p) {
  ImportedSignature sig;
  for (const auto &spec : p.inputSpecs)
    if (spec.kind == frontend::InputKind::UserInput)
      sig.inputs.push_back(spec.graphName);
  for (const auto &spec : p.inputSpecs)
    if (spec.kind != frontend::InputKind::UserInput)
      sig.weights.push_back(spec);
  for (const auto &spec : p.outputSpecs)
    sig.outputs.push_back(spec.graphName);
  return sig;
}
} // namespace

TEST_CASE("weights are laid out 64-byte aligned with their bytes", "[manifest]") {
  auto p = frontend::readExportedProgram(sample("mymodule"));
  auto layout = WeightLayout::build(p, signatureOf(p));
  REQUIRE(layout.entries.size() == 2);
  CHECK(layout.entries[0].name == "lin.weight");
  CHECK(layout.entries[0].offset == 0);
  CHECK(layout.entries[0].bytes == 4000);
  CHECK(layout.entries[1].offset == 4032);
  CHECK(layout.entries[1].bytes == 40);
  CHECK(layout.entries[1].embedded);
  CHECK(layout.blob.size() % 64 == 0);
  const auto &w = p.weights.at("lin.bias").bytes;
  CHECK(std::equal(w.begin(), w.end(), layout.blob.begin() + 4032));
}

TEST_CASE("the manifest of a dynamic-batch model states symbols, sizes and checks",
          "[manifest]") {
  auto p = frontend::readExportedProgram(sample("mymodule_dynamic_batch"));
  auto sig = signatureOf(p);
  auto layout = WeightLayout::build(p, sig);
  PlannedArena arena{4096, {{0, 4096, 1, 3}}};
  auto m = buildManifest(p, sig, layout, arena, ManifestInfo{"dyn", {Target::Cpu}, true});

  CHECK(m["symbols"]["s77"]["min"] == 1);
  CHECK(m["symbols"]["s77"]["max"] == 1024);
  CHECK(m["symbols"]["s77"]["hint"] == 10);
  CHECK(m["inputs"][0]["sizes"][0] == "s77");
  CHECK(m["inputs"][0]["sizes"][1] == 100);
  CHECK(m["outputs"][0]["sizes"][0] == "s77");
  CHECK(m["arena"]["bytes"] == 4096);
  CHECK(m["arena"]["planned_at"]["s77"] == 1024);
  CHECK(m["entry"]["args"].size() == 5);  // x, weight, bias, output, arena
  CHECK(m["entry"]["args"][4]["role"] == "arena");
  bool hasRangeCheck = false;
  for (auto &c : m["checks"])
    hasRangeCheck |= c.get<std::string>() == "x.size(0) == s77, 1 <= s77 <= 1024";
  CHECK(hasRangeCheck);

  // The runtime reads it back and enforces it.
  auto manifest = GuardManifest::parse(m.dump());
  CHECK(manifest.inputs.size() == 1);
}

TEST_CASE("external weights are marked as not embedded", "[manifest]") {
  auto p = frontend::readExportedProgram(sample("mymodule"));
  auto sig = signatureOf(p);
  auto layout = WeightLayout::build(p, sig);
  auto m = buildManifest(p, sig, layout, PlannedArena{}, ManifestInfo{"m", {Target::Cpu}, false});
  for (auto &w : m["weights"])
    CHECK(w["embedded"] == false);
}
