//===- FrontendTestSympyExpr.cpp - sympy text to infix, stack traces ------===//
#include "tcc/Frontend/FrontendError.h"
#include "tcc/Frontend/ScalarType.h"
#include "tcc/Frontend/StackTrace.h"
#include "tcc/Frontend/SympyExpr.h"
#include "tcc/Support/SymbolicExpr.h"

#include <catch2/catch.hpp>

using namespace tcc;
using namespace tcc::frontend;

TEST_CASE("sympy srepr forms become infix", "[frontend]") {
  CHECK(sympyToInfix("Symbol('s77', positive=True, integer=True)") == "s77");
  CHECK(sympyToInfix("Integer(5)") == "5");
  CHECK(sympyToInfix("Integer(-3)") == "-3");
  CHECK(sympyToInfix("Add(Mul(Integer(2), Symbol('s0', integer=True)), "
                     "Integer(1))") == "2*s0 + 1");
  CHECK(sympyToInfix("Add(Symbol('s0'), Integer(-1))") == "s0 - 1");
  CHECK(sympyToInfix("Add(Symbol('s0'), Mul(Integer(-2), Symbol('s1')))") ==
        "s0 - 2*s1");
  CHECK(sympyToInfix("Mul(Integer(-1), Symbol('s0'))") == "-s0");
  CHECK(sympyToInfix("Add(Symbol('s0'), Symbol('s1'), Integer(3))") ==
        "s0 + s1 + 3");
  CHECK(sympyToInfix("Mul(Symbol('s0'), Symbol('s1'), Integer(4))") ==
        "s0*s1*4");
  CHECK(sympyToInfix("FloorDiv(Symbol('s0'), Integer(2))") == "s0//2");
  CHECK(sympyToInfix("CleanDiv(Symbol('s0'), Integer(2))") == "s0//2");
  CHECK(sympyToInfix("floor(Symbol('s0')/2)") == "s0//2");
  CHECK(sympyToInfix("Mod(Symbol('s0'), Integer(3))") == "s0%3");
  CHECK(sympyToInfix("PythonMod(Symbol('s0'), Integer(3))") == "s0%3");
  CHECK(sympyToInfix("Pow(Symbol('s0'), Integer(2))") == "s0*s0");
  // Parentheses only where precedence needs them.
  CHECK(sympyToInfix("Mul(Integer(4), FloorDiv(Add(Symbol('s0'), "
                     "Integer(-1)), Integer(2)))") == "4*((s0 - 1)//2)");
  CHECK(sympyToInfix("FloorDiv(Mul(Symbol('s0'), Symbol('s1')), Integer(2))") ==
        "s0*s1//2");
  CHECK(sympyToInfix("FloorDiv(Symbol('s0'), Mul(Symbol('s1'), Integer(2)))") ==
        "s0//(s1*2)");
  CHECK(sympyToInfix("Mul(Integer(3), Add(Symbol('s0'), Integer(1)))") ==
        "3*(s0 + 1)");
}

TEST_CASE("infix sympy text passes through normalized", "[frontend]") {
  CHECK(sympyToInfix("s77") == "s77");
  CHECK(sympyToInfix("2*s77") == "2*s77");
  CHECK(sympyToInfix("s0 + 1") == "s0 + 1");
  CHECK(sympyToInfix("  s0+1 ") == "s0 + 1");
  CHECK(sympyToInfix("2*s0 - 1") == "2*s0 - 1");
  CHECK(sympyToInfix("s0 - (s1 + 2)") == "s0 - (s1 + 2)");
  CHECK(sympyToInfix("((s0//2))") == "s0//2");
  CHECK(sympyToInfix("-s0 + 4") == "-s0 + 4");
  CHECK(sympyToInfix("Mod(s0, 2) + 1") == "s0%2 + 1");
  CHECK(sympyToInfix("s0**2") == "s0*s0");
  // Printing is stable: converting the output again changes nothing.
  for (const char *text : {"4*((s0 - 1)//2)", "s0 - 2*s1", "-(s0//2)",
                           "s0*s1//2", "s0//(s1*2)", "3*(s0 + 1)"})
    CHECK(sympyToInfix(text) == text);
}

TEST_CASE("sizes computed in floating point become floor divisions", "[frontend]") {
  // interpolate(scale_factor=2.0) over a symbolic size, as torch 2.11 exports it.
  CHECK(sympyToInfix("TruncToInt(Mul(Float('2.0', precision=53), "
                     "ToFloat(Symbol('s53', positive=True, integer=True))))") == "2*s53");
  CHECK(sympyToInfix("TruncToInt(Mul(Float('1.5', precision=53), ToFloat(Symbol('s0'))))") ==
        "3*s0//2");
  CHECK(sympyToInfix("FloorToInt(Mul(Float('0.25', precision=53), ToFloat(Symbol('s0'))))") ==
        "s0//4");
  CHECK(sympyToInfix("CeilToInt(Mul(Float('0.5', precision=53), ToFloat(Symbol('s0'))))") ==
        "(s0 + 1)//2");
  CHECK(sympyToInfix("TruncToInt(Float('3.0', precision=53))") == "3");
}

TEST_CASE("Min and Max become min and max calls", "[frontend]") {
  // diagonal's length over symbolic sizes, as torch 2.11 exports it.
  CHECK(sympyToInfix("Max(Integer(0), Min(Symbol('s31', positive=True, integer=True), "
                     "Add(Symbol('s46', positive=True, integer=True), Integer(-1))))") ==
        "max(0, min(s31, s46 - 1))");
  CHECK(sympyToInfix("2*Min(s0, s1, 3) + 1") == "2*min(s0, s1, 3) + 1");
}

TEST_CASE("unsupported sympy text is a FrontendError naming it",
          "[frontend]") {
  for (const char *text :
       {"Max(s0)", "s0/2", "1.5*s0", "Symbol('s0'", "", "s0 +", "oo",
        "Rational(1, 2)", "Pow(s0, -1)", "Symbol('not valid')", "s0 $ 1",
        "99999999999999999999", "floor(s0/2/3)", "Add()",
        "ToFloat(Float('0.1', precision=53))", "Mul(Float('0.5'), Symbol('s0'))",
        "TruncToInt(Float('nan'))", "TruncToInt(Float('1e300'))", "Float(s0)"}) {
    INFO(text);
    try {
      sympyToInfix(text);
      FAIL("no error");
    } catch (const FrontendError &e) {
      std::string message = e.what();
      CHECK(message.find("unsupported symbolic expression '" +
                         std::string(text) + "'") != std::string::npos);
      CHECK(message.find('\n') == std::string::npos);
    }
  }
  // Deep nesting and huge powers fail cleanly instead of overflowing.
  CHECK_THROWS_AS(sympyToInfix(std::string(100000, '(') + "s0"), FrontendError);
  CHECK_THROWS_AS(sympyToInfix("((((s0**16)**16)**16)**16)"), FrontendError);
}

TEST_CASE("infix output is what Support's SymbolicExpr evaluates",
          "[frontend]") {
  // The manifest and runtime evaluate these strings; both sides must agree
  // on the grammar and on Python's floor semantics.
  SymbolBindings at{{"s0", 7}, {"s1", 3}};
  struct Case {
    const char *sympy;
    int64_t expected;
  };
  for (Case c : {Case{"Add(Mul(Integer(2), Symbol('s0')), Integer(1))", 15},
                 Case{"Mul(Integer(4), FloorDiv(Add(Symbol('s0'), Integer(-1)), "
                      "Integer(2)))", 12},
                 Case{"FloorDiv(Mul(Integer(-1), Symbol('s0')), Integer(2))", -4},
                 Case{"Mul(Integer(-1), FloorDiv(Symbol('s0'), Integer(2)))", -3},
                 Case{"Mod(Mul(Integer(-1), Symbol('s0')), Symbol('s1'))", 2},
                 Case{"Add(Symbol('s0'), Mul(Integer(-2), Symbol('s1')))", 1},
                 Case{"Pow(Add(Symbol('s1'), Integer(1)), Integer(2))", 16},
                 Case{"Max(Integer(0), Min(Symbol('s0'), Add(Symbol('s1'), Integer(-1))))", 2},
                 Case{"Mul(Integer(2), Min(Symbol('s0'), Symbol('s1')))", 6}}) {
    std::string infix = sympyToInfix(c.sympy);
    INFO(c.sympy << " -> " << infix);
    CHECK(SymbolicExpr::parse(infix).evaluate(at) == c.expected);
  }
}

TEST_CASE("source location is the innermost frame outside torch", "[frontend]") {
  const char *trace =
      "File \"/home/me/model.py\", line 42, in forward\n    x = self.block(x)\n"
      "  File \"/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py\""
      ", line 1775, in _call_impl\n    return forward_call(*args)\n"
      "  File \"/home/me/blocks.py\", line 7, in forward\n    x = self.bn1(x)\n"
      "  File \"/opt/venv/lib/python3.12/site-packages/torch/nn/modules/batchnorm.py\""
      ", line 194, in forward";
  SourceLocation loc = userSourceLocation(trace);
  CHECK(loc.file == "/home/me/blocks.py");
  CHECK(loc.line == 7);

  SourceLocation onlyTorch = userSourceLocation(
      "File \"/x/site-packages/torch/nn/functional.py\", line 9, in relu\n"
      "  File \"/x/site-packages/torch/_ops.py\", line 3, in __call__");
  CHECK(onlyTorch.file == "/x/site-packages/torch/nn/functional.py");
  CHECK(onlyTorch.line == 9);

  CHECK_FALSE(userSourceLocation("").known());
  CHECK_FALSE(userSourceLocation("File \"unterminated").known());
  CHECK_FALSE(userSourceLocation("File \"a.py\", line x").known());
}

TEST_CASE("ScalarType codes map onto DType", "[frontend]") {
  CHECK(dtypeFromScalarType(7) == DType::Float32);
  CHECK(dtypeFromScalarType(5) == DType::Int64);
  CHECK(dtypeFromScalarType(12) == DType::Bool);
  CHECK(dtypeFromScalarType(6) == DType::Float16);
  CHECK(dtypeFromScalarType(13) == DType::BFloat16);
  CHECK(dtypeFromScalarType(8) == DType::Float64);
  CHECK(dtypeFromScalarType(4) == DType::Int32);
  CHECK(dtypeFromScalarType(3) == DType::Int16);
  CHECK(dtypeFromScalarType(2) == DType::Int8);
  CHECK(dtypeFromScalarType(1) == DType::UInt8);
  CHECK(dtypeFromScalarType(10) == DType::Complex64);
  CHECK(dtypeFromScalarType(11) == DType::Complex128);
  CHECK_FALSE(dtypeFromScalarType(9)); // complex32
  CHECK_FALSE(dtypeFromScalarType(99));
  CHECK(std::string(scalarTypeName(10)) == "COMPLEXFLOAT");
}
