//===- LegalizeVectorNorms.cpp - vector norms and weight normalization ----===//
//
// linalg_vector_norm (F.normalize, Swin V2's cosine attention) and
// _weight_norm (wav2vec2's positional convolution) as reductions and
// elementwise ops. Half inputs are computed in f32 and rounded once, as
// PyTorch's kernels accumulate.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccGraph/Transforms/LinearAlgebra.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// The p-norm of `x` over `dims` (sorted), in `x`'s (float) type.
Value vectorNorm(OpBuilder &b, Location loc, Value x, double p, ArrayRef<int64_t> dims,
                 bool keepdim) {
  Type elt = typeOf(x).getElementType();
  if (p == 2.0) {
    Value sq = makeBinary<MulOp>(b, loc, x, x);
    Value sum = makeReduce<ReduceSumOp>(b, loc, sq, dims, keepdim);
    return SqrtOp::create(b, loc, typeOf(sum), sum);
  }
  Value a = AbsOp::create(b, loc, typeOf(x), x);
  if (p == 1.0)
    return makeReduce<ReduceSumOp>(b, loc, a, dims, keepdim);
  if (std::isinf(p) && p > 0)
    return makeReduce<ReduceMaxOp>(b, loc, a, dims, keepdim);
  if (std::isinf(p)) { // min |x| = -max(-|x|)
    Value m = makeReduce<ReduceMaxOp>(b, loc, NegOp::create(b, loc, typeOf(a), a), dims, keepdim);
    return NegOp::create(b, loc, typeOf(m), m);
  }
  if (p == 0.0) { // the count of nonzeros
    Value nz = makeCompare(b, loc, "ne", x, makeScalar(b, loc, elt, 0.0));
    return makeReduce<ReduceSumOp>(b, loc, makeCast(b, loc, nz, elt), dims, keepdim);
  }
  Value powered = makeBinary<PowOp>(b, loc, a, makeScalar(b, loc, elt, p));
  Value sum = makeReduce<ReduceSumOp>(b, loc, powered, dims, keepdim);
  return makeBinary<PowOp>(b, loc, sum, makeScalar(b, loc, elt, 1.0 / p));
}

/// `x` widened to f32 when it is a half type.
Value computeType(OpBuilder &b, Location loc, Value x) {
  Type elt = typeOf(x).getElementType();
  return elt.isF16() || elt.isBF16() ? makeCast(b, loc, x, b.getF32Type()) : x;
}

/// The normalized, sorted, unique `dim` list (every dim when absent or empty).
SmallVector<int64_t> normDims(OperatorArgs &args, int64_t rank) {
  SmallVector<int64_t> dims;
  if (rank == 0) // dim 0 / -1 of a 0-d tensor is its one element
    return dims;
  std::optional<SmallVector<int64_t>> given = args.getInts("dim");
  if (!given || given->empty())
    dims = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  else
    for (int64_t d : *given)
      dims.push_back(normalizeDim(d, rank));
  llvm::sort(dims);
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  return dims;
}

/// self, converted to `dtype` first when given (the result's type, as
/// PyTorch), and in f32 for half types; or null after an error.
Value normInput(OperatorArgs &args, OpBuilder &b) {
  Value x = args.tensor("self");
  Type elt = args.resultType().getElementType();
  if (!x || !isa<FloatType>(typeOf(x).getElementType()) || !isa<FloatType>(elt)) {
    operatorError(args) << "expects a floating-point tensor 'self' and result";
    return nullptr;
  }
  Location loc = args.getOp().getLoc();
  if (args.has("dtype"))
    x = makeCast(b, loc, x, elt);
  return computeType(b, loc, x);
}

/// linalg_vector_norm(self, ord=2, dim=None, keepdim=False, dtype=None): any
/// ord (negative ones by the generic (sum |x|^p)^(1/p), as PyTorch).
Results legalizeVectorNorm(OperatorArgs &args, OpBuilder &b) {
  Value x = normInput(args, b);
  if (!x)
    return failure();
  double p = args.getFloat("ord").value_or(2.0);
  if (std::isnan(p))
    return operatorError(args) << "ord NaN is not a norm";
  Value norm = vectorNorm(b, args.getOp().getLoc(), x, p, normDims(args, typeOf(x).getRank()),
                          args.getBool("keepdim").value_or(false));
  return SmallVector<Value>{makeCast(b, args.getOp().getLoc(), norm, args.resultType().getElementType())};
}

/// The matrix norm of `x` over dims (rows, cols) for ord fro, 1, -1, inf,
/// -inf (the largest / smallest column or row sum of |x|), kept as size 1;
/// or null for the norms that need singular values (2, -2, nuc).
Value matrixNorm(OpBuilder &b, Location loc, Value x, StringRef ord, int64_t rows, int64_t cols) {
  SmallVector<int64_t> both{std::min(rows, cols), std::max(rows, cols)};
  if (ord == "fro")
    return vectorNorm(b, loc, x, 2.0, both, true);
  bool columnSums = ord == "1" || ord == "-1";
  if (!columnSums && ord != "inf" && ord != "-inf")
    return nullptr;
  Value a = AbsOp::create(b, loc, typeOf(x), x);
  Value sums = makeReduce<ReduceSumOp>(b, loc, a, {columnSums ? rows : cols}, true);
  return vectorNorm(b, loc, sums, ord.starts_with("-") ? -INFINITY : INFINITY,
                    {columnSums ? cols : rows}, true);
}

/// The `ord` argument as a matrix-norm name (fro, nuc, 1, -1, inf, -inf, 2,
/// -2), or "" when absent.
std::string ordName(OperatorArgs &args) {
  if (auto s = dyn_cast_or_null<StringAttr>(args.getOp().getArgs().get("ord")))
    return s.getValue().str();
  std::optional<double> p = args.getFloat("ord");
  if (!p)
    return "";
  if (std::isinf(*p))
    return *p > 0 ? "inf" : "-inf";
  if (*p != std::floor(*p) || std::abs(*p) > 1e9)
    return "other";
  return std::to_string(static_cast<long long>(*p));
}

/// The matrix norms through singular values of `x` over dims (rows, cols):
/// the largest (2), the smallest (-2) or their sum (nuc), computed in f64
/// (LegalizeSvd.cpp), as `resultType` (the other dims in order, rows and
/// cols dropped or kept as 1).
FailureOr<Value> spectralNorm(OperatorArgs &args, OpBuilder &b, Value x, StringRef ord,
                              int64_t rows, int64_t cols, RankedTensorType resultType) {
  RankedTensorType t = typeOf(x);
  Location loc = args.getOp().getLoc();
  if (!t.hasStaticShape() || !resultType.hasStaticShape())
    return operatorError(args) << "the matrix norm ord '" << ord << "' needs a static shape";
  int64_t r = t.getShape()[rows], c = t.getShape()[cols];
  if (std::min(r, c) > kMaxJacobiOrder || std::max(r, c) > kMaxJacobiLength)
    return operatorError(args) << "the matrix norm ord '" << ord << "' supports matrices with at "
                               << "most " << kMaxJacobiOrder << " rows or columns and "
                               << kMaxJacobiLength << " the other (its Jacobi sweeps are "
                               << "unrolled), not " << t;
  SmallVector<int64_t> perm, shape;
  int64_t count = 1;
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (d != rows && d != cols) {
      perm.push_back(d);
      shape.push_back(t.getShape()[d]);
      count *= t.getShape()[d];
    }
  perm.append({rows, cols});
  shape.append({r, c});
  Value moved = b.create<TransposeOp>(loc, RankedTensorType::get(shape, t.getElementType()), x,
                                      b.getDenseI64ArrayAttr(perm));
  Value flat = makeReshape(b, loc, moved, {count, r, c});
  MatrixBuilder mb{b, loc, b.getF64Type()};
  Value a = makeCast(b, loc, flat, mb.f64);
  Value s = singularValueDecomposition(mb, a, /*withVectors=*/false).s;
  Value norm;
  if (ord == "nuc")
    norm = makeReduce<ReduceSumOp>(b, loc, s, {1}, false);
  else if (ord == "2")
    norm = makeSlice(b, loc, s, 1, 0, 1, 1);
  else
    norm = makeSlice(b, loc, s, 1, std::min(r, c) - 1, std::min(r, c), 1);
  Value cast = makeCast(b, loc, norm, resultType.getElementType());
  return makeReshape(b, loc, cast, resultType.getShape());
}

/// linalg_matrix_norm(self, ord='fro', dim=(-2, -1), keepdim, dtype), and
/// linalg_norm(self, ord, dim, keepdim, dtype): a vector norm for one dim
/// (or, without ord, over every element), a matrix norm for two; the norms
/// through singular values (2, -2, nuc) by spectralNorm.
LegalizeFn matrixOrVectorNorm(bool matrixOnly) {
  return [matrixOnly](OperatorArgs &args, OpBuilder &b) -> Results {
    Location loc = args.getOp().getLoc();
    Value x = normInput(args, b);
    if (!x)
      return failure();
    int64_t rank = typeOf(x).getRank();
    std::string ord = ordName(args);
    std::optional<SmallVector<int64_t>> given = args.getInts("dim");
    bool matrix = matrixOnly || (given ? given->size() == 2 : (!ord.empty() && rank == 2));
    Type elt = args.resultType().getElementType();
    if (!matrix) {
      if (!ord.empty() && !given && rank != 1)
        return operatorError(args) << "a vector ord needs a 1-D input or a dim";
      double p = args.getFloat("ord").value_or(2.0);
      Value norm = vectorNorm(b, loc, x, p, normDims(args, rank), args.getBool("keepdim").value_or(false));
      return SmallVector<Value>{makeCast(b, loc, norm, elt)};
    }
    SmallVector<int64_t> dims = given && given->size() == 2 ? *given : SmallVector<int64_t>{-2, -1};
    if (rank < 2)
      return operatorError(args) << "a matrix norm needs a tensor of rank >= 2";
    int64_t rows = normalizeDim(dims[0], rank), cols = normalizeDim(dims[1], rank);
    Value norm = matrixNorm(b, loc, x, ord.empty() ? "fro" : ord, rows, cols);
    bool spectral = ord == "2" || ord == "-2" || ord == "nuc";
    if (!norm && !spectral)
      return operatorError(args) << "the matrix norm ord '" << ord << "' is not supported";
    // Matrices without elements have norm 0 in PyTorch (where it defines one).
    if (typeOf(x).getShape()[rows] == 0 || typeOf(x).getShape()[cols] == 0) {
      if (!args.resultType().hasStaticShape())
        return operatorError(args) << "an empty matrix of symbolic shape is not supported";
      return SmallVector<Value>{makeSplat(b, loc, args.resultType(), 0.0)};
    }
    if (!norm) {
      if (hasNoElements(args.resultType()))
        return SmallVector<Value>{makeSplat(b, loc, args.resultType(), 0.0)};
      FailureOr<Value> s = spectralNorm(args, b, x, ord, rows, cols, args.resultType());
      if (failed(s))
        return failure();
      return SmallVector<Value>{*s};
    }
    return SmallVector<Value>{makeReshape(b, loc, makeCast(b, loc, norm, elt), args.resultType().getShape())};
  };
}

} // namespace

Value tcc::graph::makePairwiseDistance(OpBuilder &b, Location loc, Value x1, Value x2, double p,
                                       double eps, bool keepdim) {
  Value d = makeBinary<SubOp>(b, loc, x1, x2);
  Value shifted = computeType(b, loc, makeBinary<AddOp>(b, loc, d, makeScalar(b, loc, typeOf(d).getElementType(), eps)));
  int64_t rank = typeOf(shifted).getRank();
  SmallVector<int64_t> dims;
  if (rank > 0)
    dims.push_back(rank - 1);
  Value norm = vectorNorm(b, loc, shifted, p, dims, keepdim);
  return makeCast(b, loc, norm, typeOf(x1).getElementType());
}

namespace {
/// pairwise_distance(x1, x2, p=2, eps=1e-6, keepdim=False) = the p-norm of
/// x1 - x2 + eps over the last dim of the broadcast operands (ATen's form;
/// negative p through the generic (sum |v|^p)^(1/p)).
Results legalizePairwiseDistance(OperatorArgs &args, OpBuilder &b) {
  Value x1 = args.tensor("x1"), x2 = args.tensor("x2");
  Type elt = args.resultType().getElementType();
  double p = args.getFloat("p").value_or(2.0);
  if (!x1 || !x2 || !isa<FloatType>(elt) || std::isnan(p))
    return args.getOp().emitError("pairwise_distance expects float tensors 'x1', 'x2' and a p");
  Location loc = args.getOp().getLoc();
  Value l = makeCast(b, loc, x1, elt);
  Value r = makeCast(b, loc, x2, elt);
  return SmallVector<Value>{makePairwiseDistance(b, loc, l, r, p, args.getFloat("eps").value_or(1e-6),
                                                 args.getBool("keepdim").value_or(false))};
}

/// dist(self, other, p=2) = the p-norm of self - other over every element.
Results legalizeDist(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self"), y = args.tensor("other");
  Type elt = args.resultType().getElementType();
  if (!x || !y || !isa<FloatType>(elt))
    return args.getOp().emitError("dist expects tensors 'self' and 'other' with a float result");
  double p = args.getFloat("p").value_or(2.0);
  if (std::isnan(p) || p < 0)
    return args.getOp().emitError("dist: p ") << p << " is not supported (p >= 0 or ±inf)";
  Value l = makeCast(b, loc, x, elt);
  Value r = makeCast(b, loc, y, elt);
  Value d = computeType(b, loc, makeBinary<SubOp>(b, loc, l, r));
  SmallVector<int64_t> dims = llvm::to_vector(llvm::seq<int64_t>(0, typeOf(d).getRank()));
  Value norm = vectorNorm(b, loc, d, p, dims, /*keepdim=*/false);
  return SmallVector<Value>{makeCast(b, loc, norm, elt)};
}

/// Every dim of a rank-`rank` tensor but the `dim` argument (default 0).
SmallVector<int64_t> dimsBut(OperatorArgs &args, int64_t rank) {
  int64_t dim = normalizeDim(args.getInt("dim").value_or(0), rank);
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      dims.push_back(d);
  return dims;
}

/// _weight_norm(v, g, dim=0) = v · g / ‖v‖₂, the norm over every dim but
/// `dim` (kept, so that it broadcasts against v).
Results legalizeWeightNorm(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value v = args.tensor("v"), g = args.tensor("g");
  if (!v || !g || !isa<FloatType>(typeOf(v).getElementType()))
    return args.getOp().emitError("_weight_norm expects floating-point tensors 'v' and 'g'");
  SmallVector<int64_t> dims = dimsBut(args, typeOf(v).getRank());
  Value vc = computeType(b, loc, v);
  Value norm = vectorNorm(b, loc, vc, 2.0, dims, /*keepdim=*/true);
  Value scale = makeBinary<DivOp>(b, loc, computeType(b, loc, g), norm);
  Value w = makeBinary<MulOp>(b, loc, vc, scale);
  return SmallVector<Value>{makeCast(b, loc, w, args.resultType().getElementType())};
}
/// cosine_similarity(x1, x2, dim=1, eps=1e-8) = sum over dim of
/// (x1 / max(‖x1‖, eps)) (x2 / max(‖x2‖, eps)), PyTorch's form (each side
/// normalized first, so the result stays within [-1, 1]); the operands
/// broadcast first. A 0-d pair is a one-element vector.
Results legalizeCosineSimilarity(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  RankedTensorType resultType = args.resultType();
  Type elt = resultType.getElementType();
  Value x1 = args.tensor("x1"), x2 = args.tensor("x2");
  if (!x1 || !x2 || !isa<FloatType>(elt))
    return args.getOp().emitError("cosine_similarity expects tensors 'x1' and 'x2' with a float result");
  auto shape = broadcastShapes(typeOf(x1).getShape(), typeOf(x2).getShape());
  // Symbolic sizes need no broadcast where both operands have them, as the
  // export states them (the same expressions).
  bool stretchesSymbolic = false;
  if (succeeded(shape) && llvm::any_of(*shape, ShapedType::isDynamic)) {
    stretchesSymbolic = typeOf(x1).getShape() != typeOf(x2).getShape();
    for (int64_t d = 0; d < typeOf(x1).getRank() && !stretchesSymbolic; ++d)
      stretchesSymbolic = typeOf(x1).isDynamicDim(d) && !sameSize(args, x1, d, x2, d);
  }
  if (failed(shape) || stretchesSymbolic)
    return args.getOp().emitError("cosine_similarity of operands that do not broadcast to a static "
                                  "shape or have one symbolic shape");
  SmallVector<int64_t> full(*shape);
  int64_t rank = full.size(), raw = args.getInt("dim").value_or(1);
  int64_t dim = normalizeDim(raw, std::max<int64_t>(rank, 1));
  if (dim < 0 || dim >= std::max<int64_t>(rank, 1))
    return args.getOp().emitError("cosine_similarity: dim ") << raw << " out of range for rank " << rank;
  if (rank == 0)
    full = {1};
  auto unit = [&](Value v) {
    v = computeType(b, loc, makeCast(b, loc, v, elt));
    auto target = RankedTensorType::get(full, typeOf(v).getElementType());
    if (typeOf(v).getShape() != ArrayRef<int64_t>(full))
      v = typeOf(v).getRank() == 0 && rank == 0 ? makeReshape(b, loc, v, full)
                                                 : BroadcastOp::create(b, loc, target, v).getResult();
    Value norm = vectorNorm(b, loc, v, 2.0, {dim}, /*keepdim=*/true);
    double eps = args.getFloat("eps").value_or(1e-8);
    Value clamped = makeBinary<MaximumOp>(b, loc, norm, makeScalar(b, loc, typeOf(v).getElementType(), eps));
    return makeBinary<DivOp>(b, loc, v, clamped);
  };
  Value u1 = unit(x1);
  Value u2 = unit(x2);
  Value sum = makeReduce<ReduceSumOp>(b, loc, makeBinary<MulOp>(b, loc, u1, u2), {dim}, false);
  return SmallVector<Value>{makeReshape(b, loc, makeCast(b, loc, sum, elt), resultType.getShape())};
}
/// The p-distances between the rows of x1 [..., P, M] and x2 [..., R, M]
/// (batch dims broadcast), [..., P, R]: directly, the p-norm of every
/// difference; or, where PyTorch's cdist takes its matrix-product form
/// (p = 2 with compute_mode 1, or mode 0 past 25 rows), as it computes
/// it: sqrt(max(|x1|^2 + |x2|^2 - 2 x1 x2^T, 0)) from one matmul of
/// [-2 x1, |x1|^2, 1] and [x2, 1, |x2|^2], so that the rounding matches.
Value pairwiseDistances(OpBuilder &b, Location loc, Value x1, Value x2, double p, bool viaMatmul) {
  RankedTensorType t1 = typeOf(x1), t2 = typeOf(x2);
  int64_t rank = t1.getRank();
  Type elt = t1.getElementType();
  if (viaMatmul) {
    Value sq1 = makeBinary<MulOp>(b, loc, x1, x1);
    Value n1 = makeReduce<ReduceSumOp>(b, loc, sq1, {rank - 1}, true);
    Value sq2 = makeBinary<MulOp>(b, loc, x2, x2);
    Value n2 = makeReduce<ReduceSumOp>(b, loc, sq2, {rank - 1}, true);
    Value ones1 = makeSplat(b, loc, typeOf(n1), 1.0);
    Value ones2 = makeSplat(b, loc, typeOf(n2), 1.0);
    Value m1 = makeBinary<MulOp>(b, loc, x1, makeScalar(b, loc, elt, -2.0));
    SmallVector<int64_t> s1(t1.getShape()), s2(t2.getShape());
    s1.back() += 2;
    s2.back() += 2;
    Value a = b.create<ConcatOp>(loc, RankedTensorType::get(s1, elt), ValueRange{m1, n1, ones1},
                                 b.getI64IntegerAttr(rank - 1));
    Value c = b.create<ConcatOp>(loc, RankedTensorType::get(s2, elt), ValueRange{x2, ones2, n2},
                                 b.getI64IntegerAttr(rank - 1));
    Value prod = makeMatmul(b, loc, a, transposeLast2(b, loc, c));
    Value clamped = makeBinary<MaximumOp>(b, loc, prod, makeScalar(b, loc, elt, 0.0));
    return SqrtOp::create(b, loc, typeOf(clamped), clamped);
  }
  // [..., P, 1, M] - [..., 1, R, M], normed over M.
  SmallVector<int64_t> a(t1.getShape()), c(t2.getShape());
  a.insert(a.end() - 1, 1);
  c.insert(c.end() - 2, 1);
  Value lhs = makeReshape(b, loc, x1, a);
  Value rhs = makeReshape(b, loc, x2, c);
  Value d = makeBinary<SubOp>(b, loc, lhs, rhs);
  return vectorNorm(b, loc, d, p, {typeOf(d).getRank() - 1}, false);
}

/// renorm(self, p, dim, maxnorm): each slice along dim whose p-norm exceeds
/// maxnorm scaled by maxnorm / (norm + 1e-7), as PyTorch.
Results legalizeRenorm(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self");
  std::optional<double> p = args.getFloat("p"), maxnorm = args.getFloat("maxnorm");
  Type elt = args.resultType().getElementType();
  if (!x || !p || !maxnorm || !isa<FloatType>(elt) || typeOf(x).getRank() < 1)
    return operatorError(args) << "needs a float tensor of rank >= 1, p and maxnorm";
  SmallVector<int64_t> others = dimsBut(args, typeOf(x).getRank());
  Value xc = computeType(b, loc, x);
  Type ct = typeOf(xc).getElementType();
  Value norm = vectorNorm(b, loc, xc, *p, others, true);
  Value limit = makeScalar(b, loc, ct, *maxnorm);
  Value over = makeCompare(b, loc, "gt", norm, limit);
  Value padded = makeBinary<AddOp>(b, loc, norm, makeScalar(b, loc, ct, 1e-7));
  Value shrink = makeBinary<DivOp>(b, loc, limit, padded);
  Value factor = SelectOp::create(b, loc, typeOf(shrink), over, shrink, makeScalar(b, loc, ct, 1.0));
  return SmallVector<Value>{makeCast(b, loc, makeBinary<MulOp>(b, loc, xc, factor), elt)};
}

/// cdist(x1, x2, p, compute_mode).
Results legalizeCdist(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x1 = args.tensor("x1"), x2 = args.tensor("x2");
  Type elt = args.resultType().getElementType();
  double p = args.getFloat("p").value_or(2.0);
  if (!x1 || !x2 || !isa<FloatType>(elt) || typeOf(x1).getRank() < 2 || typeOf(x2).getRank() < 2 ||
      std::isnan(p) || p < 0 || !typeOf(x1).hasStaticShape() || !typeOf(x2).hasStaticShape())
    return operatorError(args) << "expects static float tensors of rank >= 2 and p >= 0";
  int64_t mode = args.getInt("compute_mode").value_or(0);
  int64_t rows1 = typeOf(x1).getShape().drop_back().back(), rows2 = typeOf(x2).getShape().drop_back().back();
  bool viaMatmul = p == 2.0 && (mode == 1 || (mode == 0 && (rows1 > 25 || rows2 > 25)));
  Value l = computeType(b, loc, makeCast(b, loc, x1, elt));
  Value r = computeType(b, loc, makeCast(b, loc, x2, elt));
  // Batch dims broadcast.
  auto batch = broadcastShapes(typeOf(l).getShape().drop_back(2), typeOf(r).getShape().drop_back(2));
  if (failed(batch))
    return operatorError(args) << "batch dims do not broadcast";
  for (Value *v : {&l, &r}) {
    SmallVector<int64_t> shape(*batch);
    shape.append(typeOf(*v).getShape().take_back(2).begin(), typeOf(*v).getShape().take_back(2).end());
    if (typeOf(*v).getShape() != ArrayRef<int64_t>(shape))
      *v = BroadcastOp::create(b, loc, RankedTensorType::get(shape, typeOf(*v).getElementType()), *v);
  }
  Value d = pairwiseDistances(b, loc, l, r, p, viaMatmul);
  return SmallVector<Value>{makeReshape(b, loc, makeCast(b, loc, d, elt), args.resultType().getShape())};
}

/// pdist(self [N, M], p): the distances of the pairs i < j, row by row.
Results legalizePdist(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self");
  Type elt = args.resultType().getElementType();
  double p = args.getFloat("p").value_or(2.0);
  if (!x || typeOf(x).getRank() != 2 || !typeOf(x).hasStaticShape() || !isa<FloatType>(elt) ||
      std::isnan(p) || p < 0)
    return operatorError(args) << "expects a static float matrix and p >= 0";
  int64_t n = typeOf(x).getShape()[0];
  if (n < 2)
    return SmallVector<Value>{makeSplat(b, loc, args.resultType(), 0.0)};
  Value xc = computeType(b, loc, x);
  Value all = pairwiseDistances(b, loc, xc, xc, p, false);
  SmallVector<Value> rows;
  for (int64_t i = 0; i + 1 < n; ++i) {
    Value row = makeSlice(b, loc, all, 0, i, i + 1, 1);
    Value upper = makeSlice(b, loc, row, 1, i + 1, n, 1);
    rows.push_back(makeReshape(b, loc, upper, {n - 1 - i}));
  }
  Value flat = rows.size() == 1 ? rows.front()
                                : b.create<ConcatOp>(loc, RankedTensorType::get({n * (n - 1) / 2},
                                                                                 typeOf(all).getElementType()),
                                                     rows, b.getI64IntegerAttr(0))
                                      .getResult();
  return SmallVector<Value>{makeCast(b, loc, flat, elt)};
}
} // namespace

void tcc::graph::populateVectorNormLegalizers(LegalizerTable &t) {
  t["aten.cdist.default"] = legalizeCdist;
  t["aten.renorm.default"] = legalizeRenorm;
  t["aten._cdist_forward.default"] = legalizeCdist;
  t["aten.pdist.default"] = legalizePdist;
  t["aten._pdist_forward.default"] = legalizePdist;
  t["aten.linalg_vector_norm.default"] = legalizeVectorNorm;
  t["aten.linalg_matrix_norm.default"] = matrixOrVectorNorm(true);
  t["aten.linalg_matrix_norm.str_ord"] = matrixOrVectorNorm(true);
  t["aten.linalg_norm.default"] = matrixOrVectorNorm(false);
  t["aten.linalg_norm.ord_str"] = matrixOrVectorNorm(false);
  t["aten._weight_norm.default"] = legalizeWeightNorm;
  t["aten.dist.default"] = legalizeDist;
  t["aten.pairwise_distance.default"] = legalizePairwiseDistance;
  t["aten.cosine_similarity.default"] = legalizeCosineSimilarity;
}
