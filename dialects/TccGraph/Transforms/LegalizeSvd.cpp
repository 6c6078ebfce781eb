//===- LegalizeSvd.cpp - singular values, vectors, and what uses them -----===//
//
// The singular value decomposition as generated loops: one-sided Jacobi
// (Hestenes) rotations of the columns of A (of A^T when it is wide), unrolled
// over at most kMaxJacobiOrder rows and columns, in f64. Each rotation
// makes two columns orthogonal; at the end the column norms are the singular
// values (to f64's relative accuracy, small ones included), the normalized
// columns the left vectors and the accumulated rotations the right ones.
//
// On top of it: linalg.svd, svd, linalg.svdvals, linalg.pinv (and
// pinverse), linalg.matrix_rank, linalg.cond. Singular vectors are unique
// only up to sign (PyTorch documents this; its CPU and CUDA answers differ):
// each left vector is returned with its largest-magnitude element positive,
// its right vector flipped with it. A zero singular value leaves its vectors
// undetermined: linalg.svd and svd then fail the call at run time rather than
// return a vector no one chose; the full_matrices completion of a
// non-square matrix (an arbitrary basis of the complement) is refused.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/LinearAlgebra.h"

#include <limits>

using namespace mlir;
using namespace tcc::graph;

SvdFactors tcc::graph::singularValueDecomposition(MatrixBuilder &mb, Value a, bool withVectors) {
  ArrayRef<int64_t> shape = typeOf(a).getShape();
  bool wide = shape[1] < shape[2];
  Value w = wide ? transposeLast2(mb.b, mb.loc, a) : a;
  int64_t batch = shape[0], n = typeOf(w).getShape()[2];
  Value colIdx = mb.cols(n);
  Value v;
  if (withVectors)
    v = identityLike(mb, makeSplat(mb.b, mb.loc, RankedTensorType::get({batch, n, n}, mb.f64), 0));
  for (int64_t sweep = 0; sweep < kJacobiSweeps; ++sweep) {
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        // The rotation that diagonalizes [[alpha, gamma], [gamma, beta]],
        // the Gram matrix of columns p and q (as the two-sided Jacobi); none
        // where they are already orthogonal.
        Value wp = mb.col(w, p);
        Value wq = mb.col(w, q);
        Value pp = mb.bin<MulOp>(wp, wp);
        Value alpha = mb.sum(pp, 1);
        Value qq = mb.bin<MulOp>(wq, wq);
        Value beta = mb.sum(qq, 1);
        Value pq = mb.bin<MulOp>(wp, wq);
        Value gamma = mb.sum(pq, 1);
        auto [cs, sn] = jacobiRotation(mb, alpha, beta, gamma);
        w = rotatePair(mb, w, wp, wq, cs, sn, colIdx, p, q);
        if (withVectors) {
          Value vp = mb.col(v, p);
          Value vq = mb.col(v, q);
          v = rotatePair(mb, v, vp, vq, cs, sn, colIdx, p, q);
        }
      }
    }
  }
  Value squares = mb.bin<MulOp>(w, w);
  Value sumSquares = makeReduce<ReduceSumOp>(mb.b, mb.loc, squares, {1}, false);
  Value norms = mb.b.create<SqrtOp>(mb.loc, sumSquares);
  Value s = sortRows(mb, norms, /*descending=*/true);
  if (!withVectors)
    return {Value(), s, Value()};
  Value order = sortingPermutation(mb, norms, /*descending=*/true);
  Value left = permuteColumns(mb, w, order);
  Value right = permuteColumns(mb, v, order);
  Value sRow = makeReshape(mb.b, mb.loc, s, {batch, 1, n});
  Value scaled = mb.bin<DivOp>(left, sRow);
  Value positive = mb.cmp("gt", sRow, 0);
  left = mb.select(positive, scaled, 0.0);
  // One sign per singular triple: from the left vector, given to both.
  Value sign = columnSigns(mb, left);
  left = mb.bin<MulOp>(left, sign);
  right = mb.bin<MulOp>(right, sign);
  if (wide)
    std::swap(left, right);
  return {left, s, right};
}

namespace {
using Results = LinalgResults;

/// An operand for the one-sided Jacobi: at most kMaxJacobiOrder rows or
/// columns (the smaller side), at most kMaxJacobiLength the other;
/// `square`: square matrices of at most kMaxJacobiOrder (symmetric eigen).
FailureOr<Batched> jacobiOperand(OperatorArgs &args, OpBuilder &b, StringRef name,
                                 bool square = false) {
  FailureOr<Batched> a =
      batchedOperand(args, b, name, square, square ? kMaxJacobiOrder : kMaxJacobiLength);
  if (failed(a))
    return failure();
  if (std::min(a->rows, a->cols) > kMaxJacobiOrder)
    return operatorError(args) << "supports matrices with at most " << kMaxJacobiOrder
                               << " rows or columns (its Jacobi sweeps are unrolled), not "
                               << a->rows << " x " << a->cols;
  return a;
}

/// `x` checked at run time to come from matrices with no zero singular
/// value (whose singular vectors are undetermined).
Value checkNoZeroSingularValue(MatrixBuilder &mb, OperatorArgs &args, Value x, Value s) {
  Value zero = mb.cmp("eq", s, 0);
  Value zeros = makeCast(mb.b, mb.loc, zero, mb.f64);
  int64_t batch = typeOf(s).getShape()[0];
  Value count = makeReduce<ReduceSumOp>(mb.b, mb.loc, zeros, {1}, false);
  SmallVector<int64_t> shape(typeOf(x).getRank(), 1);
  shape[0] = batch;
  Value countShaped = makeReshape(mb.b, mb.loc, count, shape);
  Value ok = mb.cmp("eq", countShaped, 0);
  std::string message =
      (operatorName(args) + ": the input has a zero singular value, whose singular vectors are "
                            "any basis of a subspace; tcc does not choose one")
          .str();
  return mb.b.create<CheckOp>(mb.loc, x.getType(), ok, x, mb.b.getStringAttr(message));
}

/// linalg.svd(A, full_matrices) -> (U, S, Vh) and svd(self, some,
/// compute_uv) -> (U, S, V) (`returnsV`).
LegalizeFn svd(StringRef operand, StringRef fullName, bool fullWhenTrue, bool returnsV) {
  return [operand = operand.str(), fullName = fullName.str(), fullWhenTrue,
          returnsV](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Batched> a = jacobiOperand(args, b, operand);
    if (failed(a))
      return failure();
    if (!args.getBool("compute_uv").value_or(true))
      return operatorError(args) << "with compute_uv=False is not supported";
    // linalg.svd's full_matrices (default True), svd's some (default True,
    // full when False).
    bool flag = args.getBool(fullName).value_or(true);
    bool full = fullWhenTrue ? flag : !flag;
    int64_t m = a->rows, n = a->cols, k = std::min(m, n);
    bool anyElements = false;
    for (unsigned i = 0; i < 3; ++i)
      anyElements |= !hasNoElements(args.resultType(i));
    if (!anyElements)
      return constantResults(args, b, {0.0, 0.0, 0.0});
    if (full && m != n)
      return operatorError(args) << "with full matrices of a non-square matrix is not supported "
                                    "(the completing columns are an arbitrary basis), not "
                                 << m << " x " << n;
    if (k == 0 || hasNoElements(args.resultType(1)))
      return operatorError(args) << "of an empty batch or empty matrices with non-empty "
                                    "results is not supported";
    Location loc = args.getOp().getLoc();
    MatrixBuilder mb{b, loc, b.getF64Type()};
    SvdFactors f = singularValueDecomposition(mb, a->x, /*withVectors=*/true);
    Value u = checkNoZeroSingularValue(mb, args, f.u, f.s);
    Value v = checkNoZeroSingularValue(mb, args, f.v, f.s);
    Value vOut = returnsV ? v : transposeLast2(b, loc, v);
    SmallVector<int64_t> vShape = returnsV ? SmallVector<int64_t>{n, k} : SmallVector<int64_t>{k, n};
    return SmallVector<Value>{unbatch(b, loc, u, a->batch, {m, k}, a->elt),
                              unbatch(b, loc, f.s, a->batch, {k}, a->elt),
                              unbatch(b, loc, vOut, a->batch, vShape, a->elt)};
  };
}

/// linalg.svdvals(A): the singular values, descending.
Results svdvals(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Batched> a = jacobiOperand(args, b, "A");
  if (failed(a))
    return failure();
  int64_t k = std::min(a->rows, a->cols);
  if (k == 0 || hasNoElements(args.resultType()))
    return constantResults(args, b, {0.0});
  Location loc = args.getOp().getLoc();
  MatrixBuilder mb{b, loc, b.getF64Type()};
  SvdFactors f = singularValueDecomposition(mb, a->x, /*withVectors=*/false);
  return SmallVector<Value>{unbatch(b, loc, f.s, a->batch, {k}, a->elt)};
}

/// What pinv and matrix_rank decompose a [B, m, n] (f64) into: with
/// `hermitian` (PyTorch reads the lower triangle) the eigenvalues and
/// eigenvectors (left = right), else the singular values and vectors;
/// `magnitude` the values' absolute values [B, k].
struct Spectrum {
  Value left, values, right, magnitude;
};

Spectrum spectrum(MatrixBuilder &mb, Value a, bool hermitian, bool withVectors) {
  if (hermitian) {
    Value symmetric = symmetricFromTriangle(mb, a, /*lower=*/true);
    auto [values, vectors] = symmetricEigen(mb, symmetric, withVectors);
    Value magnitude = mb.b.create<AbsOp>(mb.loc, values);
    return {vectors, values, vectors, magnitude};
  }
  SvdFactors f = singularValueDecomposition(mb, a, withVectors);
  return {f.u, f.s, f.v, f.s};
}

/// PyTorch's tolerance for pinv and matrix_rank [B, 1]: max(atol, rtol *
/// largest), where rtol defaults to eps * max(m, n) (eps of the operand's
/// type), or to 0 where an atol > 0 is given. `largest` [B, 1].
struct Tolerance {
  Value atol, rtol; // [B, 1] each, f64
};

FailureOr<Value> toleranceOperand(OperatorArgs &args, OpBuilder &b, StringRef name,
                                  ArrayRef<int64_t> batch, int64_t count) {
  Value t = args.tensor(name);
  Location loc = args.getOp().getLoc();
  if (!t) {
    std::optional<double> v = args.getFloat(name);
    if (!v)
      return Value();
    return makeSplat(b, loc, RankedTensorType::get({count, 1}, b.getF64Type()), *v);
  }
  RankedTensorType type = typeOf(t);
  if (!type.hasStaticShape() || type.getRank() > static_cast<int64_t>(batch.size()) ||
      failed(broadcastShapes(type.getShape(), batch)) ||
      *broadcastShapes(type.getShape(), batch) != batch)
    return operatorError(args) << "needs '" << name << "' that broadcasts to the batch dims, not "
                               << type;
  Value x = makeCast(b, loc, t, b.getF64Type());
  if (type.getShape() != batch)
    x = b.create<BroadcastOp>(loc, RankedTensorType::get(batch, b.getF64Type()), x);
  return makeReshape(b, loc, x, {count, 1});
}

/// The keep mask [B, k] (i1) of PyTorch's pinv and matrix_rank: s > tol,
/// s [B, k] the singular values (or |eigenvalues|), largest [B, 1].
FailureOr<Value> aboveTolerance(OperatorArgs &args, MatrixBuilder &mb, Value s, Value largest,
                                const Batched &a) {
  int64_t count = typeOf(s).getShape()[0];
  FailureOr<Value> atol = toleranceOperand(args, mb.b, "atol", a.batch, count);
  FailureOr<Value> rtol = toleranceOperand(args, mb.b, "rtol", a.batch, count);
  if (failed(atol) || failed(rtol))
    return failure();
  double eps = a.elt.isF32() ? std::numeric_limits<float>::epsilon()
                             : std::numeric_limits<double>::epsilon();
  Value defaultRtol = mb.c(eps * static_cast<double>(std::max(a.rows, a.cols)));
  Value r = *rtol;
  if (!r)
    r = *atol ? mb.select(mb.cmp("gt", *atol, 0), 0.0, defaultRtol) : defaultRtol;
  Value at = *atol ? *atol : mb.c(0);
  Value relative = mb.bin<MulOp>(r, largest);
  Value tol = mb.bin<MaximumOp>(at, relative);
  return mb.cmp("gt", s, tol);
}

/// linalg.pinv(A, atol, rtol, hermitian) and pinverse(A, rcond): V
/// diag(1/s where s > tol) U^T, or through the eigen-decomposition of the
/// symmetric matrix A's lower triangle holds (hermitian, as PyTorch).
LegalizeFn pinv(StringRef operand) {
  return [operand = operand.str()](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Batched> a = jacobiOperand(args, b, operand);
    if (failed(a))
      return failure();
    if (std::optional<SmallVector<Value>> empty = emptyResults(args, b, *a, {0.0}))
      return *empty;
    Location loc = args.getOp().getLoc();
    MatrixBuilder mb{b, loc, b.getF64Type()};
    int64_t m = a->rows, n = a->cols;
    bool hermitian = args.getBool("hermitian").value_or(false);
    if (hermitian && m != n)
      return operatorError(args) << "with hermitian=True needs square matrices";
    Spectrum f = spectrum(mb, a->x, hermitian, /*withVectors=*/true);
    Value left = f.left, right = f.right, s = f.values, magnitude = f.magnitude;
    Value largest = makeReduce<ReduceMaxOp>(b, loc, magnitude, {1}, true);
    Value keep;
    if (args.has("rcond") && !args.has("rtol")) {
      // pinverse(A, rcond) is pinv(A, rtol=rcond).
      double rcond = args.getFloat("rcond").value_or(1e-15);
      Value relative = mb.bin<MulOp>(mb.c(rcond), largest);
      keep = mb.cmp("gt", magnitude, relative);
    } else {
      FailureOr<Value> above = aboveTolerance(args, mb, magnitude, largest, *a);
      if (failed(above))
        return failure();
      keep = *above;
    }
    Value inverse = mb.bin<DivOp>(mb.c(1), s);
    s = mb.select(keep, inverse, 0.0);
    int64_t count = typeOf(s).getShape()[0], k = typeOf(s).getShape()[1];
    Value sRow = makeReshape(b, loc, s, {count, 1, k});
    Value scaled = mb.bin<MulOp>(right, sRow);
    Value leftT = transposeLast2(b, loc, left);
    Value x = makeMatmul(b, loc, scaled, leftT);
    return SmallVector<Value>{unbatch(b, loc, x, a->batch, {n, m}, a->elt)};
  };
}

/// linalg.matrix_rank(A, atol, rtol, hermitian): how many singular values
/// (|eigenvalues| with hermitian) exceed PyTorch's tolerance.
Results matrixRank(OperatorArgs &args, OpBuilder &b) {
  StringRef operand = args.tensor("input") ? "input" : "self";
  FailureOr<Batched> a = jacobiOperand(args, b, operand);
  if (failed(a))
    return failure();
  if (std::optional<SmallVector<Value>> empty = emptyResults(args, b, *a, {0.0}))
    return *empty;
  Location loc = args.getOp().getLoc();
  MatrixBuilder mb{b, loc, b.getF64Type()};
  bool hermitian = args.getBool("hermitian").value_or(false);
  if (hermitian && a->rows != a->cols)
    return operatorError(args) << "with hermitian=True needs square matrices";
  Value magnitude = spectrum(mb, a->x, hermitian, /*withVectors=*/false).magnitude;
  Value largest = makeReduce<ReduceMaxOp>(b, loc, magnitude, {1}, true);
  FailureOr<Value> keep = aboveTolerance(args, mb, magnitude, largest, *a);
  if (failed(keep))
    return failure();
  Value ones = makeCast(b, loc, *keep, mb.f64);
  Value rank = makeReduce<ReduceSumOp>(b, loc, ones, {1}, false);
  RankedTensorType rt = args.resultType();
  return SmallVector<Value>{unbatch(b, loc, rank, a->batch, {}, rt.getElementType())};
}

/// linalg.cond(A, p) for p None, 2, -2: the ratio of the largest and the
/// smallest singular values (inf for a singular matrix, as PyTorch).
Results cond(OperatorArgs &args, OpBuilder &b) {
  double p = 2;
  Attribute pAttr = args.getOp().getArgs().get("p");
  std::optional<double> given = args.getFloat("p");
  if ((pAttr && !isa<UnitAttr>(pAttr) && !given) || (given && *given != 2 && *given != -2))
    return operatorError(args) << "supports p None, 2 and -2 (through singular values) only";
  if (given)
    p = *given;
  FailureOr<Batched> a = jacobiOperand(args, b, "self");
  if (failed(a))
    return failure();
  if (std::min(a->rows, a->cols) == 0 || hasNoElements(args.resultType()))
    return operatorError(args) << "of empty matrices is not supported";
  Location loc = args.getOp().getLoc();
  MatrixBuilder mb{b, loc, b.getF64Type()};
  Value s = singularValueDecomposition(mb, a->x, /*withVectors=*/false).s;
  int64_t k = typeOf(s).getShape()[1];
  Value largest = makeSlice(b, loc, s, 1, 0, 1, 1);
  Value smallest = makeSlice(b, loc, s, 1, k - 1, k, 1);
  Value ratio = p > 0 ? mb.bin<DivOp>(largest, smallest) : mb.bin<DivOp>(smallest, largest);
  return SmallVector<Value>{unbatch(b, loc, ratio, a->batch, {}, args.resultType().getElementType())};
}
} // namespace

void tcc::graph::populateSvdLegalizers(LegalizerTable &t) {
  t["aten.linalg_svd.default"] = svd("A", "full_matrices", true, false);
  t["aten.svd.default"] = svd("self", "some", false, true);
  t["aten.linalg_svdvals.default"] = svdvals;
  t["aten.linalg_pinv.atol_rtol_tensor"] = pinv("self");
  t["aten.linalg_pinv.atol_rtol_float"] = pinv("self");
  t["aten.pinverse.default"] = pinv("self");
  t["aten.linalg_matrix_rank.atol_rtol_tensor"] = matrixRank;
  t["aten.linalg_matrix_rank.atol_rtol_float"] = matrixRank;
  t["aten.linalg_cond.default"] = cond;
}
