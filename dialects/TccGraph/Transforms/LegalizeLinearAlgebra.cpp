//===- LegalizeLinearAlgebra.cpp - determinants, inverses, solves ---------===//
//
// The LAPACK-backed operators of torch.linalg, built from typed tcc_graph
// ops as generated loops (no library call), so the CPU and CUDA paths share
// them. Each factorization is unrolled over the matrix order (static, at
// most kMaxOrder) on a batch of matrices [B, m, n]; one step is a handful of
// pointwise ops and small reductions under masks from row and column iotas.
//
// - LU with partial pivoting, as LAPACK's getrf: at step k the row of the
//   first largest |a[r][k]|, r >= k, is swapped up (isamax's choice); a zero
//   pivot leaves its column unscaled and sets info to k + 1 (the first one).
// - Triangular solves by substitution, a row at a time.
//
// Why generated loops and not a call to LAPACK (which PyTorch's CPU path
// calls, in float32): the same code serves the CUDA path, and computing in
// float64 (as here, for float32 operands) puts the answer within float32
// rounding of the exact one, which is as close to PyTorch's float32 LAPACK
// answer as LAPACK's own blocked rounding is; measured on the OpInfo samples
// (COVERAGE.md). Where PyTorch raises on the computed value (a singular
// matrix given to inv or solve) a tcc_graph.check fails the call at run
// time, naming the operator's line; the _ex variants return the info code.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/LinearAlgebra.h"

#include <limits>
#include <optional>

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = LinalgResults;

/// A factored batch: `lu` holds L below the diagonal (unit diagonal implied)
/// and U on and above it; `perm` [B, m, 1] the original row now at each row;
/// `pivots` [B, min(m, n)] the row (0-based) swapped into place at each step;
/// `sign` [B, 1, 1] the permutation's parity (+-1); `info` [B, 1, 1] the
/// first zero pivot's 1-based step, else 0.
struct LUFactors {
  Value lu, perm, pivots, sign, info;
};

LUFactors factorLU(MatrixBuilder &mb, Value a) {
  ArrayRef<int64_t> shape = typeOf(a).getShape();
  int64_t batch = shape[0], m = shape[1], n = shape[2], steps = std::min(m, n);
  Value rowIdx = mb.rows(m), colIdx = mb.cols(n);
  Value perm = mb.bin<AddOp>(
      rowIdx, makeSplat(mb.b, mb.loc, RankedTensorType::get({batch, m, 1}, mb.f64), 0));
  Value sign = makeSplat(mb.b, mb.loc, RankedTensorType::get({batch, 1, 1}, mb.f64), 1);
  Value info = makeSplat(mb.b, mb.loc, RankedTensorType::get({batch, 1, 1}, mb.f64), 0);
  Value pivots = makeSplat(mb.b, mb.loc, RankedTensorType::get({batch, steps}, mb.f64), 0);
  Value stepIdx = makeIotaAt(mb.b, mb.loc, steps, mb.f64, 2, 1);
  for (int64_t k = 0; k < steps; ++k) {
    // The pivot row: the first largest |a[r][k]| with r >= k (LAPACK's isamax).
    // A NaN column matches no maximum and keeps row k.
    Value magnitude = mb.b.create<AbsOp>(mb.loc, mb.col(a, k));
    Value notAbove = mb.cmp("ge", rowIdx, k);
    Value candidate = mb.select(notAbove, magnitude, -1.0);
    Value largest = makeReduce<ReduceMaxOp>(mb.b, mb.loc, candidate, {1}, true);
    Value isLargest = mb.cmp("eq", candidate, largest);
    Value rowOrEnd = mb.select(isLargest, rowIdx, mb.c(m));
    Value negated = mb.b.create<NegOp>(mb.loc, rowOrEnd);
    Value firstNegated = makeReduce<ReduceMaxOp>(mb.b, mb.loc, negated, {1}, true);
    Value first = mb.b.create<NegOp>(mb.loc, firstNegated);
    Value none = mb.cmp("ge", first, m);
    Value p = mb.select(none, static_cast<double>(k), first);
    // Swap rows k and p (of a and of the permutation).
    Value isP = mb.cmp("eq", rowIdx, p);
    Value isK = mb.cmp("eq", rowIdx, k);
    auto swapRows = [&](Value x) {
      Value rowK = mb.row(x, k);
      Value maskedP = mb.select(isP, x, mb.c(0));
      Value rowP = makeReduce<ReduceSumOp>(mb.b, mb.loc, maskedP, {1}, true);
      Value atP = mb.select(isP, rowK, x);
      return mb.select(isK, rowP, atP);
    };
    a = swapRows(a);
    perm = swapRows(perm);
    Value swapped = mb.cmp("ne", p, k);
    Value flipped = mb.b.create<NegOp>(mb.loc, sign);
    sign = mb.select(swapped, flipped, sign);
    // One op per statement: the order of IR built in call arguments depends
    // on the C++ compiler (issue 17).
    Value pivotColumn = makeReshape(mb.b, mb.loc, p, {batch, 1});
    Value atStep = mb.cmp("eq", stepIdx, k);
    pivots = mb.select(atStep, pivotColumn, pivots);
    // Eliminate below the pivot; a zero pivot leaves its column unscaled.
    Value pivot = mb.at(a, k, k);
    Value zeroPivot = mb.cmp("eq", pivot, 0);
    Value column = mb.col(a, k);
    Value scaled = mb.bin<DivOp>(column, pivot);
    Value multipliers = mb.select(zeroPivot, column, scaled);
    Value pivotRow = mb.row(a, k);
    Value product = mb.bin<MulOp>(multipliers, pivotRow);
    Value updated = mb.bin<SubOp>(a, product);
    Value below = mb.cmp("gt", rowIdx, k);
    Value trailing = mb.both(below, mb.cmp("gt", colIdx, k));
    Value belowPivot = mb.both(below, mb.cmp("eq", colIdx, k));
    Value withMultipliers = mb.select(belowPivot, multipliers, a);
    a = mb.select(trailing, updated, withMultipliers);
    Value firstZero = mb.both(zeroPivot, mb.cmp("eq", info, 0));
    info = mb.select(firstZero, mb.c(k + 1), info);
  }
  return {a, perm, pivots, sign, info};
}

/// x[r] = x[perm[r]] for rows of x [B, m, k]; perm [B, m, 1].
Value permuteRows(MatrixBuilder &mb, Value x, Value perm) {
  ArrayRef<int64_t> shape = typeOf(x).getShape();
  int64_t batch = shape[0], m = shape[1], k = shape[2];
  Value source = makeReshape(mb.b, mb.loc, x, {batch, 1, m, k});
  Value wanted = makeReshape(mb.b, mb.loc, perm, {batch, m, 1, 1});
  Value sourceIdx = makeIotaAt(mb.b, mb.loc, m, mb.f64, 4, 2);
  Value isWanted = mb.cmp("eq", wanted, sourceIdx);
  Value picked = mb.select(isWanted, source, 0.0);
  return makeReduce<ReduceSumOp>(mb.b, mb.loc, picked, {2}, false);
}

/// Solves T x = y for x by substitution, T [B, n, n] triangular (`lower`:
/// read on and below the diagonal, else on and above), y [B, n, k];
/// `unit`: T's diagonal taken as 1.
Value substitute(MatrixBuilder &mb, Value t, Value y, bool lower, bool unit) {
  int64_t n = typeOf(t).getShape()[1];
  Value rowIdx = mb.rows(n);
  for (int64_t s = 0; s < n; ++s) {
    int64_t k = lower ? s : n - 1 - s;
    Value x = mb.row(y, k);
    if (!unit)
      x = mb.bin<DivOp>(x, mb.at(t, k, k));
    Value product = mb.bin<MulOp>(mb.col(t, k), x);
    Value updated = mb.bin<SubOp>(y, product);
    Value pending = mb.cmp(lower ? "gt" : "lt", rowIdx, k);
    Value rest = mb.select(pending, updated, y);
    y = mb.select(mb.cmp("eq", rowIdx, k), x, rest);
  }
  return y;
}

/// `body` on the square operand `name` (as [B, n, n] in f64), or the
/// operator's constant results `fill` when there is nothing to compute.
Results onSquare(OperatorArgs &args, OpBuilder &b, StringRef name, ArrayRef<double> fill,
                 llvm::function_ref<Results(const Batched &, MatrixBuilder &)> body) {
  FailureOr<Batched> a = batchedOperand(args, b, name, true);
  if (failed(a))
    return failure();
  if (std::optional<SmallVector<Value>> empty = emptyResults(args, b, *a, fill))
    return *empty;
  MatrixBuilder mb{b, args.getOp().getLoc(), b.getF64Type()};
  return body(*a, mb);
}

//===----------------------------------------------------------------------===//
// Determinants
//===----------------------------------------------------------------------===//

/// det, linalg.det: the permutation's sign times the product of U's diagonal.
Results det(OperatorArgs &args, OpBuilder &b, StringRef operand) {
  return onSquare(args, b, operand, {1.0}, [&](const Batched &a, MatrixBuilder &mb) -> Results {
    Location loc = mb.loc;
    LUFactors f = factorLU(mb, a.x);
    Value product = makeReduce<ReduceProdOp>(b, loc, mb.diagonal(f.lu), {1}, true);
    Value sign = makeReshape(b, loc, f.sign, {typeOf(product).getShape()[0], 1});
    Value d = mb.bin<MulOp>(sign, product);
    return SmallVector<Value>{unbatch(b, loc, d, a.batch, {}, a.elt)};
  });
}

/// (sign, log|det|) [B] from an LU factorization, as PyTorch's slogdet: the
/// sign is 0 and the log -inf for a singular matrix.
std::pair<Value, Value> signAndLogAbsDet(MatrixBuilder &mb, const LUFactors &f) {
  Value d = mb.diagonal(f.lu);
  int64_t batch = typeOf(d).getShape()[0];
  // The sign of each diagonal element, NaN for NaN.
  Value isZero = mb.cmp("eq", d, 0);
  Value zeroOrNaN = mb.select(isZero, 0.0, d);
  Value isNegative = mb.cmp("lt", d, 0);
  Value negative = mb.select(isNegative, -1.0, zeroOrNaN);
  Value isPositive = mb.cmp("gt", d, 0);
  Value signs = mb.select(isPositive, 1.0, negative);
  Value signProduct = makeReduce<ReduceProdOp>(mb.b, mb.loc, signs, {1}, false);
  Value sign = mb.bin<MulOp>(makeReshape(mb.b, mb.loc, f.sign, {batch}), signProduct);
  Value magnitudes = mb.b.create<AbsOp>(mb.loc, d);
  Value logs = mb.b.create<LogOp>(mb.loc, magnitudes);
  Value logAbsDet = makeReduce<ReduceSumOp>(mb.b, mb.loc, logs, {1}, false);
  return {sign, logAbsDet};
}

/// slogdet, linalg.slogdet: (sign, logabsdet).
Results slogdet(OperatorArgs &args, OpBuilder &b, StringRef operand) {
  return onSquare(args, b, operand, {1.0, 0.0},
                  [&](const Batched &a, MatrixBuilder &mb) -> Results {
                    Location loc = mb.loc;
                    auto [sign, logAbsDet] = signAndLogAbsDet(mb, factorLU(mb, a.x));
                    return SmallVector<Value>{unbatch(b, loc, sign, a.batch, {}, a.elt),
                                              unbatch(b, loc, logAbsDet, a.batch, {}, a.elt)};
                  });
}

/// logdet: log|det| where det > 0, -inf where it is 0, NaN where negative
/// (PyTorch's logdet of a real matrix).
Results logdet(OperatorArgs &args, OpBuilder &b) {
  return onSquare(args, b, "self", {0.0}, [&](const Batched &a, MatrixBuilder &mb) -> Results {
    Location loc = mb.loc;
    auto [sign, logAbsDet] = signAndLogAbsDet(mb, factorLU(mb, a.x));
    Value nan = mb.c(std::numeric_limits<double>::quiet_NaN());
    Value result = mb.select(mb.cmp("lt", sign, 0), nan, logAbsDet);
    return SmallVector<Value>{unbatch(b, loc, result, a.batch, {}, a.elt)};
  });
}

//===----------------------------------------------------------------------===//
// Inverses and solves
//===----------------------------------------------------------------------===//

/// X with A X = Y, from A's factors (Y [B, n, k] in f64).
Value solveFactored(MatrixBuilder &mb, const LUFactors &f, Value y) {
  Value permuted = permuteRows(mb, y, f.perm);
  Value forward = substitute(mb, f.lu, permuted, /*lower=*/true, /*unit=*/true);
  return substitute(mb, f.lu, forward, /*lower=*/false, /*unit=*/false);
}

/// `x` [B, ...] checked at run time to come from matrices with no zero
/// pivot, where PyTorch raises.
Value checkNonsingular(MatrixBuilder &mb, OperatorArgs &args, Value x, Value info) {
  SmallVector<int64_t> infoShape(typeOf(x).getRank(), 1);
  infoShape[0] = typeOf(info).getShape()[0];
  Value ok = mb.cmp("eq", makeReshape(mb.b, mb.loc, info, infoShape), 0);
  std::string message =
      (operatorName(args) + ": the input matrix is singular (a zero pivot in its LU "
                            "factorization), where PyTorch raises")
          .str();
  return mb.b.create<CheckOp>(mb.loc, x.getType(), ok, x, mb.b.getStringAttr(message));
}

/// The info code [batch] as int32.
Value infoResult(OpBuilder &b, Location loc, Value info, ArrayRef<int64_t> batch) {
  return unbatch(b, loc, info, batch, {}, b.getI32Type());
}

/// inverse, linalg.inv, linalg.inv_ex (`withInfo`: no check, info returned).
LegalizeFn inverse(StringRef operand, bool withInfo) {
  return [operand = operand.str(), withInfo](OperatorArgs &args, OpBuilder &b) -> Results {
    SmallVector<double> fill(withInfo ? 2 : 1, 0.0);
    return onSquare(args, b, operand, fill, [&](const Batched &a, MatrixBuilder &mb) -> Results {
      Location loc = mb.loc;
      int64_t n = a.rows, count = typeOf(a.x).getShape()[0];
      LUFactors f = factorLU(mb, a.x);
      Value onDiagonal = mb.grid("eq", n, n);
      Value identity = mb.select(onDiagonal, 1.0, 0.0);
      Value y = mb.bin<AddOp>(identity,
                              makeSplat(b, loc, RankedTensorType::get({count, n, n}, mb.f64), 0));
      Value x = solveFactored(mb, f, y);
      if (!withInfo || args.getBool("check_errors").value_or(false))
        x = checkNonsingular(mb, args, x, f.info);
      SmallVector<Value> results{unbatch(b, loc, x, a.batch, {n, n}, a.elt)};
      if (withInfo)
        results.push_back(infoResult(b, loc, f.info, a.batch));
      return results;
    });
  };
}

/// linalg.solve, linalg.solve_ex: A X = B (left) or X A = B. B is a batch of
/// vectors when it has one dim, or one dim less than A with A's leading
/// shape (PyTorch's rule); batch dims broadcast.
LegalizeFn solve(bool withInfo) {
  return [withInfo](OperatorArgs &args, OpBuilder &b) -> Results {
    Location loc = args.getOp().getLoc();
    FailureOr<Value> aValue = requiredTensor(args, "A");
    FailureOr<Value> bValue = requiredTensor(args, "B");
    if (failed(aValue) || failed(bValue))
      return failure();
    bool left = args.getBool("left").value_or(true);
    RankedTensorType aType = typeOf(*aValue), bType = typeOf(*bValue);
    if (aType.getRank() < 2 || !aType.hasStaticShape() || !bType.hasStaticShape())
      return operatorError(args) << "needs operands of static shape, A with at least 2 dims";
    Type elt = aType.getElementType();
    if ((!elt.isF32() && !elt.isF64()) || bType.getElementType() != elt)
      return operatorError(args) << "needs float32 or float64 A and B of one type, not " << aType
                                 << " and " << bType;
    ArrayRef<int64_t> aShape = aType.getShape();
    if (aShape.back() != aShape[aShape.size() - 2])
      return operatorError(args) << "needs square matrices in 'A', not " << aType;
    if (aShape.back() > kMaxOrder)
      return operatorError(args) << "supports matrices of at most " << kMaxOrder
                                 << " rows and columns (its factorization is unrolled), not "
                                 << aType;
    bool vector = bType.getRank() == 1 || (bType.getRank() == aType.getRank() - 1 &&
                                           bType.getShape() == aShape.drop_back());
    if (vector && !left)
      return operatorError(args) << "with left=False needs B with A's rank";
    Value bMatrix = *bValue;
    if (vector) {
      SmallVector<int64_t> shape(bType.getShape());
      shape.push_back(1);
      bMatrix = makeReshape(b, loc, bMatrix, shape);
    }
    Value aMatrix = *aValue;
    if (!left) {
      // X A = B is A^T X^T = B^T.
      aMatrix = transposeLast2(b, loc, aMatrix);
      bMatrix = transposeLast2(b, loc, bMatrix);
    }
    // Broadcast the batch dims.
    RankedTensorType bmType = typeOf(bMatrix);
    ArrayRef<int64_t> bmShape = bmType.getShape();
    if (bmType.getRank() < 2 || bmShape[bmShape.size() - 2] != aShape.back())
      return operatorError(args) << "needs B with as many rows as A, not " << bType;
    FailureOr<SmallVector<int64_t>> batch =
        broadcastShapes(typeOf(aMatrix).getShape().drop_back(2), bmShape.drop_back(2));
    if (failed(batch))
      return operatorError(args) << "batch dims of A and B do not broadcast";
    int64_t n = aShape.back(), k = bmShape.back();
    auto spread = [&](Value v, int64_t rows, int64_t cols) -> Value {
      SmallVector<int64_t> shape(*batch);
      shape.append({rows, cols});
      if (typeOf(v).getShape() == ArrayRef<int64_t>(shape))
        return v;
      return b.create<BroadcastOp>(loc, RankedTensorType::get(shape, typeOf(v).getElementType()), v)
          .getResult();
    };
    int64_t count = 1;
    for (int64_t d : *batch)
      count *= d;
    if (count == 0 || n == 0 || k == 0 || hasNoElements(args.resultType())) {
      if (withInfo)
        return constantResults(args, b, {0.0, 0.0});
      return constantResults(args, b, {0.0});
    }
    Value spreadA = spread(aMatrix, n, n);
    Value spreadB = spread(bMatrix, n, k);
    MatrixBuilder mb{b, loc, b.getF64Type()};
    Value a64 = makeCast(b, loc, makeReshape(b, loc, spreadA, {count, n, n}), mb.f64);
    Value b64 = makeCast(b, loc, makeReshape(b, loc, spreadB, {count, n, k}), mb.f64);
    LUFactors f = factorLU(mb, a64);
    Value x = solveFactored(mb, f, b64);
    if (!withInfo || args.getBool("check_errors").value_or(false))
      x = checkNonsingular(mb, args, x, f.info);
    SmallVector<int64_t> xShape(*batch);
    xShape.append({n, k});
    x = makeCast(b, loc, makeReshape(b, loc, x, xShape), elt);
    if (!left)
      x = transposeLast2(b, loc, x);
    if (vector)
      x = makeReshape(b, loc, x, args.resultType().getShape());
    SmallVector<Value> results{x};
    if (withInfo)
      results.push_back(infoResult(b, loc, f.info, *batch));
    return results;
  };
}

//===----------------------------------------------------------------------===//
// Cholesky
//===----------------------------------------------------------------------===//

/// L with A = L L^T from A's lower triangle [B, n, n], right-looking as
/// LAPACK's potrf; `info` [B, 1, 1] the first step (1-based) whose diagonal
/// is not positive (or NaN), else 0.
struct CholeskyFactor {
  Value l, info;
};

CholeskyFactor factorCholesky(MatrixBuilder &mb, Value a) {
  ArrayRef<int64_t> shape = typeOf(a).getShape();
  int64_t batch = shape[0], n = shape[1];
  Value rowIdx = mb.rows(n), colIdx = mb.cols(n);
  Value l = makeSplat(mb.b, mb.loc, RankedTensorType::get({batch, n, n}, mb.f64), 0);
  Value info = makeSplat(mb.b, mb.loc, RankedTensorType::get({batch, 1, 1}, mb.f64), 0);
  for (int64_t k = 0; k < n; ++k) {
    Value d = mb.at(a, k, k);
    Value positive = mb.cmp("gt", d, 0);
    Value noneYet = mb.cmp("eq", info, 0);
    Value firstBad = mb.select(noneYet, static_cast<double>(k + 1), info);
    info = mb.select(positive, info, firstBad);
    Value root = mb.b.create<SqrtOp>(mb.loc, d);
    Value scaled = mb.bin<DivOp>(mb.col(a, k), root);
    Value below = mb.cmp("gt", rowIdx, k);
    Value belowOrZero = mb.select(below, scaled, 0.0);
    Value column = mb.select(mb.cmp("eq", rowIdx, k), root, belowOrZero);
    l = mb.select(mb.cmp("eq", colIdx, k), column, l);
    Value columnT = makeReshape(mb.b, mb.loc, column, {batch, 1, n});
    Value outer = mb.bin<MulOp>(column, columnT);
    a = mb.bin<SubOp>(a, outer);
  }
  return {l, info};
}

/// cholesky, linalg.cholesky, linalg.cholesky_ex (`withInfo`). With upper,
/// U = L^T from the upper triangle (LAPACK's uplo = 'U').
LegalizeFn cholesky(StringRef operand, bool withInfo) {
  return [operand = operand.str(), withInfo](OperatorArgs &args, OpBuilder &b) -> Results {
    SmallVector<double> fill(withInfo ? 2 : 1, 0.0);
    return onSquare(args, b, operand, fill, [&](const Batched &a, MatrixBuilder &mb) -> Results {
      bool upper = args.getBool("upper").value_or(false);
      Location loc = mb.loc;
      Value x = upper ? transposeLast2(b, loc, a.x) : a.x;
      CholeskyFactor f = factorCholesky(mb, x);
      Value l = upper ? transposeLast2(b, loc, f.l) : f.l;
      if (!withInfo || args.getBool("check_errors").value_or(false)) {
        std::string message =
            (operatorName(args) + ": the input is not positive-definite (the factorization "
                                  "could not be completed), where PyTorch raises")
                .str();
        Value ok = mb.cmp("eq", f.info, 0);
        l = b.create<CheckOp>(loc, l.getType(), ok, l, b.getStringAttr(message));
      }
      int64_t n = a.rows;
      SmallVector<Value> results{unbatch(b, loc, l, a.batch, {n, n}, a.elt)};
      if (withInfo)
        results.push_back(infoResult(b, loc, f.info, a.batch));
      return results;
    });
  };
}

/// The batch dims of two matrix operands broadcast, each spread to them and
/// flattened to [B, rows, cols] in f64; empty when they do not broadcast.
struct BatchedPair {
  Value x, y;
  SmallVector<int64_t> batch;
  int64_t count;
};

FailureOr<BatchedPair> broadcastPair(OperatorArgs &args, OpBuilder &b, Value x, Value y) {
  Location loc = args.getOp().getLoc();
  RankedTensorType xt = typeOf(x), yt = typeOf(y);
  FailureOr<SmallVector<int64_t>> batch =
      broadcastShapes(xt.getShape().drop_back(2), yt.getShape().drop_back(2));
  if (failed(batch))
    return operatorError(args) << "needs batch dims that broadcast, not " << xt << " and " << yt;
  int64_t count = 1;
  for (int64_t d : *batch)
    count *= d;
  auto spread = [&](Value v) {
    RankedTensorType t = typeOf(v);
    SmallVector<int64_t> shape(*batch);
    shape.append({t.getShape()[t.getRank() - 2], t.getShape()[t.getRank() - 1]});
    if (t.getShape() != ArrayRef<int64_t>(shape))
      v = b.create<BroadcastOp>(loc, RankedTensorType::get(shape, t.getElementType()), v);
    Value flat = makeReshape(b, loc, v, {count, shape[shape.size() - 2], shape.back()});
    return makeCast(b, loc, flat, b.getF64Type());
  };
  Value xs = spread(x);
  Value ys = spread(y);
  return BatchedPair{xs, ys, *batch, count};
}

/// Float32/float64 operands of one type, static shapes, rank >= 2, at most
/// kMaxOrder rows and columns.
LogicalResult checkMatrices(OperatorArgs &args, ArrayRef<Value> values) {
  Type elt = typeOf(values[0]).getElementType();
  for (Value v : values) {
    RankedTensorType t = typeOf(v);
    if ((!elt.isF32() && !elt.isF64()) || t.getElementType() != elt)
      return operatorError(args) << "needs float32 or float64 operands of one type, not " << t;
    if (!t.hasStaticShape() || t.getRank() < 2)
      return operatorError(args) << "needs operands of static shape with at least 2 dims, not "
                                 << t;
    if (t.getShape()[t.getRank() - 2] > kMaxOrder || t.getShape().back() > kMaxOrder)
      return operatorError(args) << "supports matrices of at most " << kMaxOrder
                                 << " rows and columns (its factorization is unrolled), not " << t;
  }
  return success();
}

/// X with (L L^T) X = Y for L lower [B, n, n] (f64), Y [B, n, k].
Value choleskySolve(MatrixBuilder &mb, Value l, Value y) {
  Value forward = substitute(mb, l, y, /*lower=*/true, /*unit=*/false);
  return substitute(mb, transposeLast2(mb.b, mb.loc, l), forward, /*lower=*/false,
                    /*unit=*/false);
}

/// cholesky_solve(B, L, upper): A X = B with A = L L^T (or U^T U).
Results choleskySolveOp(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> rhs = requiredTensor(args, "self");
  FailureOr<Value> factor = requiredTensor(args, "input2");
  if (failed(rhs) || failed(factor) || failed(checkMatrices(args, {*rhs, *factor})))
    return failure();
  if (hasNoElements(args.resultType()))
    return constantResults(args, b, {0.0});
  FailureOr<BatchedPair> p = broadcastPair(args, b, *factor, *rhs);
  if (failed(p))
    return failure();
  Location loc = args.getOp().getLoc();
  MatrixBuilder mb{b, loc, b.getF64Type()};
  Value l = args.getBool("upper").value_or(false) ? transposeLast2(b, loc, p->x) : p->x;
  Value x = choleskySolve(mb, l, p->y);
  RankedTensorType rt = args.resultType();
  return SmallVector<Value>{
      makeCast(b, loc, makeReshape(b, loc, x, rt.getShape()), rt.getElementType())};
}

/// cholesky_inverse(L, upper): (L L^T)^-1 (or (U^T U)^-1).
Results choleskyInverse(OperatorArgs &args, OpBuilder &b) {
  return onSquare(args, b, "self", {0.0}, [&](const Batched &a, MatrixBuilder &mb) -> Results {
    Location loc = mb.loc;
    Value l = args.getBool("upper").value_or(false) ? transposeLast2(b, loc, a.x) : a.x;
    Value x = choleskySolve(mb, l, identityLike(mb, l));
    return SmallVector<Value>{unbatch(b, loc, x, a.batch, {a.rows, a.rows}, a.elt)};
  });
}

//===----------------------------------------------------------------------===//
// Triangular solves
//===----------------------------------------------------------------------===//

/// X with T X = Y (left) or X T = Y, T triangular (`upper`), read from its
/// triangle only; batch dims broadcast. Returns X in the operands' type.
FailureOr<Value> triangularSolve(OperatorArgs &args, OpBuilder &b, Value t, Value y, bool upper,
                                 bool left, bool unit) {
  if (failed(checkMatrices(args, {t, y})))
    return failure();
  Location loc = args.getOp().getLoc();
  Type elt = typeOf(y).getElementType();
  if (!left) {
    // X T = Y is T^T X^T = Y^T, T^T's triangle the other one.
    t = transposeLast2(b, loc, t);
    y = transposeLast2(b, loc, y);
    upper = !upper;
  }
  FailureOr<BatchedPair> p = broadcastPair(args, b, t, y);
  if (failed(p))
    return failure();
  ArrayRef<int64_t> yShape = typeOf(p->y).getShape();
  SmallVector<int64_t> shape(p->batch);
  shape.append({yShape[1], yShape[2]});
  Value x;
  if (p->count == 0 || yShape[1] == 0 || yShape[2] == 0) {
    x = makeSplat(b, loc, RankedTensorType::get(shape, elt), 0);
  } else {
    MatrixBuilder mb{b, loc, b.getF64Type()};
    Value solved = substitute(mb, p->x, p->y, /*lower=*/!upper, unit);
    x = makeCast(b, loc, makeReshape(b, loc, solved, shape), elt);
  }
  return left ? x : transposeLast2(b, loc, x);
}

/// linalg.solve_triangular(A, B, upper, left, unitriangular).
Results solveTriangular(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> t = requiredTensor(args, "self");
  FailureOr<Value> y = requiredTensor(args, "B");
  if (failed(t) || failed(y))
    return failure();
  std::optional<bool> upper = args.getBool("upper");
  if (!upper)
    return operatorError(args) << "needs 'upper'";
  FailureOr<Value> x = triangularSolve(args, b, *t, *y, *upper, args.getBool("left").value_or(true),
                                       args.getBool("unitriangular").value_or(false));
  if (failed(x))
    return failure();
  return SmallVector<Value>{*x};
}

/// triangular_solve(B, A, upper, transpose, unitriangular): (X, A).
Results triangularSolveOp(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> y = requiredTensor(args, "self");
  FailureOr<Value> t = requiredTensor(args, "A");
  if (failed(t) || failed(y))
    return failure();
  Location loc = args.getOp().getLoc();
  bool upper = args.getBool("upper").value_or(true);
  Value coefficients = *t;
  Value tt = *t;
  if (args.getBool("transpose").value_or(false)) {
    if (failed(checkMatrices(args, {*t})))
      return failure();
    tt = transposeLast2(b, loc, tt);
    upper = !upper;
  }
  FailureOr<Value> x = triangularSolve(args, b, tt, *y, upper, /*left=*/true,
                                       args.getBool("unitriangular").value_or(false));
  if (failed(x))
    return failure();
  if (typeOf(*x) != args.resultType(0) || typeOf(coefficients) != args.resultType(1))
    return operatorError(args) << "with batch dims that broadcast is not supported";
  return SmallVector<Value>{*x, coefficients};
}

//===----------------------------------------------------------------------===//
// LU factorization
//===----------------------------------------------------------------------===//

/// linalg.lu_factor, linalg.lu_factor_ex, _lu_with_info: (LU, pivots as
/// LAPACK's 1-based int32[, info]).
LegalizeFn luFactor(StringRef operand, bool withInfo) {
  return [operand = operand.str(), withInfo](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<Batched> a = batchedOperand(args, b, operand, false);
    if (failed(a))
      return failure();
    if (!args.getBool("pivot").value_or(true))
      return operatorError(args) << "without pivoting is not supported (PyTorch's CPU path "
                                    "refuses it too)";
    Location loc = args.getOp().getLoc();
    int64_t m = a->rows, n = a->cols, k = std::min(m, n);
    if (hasNoElements(args.resultType()) || k == 0) {
      SmallVector<Value> results;
      for (unsigned i = 0, e = withInfo ? 3 : 2; i < e; ++i)
        results.push_back(makeSplat(b, loc, args.resultType(i), 0));
      return results;
    }
    MatrixBuilder mb{b, loc, b.getF64Type()};
    LUFactors f = factorLU(mb, a->x);
    Value packed = f.lu;
    // check_errors: a nonzero info (a zero pivot) raises, as in PyTorch.
    if (args.getBool("check_errors").value_or(false))
      packed = checkNonsingular(mb, args, packed, f.info);
    Value onePlus = mb.bin<AddOp>(f.pivots, mb.c(1));
    SmallVector<Value> results{unbatch(b, loc, packed, a->batch, {m, n}, a->elt),
                               unbatch(b, loc, onePlus, a->batch, {k}, b.getI32Type())};
    if (withInfo)
      results.push_back(infoResult(b, loc, f.info, a->batch));
    return results;
  };
}

/// (P, L, U) of an empty batch: no elements to compute; an error where only
/// some are empty (0 x n matrices: P an identity), which is not supported.
std::optional<Results> emptyFactors(OperatorArgs &args, OpBuilder &b) {
  unsigned empty = 0;
  for (unsigned i = 0; i < 3; ++i)
    empty += hasNoElements(args.resultType(i));
  if (empty == 0)
    return std::nullopt;
  if (empty < 3)
    return Results(operatorError(args) << "of matrices with no rows or columns is not supported");
  return Results(constantResults(args, b, {0.0, 0.0, 0.0}));
}

/// P [B, m, m] with A = P L U from the row permutation perm [B, m, 1]
/// (row r of P A is row perm[r] of A): P[i][j] = (perm[j] == i).
Value permutationMatrix(MatrixBuilder &mb, Value perm) {
  int64_t batch = typeOf(perm).getShape()[0], m = typeOf(perm).getShape()[1];
  Value permRow = makeReshape(mb.b, mb.loc, perm, {batch, 1, m});
  Value rowIdx = mb.rows(m);
  Value isSource = mb.cmp("eq", permRow, rowIdx);
  return mb.select(isSource, 1.0, 0.0);
}

/// (P, L, U) of a packed factorization lu [B, m, n] and its permutation.
SmallVector<Value> unpackLU(MatrixBuilder &mb, Value lu, Value perm) {
  ArrayRef<int64_t> shape = typeOf(lu).getShape();
  int64_t m = shape[1], n = shape[2], k = std::min(m, n);
  Value l = makeSlice(mb.b, mb.loc, lu, 2, 0, k, 1);
  Value lRows = mb.rows(m), lCols = mb.cols(k);
  Value below = mb.cmp("gt", lRows, lCols);
  Value strictLower = mb.select(below, l, 0.0);
  Value onDiagonal = mb.cmp("eq", lRows, lCols);
  l = mb.select(onDiagonal, 1.0, strictLower);
  Value u = makeSlice(mb.b, mb.loc, lu, 1, 0, k, 1);
  Value upper = mb.grid("le", k, n);
  u = mb.select(upper, u, 0.0);
  return {permutationMatrix(mb, perm), l, u};
}

/// linalg.lu: (P, L, U).
Results lu(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Batched> a = batchedOperand(args, b, "A", false);
  if (failed(a))
    return failure();
  if (!args.getBool("pivot").value_or(true))
    return operatorError(args) << "without pivoting is not supported";
  Location loc = args.getOp().getLoc();
  int64_t m = a->rows, n = a->cols, k = std::min(m, n);
  if (std::optional<Results> empty = emptyFactors(args, b))
    return *empty;
  MatrixBuilder mb{b, loc, b.getF64Type()};
  LUFactors f = factorLU(mb, a->x);
  SmallVector<Value> plu = unpackLU(mb, f.lu, f.perm);
  return SmallVector<Value>{unbatch(b, loc, plu[0], a->batch, {m, m}, a->elt),
                            unbatch(b, loc, plu[1], a->batch, {m, k}, a->elt),
                            unbatch(b, loc, plu[2], a->batch, {k, n}, a->elt)};
}

/// The row permutation [B, m, 1] of LAPACK's pivots [B, k] (1-based, int):
/// row swaps k <-> pivots[k] - 1 applied in order to 0..m-1.
Value permutationOfPivots(MatrixBuilder &mb, Value pivots, int64_t m) {
  int64_t batch = typeOf(pivots).getShape()[0], k = typeOf(pivots).getShape()[1];
  Value rowIdx = mb.rows(m);
  Value perm = mb.bin<AddOp>(
      rowIdx, makeSplat(mb.b, mb.loc, RankedTensorType::get({batch, m, 1}, mb.f64), 0));
  Value piv = makeCast(mb.b, mb.loc, pivots, mb.f64);
  for (int64_t s = 0; s < k; ++s) {
    Value p = mb.bin<SubOp>(
        makeReshape(mb.b, mb.loc, makeSlice(mb.b, mb.loc, piv, 1, s, s + 1, 1), {batch, 1, 1}),
        mb.c(1));
    Value isP = mb.cmp("eq", rowIdx, p);
    Value rowS = mb.row(perm, s);
    Value maskedP = mb.select(isP, perm, mb.c(0));
    Value rowP = makeReduce<ReduceSumOp>(mb.b, mb.loc, maskedP, {1}, true);
    Value atP = mb.select(isP, rowS, perm);
    perm = mb.select(mb.cmp("eq", rowIdx, s), rowP, atP);
  }
  return perm;
}

/// lu_unpack(LU_data, LU_pivots): (P, L, U).
Results luUnpack(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Batched> a = batchedOperand(args, b, "LU_data", false);
  FailureOr<Value> pivots = requiredTensor(args, "LU_pivots");
  if (failed(a) || failed(pivots))
    return failure();
  if (!args.getBool("unpack_data").value_or(true) || !args.getBool("unpack_pivots").value_or(true))
    return operatorError(args) << "with unpack_data or unpack_pivots false is not supported";
  Location loc = args.getOp().getLoc();
  int64_t m = a->rows, n = a->cols, k = std::min(m, n);
  if (std::optional<Results> empty = emptyFactors(args, b))
    return *empty;
  if (typeOf(*pivots).getShape().back() != k)
    return operatorError(args) << "needs min(m, n) pivots, not " << typeOf(*pivots);
  MatrixBuilder mb{b, loc, b.getF64Type()};
  int64_t count = typeOf(a->x).getShape()[0];
  Value piv = makeReshape(b, loc, *pivots, {count, k});
  SmallVector<Value> plu = unpackLU(mb, a->x, permutationOfPivots(mb, piv, m));
  return SmallVector<Value>{unbatch(b, loc, plu[0], a->batch, {m, m}, a->elt),
                            unbatch(b, loc, plu[1], a->batch, {m, k}, a->elt),
                            unbatch(b, loc, plu[2], a->batch, {k, n}, a->elt)};
}

/// linalg.lu_solve(LU, pivots, B, left, adjoint), lu_solve(B, LU, pivots).
/// With A = P L U: A X = B is X = U^-1 L^-1 P^T B; A^T X = B is
/// X = P U^-T... read right to left: X = P (L^-T (U^-T B)).
Results luSolve(OperatorArgs &args, OpBuilder &b, StringRef luName, StringRef pivotName,
                StringRef rhsName) {
  FailureOr<Value> luValue = requiredTensor(args, luName);
  FailureOr<Value> pivots = requiredTensor(args, pivotName);
  FailureOr<Value> rhs = requiredTensor(args, rhsName);
  if (failed(luValue) || failed(pivots) || failed(rhs) ||
      failed(checkMatrices(args, {*luValue, *rhs})))
    return failure();
  Location loc = args.getOp().getLoc();
  bool left = args.getBool("left").value_or(true);
  bool adjoint = args.getBool("adjoint").value_or(false);
  RankedTensorType luType = typeOf(*luValue), pivType = typeOf(*pivots);
  int64_t n = luType.getShape().back();
  if (luType.getShape()[luType.getRank() - 2] != n || !pivType.hasStaticShape() ||
      pivType.getShape().back() != n ||
      pivType.getShape().drop_back() != luType.getShape().drop_back(2))
    return operatorError(args) << "needs square LU factors and their pivots, not " << luType
                               << " and " << pivType;
  if (hasNoElements(args.resultType()))
    return constantResults(args, b, {0.0});
  Value y = *rhs;
  if (!left) {
    // X A = B is A^T X^T = B^T.
    y = transposeLast2(b, loc, y);
    adjoint = !adjoint;
  }
  if (llvm::is_contained(luType.getShape(), 0))
    return operatorError(args) << "of an empty batch with a non-empty right side is not supported";
  // The pivots travel with LU: give them a trailing dim of 1 to broadcast.
  SmallVector<int64_t> pivShape(pivType.getShape());
  pivShape.push_back(1);
  Value pivotsAsColumn =
      makeCast(b, loc, makeReshape(b, loc, *pivots, pivShape), luType.getElementType());
  FailureOr<BatchedPair> p = broadcastPair(args, b, *luValue, y);
  if (failed(p))
    return failure();
  FailureOr<BatchedPair> q = broadcastPair(args, b, pivotsAsColumn, y);
  if (failed(q))
    return failure();
  MatrixBuilder mb{b, loc, b.getF64Type()};
  Value piv = makeReshape(b, loc, q->x, {q->count, n});
  Value perm = permutationOfPivots(mb, piv, n);
  Value x;
  if (!adjoint) {
    x = solveFactored(mb, LUFactors{p->x, perm, {}, {}, {}}, p->y);
  } else {
    Value luT = transposeLast2(b, loc, p->x);
    Value z = substitute(mb, luT, p->y, /*lower=*/true, /*unit=*/false);
    z = substitute(mb, luT, z, /*lower=*/false, /*unit=*/true);
    // X = P z: row perm[r] of X is row r of z.
    int64_t count = q->count, k = typeOf(z).getShape()[2];
    Value source = makeReshape(b, loc, z, {count, n, 1, k});
    Value from = makeReshape(b, loc, perm, {count, n, 1, 1});
    Value target = makeIotaAt(b, loc, n, mb.f64, 4, 2);
    Value isTarget = mb.cmp("eq", from, target);
    Value picked = mb.select(isTarget, source, 0.0);
    x = makeReduce<ReduceSumOp>(b, loc, picked, {1}, false);
  }
  ArrayRef<int64_t> yShape = typeOf(p->y).getShape();
  SmallVector<int64_t> shape(p->batch);
  shape.append({yShape[1], yShape[2]});
  x = makeCast(b, loc, makeReshape(b, loc, x, shape), luType.getElementType());
  if (!left)
    x = transposeLast2(b, loc, x);
  if (typeOf(x) != args.resultType())
    return operatorError(args) << "computed " << typeOf(x) << " for " << args.resultType();
  return SmallVector<Value>{x};
}

//===----------------------------------------------------------------------===//
// Tensor inverses and solves
//===----------------------------------------------------------------------===//

int64_t product(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

/// X with A X = Y for one matrix A [n, n] and Y [n, k] (operand type),
/// checked for a zero pivot, in the operands' type.
FailureOr<Value> solveOne(OperatorArgs &args, OpBuilder &b, Value a, Value y) {
  Location loc = args.getOp().getLoc();
  int64_t n = typeOf(a).getShape()[0], k = typeOf(y).getShape()[1];
  Type elt = typeOf(a).getElementType();
  if ((!elt.isF32() && !elt.isF64()) || typeOf(y).getElementType() != elt)
    return operatorError(args) << "needs float32 or float64 operands of one type, not " << typeOf(a)
                               << " and " << typeOf(y);
  if (n > kMaxOrder)
    return operatorError(args) << "supports matrices of at most " << kMaxOrder
                               << " rows and columns (its factorization is unrolled), not "
                               << typeOf(a);
  MatrixBuilder mb{b, loc, b.getF64Type()};
  Value a64 = makeCast(b, loc, makeReshape(b, loc, a, {1, n, n}), mb.f64);
  Value y64 = makeCast(b, loc, makeReshape(b, loc, y, {1, n, k}), mb.f64);
  LUFactors f = factorLU(mb, a64);
  Value x = checkNonsingular(mb, args, solveFactored(mb, f, y64), f.info);
  return makeCast(b, loc, makeReshape(b, loc, x, {n, k}), elt);
}

/// linalg.tensorinv(A, ind): the inverse of A as a prod(shape[:ind]) x
/// prod(shape[ind:]) matrix, shaped shape[ind:] + shape[:ind].
Results tensorinv(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> a = requiredTensor(args, "self");
  if (failed(a))
    return failure();
  RankedTensorType t = typeOf(*a);
  int64_t ind = args.getInt("ind").value_or(2);
  if (!t.hasStaticShape() || ind <= 0 || ind > t.getRank())
    return operatorError(args) << "needs a static shape and 0 < ind <= rank, not " << t;
  int64_t rows = product(t.getShape().take_front(ind)),
          cols = product(t.getShape().drop_front(ind));
  if (rows != cols || rows == 0)
    return operatorError(args) << "needs prod(shape[:ind]) == prod(shape[ind:]) > 0, not " << t;
  Location loc = args.getOp().getLoc();
  Value matrix = makeReshape(b, loc, *a, {rows, cols});
  Value rowIdx = makeIotaAt(b, loc, rows, t.getElementType(), 2, 0);
  Value colIdx = makeIotaAt(b, loc, rows, t.getElementType(), 2, 1);
  Value onDiagonal = makeCompare(b, loc, "eq", rowIdx, colIdx);
  Value eye = makeCast(b, loc, onDiagonal, t.getElementType());
  FailureOr<Value> x = solveOne(args, b, matrix, eye);
  if (failed(x))
    return failure();
  return SmallVector<Value>{makeReshape(b, loc, *x, args.resultType().getShape())};
}

/// linalg.tensorsolve(A, B, dims): dims of A moved last, A as a B.numel() x
/// prod(A.shape[B.ndim:]) matrix (square) solved against B flattened.
Results tensorsolve(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> a = requiredTensor(args, "self");
  FailureOr<Value> y = requiredTensor(args, "other");
  if (failed(a) || failed(y))
    return failure();
  RankedTensorType at = typeOf(*a), yt = typeOf(*y);
  if (!at.hasStaticShape() || !yt.hasStaticShape())
    return operatorError(args) << "needs static shapes";
  Location loc = args.getOp().getLoc();
  Value moved = *a;
  if (std::optional<SmallVector<int64_t>> dims = args.getInts("dims")) {
    SmallVector<int64_t> perm, last;
    for (int64_t &d : *dims)
      last.push_back(normalizeDim(d, at.getRank()));
    for (int64_t i = 0; i < at.getRank(); ++i)
      if (!llvm::is_contained(last, i))
        perm.push_back(i);
    perm.append(last);
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(at.getShape()[p]);
    moved = b.create<TransposeOp>(loc, RankedTensorType::get(shape, at.getElementType()), moved,
                                  b.getDenseI64ArrayAttr(perm));
  }
  ArrayRef<int64_t> shape = typeOf(moved).getShape();
  if (yt.getRank() > at.getRank())
    return operatorError(args) << "needs B with at most A's rank, not " << at << " and " << yt;
  int64_t rows = yt.getNumElements(), cols = product(shape.drop_front(yt.getRank()));
  if (rows != cols || rows == 0)
    return operatorError(args) << "needs a square problem of at least one unknown, not " << at
                               << " and " << yt;
  Value matrix = makeReshape(b, loc, moved, {rows, cols});
  FailureOr<Value> x = solveOne(args, b, matrix, makeReshape(b, loc, *y, {rows, 1}));
  if (failed(x))
    return failure();
  return SmallVector<Value>{makeReshape(b, loc, *x, args.resultType().getShape())};
}

//===----------------------------------------------------------------------===//
// Matrix powers
//===----------------------------------------------------------------------===//

/// linalg.matrix_power(A, n): PyTorch's square-and-multiply; a negative n
/// inverts first (a singular matrix is then a run error, as PyTorch raises).
Results matrixPower(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Batched> a = batchedOperand(args, b, "self", true);
  std::optional<int64_t> power = args.getInt("n");
  if (failed(a))
    return failure();
  if (!power)
    return operatorError(args) << "needs an integer power 'n'";
  Location loc = args.getOp().getLoc();
  int64_t n = a->rows;
  if (std::optional<SmallVector<Value>> empty = emptyResults(args, b, *a, {0.0}))
    return *empty;
  MatrixBuilder mb{b, loc, b.getF64Type()};
  if (*power == 0)
    return SmallVector<Value>{unbatch(b, loc, identityLike(mb, a->x), a->batch, {n, n}, a->elt)};
  // Products in the operand's type, as PyTorch's matmuls.
  Value x = makeCast(b, loc, a->x, a->elt);
  if (*power < 0) {
    LUFactors f = factorLU(mb, a->x);
    Value inv = solveFactored(mb, f, identityLike(mb, a->x));
    inv = checkNonsingular(mb, args, inv, f.info);
    x = makeCast(b, loc, inv, a->elt);
  }
  uint64_t e = *power < 0 ? -static_cast<uint64_t>(*power) : *power;
  Value result;
  if (e == 1) {
    result = x;
  } else if (e == 2) {
    result = makeMatmul(b, loc, x, x);
  } else if (e == 3) {
    Value square = makeMatmul(b, loc, x, x);
    result = makeMatmul(b, loc, square, x);
  } else {
    Value z;
    for (; e > 0; e >>= 1) {
      z = z ? makeMatmul(b, loc, z, z) : x;
      if (e & 1)
        result = result ? makeMatmul(b, loc, result, z) : z;
    }
  }
  return SmallVector<Value>{unbatch(b, loc, result, a->batch, {n, n}, a->elt)};
}

} // namespace

//===----------------------------------------------------------------------===//
// Shared with the other linear algebra files (LinearAlgebra.h)
//===----------------------------------------------------------------------===//

FailureOr<Batched> tcc::graph::batchedOperand(OperatorArgs &args, OpBuilder &b, StringRef name,
                                              bool square, int64_t maxOrder) {
  FailureOr<Value> v = requiredTensor(args, name);
  if (failed(v))
    return failure();
  RankedTensorType t = typeOf(*v);
  Type elt = t.getElementType();
  if (!elt.isF32() && !elt.isF64())
    return operatorError(args) << "needs a float32 or float64 '" << name << "' (PyTorch's "
                               << "linear algebra takes no other type), not " << t;
  if (!t.hasStaticShape())
    return operatorError(args) << "needs '" << name << "' of static shape, not " << t;
  if (t.getRank() < 2)
    return operatorError(args) << "needs '" << name << "' with at least 2 dims, not " << t;
  int64_t rows = t.getShape()[t.getRank() - 2], cols = t.getShape()[t.getRank() - 1];
  if (square && rows != cols)
    return operatorError(args) << "needs square matrices in '" << name << "', not " << t;
  if (std::max(rows, cols) > maxOrder)
    return operatorError(args) << "supports matrices of at most " << maxOrder
                               << " rows and columns (its factorization is unrolled), not " << t;
  SmallVector<int64_t> batch(t.getShape().drop_back(2));
  int64_t count = 1;
  for (int64_t d : batch)
    count *= d;
  Location loc = args.getOp().getLoc();
  Value x = makeReshape(b, loc, *v, {count, rows, cols});
  x = makeCast(b, loc, x, b.getF64Type());
  return Batched{x, batch, rows, cols, elt};
}

Value tcc::graph::unbatch(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> batch,
                          ArrayRef<int64_t> trailing, Type elt) {
  SmallVector<int64_t> shape(batch);
  shape.append(trailing.begin(), trailing.end());
  return makeCast(b, loc, makeReshape(b, loc, v, shape), elt);
}

bool tcc::graph::hasNoElements(RankedTensorType t) { return llvm::is_contained(t.getShape(), 0); }

SmallVector<Value> tcc::graph::constantResults(OperatorArgs &args, OpBuilder &b,
                                               ArrayRef<double> fill) {
  SmallVector<Value> results;
  for (auto [i, value] : llvm::enumerate(fill))
    results.push_back(makeSplat(b, args.getOp().getLoc(), args.resultType(i), value));
  return results;
}

std::optional<SmallVector<Value>> tcc::graph::emptyResults(OperatorArgs &args, OpBuilder &b,
                                                           const Batched &a,
                                                           ArrayRef<double> fill) {
  if (a.rows != 0 && a.cols != 0 && !hasNoElements(args.resultType()))
    return std::nullopt;
  return constantResults(args, b, fill);
}

Value tcc::graph::identityLike(MatrixBuilder &mb, Value like) {
  ArrayRef<int64_t> shape = typeOf(like).getShape();
  Value onDiagonal = mb.grid("eq", shape[1], shape[2]);
  Value eye = mb.select(onDiagonal, 1.0, 0.0);
  return mb.bin<AddOp>(eye, makeSplat(mb.b, mb.loc, RankedTensorType::get(shape, mb.f64), 0));
}

void tcc::graph::populateLinearAlgebraLegalizers(LegalizerTable &t) {
  // The aliases name their operand `self`, torch.linalg's `A`.
  auto withOperand = [](Results (*fn)(OperatorArgs &, OpBuilder &, StringRef),
                        StringRef operand) -> LegalizeFn {
    return [fn, operand](OperatorArgs &args, OpBuilder &b) { return fn(args, b, operand); };
  };
  t["aten.det.default"] = withOperand(det, "self");
  t["aten.linalg_det.default"] = withOperand(det, "A");
  t["aten.slogdet.default"] = withOperand(slogdet, "self");
  t["aten.linalg_slogdet.default"] = withOperand(slogdet, "A");
  t["aten.logdet.default"] = logdet;
  t["aten.inverse.default"] = inverse("self", false);
  t["aten.linalg_inv.default"] = inverse("A", false);
  t["aten.linalg_inv_ex.default"] = inverse("A", true);
  t["aten.linalg_solve.default"] = solve(false);
  t["aten.linalg_solve_ex.default"] = solve(true);
  t["aten.cholesky.default"] = cholesky("self", false);
  t["aten.linalg_cholesky.default"] = cholesky("self", false);
  t["aten.linalg_cholesky_ex.default"] = cholesky("self", true);
  t["aten.cholesky_solve.default"] = choleskySolveOp;
  t["aten.cholesky_inverse.default"] = choleskyInverse;
  t["aten.linalg_solve_triangular.default"] = solveTriangular;
  t["aten.triangular_solve.default"] = triangularSolveOp;
  t["aten.linalg_lu_factor.default"] = luFactor("A", false);
  t["aten.linalg_lu_factor_ex.default"] = luFactor("A", true);
  // torch.lu: (LU, pivots, info), check_errors = not get_infos.
  t["aten._lu_with_info.default"] = luFactor("self", true);
  t["aten.linalg_lu.default"] = lu;
  t["aten.lu_unpack.default"] = luUnpack;
  t["aten.linalg_matrix_power.default"] = matrixPower;
  t["aten.linalg_tensorinv.default"] = tensorinv;
  t["aten.linalg_tensorsolve.default"] = tensorsolve;
  t["aten.linalg_lu_solve.default"] = [](OperatorArgs &args, OpBuilder &b) {
    return luSolve(args, b, "LU", "pivots", "B");
  };
  t["aten.lu_solve.default"] = [](OperatorArgs &args, OpBuilder &b) {
    return luSolve(args, b, "LU_data", "LU_pivots", "self");
  };
  // The other linear algebra families, one file each (LinearAlgebra.h).
  populateQrLegalizers(t);
  populateSymmetricEigenLegalizers(t);
  populateSvdLegalizers(t);
  populateMatrixProductLegalizers(t);
}
