//===- InputGuard.cpp - parse and evaluate torch.export's size guards -----===//

#include "tcc/Support/InputGuard.h"

#include <algorithm>
#include <cctype>
#include <limits>

using namespace tcc;

namespace {

/// Tree depth past which a guard is refused: evaluation recurses once per
/// level, and torch's guards are a few levels deep.
constexpr int kMaxTreeDepth = 256;

int64_t checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    throw InputGuardError("integer overflow in " + std::to_string(a) + " + " + std::to_string(b));
  return r;
}

int64_t checkedSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r))
    throw InputGuardError("integer overflow in " + std::to_string(a) + " - " + std::to_string(b));
  return r;
}

int64_t checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    throw InputGuardError("integer overflow in " + std::to_string(a) + " * " + std::to_string(b));
  return r;
}

/// Python's a // b: rounds toward negative infinity.
int64_t floorDiv(int64_t a, int64_t b) {
  if (b == 0)
    throw InputGuardError("division by zero in " + std::to_string(a) + " // 0");
  if (a == std::numeric_limits<int64_t>::min() && b == -1)
    throw InputGuardError("integer overflow in " + std::to_string(a) + " // -1");
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0)))
    --q;
  return q;
}

/// Python's a % b: the result takes the divisor's sign.
int64_t floorMod(int64_t a, int64_t b) {
  if (b == 0)
    throw InputGuardError("modulo by zero in " + std::to_string(a) + " % 0");
  if (b == -1)
    return 0; // INT64_MIN % -1 is undefined in C++
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

} // namespace

/// Recursive descent over Python's precedence: or < and < not < comparison
/// < + - < * // % < unary minus < primary.
class InputGuard::Parser {
public:
  Parser(std::string_view text, const std::vector<GuardInput> &inputs, InputGuard &guard)
      : text_(text), inputs_(inputs), guard_(guard) {}

  void parseAll() {
    if (text_.size() > kMaxTextLength)
      throw InputGuardError("guard is " + std::to_string(text_.size()) +
                            " characters long; at most " + std::to_string(kMaxTextLength) +
                            " are read");
    int root = parseOr();
    skipSpace();
    if (pos_ != text_.size())
      fail("unexpected " + describe(text_[pos_]));
    (void)root; // the root is the last node added
  }

private:
  [[noreturn]] void fail(const std::string &what) const {
    throw InputGuardError(what + " at column " + std::to_string(pos_ + 1));
  }

  /// A character for a message: printable ASCII quoted, anything else by
  /// code (the message may reach a terminal or a JSON string).
  static std::string describe(char c) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f)
      return "'" + std::string(1, c) + "'";
    return "byte 0x" + std::string(1, "0123456789abcdef"[u >> 4]) +
           std::string(1, "0123456789abcdef"[u & 15]);
  }

  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t'))
      ++pos_;
  }

  /// Consumes `token` (after spaces) when it is next; a word must not run
  /// on into an identifier ("order" is not "or").
  bool accept(std::string_view token) {
    skipSpace();
    if (text_.substr(pos_, token.size()) != token)
      return false;
    if (std::isalpha(static_cast<unsigned char>(token.back()))) {
      size_t end = pos_ + token.size();
      if (end < text_.size() &&
          (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_'))
        return false;
    }
    pos_ += token.size();
    return true;
  }

  void expect(std::string_view token) {
    if (!accept(token))
      fail("expected '" + std::string(token) + "'");
  }

  struct DepthScope {
    explicit DepthScope(Parser &p) : p(p) {
      if (++p.depth_ > kMaxDepth)
        p.fail("expression nested deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    ~DepthScope() { --p.depth_; }
    Parser &p;
  };

  int add(NodeKind kind, std::vector<int> args, int64_t value = 0, GuardDimRef ref = {}) {
    int depth = 1;
    for (int a : args)
      depth = std::max(depth, depths_[a] + 1);
    if (depth > kMaxTreeDepth)
      fail("expression deeper than " + std::to_string(kMaxTreeDepth) + " operations");
    Node n;
    n.kind = kind;
    n.value = value;
    n.ref = ref;
    n.args = std::move(args);
    guard_.nodes_.push_back(std::move(n));
    depths_.push_back(depth);
    return static_cast<int>(guard_.nodes_.size()) - 1;
  }

  int parseOr() {
    int lhs = parseAnd();
    while (accept("or"))
      lhs = add(NodeKind::Or, {lhs, parseAnd()});
    return lhs;
  }

  int parseAnd() {
    int lhs = parseNot();
    while (accept("and"))
      lhs = add(NodeKind::And, {lhs, parseNot()});
    return lhs;
  }

  int parseNot() {
    if (accept("not")) {
      DepthScope scope(*this);
      return add(NodeKind::Not, {parseNot()});
    }
    return parseComparison();
  }

  bool acceptComparison(NodeKind &kind) {
    static const std::pair<std::string_view, NodeKind> ops[] = {
        {"==", NodeKind::Eq}, {"!=", NodeKind::Ne}, {"<=", NodeKind::Le},
        {">=", NodeKind::Ge}, {"<", NodeKind::Lt},  {">", NodeKind::Gt}};
    for (const auto &[token, k] : ops)
      if (accept(token)) {
        kind = k;
        return true;
      }
    return false;
  }

  /// `a < b <= c` is `a < b and b <= c`, as in Python (b is one node,
  /// evaluated twice; it has no side effects).
  int parseComparison() {
    int lhs = parseArith();
    int result = -1;
    NodeKind kind;
    while (acceptComparison(kind)) {
      int rhs = parseArith();
      int cmp = add(kind, {lhs, rhs});
      result = result < 0 ? cmp : add(NodeKind::And, {result, cmp});
      lhs = rhs;
    }
    return result < 0 ? lhs : result;
  }

  int parseArith() {
    int lhs = parseTerm();
    for (;;) {
      if (accept("+"))
        lhs = add(NodeKind::Add, {lhs, parseTerm()});
      else if (accept("-"))
        lhs = add(NodeKind::Sub, {lhs, parseTerm()});
      else
        return lhs;
    }
  }

  int parseTerm() {
    int lhs = parseUnary();
    for (;;) {
      skipSpace();
      if (text_.substr(pos_, 2) == "**")
        fail("'**' (a power) is not supported");
      if (accept("//"))
        lhs = add(NodeKind::FloorDiv, {lhs, parseUnary()});
      else if (accept("/"))
        fail("'/' (true division) is not supported");
      else if (accept("*"))
        lhs = add(NodeKind::Mul, {lhs, parseUnary()});
      else if (accept("%"))
        lhs = add(NodeKind::Mod, {lhs, parseUnary()});
      else
        return lhs;
    }
  }

  int parseUnary() {
    if (accept("-")) {
      DepthScope scope(*this);
      return add(NodeKind::Negate, {parseUnary()});
    }
    if (accept("+")) {
      DepthScope scope(*this);
      return parseUnary();
    }
    return parsePrimary();
  }

  int64_t parseInteger() {
    skipSpace();
    if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_])))
      fail("expected an integer");
    int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      if (__builtin_mul_overflow(value, int64_t(10), &value) ||
          __builtin_add_overflow(value, int64_t(text_[pos_] - '0'), &value))
        fail("integer literal does not fit in 64 bits");
      ++pos_;
    }
    return value;
  }

  std::string parseIdentifier() {
    skipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  /// `L['name']`: a quoted name without escapes.
  std::string parseQuotedName() {
    skipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      fail("expected a quoted input name");
    char quote = text_[pos_++];
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != quote && text_[pos_] != '\\')
      ++pos_;
    if (pos_ >= text_.size() || text_[pos_] != quote)
      fail("unterminated or escaped input name");
    std::string name(text_.substr(start, pos_ - start));
    ++pos_;
    return name;
  }

  int parseInputRef() {
    expect("[");
    std::string name = parseQuotedName();
    expect("]");
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '[')
      fail("L['" + name + "'][...] (an element of a nested input) is not supported");
    expect(".");
    std::string method = parseIdentifier();
    if (method == "stride" || method == "storage_offset")
      fail("L['" + name + "']." + method + "() (a guard on the input's layout) is not supported");
    if (method != "size")
      fail("L['" + name + "']." + method + " is not supported");
    expect("(");
    expect(")");
    expect("[");
    int64_t dim = parseInteger();
    expect("]");
    size_t input = inputs_.size();
    for (size_t i = 0; i < inputs_.size(); ++i)
      if (inputs_[i].name == name)
        input = i;
    if (input == inputs_.size())
      fail("L['" + name + "'] names no input of the compiled model");
    if (static_cast<uint64_t>(dim) >= inputs_[input].rank)
      fail("L['" + name + "'].size()[" + std::to_string(dim) + "] is past input '" + name +
           "''s rank " + std::to_string(inputs_[input].rank));
    GuardDimRef ref{input, static_cast<size_t>(dim)};
    bool seen = false;
    for (const GuardDimRef &r : guard_.dims_)
      seen |= r.input == ref.input && r.dim == ref.dim;
    if (!seen)
      guard_.dims_.push_back(ref);
    return add(NodeKind::InputDim, {}, 0, ref);
  }

  int parseCall(const std::string &name) {
    NodeKind kind = name == "max" || name == "Max" ? NodeKind::Max : NodeKind::Min;
    DepthScope scope(*this);
    int result = parseOr();
    size_t count = 1;
    while (accept(",")) {
      result = add(kind, {result, parseOr()});
      ++count;
    }
    expect(")");
    if (count < 2)
      fail(name + "() takes at least two arguments");
    return result;
  }

  int parsePrimary() {
    skipSpace();
    if (pos_ >= text_.size())
      fail("unexpected end of the guard");
    char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)))
      return add(NodeKind::Constant, {}, parseInteger());
    if (c == '(') {
      ++pos_;
      DepthScope scope(*this);
      int inner = parseOr();
      expect(")");
      return inner;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos_;
      std::string name = parseIdentifier();
      if (name == "True" || name == "False")
        return add(NodeKind::Constant, {}, name == "True" ? 1 : 0);
      if (name == "L")
        return parseInputRef();
      if (accept("(")) {
        if (name == "max" || name == "Max" || name == "min" || name == "Min")
          return parseCall(name);
        pos_ = start;
        fail("the function '" + name + "' is not supported");
      }
      pos_ = start;
      fail("the name '" + name + "' is not supported");
    }
    fail("unexpected " + describe(c));
  }

  std::string_view text_;
  const std::vector<GuardInput> &inputs_;
  InputGuard &guard_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::vector<int> depths_; // tree depth of each node
};

InputGuard InputGuard::parse(std::string_view text, const std::vector<GuardInput> &inputs) {
  InputGuard guard;
  guard.text_ = std::string(text.substr(0, kMaxTextLength + 1));
  Parser(text, inputs, guard).parseAll();
  return guard;
}

bool InputGuard::holds(const GuardInputSizes &sizes) const {
  if (nodes_.empty())
    throw InputGuardError("empty guard");
  return evaluateNode(static_cast<int>(nodes_.size()) - 1, sizes) != 0;
}

int64_t InputGuard::evaluateNode(int index, const GuardInputSizes &sizes) const {
  const Node &n = nodes_[static_cast<size_t>(index)];
  auto arg = [&](size_t i) { return evaluateNode(n.args[i], sizes); };
  switch (n.kind) {
  case NodeKind::Constant:
    return n.value;
  case NodeKind::InputDim:
    return sizes.size(n.ref.input, n.ref.dim);
  case NodeKind::Negate:
    return checkedSub(0, arg(0));
  case NodeKind::Not:
    return arg(0) == 0;
  case NodeKind::Add:
    return checkedAdd(arg(0), arg(1));
  case NodeKind::Sub:
    return checkedSub(arg(0), arg(1));
  case NodeKind::Mul:
    return checkedMul(arg(0), arg(1));
  case NodeKind::FloorDiv:
    return floorDiv(arg(0), arg(1));
  case NodeKind::Mod:
    return floorMod(arg(0), arg(1));
  case NodeKind::Eq:
    return arg(0) == arg(1);
  case NodeKind::Ne:
    return arg(0) != arg(1);
  case NodeKind::Lt:
    return arg(0) < arg(1);
  case NodeKind::Le:
    return arg(0) <= arg(1);
  case NodeKind::Gt:
    return arg(0) > arg(1);
  case NodeKind::Ge:
    return arg(0) >= arg(1);
  // Short-circuit as Python does: `x != 0 and y // x > 1` never divides by 0.
  case NodeKind::And:
    return arg(0) != 0 && arg(1) != 0;
  case NodeKind::Or:
    return arg(0) != 0 || arg(1) != 0;
  case NodeKind::Max:
    return std::max(arg(0), arg(1));
  case NodeKind::Min:
    return std::min(arg(0), arg(1));
  }
  throw InputGuardError("unknown guard node");
}
