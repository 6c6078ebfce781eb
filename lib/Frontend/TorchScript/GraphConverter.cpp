//===- GraphConverter.cpp - a TorchScript graph as an ExportedProgram -----===//
//
// Walks the graph once, keeping a value for every TorchScript value: module
// references (GetAttr paths), scalars and lists (folded: Constant,
// ListConstruct, size, NumToTensor, Int, integer arithmetic, prim::If on a
// known condition) and tensors (export-level nodes). Only tensor operators
// become nodes; everything else is folded away or refused with the node,
// its source range and the advice to use torch.export.
//
//===----------------------------------------------------------------------===//
#include "Conversion.h"

#include "tcc/Frontend/FrontendError.h"

#include <cmath>
#include <cstring>
#include <set>

using namespace tcc;
using namespace tcc::frontend;
using namespace tcc::frontend::torchscript;

namespace {
constexpr const char *kAdvice = "export the model with torch.export instead";

struct Val {
  enum Kind { Unknown, None, Int, Float, Bool, Str, Device, List, Tuple, Tensor, Module };
  Kind kind = Unknown;
  int64_t i = 0;
  double f = 0;
  std::string s;   ///< Str/Device text; Int: symbolic expression ("" = static)
  bool tensor0d = false; ///< Int/Float from a 0-d tensor
  std::vector<Val> items;
  std::string name; ///< Tensor: value name; Module: attribute path
  std::string cls;  ///< Module class

  bool isNumber() const { return kind == Int || kind == Float || kind == Bool; }
  double number() const { return kind == Float ? f : static_cast<double>(i); }
  bool symbolic() const { return kind == Int && !s.empty(); }
};

Val makeInt(int64_t v, bool t0 = false) { Val x; x.kind = Val::Int; x.i = v; x.tensor0d = t0; return x; }
Val makeFloat(double v, bool t0 = false) { Val x; x.kind = Val::Float; x.f = v; x.tensor0d = t0; return x; }
Val makeBool(bool v) { Val x; x.kind = Val::Bool; x.i = v; return x; }
Val makeNone() { Val x; x.kind = Val::None; return x; }

std::string baseName(const std::string &n) {
  size_t dot = n.rfind('.');
  if (dot != std::string::npos && dot + 1 < n.size() &&
      n.find_first_not_of("0123456789", dot + 1) == std::string::npos)
    return n.substr(0, dot);
  return n;
}

std::string sanitize(std::string n) {
  for (char &c : n)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      c = '_';
  if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0])))
    n = "v" + n;
  return n;
}

int64_t exportScalarType(int64_t c10) {
  if (c10 >= 0 && c10 <= 11)
    return c10 + 1;
  if (c10 == 15)
    return 13; // BFloat16
  return 0;
}

int64_t exportMemoryFormat(int64_t c10) {
  switch (c10) {
  case 0: return 1; // contiguous
  case 1: return 4; // preserve
  default: return c10;
  }
}

class Converter {
public:
  explicit Converter(const ConversionInput &in) : in(in) {}

  ExportedProgram run() {
    p.sourcePath = in.sourceName;
    p.torchVersion = "torchscript";
    p.rangeConstraints = in.symbols;
    bindInputs();
    convertNodes(in.graph->nodes);
    for (const std::string &r : in.graph->returns)
      addOutputs(lookup(r, nullptr));
    if (p.outputSpecs.empty())
      throw FrontendError(in.sourceName + ": the graph returns no tensor");
    return std::move(p);
  }

private:
  const ConversionInput &in;
  ExportedProgram p;
  std::map<std::string, Val> env;
  std::set<std::string> names;
  std::map<std::string, Val> params;
  bool useAnnotations = true;
  int constantCount = 0;

  // Messages ----------------------------------------------------------------

  std::string where(const TsNode &n) const {
    std::string w = in.sourceName + ":" + std::to_string(n.textLine) + ": ";
    return w;
  }
  std::string from(const TsNode &n) const {
    return n.source.known() ? " (at " + n.source.str() + ")" : "";
  }
  [[noreturn]] void unsupported(const TsNode &n, const std::string &why) const {
    throw FrontendError(where(n) + "unsupported TorchScript node '" + n.kind + "'" + from(n) +
                        ": " + why + "; " + kAdvice);
  }
  [[noreturn]] void error(const TsNode &n, const std::string &msg) const {
    throw FrontendError(where(n) + "node '" + n.kind + "'" + from(n) + ": " + msg);
  }

  std::string unique(const std::string &hint) {
    std::string base = sanitize(hint), n = base;
    for (int k = 1; names.count(n); ++k)
      n = base + "_" + std::to_string(k);
    names.insert(n);
    return n;
  }

  const Val &lookup(const std::string &name, const TsNode *n) const {
    auto it = env.find(name);
    if (it == env.end()) {
      std::string msg = "uses undefined value '%" + name + "'";
      if (n)
        error(*n, msg);
      throw FrontendError(in.sourceName + ": return " + msg);
    }
    return it->second;
  }

  const TensorMeta &meta(const std::string &valueName) const {
    return p.tensorValues.at(valueName);
  }

  // Inputs and parameters ---------------------------------------------------

  void bindInputs() {
    std::map<std::string, int> baseCount;
    for (const TsValue &v : in.graph->inputs)
      ++baseCount[baseName(v.name)];
    size_t positional = 0;
    for (size_t k = 0; k < in.graph->inputs.size(); ++k) {
      const TsValue &v = in.graph->inputs[k];
      if (v.type.kind == TsType::Class || (k == 0 && baseName(v.name) == "self")) {
        Val m;
        m.kind = Val::Module;
        m.cls = v.type.spelling;
        env[v.name] = m;
        continue;
      }
      if (v.type.kind != TsType::Tensor)
        throw FrontendError(in.sourceName + ": graph input '%" + v.name + "' of type '" +
                            v.type.spelling + "' is not a tensor; only tensor inputs are " +
                            "supported (" + kAdvice + ")");
      std::string base = baseName(v.name);
      std::string name = unique(baseCount[base] == 1 ? base : v.name);
      TensorMeta m;
      m.device = "cpu";
      bool haveShape = false;
      const std::vector<TensorMeta> &pos = in.positionalInputs;
      if (v.type.hasSizes) {
        bool allStatic = true;
        for (const auto &d : v.type.sizes) {
          allStatic &= d.has_value();
          m.sizes.push_back(d ? staticDim(*d) : SymDim{});
        }
        haveShape = allStatic;
      }
      if (v.type.dtype)
        m.dtype = *v.type.dtype;
      auto shape = in.inputShapes.find(base);
      if (shape == in.inputShapes.end())
        shape = in.inputShapes.find(v.name);
      if (shape != in.inputShapes.end()) {
        bool differs = !haveShape || shape->second.size() != m.sizes.size();
        for (size_t i = 0; !differs && i < m.sizes.size(); ++i)
          differs = !shape->second[i].isStatic() || *shape->second[i].value != *m.sizes[i].value;
        if (differs)
          useAnnotations = false;
        m.sizes = shape->second;
        haveShape = true;
      } else if (!haveShape && positional < pos.size()) {
        m.sizes = pos[positional].sizes;
        m.dtype = pos[positional].dtype;
        haveShape = true;
      }
      ++positional;
      auto dt = in.inputDTypes.find(base);
      if (dt == in.inputDTypes.end())
        dt = in.inputDTypes.find(v.name);
      if (dt != in.inputDTypes.end())
        m.dtype = dt->second;
      if (!haveShape)
        throw FrontendError(in.sourceName + ": graph input '%" + v.name +
                            "' has no shape in the dump; pass --input-shape " + base +
                            "=DIMS (e.g. " + base + "=2x3x16x16, or Bx100 with --symbol B=1:64)");
      for (const SymDim &d : m.sizes)
        if (!d.isStatic() && !in.symbols.count(d.expr))
          throw FrontendError(in.sourceName + ": input '" + base + "' uses symbol '" + d.expr +
                              "' without a range; pass --symbol " + d.expr + "=MIN:MAX");
      m.strides = stridesOf(m.sizes, "graph input '%" + v.name + "'");
      p.tensorValues[name] = m;
      Argument a;
      a.kind = Argument::Tensor;
      a.tensor = name;
      p.graphInputs.push_back(a);
      InputSpec spec;
      spec.kind = InputKind::UserInput;
      spec.graphName = name;
      p.inputSpecs.push_back(spec);
      Val t;
      t.kind = Val::Tensor;
      t.name = name;
      env[v.name] = t;
    }
  }

  /// Contiguous strides of `sizes`; a tensor with more than 2^63 elements
  /// (sizes a dump can print) is an error naming `what`.
  std::vector<SymDim> stridesOf(const std::vector<SymDim> &sizes, const std::string &what) const {
    std::vector<SymDim> st(sizes.size());
    int64_t s = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
      st[i] = staticDim(s);
      if (__builtin_mul_overflow(s, sizes[i].value.value_or(1), &s))
        throw FrontendError(in.sourceName + ": " + what +
                            " has more elements than 64 bits can count");
    }
    return st;
  }

  /// A parameter by attribute path: data from the archive (exact) or from
  /// the dump (a printed inline tensor), metadata from either.
  Val parameter(const TsNode &n, const std::string &path, const TsType *type,
                const TsAttr *inlineValue) {
    auto it = params.find(path);
    if (it != params.end())
      return it->second;
    TensorData data;
    bool haveData = false, haveMeta = false;
    if (in.archive) {
      auto t = in.archive->tensors.find(path);
      if (t != in.archive->tensors.end()) {
        data = t->second;
        haveData = haveMeta = true;
      }
    }
    if (!haveData && inlineValue && inlineValue->kind == TsAttr::TensorInline) {
      data.meta.dtype = type && type->dtype ? *type->dtype : inlineValue->tensorDType;
      for (int64_t d : inlineValue->tensorSizes)
        data.meta.sizes.push_back(staticDim(d));
      data.meta.strides = stridesOf(data.meta.sizes, "parameter '" + path + "'");
      data.meta.device = "cpu";
      data.bytes = encode(inlineValue->floats, data.meta.dtype, n);
      haveData = haveMeta = true;
    }
    if (!haveMeta && type && type->kind == TsType::Tensor && type->hasSizes && type->dtype) {
      data.meta.dtype = *type->dtype;
      for (const auto &d : type->sizes)
        data.meta.sizes.push_back(staticDim(d.value_or(0)));
      data.meta.strides = stridesOf(data.meta.sizes, "parameter '" + path + "'");
      data.meta.device = "cpu";
      haveMeta = true;
    }
    if (!haveData && in.archive)
      haveMeta = false; // --weights was given: a parameter it lacks is an error
    if (!haveMeta) {
      if (!in.archive)
        error(n, "parameter '" + path + "' needs its data: pass the module's archive with "
                 "--weights model.pt");
      std::string hint;
      if (!in.archive->constants.empty() && in.archive->tensors.empty())
        // A frozen module's archive keeps its tensors as anonymous
        // CONSTANTS.cN that a dump's names cannot be matched against.
        hint = " (a frozen archive holds its tensors as unnamed constants: compile the "
               "archive itself, `tcc compile " + in.archive->path +
               " --input-shape NAME=DIMS`)";
      else if (path.find("_fused_bn") != std::string::npos)
        hint = " (torch.jit.freeze folded a batch norm into it: compile the frozen "
               "module's own archive, torch.jit.save(torch.jit.freeze(m)), with "
               "--input-shape)";
      error(n, "parameter '" + path + "' is not in " + in.archive->path + hint);
    }
    std::string name = unique("p_" + path);
    p.tensorValues[name] = data.meta;
    InputSpec spec;
    spec.kind = InputKind::Parameter;
    spec.graphName = name;
    spec.target = path;
    p.inputSpecs.push_back(spec);
    if (haveData)
      p.weights[path] = std::move(data);
    Val v;
    v.kind = Val::Tensor;
    v.name = name;
    params[path] = v;
    return v;
  }

  std::vector<uint8_t> encode(const std::vector<double> &values, DType dtype, const TsNode &n) {
    std::vector<uint8_t> bytes(values.size() * dtypeSize(dtype));
    for (size_t i = 0; i < values.size(); ++i) {
      switch (dtype) {
      case DType::Float32: { float f = static_cast<float>(values[i]); std::memcpy(&bytes[i * 4], &f, 4); break; }
      case DType::Float64: std::memcpy(&bytes[i * 8], &values[i], 8); break;
      case DType::Int64: { int64_t v = saturatingInt64(values[i]); std::memcpy(&bytes[i * 8], &v, 8); break; }
      case DType::Int32: { int32_t v = static_cast<int32_t>(saturatingInt64(values[i])); std::memcpy(&bytes[i * 4], &v, 4); break; }
      default: error(n, std::string("inline tensor constants of dtype ") + dtypeName(dtype) +
                            " are not supported");
      }
    }
    return bytes;
  }

  // Nodes -----------------------------------------------------------------

  void convertNodes(const std::vector<TsNode> &nodes) {
    for (const TsNode &n : nodes)
      convertNode(n);
  }

  void bind(const TsNode &n, size_t i, Val v) {
    if (i >= n.outputs.size())
      error(n, "has fewer outputs than expected");
    env[n.outputs[i].name] = std::move(v);
  }

  std::vector<Val> inputs(const TsNode &n) const {
    std::vector<Val> v;
    for (const std::string &name : n.inputs)
      v.push_back(lookup(name, &n));
    return v;
  }

  void convertNode(const TsNode &n) {
    const std::string &k = n.kind;
    if (k == "prim::Constant")
      return bind(n, 0, constant(n));
    if (k == "prim::GetAttr")
      return getAttr(n);
    std::vector<Val> ins = inputs(n);
    if (k == "prim::ListConstruct" || k == "prim::TupleConstruct") {
      Val l;
      l.kind = k == "prim::ListConstruct" ? Val::List : Val::Tuple;
      l.items = ins;
      return bind(n, 0, l);
    }
    if (k == "prim::ListUnpack" || k == "prim::TupleUnpack") {
      if (ins.size() != 1 || (ins[0].kind != Val::List && ins[0].kind != Val::Tuple))
        error(n, "unpacks something that is not a known list or tuple");
      if (ins[0].items.size() != n.outputs.size())
        error(n, "unpacks " + std::to_string(ins[0].items.size()) + " items into " +
                     std::to_string(n.outputs.size()) + " values");
      for (size_t i = 0; i < n.outputs.size(); ++i)
        bind(n, i, ins[0].items[i]);
      return;
    }
    if (k == "prim::NumToTensor") {
      Val v = scalarIn(n, ins, 0);
      v.tensor0d = true;
      return bind(n, 0, v);
    }
    if (k == "aten::Int" || k == "aten::Float" || k == "aten::ScalarImplicit" ||
        k == "aten::Bool") {
      Val v = scalarIn(n, ins, 0);
      if (v.symbolic() && k != "aten::Float")
        return bind(n, 0, v);
      v.tensor0d = false;
      double x = v.number();
      return bind(n, 0, k == "aten::Int" ? makeInt(saturatingInt64(x))
                        : k == "aten::Bool" ? makeBool(x != 0)
                        : k == "aten::Float" ? makeFloat(x)
                        : v);
    }
    if (k == "prim::unchecked_cast" || k == "aten::detach" && ins.size() == 1 &&
                                           ins[0].kind != Val::Tensor)
      return bind(n, 0, ins.at(0));
    if (k == "aten::size")
      return size(n, ins);
    if (k == "aten::dim") {
      if (ins.empty() || ins[0].kind != Val::Tensor)
        error(n, "dim() of something that is not a tensor");
      return bind(n, 0, makeInt(static_cast<int64_t>(meta(ins[0].name).sizes.size())));
    }
    if (k == "aten::len") {
      if (ins.empty() || (ins[0].kind != Val::List && ins[0].kind != Val::Tuple))
        error(n, "len() of something that is not a known list");
      return bind(n, 0, makeInt(static_cast<int64_t>(ins[0].items.size())));
    }
    if (k == "aten::__getitem__" && ins.size() == 2 && ins[0].kind == Val::List &&
        ins[1].kind == Val::Int && !ins[1].symbolic()) {
      int64_t idx = ins[1].i, size = static_cast<int64_t>(ins[0].items.size());
      if (idx < 0)
        idx += size;
      if (idx < 0 || idx >= size)
        error(n, "list index out of range");
      return bind(n, 0, ins[0].items[idx]);
    }
    if (k == "aten::__is__" || k == "aten::__isnot__") {
      bool is = ins.size() == 2 && ins[0].kind == Val::None && ins[1].kind == Val::None;
      return bind(n, 0, makeBool(k == "aten::__is__" ? is : !is));
    }
    if (k == "aten::format")
      return bind(n, 0, Val{Val::Str});
    if (k == "prim::If")
      return ifNode(n, ins);
    if (k == "prim::RaiseException")
      error(n, "the model raises an exception for these input shapes");
    if (tryFoldScalar(n, ins))
      return;
    const std::vector<const OpSchema *> &schemas = schemasFor(k);
    if (!schemas.empty())
      return emitOp(n, ins, schemas);
    if (k == "prim::Loop")
      unsupported(n, "loops are not supported");
    if (k == "prim::CallMethod" || k == "prim::CallFunction")
      unsupported(n, "calls are not inlined (print graph.inlined_graph, or freeze the module)");
    if (k == "prim::PythonOp")
      unsupported(n, "Python objects and functions cannot be compiled");
    unsupported(n, "this operator is not in tcc's TorchScript subset (see docs/TORCHSCRIPT.md)");
  }

  Val constant(const TsNode &n) {
    if (n.outputs.size() != 1)
      error(n, "a constant must have one output");
    const TsValue &out = n.outputs[0];
    const TsAttr *a = n.attr("value");
    if (!a)
      return makeNone();
    switch (out.type.kind) {
    case TsType::Int:
      return makeInt(a->i);
    case TsType::Bool:
      return makeBool(a->i != 0);
    case TsType::Float:
      return makeFloat(a->kind == TsAttr::Float ? a->f : static_cast<double>(a->i));
    case TsType::Str: { Val v; v.kind = Val::Str; v.s = a->s; return v; }
    case TsType::Device: { Val v; v.kind = Val::Device; v.s = a->s; return v; }
    case TsType::List: {
      Val l;
      l.kind = Val::List;
      if (a->kind == TsAttr::Ints)
        for (int64_t i : a->ints)
          l.items.push_back(makeInt(i));
      else if (a->kind == TsAttr::Floats)
        for (double f : a->floats)
          l.items.push_back(makeFloat(f));
      else
        l.kind = Val::Unknown;
      return l;
    }
    case TsType::Tensor: {
      std::string base = out.name;
      if (a->kind == TsAttr::TensorInline && a->tensorSizes.empty() && a->floats.size() == 1) {
        DType dt = out.type.dtype ? *out.type.dtype : a->tensorDType;
        bool isFloat = dt == DType::Float32 || dt == DType::Float64 || dt == DType::Float16 ||
                       dt == DType::BFloat16;
        return isFloat ? makeFloat(a->floats[0], true)
                       : makeInt(saturatingInt64(a->floats[0]), true);
      }
      if (base.rfind("self.", 0) == 0)
        return parameter(n, base.substr(5), &out.type, a);
      if (a->kind == TsAttr::TensorRef)
        error(n, "tensor constant '%" + out.name + "' has no data in the dump");
      return parameter(n, "_tensor_constant" + std::to_string(constantCount++), &out.type, a);
    }
    default:
      if (a->kind == TsAttr::Int)
        return makeInt(a->i);
      if (a->kind == TsAttr::Float)
        return makeFloat(a->f);
      return Val{};
    }
  }

  void getAttr(const TsNode &n) {
    const TsAttr *a = n.attr("name");
    if (!a || a->kind != TsAttr::String || n.inputs.size() != 1 || n.outputs.size() != 1)
      error(n, "malformed GetAttr");
    const Val &obj = lookup(n.inputs[0], &n);
    if (obj.kind != Val::Module)
      error(n, "GetAttr on something that is not a module");
    std::string path = obj.name.empty() ? a->s : obj.name + "." + a->s;
    const TsType &t = n.outputs[0].type;
    if (t.kind == TsType::Class) {
      Val m;
      m.kind = Val::Module;
      m.name = path;
      m.cls = t.spelling;
      return bind(n, 0, m);
    }
    if (t.kind == TsType::Tensor || t.kind == TsType::Optional) {
      if (in.archive && !in.archive->tensors.count(path) && t.kind == TsType::Optional)
        return bind(n, 0, makeNone());
      return bind(n, 0, parameter(n, path, &t, nullptr));
    }
    if (in.archive) {
      auto s = in.archive->scalars.find(path);
      if (s != in.archive->scalars.end())
        return bind(n, 0, t.kind == TsType::Float ? makeFloat(s->second)
                          : t.kind == TsType::Bool ? makeBool(s->second != 0)
                          : makeInt(saturatingInt64(s->second)));
    }
    error(n, "attribute '" + path + "' of type '" + t.spelling + "' is not available");
  }

  Val scalarIn(const TsNode &n, const std::vector<Val> &ins, size_t i) {
    if (i >= ins.size() || !ins[i].isNumber())
      unsupported(n, "its value depends on tensor data, which tcc cannot fold");
    return ins[i];
  }

  void size(const TsNode &n, const std::vector<Val> &ins) {
    if (ins.empty() || ins[0].kind != Val::Tensor)
      error(n, "size() of something that is not a tensor");
    const TensorMeta &m = meta(ins[0].name);
    auto dimVal = [&](const SymDim &d) {
      Val v = makeInt(d.value.value_or(0));
      if (!d.isStatic())
        v.s = d.expr;
      return v;
    };
    if (ins.size() == 1) {
      Val l;
      l.kind = Val::List;
      for (const SymDim &d : m.sizes)
        l.items.push_back(dimVal(d));
      return bind(n, 0, l);
    }
    int64_t d = scalarIn(n, ins, 1).i, r = static_cast<int64_t>(m.sizes.size());
    if (d < 0)
      d += r;
    if (d < 0 || d >= r)
      error(n, "size() dimension out of range");
    bind(n, 0, dimVal(m.sizes[d]));
  }

  void ifNode(const TsNode &n, const std::vector<Val> &ins) {
    if (ins.size() != 1 || !ins[0].isNumber() || ins[0].symbolic() || n.blocks.size() != 2)
      unsupported(n, "control flow on a value tcc cannot fold");
    const TsBlock &b = n.blocks[ins[0].number() != 0 ? 0 : 1];
    convertNodes(b.nodes);
    if (b.returns.size() != n.outputs.size())
      error(n, "block returns do not match the outputs");
    for (size_t i = 0; i < b.returns.size(); ++i)
      bind(n, i, lookup(b.returns[i], &n));
  }

  /// Arithmetic and comparisons whose operands are all known scalars.
  bool tryFoldScalar(const TsNode &n, const std::vector<Val> &ins) {
    static const std::set<std::string> ops = {
        "aten::add", "aten::sub", "aten::mul", "aten::div", "aten::floordiv",
        "aten::floor_divide", "aten::pow", "aten::neg", "aten::remainder", "aten::eq",
        "aten::ne", "aten::lt", "aten::gt", "aten::le", "aten::ge", "aten::__not__"};
    if (!ops.count(n.kind) || ins.empty() || n.outputs.size() != 1)
      return false;
    bool t0 = false, anyFloat = false;
    for (const Val &v : ins) {
      if (!v.isNumber())
        return false;
      t0 |= v.tensor0d;
      anyFloat |= v.kind == Val::Float;
    }
    const std::string op = n.kind.substr(6);
    for (const Val &v : ins)
      if (v.symbolic())
        unsupported(n, "arithmetic on the symbolic size '" + v.s + "' is not supported");
    double a = ins[0].number(), b = ins.size() > 1 ? ins[1].number() : 0;
    auto num = [&](double x, bool isFloat) {
      return isFloat ? makeFloat(x, t0) : makeInt(saturatingInt64(x), t0);
    };
    Val r;
    if (op == "add" || op == "sub") {
      double alpha = ins.size() > 2 ? ins[2].number() : 1;
      r = num(op == "add" ? a + alpha * b : a - alpha * b, anyFloat);
    } else if (op == "mul") r = num(a * b, anyFloat);
    else if (op == "div") r = makeFloat(a / b, t0);
    else if (op == "floordiv" || op == "floor_divide") {
      if (b == 0)
        error(n, "division by zero");
      r = num(std::floor(a / b), anyFloat);
    } else if (op == "remainder") r = num(a - b * std::floor(a / b), anyFloat);
    else if (op == "pow") r = num(std::pow(a, b), anyFloat || b < 0);
    else if (op == "neg") r = num(-a, anyFloat);
    else if (op == "__not__") r = makeBool(a == 0);
    else {
      bool c = op == "eq" ? a == b : op == "ne" ? a != b : op == "lt" ? a < b
             : op == "gt" ? a > b : op == "le" ? a <= b : a >= b;
      r = makeBool(c);
    }
    // The printed output type says whether a 0-d tensor came out.
    const TsType &t = n.outputs[0].type;
    if (t.kind == TsType::Tensor) {
      r.tensor0d = true;
      if (t.dtype && (*t.dtype == DType::Float32 || *t.dtype == DType::Float64) &&
          r.kind == Val::Int)
        r = makeFloat(static_cast<double>(r.i), true);
    } else if (t.kind == TsType::Float && r.kind == Val::Int) {
      r = makeFloat(static_cast<double>(r.i));
    }
    bind(n, 0, r);
    return true;
  }

  // Operators ---------------------------------------------------------------

  static Val defaultValue(const SchemaArg &a) {
    const std::string &d = a.defaultText;
    if (d == "None")
      return makeNone();
    if (d == "True" || d == "False")
      return makeBool(d == "True");
    if (!d.empty() && d[0] == '[') {
      Val l;
      l.kind = Val::List;
      std::string body = d.substr(1, d.size() - 2);
      size_t start = 0;
      while (start < body.size()) {
        size_t c = body.find(',', start);
        l.items.push_back(makeInt(std::stoll(body.substr(start, c - start))));
        start = c == std::string::npos ? body.size() : c + 1;
      }
      return l;
    }
    if (d.find_first_of(".e") != std::string::npos)
      return makeFloat(std::stod(d));
    return makeInt(std::stoll(d));
  }

  static bool fits(const Val &v, const std::string &type) {
    bool optional = type.back() == '?';
    std::string t = optional ? type.substr(0, type.size() - 1) : type;
    if (v.kind == Val::None)
      return optional;
    if (t == "Tensor")
      return v.kind == Val::Tensor || (v.isNumber() && v.tensor0d);
    if (t == "Tensor[]") {
      if (v.kind != Val::List)
        return false;
      for (const Val &i : v.items)
        if (i.kind != Val::Tensor)
          return false;
      return true;
    }
    if (t == "int" || t == "ScalarType" || t == "MemoryFormat")
      return (v.kind == Val::Int || v.kind == Val::Bool) && !v.tensor0d;
    if (t == "int[]") {
      if (v.kind == Val::Int)
        return true;
      if (v.kind != Val::List)
        return false;
      for (const Val &i : v.items)
        if (i.kind != Val::Int)
          return false;
      return true;
    }
    if (t == "float")
      return v.isNumber() && !v.tensor0d;
    if (t == "Scalar")
      return v.isNumber() && !v.tensor0d;
    if (t == "bool")
      return v.kind == Val::Bool || v.kind == Val::Int;
    if (t == "str")
      return v.kind == Val::Str;
    return false;
  }

  Argument toArgument(const TsNode &n, const SchemaArg &a, const Val &v, const OpSchema &s) {
    Argument arg;
    if (v.kind == Val::None)
      return arg;
    std::string t = a.type.back() == '?' ? a.type.substr(0, a.type.size() - 1) : a.type;
    if (t == "Tensor") {
      if (v.kind == Val::Tensor) {
        arg.kind = Argument::Tensor;
        arg.tensor = v.name;
      } else if (a.name == "other") { // a 0-d constant: a scalar operand
        arg.kind = Argument::Float;
        arg.f = v.number();
      } else {
        error(n, "argument '" + a.name + "' is a constant scalar, not a tensor");
      }
    } else if (t == "Tensor[]") {
      arg.kind = Argument::Tensors;
      for (const Val &i : v.items)
        arg.tensors.push_back(i.name);
    } else if (t == "int") {
      if (v.symbolic())
        unsupported(n, "argument '" + a.name + "' is the symbolic size '" + v.s + "'");
      arg.kind = Argument::Int;
      arg.i = v.i;
    } else if (t == "ScalarType") {
      arg.kind = Argument::ScalarType;
      arg.i = exportScalarType(v.i);
    } else if (t == "MemoryFormat") {
      arg.kind = Argument::MemoryFormat;
      arg.i = exportMemoryFormat(v.i);
    } else if (t == "int[]") {
      arg.kind = Argument::Ints;
      std::vector<Val> items = v.kind == Val::List ? v.items : std::vector<Val>{v, v};
      int symbolic = 0;
      for (const Val &i : items)
        symbolic += i.symbolic();
      bool isReshape = s.target == "torch.ops.aten.view.default" ||
                       s.target == "torch.ops.aten.reshape.default";
      for (const Val &i : items) {
        if (i.symbolic() && !(isReshape && symbolic == 1))
          unsupported(n, "argument '" + a.name + "' depends on the symbolic size '" + i.s + "'");
        arg.ints.push_back(i.symbolic() ? -1 : i.i);
      }
    } else if (t == "float" || t == "Scalar") {
      arg.kind = Argument::Float;
      arg.f = v.number();
    } else if (t == "bool") {
      arg.kind = Argument::Bool;
      arg.b = v.i != 0;
    } else if (t == "str") {
      arg.kind = Argument::String;
      arg.s = v.s;
    }
    return arg;
  }

  void emitOp(const TsNode &n, const std::vector<Val> &ins,
              const std::vector<const OpSchema *> &schemas) {
    const OpSchema *chosen = nullptr;
    std::vector<Val> bound;
    for (const OpSchema *s : schemas) {
      if (ins.size() > s->args.size())
        continue;
      std::vector<std::optional<Val>> slots(s->args.size());
      bool ok = true;
      for (size_t i = 0; i < ins.size() && ok; ++i) {
        std::string kw = i < n.inputNames.size() ? n.inputNames[i] : "";
        size_t slot = i;
        if (!kw.empty()) {
          slot = s->args.size();
          for (size_t j = 0; j < s->args.size(); ++j)
            if (s->args[j].name == kw)
              slot = j;
          if (slot == s->args.size()) {
            ok = false;
            break;
          }
        }
        slots[slot] = ins[i];
      }
      for (size_t i = 0; i < slots.size() && ok; ++i) {
        if (!slots[i]) {
          if (s->args[i].defaultText.empty())
            ok = false;
          else
            slots[i] = defaultValue(s->args[i]);
        }
        if (ok && !fits(*slots[i], s->args[i].type))
          ok = false;
      }
      if (ok) {
        chosen = s;
        bound.clear();
        for (auto &v : slots)
          bound.push_back(*v);
        break;
      }
    }
    if (!chosen) {
      std::string types;
      for (const Val &v : ins) {
        static const char *names[] = {"?", "None", "int", "float", "bool", "str", "Device",
                                      "list", "tuple", "Tensor", "module"};
        types += (types.empty() ? "" : ", ") + std::string(names[v.kind]);
      }
      unsupported(n, "no supported overload takes (" + types + ")");
    }
    Node node;
    node.target = chosen->target;
    node.name = unique(n.kind.substr(n.kind.find("::") + 2));
    node.stackTrace = n.source.str();
    node.loc.file = n.source.file;
    node.loc.line = n.source.line;
    for (size_t i = 0; i < chosen->args.size(); ++i) {
      if (chosen->args[i].dropped)
        continue;
      node.inputs.push_back({chosen->args[i].name, toArgument(n, chosen->args[i], bound[i], *chosen)});
    }
    normalizeArguments(node);

    // Output metadata: the dump's annotation where it is complete and the
    // inputs are the traced ones, else shape inference.
    std::vector<TensorMeta> metas;
    try {
      metas = inferShapes(node, [&](const std::string &v) -> const TensorMeta & {
        return meta(v);
      });
    } catch (const FrontendError &e) {
      error(n, std::string("cannot infer the output shape: ") + e.what());
    }
    std::vector<std::string> outNames;
    if (chosen->listOutput) {
      for (size_t i = 0; i < metas.size(); ++i)
        outNames.push_back(unique(n.outputs.empty() ? node.name : n.outputs[0].name + "_" +
                                                                     std::to_string(i)));
      Argument out;
      out.kind = Argument::Tensors;
      out.tensors = outNames;
      node.outputs.push_back(out);
      Val l;
      l.kind = Val::List;
      for (const std::string &o : outNames) {
        Val t;
        t.kind = Val::Tensor;
        t.name = o;
        l.items.push_back(t);
      }
      bind(n, 0, l);
    } else {
      if (n.outputs.size() != 1 || metas.size() != 1)
        error(n, "expected one tensor output");
      const TsType &t = n.outputs[0].type;
      if (useAnnotations && t.kind == TsType::Tensor && t.hasSizes && t.dtype) {
        bool complete = true;
        for (const auto &d : t.sizes)
          complete &= d.has_value();
        if (complete) {
          TensorMeta m = metas[0];
          m.dtype = *t.dtype;
          m.sizes.clear();
          for (const auto &d : t.sizes)
            m.sizes.push_back(staticDim(*d));
          m.strides = stridesOf(m.sizes, "the output '%" + n.outputs[0].name + "' of node '" +
                                             n.kind + "'");
          metas[0] = m;
        }
      }
      outNames.push_back(unique(n.outputs[0].name));
      Argument out;
      out.kind = Argument::Tensor;
      out.tensor = outNames[0];
      node.outputs.push_back(out);
      Val v;
      v.kind = Val::Tensor;
      v.name = outNames[0];
      bind(n, 0, v);
      if (chosen->inPlace && !n.inputs.empty())
        env[n.inputs[0]] = v; // later readers of the mutated value see the result
    }
    for (size_t i = 0; i < outNames.size(); ++i) {
      metas[i].strides =
          stridesOf(metas[i].sizes, "the output '%" + outNames[i] + "' of node '" + n.kind + "'");
      if (metas[i].device.empty())
        metas[i].device = "cpu";
      p.tensorValues[outNames[i]] = metas[i];
    }
    p.nodes.push_back(std::move(node));
  }

  /// PyTorch spellings the legalization reads differently: an empty pooling
  /// stride means the kernel size; slice ends past the size are clamped.
  void normalizeArguments(Node &node) {
    if (node.target == "torch.ops.aten.max_pool2d.default" ||
        node.target == "torch.ops.aten.avg_pool2d.default") {
      Argument *stride = nullptr, *kernel = nullptr;
      for (NamedArgument &a : node.inputs) {
        if (a.name == "stride") stride = &a.arg;
        if (a.name == "kernel_size") kernel = &a.arg;
      }
      if (stride && kernel && stride->kind == Argument::Ints && stride->ints.empty())
        stride->ints = kernel->ints;
    }
    if (node.target == "torch.ops.aten.slice.Tensor") {
      const Argument *self = node.input("self");
      Argument *end = nullptr;
      int64_t dim = 0;
      for (NamedArgument &a : node.inputs) {
        if (a.name == "end") end = &a.arg;
        if (a.name == "dim" && a.arg.kind == Argument::Int) dim = a.arg.i;
      }
      if (self && end && end->kind == Argument::Int) {
        const TensorMeta &m = meta(self->tensor);
        int64_t r = static_cast<int64_t>(m.sizes.size());
        if (dim < 0) dim += r;
        if (dim >= 0 && dim < r && m.sizes[dim].isStatic() && end->i > *m.sizes[dim].value)
          end->i = *m.sizes[dim].value;
      }
    }
  }

  void addOutputs(const Val &v) {
    if (v.kind == Val::Tuple || v.kind == Val::List) {
      for (const Val &i : v.items)
        addOutputs(i);
      return;
    }
    if (v.kind != Val::Tensor)
      throw FrontendError(in.sourceName + ": the graph returns a value that is not a tensor "
                          "(only tensors, and tuples or lists of them, can be returned)");
    OutputSpec o;
    o.kind = OutputKind::UserOutput;
    o.graphName = v.name;
    o.value.kind = Argument::Tensor;
    o.value.tensor = v.name;
    p.outputSpecs.push_back(o);
    p.graphOutputs.push_back(o.value);
  }
};
} // namespace

ExportedProgram torchscript::convertTorchScriptGraph(const ConversionInput &input) {
  return Converter(input).run();
}
