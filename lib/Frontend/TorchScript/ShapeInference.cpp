//===- ShapeInference.cpp - output shapes of the supported operators ------===//
//
// Scripted and frozen graphs print `Tensor` without sizes, so the converter
// computes them from the input shapes: one rule per export target, on the
// export-level node (schema argument names). Sizes may be symbolic
// (expressions over the --symbol names) where a rule only copies them.
//
//===----------------------------------------------------------------------===//
#include "Conversion.h"

#include "tcc/Frontend/FrontendError.h"

#include <algorithm>
#include <map>

using namespace tcc;
using namespace tcc::frontend;
using namespace tcc::frontend::torchscript;

SymDim torchscript::staticDim(int64_t v) { return SymDim{v, "", v}; }

namespace {
using Dims = std::vector<SymDim>;

[[noreturn]] void fail(const std::string &msg) { throw FrontendError(msg); }

struct Ctx {
  const Node &node;
  const MetaLookup &meta;

  const Argument *arg(const char *name) const { return node.input(name); }
  const TensorMeta &tensor(const char *name) const {
    const Argument *a = arg(name);
    if (!a || a->kind != Argument::Tensor)
      fail("argument '" + std::string(name) + "' is not a tensor");
    return meta(a->tensor);
  }
  int64_t getInt(const char *name, int64_t dflt) const {
    const Argument *a = arg(name);
    return a && a->kind == Argument::Int ? a->i : dflt;
  }
  bool getBool(const char *name, bool dflt) const {
    const Argument *a = arg(name);
    return a && a->kind == Argument::Bool ? a->b : dflt;
  }
  std::optional<std::vector<int64_t>> getInts(const char *name) const {
    const Argument *a = arg(name);
    if (!a || a->kind != Argument::Ints)
      return std::nullopt;
    return a->ints;
  }
};

/// a * b and a + b of sizes, refused beyond int64 (sizes come from the dump's
/// types and arguments, which may hold anything).
int64_t mulSizes(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    fail("sizes beyond int64");
  return r;
}
int64_t addSizes(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    fail("sizes beyond int64");
  return r;
}

int64_t normDim(int64_t d, size_t rank) {
  int64_t r = static_cast<int64_t>(rank);
  if (d < -r || d >= std::max<int64_t>(r, 1))
    fail("dimension " + std::to_string(d) + " is out of range for rank " + std::to_string(rank));
  return d < 0 ? d + r : d;
}

bool same(const SymDim &a, const SymDim &b) {
  return a.isStatic() == b.isStatic() && (a.isStatic() ? *a.value == *b.value : a.expr == b.expr);
}

std::string dimText(const SymDim &d) { return d.isStatic() ? std::to_string(*d.value) : d.expr; }

TensorMeta like(const TensorMeta &base, Dims sizes) {
  TensorMeta m;
  m.dtype = base.dtype;
  m.device = base.device;
  m.sizes = std::move(sizes);
  int64_t stride = 1;
  m.strides.resize(m.sizes.size());
  for (size_t i = m.sizes.size(); i-- > 0;) {
    m.strides[i] = staticDim(stride);
    stride *= m.sizes[i].value.value_or(m.sizes[i].hint ? m.sizes[i].hint : 1);
  }
  return m;
}

Dims broadcast(const Dims &a, const Dims &b) {
  Dims out(std::max(a.size(), b.size()));
  for (size_t i = 0; i < out.size(); ++i) {
    const SymDim *x = i < a.size() ? &a[a.size() - 1 - i] : nullptr;
    const SymDim *y = i < b.size() ? &b[b.size() - 1 - i] : nullptr;
    SymDim &o = out[out.size() - 1 - i];
    if (!x || (x->isStatic() && *x->value == 1))
      o = y ? *y : *x;
    else if (!y || (y->isStatic() && *y->value == 1) || same(*x, *y))
      o = *x;
    else
      fail("shapes do not broadcast: size " + dimText(*x) + " against " + dimText(*y));
  }
  return out;
}

int64_t need(const SymDim &d, const char *what) {
  if (!d.isStatic())
    fail(std::string(what) + " of symbolic size '" + d.expr + "' is not supported");
  return *d.value;
}

std::vector<TensorMeta> one(TensorMeta m) { return {std::move(m)}; }

// Rules ---------------------------------------------------------------------

std::vector<TensorMeta> sameAs(const Ctx &c, const char *name) {
  return one(c.tensor(name));
}

std::vector<TensorMeta> binary(const Ctx &c) {
  const TensorMeta &x = c.tensor("self");
  const Argument *o = c.arg("other");
  if (o && o->kind == Argument::Tensor)
    return one(like(x, broadcast(x.sizes, c.meta(o->tensor).sizes)));
  return one(like(x, x.sizes));
}

std::vector<TensorMeta> linear(const Ctx &c) {
  const TensorMeta &x = c.tensor("input"), &w = c.tensor("weight");
  if (x.sizes.empty() || w.sizes.size() != 2)
    fail("linear expects an input of rank >= 1 and a 2-D weight");
  Dims out = x.sizes;
  out.back() = w.sizes[0];
  return one(like(x, out));
}

std::vector<TensorMeta> matmulLike(const Ctx &c, const char *lhs, const char *rhs) {
  const TensorMeta &a = c.tensor(lhs), &b = c.tensor(rhs);
  Dims x = a.sizes, y = b.sizes;
  if (x.empty() || y.empty())
    fail("matmul of a 0-d tensor");
  bool vx = x.size() == 1, vy = y.size() == 1;
  if (vx)
    x.insert(x.begin(), staticDim(1));
  if (vy)
    y.push_back(staticDim(1));
  Dims batch = broadcast(Dims(x.begin(), x.end() - 2), Dims(y.begin(), y.end() - 2));
  Dims out = batch;
  if (!vx)
    out.push_back(x[x.size() - 2]);
  if (!vy)
    out.push_back(y.back());
  return one(like(a, out));
}

std::vector<TensorMeta> addmm(const Ctx &c) {
  const TensorMeta &a = c.tensor("mat1"), &b = c.tensor("mat2");
  return one(like(a, {a.sizes.at(0), b.sizes.at(1)}));
}

int64_t pairAt(const std::optional<std::vector<int64_t>> &v, size_t i, int64_t dflt) {
  if (!v || v->empty())
    return dflt;
  return v->size() == 1 ? (*v)[0] : (*v).at(i);
}

/// in + 2 * pad - dil * (k - 1) - 1, the last start position of a sliding
/// window (convolution, pooling) before dividing by the stride. Refuses what
/// PyTorch refuses (a stride, dilation or kernel below 1, negative padding)
/// and sizes beyond int64, rather than dividing by zero or overflowing.
int64_t windowSpan(int64_t in, int64_t pad, int64_t dil, int64_t k, int64_t stride,
                   const char *op) {
  if (stride < 1 || dil < 1 || k < 1 || pad < 0)
    fail(std::string(op) + ": stride, dilation and kernel must be positive and padding "
                           "non-negative");
  int64_t twoPad, padded, reach, span;
  if (__builtin_mul_overflow(pad, 2, &twoPad) || __builtin_add_overflow(in, twoPad, &padded) ||
      __builtin_mul_overflow(dil, k - 1, &reach) || __builtin_sub_overflow(padded, reach, &span))
    fail(std::string(op) + ": sizes beyond int64");
  return span - 1;
}

std::vector<TensorMeta> conv(const Ctx &c) {
  const TensorMeta &x = c.tensor("input"), &w = c.tensor("weight");
  if (c.getBool("transposed", false))
    fail("transposed convolution is not supported");
  if (x.sizes.size() != 4 || w.sizes.size() != 4)
    fail("only 2-D convolution of NCHW tensors is supported");
  auto stride = c.getInts("stride"), pad = c.getInts("padding"), dil = c.getInts("dilation");
  Dims out = {x.sizes[0], w.sizes[0]};
  for (size_t i = 0; i < 2; ++i) {
    int64_t in = need(x.sizes[2 + i], "convolution over a dimension"),
            k = need(w.sizes[2 + i], "kernel");
    int64_t st = pairAt(stride, i, 1);
    int64_t o = windowSpan(in, pairAt(pad, i, 0), pairAt(dil, i, 1), k, st, "convolution") / st + 1;
    out.push_back(staticDim(o));
  }
  return one(like(x, out));
}

std::vector<TensorMeta> pool(const Ctx &c, bool withDilation) {
  const TensorMeta &x = c.tensor("self");
  if (x.sizes.size() != 4)
    fail("only 2-D pooling of NCHW tensors is supported");
  auto k = c.getInts("kernel_size"), s = c.getInts("stride"), p = c.getInts("padding"),
       d = withDilation ? c.getInts("dilation") : std::nullopt;
  bool ceil = c.getBool("ceil_mode", false);
  Dims out = {x.sizes[0], x.sizes[1]};
  for (size_t i = 0; i < 2; ++i) {
    int64_t in = need(x.sizes[2 + i], "pooling over a dimension");
    int64_t kk = pairAt(k, i, 1), ss = pairAt(s, i, kk), pp = pairAt(p, i, 0),
            dd = pairAt(d, i, 1);
    int64_t span = windowSpan(in, pp, dd, kk, ss, "pooling"), rounded = span;
    if (ceil && __builtin_add_overflow(span, ss - 1, &rounded))
      fail("pooling: sizes beyond int64");
    int64_t o = rounded / ss + 1;
    if (ceil && (o - 1) * ss >= in + pp)
      --o;
    out.push_back(staticDim(o));
  }
  return one(like(x, out));
}

std::vector<TensorMeta> adaptivePool(const Ctx &c) {
  const TensorMeta &x = c.tensor("self");
  auto o = c.getInts("output_size");
  if (!o || x.sizes.size() < 2)
    fail("adaptive_avg_pool2d needs an output_size and a tensor of rank >= 2");
  Dims out(x.sizes.begin(), x.sizes.end() - 2);
  for (size_t i = 0; i < 2; ++i)
    out.push_back(staticDim(pairAt(o, i, 1)));
  return one(like(x, out));
}

std::vector<TensorMeta> transpose(const Ctx &c, bool isT) {
  const TensorMeta &x = c.tensor("self");
  Dims out = x.sizes;
  if (isT) {
    if (out.size() == 2)
      std::swap(out[0], out[1]);
    return one(like(x, out));
  }
  int64_t a = normDim(c.getInt("dim0", 0), out.size()), b = normDim(c.getInt("dim1", 0), out.size());
  std::swap(out[a], out[b]);
  return one(like(x, out));
}

std::vector<TensorMeta> permute(const Ctx &c) {
  const TensorMeta &x = c.tensor("self");
  auto dims = c.getInts("dims");
  if (!dims || dims->size() != x.sizes.size())
    fail("permute needs one dimension per input dimension");
  Dims out;
  for (int64_t d : *dims)
    out.push_back(x.sizes[normDim(d, x.sizes.size())]);
  return one(like(x, out));
}

std::vector<TensorMeta> reshape(const Ctx &c, const char *name) {
  const TensorMeta &x = c.tensor("self");
  auto shape = c.getInts(name);
  if (!shape)
    fail("reshape needs a list of sizes");
  int64_t known = 1;
  std::string sym;
  for (const SymDim &d : x.sizes) {
    if (d.isStatic())
      known = mulSizes(known, *d.value);
    else if (sym.empty())
      sym = d.expr;
    else
      fail("reshape of a tensor with more than one symbolic size is not supported");
  }
  int64_t outKnown = 1;
  int inferred = -1;
  for (size_t i = 0; i < shape->size(); ++i) {
    if ((*shape)[i] == -1)
      inferred = static_cast<int>(i);
    else
      outKnown = mulSizes(outKnown, (*shape)[i]);
  }
  Dims out;
  for (int64_t v : *shape)
    out.push_back(staticDim(v));
  if (inferred >= 0) {
    if (outKnown == 0 || known % outKnown != 0)
      fail("reshape sizes do not divide the number of elements");
    int64_t k = known / outKnown;
    if (sym.empty())
      out[inferred] = staticDim(k);
    else
      out[inferred] = SymDim{std::nullopt, k == 1 ? sym : std::to_string(k) + "*" + sym, 0};
  } else if (!sym.empty()) {
    fail("reshape of a symbolic size to fixed sizes");
  } else if (outKnown != known) {
    fail("reshape to " + std::to_string(outKnown) + " elements from " + std::to_string(known));
  }
  return one(like(x, out));
}

std::vector<TensorMeta> flatten(const Ctx &c) {
  const TensorMeta &x = c.tensor("self");
  if (x.sizes.empty())
    return one(like(x, {staticDim(1)}));
  int64_t s = normDim(c.getInt("start_dim", 0), x.sizes.size()),
          e = normDim(c.getInt("end_dim", -1), x.sizes.size());
  Dims out(x.sizes.begin(), x.sizes.begin() + s);
  int64_t prod = 1;
  std::string sym;
  for (int64_t i = s; i <= e; ++i) {
    if (x.sizes[i].isStatic())
      prod = mulSizes(prod, *x.sizes[i].value);
    else if (sym.empty())
      sym = x.sizes[i].expr;
    else
      fail("flatten of two symbolic sizes is not supported");
  }
  out.push_back(sym.empty() ? staticDim(prod)
                            : SymDim{std::nullopt, prod == 1 ? sym : std::to_string(prod) + "*" + sym, 0});
  out.insert(out.end(), x.sizes.begin() + e + 1, x.sizes.end());
  return one(like(x, out));
}

std::vector<TensorMeta> unsqueeze(const Ctx &c) {
  const TensorMeta &x = c.tensor("self");
  Dims out = x.sizes;
  int64_t d = c.getInt("dim", 0);
  int64_t r = static_cast<int64_t>(out.size()) + 1;
  if (d < 0)
    d += r;
  if (d < 0 || d >= r)
    fail("unsqueeze dimension out of range");
  out.insert(out.begin() + d, staticDim(1));
  return one(like(x, out));
}

std::vector<TensorMeta> squeeze(const Ctx &c, bool all) {
  const TensorMeta &x = c.tensor("self");
  Dims out;
  int64_t d = all ? -1 : normDim(c.getInt("dim", 0), x.sizes.size());
  for (size_t i = 0; i < x.sizes.size(); ++i) {
    bool one1 = x.sizes[i].isStatic() && *x.sizes[i].value == 1;
    if (one1 && (all || static_cast<int64_t>(i) == d))
      continue;
    out.push_back(x.sizes[i]);
  }
  return one(like(x, out));
}

std::vector<TensorMeta> select(const Ctx &c) {
  const TensorMeta &x = c.tensor("self");
  Dims out = x.sizes;
  out.erase(out.begin() + normDim(c.getInt("dim", 0), out.size()));
  return one(like(x, out));
}

std::vector<TensorMeta> slice(const Ctx &c) {
  const TensorMeta &x = c.tensor("self");
  Dims out = x.sizes;
  int64_t d = normDim(c.getInt("dim", 0), out.size());
  int64_t size = need(out[d], "slice of a dimension");
  int64_t start = c.getInt("start", 0), end = c.getInt("end", size), step = c.getInt("step", 1);
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  if (step < 1)
    fail("slice step must be positive");
  out[d] = staticDim((end - start) / step + ((end - start) % step != 0));
  return one(like(x, out));
}

std::vector<TensorMeta> cat(const Ctx &c) {
  const Argument *a = c.arg("tensors");
  if (!a || a->kind != Argument::Tensors || a->tensors.empty())
    fail("cat needs a non-empty list of tensors");
  const TensorMeta &first = c.meta(a->tensors[0]);
  int64_t d = normDim(c.getInt("dim", 0), first.sizes.size());
  Dims out = first.sizes;
  int64_t total = 0;
  for (const std::string &t : a->tensors)
    total = addSizes(total, need(c.meta(t).sizes.at(d), "cat along a dimension"));
  out[d] = staticDim(total);
  return one(like(first, out));
}

/// The most tensors one chunk or split may produce.
constexpr int64_t kMaxSplitOutputs = 1 << 16;

std::vector<TensorMeta> split(const Ctx &c, bool isChunk) {
  const TensorMeta &x = c.tensor("self");
  int64_t d = normDim(c.getInt("dim", 0), x.sizes.size());
  int64_t size = need(x.sizes[d], "chunk of a dimension");
  int64_t chunks = isChunk ? c.getInt("chunks", 1) : 1;
  if (chunks < 1)
    fail("chunk count must be positive");
  // ceil(size / chunks), without size + chunks - 1 overflowing.
  int64_t each = isChunk ? size / chunks + (size % chunks != 0) : c.getInt("split_size", size);
  if (each <= 0)
    fail("split size must be positive");
  // One output per piece: a split into millions of tensors (a split size of
  // 1 over a huge dimension) is refused rather than built.
  if (size / each > kMaxSplitOutputs)
    fail("split of a dimension of size " + std::to_string(size) + " into pieces of " +
         std::to_string(each) + " gives more than " + std::to_string(kMaxSplitOutputs) +
         " tensors");
  std::vector<TensorMeta> outs;
  for (int64_t start = 0; start < size; start = each < size - start ? start + each : size) {
    Dims o = x.sizes;
    o[d] = staticDim(std::min(each, size - start));
    outs.push_back(like(x, o));
  }
  return outs;
}

std::vector<TensorMeta> reduce(const Ctx &c, bool withDims) {
  const TensorMeta &x = c.tensor("self");
  if (!withDims)
    return one(like(x, {}));
  auto dims = c.getInts("dim");
  bool keep = c.getBool("keepdim", false);
  std::vector<bool> reduced(x.sizes.size(), !dims || dims->empty());
  if (dims)
    for (int64_t d : *dims)
      reduced[normDim(d, x.sizes.size())] = true;
  Dims out;
  for (size_t i = 0; i < x.sizes.size(); ++i)
    if (!reduced[i])
      out.push_back(x.sizes[i]);
    else if (keep)
      out.push_back(staticDim(1));
  return one(like(x, out));
}

using Rule = std::vector<TensorMeta> (*)(const Ctx &);
const std::map<std::string, Rule> &rules() {
  static const std::map<std::string, Rule> r = {
      {"linear.default", linear},
      {"matmul.default", [](const Ctx &c) { return matmulLike(c, "self", "other"); }},
      {"mm.default", [](const Ctx &c) { return matmulLike(c, "self", "mat2"); }},
      {"bmm.default", [](const Ctx &c) { return matmulLike(c, "self", "mat2"); }},
      {"addmm.default", addmm},
      {"convolution.default", conv},
      {"conv2d.default", conv},
      {"batch_norm.default", [](const Ctx &c) { return sameAs(c, "input"); }},
      {"layer_norm.default", [](const Ctx &c) { return sameAs(c, "input"); }},
      {"dropout.default", [](const Ctx &c) { return sameAs(c, "input"); }},
      {"max_pool2d.default", [](const Ctx &c) { return pool(c, true); }},
      {"avg_pool2d.default", [](const Ctx &c) { return pool(c, false); }},
      {"adaptive_avg_pool2d.default", adaptivePool},
      {"softmax.int", [](const Ctx &c) { return sameAs(c, "self"); }},
      {"add.Tensor", binary},
      {"sub.Tensor", binary},
      {"mul.Tensor", binary},
      {"div.Tensor", binary},
      {"div.Tensor_mode", binary},
      {"maximum.default", binary},
      {"sum.default", [](const Ctx &c) { return reduce(c, false); }},
      {"mean.default", [](const Ctx &c) { return reduce(c, false); }},
      {"sum.dim_IntList", [](const Ctx &c) { return reduce(c, true); }},
      {"mean.dim", [](const Ctx &c) { return reduce(c, true); }},
      {"t.default", [](const Ctx &c) { return transpose(c, true); }},
      {"transpose.int", [](const Ctx &c) { return transpose(c, false); }},
      {"permute.default", permute},
      {"view.default", [](const Ctx &c) { return reshape(c, "size"); }},
      {"reshape.default", [](const Ctx &c) { return reshape(c, "shape"); }},
      {"flatten.using_ints", flatten},
      {"unsqueeze.default", unsqueeze},
      {"squeeze.dim", [](const Ctx &c) { return squeeze(c, false); }},
      {"squeeze.default", [](const Ctx &c) { return squeeze(c, true); }},
      {"select.int", select},
      {"slice.Tensor", slice},
      {"cat.default", cat},
      {"chunk.default", [](const Ctx &c) { return split(c, true); }},
      {"split.Tensor", [](const Ctx &c) { return split(c, false); }},
  };
  return r;
}
} // namespace

std::vector<TensorMeta> torchscript::inferShapes(const Node &node, const MetaLookup &meta) {
  static const std::string prefix = "torch.ops.aten.";
  std::string op = node.target.substr(0, prefix.size()) == prefix
                       ? node.target.substr(prefix.size())
                       : node.target;
  auto it = rules().find(op);
  if (it != rules().end())
    return it->second(Ctx{node, meta});
  for (const char *unary : {"relu.default", "sin.default", "cos.default", "exp.default",
                            "sqrt.default", "rsqrt.default", "neg.default",
                            "contiguous.default", "clone.default", "detach.default"})
    if (op == unary)
      return sameAs(Ctx{node, meta}, "self");
  fail("no shape rule for '" + node.target + "'");
}
