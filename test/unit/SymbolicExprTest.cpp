//===- SymbolicExprTest.cpp - size expressions of the guard manifest ------===//
#include "tcc/Support/SymbolicExpr.h"

#include <catch2/catch.hpp>

using namespace tcc;

namespace {
int64_t eval(const char *text, const SymbolBindings &symbols = {}) {
  return SymbolicExpr::parse(text).evaluate(symbols);
}
} // namespace

TEST_CASE("SymbolicExpr evaluates integers, symbols and operators", "[support]") {
  SymbolBindings s{{"s77", 10}, {"s0", 3}};
  CHECK(eval("42") == 42);
  CHECK(eval("s77", s) == 10);
  CHECK(eval("2*s77 + 1", s) == 21);
  CHECK(eval("s77 - s0 * 2", s) == 4);
  CHECK(eval("(s77 - s0) * 2", s) == 14);
  CHECK(eval("-s0 + 5", s) == 2);
  CHECK(eval("- -s0", s) == 3);
  CHECK(eval("+s0", s) == 3);
  CHECK(eval("s77 // s0", s) == 3);
  CHECK(eval("s77 % s0", s) == 1);
  CHECK(eval("1 + 2 * 3 - 4 // 2", s) == 5);
  CHECK(eval("((s77))", s) == 10);
  CHECK(eval("  s77*s0  ", s) == 30);
}

TEST_CASE("SymbolicExpr floor division and modulo follow Python", "[support]") {
  CHECK(eval("-7 // 2") == -4);
  CHECK(eval("7 // -2") == -4);
  CHECK(eval("-7 // -2") == 3);
  CHECK(eval("-7 % 2") == 1);
  CHECK(eval("7 % -2") == -1);
  CHECK(eval("(s0 - 1) // 2 + 1", {{"s0", 1}}) == 1);
}

TEST_CASE("SymbolicExpr takes min and max of two or more arguments", "[support]") {
  SymbolBindings s{{"s31", 6}, {"s46", 4}};
  CHECK(eval("min(s31, s46)", s) == 4);
  CHECK(eval("max(s31, s46)", s) == 6);
  CHECK(eval("max(0, min(s31, s46 - 1))", s) == 3);
  CHECK(eval("min(s31, s46, 2) + 1", s) == 3);
  CHECK(eval("2*max( s46 ,s31 )", s) == 12);
  CHECK(SymbolicExpr::parse("min(s31, s46)").symbols() == std::set<std::string>{"s31", "s46"});
  CHECK_THROWS_WITH(SymbolicExpr::parse("min(s0)"),
                    "invalid size expression 'min(s0)' at column 7: expected ',': min and max "
                    "take at least 2 arguments");
  CHECK_THROWS_WITH(SymbolicExpr::parse("max(s0, 1"),
                    "invalid size expression 'max(s0, 1' at column 10: expected ')'");
}

TEST_CASE("SymbolicExpr reports constants, bare symbols and symbol sets", "[support]") {
  CHECK(SymbolicExpr::parse("100").asConstant() == 100);
  CHECK(SymbolicExpr::parse("2*3").asConstant() == 6);
  CHECK(!SymbolicExpr::parse("s0").asConstant());
  CHECK(SymbolicExpr::parse("s0").asSymbol() == "s0");
  CHECK(!SymbolicExpr::parse("s0 + 1").asSymbol());
  CHECK(SymbolicExpr::parse("s0*s1 + s0").symbols() == std::set<std::string>{"s0", "s1"});
  CHECK(SymbolicExpr::parse("2*s77 + 1").text() == "2*s77 + 1");
  CHECK(SymbolicExpr::constant(7).text() == "7");
  CHECK(SymbolicExpr::constant(7).asConstant() == 7);
}

TEST_CASE("SymbolicExpr rejects bad syntax", "[support]") {
  CHECK_THROWS_WITH(SymbolicExpr::parse(""), "invalid size expression '' at column 1: empty expression");
  CHECK_THROWS_WITH(SymbolicExpr::parse("s0 +"),
                    "invalid size expression 's0 +' at column 5: expected an operand");
  CHECK_THROWS_WITH(SymbolicExpr::parse("(s0"),
                    "invalid size expression '(s0' at column 4: expected ')'");
  CHECK_THROWS_WITH(SymbolicExpr::parse("s0)"),
                    "invalid size expression 's0)' at column 3: unexpected ')'");
  CHECK_THROWS_WITH(SymbolicExpr::parse("s0 / 2"),
                    "invalid size expression 's0 / 2' at column 5: '/' is not supported, "
                    "use '//' (floor division)");
  CHECK_THROWS_AS(SymbolicExpr::parse("s0 $ 2"), SymbolicExprError);
  CHECK_THROWS_AS(SymbolicExpr::parse("2 3"), SymbolicExprError);
  CHECK_THROWS_AS(SymbolicExpr::parse("99999999999999999999"), SymbolicExprError);
}

TEST_CASE("SymbolicExpr rejects unknown symbols, division by zero, overflow", "[support]") {
  CHECK_THROWS_WITH(eval("s0 + s1", {{"s0", 1}}),
                    "size expression 's0 + s1' uses unknown symbol 's1'");
  CHECK_THROWS_WITH(eval("4 // s0", {{"s0", 0}}), "size expression '4 // s0' divides by zero");
  CHECK_THROWS_WITH(eval("4 % (s0 - 1)", {{"s0", 1}}),
                    "size expression '4 % (s0 - 1)' divides by zero");
  CHECK_THROWS_WITH(eval("s0 * s0", {{"s0", int64_t(1) << 40}}),
                    "size expression 's0 * s0' overflows int64");
}
