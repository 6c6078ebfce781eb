//===- ConstantEvaluator.cpp - tcc_graph values computed at compile time --===//
#include "dialects/TccGraph/Transforms/ConstantEvaluator.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"

#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace tcc::graph;

bool KnownTensor::isFloat() const { return isa<FloatType>(elementType); }

int64_t KnownTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

namespace {

/// Deeper chains than this are not followed (a value computed from the
/// whole model is no constant; the recursion must not run out of stack).
constexpr int kMaxDepth = 256;

/// `x` as the element type `t` stores it: integers wrap to their width
/// (i1 is x != 0), floats round to their format.
int64_t roundInt(Type t, int64_t x) {
  unsigned width = t.getIntOrFloatBitWidth();
  if (width == 1)
    return x != 0;
  if (width >= 64)
    return x;
  return llvm::APInt(64, static_cast<uint64_t>(x)).trunc(width).getSExtValue();
}

double roundFloat(Type t, double x) {
  if (t.isF64())
    return x;
  llvm::APFloat f(x);
  bool lost = false;
  f.convert(cast<FloatType>(t).getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return f.convertToDouble();
}

std::optional<std::vector<int64_t>> staticShape(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  return std::vector<int64_t>(type.getShape().begin(), type.getShape().end());
}

/// Row-major strides of `shape`.
std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Calls `visit(flat result index, flat index into each operand)` for every
/// element of `shape`, the operands broadcast to it (NumPy rules: aligned on
/// the trailing dims, size 1 stretched).
void forEachBroadcast(const std::vector<int64_t> &shape,
                      const std::vector<const KnownTensor *> &operands,
                      const std::function<void(int64_t, const std::vector<int64_t> &)> &visit) {
  size_t rank = shape.size();
  // Per operand, the stride of each result dim (0 where broadcast).
  std::vector<std::vector<int64_t>> strides;
  for (const KnownTensor *x : operands) {
    std::vector<int64_t> own = stridesOf(x->shape), s(rank, 0);
    size_t lead = rank - x->shape.size();
    for (size_t d = 0; d < x->shape.size(); ++d)
      s[lead + d] = x->shape[d] == 1 ? 0 : own[d];
    strides.push_back(std::move(s));
  }
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<int64_t> index(rank, 0), at(operands.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    visit(i, at);
    for (int64_t d = static_cast<int64_t>(rank) - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) {
        for (size_t k = 0; k < operands.size(); ++k)
          at[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < operands.size(); ++k)
        at[k] -= strides[k][d] * (shape[d] - 1);
      index[d] = 0;
    }
  }
}

KnownTensor like(const std::vector<int64_t> &shape, Type elementType) {
  KnownTensor r;
  r.shape = shape;
  r.elementType = elementType;
  if (r.isFloat())
    r.floats.resize(r.numElements());
  else
    r.ints.resize(r.numElements());
  return r;
}

/// Element `from` of `x` as element `to` of `r` (same element kind).
void copyElement(KnownTensor &r, int64_t to, const KnownTensor &x, int64_t from) {
  if (r.isFloat())
    r.floats[to] = x.floats[from];
  else
    r.ints[to] = x.ints[from];
}

/// An index into a dim of `size` (negative counts from the end), or nothing
/// when out of range.
std::optional<int64_t> wrapIndex(int64_t k, int64_t size) {
  if (k < 0)
    k += size;
  if (k < 0 || k >= size)
    return std::nullopt;
  return k;
}

/// The tensor of `shape` whose element at (.., k, ..), k its index along
/// `dim` and i its flat index, is x's at (.., pick(i, k), ..); nothing where
/// `pick` gives nothing (an index out of range).
std::optional<KnownTensor>
pickAlong(const KnownTensor &x, const std::vector<int64_t> &shape, Type elementType, int64_t dim,
          llvm::function_ref<std::optional<int64_t>(int64_t, int64_t)> pick) {
  std::vector<int64_t> inStrides = stridesOf(x.shape), outStrides = stridesOf(shape);
  KnownTensor r = like(shape, elementType);
  for (int64_t i = 0, n = r.numElements(); i < n; ++i) {
    int64_t at = 0, rest = i;
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t k = rest / outStrides[d];
      rest %= outStrides[d];
      if (static_cast<int64_t>(d) == dim) {
        std::optional<int64_t> picked = pick(i, k);
        if (!picked)
          return std::nullopt;
        k = *picked;
      }
      at += k * inStrides[d];
    }
    copyElement(r, i, x, at);
  }
  return r;
}

std::optional<KnownTensor> fromAttr(ElementsAttr attr, const std::vector<int64_t> &shape) {
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  KnownTensor r = like(shape, dense.getElementType());
  if (r.isFloat()) {
    int64_t i = 0;
    for (llvm::APFloat f : dense.getValues<llvm::APFloat>()) {
      bool lost = false;
      f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &lost);
      r.floats[i++] = f.convertToDouble();
    }
  } else {
    bool isBool = r.elementType.isInteger(1);
    int64_t i = 0;
    for (const llvm::APInt &v : dense.getValues<llvm::APInt>())
      r.ints[i++] = isBool ? static_cast<int64_t>(v.getZExtValue()) : v.getSExtValue();
  }
  return r;
}

/// Elementwise over broadcast operands; `f` gets and returns doubles for
/// float operands, int64 for integer ones.
template <typename IntFn, typename FloatFn>
std::optional<KnownTensor> elementwise(const std::vector<int64_t> &shape, Type resultType,
                                       const std::vector<const KnownTensor *> &xs, IntFn intFn,
                                       FloatFn floatFn) {
  KnownTensor r = like(shape, resultType);
  bool floatIn = xs.front()->isFloat();
  forEachBroadcast(shape, xs, [&](int64_t i, const std::vector<int64_t> &at) {
    if (floatIn) {
      double a = xs[0]->floats[at[0]], b = xs.size() > 1 ? xs[1]->floats[at[1]] : 0.0;
      double y = floatFn(a, b);
      if (r.isFloat())
        r.floats[i] = roundFloat(resultType, y);
      else
        r.ints[i] = static_cast<int64_t>(y);
    } else {
      int64_t a = xs[0]->ints[at[0]], b = xs.size() > 1 ? xs[1]->ints[at[1]] : 0;
      r.ints[i] = roundInt(resultType, intFn(a, b));
    }
  });
  return r;
}

std::optional<bool> comparison(StringRef predicate, double a, double b) {
  if (predicate == "eq") return a == b;
  if (predicate == "ne") return a != b;
  if (predicate == "lt") return a < b;
  if (predicate == "le") return a <= b;
  if (predicate == "gt") return a > b;
  if (predicate == "ge") return a >= b;
  return std::nullopt;
}

} // namespace

const KnownTensor *ConstantEvaluator::evaluate(Value v) {
  if (auto it = known.find(v); it != known.end())
    return it->second.get();
  if (depth >= kMaxDepth)
    return nullptr;
  ++depth;
  std::optional<KnownTensor> r = compute(v);
  --depth;
  std::unique_ptr<KnownTensor> &slot = known[v];
  if (r && r->numElements() <= kMaxElements)
    slot = std::make_unique<KnownTensor>(std::move(*r));
  return slot.get();
}

std::optional<KnownTensor> ConstantEvaluator::compute(Value v) {
  Operation *op = v.getDefiningOp();
  std::optional<std::vector<int64_t>> shape = staticShape(v);
  if (!op || !shape)
    return std::nullopt;
  int64_t count = 1;
  for (int64_t d : *shape)
    count *= d;
  if (count > kMaxElements)
    return std::nullopt;
  Type elementType = cast<RankedTensorType>(v.getType()).getElementType();
  // The operands' values, all known, else nothing.
  std::vector<const KnownTensor *> xs;
  for (Value operand : op->getOperands()) {
    const KnownTensor *x = evaluate(operand);
    if (!x)
      return std::nullopt;
    xs.push_back(x);
  }
  using R = std::optional<KnownTensor>;
  auto binary = [&](auto intFn, auto floatFn) -> R {
    if (xs.size() != 2 || xs[0]->isFloat() != xs[1]->isFloat())
      return std::nullopt;
    return elementwise(*shape, elementType, xs, intFn, floatFn);
  };
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case([&](ConstantOp c) { return fromAttr(c.getValue(), *shape); })
      .Case([&](IotaOp iota) -> R {
        KnownTensor r = like(*shape, elementType);
        double start = iota.getStart().convertToDouble(), step = iota.getStep().convertToDouble();
        for (int64_t i = 0; i < count; ++i) {
          if (r.isFloat())
            r.floats[i] = roundFloat(elementType, start + static_cast<double>(i) * step);
          else
            r.ints[i] = roundInt(elementType, static_cast<int64_t>(start) +
                                                  i * static_cast<int64_t>(step));
        }
        return r;
      })
      .Case([&](AddOp) { return binary([](int64_t a, int64_t b) { return a + b; },
                                       [](double a, double b) { return a + b; }); })
      .Case([&](SubOp) { return binary([](int64_t a, int64_t b) { return a - b; },
                                       [](double a, double b) { return a - b; }); })
      .Case([&](MulOp) { return binary([](int64_t a, int64_t b) { return a * b; },
                                       [](double a, double b) { return a * b; }); })
      .Case([&](MaximumOp) { return binary([](int64_t a, int64_t b) { return std::max(a, b); },
                                           [](double a, double b) {
                                             return std::isnan(a) || std::isnan(b) ? NAN
                                                                                   : std::max(a, b);
                                           }); })
      .Case([&](MinimumOp) { return binary([](int64_t a, int64_t b) { return std::min(a, b); },
                                           [](double a, double b) {
                                             return std::isnan(a) || std::isnan(b) ? NAN
                                                                                   : std::min(a, b);
                                           }); })
      .Case([&](BitwiseAndOp) -> R {
        if (xs[0]->isFloat())
          return std::nullopt;
        return binary([](int64_t a, int64_t b) { return a & b; },
                      [](double, double) { return 0.0; });
      })
      .Case([&](BitwiseOrOp) -> R {
        if (xs[0]->isFloat())
          return std::nullopt;
        return binary([](int64_t a, int64_t b) { return a | b; },
                      [](double, double) { return 0.0; });
      })
      .Case([&](NegOp) -> R {
        return elementwise(*shape, elementType, xs, [](int64_t a, int64_t) { return -a; },
                           [](double a, double) { return -a; });
      })
      .Case([&](CompareOp c) -> R {
        StringRef p = c.getPredicate();
        if (!comparison(p, 0, 0) || xs[0]->isFloat() != xs[1]->isFloat())
          return std::nullopt;
        return elementwise(
            *shape, elementType, xs,
            [&](int64_t a, int64_t b) -> int64_t {
              if (p == "eq") return a == b;
              if (p == "ne") return a != b;
              if (p == "lt") return a < b;
              if (p == "le") return a <= b;
              if (p == "gt") return a > b;
              return a >= b;
            },
            [&](double a, double b) { return *comparison(p, a, b) ? 1.0 : 0.0; });
      })
      .Case([&](SelectOp) -> R {
        if (xs[0]->isFloat() || xs[1]->isFloat() != xs[2]->isFloat())
          return std::nullopt;
        KnownTensor r = like(*shape, elementType);
        forEachBroadcast(*shape, xs, [&](int64_t i, const std::vector<int64_t> &at) {
          size_t k = xs[0]->ints[at[0]] ? 1 : 2;
          copyElement(r, i, *xs[k], at[k]);
        });
        return r;
      })
      .Case([&](CastOp) -> R {
        const KnownTensor &x = *xs[0];
        KnownTensor r = like(*shape, elementType);
        for (int64_t i = 0; i < count; ++i) {
          if (x.isFloat() && r.isFloat()) {
            r.floats[i] = roundFloat(elementType, x.floats[i]);
          } else if (x.isFloat()) {
            double f = x.floats[i];
            if (elementType.isInteger(1)) {
              r.ints[i] = f != 0.0;
              continue;
            }
            // Out of range or NaN: PyTorch's result is unspecified; not folded.
            if (!std::isfinite(f) || std::fabs(f) >= 9.2e18)
              return std::nullopt;
            r.ints[i] = roundInt(elementType, static_cast<int64_t>(std::trunc(f)));
          } else if (r.isFloat()) {
            r.floats[i] = roundFloat(elementType, static_cast<double>(x.ints[i]));
          } else {
            r.ints[i] = roundInt(elementType, x.ints[i]);
          }
        }
        return r;
      })
      .Case([&](ReshapeOp) -> R {
        KnownTensor r = *xs[0];
        r.shape = *shape;
        return r;
      })
      .Case([&](BroadcastOp) -> R {
        return elementwise(*shape, elementType, xs, [](int64_t a, int64_t) { return a; },
                           [](double a, double) { return a; });
      })
      .Case([&](TransposeOp t) -> R {
        const KnownTensor &x = *xs[0];
        ArrayRef<int64_t> perm = t.getPermutation();
        std::vector<int64_t> inStrides = stridesOf(x.shape), permuted(perm.size());
        for (size_t d = 0; d < perm.size(); ++d)
          permuted[d] = inStrides[perm[d]];
        KnownTensor r = like(*shape, elementType);
        // Walk the result in order; the source index advances by the permuted strides.
        std::vector<int64_t> index(shape->size(), 0);
        int64_t at = 0;
        for (int64_t i = 0; i < count; ++i) {
          copyElement(r, i, x, at);
          for (int64_t d = static_cast<int64_t>(shape->size()) - 1; d >= 0; --d) {
            if (++index[d] < (*shape)[d]) {
              at += permuted[d];
              break;
            }
            at -= permuted[d] * ((*shape)[d] - 1);
            index[d] = 0;
          }
        }
        return r;
      })
      .Case([&](SliceOp s) -> R {
        if (!s.getDynamicSizes().empty())
          return std::nullopt;
        int64_t start = s.getStart(), step = s.getStep();
        return pickAlong(*xs[0], *shape, elementType, s.getDim(),
                         [&](int64_t, int64_t k) -> std::optional<int64_t> {
                           return start + k * step;
                         });
      })
      .Case([&](ConcatOp c) -> R {
        int64_t dim = c.getDim();
        // Rows of the concatenated dim and everything after it, per input.
        int64_t outer = 1;
        for (int64_t d = 0; d < dim; ++d)
          outer *= (*shape)[d];
        KnownTensor r = like(*shape, elementType);
        int64_t out = 0;
        for (int64_t o = 0; o < outer; ++o)
          for (const KnownTensor *x : xs) {
            int64_t block = x->numElements() / std::max<int64_t>(outer, 1);
            for (int64_t k = 0; k < block; ++k, ++out) {
              copyElement(r, out, *x, o * block + k);
            }
          }
        return r;
      })
      .Case([&](TakeOp t) -> R {
        const KnownTensor &x = *xs[0], &idx = *xs[1];
        int64_t dim = t.getDim(), size = x.shape[dim];
        int64_t outer = 1, inner = 1;
        for (int64_t d = 0; d < dim; ++d)
          outer *= x.shape[d];
        for (size_t d = dim + 1; d < x.shape.size(); ++d)
          inner *= x.shape[d];
        int64_t n = idx.numElements();
        KnownTensor r = like(*shape, elementType);
        int64_t out = 0;
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t j = 0; j < n; ++j) {
            std::optional<int64_t> k = wrapIndex(idx.ints[j], size);
            if (!k)
              return std::nullopt;
            for (int64_t in = 0; in < inner; ++in, ++out) {
              int64_t at = (o * size + *k) * inner + in;
              copyElement(r, out, x, at);
            }
          }
        return r;
      })
      .Case([&](GatherOp g) -> R {
        const KnownTensor &x = *xs[0], &idx = *xs[1];
        int64_t dim = g.getDim();
        return pickAlong(x, *shape, elementType, dim, [&](int64_t i, int64_t) {
          return wrapIndex(idx.ints[i], x.shape[dim]);
        });
      })
      .Case([&](CumsumOp c) -> R {
        // Integers only: a float sum's rounding order is the kernel's own.
        const KnownTensor &x = *xs[0];
        if (x.isFloat())
          return std::nullopt;
        int64_t dim = c.getDim();
        int64_t stride = stridesOf(*shape)[dim], size = (*shape)[dim];
        KnownTensor r = x;
        for (int64_t i = 0; i < count; ++i)
          if ((i / stride) % size != 0)
            r.ints[i] = roundInt(elementType, r.ints[i - stride] + x.ints[i]);
        return r;
      })
      .Default([](Operation *) -> R { return std::nullopt; });
}
