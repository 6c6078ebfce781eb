//===- GuardManifestTest.cpp - manifest parsing and input guards ----------===//
//
// Guard messages are user-facing and checked word for word.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/GuardManifest.h"
#include "tcc/Frontend/ExportedProgramReader.h"
#include "tcc/Runtime/RuntimeError.h"
#include "tcc/Support/SizeChecks.h"
#include "tcc/Target/ManifestBuilder.h"

#include <catch2/catch.hpp>

using namespace tcc;

namespace {

/// The example of docs/ARTIFACT.md.
const char *kDynamicBatchManifest = R"json({
  "format": "tcc-guard-manifest", "version": 1,
  "model": "mymodule_dynamic_batch", "source": "samples/mymodule_dynamic_batch/model.pt2",
  "targets": ["cpu"],
  "symbols": { "s77": { "min": 1, "max": 1024, "hint": 10 } },
  "inputs":  [ { "name": "x", "dtype": "float32", "device": "cpu", "sizes": ["s77", 100] } ],
  "outputs": [ { "name": "relu", "dtype": "float32", "sizes": ["s77", 10] } ],
  "weights": [ { "name": "lin.weight", "kind": "parameter", "dtype": "float32",
                 "sizes": [10, 100], "offset": 0, "bytes": 4000, "embedded": true },
               { "name": "lin.bias", "kind": "parameter", "dtype": "float32",
                 "sizes": [10], "offset": 4032, "bytes": 40, "embedded": true } ],
  "arena":   { "bytes": 40960, "planned_at": { "s77": 1024 },
               "buffers": [ { "offset": 0, "bytes": 40960, "first": 0, "last": 1 } ] },
  "entry":   { "symbol": "tcc_model_forward",
               "args": [ { "role": "input",  "index": 0, "rank": 2 },
                         { "role": "weight", "index": 0, "rank": 2 },
                         { "role": "weight", "index": 1, "rank": 1 },
                         { "role": "output", "index": 0, "rank": 2 },
                         { "role": "arena",  "index": 0, "rank": 1 } ] },
  "checks":  [ "x: dtype == float32", "x: rank == 2", "x.size(0) == s77, 1 <= s77 <= 1024",
               "x.size(1) == 100", "x: contiguous" ],
  "specializations": [ { "name": "generic", "symbols": { "s77": [1, 1024] } } ]
})json";

/// Two inputs sharing a symbol, and derived output sizes.
const char *kTwoInputManifest = R"json({
  "format": "tcc-guard-manifest", "version": 1, "model": "pair",
  "symbols": { "s0": { "min": 2, "max": 64 }, "s1": { "min": 1, "max": 8 } },
  "inputs":  [ { "name": "a", "dtype": "float32", "sizes": ["s0", "s1"] },
               { "name": "b", "dtype": "int64", "sizes": ["2*s0 + 1", "s1", 3] } ],
  "outputs": [ { "name": "cat", "dtype": "float32", "sizes": ["3*s0 + 1", "s1"] },
               { "name": "half", "dtype": "float32", "sizes": ["s0 // 2", "s0 % 3", 4] } ],
  "arena":   { "bytes": 0 }
})json";

struct Shape {
  std::vector<int64_t> sizes;
  tcc_tensor tensor(DType dtype = DType::Float32) const {
    return {nullptr, static_cast<int32_t>(dtype), TCC_DEVICE_CPU,
            static_cast<int32_t>(sizes.size()), sizes.data()};
  }
};

/// The message of the RuntimeError `fn` throws, with its status.
template <typename Fn> std::pair<tcc_status, std::string> failure(Fn fn) {
  try {
    fn();
  } catch (const RuntimeError &e) {
    return {e.status(), e.what()};
  }
  return {TCC_OK, ""};
}

} // namespace

TEST_CASE("GuardManifest parses the documented example", "[runtime]") {
  GuardManifest m = GuardManifest::parse(kDynamicBatchManifest);
  CHECK(m.model == "mymodule_dynamic_batch");
  CHECK(m.targets == std::vector<std::string>{"cpu"});
  REQUIRE(m.symbols.size() == 1);
  CHECK(m.symbols[0].name == "s77");
  CHECK(m.symbols[0].min == 1);
  CHECK(m.symbols[0].max == 1024);
  CHECK(m.symbols[0].hint == 10);
  REQUIRE(m.inputs.size() == 1);
  CHECK(m.inputs[0].name == "x");
  CHECK(m.inputs[0].shapeText() == "[s77, 100]");
  CHECK(m.inputs[0].device == TCC_DEVICE_CPU);
  REQUIRE(m.outputs.size() == 1);
  CHECK(m.outputs[0].shapeText() == "[s77, 10]");
  REQUIRE(m.weights.size() == 2);
  CHECK(m.weights[1].name == "lin.bias");
  CHECK(m.weights[1].offset == 4032);
  CHECK(m.weights[1].bytes == 40);
  CHECK(m.weights[1].embedded);
  CHECK(m.arena.bytes == 40960);
  CHECK(m.arena.plannedAt.at("s77") == 1024);
  REQUIRE(m.arena.buffers.size() == 1);
  CHECK(m.arena.buffers[0].last == 1);
  REQUIRE(m.entryArgs.size() == 5);
  CHECK(m.entryArgs[3].role == EntryArgRole::Output);
  CHECK(m.checks.size() == 5);
  REQUIRE(m.specializations.size() == 1);
  CHECK(m.specializations[0].symbols[0].second == std::make_pair<int64_t, int64_t>(1, 1024));
}

TEST_CASE("GuardManifest binds the batch symbol within its range", "[runtime]") {
  GuardManifest m = GuardManifest::parse(kDynamicBatchManifest);
  for (int64_t batch : {1, 7, 1024}) {
    Shape x{{batch, 100}};
    tcc_tensor t = x.tensor();
    SymbolBindings s = m.bindInputs(&t, 1);
    CHECK(s.at("s77") == batch);
    CHECK(m.outputSizes(s) == std::vector<std::vector<int64_t>>{{batch, 10}});
  }
  for (int64_t batch : {0, 1025}) {
    Shape x{{batch, 100}};
    tcc_tensor t = x.tensor();
    auto [status, message] = failure([&] { m.bindInputs(&t, 1); });
    CHECK(status == TCC_ERROR_GUARD_VIOLATION);
    CHECK(message == "input 'x' (#0) dimension 0: expected s77 in [1, 1024], got " +
                         std::to_string(batch));
  }
}

TEST_CASE("GuardManifest refuses wrong dtype, rank, static size, device, count",
          "[runtime]") {
  GuardManifest m = GuardManifest::parse(kDynamicBatchManifest);
  auto message = [&](tcc_tensor t) {
    auto [status, text] = failure([&] { m.bindInputs(&t, 1); });
    CHECK(status == TCC_ERROR_GUARD_VIOLATION);
    return text;
  };
  Shape good{{4, 100}}, rank3{{4, 100, 1}}, narrow{{4, 99}};
  CHECK(message(good.tensor(DType::Int64)) ==
        "input 'x' (#0): expected dtype float32, got int64");
  CHECK(message(rank3.tensor()) == "input 'x' (#0): expected rank 2, got 3");
  CHECK(message(narrow.tensor()) == "input 'x' (#0) dimension 1: expected 100, got 99");
  tcc_tensor cuda = good.tensor();
  cuda.device = TCC_DEVICE_CUDA;
  CHECK(message(cuda) == "input 'x' (#0): expected device cpu, got cuda");
  tcc_tensor badCode = good.tensor();
  badCode.dtype = 42;
  CHECK(message(badCode) == "input 'x' (#0): expected dtype float32, got dtype code 42");

  tcc_tensor two[2] = {good.tensor(), good.tensor()};
  auto [status, text] = failure([&] { m.bindInputs(two, 2); });
  CHECK(status == TCC_ERROR_INVALID_ARGUMENT);
  CHECK(text == "expected 1 input(s), got 2");
}

TEST_CASE("GuardManifest checks expressions over symbols bound elsewhere", "[runtime]") {
  GuardManifest m = GuardManifest::parse(kTwoInputManifest);
  Shape a{{6, 5}}, b{{13, 5, 3}};
  tcc_tensor ok[2] = {a.tensor(), b.tensor(DType::Int64)};
  SymbolBindings s = m.bindInputs(ok, 2);
  CHECK(s.at("s0") == 6);
  CHECK(s.at("s1") == 5);
  CHECK(m.outputSizes(s) == std::vector<std::vector<int64_t>>{{19, 5}, {3, 0, 4}});

  Shape b12{{12, 5, 3}}, b1s{{13, 4, 3}}, a1{{1, 5}};
  tcc_tensor wrongExpr[2] = {a.tensor(), b12.tensor(DType::Int64)};
  CHECK(failure([&] { m.bindInputs(wrongExpr, 2); }).second ==
        "input 'b' (#1) dimension 0: expected 2*s0 + 1 (= 13), got 12");
  tcc_tensor wrongSymbol[2] = {a.tensor(), b1s.tensor(DType::Int64)};
  CHECK(failure([&] { m.bindInputs(wrongSymbol, 2); }).second ==
        "input 'b' (#1) dimension 1: expected s1 (= 5), got 4");
  tcc_tensor belowMin[2] = {a1.tensor(), b.tensor(DType::Int64)};
  CHECK(failure([&] { m.bindInputs(belowMin, 2); }).second ==
        "input 'a' (#0) dimension 0: expected s0 in [2, 64], got 1");
}

TEST_CASE("GuardManifest binds a symbol from a later input", "[runtime]") {
  GuardManifest m = GuardManifest::parse(R"json({
    "format": "tcc-guard-manifest", "version": 1,
    "symbols": { "s0": { "min": 1, "max": 100 } },
    "inputs":  [ { "name": "p", "dtype": "float32", "sizes": ["s0 + 1"] },
                 { "name": "q", "dtype": "float32", "sizes": ["s0"] } ],
    "outputs": [ { "name": "o", "dtype": "float32", "sizes": ["s0"] } ] })json");
  Shape p{{5}}, q{{4}}, q3{{3}};
  tcc_tensor ok[2] = {p.tensor(), q.tensor()};
  CHECK(m.bindInputs(ok, 2).at("s0") == 4);
  tcc_tensor bad[2] = {p.tensor(), q3.tensor()};
  CHECK(failure([&] { m.bindInputs(bad, 2); }).second ==
        "input 'p' (#0) dimension 0: expected s0 + 1 (= 4), got 5");
  // Without an explicit entry the documented order is used.
  REQUIRE(m.entryArgs.size() == 4);
  CHECK(m.entryArgs[2].role == EntryArgRole::Output);
  CHECK(m.entryArgs[3].role == EntryArgRole::Arena);
}

TEST_CASE("GuardManifest rejects inconsistent manifests", "[runtime]") {
  auto message = [](const std::string &json) {
    auto [status, text] = failure([&] { GuardManifest::parse(json); });
    CHECK(status == TCC_ERROR_INVALID_MANIFEST);
    return text;
  };
  const std::string head = R"("format": "tcc-guard-manifest", "version": 1, )";
  CHECK_THAT(message("{"), Catch::StartsWith("invalid guard manifest: not JSON"));
  CHECK(message(R"({"format": "other", "version": 1})") ==
        "invalid guard manifest: 'format' is not \"tcc-guard-manifest\"");
  CHECK(message(R"({"format": "tcc-guard-manifest", "version": 2})") ==
        "invalid guard manifest: unsupported version 2 (this runtime reads 1)");
  CHECK(message("{" + head + R"("outputs": []})") ==
        "invalid guard manifest: manifest lacks 'inputs'");
  CHECK(message("{" + head +
                R"("inputs": [{"name": "x", "dtype": "complex32", "sizes": [1]}], "outputs": []})") ==
        "invalid guard manifest: inputs[0] has unknown dtype 'complex32'");
  CHECK(message("{" + head +
                R"("inputs": [{"name": "x", "dtype": "float32", "sizes": ["s0 +"]}], "outputs": []})") ==
        "invalid guard manifest: inputs[0]: invalid size expression 's0 +' at column 5: "
        "expected an operand");
  CHECK(message("{" + head +
                R"("inputs": [], "outputs": [{"name": "y", "dtype": "float32", "sizes": ["s9"]}]})") ==
        "invalid guard manifest: output 'y' uses symbol 's9', which no input dimension binds");
  CHECK(message("{" + head + R"("inputs": [], "outputs": [], "weights": [{"name": "w",
        "dtype": "float32", "sizes": [3], "offset": 0, "bytes": 8}]})") ==
        "invalid guard manifest: weights[0] ('w'): 8 bytes do not match float32 [3]");
  CHECK(message("{" + head + R"("inputs": [{"name": "x", "dtype": "float32", "sizes": [2]}],
        "outputs": [], "entry": {"args": [{"role": "input", "index": 0, "rank": 2}]}})") ==
        "invalid guard manifest: entry argument input #0 has rank 2, expected 1");
  CHECK(message("{" + head + R"("inputs": [], "outputs": [],
        "entry": {"args": [{"role": "output", "index": 0, "rank": 1}]}})") ==
        "invalid guard manifest: entry argument output #0 does not exist");
  CHECK(message("{" + head + R"("inputs": [], "outputs": [], "cpu_isa": "avx9"})") ==
        "invalid guard manifest: 'cpu_isa' is 'avx9', not one of x86-64, x86-64-v2, "
        "x86-64-v3, x86-64-v4");
  CHECK(message("{" + head + R"("inputs": [], "outputs": [], "cpu_isa": 2})") ==
        "invalid guard manifest: 'cpu_isa' is not a string");
}

TEST_CASE("GuardManifest reads the CPU path's x86-64 level", "[runtime]") {
  GuardManifest m = GuardManifest::parse(
      R"({"format": "tcc-guard-manifest", "version": 1, "inputs": [], "outputs": [],
          "cpu_isa": "x86-64-v2"})");
  CHECK(m.cpuIsa == "x86-64-v2");
  // Every x86-64 processor runs baseline code; the build machine is at least v2.
  CHECK(GuardManifest::hostSupportsCpuIsa("x86-64"));
  CHECK(GuardManifest::hostSupportsCpuIsa("x86-64-v2"));
}

TEST_CASE("GuardManifest reports members of the wrong JSON type", "[runtime]") {
  auto [status, text] = failure([] {
    GuardManifest::parse(R"({"format": 1, "version": 1, "inputs": [], "outputs": []})");
  });
  CHECK(status == TCC_ERROR_INVALID_MANIFEST);
  CHECK_THAT(text, Catch::StartsWith("invalid guard manifest: "));
}

TEST_CASE("GuardManifest reads the kernels' counts and refuses bad ones", "[runtime]") {
  GuardManifest m = GuardManifest::parse(
      R"({"format": "tcc-guard-manifest", "version": 1, "inputs": [], "outputs": [],
          "kernels": [{"kind": "gemm", "flops": 1572864, "bytes": 230912},
                      {"kind": "row", "bytes": 17408}, {"kind": "copy"}]})");
  REQUIRE(m.kernels.size() == 3);
  CHECK(m.kernels[0].flops == 1572864);
  CHECK(m.kernels[0].bytes == 230912);
  CHECK(m.kernels[1].flops == -1); // not counted
  CHECK(m.kernels[1].bytes == 17408);
  CHECK(m.kernels[2].bytes == -1);
  for (const char *kernel : {R"({"kind": "gemm", "flops": -5})", R"({"kind": "gemm", "bytes": "9"})",
                             R"({"kind": "gemm", "flops": 1.5})"}) {
    auto [status, text] = failure([&] {
      GuardManifest::parse(std::string(R"({"format": "tcc-guard-manifest", "version": 1,
          "inputs": [], "outputs": [], "kernels": [)") + kernel + "]}");
    });
    CHECK(status == TCC_ERROR_INVALID_MANIFEST);
    CHECK_THAT(text, Catch::Contains("kernel."));
  }
}

//===----------------------------------------------------------------------===//
// Shape specializations (tcc compile --specialize)
//===----------------------------------------------------------------------===//

namespace {
/// The manifest tcc writes for `--specialize s77=1,8` of the dynamic-batch
/// sample: the generic variant, then the two static ones with their arenas.
GuardManifest specializedManifest() {
  auto p = frontend::readExportedProgram(std::string(TCC_SOURCE_DIR) +
                                         "/samples/mymodule_dynamic_batch/model.pt2");
  ImportedSignature sig;
  sig.inputs = {"x"};
  for (const auto &spec : p.inputSpecs)
    if (spec.kind != frontend::InputKind::UserInput)
      sig.weights.push_back(spec);
  for (const auto &spec : p.outputSpecs)
    sig.outputs.push_back(spec.graphName);
  ManifestInfo info{"dyn", {Target::Cpu}, true};
  info.specializations = {{"s77=1", {{"s77", 1}}, 64}, {"s77=8", {{"s77", 8}}, 320}};
  nlohmann::json json =
      buildManifest(p, sig, WeightLayout::build(p, sig), PlannedArena{40960, {}}, info);
  return GuardManifest::parse(json.dump());
}
} // namespace

TEST_CASE("GuardManifest reads back several specializations", "[runtime][specialize]") {
  GuardManifest m = specializedManifest();
  REQUIRE(m.specializations.size() == 3);
  const Specialization &generic = m.specializations[0], &b8 = m.specializations[2];
  CHECK(generic.name == "generic");
  CHECK(generic.entrySymbol == "tcc_model_forward");
  CHECK(generic.arenaBytes == 40960);
  CHECK(generic.guardText() == "any");
  CHECK(b8.name == "s77=8");
  CHECK(b8.entrySymbol == "tcc_model_forward_2");
  CHECK(b8.arenaBytes == 320);
  REQUIRE(b8.symbols.size() == 1);
  CHECK(b8.symbols[0].second == std::make_pair<int64_t, int64_t>(8, 8));
  CHECK(b8.guardText() == "s77 == 8");
  CHECK(m.maxArenaBytes() == 40960);
}

TEST_CASE("GuardManifest selects the specialization the sizes match, else the generic one",
          "[runtime][specialize]") {
  GuardManifest m = specializedManifest();
  for (auto [batch, expected] : {std::pair<int64_t, size_t>{1, 1}, {8, 2}, {7, 0}, {1024, 0}}) {
    Shape x{{batch, 100}};
    tcc_tensor t = x.tensor();
    CHECK(m.selectSpecialization(m.bindInputs(&t, 1)) == expected);
  }
}

TEST_CASE("GuardManifest prefers the variant that pins more symbols", "[runtime][specialize]") {
  const char *json = R"json({
    "format": "tcc-guard-manifest", "version": 1, "model": "pair",
    "symbols": { "s0": { "min": 1, "max": 64 }, "s1": { "min": 1, "max": 8 } },
    "inputs":  [ { "name": "a", "dtype": "float32", "sizes": ["s0", "s1"] } ],
    "outputs": [ { "name": "b", "dtype": "float32", "sizes": ["s0", "s1"] } ],
    "arena":   { "bytes": 100 },
    "specializations": [
      { "name": "generic", "symbols": { "s0": [1, 64], "s1": [1, 8] } },
      { "name": "s0=4", "symbols": { "s0": [4, 4], "s1": [1, 8] }, "arena": { "bytes": 10 } },
      { "name": "s0=4,s1=2", "symbols": { "s0": [4, 4], "s1": [2, 2] },
        "arena": { "bytes": 200 } } ]
  })json";
  GuardManifest m = GuardManifest::parse(json);
  CHECK(m.selectSpecialization({{"s0", 4}, {"s1", 2}}) == 2);
  CHECK(m.selectSpecialization({{"s0", 4}, {"s1", 3}}) == 1);
  CHECK(m.selectSpecialization({{"s0", 5}, {"s1", 2}}) == 0);
  CHECK(m.specializations[2].guardText() == "s0 == 4 && s1 == 2");
  CHECK(m.specializations[1].entrySymbol == "tcc_model_forward_1");
  CHECK(m.maxArenaBytes() == 200);
}

TEST_CASE("GuardManifest rejects inconsistent specializations", "[runtime][specialize]") {
  auto withSpecializations = [](const std::string &list) {
    std::string json = kDynamicBatchManifest;
    std::string old = R"("specializations": [ { "name": "generic", "symbols": { "s77": [1, 1024] } } ])";
    json.replace(json.find(old), old.size(), "\"specializations\": " + list);
    return failure([&] { GuardManifest::parse(json); });
  };
  auto [status, message] = withSpecializations(R"([ { "name": "s77=8", "symbols": { "s77": [8, 8] } } ])");
  CHECK(status == TCC_ERROR_INVALID_MANIFEST);
  CHECK(message == "invalid guard manifest: specializations[0] ('s77=8'): the generic variant "
                   "comes first, once");
  CHECK(withSpecializations(R"([ { "name": "generic", "symbols": { "s77": [1, 1024] } },
                                 { "name": "big", "symbols": { "s77": [2000, 2000] } } ])")
            .second == "invalid guard manifest: specializations[1].symbols.s77: [2000, 2000] is "
                       "no range of a symbol of the manifest");
  CHECK(withSpecializations(R"([ { "name": "generic", "symbols": { "s77": [1, 8] } } ])").second ==
        "invalid guard manifest: specializations[0]: the generic variant covers only part of "
        "s77's range");
  CHECK(withSpecializations(R"([])").second ==
        "invalid guard manifest: 'specializations' is empty (it lists at least the generic "
        "variant)");
}

TEST_CASE("GuardManifest refuses sizes where a window count and the export's size differ",
          "[runtime]") {
  // symbolic_pooling's avg_pool2d(x, 3, stride=3, padding=1, ceil_mode=True):
  // the export's (s0 + 1)//3 holds where (s0 + 1) % 3 == 0 (issue 39).
  const char *manifest = R"json({
    "format": "tcc-guard-manifest", "version": 1, "model": "pool",
    "symbols": { "s0": { "min": 4, "max": 64 } },
    "inputs":  [ { "name": "x", "dtype": "float32", "sizes": [1, "s0"] } ],
    "outputs": [ { "name": "y", "dtype": "float32", "sizes": [1, "(s0 + 1)//3"] } ],
    "size_checks": [ { "operator": "aten.avg_pool1d.default", "where": "m.py:3", "dim": 1,
                       "size": "(s0 + 1)//3", "input": "s0", "kernel": 3, "stride": 3,
                       "padding": 1, "dilation": 1, "ceil_mode": true } ],
    "arena":   { "bytes": 0 }
  })json";
  GuardManifest m = GuardManifest::parse(manifest);
  REQUIRE(m.sizeChecks.size() == 1);
  for (int64_t n : {8, 11, 14}) {
    Shape x{{1, n}};
    tcc_tensor t = x.tensor();
    CHECK(m.bindInputs(&t, 1).at("s0") == n);
  }
  Shape x{{1, 12}};
  tcc_tensor t = x.tensor();
  auto [status, message] = failure([&] { m.bindInputs(&t, 1); });
  CHECK(status == TCC_ERROR_GUARD_VIOLATION);
  CHECK(message == "operator aten.avg_pool1d.default at m.py:3: result dimension 1 has 5 windows "
                   "over an input of size 12 (s0), but the export sized it (s0 + 1)//3 = 4; "
                   "these input sizes break a guard torch.export recorded for this operator "
                   "(its result size expression holds only where they hold)");
  // A check naming a symbol the manifest lacks, or a stride of 0, is no manifest.
  std::string bad = manifest;
  bad.replace(bad.find("\"input\": \"s0\""), 13, "\"input\": \"s9\"");
  CHECK(failure([&] { GuardManifest::parse(bad); }).first == TCC_ERROR_INVALID_MANIFEST);
  bad = manifest;
  bad.replace(bad.find("\"stride\": 3"), 11, "\"stride\": 0");
  CHECK(failure([&] { GuardManifest::parse(bad); }).first == TCC_ERROR_INVALID_MANIFEST);
}

TEST_CASE("slidingWindowCount is PyTorch's pooling_output_shape", "[runtime]") {
  // ceil_mode's last window dropped where it would start in the padding.
  CHECK(slidingWindowCount(12, 3, 1, 3, 1, true) == 5);
  CHECK(slidingWindowCount(11, 3, 1, 3, 1, true) == 4);
  CHECK(slidingWindowCount(6, 2, 1, 3, 1, true) == 3);
  CHECK(slidingWindowCount(5, 2, 1, 2, 1, true) == 3);
  CHECK(slidingWindowCount(4, 2, 1, 2, 1, true) == 3);
  CHECK(slidingWindowCount(3, 3, 1, 2, 1, true) == 2);
  CHECK(slidingWindowCount(20, 3, 1, 2, 1, false) == 10);
  CHECK(slidingWindowCount(10, 5, 0, 1, 2, false) == 2);
}

TEST_CASE("GuardManifest enforces the export's input guards", "[runtime]") {
  const char *manifest = R"json({
    "format": "tcc-guard-manifest", "version": 1, "model": "pool",
    "symbols": { "s0": { "min": 4, "max": 64 } },
    "inputs":  [ { "name": "x", "dtype": "float32", "sizes": [1, "s0"] } ],
    "outputs": [ { "name": "y", "dtype": "float32", "sizes": [1, "s0"] } ],
    "input_guards": [ { "text": "(L['x'].size()[1] % 2) == 0", "enforced": true },
                      { "text": "L['x'].stride()[0] == 1", "enforced": false,
                        "reason": "not supported" } ],
    "arena":   { "bytes": 0 }
  })json";
  GuardManifest m = GuardManifest::parse(manifest);
  REQUIRE(m.inputGuards.size() == 1);
  REQUIRE(m.unenforcedGuards.size() == 1);
  CHECK_FALSE(m.allStatic);
  Shape even{{1, 14}};
  tcc_tensor t = even.tensor();
  CHECK(m.bindInputs(&t, 1).at("s0") == 14);
  Shape odd{{1, 13}};
  t = odd.tensor();
  auto [status, message] = failure([&] { m.bindInputs(&t, 1); });
  CHECK(status == TCC_ERROR_GUARD_VIOLATION);
  CHECK(message == "input 'x' (#0): the export holds only where (L['x'].size()[1] % 2) == 0; "
                   "got size()[1] = 13");
  // An enforced guard the runtime cannot parse is an altered manifest, not
  // a guard to drop.
  std::string bad = manifest;
  bad.replace(bad.find("size()[1] % 2"), 13, "size()[7] % 2");
  CHECK(failure([&] { GuardManifest::parse(bad); }).first == TCC_ERROR_INVALID_MANIFEST);
  bad = manifest;
  bad.replace(bad.find("\"enforced\": true"), 16, "\"enforced\": 1");
  CHECK(failure([&] { GuardManifest::parse(bad); }).first == TCC_ERROR_INVALID_MANIFEST);
}

TEST_CASE("GuardManifest reads the value checks and refuses malformed ones", "[runtime]") {
  const std::string manifest = R"json({
    "format": "tcc-guard-manifest", "version": 1, "model": "checked",
    "inputs":  [ { "name": "x", "dtype": "float32", "sizes": [2, 3] } ],
    "outputs": [ { "name": "y", "dtype": "float32", "sizes": [2, 3] } ],
    "value_checks": [ "u0 >= 1 (model.py:4)", "u0 <= 100 (model.py:5)" ],
    "arena":   { "bytes": 0 }
  })json";
  GuardManifest m = GuardManifest::parse(manifest);
  REQUIRE(m.valueChecks.size() == 2);
  CHECK(m.valueChecks[1] == "u0 <= 100 (model.py:5)");
  // Not an array, or an element that is not a string: an altered manifest.
  for (const char *bad : {"\"u0 >= 1\"", "[ 1 ]", "[ { \"text\": \"u0 >= 1\" } ]", "null"}) {
    std::string text = manifest;
    size_t at = text.find("[ \"u0 >= 1");
    text.replace(at, text.find(']', at) + 1 - at, bad);
    INFO(text);
    CHECK(failure([&] { GuardManifest::parse(text); }).first == TCC_ERROR_INVALID_MANIFEST);
  }
}
