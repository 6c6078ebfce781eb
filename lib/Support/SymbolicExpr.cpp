//===- SymbolicExpr.cpp - integer size expressions over named symbols -----===//
//
// A recursive-descent parser into a flat node vector, and an evaluator with
// Python integer semantics and overflow checks.
//
//===----------------------------------------------------------------------===//
#include "tcc/Support/SymbolicExpr.h"

#include <algorithm>
#include <cctype>

namespace tcc {

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

/// Grammar, lowest precedence first:
///   sum     := product (('+' | '-') product)*
///   product := unary (('*' | '//' | '%') unary)*
///   unary   := '-' unary | '+' unary | primary
///   primary := integer | identifier | '(' sum ')'
///            | ('min' | 'max') '(' sum (',' sum)+ ')'
class SymbolicExpr::Parser {
public:
  Parser(std::string_view text, std::vector<Node> &nodes)
      : text_(text), nodes_(nodes) {}

  void parseAll() {
    skipSpace();
    if (pos_ == text_.size())
      fail("empty expression");
    parseSum();
    skipSpace();
    if (pos_ != text_.size())
      fail("unexpected '" + std::string(1, text_[pos_]) + "'");
  }

private:
  [[noreturn]] void fail(const std::string &what) const {
    throw SymbolicExprError("invalid size expression '" + std::string(text_) +
                            "' at column " + std::to_string(pos_ + 1) + ": " +
                            what);
  }

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }

  bool consume(std::string_view token) {
    skipSpace();
    if (text_.substr(pos_, token.size()) != token)
      return false;
    pos_ += token.size();
    return true;
  }

  int add(Node node) {
    nodes_.push_back(std::move(node));
    return static_cast<int>(nodes_.size()) - 1;
  }

  int binary(NodeKind kind, int lhs, int rhs) {
    Node n{kind};
    n.lhs = lhs;
    n.rhs = rhs;
    return add(std::move(n));
  }

  int parseSum() {
    int lhs = parseProduct();
    while (true) {
      if (consume("+"))
        lhs = binary(NodeKind::Add, lhs, parseProduct());
      else if (consume("-"))
        lhs = binary(NodeKind::Sub, lhs, parseProduct());
      else
        return lhs;
    }
  }

  int parseProduct() {
    int lhs = parseUnary();
    while (true) {
      if (consume("*"))
        lhs = binary(NodeKind::Mul, lhs, parseUnary());
      else if (consume("//"))
        lhs = binary(NodeKind::FloorDiv, lhs, parseUnary());
      else if (consume("%"))
        lhs = binary(NodeKind::Mod, lhs, parseUnary());
      else if (consume("/"))
        fail("'/' is not supported, use '//' (floor division)");
      else
        return lhs;
    }
  }

  int parseUnary() {
    if (consume("-")) {
      Node n{NodeKind::Negate};
      n.lhs = parseUnary();
      return add(std::move(n));
    }
    if (consume("+"))
      return parseUnary();
    return parsePrimary();
  }

  int parsePrimary() {
    skipSpace();
    if (pos_ == text_.size())
      fail("expected an operand");
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      int inner = parseSum();
      if (!consume(")"))
        fail("expected ')'");
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t value = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        int digit = text_[pos_] - '0';
        if (value > (INT64_MAX - digit) / 10)
          fail("integer out of range");
        value = value * 10 + digit;
        ++pos_;
      }
      Node n{NodeKind::Constant};
      n.value = value;
      return add(std::move(n));
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      std::string name(text_.substr(start, pos_ - start));
      if ((name == "min" || name == "max") && consume("("))
        return parseExtremum(name == "min" ? NodeKind::Min : NodeKind::Max);
      Node n{NodeKind::Symbol};
      n.name = std::move(name);
      return add(std::move(n));
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }

  /// The arguments of min( or max( after its '(', folded left into
  /// binary nodes.
  int parseExtremum(NodeKind kind) {
    int lhs = parseSum();
    if (!consume(","))
      fail("expected ',': min and max take at least 2 arguments");
    do
      lhs = binary(kind, lhs, parseSum());
    while (consume(","));
    if (!consume(")"))
      fail("expected ')'");
    return lhs;
  }

  std::string_view text_;
  std::vector<Node> &nodes_;
  size_t pos_ = 0;
};

SymbolicExpr SymbolicExpr::parse(std::string_view text) {
  SymbolicExpr expr;
  expr.text_ = std::string(text);
  // Every node is appended after its operands, so the root comes last.
  Parser(text, expr.nodes_).parseAll();
  return expr;
}

SymbolicExpr SymbolicExpr::constant(int64_t value) {
  SymbolicExpr expr;
  expr.text_ = std::to_string(value);
  Node n{NodeKind::Constant};
  n.value = value;
  expr.nodes_.push_back(n);
  return expr;
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

namespace {
[[noreturn]] void overflow(const std::string &text) {
  throw SymbolicExprError("size expression '" + text + "' overflows int64");
}
} // namespace

int64_t SymbolicExpr::evaluateNode(int index, const SymbolBindings &symbols) const {
  const Node &n = nodes_[index];
  switch (n.kind) {
  case NodeKind::Constant:
    return n.value;
  case NodeKind::Symbol: {
    auto it = symbols.find(n.name);
    if (it == symbols.end())
      throw SymbolicExprError("size expression '" + text_ +
                              "' uses unknown symbol '" + n.name + "'");
    return it->second;
  }
  case NodeKind::Negate: {
    int64_t v = evaluateNode(n.lhs, symbols);
    if (v == INT64_MIN)
      overflow(text_);
    return -v;
  }
  default:
    break;
  }
  int64_t a = evaluateNode(n.lhs, symbols);
  int64_t b = evaluateNode(n.rhs, symbols);
  int64_t r = 0;
  switch (n.kind) {
  case NodeKind::Add:
    if (__builtin_add_overflow(a, b, &r))
      overflow(text_);
    return r;
  case NodeKind::Sub:
    if (__builtin_sub_overflow(a, b, &r))
      overflow(text_);
    return r;
  case NodeKind::Mul:
    if (__builtin_mul_overflow(a, b, &r))
      overflow(text_);
    return r;
  case NodeKind::Min:
    return std::min(a, b);
  case NodeKind::Max:
    return std::max(a, b);
  case NodeKind::FloorDiv:
  case NodeKind::Mod: {
    if (b == 0)
      throw SymbolicExprError("size expression '" + text_ + "' divides by zero");
    if (a == INT64_MIN && b == -1)
      overflow(text_);
    int64_t q = a / b, m = a % b;
    // C++ truncates toward zero; Python floors.
    if (m != 0 && ((m < 0) != (b < 0))) {
      q -= 1;
      m += b;
    }
    return n.kind == NodeKind::FloorDiv ? q : m;
  }
  default:
    break;
  }
  throw SymbolicExprError("size expression '" + text_ + "': corrupt expression");
}

int64_t SymbolicExpr::evaluate(const SymbolBindings &symbols) const {
  return evaluateNode(static_cast<int>(nodes_.size()) - 1, symbols);
}

std::optional<int64_t> SymbolicExpr::asConstant() const {
  if (!symbols().empty())
    return std::nullopt;
  try {
    return evaluate({});
  } catch (const SymbolicExprError &) {
    return std::nullopt;
  }
}

std::optional<std::string> SymbolicExpr::asSymbol() const {
  if (nodes_.size() == 1 && nodes_[0].kind == NodeKind::Symbol)
    return nodes_[0].name;
  return std::nullopt;
}

std::set<std::string> SymbolicExpr::symbols() const {
  std::set<std::string> names;
  for (const Node &n : nodes_)
    if (n.kind == NodeKind::Symbol)
      names.insert(n.name);
  return names;
}

} // namespace tcc
