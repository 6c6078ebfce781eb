//===- LegalizeSymmetricEigen.cpp - eigvalsh, eigh by Jacobi rotations ----===//
//
// The symmetric eigen-decomposition as generated loops: cyclic Jacobi
// rotations (Numerical Recipes' stable angle) unrolled over at most
// kMaxJacobiOrder rows, in f64, the rotations accumulated into the
// eigenvectors when they are asked for. Eigenvalues come out ascending, as
// LAPACK's syevd. Eigenvectors are unique only up to sign (PyTorch documents
// this; its CPU and CUDA answers differ): each is returned with its
// largest-magnitude element positive, a deterministic choice.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/LinearAlgebra.h"

using namespace mlir;
using namespace tcc::graph;

Value tcc::graph::sortingPermutation(MatrixBuilder &mb, Value d, bool descending) {
  int64_t batch = typeOf(d).getShape()[0], n = typeOf(d).getShape()[1];
  Value di = makeReshape(mb.b, mb.loc, d, {batch, n, 1});
  Value dj = makeReshape(mb.b, mb.loc, d, {batch, 1, n});
  Value i = mb.rows(n), j = mb.cols(n);
  // The rank of element i: how many elements come before it.
  Value ahead = mb.cmp(descending ? "gt" : "lt", dj, di);
  Value equal = mb.cmp("eq", dj, di);
  Value earlier = mb.cmp("lt", j, i);
  Value tied = mb.both(equal, earlier);
  Value before = makeBinary<BitwiseOrOp>(mb.b, mb.loc, ahead, tied);
  Value count = makeCast(mb.b, mb.loc, before, mb.f64);
  Value rank = makeReduce<ReduceSumOp>(mb.b, mb.loc, count, {2}, true);
  Value position = mb.cols(n);
  Value atPosition = mb.cmp("eq", rank, position);
  return mb.select(atPosition, 1.0, 0.0);
}

Value tcc::graph::sortRows(MatrixBuilder &mb, Value d, bool descending) {
  int64_t batch = typeOf(d).getShape()[0], n = typeOf(d).getShape()[1];
  Value p = sortingPermutation(mb, d, descending);
  Value di = makeReshape(mb.b, mb.loc, d, {batch, n, 1});
  Value moves = mb.cmp("eq", p, 1);
  Value placed = mb.select(moves, di, 0.0);
  return makeReduce<ReduceSumOp>(mb.b, mb.loc, placed, {1}, false);
}

Value tcc::graph::permuteColumns(MatrixBuilder &mb, Value x, Value p) {
  ArrayRef<int64_t> shape = typeOf(x).getShape();
  int64_t batch = shape[0], m = shape[1], n = shape[2];
  Value source = makeReshape(mb.b, mb.loc, x, {batch, m, n, 1});
  Value moves = makeReshape(mb.b, mb.loc, p, {batch, 1, n, n});
  Value isMove = mb.cmp("eq", moves, 1);
  Value placed = mb.select(isMove, source, 0.0);
  return makeReduce<ReduceSumOp>(mb.b, mb.loc, placed, {2}, false);
}

Value tcc::graph::columnSigns(MatrixBuilder &mb, Value x) {
  int64_t m = typeOf(x).getShape()[1];
  Value magnitude = mb.b.create<AbsOp>(mb.loc, x);
  Value largest = makeReduce<ReduceMaxOp>(mb.b, mb.loc, magnitude, {1}, true);
  Value isLargest = mb.cmp("eq", magnitude, largest);
  // The first row holding the largest magnitude: max of -(row or m).
  Value rowIdx = mb.rows(m);
  Value rowOrEnd = mb.select(isLargest, rowIdx, mb.c(m));
  Value negated = mb.b.create<NegOp>(mb.loc, rowOrEnd);
  Value firstNegated = makeReduce<ReduceMaxOp>(mb.b, mb.loc, negated, {1}, true);
  Value first = mb.b.create<NegOp>(mb.loc, firstNegated);
  Value isFirst = mb.cmp("eq", rowIdx, first);
  Value picked = mb.select(isFirst, x, 0.0);
  Value lead = mb.sum(picked, 1);
  Value negative = mb.cmp("lt", lead, 0);
  return mb.select(negative, -1.0, 1.0);
}

Value tcc::graph::normalizeColumnSigns(MatrixBuilder &mb, Value x) {
  Value sign = columnSigns(mb, x);
  return mb.bin<MulOp>(x, sign);
}

std::pair<Value, Value> tcc::graph::jacobiRotation(MatrixBuilder &mb, Value first, Value second,
                                                   Value offDiagonal) {
  Value diff = mb.bin<SubOp>(second, first);
  Value twice = mb.bin<MulOp>(offDiagonal, mb.c(2));
  Value theta = mb.bin<DivOp>(diff, twice);
  Value square = mb.bin<MulOp>(theta, theta);
  Value squarePlusOne = mb.bin<AddOp>(square, mb.c(1));
  Value root = mb.b.create<SqrtOp>(mb.loc, squarePlusOne);
  Value magnitude = mb.b.create<AbsOp>(mb.loc, theta);
  Value denominator = mb.bin<AddOp>(magnitude, root);
  Value negativeTheta = mb.cmp("lt", theta, 0);
  Value signTheta = mb.select(negativeTheta, -1.0, 1.0);
  Value tangent = mb.bin<DivOp>(signTheta, denominator);
  Value noRotation = mb.cmp("eq", offDiagonal, 0);
  Value t = mb.select(noRotation, 0.0, tangent);
  Value tSquare = mb.bin<MulOp>(t, t);
  Value tSquarePlusOne = mb.bin<AddOp>(tSquare, mb.c(1));
  Value cs = mb.b.create<RsqrtOp>(mb.loc, tSquarePlusOne);
  Value sn = mb.bin<MulOp>(t, cs);
  return {cs, sn};
}

Value tcc::graph::rotatePair(MatrixBuilder &mb, Value x, Value first, Value second, Value cs,
                             Value sn, Value idx, int64_t p, int64_t q) {
  Value cFirst = mb.bin<MulOp>(cs, first);
  Value sSecond = mb.bin<MulOp>(sn, second);
  Value newFirst = mb.bin<SubOp>(cFirst, sSecond);
  Value sFirst = mb.bin<MulOp>(sn, first);
  Value cSecond = mb.bin<MulOp>(cs, second);
  Value newSecond = mb.bin<AddOp>(sFirst, cSecond);
  Value isQ = mb.cmp("eq", idx, q);
  Value atQ = mb.select(isQ, newSecond, x);
  Value isP = mb.cmp("eq", idx, p);
  return mb.select(isP, newFirst, atQ);
}

std::pair<Value, Value> tcc::graph::symmetricEigen(MatrixBuilder &mb, Value a, bool withVectors) {
  int64_t n = typeOf(a).getShape()[1];
  Value rowIdx = mb.rows(n), colIdx = mb.cols(n);
  Value v = withVectors ? identityLike(mb, a) : Value();
  for (int64_t sweep = 0; sweep < kJacobiSweeps; ++sweep) {
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        Value app = mb.at(a, p, p);
        Value aqq = mb.at(a, q, q);
        Value apq = mb.at(a, p, q);
        auto [cs, sn] = jacobiRotation(mb, app, aqq, apq);
        Value rowP = mb.row(a, p);
        Value rowQ = mb.row(a, q);
        a = rotatePair(mb, a, rowP, rowQ, cs, sn, rowIdx, p, q);
        Value colP = mb.col(a, p);
        Value colQ = mb.col(a, q);
        a = rotatePair(mb, a, colP, colQ, cs, sn, colIdx, p, q);
        if (withVectors) {
          Value vP = mb.col(v, p);
          Value vQ = mb.col(v, q);
          v = rotatePair(mb, v, vP, vQ, cs, sn, colIdx, p, q);
        }
      }
    }
  }
  Value d = mb.diagonal(a);
  if (!withVectors)
    return {sortRows(mb, d, /*descending=*/false), Value()};
  Value order = sortingPermutation(mb, d, /*descending=*/false);
  Value sorted = sortRows(mb, d, /*descending=*/false);
  Value vectors = permuteColumns(mb, v, order);
  return {sorted, normalizeColumnSigns(mb, vectors)};
}

FailureOr<bool> tcc::graph::lowerTriangleArgument(OperatorArgs &args) {
  std::string uplo = "L";
  if (auto attr = dyn_cast_or_null<StringAttr>(args.getOp().getArgs().get("UPLO")))
    uplo = attr.getValue().str();
  if (uplo != "L" && uplo != "U" && uplo != "l" && uplo != "u")
    return operatorError(args) << "needs UPLO 'L' or 'U', not '" << uplo << "'";
  return uplo == "L" || uplo == "l";
}

Value tcc::graph::symmetricFromTriangle(MatrixBuilder &mb, Value a, bool lower) {
  int64_t n = typeOf(a).getShape()[1];
  Value kept = mb.grid(lower ? "ge" : "le", n, n);
  Value transposed = transposeLast2(mb.b, mb.loc, a);
  return mb.select(kept, a, transposed);
}

namespace {
using Results = LinalgResults;

/// linalg.eigvalsh(A, UPLO) and linalg.eigh(A, UPLO) (`withVectors`): the
/// eigenvalues (ascending) of the symmetric matrix whose lower (L) or upper
/// (U) triangle A holds, and its eigenvectors as columns.
LegalizeFn eigen(bool withVectors) {
  return [withVectors](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Batched> a = batchedOperand(args, b, "self", true, kMaxJacobiOrder);
    if (failed(a))
      return failure();
    SmallVector<double> fill(withVectors ? 2 : 1, 0.0);
    if (std::optional<SmallVector<Value>> empty = emptyResults(args, b, *a, fill))
      return *empty;
    FailureOr<bool> lower = lowerTriangleArgument(args);
    if (failed(lower))
      return failure();
    Location loc = args.getOp().getLoc();
    MatrixBuilder mb{b, loc, b.getF64Type()};
    int64_t n = a->rows;
    Value symmetric = symmetricFromTriangle(mb, a->x, *lower);
    auto [values, vectors] = symmetricEigen(mb, symmetric, withVectors);
    SmallVector<Value> results{unbatch(b, loc, values, a->batch, {n}, a->elt)};
    if (withVectors)
      results.push_back(unbatch(b, loc, vectors, a->batch, {n, n}, a->elt));
    return results;
  };
}
} // namespace

void tcc::graph::populateSymmetricEigenLegalizers(LegalizerTable &t) {
  t["aten.linalg_eigvalsh.default"] = eigen(false);
  t["aten.linalg_eigh.default"] = eigen(true);
}
