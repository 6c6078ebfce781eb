//===- GraphParser.cpp - parse the textual TorchScript IR ------------------===//
//
// A hand-written recursive-descent parser over the text printed by
// str(graph). It keeps a byte position and turns it into line:column only
// when it reports an error.
//
//===----------------------------------------------------------------------===//
#include "tcc/Frontend/TorchScript/TorchScriptGraph.h"

#include "tcc/Frontend/FrontendError.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

using namespace tcc;
using namespace tcc::frontend;
using namespace tcc::frontend::torchscript;

std::string TsSourceRange::str() const {
  if (!known())
    return "";
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

const TsAttr *TsNode::attr(std::string_view name) const {
  for (const TsAttr &a : attrs)
    if (a.name == name)
      return &a;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

namespace {
std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

/// Splits at commas outside brackets.
std::vector<std::string_view> splitTopLevel(std::string_view s) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']' || c == '}')
      --depth;
    else if (c == ',' && depth == 0) {
      parts.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::string_view last = trim(s.substr(start));
  if (!last.empty() || !parts.empty())
    parts.push_back(last);
  return parts;
}

std::optional<DType> tensorTypeDType(std::string_view name) {
  if (name == "Float") return DType::Float32;
  if (name == "Double") return DType::Float64;
  if (name == "Half") return DType::Float16;
  if (name == "BFloat16") return DType::BFloat16;
  if (name == "Long") return DType::Int64;
  if (name == "Int") return DType::Int32;
  if (name == "Short") return DType::Int16;
  if (name == "Char") return DType::Int8;
  if (name == "Byte") return DType::UInt8;
  if (name == "Bool") return DType::Bool;
  return std::nullopt;
}
} // namespace

TsType torchscript::parseTsType(std::string_view spelling) {
  spelling = trim(spelling);
  TsType t;
  t.spelling = std::string(spelling);
  auto wrap = [&](TsType::Kind kind, std::string_view inner) {
    t.kind = kind;
    t.elements.push_back(parseTsType(inner));
    return t;
  };
  if (spelling.size() > 2 && spelling.substr(spelling.size() - 2) == "[]")
    return wrap(TsType::List, spelling.substr(0, spelling.size() - 2));
  if (spelling.size() > 1 && spelling.back() == '?')
    return wrap(TsType::Optional, spelling.substr(0, spelling.size() - 1));
  auto generic = [&](std::string_view head) -> std::optional<std::string_view> {
    if (spelling.size() > head.size() + 1 && spelling.substr(0, head.size()) == head &&
        spelling[head.size()] == '[' && spelling.back() == ']')
      return spelling.substr(head.size() + 1, spelling.size() - head.size() - 2);
    return std::nullopt;
  };
  if (auto in = generic("Optional"))
    return wrap(TsType::Optional, *in);
  if (auto in = generic("List"))
    return wrap(TsType::List, *in);
  if (auto in = generic("Tuple")) {
    t.kind = TsType::Tuple;
    for (std::string_view p : splitTopLevel(*in))
      t.elements.push_back(parseTsType(p));
    return t;
  }
  if (!spelling.empty() && spelling.front() == '(' && spelling.back() == ')') {
    t.kind = TsType::Tuple;
    for (std::string_view p : splitTopLevel(spelling.substr(1, spelling.size() - 2)))
      t.elements.push_back(parseTsType(p));
    return t;
  }
  if (spelling == "Tensor") { t.kind = TsType::Tensor; return t; }
  if (spelling == "int" || spelling == "SymInt") { t.kind = TsType::Int; return t; }
  if (spelling == "float" || spelling == "SymFloat") { t.kind = TsType::Float; return t; }
  if (spelling == "bool") { t.kind = TsType::Bool; return t; }
  if (spelling == "str") { t.kind = TsType::Str; return t; }
  if (spelling == "NoneType") { t.kind = TsType::None; return t; }
  if (spelling == "Device") { t.kind = TsType::Device; return t; }
  if (spelling.substr(0, 10) == "__torch__.") { t.kind = TsType::Class; return t; }
  size_t paren = spelling.find('(');
  std::string_view head = spelling.substr(0, paren);
  if (auto dtype = tensorTypeDType(head)) {
    t.kind = TsType::Tensor;
    t.dtype = dtype;
    if (paren == std::string_view::npos || spelling.back() != ')')
      return t;
    t.hasSizes = true;
    for (std::string_view item :
         splitTopLevel(spelling.substr(paren + 1, spelling.size() - paren - 2))) {
      if (item.find('=') != std::string_view::npos)
        continue;
      if (item == "*") {
        t.sizes.push_back(std::nullopt);
        continue;
      }
      std::string s(item);
      char *end = nullptr;
      long long v = std::strtoll(s.c_str(), &end, 10);
      if (s.empty() || *end != '\0') {
        t.hasSizes = false; // not a size list we understand
        t.sizes.clear();
        return t;
      }
      t.sizes.push_back(v);
    }
    return t;
  }
  return t;
}

//===----------------------------------------------------------------------===//
// The parser
//===----------------------------------------------------------------------===//

namespace {
class Parser {
public:
  Parser(std::string_view text, const std::string &sourceName)
      : text(text), sourceName(sourceName) {}

  TsGraph parseGraph() {
    TsGraph g;
    skipWs();
    expectWord("graph");
    expect('(');
    g.inputs = parseDeclList(')');
    expect(')');
    skipSpaces();
    expect(':');
    expectEol();
    while (true) {
      skipWs();
      if (atEnd())
        fail("expected 'return' at the end of the graph");
      if (startsWith("return")) {
        pos += 6;
        g.returns = parseUseList();
        skipWs();
        if (!atEnd())
          fail("unexpected text after the graph's return");
        return g;
      }
      g.nodes.push_back(parseNode());
    }
  }

private:
  std::string_view text;
  const std::string &sourceName;
  size_t pos = 0;

  [[noreturn]] void fail(const std::string &what, size_t at = std::string_view::npos) const {
    if (at == std::string_view::npos)
      at = pos;
    at = std::min(at, text.size());
    int line = 1, col = 1;
    for (size_t i = 0; i < at; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw FrontendError(sourceName + ":" + std::to_string(line) + ":" + std::to_string(col) +
                        ": malformed TorchScript graph: " + what);
  }

  int lineAt(size_t at) const {
    int line = 1;
    for (size_t i = 0; i < at && i < text.size(); ++i)
      line += text[i] == '\n';
    return line;
  }

  bool atEnd() const { return pos >= text.size(); }
  char peek(size_t k = 0) const { return pos + k < text.size() ? text[pos + k] : '\0'; }
  bool startsWith(std::string_view s) const { return text.substr(pos, s.size()) == s; }
  void skipSpaces() {
    while (peek() == ' ' || peek() == '\t')
      ++pos;
  }
  void skipWs() {
    while (!atEnd() && std::isspace(static_cast<unsigned char>(peek())))
      ++pos;
  }
  void expect(char c) {
    skipSpaces();
    if (peek() != c)
      fail(std::string("expected '") + c + "'" + found());
    ++pos;
  }
  std::string found() const {
    if (atEnd())
      return " but found the end of the text";
    if (peek() == '\n')
      return " but found the end of the line";
    return std::string(" but found '") + peek() + "'";
  }
  void expectWord(std::string_view w) {
    skipSpaces();
    if (!startsWith(w))
      fail("expected '" + std::string(w) + "'" + found());
    pos += w.size();
  }
  void expectEol() {
    skipSpaces();
    if (!atEnd() && peek() != '\n')
      fail("expected the end of the line" + found());
    if (!atEnd())
      ++pos;
  }

  static bool isNameChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  }
  std::string parseValueName() {
    skipSpaces();
    if (peek() != '%')
      fail("expected a value name starting with '%'" + found());
    ++pos;
    size_t start = pos;
    while (isNameChar(peek()))
      ++pos;
    if (pos == start)
      fail("expected a value name after '%'");
    return std::string(text.substr(start, pos - start));
  }

  /// Type text up to ',' ')' '=' or the end of the line at bracket depth 0.
  TsType parseTypeText() {
    skipSpaces();
    size_t start = pos;
    int depth = 0;
    while (!atEnd()) {
      char c = peek();
      if (c == '\n')
        break;
      if (c == '(' || c == '[')
        ++depth;
      else if (c == ')' || c == ']') {
        if (depth == 0)
          break;
        --depth;
      } else if ((c == ',' || c == '=') && depth == 0)
        break;
      ++pos;
    }
    if (depth != 0)
      fail("unbalanced brackets in a type", start);
    std::string_view spelling = trim(text.substr(start, pos - start));
    if (spelling.empty())
      fail("expected a type" + found());
    return parseTsType(spelling);
  }

  TsValue parseDecl() {
    TsValue v;
    v.name = parseValueName();
    expect(':');
    v.type = parseTypeText();
    return v;
  }

  /// `%a : T, %b : T` (possibly across lines) up to `close`.
  std::vector<TsValue> parseDeclList(char close) {
    std::vector<TsValue> out;
    skipWs();
    if (peek() == close)
      return out;
    while (true) {
      skipWs();
      out.push_back(parseDecl());
      skipWs();
      if (peek() != ',')
        return out;
      ++pos;
    }
  }

  /// `(%a, %b)`
  std::vector<std::string> parseUseList() {
    std::vector<std::string> out;
    expect('(');
    skipSpaces();
    if (peek() == ')') {
      ++pos;
      return out;
    }
    while (true) {
      out.push_back(parseValueName());
      skipSpaces();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      expect(')');
      return out;
    }
  }

  // Numbers ---------------------------------------------------------------

  /// Parses a number at pos; nullopt (pos unchanged) if there is none.
  std::optional<double> tryNumber(bool &isFloat, int64_t &asInt) {
    size_t start = pos;
    size_t p = pos;
    if (p < text.size() && (text[p] == '-' || text[p] == '+'))
      ++p;
    for (std::string_view word : {"inf", "nan"})
      if (text.substr(p, 3) == word) {
        pos = p + 3;
        isFloat = true;
        double v = word == "inf" ? INFINITY : NAN;
        return text[start] == '-' ? -v : v;
      }
    size_t digits = p;
    while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p])))
      ++p;
    bool sawDigit = p > digits;
    isFloat = false;
    if (p < text.size() && text[p] == '.') {
      isFloat = true;
      ++p;
      while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p]))) {
        ++p;
        sawDigit = true;
      }
    }
    if (!sawDigit)
      return std::nullopt;
    if (p < text.size() && (text[p] == 'e' || text[p] == 'E')) {
      size_t q = p + 1;
      if (q < text.size() && (text[q] == '-' || text[q] == '+'))
        ++q;
      if (q < text.size() && std::isdigit(static_cast<unsigned char>(text[q]))) {
        isFloat = true;
        p = q;
        while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p])))
          ++p;
      }
    }
    std::string token(text.substr(start, p - start));
    pos = p;
    if (!isFloat) {
      errno = 0;
      asInt = std::strtoll(token.c_str(), nullptr, 10);
      if (errno == ERANGE)
        isFloat = true;
    }
    return std::strtod(token.c_str(), nullptr);
  }

  // Attributes ------------------------------------------------------------

  std::string parseString() {
    size_t start = pos;
    ++pos; // opening quote
    std::string s;
    while (true) {
      if (atEnd() || peek() == '\n')
        fail("unterminated string", start);
      char c = text[pos++];
      if (c == '"')
        return s;
      if (c == '\\') {
        char e = text[pos++];
        s += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      } else {
        s += c;
      }
    }
  }

  void parseList(TsAttr &a) {
    size_t start = pos;
    ++pos; // '['
    a.kind = TsAttr::Ints;
    skipSpaces();
    if (peek() == ']') {
      ++pos;
      return;
    }
    std::vector<double> values;
    std::vector<int64_t> ints;
    while (true) {
      skipSpaces();
      bool isFloat = false;
      int64_t i = 0;
      std::optional<double> v = tryNumber(isFloat, i);
      if (!v) {
        // Not a list of numbers (bools, strings): keep the spelling.
        pos = start;
        skipBalanced('[', ']');
        a.kind = TsAttr::Other;
        a.s = std::string(text.substr(start, pos - start));
        return;
      }
      if (isFloat)
        a.kind = TsAttr::Floats;
      values.push_back(*v);
      ints.push_back(isFloat ? saturatingInt64(*v) : i);
      skipSpaces();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      if (peek() != ']')
        fail("expected ',' or ']' in a list" + found());
      ++pos;
      break;
    }
    if (a.kind == TsAttr::Floats)
      a.floats = values;
    else
      a.ints = ints;
  }

  void skipBalanced(char open, char close) {
    size_t start = pos;
    int depth = 0;
    while (!atEnd()) {
      char c = text[pos++];
      if (c == '"') {
        --pos;
        parseString();
        continue;
      }
      if (c == open)
        ++depth;
      else if (c == close && --depth == 0)
        return;
    }
    fail(std::string("unbalanced '") + open + "'", start);
  }

  static std::optional<DType> printedTypeDType(std::string_view name) {
    // CPUFloatType, CUDALongType, ...
    for (std::string_view dev : {"CPU", "CUDA", "Meta"})
      if (name.substr(0, dev.size()) == dev) {
        name.remove_prefix(dev.size());
        break;
      }
    if (name.size() > 4 && name.substr(name.size() - 4) == "Type")
      name.remove_suffix(4);
    return tensorTypeDType(name);
  }

  /// The values of a tensor printed inline, up to `[ CPUFloatType{..} ]`.
  void parsePrintedTensor(TsAttr &a) {
    size_t start = pos;
    a.kind = TsAttr::TensorInline;
    double scale = 1.0;
    while (true) {
      skipWs();
      if (atEnd())
        fail("unterminated tensor value", start);
      char c = peek();
      if (c == '[') {
        ++pos;
        skipSpaces();
        size_t nameStart = pos;
        while (std::isalnum(static_cast<unsigned char>(peek())))
          ++pos;
        std::string_view typeName = text.substr(nameStart, pos - nameStart);
        std::optional<DType> dtype = printedTypeDType(typeName);
        if (!dtype)
          fail("unknown tensor type '" + std::string(typeName) + "' in a tensor value",
               nameStart);
        a.tensorDType = *dtype;
        expect('{');
        skipSpaces();
        while (peek() != '}') {
          bool isFloat = false;
          int64_t i = 0;
          if (!tryNumber(isFloat, i) || isFloat)
            fail("expected a size in the tensor type" + found());
          a.tensorSizes.push_back(i);
          skipSpaces();
          if (peek() == ',')
            ++pos;
          skipSpaces();
        }
        ++pos;
        expect(']');
        break;
      }
      if (c == '(') { // "(1,.,.) =" header of a >2-D tensor
        while (!atEnd() && peek() != '=')
          ++pos;
        ++pos;
        scale = 1.0;
        continue;
      }
      if (startsWith("Columns") || startsWith("..."))
        fail("a tensor printed in column blocks or elided cannot be read back; pass the "
             "weights with --weights");
      bool isFloat = false;
      int64_t i = 0;
      std::optional<double> v = tryNumber(isFloat, i);
      if (!v)
        fail("expected a number in a tensor value" + found());
      skipSpaces();
      if (peek() == '*') {
        ++pos;
        scale = *v;
        continue;
      }
      a.floats.push_back(*v * scale);
    }
    // The element count, checked: sizes whose product wraps (2^32 x 2^32 is 0
    // in 64 bits) would let an empty value stand for a huge tensor.
    size_t n = 1;
    for (int64_t d : a.tensorSizes)
      if (d < 0 || __builtin_mul_overflow(n, static_cast<size_t>(d), &n))
        fail("tensor value of sizes beyond 2^64 elements or negative", start);
    if (n != a.floats.size())
      fail("tensor value has " + std::to_string(a.floats.size()) + " numbers for " +
               std::to_string(n) + " elements",
           start);
  }

  TsAttr parseAttr() {
    TsAttr a;
    skipSpaces();
    size_t start = pos;
    while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_')
      ++pos;
    if (pos == start)
      fail("expected an attribute name" + found());
    a.name = std::string(text.substr(start, pos - start));
    expect('=');
    parseAttrValue(a);
    return a;
  }

  void parseAttrValue(TsAttr &a) {
    char c = peek();
    if (c == '"') {
      a.kind = TsAttr::String;
      a.s = parseString();
      return;
    }
    if (startsWith("<Tensor>")) {
      a.kind = TsAttr::TensorRef;
      pos += 8;
      return;
    }
    if (c == '[') {
      parseList(a);
      return;
    }
    if (startsWith("annotate(")) {
      pos += 9;
      int depth = 0;
      while (!atEnd() && !(depth == 0 && peek() == ',')) {
        if (peek() == '(' || peek() == '[')
          ++depth;
        else if (peek() == ')' || peek() == ']')
          --depth;
        ++pos;
      }
      expect(',');
      skipSpaces();
      parseAttrValue(a);
      expect(')');
      return;
    }
    if (c == '{') { // 0-d tensor
      ++pos;
      skipSpaces();
      bool isFloat = false;
      int64_t i = 0;
      std::optional<double> v = tryNumber(isFloat, i);
      if (!v)
        fail("expected a number in a 0-d tensor value" + found());
      expect('}');
      a.kind = TsAttr::TensorInline;
      a.floats = {*v};
      a.tensorDType = isFloat ? DType::Float32 : DType::Int64;
      a.looksFloat = isFloat;
      return;
    }
    size_t start = pos;
    bool isFloat = false;
    int64_t i = 0;
    std::optional<double> v = tryNumber(isFloat, i);
    if (v) {
      size_t after = pos;
      skipSpaces();
      if (peek() == ']' || peek() == ',') {
        pos = after;
        a.kind = isFloat ? TsAttr::Float : TsAttr::Int;
        a.f = *v;
        a.i = isFloat ? saturatingInt64(*v) : i;
        a.looksFloat = isFloat;
        return;
      }
    }
    pos = start;
    if (v || c == ' ' || c == '\n') {
      parsePrintedTensor(a);
      return;
    }
    // Anything else (e.g. a device or dtype spelled bare): keep the text.
    while (!atEnd() && peek() != ']' && peek() != ',' && peek() != '\n')
      ++pos;
    a.kind = TsAttr::Other;
    a.s = std::string(trim(text.substr(start, pos - start)));
  }

  // Nodes -----------------------------------------------------------------

  TsNode parseNode() {
    TsNode n;
    skipSpaces();
    size_t nodeStart = pos;
    n.textLine = lineAt(pos);
    if (peek() == '%') {
      while (true) {
        n.outputs.push_back(parseDecl());
        skipSpaces();
        if (peek() == ',') {
          ++pos;
          continue;
        }
        break;
      }
    }
    expect('=');
    skipSpaces();
    size_t kindStart = pos;
    while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == ':' ||
           peek() == '.')
      ++pos;
    n.kind = std::string(text.substr(kindStart, pos - kindStart));
    if (n.kind.find("::") == std::string::npos)
      fail("expected a node kind like 'aten::relu'" + found(), kindStart);
    if (peek() == '[') {
      ++pos;
      while (true) {
        n.attrs.push_back(parseAttr());
        skipSpaces();
        if (peek() == ',') {
          ++pos;
          continue;
        }
        expect(']');
        break;
      }
    }
    n.inputs = parseUseList();
    skipSpaces();
    if (peek() == ',') {
      ++pos;
      skipSpaces();
      if (!startsWith("scope:"))
        fail("expected 'scope:' after ','" + found());
      pos += 6;
      skipSpaces();
      size_t start = pos;
      while (!atEnd() && peek() != '\n' && !startsWith(" # "))
        ++pos;
      n.scope = std::string(trim(text.substr(start, pos - start)));
    }
    skipSpaces();
    if (peek() == '#') {
      ++pos;
      skipSpaces();
      size_t start = pos;
      while (!atEnd() && peek() != '\n')
        ++pos;
      parseSourceRange(trim(text.substr(start, pos - start)), n.source);
    }
    expectEol();
    (void)nodeStart;
    // Nested blocks (prim::If, prim::Loop, ...).
    while (true) {
      size_t save = pos;
      skipWs();
      if (startsWith("block") && std::isdigit(static_cast<unsigned char>(peek(5)))) {
        n.blocks.push_back(parseBlock());
        continue;
      }
      pos = save;
      break;
    }
    return n;
  }

  static void parseSourceRange(std::string_view s, TsSourceRange &range) {
    // file:line:col, the file may itself hold ':'.
    size_t c2 = s.rfind(':');
    if (c2 == std::string_view::npos || c2 == 0)
      return;
    size_t c1 = s.rfind(':', c2 - 1);
    if (c1 == std::string_view::npos)
      return;
    std::string line(s.substr(c1 + 1, c2 - c1 - 1)), col(s.substr(c2 + 1));
    char *e1 = nullptr, *e2 = nullptr;
    long l = std::strtol(line.c_str(), &e1, 10), c = std::strtol(col.c_str(), &e2, 10);
    if (line.empty() || col.empty() || *e1 || *e2)
      return;
    range.file = std::string(s.substr(0, c1));
    range.line = static_cast<int>(l);
    range.column = static_cast<int>(c);
  }

  TsBlock parseBlock() {
    TsBlock b;
    pos += 5;
    while (std::isdigit(static_cast<unsigned char>(peek())))
      ++pos;
    expect('(');
    b.inputs = parseDeclList(')');
    expect(')');
    expect(':');
    expectEol();
    while (true) {
      skipWs();
      if (atEnd())
        fail("expected '->' at the end of a block");
      if (startsWith("->")) {
        pos += 2;
        b.returns = parseUseList();
        expectEol();
        return b;
      }
      b.nodes.push_back(parseNode());
    }
  }
};
} // namespace

int64_t torchscript::saturatingInt64(double v) {
  if (std::isnan(v))
    return 0;
  // 2^63 is exact as a double; every double below it truncates into range.
  if (v >= 9223372036854775808.0)
    return INT64_MAX;
  if (v <= -9223372036854775808.0)
    return INT64_MIN;
  return static_cast<int64_t>(v);
}

TsGraph torchscript::parseTorchScriptGraph(std::string_view text, const std::string &sourceName) {
  return Parser(text, sourceName).parseGraph();
}
