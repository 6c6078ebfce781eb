//===- SymbolicExpr.h - integer size expressions over named symbols -------===//
//
// The guard manifest states dynamic sizes as expressions over symbols such as
// "s77" or "2*s77 + 1" (docs/ARTIFACT.md). This is the parser and evaluator
// shared by the compiler, which writes them, and the runtime, which evaluates
// them for every call. Semantics follow Python/sympy integers: `//` is floor
// division and `%` takes the sign of the divisor.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_SYMBOLICEXPR_H
#define TCC_SUPPORT_SYMBOLICEXPR_H

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tcc {

/// Values of the symbols an expression is evaluated with.
using SymbolBindings = std::map<std::string, int64_t, std::less<>>;

/// A syntax error, an unknown symbol or a division by zero.
class SymbolicExprError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A parsed expression: integers, identifiers, `+ - *`, `//`, `%`, unary minus,
/// parentheses and `min(a, b, ...)` / `max(a, b, ...)`. Cheap to copy;
/// immutable once parsed.
class SymbolicExpr {
public:
  /// Parses `text`; throws SymbolicExprError naming the offending column.
  static SymbolicExpr parse(std::string_view text);

  /// The expression for a static size.
  static SymbolicExpr constant(int64_t value);

  /// Evaluates with `symbols`; throws SymbolicExprError for a symbol missing
  /// from `symbols` or a division (or modulo) by zero.
  int64_t evaluate(const SymbolBindings &symbols) const;

  /// The value when the expression contains no symbol.
  std::optional<int64_t> asConstant() const;

  /// The symbol's name when the expression is exactly one symbol ("s77").
  std::optional<std::string> asSymbol() const;

  /// Names of all symbols the expression mentions.
  std::set<std::string> symbols() const;

  /// The text it was parsed from (or the decimal value of a constant).
  const std::string &text() const { return text_; }

private:
  enum class NodeKind { Constant, Symbol, Negate, Add, Sub, Mul, FloorDiv, Mod, Min, Max };
  struct Node {
    explicit Node(NodeKind kind) : kind(kind) {}
    NodeKind kind;
    int64_t value = 0; // Constant
    std::string name;  // Symbol
    int lhs = -1, rhs = -1; // operand node indices
  };
  class Parser;

  int64_t evaluateNode(int index, const SymbolBindings &symbols) const;

  std::string text_;
  std::vector<Node> nodes_; // the root is the last node
};

} // namespace tcc

#endif // TCC_SUPPORT_SYMBOLICEXPR_H
