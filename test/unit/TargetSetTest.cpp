//===- TargetSetTest.cpp - the one reader of --target ---------------------===//
#include "tcc/Support/TargetSet.h"

#include <catch2/catch.hpp>

using namespace tcc;

namespace {
/// parse's error for `text` ("" if it parsed).
std::string errorOf(const std::string &text) {
  std::string error;
  return TargetSet::parse(text, error) ? std::string() : error;
}

const char *kExpected = "expected cpu, cuda or several of them separated by commas (cpu,cuda)";
} // namespace

TEST_CASE("TargetSet parses every spelling --target takes", "[support]") {
  const TargetSet cpu{Target::Cpu}, cuda{Target::Cuda}, both{Target::Cpu, Target::Cuda};
  std::pair<const char *, TargetSet> cases[] = {
      {"cpu", cpu},        {"cuda", cuda},          {"cpu,cuda", both},
      {"cuda,cpu", both},  {" cpu , cuda ", both},  {"\tcuda", cuda}};
  for (const auto &[text, expected] : cases) {
    INFO(text);
    std::string error;
    std::optional<TargetSet> parsed = TargetSet::parse(text, error);
    REQUIRE(parsed);
    CHECK(*parsed == expected);
    CHECK(error.empty());
  }
  CHECK(both.names() == std::vector<std::string>{"cpu", "cuda"});
  CHECK(cuda.names() == std::vector<std::string>{"cuda"});
  CHECK(both.str() == "cpu,cuda");
  CHECK(cpu.str() == "cpu");
}

TEST_CASE("TargetSet's words are targetName's, and str() reads back", "[support]") {
  for (Target t : kTargets) {
    std::string error;
    std::optional<TargetSet> parsed = TargetSet::parse(targetName(t), error);
    REQUIRE(parsed);
    CHECK(*parsed == TargetSet{t});
    CHECK(parsed->has(t));
  }
  CHECK(std::string(targetName(Target::Cpu)) == "cpu");
  CHECK(std::string(targetName(Target::Cuda)) == "cuda");
  TargetSet both{Target::Cpu, Target::Cuda};
  std::string error;
  CHECK(TargetSet::parse(both.str(), error) == both);
}

TEST_CASE("TargetSet refuses unknown, empty and repeated words, naming them", "[support]") {
  CHECK(errorOf("gpu") == std::string("unknown target 'gpu'; ") + kExpected);
  CHECK(errorOf("cpu,tpu") == std::string("unknown target 'tpu'; ") + kExpected);
  // Case matters, as everywhere else in tcc's flags.
  CHECK(errorOf("CPU") == std::string("unknown target 'CPU'; ") + kExpected);
  CHECK(errorOf("cpu cuda") == std::string("unknown target 'cpu cuda'; ") + kExpected);
  CHECK(errorOf("") == std::string("no target given; ") + kExpected);
  CHECK(errorOf("  ") == std::string("no target given; ") + kExpected);
  CHECK(errorOf("cpu,") == std::string("empty target in 'cpu,'; ") + kExpected);
  CHECK(errorOf(",cuda") == std::string("empty target in ',cuda'; ") + kExpected);
  CHECK(errorOf("cpu,,cuda") == std::string("empty target in 'cpu,,cuda'; ") + kExpected);
  CHECK(errorOf("cpu,cpu") == "target 'cpu' given twice");
  CHECK(errorOf("cuda, cpu ,cuda") == "target 'cuda' given twice");
  CHECK(expectedTargets() == kExpected);
}

TEST_CASE("A default TargetSet is empty: no target given", "[support]") {
  TargetSet none;
  CHECK(none.empty());
  CHECK(!none.has(Target::Cpu));
  CHECK(!none.has(Target::Cuda));
  CHECK(none.names().empty());
  CHECK(none.str().empty());
  CHECK(!TargetSet{Target::Cuda}.empty());
}
