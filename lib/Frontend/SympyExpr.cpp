//===- SympyExpr.cpp - symbolic sizes from sympy text ---------------------===//
//
// A small recursive-descent parser for the sympy text torch.export writes
// (srepr calls and str infix alike, freely mixed), a tree of the operations
// tcc's infix spelling has, and a printer that adds only needed parentheses.
//
//===----------------------------------------------------------------------===//
#include "tcc/Frontend/SympyExpr.h"
#include "tcc/Frontend/FrontendError.h"

#include <cstdint>
#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <memory>
#include <vector>

namespace tcc::frontend {

namespace {

//===----------------------------------------------------------------------===//
// Expression tree
//===----------------------------------------------------------------------===//

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  enum Op { Int, Sym, Add, Mul, FloorDiv, Mod, Neg, TrueDiv, Min, Max };
  Op op;
  int64_t value = 0;            // Int
  std::string name;             // Sym
  std::vector<ExprPtr> operands; // Add: terms, Mul: factors, Min/Max: arguments, binary: 2
};

/// Binding strength when printed: sums < products and divisions < atoms.
int precedence(const Expr &e) {
  switch (e.op) {
  case Expr::Add: return 1;
  case Expr::Mul: case Expr::FloorDiv: case Expr::Mod: case Expr::TrueDiv:
    return 2;
  case Expr::Int: return e.value < 0 ? 2 : 3; // "-2" binds like a product
  default: return 3;
  }
}

//===----------------------------------------------------------------------===//
// Lexer
//===----------------------------------------------------------------------===//

struct Token {
  enum Kind { End, Integer, Ident, String, Punct } kind = End;
  std::string text;
  int64_t value = 0;
};

class SympyParser {
public:
  explicit SympyParser(std::string_view text) : text(text) { advance(); }

  ExprPtr parseTop() {
    ExprPtr e = parseSum();
    if (tok.kind != Token::End)
      fail("unexpected '" + tok.text + "'");
    return e;
  }

  [[noreturn]] void fail(const std::string &why) const {
    std::string shown(text.substr(0, 200));
    if (text.size() > 200)
      shown += "...";
    throw FrontendError("unsupported symbolic expression '" + shown +
                        "': " + why);
  }

  ExprPtr make(Expr::Op op) {
    // Pow expands into products; a budget keeps nested powers bounded.
    if (++nodeCount > kMaxNodes)
      fail("expression is too large");
    auto e = std::make_unique<Expr>();
    e->op = op;
    return e;
  }

private:
  static constexpr int kMaxDepth = 200;
  static constexpr int kMaxNodes = 10000;
  static constexpr int64_t kMaxPower = 16;

  std::string_view text;
  size_t pos = 0;
  Token tok;
  int depth = 0;
  int nodeCount = 0;

  static bool isIdentStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }
  static bool isDigit(char c) { return c >= '0' && c <= '9'; }

  void advance() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
    tok = Token();
    if (pos >= text.size())
      return;
    char c = text[pos];
    size_t start = pos;
    if (isDigit(c)) {
      uint64_t v = 0;
      while (pos < text.size() && isDigit(text[pos])) {
        v = v * 10 + static_cast<uint64_t>(text[pos] - '0');
        if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
          fail("integer literal out of range");
        ++pos;
      }
      if (pos < text.size() && (text[pos] == '.' || text[pos] == 'e'))
        fail("floating-point numbers are not supported");
      tok.kind = Token::Integer;
      tok.value = static_cast<int64_t>(v);
    } else if (isIdentStart(c)) {
      while (pos < text.size() && (isIdentStart(text[pos]) || isDigit(text[pos])))
        ++pos;
      tok.kind = Token::Ident;
    } else if (c == '\'' || c == '"') {
      size_t close = text.find(c, pos + 1);
      if (close == std::string_view::npos)
        fail("unterminated string");
      tok.kind = Token::String;
      tok.text = std::string(text.substr(pos + 1, close - pos - 1));
      pos = close + 1;
      return;
    } else if ((c == '*' || c == '/') && pos + 1 < text.size() &&
               text[pos + 1] == c) {
      pos += 2;
      tok.kind = Token::Punct;
    } else if (std::string_view("()+-*/%,=").find(c) != std::string_view::npos) {
      ++pos;
      tok.kind = Token::Punct;
    } else {
      fail(std::string("unexpected character '") + c + "'");
    }
    tok.text = std::string(text.substr(start, pos - start));
  }

  bool isPunct(std::string_view p) const {
    return tok.kind == Token::Punct && tok.text == p;
  }

  void expect(std::string_view p) {
    if (!isPunct(p))
      fail("expected '" + std::string(p) + "' but found '" +
           (tok.kind == Token::End ? std::string("end") : tok.text) + "'");
    advance();
  }

  struct DepthGuard {
    SympyParser &p;
    explicit DepthGuard(SympyParser &p) : p(p) {
      if (++p.depth > kMaxDepth)
        p.fail("nested too deeply");
    }
    ~DepthGuard() { --p.depth; }
  };

  //===--------------------------------------------------------------------===//
  // Tree construction with light normalization
  //===--------------------------------------------------------------------===//

  ExprPtr makeInt(int64_t v) {
    ExprPtr e = make(Expr::Int);
    e->value = v;
    return e;
  }

  ExprPtr negate(ExprPtr x) {
    if (x->op == Expr::Int && x->value != std::numeric_limits<int64_t>::min()) {
      x->value = -x->value;
      return x;
    }
    if (x->op == Expr::Neg)
      return std::move(x->operands[0]);
    ExprPtr e = make(Expr::Neg);
    e->operands.push_back(std::move(x));
    return e;
  }

  /// Appends `x` to an n-ary `op` node, flattening nested nodes of `op`.
  static void append(Expr &into, ExprPtr x) {
    if (x->op == into.op) {
      for (ExprPtr &child : x->operands)
        into.operands.push_back(std::move(child));
      return;
    }
    into.operands.push_back(std::move(x));
  }

  ExprPtr makeNary(Expr::Op op, std::vector<ExprPtr> xs) {
    if (xs.size() == 1)
      return std::move(xs[0]);
    ExprPtr e = make(op);
    for (ExprPtr &x : xs)
      append(*e, std::move(x));
    return e;
  }

  ExprPtr makeBinary(Expr::Op op, ExprPtr a, ExprPtr b) {
    ExprPtr e = make(op);
    e->operands.push_back(std::move(a));
    e->operands.push_back(std::move(b));
    return e;
  }

  ExprPtr clone(const Expr &x) {
    ExprPtr e = make(x.op);
    e->value = x.value;
    e->name = x.name;
    for (const ExprPtr &child : x.operands)
      e->operands.push_back(clone(*child));
    return e;
  }

  ExprPtr makePower(ExprPtr base, const Expr &exponent) {
    if (exponent.op != Expr::Int)
      fail("only integer powers are supported");
    if (exponent.value < 0 || exponent.value > kMaxPower)
      fail("power " + std::to_string(exponent.value) + " is not supported");
    if (exponent.value == 0)
      return makeInt(1);
    std::vector<ExprPtr> factors;
    for (int64_t k = 1; k < exponent.value; ++k)
      factors.push_back(clone(*base));
    factors.push_back(std::move(base));
    return makeNary(Expr::Mul, std::move(factors));
  }

  //===--------------------------------------------------------------------===//
  // Grammar
  //===--------------------------------------------------------------------===//

  ExprPtr parseSum() {
    DepthGuard guard(*this);
    std::vector<ExprPtr> terms;
    terms.push_back(parseProduct());
    while (isPunct("+") || isPunct("-")) {
      bool minus = tok.text == "-";
      advance();
      ExprPtr term = parseProduct();
      terms.push_back(minus ? negate(std::move(term)) : std::move(term));
    }
    return makeNary(Expr::Add, std::move(terms));
  }

  ExprPtr parseProduct() {
    ExprPtr lhs = parseUnary();
    while (isPunct("*") || isPunct("//") || isPunct("/") || isPunct("%")) {
      std::string op = tok.text;
      advance();
      ExprPtr rhs = parseUnary();
      if (op == "*") {
        std::vector<ExprPtr> factors;
        factors.push_back(std::move(lhs));
        factors.push_back(std::move(rhs));
        lhs = makeNary(Expr::Mul, std::move(factors));
      } else {
        Expr::Op kind = op == "//" ? Expr::FloorDiv
                        : op == "%" ? Expr::Mod
                                    : Expr::TrueDiv;
        lhs = makeBinary(kind, std::move(lhs), std::move(rhs));
      }
    }
    return lhs;
  }

  ExprPtr parseUnary() {
    DepthGuard guard(*this);
    if (isPunct("-")) {
      advance();
      return negate(parseUnary());
    }
    if (isPunct("+")) {
      advance();
      return parseUnary();
    }
    ExprPtr base = parsePrimary();
    if (isPunct("**")) {
      advance();
      ExprPtr exponent = parseUnary();
      return makePower(std::move(base), *exponent);
    }
    return base;
  }

  ExprPtr parsePrimary() {
    if (tok.kind == Token::Integer) {
      ExprPtr e = makeInt(tok.value);
      advance();
      return e;
    }
    if (isPunct("(")) {
      advance();
      ExprPtr e = parseSum();
      expect(")");
      return e;
    }
    if (tok.kind != Token::Ident)
      fail(tok.kind == Token::End ? "unexpected end"
                                  : "unexpected '" + tok.text + "'");
    std::string name = tok.text;
    advance();
    if (isPunct("("))
      return parseCall(name);
    static const char *const reserved[] = {"oo", "zoo", "nan", "I", "E", "pi",
                                           "True", "False"};
    for (const char *r : reserved)
      if (name == r)
        fail("'" + name + "' is not a size");
    ExprPtr e = make(Expr::Sym);
    e->name = name;
    return e;
  }

  /// Symbol('name', assumption=True, ...)
  ExprPtr parseSymbol() {
    if (tok.kind != Token::String)
      fail("Symbol needs a quoted name");
    std::string name = tok.text;
    if (name.empty() || !isIdentStart(name[0]))
      fail("symbol name '" + name + "' is not an identifier");
    for (char c : name)
      if (!isIdentStart(c) && !isDigit(c))
        fail("symbol name '" + name + "' is not an identifier");
    advance();
    while (isPunct(",")) {
      advance();
      if (tok.kind != Token::Ident)
        fail("expected an assumption like integer=True in Symbol");
      advance();
      expect("=");
      if (tok.kind != Token::Ident && tok.kind != Token::Integer)
        fail("expected True or False in Symbol");
      advance();
    }
    expect(")");
    ExprPtr e = make(Expr::Sym);
    e->name = name;
    return e;
  }

  /// Float('1.5', precision=53): the double's exact value p / 2^k, as an
  /// integer where it is one.
  ExprPtr parseFloat() {
    if (tok.kind != Token::String)
      fail("Float needs a quoted number");
    std::string text = tok.text;
    char *end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v))
      fail("Float('" + text + "') is not a finite number");
    advance();
    while (isPunct(",")) { // precision=53
      advance();
      if (tok.kind != Token::Ident)
        fail("expected precision=N in Float");
      advance();
      expect("=");
      if (tok.kind != Token::Integer)
        fail("expected precision=N in Float");
      advance();
    }
    expect(")");
    int64_t denominator = 1;
    while (v != std::floor(v)) {
      if (denominator > (int64_t(1) << 40))
        fail("Float('" + text + "') is not a fraction with a small denominator");
      v *= 2;
      denominator *= 2;
    }
    if (std::fabs(v) > 9.0e15)
      fail("Float('" + text + "') is too large for a size");
    ExprPtr numerator = makeInt(static_cast<int64_t>(v));
    if (denominator == 1)
      return numerator;
    return makeBinary(Expr::TrueDiv, std::move(numerator), makeInt(denominator));
  }

  /// A product with one factor a / b (a Float's fraction) as (a * rest) / b.
  ExprPtr pullDivisionOut(ExprPtr x) {
    if (x->op != Expr::Mul)
      return x;
    auto division = std::find_if(x->operands.begin(), x->operands.end(), [](const ExprPtr &f) {
      return f->op == Expr::TrueDiv;
    });
    if (division == x->operands.end())
      return x;
    ExprPtr quotient = std::move(*division);
    x->operands.erase(division);
    std::vector<ExprPtr> factors;
    if (quotient->operands[0]->op != Expr::Int || quotient->operands[0]->value != 1)
      factors.push_back(std::move(quotient->operands[0]));
    for (ExprPtr &f : x->operands)
      factors.push_back(std::move(f));
    return makeBinary(Expr::TrueDiv, makeNary(Expr::Mul, std::move(factors)),
                      std::move(quotient->operands[1]));
  }

  std::vector<ExprPtr> parseArguments() {
    std::vector<ExprPtr> args;
    if (isPunct(")")) {
      advance();
      return args;
    }
    args.push_back(parseSum());
    while (isPunct(",")) {
      advance();
      args.push_back(parseSum());
    }
    expect(")");
    return args;
  }

  static bool hasTrueDiv(const Expr &e) {
    if (e.op == Expr::TrueDiv)
      return true;
    for (const ExprPtr &child : e.operands)
      if (hasTrueDiv(*child))
        return true;
    return false;
  }

  ExprPtr parseCall(const std::string &name) {
    DepthGuard guard(*this);
    advance(); // '('
    if (name == "Symbol")
      return parseSymbol();
    if (name == "Float")
      return parseFloat();
    std::vector<ExprPtr> args = parseArguments();
    auto arity = [&](size_t n) {
      if (args.size() != n)
        fail(name + " takes " + std::to_string(n) + " argument(s), got " +
             std::to_string(args.size()));
    };
    if (name == "Integer") {
      arity(1);
      if (args[0]->op != Expr::Int)
        fail("Integer needs an integer literal");
      return std::move(args[0]);
    }
    if (name == "Add" || name == "Mul") {
      if (args.empty())
        fail(name + " needs arguments");
      return makeNary(name == "Add" ? Expr::Add : Expr::Mul, std::move(args));
    }
    if (name == "FloorDiv" || name == "CleanDiv") {
      arity(2);
      return makeBinary(Expr::FloorDiv, std::move(args[0]), std::move(args[1]));
    }
    if (name == "Mod" || name == "PythonMod") {
      arity(2);
      return makeBinary(Expr::Mod, std::move(args[0]), std::move(args[1]));
    }
    // min(a, b) of sizes (a diagonal's length, LU's min(m, n)).
    if (name == "Min" || name == "Max") {
      if (args.size() < 2)
        fail(name + " needs at least 2 arguments");
      ExprPtr e = make(name == "Min" ? Expr::Min : Expr::Max);
      for (ExprPtr &a : args)
        e->operands.push_back(std::move(a));
      return e;
    }
    if (name == "Pow") {
      arity(2);
      return makePower(std::move(args[0]), *args[1]);
    }
    // A size computed in floating point (interpolate's scale_factor:
    // TruncToInt(2.0 * ToFloat(s0))): ToFloat keeps the integer expression,
    // a float constant is an exact fraction p / 2^k, and rounding the
    // product of a fraction and an integer expression to an integer is a
    // floor division. Sizes are not negative, so truncation is the floor.
    if (name == "ToFloat") {
      arity(1);
      return std::move(args[0]);
    }
    if (name == "floor" || name == "FloorToInt" || name == "TruncToInt" ||
        name == "CeilToInt" || name == "ceiling") {
      arity(1);
      ExprPtr x = pullDivisionOut(std::move(args[0]));
      bool ceil = name == "CeilToInt" || name == "ceiling";
      if (x->op == Expr::TrueDiv) {
        if (ceil) {
          // ceil(a / b) = (a + b - 1) // b for b > 0.
          if (x->operands[1]->op != Expr::Int || x->operands[1]->value < 1)
            fail(name + " of a division by a non-constant");
          std::vector<ExprPtr> terms;
          terms.push_back(std::move(x->operands[0]));
          terms.push_back(makeInt(x->operands[1]->value - 1));
          x->operands[0] = makeNary(Expr::Add, std::move(terms));
        }
        x->op = Expr::FloorDiv;
      }
      if (hasTrueDiv(*x))
        fail(name + " of a non-integer expression");
      return x;
    }
    fail("function '" + name + "' is not supported");
  }
};

//===----------------------------------------------------------------------===//
// Printer
//===----------------------------------------------------------------------===//

void print(const Expr &e, std::string &out);

void printWrapped(const Expr &e, bool parens, std::string &out) {
  if (parens)
    out += '(';
  print(e, out);
  if (parens)
    out += ')';
}

/// Prints a non-first term of a sum: " + t" or " - t".
void printTerm(const Expr &t, std::string &out) {
  if (t.op == Expr::Int && t.value < 0 &&
      t.value != std::numeric_limits<int64_t>::min()) {
    out += " - " + std::to_string(-t.value);
    return;
  }
  if (t.op == Expr::Neg) {
    out += " - ";
    printWrapped(*t.operands[0], precedence(*t.operands[0]) <= 1, out);
    return;
  }
  if (t.op == Expr::Mul && t.operands[0]->op == Expr::Int &&
      t.operands[0]->value < 0 &&
      t.operands[0]->value != std::numeric_limits<int64_t>::min()) {
    // "a + -2*b" reads better as "a - 2*b".
    out += " - ";
    int64_t coefficient = -t.operands[0]->value;
    bool first = true;
    if (coefficient != 1) {
      out += std::to_string(coefficient);
      first = false;
    }
    for (size_t k = 1; k < t.operands.size(); ++k) {
      if (!first)
        out += '*';
      first = false;
      printWrapped(*t.operands[k], precedence(*t.operands[k]) <= 2, out);
    }
    return;
  }
  out += " + ";
  printWrapped(t, precedence(t) <= 1, out);
}

void print(const Expr &e, std::string &out) {
  switch (e.op) {
  case Expr::Int:
    out += std::to_string(e.value);
    return;
  case Expr::Sym:
    out += e.name;
    return;
  case Expr::Add:
    print(*e.operands[0], out);
    for (size_t k = 1; k < e.operands.size(); ++k)
      printTerm(*e.operands[k], out);
    return;
  case Expr::Mul: {
    size_t k = 0;
    if (e.operands[0]->op == Expr::Int && e.operands[0]->value == -1 &&
        e.operands.size() > 1) {
      out += '-';
      k = 1;
    }
    for (size_t first = k; k < e.operands.size(); ++k) {
      if (k != first)
        out += '*';
      // Parenthesize divisions among factors: a*(b//c) is not a*b//c.
      const Expr &f = *e.operands[k];
      bool parens = precedence(f) <= 1 ||
                    (precedence(f) == 2 && f.op != Expr::Int);
      printWrapped(f, parens, out);
    }
    return;
  }
  case Expr::FloorDiv:
  case Expr::Mod:
    printWrapped(*e.operands[0], precedence(*e.operands[0]) <= 1, out);
    out += e.op == Expr::FloorDiv ? "//" : "%";
    printWrapped(*e.operands[1], precedence(*e.operands[1]) <= 2, out);
    return;
  case Expr::Neg:
    out += '-';
    printWrapped(*e.operands[0], precedence(*e.operands[0]) <= 2, out);
    return;
  case Expr::Min:
  case Expr::Max:
    out += e.op == Expr::Min ? "min(" : "max(";
    for (size_t k = 0; k < e.operands.size(); ++k) {
      if (k)
        out += ", ";
      print(*e.operands[k], out);
    }
    out += ')';
    return;
  case Expr::TrueDiv:
    break; // Rejected before printing.
  }
}

bool containsTrueDiv(const Expr &e) {
  if (e.op == Expr::TrueDiv)
    return true;
  for (const ExprPtr &child : e.operands)
    if (containsTrueDiv(*child))
      return true;
  return false;
}

} // namespace

std::string sympyToInfix(std::string_view sympyText) {
  SympyParser parser(sympyText);
  ExprPtr e = parser.parseTop();
  if (containsTrueDiv(*e))
    parser.fail("true division is not supported");
  std::string out;
  print(*e, out);
  return out;
}

} // namespace tcc::frontend
