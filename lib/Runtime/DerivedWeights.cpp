//===- DerivedWeights.cpp - weights computed from other weights -----------===//
//
// The evaluator of derived weights' programs: a stack of dense row-major
// double tensors. Parsing works out every step's shape so that evaluation
// only computes; a broadcast (binary operands, `broadcast`, `transpose`)
// walks the result once with one stride per operand dimension, 0 where the
// operand's size is 1.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/DerivedWeights.h"

#include "tcc/Runtime/RuntimeError.h"
#include "tcc/Support/HalfFloat.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

namespace tcc {

namespace {

/// Larger steps are refused: a manifest asking for them is corrupt (the
/// compiler derives at most 64 Mi elements).
constexpr int64_t kMaxElements = int64_t(1) << 31;
/// Slots for shared subexpressions (keep:K, recall:K).
constexpr int64_t kMaxSlots = int64_t(1) << 16;

bool isFloat(DType t) {
  return t == DType::Float32 || t == DType::Float64 || t == DType::Float16 ||
         t == DType::BFloat16;
}

int64_t elementCount(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string shapeText(const std::vector<int64_t> &shape) {
  return "[" + derivedIntList(shape) + "]";
}

std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

/// Strides that read `in` at each index of `out` (NumPy broadcasting: `in`
/// aligned to the trailing dims, stretched where its size is 1).
std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &in,
                                      const std::vector<int64_t> &out) {
  std::vector<int64_t> strides(out.size(), 0), own = contiguousStrides(in);
  size_t lead = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d)
    strides[lead + d] = in[d] == 1 ? 0 : own[d];
  return strides;
}

/// Calls fn(o, a, b) for every row-major index o of `shape`, with a and b the
/// offsets that strides `sa` and `sb` give it.
template <typename Fn>
void forEachIndex(const std::vector<int64_t> &shape, const std::vector<int64_t> &sa,
                  const std::vector<int64_t> &sb, Fn fn) {
  int64_t n = elementCount(shape);
  if (n == 0)
    return;
  size_t rank = shape.size();
  if (rank == 0) {
    fn(0, 0, 0);
    return;
  }
  std::vector<int64_t> index(rank, 0);
  int64_t inner = shape[rank - 1], ia = sa[rank - 1], ib = sb[rank - 1];
  int64_t a = 0, b = 0;
  for (int64_t o = 0; o < n;) {
    for (int64_t k = 0; k < inner; ++k)
      fn(o++, a + k * ia, b + k * ib);
    for (size_t d = rank - 1; d-- > 0;) {
      a += sa[d];
      b += sb[d];
      if (++index[d] < shape[d])
        break;
      a -= sa[d] * shape[d];
      b -= sb[d] * shape[d];
      index[d] = 0;
    }
  }
}

double nanMax(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }
double nanMin(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); }

double applyBinary(DerivedOp op, double a, double b) {
  switch (op) {
  case DerivedOp::Add: return a + b;
  case DerivedOp::Sub: return a - b;
  case DerivedOp::Mul: return a * b;
  case DerivedOp::Div: return a / b;
  case DerivedOp::Pow: return std::pow(a, b);
  case DerivedOp::Maximum: return nanMax(a, b);
  case DerivedOp::Minimum: return nanMin(a, b);
  default: return NAN;
  }
}

double applyUnary(DerivedOp op, double x) {
  switch (op) {
  case DerivedOp::Neg: return -x;
  case DerivedOp::Rsqrt: return 1.0 / std::sqrt(x);
  case DerivedOp::Sqrt: return std::sqrt(x);
  case DerivedOp::Exp: return std::exp(x);
  case DerivedOp::Log: return std::log(x);
  case DerivedOp::Abs: return std::fabs(x);
  case DerivedOp::Cos: return std::cos(x);
  case DerivedOp::Sin: return std::sin(x);
  default: return NAN;
  }
}

bool isBinary(DerivedOp op) {
  return (op >= DerivedOp::Add && op <= DerivedOp::Minimum) || op == DerivedOp::Compare;
}

bool isPredicate(std::string_view p) {
  return p == "eq" || p == "ne" || p == "lt" || p == "le" || p == "gt" || p == "ge";
}

/// 1 where `a p b` holds, else 0; every comparison with NaN but `ne` fails,
/// as IEEE (and PyTorch) compare.
double applyCompare(const std::string &p, double a, double b) {
  bool holds = p == "eq" ? a == b : p == "ne" ? a != b : p == "lt" ? a < b
             : p == "le" ? a <= b : p == "gt" ? a > b : a >= b;
  return holds ? 1.0 : 0.0;
}

bool isUnary(DerivedOp op) {
  return (op >= DerivedOp::Neg && op <= DerivedOp::Abs) || op == DerivedOp::Cos ||
         op == DerivedOp::Sin;
}

std::optional<std::vector<int64_t>> parseIntList(std::string_view text) {
  std::vector<int64_t> values;
  if (text.empty())
    return values;
  std::string s(text);
  const char *p = s.c_str();
  while (true) {
    char *end = nullptr;
    errno = 0;
    long long v = std::strtoll(p, &end, 10);
    if (end == p || errno)
      return std::nullopt;
    values.push_back(v);
    if (*end == '\0')
      return values;
    if (*end != ',')
      return std::nullopt;
    p = end + 1;
  }
}

/// The NumPy broadcast of two shapes.
std::optional<std::vector<int64_t>> broadcastShape(const std::vector<int64_t> &a,
                                                   const std::vector<int64_t> &b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1)
      return std::nullopt;
    out[i] = x == 1 ? y : x;
  }
  return out;
}

} // namespace

//===----------------------------------------------------------------------===//
// Float formats
//===----------------------------------------------------------------------===//

double roundToDType(DType dtype, double v) {
  switch (dtype) {
  case DType::Float32: return static_cast<float>(v);
  case DType::Float16: return halfToFloat(doubleToHalf(v));
  case DType::BFloat16: return bfloat16ToFloat(doubleToBFloat16(v));
  default: return v;
  }
}

double loadFloat(DType dtype, const void *data, int64_t i) {
  const auto *bytes = static_cast<const uint8_t *>(data);
  switch (dtype) {
  case DType::Float32: {
    float f;
    std::memcpy(&f, bytes + 4 * i, 4);
    return f;
  }
  case DType::Float64: {
    double d;
    std::memcpy(&d, bytes + 8 * i, 8);
    return d;
  }
  case DType::Float16:
  case DType::BFloat16: {
    uint16_t h;
    std::memcpy(&h, bytes + 2 * i, 2);
    return dtype == DType::Float16 ? halfToFloat(h) : bfloat16ToFloat(h);
  }
  default: return NAN;
  }
}

double loadNumber(DType dtype, const void *data, int64_t i) {
  if (isFloat(dtype))
    return loadFloat(dtype, data, i);
  const auto *bytes = static_cast<const uint8_t *>(data);
  auto load = [&](auto zero) {
    decltype(zero) v;
    std::memcpy(&v, bytes + sizeof v * i, sizeof v);
    return static_cast<double>(v);
  };
  switch (dtype) {
  case DType::Int64: return load(int64_t{});
  case DType::Int32: return load(int32_t{});
  case DType::Int16: return load(int16_t{});
  case DType::Int8: return load(int8_t{});
  case DType::UInt8: return load(uint8_t{});
  case DType::Bool: return load(uint8_t{}) != 0 ? 1.0 : 0.0;
  default: return NAN;
  }
}

void storeFloat(DType dtype, void *data, int64_t i, double v) {
  auto *bytes = static_cast<uint8_t *>(data);
  switch (dtype) {
  case DType::Float32: {
    float f = static_cast<float>(v);
    std::memcpy(bytes + 4 * i, &f, 4);
    return;
  }
  case DType::Float64:
    std::memcpy(bytes + 8 * i, &v, 8);
    return;
  case DType::Float16:
  case DType::BFloat16: {
    uint16_t h = dtype == DType::Float16 ? doubleToHalf(v) : doubleToBFloat16(v);
    std::memcpy(bytes + 2 * i, &h, 2);
    return;
  }
  default: return;
  }
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

DerivedProgram DerivedProgram::parse(std::string_view name, DType dtype,
                                     const std::vector<int64_t> &sizes,
                                     const std::vector<std::string> &tokens,
                                     const SourceLookup &lookup) {
  std::string weight = "derived weight '" + std::string(name) + "'";
  auto fail = [&](const std::string &why) {
    throw RuntimeError(TCC_ERROR_INVALID_MANIFEST, "invalid guard manifest: " + weight + ": " + why);
  };
  if (!isFloat(dtype))
    fail(std::string("has dtype ") + dtypeName(dtype) + "; only float weights are derived");
  if (tokens.empty())
    fail("has an empty program");
  DerivedProgram p;
  p.dtype_ = dtype;
  p.name_ = std::string(name);
  std::vector<std::vector<int64_t>> stack;
  std::map<int64_t, std::vector<int64_t>> slotShapes;
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::string at = "token #" + std::to_string(i) + " '" + tokens[i] + "'";
    DerivedToken t = splitDerivedToken(tokens[i]);
    std::optional<DerivedOp> op = parseDerivedOp(t.name);
    if (!op)
      fail(at + " is not an operation");
    if (derivedOpHasArgument(*op) != t.hasArgument)
      fail(at + (t.hasArgument ? " takes no argument" : " needs an argument after ':'"));
    auto pop = [&]() {
      if (stack.empty())
        fail(at + " has too few operands");
      std::vector<int64_t> top = std::move(stack.back());
      stack.pop_back();
      return top;
    };
    auto ints = [&]() {
      std::optional<std::vector<int64_t>> v = parseIntList(t.argument);
      if (!v)
        fail(at + ": expected integers separated by ','");
      return *v;
    };
    auto sizesArg = [&]() {
      std::vector<int64_t> v = ints();
      for (int64_t d : v)
        if (d < 0 || d > kMaxElements)
          fail(at + ": bad size");
      return v;
    };
    Step s;
    s.op = *op;
    switch (*op) {
    case DerivedOp::Weight: {
      std::optional<Source> source = lookup(t.argument);
      if (!source)
        fail(at + ": the model has no weight of that name");
      if (source->derived)
        fail(at + ": that weight is itself derived");
      // Integer weights are read as take's indices (exact up to 2^53).
      s.source = source->index;
      s.dtype = source->dtype;
      s.shape = source->sizes;
      if (std::find(p.sources_.begin(), p.sources_.end(), s.source) == p.sources_.end())
        p.sources_.push_back(s.source);
      break;
    }
    case DerivedOp::Const: {
      std::string text(t.argument);
      char *end = nullptr;
      s.value = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0')
        fail(at + ": not a number");
      break;
    }
    case DerivedOp::Iota: {
      // SIZE,START,STEP
      std::string text(t.argument);
      size_t a = text.find(','), b = a == std::string::npos ? a : text.find(',', a + 1);
      std::optional<std::vector<int64_t>> size =
          a == std::string::npos ? std::nullopt : parseIntList(std::string_view(text).substr(0, a));
      char *end1 = nullptr, *end2 = nullptr;
      if (!size || size->size() != 1 || (*size)[0] < 0 || (*size)[0] > kMaxElements ||
          b == std::string::npos)
        fail(at + ": expected SIZE,START,STEP");
      std::string start = text.substr(a + 1, b - a - 1), step = text.substr(b + 1);
      s.value = std::strtod(start.c_str(), &end1);
      s.increment = std::strtod(step.c_str(), &end2);
      if (start.empty() || step.empty() || *end1 != '\0' || *end2 != '\0')
        fail(at + ": expected SIZE,START,STEP");
      s.shape = {(*size)[0]};
      break;
    }
    case DerivedOp::Cast: {
      std::optional<DType> to = parseDType(t.argument);
      if (!to || !isFloat(*to))
        fail(at + ": not a float dtype");
      s.dtype = *to;
      s.shape = pop();
      break;
    }
    case DerivedOp::Reshape: {
      s.shape = sizesArg();
      std::vector<int64_t> in = pop();
      if (elementCount(s.shape) != elementCount(in))
        fail(at + ": cannot reshape " + shapeText(in) + " to " + shapeText(s.shape));
      break;
    }
    case DerivedOp::Broadcast: {
      s.shape = sizesArg();
      std::vector<int64_t> in = pop();
      std::optional<std::vector<int64_t>> b = broadcastShape(in, s.shape);
      if (in.size() > s.shape.size() || !b || *b != s.shape)
        fail(at + ": cannot broadcast " + shapeText(in) + " to " + shapeText(s.shape));
      break;
    }
    case DerivedOp::Transpose: {
      s.permutation = ints();
      std::vector<int64_t> in = pop();
      std::vector<bool> seen(in.size(), false);
      if (s.permutation.size() != in.size())
        fail(at + ": a permutation of " + std::to_string(in.size()) + " dims expected");
      for (int64_t d : s.permutation) {
        if (d < 0 || static_cast<size_t>(d) >= in.size() || seen[d])
          fail(at + ": not a permutation");
        seen[d] = true;
        s.shape.push_back(in[d]);
      }
      break;
    }
    case DerivedOp::Concat: {
      std::vector<int64_t> dim = ints(), rhs = pop(), lhs = pop();
      if (dim.size() != 1 || dim[0] < 0 || static_cast<size_t>(dim[0]) >= lhs.size())
        fail(at + ": not a dim of " + shapeText(lhs));
      bool agree = lhs.size() == rhs.size();
      for (size_t d = 0; agree && d < lhs.size(); ++d)
        agree = static_cast<int64_t>(d) == dim[0] || lhs[d] == rhs[d];
      if (!agree)
        fail(at + ": cannot join " + shapeText(lhs) + " and " + shapeText(rhs));
      s.dim = dim[0];
      s.lhsExtent = lhs[dim[0]];
      s.shape = lhs;
      s.shape[dim[0]] += rhs[dim[0]];
      break;
    }
    case DerivedOp::Slice: {
      std::vector<int64_t> v = ints(), in = pop();
      if (v.size() != 4)
        fail(at + ": expected DIM,START,STEP,SIZE");
      int64_t dim = v[0], start = v[1], step = v[2], size = v[3];
      if (dim < 0 || static_cast<size_t>(dim) >= in.size())
        fail(at + ": not a dim of " + shapeText(in));
      if (start < 0 || step < 1 || size < 0 || size > kMaxElements ||
          (size > 0 && (start >= in[dim] || (in[dim] - 1 - start) / step < size - 1)))
        fail(at + ": outside " + shapeText(in));
      s.dim = dim;
      s.start = start;
      s.step = step;
      s.shape = in;
      s.shape[dim] = size;
      break;
    }
    case DerivedOp::Take: {
      std::vector<int64_t> dim = ints(), index = pop(), in = pop();
      if (dim.size() != 1 || dim[0] < 0 || static_cast<size_t>(dim[0]) >= in.size())
        fail(at + ": not a dim of " + shapeText(in));
      s.dim = dim[0];
      s.shape.assign(in.begin(), in.begin() + s.dim);
      s.shape.insert(s.shape.end(), index.begin(), index.end());
      s.shape.insert(s.shape.end(), in.begin() + s.dim + 1, in.end());
      s.lhsExtent = in[s.dim]; // the size indices address
      break;
    }
    case DerivedOp::Select: {
      std::vector<int64_t> rhs = pop(), lhs = pop(), condition = pop();
      std::optional<std::vector<int64_t>> b = broadcastShape(condition, lhs);
      if (b)
        b = broadcastShape(*b, rhs);
      if (!b)
        fail(at + ": shapes " + shapeText(condition) + ", " + shapeText(lhs) + " and " +
             shapeText(rhs) + " do not broadcast");
      s.shape = *b;
      break;
    }
    case DerivedOp::Keep:
    case DerivedOp::Recall: {
      std::vector<int64_t> slot = ints();
      if (slot.size() != 1 || slot[0] < 0 || slot[0] >= kMaxSlots)
        fail(at + ": not a slot number");
      s.slot = slot[0];
      if (*op == DerivedOp::Keep) {
        s.shape = pop(); // pushed back below: keep leaves the stack as it was
        slotShapes[s.slot] = s.shape;
      } else {
        auto kept = slotShapes.find(s.slot);
        if (kept == slotShapes.end())
          fail(at + ": nothing was kept in that slot");
        s.shape = kept->second;
      }
      break;
    }
    default:
      if (isBinary(*op)) {
        if (*op == DerivedOp::Compare) {
          if (!isPredicate(t.argument))
            fail(at + ": not a predicate (eq, ne, lt, le, gt, ge)");
          s.predicate = std::string(t.argument);
        }
        std::vector<int64_t> rhs = pop(), lhs = pop();
        std::optional<std::vector<int64_t>> b = broadcastShape(lhs, rhs);
        if (!b)
          fail(at + ": shapes " + shapeText(lhs) + " and " + shapeText(rhs) + " do not broadcast");
        s.shape = *b;
      } else {
        s.shape = pop();
      }
      break;
    }
    int64_t n = 1;
    for (int64_t d : s.shape)
      if (d != 0 && n > kMaxElements / d)
        fail(at + ": more than " + std::to_string(kMaxElements) + " elements");
      else
        n *= d;
    stack.push_back(s.shape);
    p.steps_.push_back(std::move(s));
  }
  if (stack.size() != 1)
    fail("the program leaves " + std::to_string(stack.size()) + " values, expected 1");
  if (stack.back() != sizes)
    fail("the program computes " + shapeText(stack.back()) + ", the weight is " +
         shapeText(sizes));
  return p;
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

void DerivedProgram::evaluate(const void *const *weights, void *out) const {
  // Values with the shape of the step that pushed them.
  struct Value {
    std::vector<double> data;
    const std::vector<int64_t> *shape = nullptr;
  };
  std::vector<Value> stack;
  std::map<int64_t, std::vector<double>> slots;
  auto pop = [&]() {
    Value v = std::move(stack.back());
    stack.pop_back();
    return v;
  };
  // `v`'s elements at every index of `shape` (NumPy broadcasting).
  auto expand = [](const Value &v, const std::vector<int64_t> &shape) {
    std::vector<double> out(static_cast<size_t>(elementCount(shape)));
    std::vector<int64_t> none(shape.size(), 0);
    forEachIndex(shape, broadcastStrides(*v.shape, shape), none,
                 [&](int64_t o, int64_t a, int64_t) { out[o] = v.data[a]; });
    return out;
  };
  for (const Step &s : steps_) {
    std::vector<double> result;
    switch (s.op) {
    case DerivedOp::Weight: {
      int64_t n = elementCount(s.shape);
      result.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i)
        result[i] = loadNumber(s.dtype, weights[s.source], i);
      break;
    }
    case DerivedOp::Const:
      result.assign(1, s.value);
      break;
    case DerivedOp::Iota:
      result.resize(static_cast<size_t>(s.shape[0]));
      for (int64_t i = 0; i < s.shape[0]; ++i)
        result[i] = s.value + static_cast<double>(i) * s.increment;
      break;
    case DerivedOp::Cast:
      result = pop().data;
      for (double &v : result)
        v = roundToDType(s.dtype, v);
      break;
    case DerivedOp::Reshape:
      result = pop().data;
      break;
    case DerivedOp::Broadcast:
    case DerivedOp::Transpose: {
      Value in = pop();
      std::vector<int64_t> strides;
      if (s.op == DerivedOp::Broadcast) {
        strides = broadcastStrides(*in.shape, s.shape);
      } else {
        std::vector<int64_t> own = contiguousStrides(*in.shape);
        for (int64_t d : s.permutation)
          strides.push_back(own[d]);
      }
      std::vector<int64_t> none(s.shape.size(), 0);
      result.resize(static_cast<size_t>(elementCount(s.shape)));
      forEachIndex(s.shape, strides, none,
                   [&](int64_t o, int64_t a, int64_t) { result[o] = in.data[a]; });
      break;
    }
    case DerivedOp::Concat: {
      // Per index of the dims before `dim`: the lhs's block, then the rhs's.
      Value rhs = pop(), lhs = pop();
      int64_t inner = 1;
      for (size_t d = static_cast<size_t>(s.dim) + 1; d < s.shape.size(); ++d)
        inner *= s.shape[d];
      int64_t lhsBlock = s.lhsExtent * inner,
              rhsBlock = (s.shape[s.dim] - s.lhsExtent) * inner;
      int64_t outer = lhsBlock + rhsBlock == 0 ? 0 : elementCount(s.shape) / (lhsBlock + rhsBlock);
      result.reserve(static_cast<size_t>(elementCount(s.shape)));
      for (int64_t i = 0; i < outer; ++i) {
        result.insert(result.end(), lhs.data.begin() + i * lhsBlock,
                      lhs.data.begin() + (i + 1) * lhsBlock);
        result.insert(result.end(), rhs.data.begin() + i * rhsBlock,
                      rhs.data.begin() + (i + 1) * rhsBlock);
      }
      break;
    }
    case DerivedOp::Slice: {
      Value in = pop();
      std::vector<int64_t> strides = contiguousStrides(*in.shape);
      int64_t offset = s.start * strides[s.dim];
      strides[s.dim] *= s.step;
      std::vector<int64_t> none(s.shape.size(), 0);
      result.resize(static_cast<size_t>(elementCount(s.shape)));
      forEachIndex(s.shape, strides, none,
                   [&](int64_t o, int64_t a, int64_t) { result[o] = in.data[offset + a]; });
      break;
    }
    case DerivedOp::Select: {
      Value rhs = pop(), lhs = pop(), condition = pop();
      std::vector<double> c = expand(condition, s.shape), l = expand(lhs, s.shape),
                          r = expand(rhs, s.shape);
      result.resize(c.size());
      for (size_t i = 0; i < c.size(); ++i)
        result[i] = c[i] != 0 ? l[i] : r[i];
      break;
    }
    case DerivedOp::Take: {
      // [outer, size, inner] read at [outer, index[j], inner].
      Value index = pop(), in = pop();
      int64_t size = s.lhsExtent, inner = 1, outer = 1;
      for (size_t d = static_cast<size_t>(s.dim) + 1; d < in.shape->size(); ++d)
        inner *= (*in.shape)[d];
      for (int64_t d = 0; d < s.dim; ++d)
        outer *= (*in.shape)[d];
      int64_t picks = static_cast<int64_t>(index.data.size());
      result.resize(static_cast<size_t>(outer * picks * inner));
      for (int64_t j = 0; j < picks; ++j) {
        double raw = index.data[j];
        if (!(raw >= -static_cast<double>(size) && raw < static_cast<double>(size))) {
          char text[64];
          std::snprintf(text, sizeof text, "%.0f", raw);
          throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                             "derived weight '" + name_ + "': index " + text +
                                 " is out of range for a dim of size " + std::to_string(size));
        }
        int64_t k = static_cast<int64_t>(raw);
        if (k < 0)
          k += size;
        for (int64_t o = 0; o < outer; ++o)
          std::copy_n(in.data.begin() + (o * size + k) * inner, inner,
                      result.begin() + (o * picks + j) * inner);
      }
      break;
    }
    case DerivedOp::Keep:
      result = pop().data;
      slots[s.slot] = result;
      break;
    case DerivedOp::Recall:
      result = slots.at(s.slot);
      break;
    default:
      if (isBinary(s.op)) {
        Value rhs = pop(), lhs = pop();
        result.resize(static_cast<size_t>(elementCount(s.shape)));
        DerivedOp op = s.op;
        const std::string &predicate = s.predicate;
        forEachIndex(s.shape, broadcastStrides(*lhs.shape, s.shape),
                     broadcastStrides(*rhs.shape, s.shape), [&](int64_t o, int64_t a, int64_t b) {
                       result[o] = op == DerivedOp::Compare
                                       ? applyCompare(predicate, lhs.data[a], rhs.data[b])
                                       : applyBinary(op, lhs.data[a], rhs.data[b]);
                     });
      } else {
        result = pop().data;
        for (double &v : result)
          v = applyUnary(s.op, v);
      }
      break;
    }
    stack.push_back({std::move(result), &s.shape});
  }
  const std::vector<double> &value = stack.back().data;
  for (size_t i = 0; i < value.size(); ++i)
    storeFloat(dtype_, out, static_cast<int64_t>(i), value[i]);
}

} // namespace tcc
