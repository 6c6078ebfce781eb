//===- LegalizeFFT.cpp - the torch.fft family as products with DFT matrices ===//
//
// A discrete Fourier transform along one dimension of length n is a product
// with an n x m matrix of twiddle factors e^(∓2πi·jk/n). The matrices are
// computed in the graph in f64, their angles from the exact integer
// remainder (j·k) mod n, and the products run in f64 (the result rounded to
// the result's type once): f32 accumulation would miss PyTorch's answers by
// more than 1e-5 where they are near zero. The matrix has n·m entries, so the
// transform lengths are limited (kMaxTransformEntries); longer ones are refused.
//
// A complex value is carried here as its real and imaginary parts, two f64
// tensors of one shape (a null imaginary part is zero); complex operands and
// results are in the (re, im) form of a last dim of 2 (LegalizeComplex.cpp).
// fft/ifft take real or complex inputs, rfft/ihfft real ones, irfft/hfft give
// real results; each in its 1-D, 2-D and n-D forms. stft frames a real
// signal with one gather and transforms the frames the same way.
//
// PyTorch's conventions (aten/src/ATen/native/SpectralOps.cpp):
//   forward  X[k] = Σ_j x[j] e^(-2πi jk/n),  inverse x[j] = Σ_k X[k] e^(+2πi jk/n)
//   norm "backward" (default): forward ×1, inverse ×1/n; "forward": the other
//   way round; "ortho": both ×1/√n.
//   c2r (irfft): the input's first n/2+1 entries along the last transformed
//   dim, Hermitian-extended; the imaginary parts of the zero-frequency and
//   (n even) Nyquist entries are ignored. hfft is c2r of the conjugate, with
//   the forward norm; the n-D forms do c2c over the leading dims first.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/ComplexLegalizers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// The largest twiddle matrix (entries) a transform may use: a 1024-point
/// complex transform.
constexpr int64_t kMaxTransformEntries = 1024 * 1024;

/// The longest symbolic transform length: its matrix, sized by the length's
/// largest value, then stays within kMaxTransformEntries.
constexpr int64_t kMaxSymbolicLength = 1024;

/// A transform length: static, or symbolic with its size read at run time,
/// as an index (for shapes) and as a rank-0 i64 tensor (for the angles and
/// the norm; null where unused).
struct Length {
  int64_t size = 0;
  Value index, count;
  bool symbolic() const { return ShapedType::isDynamic(size); }
};

/// The length of dim `d` of `x`.
Length lengthOf(OpBuilder &b, Location loc, Value x, int64_t d) {
  int64_t size = typeOf(x).getShape()[d];
  if (!ShapedType::isDynamic(size))
    return {size, {}, {}};
  Value index = dimIndex(b, loc, x, d);
  Value count = sizeTensor(b, loc, x, d);
  return {size, index, count};
}

/// `n` as a rank-0 i64 tensor.
Value countOf(OpBuilder &b, Location loc, const Length &n) {
  return n.symbolic() ? n.count : makeScalar(b, loc, b.getI64Type(), static_cast<double>(n.size));
}

/// The n/2+1 frequencies of a one-sided transform of `n` points.
Length oneSidedLength(OpBuilder &b, Location loc, const Length &n) {
  if (!n.symbolic())
    return {n.size / 2 + 1, {}, {}};
  Value two = b.create<arith::ConstantIndexOp>(loc, 2);
  Value half = b.create<arith::DivUIOp>(loc, n.index, two);
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  Value index = b.create<arith::AddIOp>(loc, half, one);
  return {ShapedType::kDynamic, index, {}};
}

/// A norm's scale: a constant times, where a length is symbolic, a factor
/// computed at run time (a rank-0 f64 tensor; null for none).
struct Scale {
  double constant = 1.0;
  Value runtime;
};

/// The operator's norm, one of "backward" (the default), "forward", "ortho".
FailureOr<StringRef> normOf(OperatorArgs &args) {
  StringRef norm = "backward";
  if (auto s = dyn_cast_or_null<StringAttr>(args.getOp().getArgs().get("norm")))
    norm = s.getValue();
  if (norm == "backward" || norm == "forward" || norm == "ortho")
    return norm;
  return operatorError(args) << "norm '" << norm
                             << "' is none of \"backward\", \"forward\", \"ortho\"";
}

/// The scale a transform of `n` points gets under `norm` (forward or
/// inverse): 1/n for the scaled direction, 1/√n for both under "ortho".
Scale normScale(OpBuilder &b, Location loc, StringRef norm, const Length &n, bool forward) {
  bool unscaled = norm == "backward" ? forward : norm == "forward" ? !forward : false;
  if (unscaled)
    return {};
  bool ortho = norm == "ortho";
  if (!n.symbolic()) {
    double size = static_cast<double>(n.size);
    return {ortho ? 1.0 / std::sqrt(size) : 1.0 / size, {}};
  }
  Type f64 = b.getF64Type();
  Value size = makeCast(b, loc, n.count, f64);
  if (ortho)
    size = b.create<SqrtOp>(loc, size);
  Value one = makeScalar(b, loc, f64, 1.0);
  return {1.0, makeBinary<DivOp>(b, loc, one, size)};
}

/// The product of the per-dim scales of `lengths` under `norm`.
Scale totalScale(OpBuilder &b, Location loc, StringRef norm, ArrayRef<Length> lengths,
                 bool forward) {
  Scale total;
  for (const Length &n : lengths) {
    Scale s = normScale(b, loc, norm, n, forward);
    total.constant *= s.constant;
    if (s.runtime)
      total.runtime = total.runtime ? makeBinary<MulOp>(b, loc, total.runtime, s.runtime) : s.runtime;
  }
  return total;
}

/// The angle step 2π/n: a constant, or computed at run time for a symbolic
/// n (the same correctly rounded division).
Value angleStep(OpBuilder &b, Location loc, const Length &n, Value period) {
  Type f64 = b.getF64Type();
  if (!n.symbolic())
    return makeScalar(b, loc, f64, 2.0 * M_PI / static_cast<double>(n.size));
  Value turn = makeScalar(b, loc, f64, 2.0 * M_PI);
  Value size = makeCast(b, loc, period, f64);
  return makeBinary<DivOp>(b, loc, turn, size);
}

/// The twiddle factors' cosines and sines, f64 [rows, cols]: entry (j, k)
/// at the angle 2π·((j·k) mod n)/n, its remainder exact in integers. They
/// are computed in the graph, not read from a constant table: the CUDA
/// path's kernels read no constants from host memory.
std::pair<Value, Value> twiddles(OpBuilder &b, Location loc, const Length &rows,
                                 const Length &cols, const Length &n) {
  Type i64 = b.getI64Type();
  Value j = makeIotaAt(b, loc, rows.size, i64, 2, 0, rows.index);
  Value k = makeIotaAt(b, loc, cols.size, i64, 2, 1, cols.index);
  Value jk = makeBinary<MulOp>(b, loc, j, k);
  Value period = countOf(b, loc, n);
  Value r = makeBinary<FmodOp>(b, loc, jk, period);
  Value rf = makeCast(b, loc, r, b.getF64Type());
  Value step = angleStep(b, loc, n, period);
  Value theta = makeBinary<MulOp>(b, loc, rf, step);
  Value cosine = b.create<CosOp>(loc, theta);
  Value sine = b.create<SinOp>(loc, theta);
  return {cosine, sine};
}

/// `m` times `sign` and the scale (itself where that is 1).
Value scaled(OpBuilder &b, Location loc, Value m, const Scale &scale, double sign = 1.0) {
  double factor = sign * scale.constant;
  if (factor != 1.0) {
    Value f = makeScalar(b, loc, b.getF64Type(), factor);
    m = makeBinary<MulOp>(b, loc, m, f);
  }
  if (scale.runtime)
    m = makeBinary<MulOp>(b, loc, m, scale.runtime);
  return m;
}

/// Everything about a transform the operator's shapes must allow, checked
/// before any op is built: no empty tensor, a matrix of at most
/// kMaxTransformEntries entries where both its sizes are static (a
/// symbolic length is bounded by boundSymbolicLength).
LogicalResult checkTransform(OperatorArgs &args, RankedTensorType type, int64_t rows,
                             int64_t cols) {
  if (!ShapedType::isDynamic(rows) && !ShapedType::isDynamic(cols) && (rows < 1 || cols < 1))
    return operatorError(args) << "invalid number of data points (" << std::min(rows, cols)
                               << ")";
  if (llvm::is_contained(type.getShape(), 0))
    return operatorError(args) << "transforms of empty tensors are not supported";
  if (ShapedType::isDynamic(rows) || ShapedType::isDynamic(cols))
    return success();
  if (rows * cols > kMaxTransformEntries)
    return operatorError(args) << "a transform of " << rows << " to " << cols
                               << " points needs a " << rows << "x" << cols
                               << " matrix; tcc computes transforms with at most "
                               << kMaxTransformEntries << " matrix entries";
  return success();
}

/// x (f64) times `matrix` [n, m] along `dim`: dim moves last, the rest
/// flattens into rows, and both move back after the product. Any size may
/// be symbolic: the reshapes take theirs at run time.
Value productAlong(OpBuilder &b, Location loc, Value x, int64_t dim, Value matrix) {
  RankedTensorType type = typeOf(x);
  int64_t rank = type.getRank();
  int64_t m = typeOf(matrix).getShape()[1];
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    if (i != dim)
      perm.push_back(i);
  perm.push_back(dim);
  SmallVector<int64_t> permuted;
  for (int64_t i : perm)
    permuted.push_back(type.getShape()[i]);
  Value moved = x;
  bool identity = dim == rank - 1;
  if (!identity)
    moved = b.create<TransposeOp>(loc, RankedTensorType::get(permuted, type.getElementType()), x,
                                  b.getDenseI64ArrayAttr(perm));
  int64_t n = permuted.back();
  SmallVector<int64_t> resultPermuted(permuted);
  resultPermuted.back() = m;
  // A reshape whose symbolic sizes (where more than one) are read at run
  // time: `size(i)` gives dim i's.
  auto reshape = [&](Value v, ArrayRef<int64_t> shape, function_ref<Value(int64_t)> size) {
    if (llvm::count_if(shape, ShapedType::isDynamic) <= 1)
      return makeReshape(b, loc, v, shape);
    SmallVector<Value> sizes;
    for (auto [i, s] : llvm::enumerate(shape))
      sizes.push_back(ShapedType::isDynamic(s) ? size(i) : Value());
    return makeReshape(b, loc, v, shape, sizes);
  };
  int64_t rows = 1;
  for (int64_t size : ArrayRef<int64_t>(permuted).drop_back())
    rows = ShapedType::isDynamic(size) || ShapedType::isDynamic(rows) ? ShapedType::kDynamic
                                                                      : rows * size;
  Value flat = reshape(moved, {rows, n}, [&](int64_t i) {
    return i == 0 ? dimProduct(b, loc, moved, 0, rank - 1) : dimIndex(b, loc, moved, rank - 1);
  });
  Value product = makeMatmul(b, loc, flat, matrix);
  product = reshape(product, resultPermuted, [&](int64_t i) {
    return i + 1 < rank ? dimIndex(b, loc, moved, i) : dimIndex(b, loc, matrix, 1);
  });
  if (identity)
    return product;
  SmallVector<int64_t> inverse(rank), shape(rank);
  for (int64_t i = 0; i < rank; ++i)
    inverse[perm[i]] = i;
  for (int64_t i = 0; i < rank; ++i)
    shape[i] = resultPermuted[inverse[i]];
  return b.create<TransposeOp>(loc, RankedTensorType::get(shape, type.getElementType()), product,
                               b.getDenseI64ArrayAttr(inverse));
}

/// Both parts trimmed or zero-padded at the end of `dim` to `size` (kept
/// where that is kDynamic: the input's own symbolic length).
ComplexParts resizeAlong(OpBuilder &b, Location loc, ComplexParts z, int64_t dim, int64_t size) {
  int64_t have = typeOf(z.re).getShape()[dim];
  if (have == size || ShapedType::isDynamic(size))
    return z;
  auto resize = [&](Value v) -> Value {
    if (!v)
      return v;
    if (ShapedType::isDynamic(have))
      return fitDimTo(b, loc, v, dim, size, Value(), 0.0);
    return padConstant(b, loc, v, dim, 0, size - have);
  };
  Value re = resize(z.re);
  Value im = resize(z.im);
  return {re, im};
}

/// re·A + im·B along `dim`, with B skipped where the imaginary part is zero.
Value combine(OpBuilder &b, Location loc, ComplexParts z, int64_t dim, Value a, Value bm) {
  Value fromRe = productAlong(b, loc, z.re, dim, a);
  if (!z.im)
    return fromRe;
  Value fromIm = productAlong(b, loc, z.im, dim, bm);
  return makeBinary<AddOp>(b, loc, fromRe, fromIm);
}

/// The complex-to-complex transform along `dim` (its whole length n), scaled;
/// only the first n/2+1 frequencies where `oneSided` (an r2c).
ComplexParts c2c(OpBuilder &b, Location loc, ComplexParts z, int64_t dim, bool forward,
                 const Scale &scale, bool oneSided = false) {
  Length n = lengthOf(b, loc, z.re, dim);
  Length m = oneSided ? oneSidedLength(b, loc, n) : n;
  // e^(∓iθ) = cos θ ∓ i sin θ: sigma = +1 forward, -1 inverse.
  double sigma = forward ? 1.0 : -1.0;
  auto [cosine, sine] = twiddles(b, loc, n, m, n);
  Value cosM = scaled(b, loc, cosine, scale);
  Value sinM = scaled(b, loc, sine, scale, sigma);
  // (re + i im)(C - i σS) = (re C + im σS) + i (im C - re σS).
  Value re = combine(b, loc, z, dim, cosM, sinM);
  Value reSin = productAlong(b, loc, z.re, dim, sinM);
  if (!z.im) {
    Value im = b.create<NegOp>(loc, reSin);
    return {re, im};
  }
  Value imCos = productAlong(b, loc, z.im, dim, cosM);
  Value im = makeBinary<SubOp>(b, loc, imCos, reSin);
  return {re, im};
}

/// The complex-to-real (Hermitian) inverse transform along `dim` to `n`
/// points, scaled; `z` holds n/2+1 entries there.
Value c2r(OpBuilder &b, Location loc, ComplexParts z, int64_t dim, const Length &n,
          const Scale &scale) {
  Length half = lengthOf(b, loc, z.re, dim);
  // y[t] = Σ_k c_k (re_k cos θ - im_k sin θ), θ = 2π kt/n; c_k = 1 for the
  // zero-frequency and (n even) Nyquist entries, whose imaginary parts do
  // not count, 2 for the others (each stands for itself and its conjugate).
  auto [cosine, sine] = twiddles(b, loc, half, n, n);
  // Per row k: whether it is the zero-frequency or the Nyquist entry.
  Type i64 = b.getI64Type();
  Value k = makeIotaAt(b, loc, half.size, i64, 2, 0, half.index);
  Value zero = makeScalar(b, loc, i64, 0.0);
  Value isZero = makeCompare(b, loc, "eq", k, zero);
  Value two = makeScalar(b, loc, i64, 2.0);
  Value twiceK = makeBinary<MulOp>(b, loc, k, two);
  Value length = countOf(b, loc, n);
  Value isNyquist = makeCompare(b, loc, "eq", twiceK, length);
  Value edge = makeBinary<BitwiseOrOp>(b, loc, isZero, isNyquist);
  Type f64 = b.getF64Type();
  auto rowWeights = [&](double atEdge, double inside) -> Value {
    Value e = makeScalar(b, loc, f64, atEdge * scale.constant);
    Value in = makeScalar(b, loc, f64, inside * scale.constant);
    Value w = b.create<SelectOp>(loc, RankedTensorType::get({half.size, 1}, f64), edge, e, in);
    return scale.runtime ? makeBinary<MulOp>(b, loc, w, scale.runtime) : w;
  };
  Value cosWeights = rowWeights(1.0, 2.0);
  Value a = makeBinary<MulOp>(b, loc, cosine, cosWeights);
  Value fromRe = productAlong(b, loc, z.re, dim, a);
  if (!z.im)
    return fromRe;
  Value sinWeights = rowWeights(0.0, -2.0);
  Value bm = makeBinary<MulOp>(b, loc, sine, sinWeights);
  Value fromIm = productAlong(b, loc, z.im, dim, bm);
  return makeBinary<AddOp>(b, loc, fromRe, fromIm);
}

/// The dims and signal sizes of an n-D transform, as ATen's
/// canonicalize_fft_shape_and_dim_args: `s` and `dim` both given (of one
/// length), `s` alone (the last len(s) dims), `dim` alone, or all dims; an
/// entry -1 of `s` keeps the input's size.
struct TransformDims {
  SmallVector<int64_t> dims, sizes;
};

FailureOr<TransformDims> transformDims(OperatorArgs &args, RankedTensorType type,
                                       std::optional<SmallVector<int64_t>> s,
                                       std::optional<SmallVector<int64_t>> dim) {
  int64_t rank = type.getRank();
  TransformDims out;
  if (dim) {
    for (int64_t d : *dim) {
      int64_t nd = normalizeDim(d, rank);
      if (nd < 0 || nd >= rank)
        return operatorError(args) << "dim " << d << " out of range for rank " << rank;
      if (llvm::is_contained(out.dims, nd))
        return operatorError(args) << "dims must be unique";
      out.dims.push_back(nd);
    }
    if (s && s->size() != dim->size())
      return operatorError(args) << "s and dim must have the same length";
  } else if (s) {
    if (static_cast<int64_t>(s->size()) > rank)
      return operatorError(args) << "s has more entries than the input has dims";
    for (int64_t i = rank - static_cast<int64_t>(s->size()); i < rank; ++i)
      out.dims.push_back(i);
  } else {
    for (int64_t i = 0; i < rank; ++i)
      out.dims.push_back(i);
  }
  if (out.dims.empty())
    return operatorError(args) << "must transform at least one dim";
  for (size_t i = 0; i < out.dims.size(); ++i) {
    // A symbolic size (kDynamic) keeps the input's own length there.
    int64_t size = s && (*s)[i] != -1 ? (*s)[i] : type.getShape()[out.dims[i]];
    if (!ShapedType::isDynamic(size) && size < 1)
      return operatorError(args) << "invalid number of data points (" << size << ")";
    out.sizes.push_back(size);
  }
  return out;
}

/// The operand `self` as complex parts in f64: a complex tensor's parts, or
/// a real tensor with a zero imaginary part. `realOnly`: refuse complex ones
/// (rfft and ihfft take real inputs, as PyTorch).
FailureOr<ComplexParts> transformInput(OperatorArgs &args, OpBuilder &b, bool realOnly) {
  FailureOr<Value> self = requiredTensor(args, "self");
  if (failed(self))
    return failure();
  Location loc = args.getOp().getLoc();
  if (!isa<FloatType>(args.resultType().getElementType()))
    return operatorError(args) << "needs a floating-point result";
  if (isComplexOperand(args, "self")) {
    if (realOnly)
      return operatorError(args) << "expects a real input tensor, got a complex one";
    ComplexParts z = splitComplex(b, loc, *self);
    Value re = makeCast(b, loc, z.re, b.getF64Type());
    Value im = makeCast(b, loc, z.im, b.getF64Type());
    return ComplexParts{re, im};
  }
  if (!isa<FloatType>(typeOf(*self).getElementType()) && !typeOf(*self).getElementType().isInteger())
    return operatorError(args) << "needs a real or complex input";
  return ComplexParts{makeCast(b, loc, *self, b.getF64Type()), nullptr};
}

/// The input's shape with its user dims (a complex input's pair dim dropped).
RankedTensorType userType(OperatorArgs &args, Value self) {
  RankedTensorType t = typeOf(self);
  if (!isComplexOperand(args, "self"))
    return t;
  return RankedTensorType::get(t.getShape().drop_back(), t.getElementType());
}

/// The result in the operator's result type: a complex result in the (re,
/// im) form, a real one from `z.re`.
Results transformResult(OperatorArgs &args, OpBuilder &b, ComplexParts z) {
  Location loc = args.getOp().getLoc();
  Type elt = args.resultType().getElementType();
  Value re = makeCast(b, loc, z.re, elt);
  if (!isComplexResult(args))
    return SmallVector<Value>{re};
  Value im = z.im ? makeCast(b, loc, z.im, elt) : Value();
  return SmallVector<Value>{joinComplex(b, loc, {re, im})};
}

/// `type`'s shape with each transformed dim at its size.
RankedTensorType resizedType(RankedTensorType type, const TransformDims &td) {
  SmallVector<int64_t> shape(type.getShape());
  for (auto [d, size] : llvm::zip(td.dims, td.sizes))
    if (!ShapedType::isDynamic(size))
      shape[d] = size;
  return RankedTensorType::get(shape, type.getElementType());
}

/// Bounds the symbolic length of dim `d` of the operand `self` by `most`:
/// refused by name where the export's range allows more, else, where the
/// export states no maximum, checked by the call (on `x`, returned).
FailureOr<Value> boundSymbolicLength(OperatorArgs &args, OpBuilder &b, Value self, Value x,
                                     int64_t d, int64_t most) {
  std::optional<int64_t> largest = largestSize(args, self, d);
  if (largest && *largest > most)
    return operatorError(args) << "dim " << d << " is symbolic with up to " << *largest
                               << " elements; transforms over at most " << most
                               << " are supported (export it with a smaller maximum)";
  if (largest)
    return x;
  Location loc = args.getOp().getLoc();
  Value n = sizeTensor(b, loc, x, d);
  Value bound = makeScalar(b, loc, b.getI64Type(), static_cast<double>(most));
  Value fits = makeCompare(b, loc, "le", n, bound);
  std::string message = (operatorName(args) + ": a transformed dim of more than " +
                         std::to_string(most) + " elements is not supported")
                            .str();
  return b.create<CheckOp>(loc, x.getType(), fits, x, b.getStringAttr(message)).getResult();
}

/// The input of a transform with each transformed dim trimmed or
/// zero-padded to its size in `td`, once every matrix is checked: n x n for
/// the leading dims, n x `lastColumns` for the last. A symbolic length kept
/// is at most kMaxSymbolicLength, `lastMost` for the last dim.
FailureOr<ComplexParts> resizedInput(OperatorArgs &args, OpBuilder &b, const TransformDims &td,
                                     bool realOnly, int64_t lastColumns,
                                     int64_t lastMost = kMaxSymbolicLength) {
  FailureOr<Value> self = requiredTensor(args, "self");
  if (failed(self))
    return failure();
  RankedTensorType type = resizedType(userType(args, *self), td);
  for (size_t i = 0; i + 1 < td.dims.size(); ++i)
    if (failed(checkTransform(args, type, td.sizes[i], td.sizes[i])))
      return failure();
  if (failed(checkTransform(args, type, td.sizes.back(), lastColumns)))
    return failure();
  FailureOr<ComplexParts> z = transformInput(args, b, realOnly);
  if (failed(z))
    return failure();
  ComplexParts x = *z;
  for (auto [i, d] : llvm::enumerate(td.dims)) {
    if (!ShapedType::isDynamic(td.sizes[i]))
      continue;
    int64_t most = i + 1 == td.dims.size() ? lastMost : kMaxSymbolicLength;
    FailureOr<Value> bounded = boundSymbolicLength(args, b, *self, x.re, d, most);
    if (failed(bounded))
      return failure();
    x.re = *bounded;
  }
  for (auto [d, size] : llvm::zip(td.dims, td.sizes))
    x = resizeAlong(b, args.getOp().getLoc(), x, d, size);
  return x;
}

/// The lengths of the transformed dims of `x`.
SmallVector<Length> lengthsOf(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> dims) {
  SmallVector<Length> lengths;
  for (int64_t d : dims)
    lengths.push_back(lengthOf(b, loc, x, d));
  return lengths;
}

/// fft/ifft and their 2-D and n-D forms: c2c along each dim (a real input's
/// imaginary part zero), each dim first trimmed or zero-padded to its size.
Results legalizeComplexToComplex(OperatorArgs &args, OpBuilder &b, TransformDims td,
                                 bool forward) {
  Location loc = args.getOp().getLoc();
  FailureOr<StringRef> norm = normOf(args);
  if (failed(norm))
    return failure();
  FailureOr<ComplexParts> x = resizedInput(args, b, td, /*realOnly=*/false, td.sizes.back());
  if (failed(x))
    return failure();
  SmallVector<Length> lengths = lengthsOf(b, loc, x->re, td.dims);
  Scale scale = totalScale(b, loc, *norm, lengths, forward);
  for (auto [i, d] : llvm::enumerate(td.dims))
    *x = c2c(b, loc, *x, d, forward, i == 0 ? scale : Scale());
  return transformResult(args, b, *x);
}

/// rfft/ihfft and their 2-D and n-D forms, on real inputs: the one-sided
/// transform (n/2+1 outputs) along the last dim, then c2c along the others.
/// rfft is forward; ihfft is the conjugate of a forward transform with the
/// inverse norm, which for a real input is the inverse transform.
Results legalizeRealToComplex(OperatorArgs &args, OpBuilder &b, TransformDims td,
                              bool forward) {
  Location loc = args.getOp().getLoc();
  int64_t last = td.dims.back(), n = td.sizes.back();
  FailureOr<StringRef> norm = normOf(args);
  if (failed(norm))
    return failure();
  int64_t columns = ShapedType::isDynamic(n) ? n : n / 2 + 1;
  FailureOr<ComplexParts> x = resizedInput(args, b, td, /*realOnly=*/true, columns);
  if (failed(x))
    return failure();
  SmallVector<Length> lengths = lengthsOf(b, loc, x->re, td.dims);
  Scale scale = totalScale(b, loc, *norm, lengths, forward);
  *x = c2c(b, loc, *x, last, forward, scale, /*oneSided=*/true);
  for (size_t i = 0; i + 1 < td.dims.size(); ++i)
    *x = c2c(b, loc, *x, td.dims[i], forward, Scale());
  return transformResult(args, b, *x);
}

/// irfft/hfft and their 2-D and n-D forms: c2c over the leading transformed
/// dims, then c2r over the last, to a real result of length `lastSize` there
/// (default 2·(input length - 1), symbolic where the input's is). `hermitian`
/// (hfft) scales as a forward transform: the leading dims transform forward
/// and the c2r takes the conjugate (ATen's fft_hfftn).
Results legalizeComplexToReal(OperatorArgs &args, OpBuilder &b, bool hermitian,
                              TransformDims td, std::optional<int64_t> lastSize) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> self = requiredTensor(args, "self");
  if (failed(self))
    return failure();
  FailureOr<StringRef> norm = normOf(args);
  if (failed(norm))
    return failure();
  RankedTensorType type = userType(args, *self);
  int64_t last = td.dims.back();
  int64_t have = type.getShape()[last];
  bool symbolic = !lastSize && ShapedType::isDynamic(have);
  int64_t n = symbolic ? ShapedType::kDynamic : lastSize.value_or(2 * (have - 1));
  if (!symbolic && n < 1)
    return operatorError(args) << "invalid number of data points (" << n << ") specified";
  // A symbolic n = 2·(have - 1) keeps the input's length, n/2+1 = have.
  td.sizes.back() = symbolic ? ShapedType::kDynamic : n / 2 + 1;
  FailureOr<ComplexParts> x = resizedInput(args, b, td, /*realOnly=*/false, n,
                                           /*lastMost=*/kMaxSymbolicLength / 2 + 1);
  if (failed(x))
    return failure();
  SmallVector<Length> lengths = lengthsOf(b, loc, x->re, td.dims);
  Length points{n, {}, {}};
  if (symbolic) {
    Value one = b.create<arith::ConstantIndexOp>(loc, 1);
    Value two = b.create<arith::ConstantIndexOp>(loc, 2);
    Value less = b.create<arith::SubIOp>(loc, lengths.back().index, one);
    points.index = b.create<arith::MulIOp>(loc, less, two);
    Type i64 = b.getI64Type();
    Value oneCount = makeScalar(b, loc, i64, 1.0);
    Value twoCount = makeScalar(b, loc, i64, 2.0);
    Value lessCount = makeBinary<SubOp>(b, loc, lengths.back().count, oneCount);
    points.count = makeBinary<MulOp>(b, loc, lessCount, twoCount);
  }
  lengths.back() = points;
  Scale scale = totalScale(b, loc, *norm, lengths, /*forward=*/hermitian);
  for (size_t i = 0; i + 1 < td.dims.size(); ++i)
    *x = c2c(b, loc, *x, td.dims[i], /*forward=*/hermitian, Scale());
  if (hermitian && x->im)
    x->im = b.create<NegOp>(loc, x->im);
  Value y = c2r(b, loc, *x, last, points, scale);
  return transformResult(args, b, {y, nullptr});
}

/// The dim and length of a 1-D transform (self, n, dim, norm); a symbolic
/// length (kDynamic) keeps the input's.
FailureOr<TransformDims> oneDim(OperatorArgs &args) {
  Value self = args.tensor("self");
  if (!self)
    return operatorError(args) << "needs tensor 'self'";
  RankedTensorType type = userType(args, self);
  int64_t rank = type.getRank();
  int64_t raw = args.getInt("dim").value_or(-1);
  int64_t dim = normalizeDim(raw, rank);
  if (dim < 0 || dim >= rank)
    return operatorError(args) << "dim " << raw << " out of range for rank " << rank;
  int64_t n = args.getInt("n").value_or(type.getShape()[dim]);
  if (!ShapedType::isDynamic(n) && n < 1)
    return operatorError(args) << "invalid number of data points (" << n << ") specified";
  return TransformDims{{dim}, {n}};
}

/// The dims and lengths of a 2-D or n-D transform (self, s, dim, norm); the
/// 2-D forms' dim defaults to [-2, -1].
FailureOr<TransformDims> multiDim(OperatorArgs &args, bool twoDim) {
  Value self = args.tensor("self");
  if (!self)
    return operatorError(args) << "needs tensor 'self'";
  std::optional<SmallVector<int64_t>> dim = args.getInts("dim");
  if (twoDim && !dim)
    dim = SmallVector<int64_t>{-2, -1};
  return transformDims(args, userType(args, self), args.getInts("s"), dim);
}

enum class Family { C2C, R2C, C2R };

/// A legalizer of one transform operator: its family, direction (for c2r:
/// whether it is the Hermitian hfft) and form (1-D, 2-D or n-D).
LegalizeFn transform(Family family, bool forward, int form) {
  return [=](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<TransformDims> td = form == 1 ? oneDim(args) : multiDim(args, form == 2);
    if (failed(td))
      return failure();
    switch (family) {
    case Family::C2C:
      return legalizeComplexToComplex(args, b, *td, forward);
    case Family::R2C:
      return legalizeRealToComplex(args, b, *td, forward);
    case Family::C2R: {
      // The output length along the last dim: n, or s's last entry.
      std::optional<int64_t> lastSize;
      if (form == 1) {
        lastSize = args.getInt("n");
      } else if (std::optional<SmallVector<int64_t>> s = args.getInts("s");
                 s && !s->empty() && s->back() != -1) {
        lastSize = s->back();
      }
      return legalizeComplexToReal(args, b, /*hermitian=*/forward, *td, lastSize);
    }
    }
    return failure();
  };
}
/// stft(self, n_fft, hop_length, win_length, window, normalized, onesided,
/// return_complex) of a real [L] or [B, L] signal (center's padding comes
/// before it in the export): frames t of n_fft samples at t·hop_length,
/// gathered, times the window (zero-padded to n_fft, centred; ones when
/// absent), each transformed forward (n_fft/2+1 frequencies when
/// onesided), scaled by 1/√n_fft when normalized; [B, freq, frames].
Results legalizeStft(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> self = requiredTensor(args, "self");
  if (failed(self))
    return failure();
  if (isComplexOperand(args, "self") || isComplexOperand(args, "window"))
    return operatorError(args) << "stft of complex signals or windows is not supported";
  RankedTensorType type = typeOf(*self);
  if (type.getRank() < 1 || type.getRank() > 2)
    return operatorError(args) << "expects a 1-D or 2-D signal";
  std::optional<int64_t> nFft = args.getInt("n_fft");
  if (!nFft)
    return operatorError(args) << "needs 'n_fft'";
  int64_t n = *nFft, length = type.getShape().back();
  int64_t hop = args.getInt("hop_length").value_or(n / 4);
  int64_t winLength = args.getInt("win_length").value_or(n);
  bool onesided = args.getBool("onesided").value_or(true);
  bool normalized = args.getBool("normalized").value_or(false);
  bool symbolicLength = ShapedType::isDynamic(length);
  if (n < 1 || (!symbolicLength && n > length) || hop < 1 || winLength < 1 || winLength > n)
    return operatorError(args) << "expects 0 < n_fft <= the signal's length, 0 < hop_length "
                               << "and 0 < win_length <= n_fft";
  int64_t batch = type.getRank() == 2 ? type.getShape()[0] : 1;
  // A symbolic signal length L gives max((L - n_fft) // hop + 1, 0) frames,
  // read at run time (none read past the signal where L < n_fft, which the
  // call refuses as PyTorch does); a symbolic batch is read too.
  int64_t frames = symbolicLength ? ShapedType::kDynamic : 1 + (length - n) / hop;
  Value frameCount, batchSize;
  Value signal = *self;
  if (symbolicLength) {
    Value l = dimIndex(b, loc, *self, type.getRank() - 1);
    Value nIndex = b.create<arith::ConstantIndexOp>(loc, n);
    Value hopIndex = b.create<arith::ConstantIndexOp>(loc, hop);
    Value one = b.create<arith::ConstantIndexOp>(loc, 1);
    Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
    Value past = b.create<arith::SubIOp>(loc, l, nIndex);
    Value steps = b.create<arith::FloorDivSIOp>(loc, past, hopIndex);
    Value count = b.create<arith::AddIOp>(loc, steps, one);
    frameCount = b.create<arith::MaxSIOp>(loc, count, zero);
    Type i64 = b.getI64Type();
    Value lengthValue = sizeTensor(b, loc, *self, type.getRank() - 1);
    Value least = makeScalar(b, loc, i64, static_cast<double>(n));
    Value longEnough = makeCompare(b, loc, "ge", lengthValue, least);
    std::string message =
        (operatorName(args) + ": n_fft (" + std::to_string(n) + ") is longer than the signal")
            .str();
    signal = b.create<CheckOp>(loc, type, longEnough, signal, b.getStringAttr(message));
  }
  if (ShapedType::isDynamic(batch))
    batchSize = dimIndex(b, loc, *self, 0);
  int64_t freqs = onesided ? n / 2 + 1 : n;
  int64_t framed = ShapedType::isDynamic(frames) ? ShapedType::kDynamic : frames * n;
  auto framesType = RankedTensorType::get({batch, frames, n}, b.getF64Type());
  if (failed(checkTransform(args, framesType, n, freqs)))
    return failure();
  // frames[b, t, k] = x[b, t·hop + k], by one gather of the flattened frames.
  Type i64 = b.getI64Type();
  Value t = makeIotaAt(b, loc, frames, i64, 2, 0, frameCount);
  Value hopValue = makeScalar(b, loc, i64, static_cast<double>(hop));
  Value starts = makeBinary<MulOp>(b, loc, t, hopValue);
  Value k = makeIotaAt(b, loc, n, i64, 2, 1);
  Value positions = makeBinary<AddOp>(b, loc, starts, k);
  Value flatPositions = makeReshape(b, loc, positions, {1, framed});
  // The symbolic sizes of [batch, frames·n] and [batch, frames, n].
  Value framedSize;
  if (frameCount && batch != 1) {
    Value nIndex = b.create<arith::ConstantIndexOp>(loc, n);
    framedSize = b.create<arith::MulIOp>(loc, frameCount, nIndex);
  }
  SmallVector<Value> indexSizes, framesSizes;
  for (Value v : {batchSize, framedSize})
    if (v)
      indexSizes.push_back(v);
  auto indexType = RankedTensorType::get({batch, framed}, i64);
  Value index = flatPositions;
  if (batch != 1)
    index = b.create<BroadcastOp>(loc, indexType, flatPositions, indexSizes);
  Value rows = makeReshape(b, loc, signal, {batch, length});
  Value samples = makeCast(b, loc, rows, b.getF64Type());
  Value gathered = b.create<GatherOp>(loc, RankedTensorType::get({batch, framed}, b.getF64Type()),
                                      samples, index, b.getI64IntegerAttr(1));
  Value frameRows = makeReshape(b, loc, gathered, {batch, frames, n}, {batchSize, frameCount, {}});
  // The window: given or ones, zero-padded on both sides to n_fft.
  Value window = args.tensor("window");
  if (window && typeOf(window).getShape() != ArrayRef<int64_t>{winLength})
    return operatorError(args) << "expects a window of win_length (" << winLength << ") samples";
  if (window || winLength < n) {
    Value w = window ? makeCast(b, loc, window, b.getF64Type())
                     : makeSplat(b, loc, RankedTensorType::get({winLength}, b.getF64Type()), 1.0);
    int64_t left = (n - winLength) / 2;
    if (winLength < n)
      w = padConstant(b, loc, w, 0, left, n - winLength - left);
    Value w3 = makeReshape(b, loc, w, {1, 1, n});
    frameRows = makeBinary<MulOp>(b, loc, frameRows, w3);
  }
  Scale scale{normalized ? 1.0 / std::sqrt(static_cast<double>(n)) : 1.0, {}};
  ComplexParts z = c2c(b, loc, {frameRows, nullptr}, 2, /*forward=*/true, scale, onesided);
  // [B, T, F] to [B, F, T], without the batch dim for a 1-D signal.
  auto moved = [&](Value v) -> Value {
    Value tr = b.create<TransposeOp>(loc, RankedTensorType::get({batch, freqs, frames}, b.getF64Type()),
                                     v, b.getDenseI64ArrayAttr({0, 2, 1}));
    if (type.getRank() == 1)
      tr = makeReshape(b, loc, tr, {freqs, frames});
    return makeCast(b, loc, tr, args.resultType().getElementType());
  };
  Value re = moved(z.re);
  Value im = moved(z.im);
  // A real result (return_complex=False) is the same (re, im) pairs.
  return SmallVector<Value>{joinComplex(b, loc, {re, im})};
}
} // namespace

void tcc::graph::populateFFTLegalizers(LegalizerTable &table, LegalizerTable &complexTable) {
  struct Entry {
    const char *name;
    Family family;
    bool forward;
  };
  static const Entry entries[] = {
      {"fft", Family::C2C, true},   {"ifft", Family::C2C, false},
      {"rfft", Family::R2C, true},  {"ihfft", Family::R2C, false},
      {"irfft", Family::C2R, false}, {"hfft", Family::C2R, true},
  };
  for (const Entry &e : entries)
    for (int form : {1, 2, 3}) {
      std::string name = std::string("aten.fft_") + e.name +
                         (form == 1 ? "" : form == 2 ? "2" : "n") + ".default";
      LegalizeFn fn = transform(e.family, e.forward, form);
      table[name] = fn;
      complexTable[name] = fn;
    }
  table["aten.stft.default"] = legalizeStft;
  complexTable["aten.stft.default"] = legalizeStft;
}
