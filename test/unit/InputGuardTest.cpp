//===- InputGuardTest.cpp - torch.export's guards over input sizes --------===//
#include "tcc/Support/InputGuard.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace tcc;

namespace {
/// Inputs x (rank 4) and y (rank 2) with fixed sizes.
class FixedSizes : public GuardInputSizes {
public:
  std::vector<std::vector<int64_t>> sizes{{1, 3, 14, 14}, {5, 7}};
  int64_t size(size_t input, size_t dim) const override { return sizes[input][dim]; }
};

const std::vector<GuardInput> kInputs{{"x", 4}, {"y", 2}};

bool holds(const std::string &text, const FixedSizes &sizes = {}) {
  return InputGuard::parse(text, kInputs).holds(sizes);
}

/// Evaluates an integer expression through a comparison with its value.
bool equals(const std::string &expr, int64_t value) {
  return holds("(" + expr + ") == " + (value < 0 ? "-" + std::to_string(-value)
                                                 : std::to_string(value)));
}

std::string parseError(const std::string &text) {
  try {
    InputGuard::parse(text, kInputs);
  } catch (const InputGuardError &e) {
    return e.what();
  }
  return "";
}

std::string evalError(const std::string &text, const FixedSizes &sizes = {}) {
  InputGuard g = InputGuard::parse(text, kInputs);
  try {
    g.holds(sizes);
  } catch (const InputGuardError &e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST_CASE("InputGuard evaluates torch.export's guards", "[support]") {
  CHECK(holds("(L['x'].size()[2] % 2) == 0"));
  CHECK(holds("2*(L['x'].size()[2] // 2) < 1 + L['x'].size()[2]"));
  CHECK(holds("((1 + L['x'].size()[2]) % 3) == 0"));
  CHECK(holds("(((-5) + L['x'].size()[2]) % 3) == 0"));
  CHECK_FALSE(holds("((2 + L['x'].size()[3]) % 3) == 0"));
  CHECK(holds("max(2, L['x'].size()[0] // 3) <= L['y'].size()[0]"));
  CHECK(holds("Min(L['y'].size()[1], 3, 9) == 3"));
  CHECK(holds("L[\"y\"].size()[1] == 7"));
  FixedSizes twelve;
  twelve.sizes[0] = {1, 3, 12, 12};
  CHECK_FALSE(holds("((1 + L['x'].size()[2]) % 3) == 0", twelve));
  InputGuard g = InputGuard::parse("L['y'].size()[1] > L['x'].size()[2] - L['y'].size()[1]", kInputs);
  REQUIRE(g.dims().size() == 2);
  CHECK(g.dims()[0].input == 1);
  CHECK(g.dims()[0].dim == 1);
  CHECK(g.dims()[1].input == 0);
  CHECK(g.dims()[1].dim == 2);
}

TEST_CASE("InputGuard follows Python's integer semantics and precedence", "[support]") {
  CHECK(equals("7 // 2", 3));
  CHECK(equals("-7 // 2", -4));
  CHECK(equals("7 // -2", -4));
  CHECK(equals("-7 // -2", 3));
  CHECK(equals("7 % 3", 1));
  CHECK(equals("-7 % 3", 2));
  CHECK(equals("7 % -3", -2));
  CHECK(equals("-7 % -3", -1));
  CHECK(equals("-6 % 3", 0));
  CHECK(equals("1 + 2 * 3", 7));
  CHECK(equals("(1 + 2) * 3", 9));
  CHECK(equals("10 - 4 - 3", 3));
  CHECK(equals("2 * 7 // 3", 4)); // (2*7)//3, left to right
  CHECK(equals("2 * (7 // 3)", 4));
  CHECK(equals("-2 * 3", -6));
  CHECK(equals("- - 4", 4));
  CHECK(holds("-9223372036854775807 - 1 < -9223372036854775807"));
  // not < and < or; comparisons chain.
  CHECK(holds("not 1 == 2"));
  CHECK(holds("1 == 1 or 1 == 2 and 1 == 2"));
  CHECK_FALSE(holds("(1 == 1 or 1 == 2) and 1 == 2"));
  CHECK(holds("1 < 2 < 3"));
  CHECK_FALSE(holds("1 < 3 < 2"));
  CHECK(holds("3 >= 3 != 4"));
  CHECK(holds("True and not False"));
  // `and` short-circuits: no division by zero is reached.
  CHECK_FALSE(holds("0 != 0 and 1 // 0 == 1"));
  CHECK(holds("1 == 1 or 1 % 0 == 1"));
}

TEST_CASE("InputGuard refuses what is outside its subset by name", "[support]") {
  CHECK(parseError("L['x'].stride()[0] == 1").find("stride()") != std::string::npos);
  CHECK(parseError("L['x'].storage_offset() == 0").find("storage_offset()") != std::string::npos);
  CHECK(parseError("L['z'].size()[0] == 1").find("L['z'] names no input of the compiled model") == 0);
  CHECK(parseError("L['x'].size()[4] == 1").find("past input 'x''s rank 4") != std::string::npos);
  CHECK(parseError("L['args'][0].size()[0] == 1").find("nested input") != std::string::npos);
  CHECK(parseError("Eq(L['x'].size()[0], 1)").find("the function 'Eq'") != std::string::npos);
  CHECK(parseError("__import__('os')").find("the function '__import__'") != std::string::npos);
  CHECK(parseError("x == 1").find("the name 'x'") != std::string::npos);
  CHECK(parseError("2 ** 3 == 8").find("'**'") != std::string::npos);
  CHECK(parseError("4 / 2 == 2").find("'/'") != std::string::npos);
  CHECK(parseError("max(1) == 1").find("at least two") != std::string::npos);
  CHECK(parseError("orange == 1").find("the name 'orange'") != std::string::npos);
}

TEST_CASE("InputGuard survives hostile text", "[support]") {
  CHECK(parseError("99999999999999999999 == 1").find("64 bits") != std::string::npos);
  CHECK(parseError(std::string(100, '(') + "1" + std::string(100, ')')).find("nested") !=
        std::string::npos);
  CHECK(parseError(std::string(100, '-') + "1").find("nested") != std::string::npos);
  std::string notChain;
  for (int i = 0; i < 100; ++i)
    notChain += "not ";
  CHECK(parseError(notChain + "1").find("nested") != std::string::npos);
  std::string longSum = "1";
  for (int i = 0; i < 300; ++i)
    longSum += "+1";
  CHECK(parseError(longSum).find("deeper") != std::string::npos);
  CHECK(parseError(std::string(5000, '1')).find("at most 4096") != std::string::npos);
  for (const char *garbage :
       {"", " ", "(", ")", "1 +", "L", "L[", "L['x'", "L['x']", "L['x'].size(", "L['x'].size()[",
        "L['x'].size()[-1]", "L['x\\'].size()[0]", "1 == == 2", "max(", "max(1,", "\x01\xff",
        "1 2", "L['x'].size()[0]]", "and", "not", "1 < ", "\xc3\xa9 == 1"}) {
    INFO(garbage);
    CHECK_FALSE(parseError(garbage).empty());
  }
  // Overflow and division by zero at evaluation are errors, never wrapped.
  CHECK(evalError("9223372036854775807 + 1 > 0").find("overflow") != std::string::npos);
  CHECK(evalError("-9223372036854775807 - 2 < 0").find("overflow") != std::string::npos);
  CHECK(evalError("4611686018427387904 * 2 > 0").find("overflow") != std::string::npos);
  CHECK(evalError("(-9223372036854775807 - 1) // -1 > 0").find("overflow") != std::string::npos);
  CHECK(evalError("-(-9223372036854775807 - 1) > 0").find("overflow") != std::string::npos);
  CHECK(evalError("(-9223372036854775807 - 1) % -1 == 0").empty());
  CHECK(evalError("L['x'].size()[2] // (L['x'].size()[0] - 1) == 0").find("division by zero") !=
        std::string::npos);
  CHECK(evalError("L['x'].size()[2] % 0 == 0").find("modulo by zero") != std::string::npos);
}
