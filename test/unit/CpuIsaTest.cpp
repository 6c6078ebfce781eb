//===- CpuIsaTest.cpp - the one reader of --cpu-isa -----------------------===//
#include "tcc/Support/CpuIsa.h"

#include <catch2/catch.hpp>

using namespace tcc;

TEST_CASE("parseCpuIsa takes every word --cpu-isa lists", "[support]") {
  std::pair<const char *, CpuIsa> cases[] = {{"x86-64-v2", CpuIsa::X86_64_V2},
                                             {"x86-64-v3", CpuIsa::X86_64_V3},
                                             {"x86-64-v4", CpuIsa::X86_64_V4},
                                             {"native", CpuIsa::Native}};
  for (const auto &[word, isa] : cases) {
    INFO(word);
    std::string error;
    CHECK(parseCpuIsa(word, error) == isa);
    CHECK(error.empty());
    CHECK(std::string(cpuIsaName(isa)) == word);
  }
  // kCpuIsaChoices is exactly that list, in the help's order.
  size_t i = 0;
  for (CpuIsa isa : kCpuIsaChoices)
    CHECK(isa == cases[i++].second);
  CHECK(i == std::size(cases));
}

TEST_CASE("parseCpuIsa refuses other words, naming them and the valid ones", "[support]") {
  const std::string expected = "; expected one of x86-64-v2, x86-64-v3, x86-64-v4, native";
  for (const char *word : {"avx2", "avx512", "x86-64-v5", "X86-64-V3", " x86-64-v3", "", "v3",
                           // The baseline is what native resolves to on an old
                           // processor, not a choice of the flag.
                           "x86-64"}) {
    INFO(word);
    std::string error;
    CHECK(!parseCpuIsa(word, error));
    CHECK(error == "unknown CPU ISA '" + std::string(word) + "'" + expected);
  }
}

TEST_CASE("cpuIsaHasFma: from x86-64-v3 up", "[support]") {
  CHECK(std::string(cpuIsaName(CpuIsa::X86_64)) == "x86-64");
  CHECK(!cpuIsaHasFma(CpuIsa::X86_64));
  CHECK(!cpuIsaHasFma(CpuIsa::X86_64_V2));
  CHECK(cpuIsaHasFma(CpuIsa::X86_64_V3));
  CHECK(cpuIsaHasFma(CpuIsa::X86_64_V4));
}
