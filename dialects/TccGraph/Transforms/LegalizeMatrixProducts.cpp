//===- LegalizeMatrixProducts.cpp - kron, tensordot, multi_dot, cross, ... -===//
//
// The linear algebra operators that need no factorization, as reshapes,
// transposes, matmuls and pointwise ops in the operands' type: kron,
// tensordot, linalg.multi_dot, cross / linalg.cross, linalg.vander and
// block_diag.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/LinearAlgebra.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = LinalgResults;

/// The tensor operand `v` in the result's float type; of static shape
/// unless `symbolic` sizes are allowed.
FailureOr<Value> floatOperand(OperatorArgs &args, OpBuilder &b, Value v, bool symbolic = false) {
  RankedTensorType t = typeOf(v);
  Type elt = args.resultType().getElementType();
  if (!isa<FloatType>(elt))
    return operatorError(args) << "needs a float result, not " << args.resultType();
  if (!symbolic && !t.hasStaticShape())
    return operatorError(args) << "needs operands of static shape and a float result, not " << t;
  return makeCast(b, args.getOp().getLoc(), v, elt);
}

/// The operands `self` and `other` by floatOperand.
FailureOr<std::pair<Value, Value>> floatOperandPair(OperatorArgs &args, OpBuilder &b,
                                                    bool symbolic = false) {
  FailureOr<Value> x = requiredTensor(args, "self");
  FailureOr<Value> y = requiredTensor(args, "other");
  if (failed(x) || failed(y))
    return failure();
  FailureOr<Value> l = floatOperand(args, b, *x, symbolic);
  FailureOr<Value> r = floatOperand(args, b, *y, symbolic);
  if (failed(l) || failed(r))
    return failure();
  return std::make_pair(*l, *r);
}

/// kron(self, other): out[i * other.shape + j] = self[i] * other[j], the
/// lower-rank operand padded with leading 1s.
Results kron(OperatorArgs &args, OpBuilder &b) {
  auto operands = floatOperandPair(args, b);
  if (failed(operands))
    return failure();
  Value *l = &operands->first, *r = &operands->second;
  Location loc = args.getOp().getLoc();
  int64_t rank = std::max(typeOf(*l).getRank(), typeOf(*r).getRank());
  auto padded = [&](Value v) {
    SmallVector<int64_t> shape(rank - typeOf(v).getRank(), 1);
    llvm::append_range(shape, typeOf(v).getShape());
    return shape;
  };
  SmallVector<int64_t> ls = padded(*l), rs = padded(*r), lShape, rShape, outShape;
  for (int64_t d = 0; d < rank; ++d) {
    lShape.append({ls[d], 1});
    rShape.append({1, rs[d]});
    outShape.push_back(ls[d] * rs[d]);
  }
  if (hasNoElements(args.resultType()))
    return constantResults(args, b, {0.0});
  Value lx = makeReshape(b, loc, *l, lShape);
  Value rx = makeReshape(b, loc, *r, rShape);
  Value product = makeBinary<MulOp>(b, loc, lx, rx);
  return SmallVector<Value>{makeReshape(b, loc, product, outShape)};
}

/// tensordot(self, other, dims_self, dims_other): self's free dims by
/// other's, the listed dims contracted in pairs, as one matmul.
Results tensordot(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self");
  FailureOr<Value> y = requiredTensor(args, "other");
  std::optional<SmallVector<int64_t>> dimsX = args.getInts("dims_self");
  std::optional<SmallVector<int64_t>> dimsY = args.getInts("dims_other");
  if (failed(x) || failed(y))
    return failure();
  if (!dimsX || !dimsY || dimsX->size() != dimsY->size())
    return operatorError(args) << "needs dims_self and dims_other of one length";
  FailureOr<Value> l = floatOperand(args, b, *x, /*symbolic=*/true);
  FailureOr<Value> r = floatOperand(args, b, *y, /*symbolic=*/true);
  if (failed(l) || failed(r))
    return failure();
  if (hasNoElements(args.resultType()))
    return constantResults(args, b, {0.0});
  Location loc = args.getOp().getLoc();
  SmallVector<int64_t> contractedX, contractedY;
  int64_t size = 1;
  for (auto [dx, dy] : llvm::zip(*dimsX, *dimsY)) {
    int64_t nx = normalizeDim(dx, typeOf(*l).getRank()), ny = normalizeDim(dy, typeOf(*r).getRank());
    int64_t sx = typeOf(*l).getShape()[nx], sy = typeOf(*r).getShape()[ny];
    bool symbolic = ShapedType::isDynamic(sx) || ShapedType::isDynamic(sy);
    // A contracted dim of size 1 against a longer one: ATen sums the other
    // operand over it first.
    if (sx != sy && sx == 1)
      *r = makeReduce<ReduceSumOp>(b, loc, *r, {ny}, true);
    else if (sx != sy && sy == 1)
      *l = makeReduce<ReduceSumOp>(b, loc, *l, {nx}, true);
    else if (symbolic && !sameSize(args, *x, nx, *y, ny))
      return operatorError(args) << "contracts dims " << nx << " and " << ny
                                 << " whose symbolic sizes the export does not state as equal";
    else if (sx != sy && !symbolic)
      return operatorError(args) << "contracts dims of different sizes";
    contractedX.push_back(nx);
    contractedY.push_back(ny);
    size = symbolic || ShapedType::isDynamic(size) ? ShapedType::kDynamic
                                                   : size * std::min(sx, sy);
  }
  // x permuted to [free..., contracted...], y to [contracted..., free...].
  auto permuted = [&](Value v, ArrayRef<int64_t> contracted, bool freeFirst, int64_t &freeSize) {
    RankedTensorType t = typeOf(v);
    SmallVector<int64_t> freeDims;
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (!llvm::is_contained(contracted, d))
        freeDims.push_back(d);
    SmallVector<int64_t> perm = freeFirst ? freeDims : SmallVector<int64_t>(contracted);
    llvm::append_range(perm, freeFirst ? contracted : ArrayRef<int64_t>(freeDims));
    SmallVector<int64_t> shape;
    freeSize = 1;
    for (int64_t d : perm)
      shape.push_back(t.getShape()[d]);
    for (int64_t d : freeDims)
      freeSize = t.isDynamicDim(d) || ShapedType::isDynamic(freeSize) ? ShapedType::kDynamic
                                                                       : freeSize * t.getShape()[d];
    return b.create<TransposeOp>(loc, RankedTensorType::get(shape, t.getElementType()), v,
                                 b.getDenseI64ArrayAttr(perm))
        .getResult();
  };
  int64_t freeX, freeY;
  Value px = permuted(*l, contractedX, true, freeX);
  Value py = permuted(*r, contractedY, false, freeY);
  if (size == 0)
    return constantResults(args, b, {0.0});
  int64_t rankX = typeOf(px).getRank(), rankY = typeOf(py).getRank();
  int64_t freeRankX = rankX - contractedX.size();
  int64_t contractedRank = contractedY.size();
  // The flattened sizes, read at run time where symbolic: x's free dims
  // then the contracted ones; y's contracted dims then its free ones.
  auto products = [&](Value v, int64_t split, int64_t rank) {
    Value front = dimProduct(b, loc, v, 0, split);
    Value back = dimProduct(b, loc, v, split, rank);
    return SmallVector<Value>{front, back};
  };
  bool anySymbolic = !typeOf(px).hasStaticShape() || !typeOf(py).hasStaticShape();
  SmallVector<Value> xSizes = anySymbolic ? products(px, freeRankX, rankX) : SmallVector<Value>{};
  Value mx = makeReshape(b, loc, px, {freeX, size}, xSizes);
  SmallVector<Value> ySizes = anySymbolic ? products(py, contractedRank, rankY) : SmallVector<Value>{};
  Value my = makeReshape(b, loc, py, {size, freeY}, ySizes);
  Value product = makeMatmul(b, loc, mx, my);
  SmallVector<Value> outSizes;
  if (anySymbolic) {
    for (int64_t d = 0; d < freeRankX; ++d)
      outSizes.push_back(dimIndex(b, loc, px, d));
    for (int64_t d = contractedRank; d < rankY; ++d)
      outSizes.push_back(dimIndex(b, loc, py, d));
  }
  return SmallVector<Value>{makeReshape(b, loc, product, args.resultType().getShape(), outSizes)};
}

/// linalg.multi_dot(tensors): the chain of matmuls, left to right; a 1-D
/// first (last) operand is a row (column) vector, dropped from the result.
Results multiDot(OperatorArgs &args, OpBuilder &b) {
  SmallVector<Value> tensors = args.tensorList("tensors");
  if (tensors.size() < 2)
    return operatorError(args) << "needs at least two tensors";
  if (hasNoElements(args.resultType()))
    return constantResults(args, b, {0.0});
  Location loc = args.getOp().getLoc();
  SmallVector<Value> matrices;
  for (auto [i, v] : llvm::enumerate(tensors)) {
    FailureOr<Value> m = floatOperand(args, b, v);
    if (failed(m))
      return failure();
    RankedTensorType t = typeOf(*m);
    bool end = i == 0 || i + 1 == tensors.size();
    if (t.getRank() != 2 && !(end && t.getRank() == 1))
      return operatorError(args) << "needs 2-D tensors (the first and last may be 1-D), not " << t;
    if (t.getRank() == 1)
      *m = makeReshape(b, loc, *m, i == 0 ? SmallVector<int64_t>{1, t.getShape()[0]}
                                          : SmallVector<int64_t>{t.getShape()[0], 1});
    if (hasNoElements(typeOf(*m)))
      // An empty inner dim makes the product zeros (the result has elements).
      return constantResults(args, b, {0.0});
    matrices.push_back(*m);
  }
  Value product = matrices[0];
  for (Value m : ArrayRef<Value>(matrices).drop_front())
    product = makeMatmul(b, loc, product, m);
  return SmallVector<Value>{makeReshape(b, loc, product, args.resultType().getShape())};
}

/// cross(self, other, dim) and linalg.cross(self, other, dim=-1): the cross
/// product of 3-vectors along `dim`, operands broadcast; cross without a
/// dim takes the first dim of size 3 (PyTorch's deprecated default).
LegalizeFn cross(bool linalg) {
  return [linalg](OperatorArgs &args, OpBuilder &b) -> Results {
    auto operands = floatOperandPair(args, b, /*symbolic=*/true);
    if (failed(operands))
      return failure();
    Value *l = &operands->first, *r = &operands->second;
    RankedTensorType out = args.resultType();
    int64_t rank = out.getRank();
    std::optional<int64_t> given = args.getInt("dim");
    int64_t dim = -1;
    if (given) {
      dim = normalizeDim(*given, rank);
    } else if (linalg) {
      dim = rank - 1;
    } else {
      // PyTorch takes the first dim of size 3 at run time: a symbolic one
      // before the first static 3 might be it.
      for (int64_t d = 0; d < rank && dim < 0; ++d) {
        if (out.isDynamicDim(d))
          return operatorError(args) << "without a dim over symbolic sizes is not supported "
                                        "(the dim it takes depends on them): give dim";
        if (out.getShape()[d] == 3)
          dim = d;
      }
    }
    if (dim < 0 || dim >= rank || out.getShape()[dim] != 3)
      return operatorError(args) << "needs a dim of size 3";
    if (hasNoElements(out))
      return constantResults(args, b, {0.0});
    Location loc = args.getOp().getLoc();
    // Operands broadcast to the result's shape, its symbolic sizes the
    // export's.
    FailureOr<SmallVector<Value>> outSizes = symbolicSizes(args, b);
    if (failed(outSizes))
      return failure();
    auto spread = [&](Value v) -> Value {
      if (typeOf(v).getShape() == out.getShape())
        return v;
      return b.create<BroadcastOp>(loc, out, v, *outSizes).getResult();
    };
    Value u = spread(*l);
    Value v = spread(*r);
    auto part = [&](Value t, int64_t i) { return makeSlice(b, loc, t, dim, i, i + 1, 1); };
    SmallVector<Value> parts;
    for (int64_t i = 0; i < 3; ++i) {
      int64_t j = (i + 1) % 3, k = (i + 2) % 3;
      Value uj = part(u, j);
      Value vk = part(v, k);
      Value first = makeBinary<MulOp>(b, loc, uj, vk);
      Value uk = part(u, k);
      Value vj = part(v, j);
      Value second = makeBinary<MulOp>(b, loc, uk, vj);
      parts.push_back(makeBinary<SubOp>(b, loc, first, second));
    }
    return SmallVector<Value>{b.create<ConcatOp>(loc, out, parts, b.getI64IntegerAttr(dim))};
  };
}

/// linalg.vander(x, N): [..., n, N] with columns x^0, x^1, ..., x^(N-1),
/// as PyTorch's running product (cumprod) in x's type (a 0-D x as [1]).
Results vander(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "x");
  if (failed(x))
    return failure();
  RankedTensorType out = args.resultType();
  RankedTensorType t = typeOf(*x);
  if (!out.hasStaticShape() || !t.hasStaticShape() || !isa<FloatType>(out.getElementType()))
    return operatorError(args) << "needs a float operand of static shape, not " << t;
  if (hasNoElements(out))
    return constantResults(args, b, {0.0});
  Location loc = args.getOp().getLoc();
  int64_t columns = out.getShape().back();
  SmallVector<int64_t> columnShape(out.getShape().drop_back());
  columnShape.push_back(1);
  Value base = makeCast(b, loc, makeReshape(b, loc, *x, columnShape), out.getElementType());
  SmallVector<Value> powers{makeSplat(b, loc, typeOf(base), 1.0)};
  for (int64_t j = 1; j < columns; ++j)
    powers.push_back(j == 1 ? base : makeBinary<MulOp>(b, loc, powers.back(), base));
  if (powers.size() == 1)
    return SmallVector<Value>{powers[0]};
  return SmallVector<Value>{b.create<ConcatOp>(loc, out, powers, b.getI64IntegerAttr(out.getRank() - 1))};
}

/// block_diag(tensors): the operands (0-D as 1 x 1, 1-D as one row) on the
/// diagonal of a zero matrix.
Results blockDiag(OperatorArgs &args, OpBuilder &b) {
  SmallVector<Value> tensors = args.tensorList("tensors");
  RankedTensorType out = args.resultType();
  if (!out.hasStaticShape() || out.getRank() != 2)
    return operatorError(args) << "needs a result of static shape";
  if (hasNoElements(out))
    return constantResults(args, b, {0.0});
  Location loc = args.getOp().getLoc();
  int64_t totalCols = out.getShape()[1], colsBefore = 0;
  SmallVector<Value> rows;
  for (Value v : tensors) {
    RankedTensorType t = typeOf(v);
    if (!t.hasStaticShape() || t.getRank() > 2)
      return operatorError(args) << "needs operands of static shape with at most 2 dims, not " << t;
    int64_t r = t.getRank() == 2 ? t.getShape()[0] : 1;
    int64_t c = t.getRank() == 0 ? 1 : t.getShape().back();
    Value m = makeCast(b, loc, makeReshape(b, loc, v, {r, c}), out.getElementType());
    if (r > 0) {
      Value placed = padConstant(b, loc, m, 1, colsBefore, totalCols - colsBefore - c);
      rows.push_back(placed);
    }
    colsBefore += c;
  }
  if (rows.size() == 1)
    return SmallVector<Value>{rows[0]};
  return SmallVector<Value>{b.create<ConcatOp>(loc, out, rows, b.getI64IntegerAttr(0))};
}
} // namespace

void tcc::graph::populateMatrixProductLegalizers(LegalizerTable &t) {
  t["aten.kron.default"] = kron;
  t["aten.tensordot.default"] = tensordot;
  t["aten.linalg_multi_dot.default"] = multiDot;
  t["aten.cross.default"] = cross(false);
  t["aten.linalg_cross.default"] = cross(true);
  t["aten.linalg_vander.default"] = vander;
  t["aten.block_diag.default"] = blockDiag;
}
