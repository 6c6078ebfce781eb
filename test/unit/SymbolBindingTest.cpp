//===- SymbolBindingTest.cpp - programs with symbols bound to values ------===//
#include "tcc/Frontend/ExportedProgramReader.h"
#include "tcc/Frontend/SymbolBinding.h"

#include <catch2/catch.hpp>

using namespace tcc;
using namespace tcc::frontend;

TEST_CASE("a bound symbol makes sizes static until the binding ends", "[frontend][specialize]") {
  ExportedProgram p = readExportedProgram(std::string(TCC_SOURCE_DIR) +
                                          "/samples/mymodule_dynamic_batch/model.pt2");
  const TensorMeta &x = p.tensorValues.at("x");
  REQUIRE(!x.sizes[0].isStatic());
  {
    ScopedSymbolBinding bound(p, {{"s77", 8}});
    REQUIRE(p.tensorValues.at("x").sizes[0].isStatic());
    CHECK(*p.tensorValues.at("x").sizes[0].value == 8);
    CHECK(p.tensorValues.at("x").sizes[0].hint == 8);
    CHECK(p.rangeConstraints.at("s77").min == 8);
    CHECK(p.rangeConstraints.at("s77").max == 8);
    for (const auto &[name, meta] : p.tensorValues)
      for (const SymDim &d : meta.sizes)
        CHECK(d.isStatic());
  }
  CHECK(!p.tensorValues.at("x").sizes[0].isStatic());
  CHECK(p.tensorValues.at("x").sizes[0].expr == "s77");
  CHECK(p.rangeConstraints.at("s77").max == 1024);
}

TEST_CASE("a partly bound expression keeps its other symbols", "[frontend][specialize]") {
  ExportedProgram p;
  TensorMeta meta;
  SymDim product, sum, other;
  product.expr = "s0*s10 + s0";
  sum.expr = "s0 + 1";
  other.expr = "s1";
  meta.sizes = {product, sum, other};
  p.tensorValues["t"] = meta;
  p.symIntValues["n"] = sum;
  p.rangeConstraints["s0"] = {1, 16};
  p.rangeConstraints["s10"] = {1, 16};
  {
    ScopedSymbolBinding bound(p, {{"s0", 4}});
    const auto &sizes = p.tensorValues.at("t").sizes;
    CHECK(sizes[0].expr == "4*s10 + 4");
    CHECK(!sizes[0].isStatic());
    CHECK(*sizes[1].value == 5);
    CHECK(sizes[2].expr == "s1");
    CHECK(*p.symIntValues.at("n").value == 5);
  }
  CHECK(p.tensorValues.at("t").sizes[0].expr == "s0*s10 + s0");
  CHECK(!p.symIntValues.at("n").isStatic());
}
