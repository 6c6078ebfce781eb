//===- DerivedWeightsTest.cpp - derived weights: evaluator, manifest, Model ===//
//
// The evaluator of derived weights' programs (NumPy broadcasting, double
// precision, rounding to nearest even into f16/bf16), its checks of a
// program against the manifest, the manifest's round trip from the compiler
// to the runtime, and a Model recomputing derived weights after a binding.
//
//===----------------------------------------------------------------------===//
#include "tcc/Frontend/ExportedProgramReader.h"
#include "tcc/Runtime/DerivedWeights.h"
#include "tcc/Runtime/GuardManifest.h"
#include "tcc/Runtime/Model.h"
#include "tcc/Runtime/RuntimeError.h"
#include "tcc/Support/HalfFloat.h"
#include "tcc/Target/ManifestBuilder.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>

using namespace tcc;

namespace {

/// Named float tensors a program reads, by manifest index in insertion order.
struct Sources {
  struct Entry {
    std::string name;
    DType dtype;
    std::vector<int64_t> sizes;
    std::vector<uint8_t> bytes;
  };
  std::vector<Entry> entries;

  void add(const std::string &name, std::vector<int64_t> sizes, const std::vector<double> &values,
           DType dtype = DType::Float32) {
    Entry e{name, dtype, std::move(sizes), {}};
    e.bytes.resize(values.size() * dtypeSize(dtype));
    for (size_t i = 0; i < values.size(); ++i)
      storeFloat(dtype, e.bytes.data(), static_cast<int64_t>(i), values[i]);
    entries.push_back(std::move(e));
  }

  DerivedProgram::SourceLookup lookup() const {
    return [this](std::string_view name) -> std::optional<DerivedProgram::Source> {
      for (size_t i = 0; i < entries.size(); ++i)
        if (entries[i].name == name)
          return DerivedProgram::Source{i, entries[i].dtype, entries[i].sizes, false};
      return std::nullopt;
    };
  }

  /// Evaluates `tokens` into a tensor of `sizes`, read back as doubles.
  std::vector<double> eval(const std::vector<std::string> &tokens, std::vector<int64_t> sizes,
                           DType dtype = DType::Float64) const {
    DerivedProgram p = DerivedProgram::parse("d", dtype, sizes, tokens, lookup());
    std::vector<const void *> data;
    for (const Entry &e : entries)
      data.push_back(e.bytes.data());
    int64_t n = 1;
    for (int64_t s : sizes)
      n *= s;
    std::vector<uint8_t> out(static_cast<size_t>(n) * dtypeSize(dtype));
    p.evaluate(data.data(), out.data());
    std::vector<double> values;
    for (int64_t i = 0; i < n; ++i)
      values.push_back(loadFloat(dtype, out.data(), i));
    return values;
  }

  /// The message parse() throws for `tokens` (of a weight of `sizes`).
  std::string parseError(const std::vector<std::string> &tokens,
                         std::vector<int64_t> sizes = {}) const {
    try {
      DerivedProgram::parse("d", DType::Float32, sizes, tokens, lookup());
    } catch (const RuntimeError &e) {
      CHECK(e.status() == TCC_ERROR_INVALID_MANIFEST);
      return e.what();
    }
    return "";
  }
};

double twoTo(int e) { return std::ldexp(1.0, e); }

} // namespace

TEST_CASE("derived programs broadcast as NumPy does", "[derived]") {
  Sources s;
  s.add("a", {2, 1, 3}, {1, 2, 3, 4, 5, 6});
  s.add("b", {4, 1}, {10, 20, 30, 40});
  // [2, 1, 3] + [4, 1] -> [2, 4, 3]: out[i, j, k] = a[i, 0, k] + b[j, 0].
  std::vector<double> sum = s.eval({"weight:a", "weight:b", "add"}, {2, 4, 3});
  REQUIRE(sum.size() == 24);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k)
        CHECK(sum[(i * 4 + j) * 3 + k] == (i * 3 + k + 1) + 10.0 * (j + 1));
  // A scalar broadcasts everywhere; sub and div keep their operand order.
  CHECK(s.eval({"const:1", "weight:b", "div"}, {4, 1}) ==
        std::vector<double>{0.1, 0.05, 1.0 / 30, 0.025});
  CHECK(s.eval({"weight:b", "const:5", "sub", "neg"}, {4, 1}) ==
        std::vector<double>{-5, -15, -25, -35});
}

TEST_CASE("derived programs compute batch norm's scale and shift in double", "[derived]") {
  Sources s;
  s.add("var", {3}, {0.25, 1.0, 4.0});
  s.add("w", {3}, {2.0, 3.0, -1.0});
  s.add("mean", {3}, {1.0, -2.0, 0.5});
  s.add("b", {3}, {0.0, 1.0, 2.0});
  std::vector<std::string> scale = {"weight:var", "const:0", "add", "rsqrt", "weight:w", "mul"};
  CHECK(s.eval(scale, {3}) == std::vector<double>{4.0, 3.0, -0.5});
  std::vector<std::string> shift = {"const:0", "weight:mean"};
  shift.insert(shift.end(), scale.begin(), scale.end());
  for (const char *t : {"mul", "sub", "weight:b", "add"})
    shift.push_back(t);
  CHECK(s.eval(shift, {3}) == std::vector<double>{-4.0, 7.0, 2.25});
  // Reshaped to [C, 1, 1] and applied to a [C, 2, 2] weight (batch norm
  // folded into a convolution: W * scale[F, 1, 1, 1]).
  s.add("conv", {3, 2, 2}, {1, 2, 3, 4, 1, 1, 1, 1, 2, 2, 2, 2});
  std::vector<std::string> folded = {"weight:conv"};
  folded.insert(folded.end(), scale.begin(), scale.end());
  folded.push_back("reshape:3,1,1");
  folded.push_back("mul");
  CHECK(s.eval(folded, {3, 2, 2}) ==
        std::vector<double>{4, 8, 12, 16, 3, 3, 3, 3, -1, -1, -1, -1});
  // sqrt, exp, log, abs, pow, maximum and minimum (NaN wins, as in PyTorch).
  CHECK(s.eval({"weight:var", "sqrt"}, {3}) == std::vector<double>{0.5, 1.0, 2.0});
  CHECK(s.eval({"weight:w", "abs", "log", "exp"}, {3})[1] == Approx(3.0));
  CHECK(s.eval({"weight:w", "const:2", "pow"}, {3}) == std::vector<double>{4, 9, 1});
  CHECK(s.eval({"weight:w", "weight:mean", "maximum"}, {3}) == std::vector<double>{2, 3, 0.5});
  CHECK(s.eval({"weight:w", "weight:mean", "minimum"}, {3}) == std::vector<double>{1, -2, -1});
  CHECK(std::isnan(s.eval({"weight:w", "const:nan", "maximum"}, {3})[0]));
}

TEST_CASE("derived programs reshape, broadcast and transpose", "[derived]") {
  Sources s;
  s.add("m", {2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(s.eval({"weight:m", "transpose:1,0"}, {3, 2}) == std::vector<double>{1, 4, 2, 5, 3, 6});
  CHECK(s.eval({"weight:m", "reshape:3,2", "transpose:1,0"}, {2, 3}) ==
        std::vector<double>{1, 3, 5, 2, 4, 6});
  CHECK(s.eval({"weight:m", "reshape:2,1,3", "broadcast:2,2,3"}, {2, 2, 3}) ==
        std::vector<double>{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6});
  CHECK(s.eval({"const:7", "broadcast:2"}, {2}) == std::vector<double>{7, 7});
  // Rank 0: "reshape:" has an empty list.
  s.add("one", {1, 1}, {2.5});
  CHECK(s.eval({"weight:one", "reshape:"}, {}) == std::vector<double>{2.5});
  CHECK(s.eval({"weight:one", "reshape:", "weight:m", "mul"}, {2, 3}) ==
        std::vector<double>{2.5, 5, 7.5, 10, 12.5, 15});
}

TEST_CASE("derived programs concatenate along any dim", "[derived]") {
  Sources s;
  s.add("q", {2, 3}, {1, 2, 3, 4, 5, 6});
  s.add("k", {1, 3}, {7, 8, 9});
  s.add("v", {2, 1}, {10, 11});
  // Rows (the joined weight of sibling linear layers), then columns.
  CHECK(s.eval({"weight:q", "weight:k", "concat:0"}, {3, 3}) ==
        std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(s.eval({"weight:q", "weight:v", "concat:1"}, {2, 4}) ==
        std::vector<double>{1, 2, 3, 10, 4, 5, 6, 11});
  // Pairwise, left to right: three parts.
  CHECK(s.eval({"weight:k", "weight:q", "concat:0", "weight:k", "concat:0"}, {4, 3}) ==
        std::vector<double>{7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  const std::string d = "invalid guard manifest: derived weight 'd': ";
  CHECK(s.parseError({"weight:q", "weight:k", "concat:1"}, {2, 6}) ==
        d + "token #2 'concat:1': cannot join [2,3] and [1,3]");
  CHECK(s.parseError({"weight:q", "weight:k", "concat:2"}, {3, 3}) ==
        d + "token #2 'concat:2': not a dim of [2,3]");
  CHECK(s.parseError({"weight:q", "concat:0"}, {2, 3}) ==
        d + "token #1 'concat:0' has too few operands");
}

TEST_CASE("derived programs build rotary tables from positions", "[derived]") {
  Sources s;
  s.add("inv_freq", {2}, {1.0, 0.5});
  // positions 0..3 (iota) times the frequencies, joined twice, cos and sin:
  // a rotary embedding's tables, [4, 4].
  std::vector<std::string> freqs = {"iota:4,0,1", "reshape:4,1", "weight:inv_freq", "mul",
                                    "keep:0", "recall:0", "concat:1"};
  std::vector<std::string> cos = freqs, sin = freqs;
  cos.push_back("cos");
  sin.push_back("sin");
  std::vector<double> c = s.eval(cos, {4, 4}), n = s.eval(sin, {4, 4});
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      double angle = i * (j % 2 == 0 ? 1.0 : 0.5);
      CHECK(c[i * 4 + j] == std::cos(angle));
      CHECK(n[i * 4 + j] == std::sin(angle));
    }
  // A fractional start and step.
  CHECK(s.eval({"iota:3,0.5,-0.25"}, {3}) == std::vector<double>{0.5, 0.25, 0.0});
  const std::string d = "invalid guard manifest: derived weight 'd': ";
  CHECK(s.parseError({"iota:3,0"}, {3}) == d + "token #0 'iota:3,0': expected SIZE,START,STEP");
  CHECK(s.parseError({"iota:x,0,1"}, {3}) == d + "token #0 'iota:x,0,1': expected SIZE,START,STEP");
  CHECK(s.parseError({"iota:3,0,1"}, {4}) == d + "the program computes [3], the weight is [4]");
}

TEST_CASE("derived programs slice, compare, select and share values", "[derived]") {
  Sources s;
  s.add("m", {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  // slice:DIM,START,STEP,SIZE
  CHECK(s.eval({"weight:m", "slice:1,1,2,2"}, {2, 2}) == std::vector<double>{2, 4, 6, 8});
  CHECK(s.eval({"weight:m", "slice:0,1,1,1"}, {1, 4}) == std::vector<double>{5, 6, 7, 8});
  CHECK(s.eval({"weight:m", "slice:1,3,1,0"}, {2, 0}).empty());
  // Comparisons give 1 and 0, with NaN unequal to everything.
  s.add("n", {3}, {1, NAN, 3});
  CHECK(s.eval({"weight:n", "const:1", "compare:ne"}, {3}) == std::vector<double>{0, 1, 1});
  CHECK(s.eval({"weight:n", "const:1", "compare:eq"}, {3}) == std::vector<double>{1, 0, 0});
  CHECK(s.eval({"weight:n", "const:2", "compare:ge"}, {3}) == std::vector<double>{0, 0, 1});
  // select pops rhs, lhs, condition; all three broadcast.
  CHECK(s.eval({"weight:n", "const:2", "compare:lt", "const:-100", "const:5", "select"}, {3}) ==
        std::vector<double>{-100, 5, 5});
  CHECK(s.eval({"weight:m", "const:4", "compare:gt", "const:1", "broadcast:1,4", "const:0",
                "select"},
               {2, 4}) == std::vector<double>{0, 0, 0, 0, 1, 1, 1, 1});
  // keep:K leaves the stack as it was; recall:K pushes the kept value again.
  CHECK(s.eval({"weight:m", "const:1", "add", "keep:0", "recall:0", "mul"}, {2, 4}) ==
        std::vector<double>{4, 9, 16, 25, 36, 49, 64, 81});
  const std::string d = "invalid guard manifest: derived weight 'd': ";
  CHECK(s.parseError({"weight:m", "slice:1,2,2,2"}, {2, 2}) ==
        d + "token #1 'slice:1,2,2,2': outside [2,4]");
  CHECK(s.parseError({"weight:m", "slice:2,0,1,1"}, {2, 4}) ==
        d + "token #1 'slice:2,0,1,1': not a dim of [2,4]");
  CHECK(s.parseError({"weight:m", "slice:1,0,1"}, {2, 1}) ==
        d + "token #1 'slice:1,0,1': expected DIM,START,STEP,SIZE");
  CHECK(s.parseError({"weight:m", "const:0", "compare:is"}, {2, 4}) ==
        d + "token #2 'compare:is': not a predicate (eq, ne, lt, le, gt, ge)");
  CHECK(s.parseError({"weight:m", "recall:3"}, {2, 4}) ==
        d + "token #1 'recall:3': nothing was kept in that slot");
  CHECK(s.parseError({"weight:m", "const:1", "select"}, {2, 4}) ==
        d + "token #2 'select' has too few operands");
}

TEST_CASE("derived programs take along a dim by an integer weight", "[derived]") {
  Sources s;
  s.add("table", {4, 2}, {10, 11, 20, 21, 30, 31, 40, 41});
  Sources::Entry index{"index", DType::Int64, {3}, std::vector<uint8_t>(3 * 8)};
  const int64_t rows[3] = {2, -1, 0};
  std::memcpy(index.bytes.data(), rows, sizeof rows);
  s.entries.push_back(index);
  // Rows 2, 3 (as -1) and 0; then along dim 1 with a reshaped index.
  CHECK(s.eval({"weight:table", "weight:index", "take:0"}, {3, 2}) ==
        std::vector<double>{30, 31, 40, 41, 10, 11});
  CHECK(s.eval({"weight:table", "weight:index", "slice:0,2,1,1", "take:1"}, {4, 1}) ==
        std::vector<double>{10, 20, 30, 40});
  const std::string d = "invalid guard manifest: derived weight 'd': ";
  CHECK(s.parseError({"weight:table", "weight:index", "take:2"}, {3, 2}) ==
        d + "token #2 'take:2': not a dim of [4,2]");
  // An index out of range fails when the weight is computed.
  Sources bad = s;
  int64_t nine = 9;
  std::memcpy(bad.entries[1].bytes.data(), &nine, 8);
  CHECK_THROWS_WITH(bad.eval({"weight:table", "weight:index", "take:0"}, {3, 2}),
                    "derived weight 'd': index 9 is out of range for a dim of size 4");
}

TEST_CASE("derived weights round to nearest even into bf16 and f16", "[derived]") {
  // bfloat16 keeps 8 significant bits: 1 + 2^-8 is halfway between 1 and
  // 1 + 2^-7 and goes to the even one, 1; 1 + 3 * 2^-8 goes up to 1 + 2^-6.
  CHECK(doubleToBFloat16(1 + twoTo(-8)) == 0x3f80);
  CHECK(doubleToBFloat16(1 + 3 * twoTo(-8)) == 0x3f82);
  CHECK(doubleToBFloat16(-(1 + twoTo(-7))) == 0xbf81);
  // Just above the tie, by less than a float's precision: a double rounded
  // to float first would land on the tie and go down; the right answer is up.
  CHECK(doubleToBFloat16(1 + twoTo(-8) + twoTo(-40)) == 0x3f81);
  CHECK(doubleToBFloat16(std::numeric_limits<double>::infinity()) == 0x7f80);
  CHECK(doubleToBFloat16(1e300) == 0x7f80);
  CHECK((doubleToBFloat16(std::nan("")) & 0x7fff) > 0x7f80);
  // float16: 11 significant bits, largest finite 65504, subnormals of 2^-24.
  CHECK(doubleToHalf(1 + twoTo(-11)) == 0x3c00);
  CHECK(doubleToHalf(1 + 3 * twoTo(-11)) == 0x3c02);
  CHECK(doubleToHalf(1 + twoTo(-11) + twoTo(-40)) == 0x3c01);
  CHECK(doubleToHalf(65504) == 0x7bff);
  CHECK(doubleToHalf(65519.99) == 0x7bff);
  CHECK(doubleToHalf(65520) == 0x7c00);
  CHECK(doubleToHalf(-1e9) == 0xfc00);
  CHECK(doubleToHalf(twoTo(-24)) == 0x0001);
  CHECK(doubleToHalf(twoTo(-25)) == 0x0000);                 // a tie: to even, 0
  CHECK(doubleToHalf(3 * twoTo(-26)) == 0x0001);             // 0.75 units: up
  CHECK(doubleToHalf(3 * twoTo(-25)) == 0x0002);             // 1.5 units: to even, 2
  CHECK(doubleToHalf(twoTo(-14) - twoTo(-25)) == 0x0400);    // rounds up to the smallest normal
  CHECK(halfToFloat(doubleToHalf(0.1)) == Approx(0.1).epsilon(1e-3));
  // The evaluator stores in the weight's dtype and rounds at a cast.
  Sources s;
  s.add("x", {2}, {1 + twoTo(-8) + twoTo(-40), 1 + 3 * twoTo(-11)}, DType::Float64);
  CHECK(s.eval({"weight:x"}, {2}, DType::BFloat16) == std::vector<double>{1 + twoTo(-7), 1});
  // In f16, 1 + 2^-8 is exact; 1 + 1.5 units of 2^-10 is a tie, to even.
  CHECK(s.eval({"weight:x"}, {2}, DType::Float16) == std::vector<double>{1 + twoTo(-8), 1 + twoTo(-9)});
  CHECK(s.eval({"weight:x", "cast:bfloat16", "const:1", "sub"}, {2}) ==
        std::vector<double>{twoTo(-7), 0});
  // bf16 sources are read exactly.
  Sources b;
  b.add("h", {1}, {1 + twoTo(-7)}, DType::BFloat16);
  CHECK(b.eval({"weight:h", "const:1", "sub"}, {1}) == std::vector<double>{twoTo(-7)});
}

TEST_CASE("derived programs are checked against the manifest", "[derived]") {
  Sources s;
  s.add("a", {2, 3}, {1, 2, 3, 4, 5, 6});
  s.add("b", {4}, {1, 2, 3, 4});
  const std::string d = "invalid guard manifest: derived weight 'd': ";
  CHECK(s.parseError({"weight:a", "frobnicate"}, {2, 3}) ==
        d + "token #1 'frobnicate' is not an operation");
  CHECK(s.parseError({"weight:zz"}) == d + "token #0 'weight:zz': the model has no weight of that name");
  CHECK(s.parseError({"weight:a", "add"}) == d + "token #1 'add' has too few operands");
  CHECK(s.parseError({"weight:a", "weight:b", "mul"}) ==
        d + "token #2 'mul': shapes [2,3] and [4] do not broadcast");
  CHECK(s.parseError({"weight:a", "reshape:4"}) == d + "token #1 'reshape:4': cannot reshape [2,3] to [4]");
  CHECK(s.parseError({"weight:a", "broadcast:3,3"}) ==
        d + "token #1 'broadcast:3,3': cannot broadcast [2,3] to [3,3]");
  CHECK(s.parseError({"weight:a", "transpose:0,0"}) == d + "token #1 'transpose:0,0': not a permutation");
  CHECK(s.parseError({"weight:a", "cast:int64"}) == d + "token #1 'cast:int64': not a float dtype");
  CHECK(s.parseError({"const:x1"}) == d + "token #0 'const:x1': not a number");
  CHECK(s.parseError({"add:1"}) == d + "token #0 'add:1' takes no argument");
  CHECK(s.parseError({"weight:a", "weight:a"}, {2, 3}) ==
        d + "the program leaves 2 values, expected 1");
  CHECK(s.parseError({"weight:a"}, {3, 2}) == d + "the program computes [2,3], the weight is [3,2]");
  // A source that is itself derived.
  auto lookup = [](std::string_view name) -> std::optional<DerivedProgram::Source> {
    if (name == "other")
      return DerivedProgram::Source{0, DType::Float32, {2}, true};
    return DerivedProgram::Source{1, DType::Int64, {2}, false};
  };
  try {
    DerivedProgram::parse("d", DType::Float32, {2}, {"weight:other"}, lookup);
    FAIL("a derived source was accepted");
  } catch (const RuntimeError &e) {
    CHECK(std::string(e.what()) == d + "token #0 'weight:other': that weight is itself derived");
  }
  // Integer sources are read (as take's indices), exactly.
  CHECK_NOTHROW(DerivedProgram::parse("d", DType::Float32, {2}, {"weight:ids"}, lookup));
}

//===----------------------------------------------------------------------===//
// Manifest and Model
//===----------------------------------------------------------------------===//

namespace {

/// x [4] + d, where d = w * 2 + b is derived; w and b are external and
/// read only by d (host-only).
const char *kDerivedManifest = R"json({
  "format": "tcc-guard-manifest", "version": 1, "model": "derived",
  "inputs":  [ { "name": "x", "dtype": "float32", "device": "cpu", "sizes": [4] } ],
  "outputs": [ { "name": "y", "dtype": "float32", "sizes": [4] } ],
  "weights": [ { "name": "w", "kind": "parameter", "dtype": "float32", "sizes": [4],
                 "offset": 0, "bytes": 16, "embedded": false, "host_only": true },
               { "name": "b", "kind": "parameter", "dtype": "float32", "sizes": [4],
                 "offset": 64, "bytes": 16, "embedded": false, "host_only": true },
               { "name": "derived:w:0", "kind": "derived", "dtype": "float32", "sizes": [4],
                 "bytes": 16, "embedded": false,
                 "derived": ["weight:w", "const:2", "mul", "weight:b", "add"] } ],
  "arena":   { "bytes": 64 },
  "entry":   { "symbol": "tcc_model_forward",
               "args": [ { "role": "input",  "index": 0, "rank": 1 },
                         { "role": "weight", "index": 0, "rank": 1 },
                         { "role": "weight", "index": 1, "rank": 1 },
                         { "role": "weight", "index": 2, "rank": 1 },
                         { "role": "output", "index": 0, "rank": 1 },
                         { "role": "arena",  "index": 0, "rank": 1 } ] }
})json";

/// y = x + d, reading d from the fourth descriptor (x, w, b: 5 words each).
void addDerivedForward(int64_t *packed) {
  auto *x = reinterpret_cast<const float *>(static_cast<intptr_t>(packed[1]));
  auto *d = reinterpret_cast<const float *>(static_cast<intptr_t>(packed[16]));
  auto *y = reinterpret_cast<float *>(static_cast<intptr_t>(packed[21]));
  for (int i = 0; i < 4; ++i)
    y[i] = x[i] + d[i];
}

} // namespace

TEST_CASE("Model recomputes derived weights when a weight is bound", "[derived][runtime]") {
  Model model(kDerivedManifest, nullptr, 0, &addDerivedForward);
  const GuardManifest &m = model.manifest();
  REQUIRE(m.weights.size() == 3);
  CHECK(m.weights[0].hostOnly);
  CHECK(m.weights[2].isDerived());
  CHECK(m.weights[2].kind == "derived");
  CHECK(m.weights[2].derived->sources() == std::vector<size_t>{0, 1});

  float x[4] = {1, 2, 3, 4}, y[4] = {};
  int64_t sizes[1] = {4};
  tcc_tensor in{x, TCC_DTYPE_FLOAT32, TCC_DEVICE_CPU, 1, sizes};
  tcc_tensor out{y, TCC_DTYPE_FLOAT32, TCC_DEVICE_CPU, 1, sizes};
  // Its sources must be bound; the derived weight itself need not be.
  try {
    model.run(&in, 1, &out, 1);
    FAIL("ran without its weights");
  } catch (const RuntimeError &e) {
    CHECK(e.status() == TCC_ERROR_MISSING_WEIGHT);
    CHECK(std::string(e.what()).find("weight 'w' (#0)") == 0);
  }
  float w[4] = {1, 1, 1, 1}, b[4] = {0, 10, 20, 30};
  model.bindWeight("w", w, sizeof(w));
  model.bindWeight("b", b, sizeof(b));
  model.run(&in, 1, &out, 1);
  CHECK(std::vector<float>(y, y + 4) == std::vector<float>{3, 14, 25, 36});
  // Rebinding recomputes before the next run; runs without a binding in
  // between reuse the values.
  float w2[4] = {-1, 0, 1, 2};
  model.bindWeight("w", w2, sizeof(w2));
  model.run(&in, 1, &out, 1);
  CHECK(std::vector<float>(y, y + 4) == std::vector<float>{-1, 12, 25, 38});
  model.run(&in, 1, &out, 1);
  CHECK(std::vector<float>(y, y + 4) == std::vector<float>{-1, 12, 25, 38});
  CHECK(static_cast<const float *>(model.weightData(2))[3] == 34.0f);
  // The derived weight cannot be bound.
  try {
    model.bindWeight("derived:w:0", w, sizeof(w));
    FAIL("bound a derived weight");
  } catch (const RuntimeError &e) {
    CHECK(e.status() == TCC_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(e.what()) ==
          "weight 'derived:w:0' is derived from other weights; bind its sources (w, b)");
  }
  // The C ABI reports it as neither embedded nor to be bound.
  tcc_model handle(std::make_unique<Model>(kDerivedManifest, nullptr, 0, &addDerivedForward));
  tcc_tensor_info info;
  REQUIRE(tcc_model_weight_info(&handle, 2, &info) == TCC_OK);
  CHECK(info.embedded == 2);
  REQUIRE(tcc_model_weight_info(&handle, 0, &info) == TCC_OK);
  CHECK(info.embedded == 0);
}

TEST_CASE("GuardManifest refuses malformed derived weights", "[derived][runtime]") {
  auto error = [](std::string text) {
    try {
      GuardManifest::parse(text);
    } catch (const RuntimeError &e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string base = kDerivedManifest;
  auto replaced = [&](const std::string &from, const std::string &to) {
    std::string s = base;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  const std::string d = "invalid guard manifest: derived weight 'derived:w:0': ";
  CHECK(error(replaced(R"("const:2", "mul")", R"("const:2")")) ==
        d + "the program leaves 2 values, expected 1");
  CHECK(error(replaced(R"("weight:b")", R"("weight:c")")) ==
        d + "token #3 'weight:c': the model has no weight of that name");
  CHECK(error(replaced(R"("kind": "derived",)", R"("kind": "derived", "host_only": true,)")) ==
        "invalid guard manifest: weights[2] ('derived:w:0') is derived, so neither embedded nor "
        "host-only");
  CHECK(error(replaced(R"("derived": ["weight:w")", R"("derived": [1, "weight:w")")) ==
        "invalid guard manifest: weights[2].derived is not an array of strings");
  CHECK(error(base).empty());
}

TEST_CASE("the manifest lists derived and host-only weights and the runtime reads them",
          "[derived][manifest]") {
  auto p = frontend::readExportedProgram(std::string(TCC_SOURCE_DIR) +
                                         "/samples/derived_weights/model.pt2");
  ImportedSignature sig;
  for (const auto &spec : p.inputSpecs) {
    if (spec.kind == frontend::InputKind::UserInput)
      sig.inputs.push_back(spec.graphName);
    else
      sig.weights.push_back(spec);
  }
  for (const auto &spec : p.outputSpecs)
    sig.outputs.push_back(spec.graphName);
  WeightLayout layout = WeightLayout::build(p, sig);
  ManifestInfo info{"derived_weights", {Target::Cpu}, false};
  info.derivedWeights.push_back(
      {"derived:w2:0", DType::Float32, {6, 8, 3, 3}, {"weight:w2", "weight:gain", "reshape:6,1,1,1", "mul"}});
  info.derivedWeights.push_back(
      {"derived:bn.weight:0", DType::BFloat16, {8},
       {"weight:bn.running_var", "const:1e-05", "add", "rsqrt", "weight:bn.weight", "mul", "cast:bfloat16"}});
  info.hostOnlyWeights = {"w2", "gain"};
  nlohmann::json j = buildManifest(p, sig, layout, PlannedArena{}, info);

  size_t exported = sig.weights.size();
  REQUIRE(j["weights"].size() == exported + 2);
  const nlohmann::json &d = j["weights"][exported];
  CHECK(d["kind"] == "derived");
  CHECK(d["bytes"] == 6 * 8 * 3 * 3 * 4);
  CHECK(d["embedded"] == false);
  CHECK(!d.contains("offset"));
  CHECK(d["derived"] == nlohmann::json{"weight:w2", "weight:gain", "reshape:6,1,1,1", "mul"});
  CHECK(j["weights"][exported + 1]["bytes"] == 16);
  // The entry takes them after the exported weights, before the outputs.
  const nlohmann::json &args = j["entry"]["args"];
  CHECK(args[1 + exported]["role"] == "weight");
  CHECK(args[1 + exported]["index"] == exported);
  CHECK(args[1 + exported]["rank"] == 4);
  CHECK(args[2 + exported + 1]["role"] == "output");
  // The weights image is the exported weights alone.
  int64_t end = 0;
  for (size_t i = 0; i < exported; ++i)
    end = std::max<int64_t>(end, j["weights"][i]["offset"].get<int64_t>() +
                                     j["weights"][i]["bytes"].get<int64_t>());
  CHECK(static_cast<int64_t>(layout.blob.size()) >= end);
  CHECK(static_cast<int64_t>(layout.blob.size()) < end + 64);

  GuardManifest m = GuardManifest::parse(j.dump());
  REQUIRE(m.weights.size() == exported + 2);
  std::map<std::string, const WeightSpec *> byName;
  for (const WeightSpec &w : m.weights)
    byName[w.name] = &w;
  CHECK(byName.at("w2")->hostOnly);
  CHECK(byName.at("gain")->hostOnly);
  CHECK(!byName.at("conv.weight")->hostOnly);
  CHECK(!byName.at("w2")->isDerived());
  const WeightSpec &scale = *byName.at("derived:bn.weight:0");
  CHECK(scale.isDerived());
  CHECK(scale.dtype == DType::BFloat16);
  CHECK(scale.program.back() == "cast:bfloat16");
  CHECK(byName.at("derived:w2:0")->derived->sources().size() == 2);
}
