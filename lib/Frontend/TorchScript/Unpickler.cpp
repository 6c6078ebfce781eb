//===- Unpickler.cpp - a bounded pickle reader for TorchScript archives ---===//
#include "tcc/Frontend/TorchScript/Unpickler.h"

#include "tcc/Frontend/FrontendError.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <optional>

using namespace tcc;
using namespace tcc::frontend;
using namespace tcc::frontend::torchscript;

PyRef PyObject::get(const std::string &key) const {
  const PyObject *d = this;
  if (kind == Object)
    d = state.get();
  if (!d || d->kind != Dict)
    return nullptr;
  for (const auto &[k, v] : d->dict)
    if (k && k->kind == Str && k->s == key)
      return v;
  return nullptr;
}

namespace {
/// Limits that keep a hostile pickle from exhausting memory.
constexpr size_t kMaxMemo = 1u << 20;
constexpr size_t kMaxDims = 64;

std::optional<DType> storageDType(const std::string &cls) {
  static const std::pair<const char *, DType> table[] = {
      {"torch.FloatStorage", DType::Float32},   {"torch.DoubleStorage", DType::Float64},
      {"torch.HalfStorage", DType::Float16},    {"torch.BFloat16Storage", DType::BFloat16},
      {"torch.LongStorage", DType::Int64},      {"torch.IntStorage", DType::Int32},
      {"torch.ShortStorage", DType::Int16},     {"torch.CharStorage", DType::Int8},
      {"torch.ByteStorage", DType::UInt8},      {"torch.BoolStorage", DType::Bool}};
  for (const auto &[name, dtype] : table)
    if (cls == name)
      return dtype;
  return std::nullopt;
}

class Unpickler {
public:
  Unpickler(const std::vector<uint8_t> &bytes, const std::string &what)
      : data(bytes), what(what) {}

  PyRef run() {
    while (true) {
      size_t at = pos;
      uint8_t op = u8();
      switch (op) {
      case 0x80: u8(); break; // PROTO
      case 0x95: take(8); break; // FRAME
      case '.': // STOP
        if (stack.empty())
          fail("STOP with an empty stack", at);
        return stack.back();
      case 'c': { // GLOBAL
        std::string module = line(), name = line();
        push(makeGlobal(module + "." + name));
        break;
      }
      case 0x93: { // STACK_GLOBAL
        PyRef name = pop(), module = pop();
        push(makeGlobal(str(module, at) + "." + str(name, at)));
        break;
      }
      case 'q': memoPut(u8()); break;
      case 'r': memoPut(u32()); break;
      case 0x94: memoPut(memo.size()); break; // MEMOIZE
      case 'h': push(memoGet(u8(), at)); break;
      case 'j': push(memoGet(u32(), at)); break;
      case 'p': memoPut(std::stoul(numberLine(at))); break;
      case 'g': push(memoGet(std::stoul(numberLine(at)), at)); break;
      case '}': push(make(PyObject::Dict)); break;
      case ']': push(make(PyObject::List)); break;
      case ')': push(make(PyObject::Tuple)); break;
      case '(': marks.push_back(stack.size()); break;
      case 't': { // TUPLE
        PyRef t = make(PyObject::Tuple);
        t->items = popToMark(at);
        push(t);
        break;
      }
      case 0x85: case 0x86: case 0x87: { // TUPLE1..3
        size_t n = op - 0x84;
        if (stack.size() < n)
          fail("stack underflow", at);
        PyRef t = make(PyObject::Tuple);
        t->items.assign(stack.end() - n, stack.end());
        stack.resize(stack.size() - n);
        push(t);
        break;
      }
      case 'a': { // APPEND
        PyRef v = pop();
        list(top(at), at)->items.push_back(v);
        break;
      }
      case 'e': { // APPENDS
        std::vector<PyRef> items = popToMark(at);
        PyRef l = list(top(at), at);
        l->items.insert(l->items.end(), items.begin(), items.end());
        break;
      }
      case 's': { // SETITEM
        PyRef v = pop(), k = pop();
        dict(top(at), at)->dict.emplace_back(k, v);
        break;
      }
      case 'u': { // SETITEMS
        std::vector<PyRef> items = popToMark(at);
        if (items.size() % 2)
          fail("SETITEMS with an odd number of items", at);
        PyRef d = dict(top(at), at);
        for (size_t i = 0; i < items.size(); i += 2)
          d->dict.emplace_back(items[i], items[i + 1]);
        break;
      }
      case 'J': { int32_t v; std::memcpy(&v, take(4), 4); pushInt(v); break; }
      case 'K': pushInt(u8()); break;
      case 'M': { uint16_t v; std::memcpy(&v, take(2), 2); pushInt(v); break; }
      case 0x8a: case 0x8b: { // LONG1 / LONG4
        size_t n = op == 0x8a ? u8() : u32();
        if (n > 8)
          fail("integer wider than 64 bits", at);
        const uint8_t *p = take(n);
        uint64_t v = 0;
        for (size_t i = 0; i < n; ++i)
          v |= static_cast<uint64_t>(p[i]) << (8 * i);
        if (n > 0 && n < 8 && (p[n - 1] & 0x80))
          v |= ~uint64_t(0) << (8 * n);
        pushInt(static_cast<int64_t>(v));
        break;
      }
      case 'G': { // BINFLOAT, big-endian
        const uint8_t *p = take(8);
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i)
          bits = (bits << 8) | p[i];
        PyRef f = make(PyObject::Float);
        std::memcpy(&f->f, &bits, 8);
        push(f);
        break;
      }
      case 'X': case 'T': case 'B': { // BINUNICODE / BINSTRING / BINBYTES
        size_t n = u32();
        pushStr(op == 'B' ? PyObject::Bytes : PyObject::Str, take(n), n);
        break;
      }
      case 0x8c: case 'U': case 'C': { // SHORT_BINUNICODE / SHORT_BINSTRING / SHORT_BINBYTES
        size_t n = u8();
        pushStr(op == 'C' ? PyObject::Bytes : PyObject::Str, take(n), n);
        break;
      }
      case 0x88: case 0x89: { PyRef b = make(PyObject::Bool); b->b = op == 0x88; push(b); break; }
      case 'N': push(make(PyObject::None)); break;
      case '0': pop(); break;
      case '1': popToMark(at); break;
      case '2': push(top(at)); break;
      case 'Q': { // BINPERSID
        PyRef pid = pop();
        push(persistentLoad(pid, at));
        break;
      }
      case 'R': { // REDUCE
        PyRef args = pop(), callable = pop();
        push(reduce(callable, args, at));
        break;
      }
      case 0x81: { // NEWOBJ
        PyRef args = pop(), cls = pop();
        PyRef o = make(PyObject::Object);
        o->s = cls->kind == PyObject::Global ? cls->s : "<object>";
        if (args->kind == PyObject::Tuple)
          o->items = args->items;
        push(o);
        break;
      }
      case 'b': { // BUILD
        PyRef state = pop();
        PyRef o = top(at);
        if (o->kind == PyObject::Object)
          o->state = state;
        break;
      }
      default: {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", op);
        fail(std::string("unsupported opcode ") + hex, at);
      }
      }
    }
  }

private:
  const std::vector<uint8_t> &data;
  const std::string &what;
  size_t pos = 0;
  std::vector<PyRef> stack;
  std::vector<size_t> marks;
  std::map<size_t, PyRef> memo;

  [[noreturn]] void fail(const std::string &msg, size_t at) const {
    throw FrontendError(what + ": malformed pickle: " + msg + " at offset " + std::to_string(at));
  }
  const uint8_t *take(size_t n) {
    if (n > data.size() - pos)
      fail("truncated data", pos);
    const uint8_t *p = data.data() + pos;
    pos += n;
    return p;
  }
  uint8_t u8() { return *take(1); }
  uint32_t u32() {
    uint32_t v;
    std::memcpy(&v, take(4), 4);
    return v;
  }
  std::string line() {
    size_t start = pos;
    while (pos < data.size() && data[pos] != '\n')
      ++pos;
    if (pos >= data.size())
      fail("unterminated line", start);
    std::string s(reinterpret_cast<const char *>(data.data() + start), pos - start);
    ++pos;
    return s;
  }
  std::string numberLine(size_t at) {
    std::string s = line();
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
      fail("expected a memo index", at);
    return s;
  }

  static PyRef make(PyObject::Kind k) {
    auto o = std::make_shared<PyObject>();
    o->kind = k;
    return o;
  }
  static PyRef makeGlobal(std::string name) {
    PyRef g = make(PyObject::Global);
    g->s = std::move(name);
    return g;
  }
  void push(PyRef v) { stack.push_back(std::move(v)); }
  void pushInt(int64_t v) {
    PyRef o = make(PyObject::Int);
    o->i = v;
    push(o);
  }
  void pushStr(PyObject::Kind k, const uint8_t *p, size_t n) {
    PyRef o = make(k);
    o->s.assign(reinterpret_cast<const char *>(p), n);
    push(o);
  }
  PyRef pop() {
    if (stack.empty() || (!marks.empty() && stack.size() <= marks.back()))
      fail("stack underflow", pos - 1);
    PyRef v = stack.back();
    stack.pop_back();
    return v;
  }
  PyRef top(size_t at) {
    if (stack.empty())
      fail("stack underflow", at);
    return stack.back();
  }
  std::vector<PyRef> popToMark(size_t at) {
    if (marks.empty())
      fail("no MARK", at);
    size_t m = marks.back();
    marks.pop_back();
    if (m > stack.size())
      fail("MARK above the stack", at);
    std::vector<PyRef> items(stack.begin() + m, stack.end());
    stack.resize(m);
    return items;
  }
  void memoPut(size_t index) {
    if (index >= kMaxMemo)
      fail("memo index too large", pos);
    memo[index] = top(pos);
  }
  PyRef memoGet(size_t index, size_t at) {
    auto it = memo.find(index);
    if (it == memo.end())
      fail("memo entry " + std::to_string(index) + " is not set", at);
    return it->second;
  }
  PyRef list(PyRef v, size_t at) {
    if (v->kind != PyObject::List)
      fail("APPEND to something that is not a list", at);
    return v;
  }
  PyRef dict(PyRef v, size_t at) {
    if (v->kind != PyObject::Dict)
      fail("SETITEM on something that is not a dict", at);
    return v;
  }
  std::string str(const PyRef &v, size_t at) {
    if (!v || v->kind != PyObject::Str)
      fail("expected a string", at);
    return v->s;
  }
  int64_t integer(const PyRef &v, size_t at) {
    if (!v || v->kind != PyObject::Int)
      fail("expected an integer", at);
    return v->i;
  }

  PyRef persistentLoad(const PyRef &pid, size_t at) {
    // ('storage', torch.FloatStorage, key, device, numel)
    if (pid->kind != PyObject::Tuple || pid->items.size() < 5 ||
        pid->items[0]->kind != PyObject::Str || pid->items[0]->s != "storage")
      fail("unsupported persistent id (expected ('storage', ...))", at);
    const PyRef &cls = pid->items[1];
    std::optional<DType> dtype =
        cls->kind == PyObject::Global ? storageDType(cls->s) : std::nullopt;
    if (!dtype)
      fail("unsupported storage type '" + cls->s + "'", at);
    PyRef s = make(PyObject::Storage);
    s->tensor.dtype = *dtype;
    s->tensor.storageKey = str(pid->items[2], at);
    s->tensor.device = str(pid->items[3], at);
    s->tensor.storageNumel = integer(pid->items[4], at);
    if (s->tensor.storageNumel < 0)
      fail("negative storage size", at);
    return s;
  }

  std::vector<int64_t> ints(const PyRef &v, size_t at) {
    if (v->kind != PyObject::Tuple && v->kind != PyObject::List)
      fail("expected a tuple of sizes", at);
    if (v->items.size() > kMaxDims)
      fail("too many dimensions", at);
    std::vector<int64_t> out;
    for (const PyRef &i : v->items)
      out.push_back(integer(i, at));
    return out;
  }

  PyRef reduce(const PyRef &callable, const PyRef &args, size_t at) {
    if (callable->kind != PyObject::Global)
      fail("REDUCE of something that is not a class or function", at);
    const std::string name = callable->s;
    const std::vector<PyRef> &a = args->items;
    if (name == "torch._utils._rebuild_tensor_v2" || name == "torch._utils._rebuild_tensor") {
      // (storage, storage_offset, size, stride, ...)
      if (args->kind != PyObject::Tuple || a.size() < 4 || a[0]->kind != PyObject::Storage)
        fail("_rebuild_tensor_v2 with unexpected arguments", at);
      PyRef t = make(PyObject::Tensor);
      t->tensor = a[0]->tensor;
      t->tensor.storageOffset = integer(a[1], at);
      t->tensor.sizes = ints(a[2], at);
      t->tensor.strides = ints(a[3], at);
      if (t->tensor.sizes.size() != t->tensor.strides.size())
        fail("tensor sizes and strides differ in rank", at);
      return t;
    }
    if (name == "torch._utils._rebuild_parameter" && !a.empty())
      return a[0];
    if (name == "torch.jit._pickle.restore_type_tag" && !a.empty())
      return a[0];
    if (name == "collections.OrderedDict")
      return make(PyObject::Dict);
    if (name.rfind("torch.jit._pickle.build_", 0) == 0 && !a.empty())
      return a[0]; // build_intlist, build_tensorlist, ...
    // Anything else stays an opaque object.
    PyRef o = make(PyObject::Object);
    o->s = name.empty() ? "<reduce>" : name;
    o->items = a;
    return o;
  }
};
} // namespace

PyRef torchscript::unpickle(const std::vector<uint8_t> &bytes, const std::string &what) {
  return Unpickler(bytes, what).run();
}
