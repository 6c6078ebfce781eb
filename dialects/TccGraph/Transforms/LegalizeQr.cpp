//===- LegalizeQr.cpp - Householder QR: geqrf, qr, orgqr, ormqr -----------===//
//
// QR by Householder reflections as generated loops, in f64, unrolled over at
// most kMaxOrder rows and columns, with LAPACK's conventions so that the
// answer is PyTorch's (QR is unique once the reflectors are fixed):
// - geqr2's step i reflects column i below the diagonal with larfg: beta =
//   -sign(alpha) * hypot(alpha, |x|), tau = (beta - alpha) / beta, v = x /
//   (alpha - beta) stored below the diagonal (v[i] = 1 implied), beta on it;
//   a column with nothing below the diagonal (x = 0, or the last row) gets
//   tau = 0 and keeps its diagonal, sign included;
// - Q = H_0 H_1 ... H_{k-1}, H_i = I - tau_i v_i v_i^T (orgqr), applied to
//   the identity's columns; ormqr applies the same product (or its
//   transpose) to a matrix from the left or the right.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/LinearAlgebra.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = LinalgResults;

/// Reflector i of a packed factorization a [B, m, n]: v [B, m, 1], 0 above
/// row i, 1 at it, a's column i below it.
Value reflector(MatrixBuilder &mb, Value a, int64_t i) {
  int64_t m = typeOf(a).getShape()[1];
  Value rowIdx = mb.rows(m);
  Value column = mb.col(a, i);
  Value below = mb.cmp("gt", rowIdx, i);
  Value belowOrZero = mb.select(below, column, 0.0);
  Value isI = mb.cmp("eq", rowIdx, i);
  return mb.select(isI, 1.0, belowOrZero);
}

/// (I - tau v v^T) x for x [B, m, p], v [B, m, 1], tau [B, 1, 1].
Value reflect(MatrixBuilder &mb, Value x, Value v, Value tau) {
  Value products = mb.bin<MulOp>(v, x);
  Value w = mb.sum(products, 1);
  Value tauV = mb.bin<MulOp>(tau, v);
  Value update = mb.bin<MulOp>(tauV, w);
  return mb.bin<SubOp>(x, update);
}

/// tau_i [B, 1, 1] of taus [B, k].
Value tauAt(MatrixBuilder &mb, Value taus, int64_t i) {
  int64_t batch = typeOf(taus).getShape()[0];
  Value slice = makeSlice(mb.b, mb.loc, taus, 1, i, i + 1, 1);
  return makeReshape(mb.b, mb.loc, slice, {batch, 1, 1});
}

/// geqr2 on a [B, m, n] (f64): the packed factorization (R on and above the
/// diagonal, the reflectors below) and tau [B, min(m, n)].
std::pair<Value, Value> factorQr(MatrixBuilder &mb, Value a) {
  ArrayRef<int64_t> shape = typeOf(a).getShape();
  int64_t batch = shape[0], m = shape[1], n = shape[2], k = std::min(m, n);
  Value rowIdx = mb.rows(m), colIdx = mb.cols(n);
  Value taus = makeSplat(mb.b, mb.loc, RankedTensorType::get({batch, k}, mb.f64), 0);
  Value stepIdx = makeIotaAt(mb.b, mb.loc, k, mb.f64, 2, 1);
  for (int64_t i = 0; i < k; ++i) {
    Value column = mb.col(a, i);
    Value alpha = mb.at(a, i, i);
    Value below = mb.cmp("gt", rowIdx, i);
    Value squares = mb.bin<MulOp>(column, column);
    Value belowSquares = mb.select(below, squares, 0.0);
    Value xSquare = mb.sum(belowSquares, 1);
    Value alphaSquare = mb.bin<MulOp>(alpha, alpha);
    Value total = mb.bin<AddOp>(alphaSquare, xSquare);
    Value hypot = mb.b.create<SqrtOp>(mb.loc, total);
    // beta = -sign(alpha) * hypot, Fortran's SIGN: +0 counts as positive.
    Value alphaNegative = mb.cmp("lt", alpha, 0);
    Value negHypot = mb.b.create<NegOp>(mb.loc, hypot);
    Value beta = mb.select(alphaNegative, hypot, negHypot);
    Value trivial = mb.cmp("eq", xSquare, 0);
    Value betaMinusAlpha = mb.bin<SubOp>(beta, alpha);
    Value tauValue = mb.bin<DivOp>(betaMinusAlpha, beta);
    Value tau = mb.select(trivial, 0.0, tauValue);
    Value alphaMinusBeta = mb.bin<SubOp>(alpha, beta);
    Value scaled = mb.bin<DivOp>(column, alphaMinusBeta);
    Value vBelow = mb.select(trivial, column, scaled);
    Value diagonal = mb.select(trivial, alpha, beta);
    // The reflector applied to the trailing columns, rows i and below.
    Value isI = mb.cmp("eq", rowIdx, i);
    Value belowOrZero = mb.select(below, vBelow, 0.0);
    Value v = mb.select(isI, 1.0, belowOrZero);
    Value reflected = reflect(mb, a, v, tau);
    Value trailingCols = mb.cmp("gt", colIdx, i);
    Value fromRowI = mb.cmp("ge", rowIdx, i);
    Value trailing = mb.both(trailingCols, fromRowI);
    Value updated = mb.select(trailing, reflected, a);
    // Column i: beta on the diagonal, v below it.
    Value columnI = mb.select(isI, diagonal, mb.select(below, vBelow, column));
    Value isColumnI = mb.cmp("eq", colIdx, i);
    a = mb.select(isColumnI, columnI, updated);
    Value tauRow = makeReshape(mb.b, mb.loc, tau, {batch, 1});
    Value atStep = mb.cmp("eq", stepIdx, i);
    taus = mb.select(atStep, tauRow, taus);
  }
  return {a, taus};
}

/// Q x = H_0 (H_1 (... H_{k-1} x)) (or Q^T x, `transpose`) for the
/// reflectors of packed a [B, m, n] and taus [B, k], x [B, m, p].
Value applyQ(MatrixBuilder &mb, Value a, Value taus, Value x, bool transpose) {
  int64_t k = typeOf(taus).getShape()[1];
  for (int64_t s = 0; s < k; ++s) {
    int64_t i = transpose ? s : k - 1 - s;
    Value v = reflector(mb, a, i);
    Value tau = tauAt(mb, taus, i);
    x = reflect(mb, x, v, tau);
  }
  return x;
}

/// The first `cols` columns of an m x m identity, [B, m, cols].
Value identityColumns(MatrixBuilder &mb, int64_t batch, int64_t m, int64_t cols) {
  Value onDiagonal = mb.grid("eq", m, cols);
  Value eye = mb.select(onDiagonal, 1.0, 0.0);
  Value zeros = makeSplat(mb.b, mb.loc, RankedTensorType::get({batch, m, cols}, mb.f64), 0);
  return mb.bin<AddOp>(eye, zeros);
}

bool allResultsEmpty(OperatorArgs &args, unsigned count) {
  for (unsigned i = 0; i < count; ++i)
    if (!hasNoElements(args.resultType(i)))
      return false;
  return true;
}

/// geqrf(self): (the packed factorization, tau).
Results geqrf(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Batched> a = batchedOperand(args, b, "self", false);
  if (failed(a))
    return failure();
  if (allResultsEmpty(args, 2))
    return constantResults(args, b, {0.0, 0.0});
  if (std::min(a->rows, a->cols) == 0)
    return operatorError(args) << "of an empty batch with non-empty results is not supported";
  Location loc = args.getOp().getLoc();
  MatrixBuilder mb{b, loc, b.getF64Type()};
  auto [packed, taus] = factorQr(mb, a->x);
  int64_t k = std::min(a->rows, a->cols);
  return SmallVector<Value>{unbatch(b, loc, packed, a->batch, {a->rows, a->cols}, a->elt),
                            unbatch(b, loc, taus, a->batch, {k}, a->elt)};
}

/// linalg.qr(A, mode) and qr(self, some): (Q, R); mode 'reduced' (Q
/// [m, k], R [k, n]), 'complete' (Q [m, m], R [m, n]) or 'r' (Q empty).
LegalizeFn qr(StringRef operand, bool torchQr) {
  return [operand = operand.str(), torchQr](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Batched> a = batchedOperand(args, b, operand, false);
    if (failed(a))
      return failure();
    std::string mode = "reduced";
    if (torchQr) {
      if (!args.getBool("some").value_or(true))
        mode = "complete";
    } else if (auto attr = dyn_cast_or_null<StringAttr>(args.getOp().getArgs().get("mode"))) {
      mode = attr.getValue().str();
    }
    if (mode != "reduced" && mode != "complete" && mode != "r")
      return operatorError(args) << "needs mode 'reduced', 'complete' or 'r', not '" << mode << "'";
    if (allResultsEmpty(args, 2))
      return constantResults(args, b, {0.0, 0.0});
    int64_t m = a->rows, n = a->cols, k = std::min(m, n);
    if (k == 0)
      return operatorError(args) << "of empty matrices with non-empty results is not supported";
    Location loc = args.getOp().getLoc();
    MatrixBuilder mb{b, loc, b.getF64Type()};
    auto [packed, taus] = factorQr(mb, a->x);
    int64_t rRows = mode == "complete" ? m : k;
    Value rRowsOfPacked = makeSlice(b, loc, packed, 1, 0, rRows, 1);
    Value upper = mb.grid("le", rRows, n);
    Value r = mb.select(upper, rRowsOfPacked, 0.0);
    Value rOut = unbatch(b, loc, r, a->batch, {rRows, n}, a->elt);
    Value qOut;
    if (mode == "r") {
      qOut = makeSplat(b, loc, args.resultType(0), 0);
    } else {
      int64_t qCols = mode == "complete" ? m : k;
      int64_t count = typeOf(a->x).getShape()[0];
      Value eye = identityColumns(mb, count, m, qCols);
      Value q = applyQ(mb, packed, taus, eye, /*transpose=*/false);
      qOut = unbatch(b, loc, q, a->batch, {m, qCols}, a->elt);
    }
    return SmallVector<Value>{qOut, rOut};
  };
}

/// The reflectors `input` [..., m, n] and their taus [..., k] as [B, m, n]
/// and [B, k] in f64, with one batch shape; an error otherwise.
FailureOr<std::pair<Batched, Value>> reflectorOperands(OperatorArgs &args, OpBuilder &b,
                                                       StringRef aName, StringRef tauName) {
  FailureOr<Batched> a = batchedOperand(args, b, aName, false);
  FailureOr<Value> tau = requiredTensor(args, tauName);
  if (failed(a) || failed(tau))
    return failure();
  RankedTensorType tt = typeOf(*tau);
  if (!tt.hasStaticShape() || tt.getRank() != static_cast<int64_t>(a->batch.size()) + 1 ||
      tt.getShape().drop_back() != ArrayRef<int64_t>(a->batch) ||
      tt.getShape().back() > std::min(a->rows, a->cols) || tt.getElementType() != a->elt)
    return operatorError(args) << "needs tau with the reflectors' batch dims, at most min(m, n) "
                                  "of them, of their type, not "
                               << tt;
  Location loc = args.getOp().getLoc();
  int64_t count = typeOf(a->x).getShape()[0];
  Value flat = makeReshape(b, loc, *tau, {count, tt.getShape().back()});
  Value taus = makeCast(b, loc, flat, b.getF64Type());
  return std::make_pair(*a, taus);
}

/// linalg.householder_product(input, tau): the first n columns of
/// H_0 ... H_{k-1} (orgqr).
Results householderProduct(OperatorArgs &args, OpBuilder &b) {
  auto operands = reflectorOperands(args, b, "input", "tau");
  if (failed(operands))
    return failure();
  auto &[a, taus] = *operands;
  if (hasNoElements(args.resultType()))
    return constantResults(args, b, {0.0});
  Location loc = args.getOp().getLoc();
  MatrixBuilder mb{b, loc, b.getF64Type()};
  int64_t count = typeOf(a.x).getShape()[0];
  Value eye = identityColumns(mb, count, a.rows, a.cols);
  Value q = applyQ(mb, a.x, taus, eye, /*transpose=*/false);
  return SmallVector<Value>{unbatch(b, loc, q, a.batch, {a.rows, a.cols}, a.elt)};
}

/// ormqr(self, input2 = tau, input3 = C, left, transpose): Q C, Q^T C, C Q
/// or C Q^T, Q = H_0 ... H_{k-1} from the reflectors in `self`.
Results ormqr(OperatorArgs &args, OpBuilder &b) {
  auto operands = reflectorOperands(args, b, "self", "input2");
  FailureOr<Batched> c = batchedOperand(args, b, "input3", false);
  if (failed(operands) || failed(c))
    return failure();
  auto &[a, taus] = *operands;
  bool left = args.getBool("left").value_or(true);
  bool transpose = args.getBool("transpose").value_or(false);
  if (c->batch != a.batch || c->elt != a.elt || (left ? c->rows : c->cols) != a.rows)
    return operatorError(args) << "needs C of the reflectors' batch dims and type, with as many "
                                  "rows (left) or columns (right) as they have rows";
  if (hasNoElements(args.resultType()))
    return constantResults(args, b, {0.0});
  Location loc = args.getOp().getLoc();
  MatrixBuilder mb{b, loc, b.getF64Type()};
  Value x = c->x;
  // C Q = (Q^T C^T)^T and C Q^T = (Q C^T)^T.
  if (!left)
    x = transposeLast2(b, loc, x);
  x = applyQ(mb, a.x, taus, x, left ? transpose : !transpose);
  if (!left)
    x = transposeLast2(b, loc, x);
  return SmallVector<Value>{unbatch(b, loc, x, c->batch, {c->rows, c->cols}, c->elt)};
}
} // namespace

void tcc::graph::populateQrLegalizers(LegalizerTable &t) {
  t["aten.geqrf.default"] = geqrf;
  t["aten.linalg_qr.default"] = qr("A", false);
  t["aten.qr.default"] = qr("self", true);
  t["aten.linalg_householder_product.default"] = householderProduct;
  t["aten.ormqr.default"] = ormqr;
}
