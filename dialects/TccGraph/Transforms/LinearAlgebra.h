//===- LinearAlgebra.h - matrix steps shared by the linear algebra files --===//
//
// Private to tcc-legalize-graph. The factorizations of torch.linalg are
// built as generated loops on batches of matrices [B, rows, cols] in f64
// (LegalizeLinearAlgebra.cpp: LU, Cholesky, solves; LegalizeQr.cpp:
// Householder QR; LegalizeSymmetricEigen.cpp: Jacobi eigen-decomposition;
// LegalizeSvd.cpp: singular values and vectors). This header holds what they
// share: the step builder, the operand reading and the result shaping.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_DIALECTS_TCCGRAPH_TRANSFORMS_LINEARALGEBRA_H
#define TCC_DIALECTS_TCCGRAPH_TRANSFORMS_LINEARALGEBRA_H

#include "dialects/TccGraph/Transforms/Legalizers.h"

#include <optional>

namespace tcc::graph {

/// The largest matrix order unrolled: each step is about 20 ops.
constexpr int64_t kMaxOrder = 16;
/// The largest order the Jacobi iterations are unrolled for: a sweep is
/// n (n - 1) / 2 rotations of about 30 ops each.
constexpr int64_t kMaxJacobiOrder = 8;
/// The longest columns the one-sided Jacobi SVD rotates: its rotations act
/// on the min(m, n) columns (at most kMaxJacobiOrder) of length max(m, n),
/// so a long side costs only longer vectors, not more rotations.
constexpr int64_t kMaxJacobiLength = 64;
/// Cyclic Jacobi converges quadratically; in f64 the off-diagonal of these
/// orders is below 1e-30 of the diagonal well before the last sweep (later
/// rotations are then by an angle of 0).
constexpr int64_t kJacobiSweeps = 8;

using LinalgResults = mlir::FailureOr<llvm::SmallVector<mlir::Value>>;

/// Builds the matrix steps on [B, rows, cols] tensors in f64.
struct MatrixBuilder {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type f64;

  mlir::Value c(double v) { return makeScalar(b, loc, f64, v); }
  template <typename OpTy> mlir::Value bin(mlir::Value l, mlir::Value r) {
    return makeBinary<OpTy>(b, loc, l, r);
  }
  mlir::Value cmp(llvm::StringRef predicate, mlir::Value l, mlir::Value r) {
    return makeCompare(b, loc, predicate, l, r);
  }
  mlir::Value cmp(llvm::StringRef predicate, mlir::Value l, double r) {
    return cmp(predicate, l, c(r));
  }
  mlir::Value select(mlir::Value cond, mlir::Value l, mlir::Value r) {
    auto shape = broadcastShapes(typeOf(cond).getShape(), typeOf(l).getShape());
    shape = broadcastShapes(*shape, typeOf(r).getShape());
    return b.create<SelectOp>(loc, mlir::RankedTensorType::get(*shape, f64), cond, l, r);
  }
  /// select with scalar operands: each constant made in its own statement,
  /// so the IR's order does not depend on the compiler (issue 17).
  mlir::Value select(mlir::Value cond, mlir::Value l, double r) {
    mlir::Value rc = c(r);
    return select(cond, l, rc);
  }
  mlir::Value select(mlir::Value cond, double l, mlir::Value r) {
    mlir::Value lc = c(l);
    return select(cond, lc, r);
  }
  mlir::Value select(mlir::Value cond, double l, double r) {
    mlir::Value lc = c(l);
    mlir::Value rc = c(r);
    return select(cond, lc, rc);
  }
  /// Row index `predicate` column index on a [1, n, m] grid.
  mlir::Value grid(llvm::StringRef predicate, int64_t n, int64_t m) {
    mlir::Value r = rows(n);
    mlir::Value k = cols(m);
    return cmp(predicate, r, k);
  }
  mlir::Value both(mlir::Value l, mlir::Value r) { return makeBinary<BitwiseAndOp>(b, loc, l, r); }
  /// Row indices [1, n, 1] and column indices [1, 1, n].
  mlir::Value rows(int64_t n) { return makeIotaAt(b, loc, n, f64, 3, 1); }
  mlir::Value cols(int64_t n) { return makeIotaAt(b, loc, n, f64, 3, 2); }
  /// Row k [B, 1, cols] and column k [B, rows, 1].
  mlir::Value row(mlir::Value a, int64_t k) { return makeSlice(b, loc, a, 1, k, k + 1, 1); }
  mlir::Value col(mlir::Value a, int64_t k) { return makeSlice(b, loc, a, 2, k, k + 1, 1); }
  mlir::Value at(mlir::Value a, int64_t r, int64_t k) { return col(row(a, r), k); }
  /// The diagonal of [B, n, n] as [B, n] (the off-diagonal masked out, so a
  /// NaN elsewhere does not reach it).
  mlir::Value diagonal(mlir::Value a) {
    int64_t n = typeOf(a).getShape()[1];
    mlir::Value onDiagonal = grid("eq", n, n);
    mlir::Value zero = c(0);
    mlir::Value masked = select(onDiagonal, a, zero);
    return makeReduce<ReduceSumOp>(b, loc, masked, {2}, false);
  }
  /// Sum over `dim`, kept as size 1.
  mlir::Value sum(mlir::Value x, int64_t dim) {
    return makeReduce<ReduceSumOp>(b, loc, x, {dim}, true);
  }
};

/// A float32/float64 operand of static shape as [B, rows, cols] in f64, with
/// the batch dims it had and its element type.
struct Batched {
  mlir::Value x;
  llvm::SmallVector<int64_t> batch;
  int64_t rows, cols;
  mlir::Type elt;
};

/// The operand `name`: float32/float64, static, rank >= 2 (`square`: square
/// matrices), at most `maxOrder` rows and columns; an error naming the
/// operator otherwise.
mlir::FailureOr<Batched> batchedOperand(OperatorArgs &args, mlir::OpBuilder &b,
                                        llvm::StringRef name, bool square,
                                        int64_t maxOrder = kMaxOrder);

/// `v` [B, ...] back to the batch dims with `trailing` dims after them, in
/// element type `elt`.
mlir::Value unbatch(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                    llvm::ArrayRef<int64_t> batch, llvm::ArrayRef<int64_t> trailing,
                    mlir::Type elt);

bool hasNoElements(mlir::RankedTensorType t);

/// Constants of the operator's result types, `fill[i]` for result i.
llvm::SmallVector<mlir::Value> constantResults(OperatorArgs &args, mlir::OpBuilder &b,
                                               llvm::ArrayRef<double> fill);

/// The results of an operator on `a` when there is nothing to compute (0 x 0
/// matrices or an empty batch): constants, `fill[i]` for result i.
std::optional<llvm::SmallVector<mlir::Value>>
emptyResults(OperatorArgs &args, mlir::OpBuilder &b, const Batched &a, llvm::ArrayRef<double> fill);

/// An identity like `like` [B, n, n] (f64).
mlir::Value identityLike(MatrixBuilder &mb, mlir::Value like);

/// The one-hot matrix P [B, n, n] that sorts d [B, n] (ascending, or
/// descending), ties in index order: P[i][j] = 1 where element i goes to
/// position j, so sorted = d P and the columns of X [B, m, n] follow as X P.
mlir::Value sortingPermutation(MatrixBuilder &mb, mlir::Value d, bool descending);

/// d [B, n] sorted along dim 1 (ascending, or descending), ties in index order.
mlir::Value sortRows(MatrixBuilder &mb, mlir::Value d, bool descending);

/// The UPLO argument: true for 'L' (the default), false for 'U'; an error
/// naming the operator for anything else.
mlir::FailureOr<bool> lowerTriangleArgument(OperatorArgs &args);

/// The symmetric matrix [B, n, n] whose lower (or upper) triangle `a` holds.
mlir::Value symmetricFromTriangle(MatrixBuilder &mb, mlir::Value a, bool lower);

/// The Jacobi rotation (cos, sin) that zeroes the off-diagonal `offDiagonal`
/// of the symmetric 2 x 2 [[first, off], [off, second]] (all [B, 1, 1]):
/// Numerical Recipes' stable angle, t = sign(theta) / (|theta| +
/// sqrt(theta^2 + 1)), theta = (second - first) / (2 off); no rotation
/// where off is 0 (theta would be 0 / 0) (LegalizeSymmetricEigen.cpp).
std::pair<mlir::Value, mlir::Value> jacobiRotation(MatrixBuilder &mb, mlir::Value first,
                                                   mlir::Value second, mlir::Value offDiagonal);

/// x with its slices p and q along the dim `idx` indexes ([1, n, 1] rows or
/// [1, 1, n] columns) replaced by c p - s q and s p + c q (`first` and
/// `second` the slices p and q of x).
mlir::Value rotatePair(MatrixBuilder &mb, mlir::Value x, mlir::Value first, mlir::Value second,
                       mlir::Value cs, mlir::Value sn, mlir::Value idx, int64_t p, int64_t q);

/// Eigenvalues [B, n] (ascending) and, when `withVectors`, eigenvectors
/// [B, n, n] (columns, in the eigenvalues' order) of symmetric a [B, n, n]
/// (f64) by cyclic Jacobi rotations (LegalizeSymmetricEigen.cpp).
std::pair<mlir::Value, mlir::Value> symmetricEigen(MatrixBuilder &mb, mlir::Value a,
                                                   bool withVectors);

/// Signs [B, 1, n] (+-1) that make each column of x [B, m, n] have its
/// largest-magnitude element (the first of equal ones) positive.
mlir::Value columnSigns(MatrixBuilder &mb, mlir::Value x);

/// The columns of x [B, m, n] times their columnSigns: the deterministic
/// representative of vectors unique only up to sign.
mlir::Value normalizeColumnSigns(MatrixBuilder &mb, mlir::Value x);

/// The columns of x [B, m, n] in the order of the one-hot p [B, n, n] from
/// sortingPermutation: x p, as masked sums (no 0 * inf).
mlir::Value permuteColumns(MatrixBuilder &mb, mlir::Value x, mlir::Value p);

/// A thin singular value decomposition a = u diag(s) v^T of a [B, m, n]
/// (f64), k = min(m, n): u [B, m, k], s [B, k] descending, v [B, n, k]
/// (LegalizeSvd.cpp). Without vectors only s is set. A column of u (of v
/// where m < n) whose singular value is 0 is 0: those vectors are not
/// determined.
struct SvdFactors {
  mlir::Value u, s, v;
};
SvdFactors singularValueDecomposition(MatrixBuilder &mb, mlir::Value a, bool withVectors);

void populateQrLegalizers(LegalizerTable &table);
void populateSymmetricEigenLegalizers(LegalizerTable &table);
void populateSvdLegalizers(LegalizerTable &table);
void populateMatrixProductLegalizers(LegalizerTable &table);

} // namespace tcc::graph

#endif // TCC_DIALECTS_TCCGRAPH_TRANSFORMS_LINEARALGEBRA_H
