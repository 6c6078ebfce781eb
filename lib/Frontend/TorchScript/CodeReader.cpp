//===- CodeReader.cpp - execute an archive's forward code into a TsGraph --===//
#include "tcc/Frontend/TorchScript/TorchScriptCode.h"

#include "tcc/Frontend/FrontendError.h"

#include <cctype>
#include <algorithm>
#include <cstring>
#include <map>

using namespace tcc;
using namespace tcc::frontend;
using namespace tcc::frontend::torchscript;

namespace {
constexpr const char *kAdvice =
    "pass a graph dump instead (print(traced.inlined_graph) to graph.txt, then "
    "`tcc compile graph.txt --weights model.pt`), or export the model with torch.export";

struct Token {
  enum Kind { Name, Number, String, Op, End } kind = End;
  std::string text;
  int col = 0;
};

struct Line {
  int number = 0; ///< 1-based, first physical line
  int indent = 0;
  std::vector<Token> tokens;
};

/// Logical lines (joined inside brackets), tokenized.
std::vector<Line> tokenize(const std::string &text, const std::string &file) {
  std::vector<Line> lines;
  Line cur;
  int depth = 0, lineNo = 1;
  size_t i = 0;
  bool atLineStart = true;
  while (i <= text.size()) {
    if (atLineStart && depth == 0) {
      int indent = 0;
      while (i < text.size() && text[i] == ' ') {
        ++indent;
        ++i;
      }
      cur = Line{lineNo, indent, {}};
      atLineStart = false;
    }
    char c = i < text.size() ? text[i] : '\n';
    if (c == '\n' || i == text.size()) {
      ++i;
      ++lineNo;
      if (depth > 0 && i <= text.size())
        continue;
      if (!cur.tokens.empty())
        lines.push_back(cur);
      atLineStart = true;
      if (i > text.size())
        break;
      continue;
    }
    int col = static_cast<int>(i); // refined below
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (c == '#') {
      while (i < text.size() && text[i] != '\n')
        ++i;
      continue;
    }
    Token t;
    t.col = col;
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t s = i;
      while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_'))
        ++i;
      t.kind = Token::Name;
      t.text = text.substr(s, i - s);
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
      size_t s = i;
      while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '.' ||
                                 ((text[i] == '-' || text[i] == '+') && (text[i - 1] == 'e' || text[i - 1] == 'E'))))
        ++i;
      t.kind = Token::Number;
      t.text = text.substr(s, i - s);
    } else if (c == '"' || c == '\'') {
      size_t s = ++i;
      while (i < text.size() && text[i] != c) {
        if (text[i] == '\\')
          ++i;
        ++i;
      }
      if (i >= text.size())
        throw FrontendError(file + ":" + std::to_string(lineNo) + ": unterminated string");
      t.kind = Token::String;
      t.text = text.substr(s, i - s);
      ++i;
    } else {
      static const char *two[] = {"//", "**", "->", "==", "!=", "<=", ">="};
      t.kind = Token::Op;
      t.text = std::string(1, c);
      for (const char *op : two)
        if (text.compare(i, 2, op) == 0)
          t.text = op;
      i += t.text.size();
      if (c == '(' || c == '[' || c == '{')
        ++depth;
      else if (c == ')' || c == ']' || c == '}')
        depth = std::max(0, depth - 1);
    }
    cur.tokens.push_back(t);
  }
  return lines;
}

/// What an expression evaluates to.
struct Ref {
  enum Kind { Value, Path, Method } kind = Value;
  std::string value; ///< Value / Method: the graph value (object)
  std::string path;  ///< Path: "torch.linear"; Method: the method name
};

struct Module {
  std::string path; ///< attribute path from the root ("" for the root)
  std::string cls;  ///< qualified class
};

class CodeReader {
public:
  CodeReader(const TorchScriptArchive &a, bool inputShapesGiven)
      : archive(a), inputShapesGiven(inputShapesGiven) {}

  TsGraph run() {
    auto root = archive.moduleClasses.find("");
    if (root == archive.moduleClasses.end())
      throw FrontendError(archive.path + ": data.pkl holds no module object");
    Method m = loadForward(root->second);
    TsValue self{"self", parseTsType(root->second)};
    graph.inputs.push_back(self);
    modules["self"] = Module{"", root->second};
    std::vector<std::string> args;
    for (size_t i = 1; i < m.params.size(); ++i) {
      std::string name = m.params[i];
      graph.inputs.push_back(TsValue{name, parseTsType("Tensor")});
      args.push_back(name);
    }
    // Frozen and scripted archives keep no example inputs: --input-shape
    // supplies the shapes instead.
    if (archive.tracedInputs.empty() && !inputShapesGiven)
      throw FrontendError(archive.path + " holds no traced example inputs: pass "
                          "--input-shape for each input (e.g. x=2x3x16x16), or " +
                          std::string(kAdvice));
    std::string result = call(m, "self", args, 0);
    graph.returns.push_back(result);
    graph.nodes = std::move(nodes);
    return graph;
  }

private:
  struct Method {
    std::string file;
    std::vector<std::string> params;
    std::vector<Line> body;
  };

  const TorchScriptArchive &archive;
  bool inputShapesGiven;
  TsGraph graph;
  std::vector<TsNode> nodes;
  std::map<std::string, Module> modules; ///< graph values that are modules
  std::map<std::string, Method> methods; ///< by class
  int counter = 0;
  std::string file;
  int line = 0;

  [[noreturn]] void fail(const std::string &msg) const {
    throw FrontendError(archive.path + ": " + file + ":" + std::to_string(line) + ": " + msg);
  }

  Method loadForward(const std::string &cls) {
    auto cached = methods.find(cls);
    if (cached != methods.end())
      return cached->second;
    std::optional<std::string> text = archive.readCodeFor(cls);
    std::string short_ = cls.substr(cls.rfind('.') + 1);
    std::string module = cls.substr(0, cls.rfind('.'));
    for (char &c : module)
      if (c == '.')
        c = '/';
    std::string fileName = "code/" + module + ".py";
    if (!text)
      throw FrontendError(archive.path + ": no code for class '" + cls + "' (" + fileName +
                          "); " + kAdvice);
    std::vector<Line> lines = tokenize(*text, fileName);
    Method m;
    m.file = fileName;
    bool inClass = false;
    int classIndent = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      const Line &l = lines[i];
      const auto &t = l.tokens;
      if (t.size() >= 2 && t[0].text == "class") {
        inClass = t[1].text == short_;
        classIndent = l.indent;
        continue;
      }
      if (!inClass || l.indent <= classIndent || t.size() < 3 || t[0].text != "def" ||
          t[1].text != "forward")
        continue;
      // def forward(self: T, x: Tensor) -> Tensor:
      int depth = 0;
      bool expectName = true;
      for (size_t k = 2; k < t.size(); ++k) {
        const std::string &s = t[k].text;
        if (s == "(" || s == "[")
          ++depth;
        else if (s == ")" || s == "]")
          --depth;
        else if (depth == 1 && s == ",")
          expectName = true;
        else if (depth == 1 && expectName && t[k].kind == Token::Name) {
          m.params.push_back(s);
          expectName = false;
        }
      }
      for (size_t j = i + 1; j < lines.size() && lines[j].indent > l.indent; ++j)
        m.body.push_back(lines[j]);
      methods[cls] = m;
      return m;
    }
    throw FrontendError(archive.path + ": " + fileName + " defines no forward of class '" +
                        short_ + "'; " + kAdvice);
  }

  std::string fresh() { return std::to_string(counter++); }

  TsNode &emit(const std::string &kind, std::vector<std::string> inputs,
               const std::string &type, int col) {
    TsNode n;
    n.kind = kind;
    n.inputs = std::move(inputs);
    n.outputs.push_back(TsValue{fresh(), parseTsType(type)});
    n.source.file = file;
    n.source.line = line;
    n.source.column = col;
    n.textLine = line;
    nodes.push_back(std::move(n));
    return nodes.back();
  }

  std::string call(const Method &m, const std::string &self,
                   const std::vector<std::string> &args, int depth) {
    if (depth > 32)
      fail("module calls nest too deeply");
    if (args.size() + 1 != m.params.size()) {
      file = m.file;
      fail("forward takes " + std::to_string(m.params.size() - 1) + " arguments, given " +
           std::to_string(args.size()));
    }
    std::map<std::string, std::string> locals;
    locals[m.params[0]] = self;
    for (size_t i = 0; i < args.size(); ++i)
      locals[m.params[i + 1]] = args[i];
    std::string savedFile = file;
    int savedLine = line;
    file = m.file;
    for (const Line &l : m.body) {
      line = l.number;
      const auto &t = l.tokens;
      if (t[0].kind == Token::Name && t[0].text == "return") {
        size_t pos = 1;
        std::string v = value(expr(t, pos, locals));
        std::string r = v;
        file = savedFile;
        line = savedLine;
        return r;
      }
      static const char *control[] = {"if", "for", "while", "with", "try", "raise", "assert",
                                      "elif", "else", "def", "del", "pass", "break", "continue"};
      for (const char *kw : control)
        if (t[0].kind == Token::Name && t[0].text == kw)
          fail("'" + t[0].text + "' statement: control flow is not supported; " + kAdvice);
      // targets = expr
      size_t eq = 0;
      for (size_t k = 0; k < t.size(); ++k)
        if (t[k].kind == Token::Op && t[k].text == "=") {
          eq = k;
          break;
        }
      if (eq == 0)
        fail("expected an assignment or a return");
      std::vector<std::string> targets;
      for (size_t k = 0; k < eq; ++k) {
        if (t[k].kind == Token::Name)
          targets.push_back(t[k].text);
        else if (t[k].text != "," && t[k].text != ":")
          fail("unsupported assignment target");
        if (t[k].text == ":")
          break; // annotated assignment: x : T = ...
      }
      size_t pos = eq + 1;
      std::string v = value(expr(t, pos, locals));
      if (pos != t.size())
        fail("unexpected '" + t[pos].text + "'");
      if (targets.size() == 1) {
        locals[targets[0]] = v;
      } else {
        TsNode n;
        n.kind = "prim::ListUnpack";
        n.inputs = {v};
        for (size_t k = 0; k < targets.size(); ++k) {
          n.outputs.push_back(TsValue{fresh(), parseTsType("Tensor")});
          locals[targets[k]] = n.outputs.back().name;
        }
        n.source = {file, line, 0};
        n.textLine = line;
        nodes.push_back(n);
      }
    }
    fail("forward has no return");
  }

  std::string value(const Ref &r) {
    if (r.kind == Ref::Value)
      return r.value;
    if (r.kind == Ref::Path && r.path.rfind("CONSTANTS.c", 0) == 0)
      return constant(r.path);
    if (r.kind == Ref::Path && (r.path == "None" || r.path == "True" || r.path == "False")) {
      TsNode &n = emit("prim::Constant", {}, r.path == "None" ? "NoneType" : "bool", 0);
      if (r.path != "None") {
        TsAttr a;
        a.name = "value";
        a.kind = TsAttr::Int;
        a.i = r.path == "True";
        n.attrs.push_back(a);
      }
      return n.outputs[0].name;
    }
    fail("'" + r.path + "' is not a value");
  }

  std::string constant(const std::string &path) {
    size_t idx = std::stoul(path.substr(11));
    if (idx >= archive.constants.size() || archive.constants[idx].bytes.empty() &&
                                               !archive.constants[idx].meta.sizes.empty())
      fail("'" + path + "' is not a tensor constant of the archive");
    const TensorData &d = archive.constants[idx];
    TsAttr a;
    a.name = "value";
    a.kind = TsAttr::TensorInline;
    a.tensorDType = d.meta.dtype;
    size_t n = d.bytes.size() / std::max<size_t>(dtypeSize(d.meta.dtype), 1);
    for (const SymDim &s : d.meta.sizes)
      a.tensorSizes.push_back(*s.value);
    for (size_t i = 0; i < n; ++i) {
      double v = 0;
      const uint8_t *p = d.bytes.data() + i * dtypeSize(d.meta.dtype);
      switch (d.meta.dtype) {
      case DType::Float32: { float f; std::memcpy(&f, p, 4); v = f; break; }
      case DType::Float64: std::memcpy(&v, p, 8); break;
      case DType::Int64: { int64_t x; std::memcpy(&x, p, 8); v = static_cast<double>(x); break; }
      case DType::Int32: { int32_t x; std::memcpy(&x, p, 4); v = x; break; }
      default: fail("constant '" + path + "' has an unsupported dtype");
      }
      a.floats.push_back(v);
    }
    static const char *spell[] = {"Float", "Double", "Half", "BFloat16", "Long",
                                  "Int", "Short", "Char", "Byte", "Bool"};
    std::string type = std::string(spell[static_cast<int>(d.meta.dtype)]) + "(";
    for (size_t i = 0; i < a.tensorSizes.size(); ++i)
      type += (i ? ", " : "") + std::to_string(a.tensorSizes[i]);
    type += ")";
    TsNode &node = emit("prim::Constant", {}, type, 0);
    node.outputs[0].name = "CONSTANTS.c" + std::to_string(idx) + "." + node.outputs[0].name;
    node.attrs.push_back(a);
    return node.outputs[0].name;
  }

  // Expressions -----------------------------------------------------------

  using Locals = std::map<std::string, std::string>;
  const Token &at(const std::vector<Token> &t, size_t pos) const {
    static const Token end;
    return pos < t.size() ? t[pos] : end;
  }
  bool isOp(const std::vector<Token> &t, size_t pos, const char *op) const {
    return at(t, pos).kind == Token::Op && at(t, pos).text == op;
  }
  void expectOp(const std::vector<Token> &t, size_t &pos, const char *op) {
    if (!isOp(t, pos, op))
      fail(std::string("expected '") + op + "'" +
           (pos < t.size() ? " but found '" + t[pos].text + "'" : " at the end of the line"));
    ++pos;
  }

  Ref expr(const std::vector<Token> &t, size_t &pos, Locals &locals) {
    Ref lhs = term(t, pos, locals);
    while (isOp(t, pos, "+") || isOp(t, pos, "-")) {
      std::string op = t[pos++].text;
      Ref rhs = term(t, pos, locals);
      lhs = binary(op == "+" ? "aten::add" : "aten::sub", lhs, rhs);
    }
    return lhs;
  }
  Ref term(const std::vector<Token> &t, size_t &pos, Locals &locals) {
    Ref lhs = unary(t, pos, locals);
    while (isOp(t, pos, "*") || isOp(t, pos, "/") || isOp(t, pos, "//") || isOp(t, pos, "%")) {
      std::string op = t[pos++].text;
      Ref rhs = unary(t, pos, locals);
      lhs = binary(op == "*" ? "aten::mul" : op == "/" ? "aten::div"
                   : op == "//" ? "aten::floordiv" : "aten::remainder", lhs, rhs);
    }
    return lhs;
  }
  Ref unary(const std::vector<Token> &t, size_t &pos, Locals &locals) {
    if (isOp(t, pos, "-")) {
      ++pos;
      Ref v = unary(t, pos, locals);
      return Ref{Ref::Value, emit("aten::neg", {value(v)}, "Scalar", 0).outputs[0].name, ""};
    }
    Ref base = postfix(t, pos, locals);
    if (isOp(t, pos, "**")) {
      ++pos;
      Ref e = unary(t, pos, locals);
      return binary("aten::pow", base, e);
    }
    return base;
  }
  Ref binary(const char *kind, const Ref &a, const Ref &b) {
    return Ref{Ref::Value, emit(kind, {value(a), value(b)}, "Scalar", 0).outputs[0].name, ""};
  }

  Ref postfix(const std::vector<Token> &t, size_t &pos, Locals &locals) {
    if (at(t, pos).kind == Token::Name && at(t, pos).text == "annotate" && isOp(t, pos + 1, "(") &&
        !locals.count("annotate")) {
      // annotate(Type, value): skip the type.
      pos += 2;
      int depth = 0;
      while (pos < t.size() && !(depth == 0 && isOp(t, pos, ","))) {
        if (isOp(t, pos, "(") || isOp(t, pos, "["))
          ++depth;
        else if (isOp(t, pos, ")") || isOp(t, pos, "]"))
          --depth;
        ++pos;
      }
      expectOp(t, pos, ",");
      Ref v = expr(t, pos, locals);
      expectOp(t, pos, ")");
      return v;
    }
    Ref r = atom(t, pos, locals);
    while (true) {
      if (isOp(t, pos, ".")) {
        ++pos;
        if (at(t, pos).kind != Token::Name)
          fail("expected a name after '.'");
        std::string name = t[pos++].text;
        if (r.kind == Ref::Path) {
          r.path += "." + name;
          continue;
        }
        std::string obj = value(r);
        if (isOp(t, pos, "(")) {
          r = Ref{Ref::Method, obj, name};
          continue;
        }
        r = Ref{Ref::Value, getAttr(obj, name), ""};
        continue;
      }
      if (isOp(t, pos, "(")) {
        int col = at(t, pos).col;
        ++pos;
        std::vector<std::string> args, names;
        while (!isOp(t, pos, ")")) {
          std::string kw;
          if (at(t, pos).kind == Token::Name && isOp(t, pos + 1, "=")) {
            kw = t[pos].text;
            pos += 2;
          }
          args.push_back(value(expr(t, pos, locals)));
          names.push_back(kw);
          if (isOp(t, pos, ","))
            ++pos;
          else if (!isOp(t, pos, ")"))
            fail("expected ',' or ')' in a call");
        }
        ++pos;
        r = callRef(r, args, names, col);
        continue;
      }
      if (isOp(t, pos, "[")) {
        ++pos;
        std::string idx = value(expr(t, pos, locals));
        expectOp(t, pos, "]");
        r = Ref{Ref::Value, emit("aten::__getitem__", {value(r), idx}, "Scalar", 0).outputs[0].name, ""};
        continue;
      }
      return r;
    }
  }

  Ref atom(const std::vector<Token> &t, size_t &pos, Locals &locals) {
    const Token &k = at(t, pos);
    if (k.kind == Token::Name) {
      ++pos;
      auto it = locals.find(k.text);
      if (it != locals.end())
        return Ref{Ref::Value, it->second, ""};
      return Ref{Ref::Path, "", k.text};
    }
    if (k.kind == Token::Number) {
      ++pos;
      bool isFloat = k.text.find_first_of(".eE") != std::string::npos;
      TsNode &n = emit("prim::Constant", {}, isFloat ? "float" : "int", k.col);
      TsAttr a;
      a.name = "value";
      a.kind = isFloat ? TsAttr::Float : TsAttr::Int;
      try {
        a.f = std::stod(k.text);
        a.i = isFloat ? saturatingInt64(a.f) : std::stoll(k.text);
      } catch (const std::exception &) {
        fail("bad number '" + k.text + "'");
      }
      n.attrs.push_back(a);
      return Ref{Ref::Value, n.outputs[0].name, ""};
    }
    if (k.kind == Token::String) {
      ++pos;
      TsNode &n = emit("prim::Constant", {}, "str", k.col);
      TsAttr a;
      a.name = "value";
      a.kind = TsAttr::String;
      a.s = k.text;
      n.attrs.push_back(a);
      return Ref{Ref::Value, n.outputs[0].name, ""};
    }
    if (isOp(t, pos, "(") || isOp(t, pos, "[")) {
      bool list = t[pos].text == "[";
      const char *close = list ? "]" : ")";
      ++pos;
      std::vector<std::string> items;
      bool sawComma = false;
      while (!isOp(t, pos, close)) {
        items.push_back(value(expr(t, pos, locals)));
        if (isOp(t, pos, ",")) {
          ++pos;
          sawComma = true;
        } else if (!isOp(t, pos, close)) {
          fail(std::string("expected ',' or '") + close + "'");
        }
      }
      ++pos;
      if (!list && items.size() == 1 && !sawComma)
        return Ref{Ref::Value, items[0], ""};
      TsNode &n = emit(list ? "prim::ListConstruct" : "prim::TupleConstruct", items,
                       list ? "Tensor[]" : "Tuple", 0);
      return Ref{Ref::Value, n.outputs[0].name, ""};
    }
    fail(pos < t.size() ? "unexpected '" + k.text + "'" : "unexpected end of the line");
  }

  std::string getAttr(const std::string &obj, const std::string &name) {
    auto m = modules.find(obj);
    if (m == modules.end())
      fail("attribute '" + name + "' of something that is not a module");
    std::string path = m->second.path.empty() ? name : m->second.path + "." + name;
    std::string type = "Tensor";
    auto cls = archive.moduleClasses.find(path);
    if (cls != archive.moduleClasses.end())
      type = cls->second;
    else if (archive.scalars.count(path))
      type = "float";
    else if (!archive.tensors.count(path))
      type = "Optional[Tensor]"; // e.g. a bias that is None
    TsNode &n = emit("prim::GetAttr", {obj}, type, 0);
    TsAttr a;
    a.name = "name";
    a.kind = TsAttr::String;
    a.s = name;
    n.attrs.push_back(a);
    std::string out = n.outputs[0].name;
    if (cls != archive.moduleClasses.end())
      modules[out] = Module{path, cls->second};
    return out;
  }

  Ref callRef(const Ref &callee, const std::vector<std::string> &args,
              const std::vector<std::string> &names, int col) {
    if (callee.kind == Ref::Method) {
      auto m = modules.find(callee.value);
      if (m == modules.end() || callee.path != "forward")
        fail("call of method '" + callee.path + "' is not supported; " + kAdvice);
      for (const std::string &n : names)
        if (!n.empty())
          fail("keyword arguments to forward are not supported");
      Method method = loadForward(m->second.cls);
      return Ref{Ref::Value, call(method, callee.value, args, 1), ""};
    }
    if (callee.kind != Ref::Path)
      fail("call of a value is not supported");
    const std::string &p = callee.path;
    std::string kind, type = "Tensor";
    if (p == "annotate" && args.size() == 2)
      return Ref{Ref::Value, args[1], ""};
    if (p == "int" || p == "float" || p == "bool") {
      kind = p == "int" ? "aten::Int" : p == "float" ? "aten::Float" : "aten::Bool";
      type = p;
    } else if (p == "len") {
      kind = "aten::len";
      type = "int";
    } else if (p.rfind("torch.", 0) == 0 && p.find('.', 6) == std::string::npos) {
      kind = "aten::" + p.substr(6);
      if (kind == "aten::size" || kind == "aten::dim")
        type = args.size() == 1 && kind == "aten::size" ? "int[]" : "int";
    } else if (p.rfind("ops.", 0) == 0 && std::count(p.begin(), p.end(), '.') == 2) {
      size_t d = p.find('.', 4);
      kind = p.substr(4, d - 4) + "::" + p.substr(d + 1);
    } else {
      fail("call of '" + p + "' is not supported (functions are not inlined); " + kAdvice);
    }
    TsNode &n = emit(kind, args, type, col);
    bool anyKw = false;
    for (const std::string &k : names)
      anyKw |= !k.empty();
    if (anyKw)
      n.inputNames = names;
    return Ref{Ref::Value, n.outputs[0].name, ""};
  }
};
} // namespace

TsGraph torchscript::graphFromArchiveCode(const TorchScriptArchive &archive,
                                          bool inputShapesGiven) {
  return CodeReader(archive, inputShapesGiven).run();
}
