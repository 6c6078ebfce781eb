//===- LegalizeLinalgLike.cpp - matmul, conv, pooling, norms, reductions --===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include <cmath>
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace tcc::graph;


//===----------------------------------------------------------------------===//
// Shared with the other families (Legalizers.h)
//===----------------------------------------------------------------------===//

SmallVector<int64_t> tcc::graph::perDim(std::optional<SmallVector<int64_t>> v, size_t n,
                                         int64_t dflt) {
  if (!v || v->empty())
    return SmallVector<int64_t>(n, dflt);
  if (v->size() == 1)
    return SmallVector<int64_t>(n, (*v)[0]);
  return *v;
}

SmallVector<int64_t> tcc::graph::withDimSize(ArrayRef<int64_t> shape, int64_t dim,
                                             int64_t size) {
  SmallVector<int64_t> s(shape);
  s[dim] = size;
  return s;
}

SmallVector<int64_t> tcc::graph::pair(std::optional<SmallVector<int64_t>> v, int64_t dflt) {
  return perDim(std::move(v), 2, dflt);
}

Value tcc::graph::transposeLast2(OpBuilder &b, Location loc, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  int64_t r = t.getRank();
  SmallVector<int64_t> perm, shape;
  for (int64_t i = 0; i < r; ++i)
    perm.push_back(i < r - 2 ? i : (i == r - 2 ? r - 1 : r - 2));
  for (int64_t p : perm)
    shape.push_back(t.getShape()[p]);
  return b.create<TransposeOp>(loc, RankedTensorType::get(shape, t.getElementType()),
                               v, b.getDenseI64ArrayAttr(perm));
}

Value tcc::graph::makeLogSumExp(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> dims) {
  Type elt = typeOf(x).getElementType();
  Value m = makeReduce<ReduceMaxOp>(b, loc, x, dims, true);
  Value magnitude = b.create<AbsOp>(loc, m);
  Value infinity = makeScalar(b, loc, elt, INFINITY);
  Value infinite = makeCompare(b, loc, "eq", magnitude, infinity);
  m = b.create<SelectOp>(loc, typeOf(m), infinite, makeScalar(b, loc, elt, 0.0), m);
  Value sum = makeReduce<ReduceSumOp>(b, loc, b.create<ExpOp>(loc, makeBinary<SubOp>(b, loc, x, m)),
                                      dims, true);
  return makeBinary<AddOp>(b, loc, b.create<LogOp>(loc, sum), m);
}

Value tcc::graph::makeMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  auto l = cast<RankedTensorType>(lhs.getType()), r = cast<RankedTensorType>(rhs.getType());
  auto batch = broadcastShapes(l.getShape().drop_back(2), r.getShape().drop_back(2));
  SmallVector<int64_t> shape(succeeded(batch) ? *batch : SmallVector<int64_t>{});
  shape.push_back(l.getShape()[l.getRank() - 2]);
  shape.push_back(r.getShape()[r.getRank() - 1]);
  return b.create<MatmulOp>(loc, RankedTensorType::get(shape, l.getElementType()), lhs, rhs);
}

/// count_include_pad (default true); always with a divisor_override, whose
/// windows then all divide by the kernel's size (applyDivisorOverride).
bool tcc::graph::countIncludePad(OperatorArgs &args) {
  return args.has("divisor_override") || args.getBool("count_include_pad").value_or(true);
}

bool tcc::graph::ceilModeByPadding(OperatorArgs &args) {
  return args.has("divisor_override") && args.getBool("ceil_mode").value_or(false);
}

Value tcc::graph::padForCeilMode(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> outSizes,
                                 ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                                 ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation) {
  int64_t spatial = kernel.size(), first = typeOf(x).getRank() - spatial;
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t size = typeOf(x).getShape()[first + i];
    // The last window's end past the padded input.
    int64_t reach = (outSizes[i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1;
    int64_t extra = reach - (size + 2 * padding[i]);
    if (extra > 0)
      x = padConstant(b, loc, x, first + i, 0, extra);
  }
  return x;
}

FailureOr<Value> tcc::graph::applyDivisorOverride(OperatorArgs &args, OpBuilder &b, Value avg,
                                                  int64_t kernelSize) {
  std::optional<double> divisor = args.getFloat("divisor_override");
  if (!divisor)
    return avg;
  if (*divisor == 0)
    return operatorError(args) << "divisor_override must not be 0";
  Type elt = typeOf(avg).getElementType();
  Value ratio = makeScalar(b, args.getOp().getLoc(), elt, double(kernelSize) / *divisor);
  return makeBinary<MulOp>(b, args.getOp().getLoc(), avg, ratio);
}

namespace {
using Results = FailureOr<SmallVector<Value>>;


/// torch.matmul of operands of rank >= 1: a rank-1 lhs is a row [1, n] and a
/// rank-1 rhs a column [n, 1], whose unit dim leaves the result.
Value matmulAnyRank(OpBuilder &b, Location loc, Value x, Value y) {
  bool rowVector = typeOf(x).getRank() == 1, columnVector = typeOf(y).getRank() == 1;
  if (rowVector)
    x = makeReshape(b, loc, x, {1, typeOf(x).getShape()[0]});
  if (columnVector)
    y = makeReshape(b, loc, y, {typeOf(y).getShape()[0], 1});
  Value z = makeMatmul(b, loc, x, y);
  if (!rowVector && !columnVector)
    return z;
  SmallVector<int64_t> shape(typeOf(z).getShape());
  if (columnVector)
    shape.pop_back();
  if (rowVector)
    shape.erase(shape.end() - (columnVector ? 1 : 2));
  return makeReshape(b, loc, z, shape);
}

/// The product of two named operands; with `compute`, of the operands
/// converted to that type first.
Results matmulLike(OperatorArgs &args, OpBuilder &b, StringRef lhsName, StringRef rhsName,
                   Type compute = {}) {
  Value x = args.tensor(lhsName), y = args.tensor(rhsName);
  if (!x || !y)
    return args.getOp().emitError("expected tensor operands '") << lhsName << "' and '" << rhsName << "'";
  if (typeOf(x).getRank() < 1 || typeOf(y).getRank() < 1)
    return operatorError(args) << "matrix products of 0-d operands are not defined";
  Location loc = args.getOp().getLoc();
  if (compute) {
    x = makeCast(b, loc, x, compute);
    y = makeCast(b, loc, y, compute);
  }
  return SmallVector<Value>{matmulAnyRank(b, loc, x, y)};
}

/// f32 where beta * self + alpha * product of bf16/f16 operands would round
/// more often than PyTorch, whose kernels scale and add in f32 and round
/// once (a null type: the operands' own). Without scales (a linear layer's
/// addmm) the product's epilogue adds in f32 already, and the operands stay
/// in their type for the tensor cores; `always` for addbmm, whose sum over
/// the batch would otherwise round each product.
Type scaledProductType(OperatorArgs &args, StringRef lhsName, bool always = false) {
  Value x = args.tensor(lhsName);
  if (!x || !(typeOf(x).getElementType().isBF16() || typeOf(x).getElementType().isF16()))
    return {};
  double beta = args.getFloat("beta").value_or(1.0), alpha = args.getFloat("alpha").value_or(1.0);
  if (always || alpha != 1.0 || (beta != 0.0 && beta != 1.0))
    return Float32Type::get(x.getContext());
  return {};
}

Results addScaledIn(OperatorArgs &args, OpBuilder &b, Value product, Value self, Type elt);

/// beta * self + alpha * product (addmm, addmv, addr, addbmm, baddbmm); self
/// is ignored when beta is 0 (its NaNs too, as PyTorch).
Results addScaled(OperatorArgs &args, OpBuilder &b, Value product) {
  Location loc = args.getOp().getLoc();
  Value self = args.tensor("self");
  if (!self)
    return operatorError(args) << "needs a tensor 'self'";
  // A product computed wider than the result (scaledProductType): the sum
  // too, rounded once at the end.
  Type resultElt = args.resultType().getElementType();
  Type elt = typeOf(product).getElementType();
  if (elt != resultElt) {
    Results wide = addScaledIn(args, b, product, makeCast(b, loc, self, elt), elt);
    if (failed(wide))
      return failure();
    return SmallVector<Value>{makeCast(b, loc, (*wide)[0], resultElt)};
  }
  return addScaledIn(args, b, product, self, elt);
}

/// beta * self + alpha * product in `elt`.
Results addScaledIn(OperatorArgs &args, OpBuilder &b, Value product, Value self, Type elt) {
  Location loc = args.getOp().getLoc();
  double beta = args.getFloat("beta").value_or(1.0), alpha = args.getFloat("alpha").value_or(1.0);
  Value y = product;
  if (alpha != 1.0)
    y = makeBinary<MulOp>(b, loc, y, makeScalar(b, loc, elt, alpha));
  if (beta != 0.0) {
    Value s = beta == 1.0 ? self : makeBinary<MulOp>(b, loc, self, makeScalar(b, loc, elt, beta));
    y = makeBinary<AddOp>(b, loc, s, y);
  } else if (typeOf(y).getShape() != args.resultType().getShape()) {
    y = b.create<BroadcastOp>(loc, args.resultType().clone(elt), y);
  }
  return SmallVector<Value>{y};
}

/// A product of two named operands (matmulAnyRank) added to self by addScaled.
/// `wideSum`: a bf16/f16 product is computed in f32 whenever self is added
/// (baddbmm: PyTorch adds self in f32 and rounds once, on both devices,
/// where a batched product's epilogue here would round the product first).
LegalizeFn addProduct(StringRef lhsName, StringRef rhsName, bool wideSum = false) {
  return [lhsName, rhsName, wideSum](OperatorArgs &args, OpBuilder &b) -> Results {
    const bool addsSelf = args.getFloat("beta").value_or(1.0) != 0.0;
    Results prod = matmulLike(args, b, lhsName, rhsName,
                              scaledProductType(args, lhsName, wideSum && addsSelf));
    if (failed(prod))
      return failure();
    return addScaled(args, b, (*prod)[0]);
  };
}

/// The named operands as [rows, n] and [n, cols] factors of an outer
/// product, or of inner(x, y) = x @ y^T over the last dims.
Results legalizeOuter(OperatorArgs &args, OpBuilder &b, StringRef lhsName, StringRef rhsName,
                      bool addSelf) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor(lhsName), y = args.tensor(rhsName);
  if (!x || !y || typeOf(x).getRank() != 1 || typeOf(y).getRank() != 1)
    return operatorError(args) << "expects 1-D '" << lhsName << "' and '" << rhsName << "'";
  Value column = makeReshape(b, loc, x, {typeOf(x).getShape()[0], 1});
  Value row = makeReshape(b, loc, y, {1, typeOf(y).getShape()[0]});
  Value product = makeBinary<MulOp>(b, loc, column, row);
  if (!addSelf)
    return SmallVector<Value>{product};
  return addScaled(args, b, product);
}

/// inner(self, other): sums over the last dims, x.shape[:-1] + y.shape[:-1];
/// a 0-d operand multiplies.
Results legalizeInner(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self"), y = args.tensor("other");
  if (!x || !y)
    return operatorError(args) << "needs tensors 'self' and 'other'";
  RankedTensorType xt = typeOf(x), yt = typeOf(y);
  if (xt.getRank() == 0 || yt.getRank() == 0)
    return SmallVector<Value>{makeBinary<MulOp>(b, loc, x, y)};
  if (xt.hasStaticShape() && yt.hasStaticShape()) {
    int64_t n = xt.getShape().back(), rows = 1, cols = 1;
    for (int64_t d : xt.getShape().drop_back())
      rows *= d;
    for (int64_t d : yt.getShape().drop_back())
      cols *= d;
    Value lhs = makeReshape(b, loc, x, {rows, n});
    Value rhs = makeReshape(b, loc, y, {cols, n});
    Value z = makeMatmul(b, loc, lhs, transposeLast2(b, loc, rhs));
    return SmallVector<Value>{makeReshape(b, loc, z, args.resultType().getShape())};
  }
  // Symbolic sizes: the flattened ones and the result's read at run time
  // (the two last dims are one size, as the export guards).
  int64_t xr = xt.getRank(), yr = yt.getRank();
  int64_t n = xt.isDynamicDim(xr - 1) ? yt.getShape().back() : xt.getShape().back();
  auto flattened = [&](Value v) {
    RankedTensorType t = typeOf(v);
    int64_t rows = 1;
    for (int64_t d : t.getShape().drop_back())
      rows = ShapedType::isDynamic(d) || ShapedType::isDynamic(rows) ? ShapedType::kDynamic
                                                                     : rows * d;
    if (!ShapedType::isDynamic(rows) || !ShapedType::isDynamic(n))
      return makeReshape(b, loc, v, {rows, n});
    Value rowCount = dimProduct(b, loc, v, 0, t.getRank() - 1);
    Value length = dimIndex(b, loc, v, t.getRank() - 1);
    return makeReshape(b, loc, v, {rows, n}, {rowCount, length});
  };
  Value lhs = flattened(x);
  Value rhs = flattened(y);
  Value z = makeMatmul(b, loc, lhs, transposeLast2(b, loc, rhs));
  if (typeOf(z).getShape() == args.resultType().getShape())
    return SmallVector<Value>{z};
  SmallVector<Value> sizes;
  if (args.resultType().getNumDynamicDims() > 1) {
    for (int64_t d = 0; d + 1 < xr; ++d)
      sizes.push_back(dimIndex(b, loc, x, d));
    for (int64_t d = 0; d + 1 < yr; ++d)
      sizes.push_back(dimIndex(b, loc, y, d));
  }
  return SmallVector<Value>{makeReshape(b, loc, z, args.resultType().getShape(), sizes)};
}

/// linalg_vecdot(x, y, dim): sum(x * y) over dim (real tensors: no conjugate).
Results legalizeVecdot(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("x"), y = args.tensor("y");
  if (!x || !y || !isa<FloatType>(typeOf(x).getElementType()))
    return operatorError(args) << "needs float tensors 'x' and 'y'";
  Value product = makeBinary<MulOp>(b, loc, x, y);
  int64_t rank = typeOf(product).getRank();
  int64_t dim = normalizeDim(args.getInt("dim").value_or(-1), rank);
  if (dim < 0 || dim >= rank)
    return operatorError(args) << "dim out of range";
  return SmallVector<Value>{makeReduce<ReduceSumOp>(b, loc, product, {dim}, false)};
}

/// trace(self) of a matrix: the sum of its main diagonal.
Results legalizeTrace(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self");
  if (!x || typeOf(x).getRank() != 2 || !isa<FloatType>(typeOf(x).getElementType()))
    return operatorError(args) << "needs a float matrix";
  RankedTensorType t = typeOf(x);
  Type i64 = b.getI64Type();
  // 0..n-1 along dim d, its length read at run time where symbolic.
  auto iota = [&](int64_t d) {
    SmallVector<Value> length;
    if (t.isDynamicDim(d))
      length.push_back(dimIndex(b, loc, x, d));
    return b.create<IotaOp>(loc, RankedTensorType::get({t.getShape()[d]}, i64),
                            b.getF64FloatAttr(0), b.getF64FloatAttr(1), length)
        .getResult();
  };
  Value rows = iota(0);
  rows = makeReshape(b, loc, rows, {t.getShape()[0], 1});
  Value cols = iota(1);
  Value onDiagonal = makeCompare(b, loc, "eq", rows, cols);
  Value zero = makeScalar(b, loc, t.getElementType(), 0.0);
  Value kept = b.create<SelectOp>(loc, t, onDiagonal, x, zero);
  return SmallVector<Value>{makeReduce<ReduceSumOp>(b, loc, kept, {0, 1}, false)};
}

/// linear(x, w, b) = x @ w^T + b
Results legalizeLinear(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("input"), w = args.tensor("weight"), bias = args.tensor("bias");
  if (!x || !w)
    return args.getOp().emitError("linear expects 'input' and 'weight' tensors");
  if (typeOf(x).getRank() < 1 || typeOf(w).getRank() < 1 || typeOf(w).getRank() > 2)
    return operatorError(args) << "expects an input of rank >= 1 and a weight of rank 1 or 2";
  Value wt = typeOf(w).getRank() == 2 ? transposeLast2(b, loc, w) : w;
  Value y = matmulAnyRank(b, loc, x, wt);
  if (bias)
    y = makeBinary<AddOp>(b, loc, y, bias);
  return SmallVector<Value>{y};
}

/// 1-D convolution and pooling run as 2-D over a height of 1.
/// [N, C, L] -> [N, C, 1, L] (also for weights [O, C/g, K]).
SmallVector<int64_t> withUnitHeight(ArrayRef<int64_t> s) { return {s[0], s[1], 1, s[2]}; }

/// The first entry of an int-list argument (1-D ops give [v]), or `fallback`.
int64_t firstInt(OperatorArgs &args, StringRef name, int64_t fallback) {
  std::optional<SmallVector<int64_t>> v = args.getInts(name);
  return v && !v->empty() ? (*v)[0] : fallback;
}

bool hasNoElements(RankedTensorType t) { return llvm::is_contained(t.getShape(), 0); }

/// Training-mode batch norm on the batch's statistics: per channel (dim 1),
/// mean and biased variance over every other dim (in f64, as ATen's CPU
/// kernel accumulates), y = (x - mean) * invstd * w + b with invstd =
/// 1 / sqrt(var + eps); results y, save_mean, save_invstd (and an empty
/// reserve).
Results batchNormTraining(OperatorArgs &args, OpBuilder &b, Value x, Value w, Value bias) {
  Location loc = args.getOp().getLoc();
  auto xt = typeOf(x);
  Type elt = xt.getElementType();
  Value xd = makeCast(b, loc, x, b.getF64Type());
  SmallVector<int64_t> dims{0};
  for (int64_t d = 2; d < xt.getRank(); ++d)
    dims.push_back(d);
  Value mean = makeReduce<ReduceMeanOp>(b, loc, xd, dims, true);
  Value centered = makeBinary<SubOp>(b, loc, xd, mean);
  Value var = makeReduce<ReduceMeanOp>(b, loc, makeBinary<MulOp>(b, loc, centered, centered),
                                       dims, true);
  double eps = args.getFloat("eps").value_or(1e-5);
  Value invstd = b.create<RsqrtOp>(
      loc, makeBinary<AddOp>(b, loc, var, makeScalar(b, loc, b.getF64Type(), eps)));
  Value y = makeCast(b, loc, makeBinary<MulOp>(b, loc, centered, invstd), elt);
  SmallVector<int64_t> chShape{xt.getShape()[1]};
  chShape.append(xt.getRank() - 2, 1);
  if (w)
    y = makeBinary<MulOp>(b, loc, y, makeReshape(b, loc, w, chShape));
  if (bias)
    y = makeBinary<AddOp>(b, loc, y, makeReshape(b, loc, bias, chShape));
  SmallVector<Value> results{y};
  OperatorOp op = args.getOp();
  for (unsigned i = 1; i < op.getNumResults(); ++i) {
    RankedTensorType rt = args.resultType(i);
    if (i <= 2 && rt.getRank() == 1 && rt.getShape()[0] == xt.getShape()[1]) {
      Value stat = makeReshape(b, loc, i == 1 ? mean : invstd, rt.getShape());
      results.push_back(makeCast(b, loc, stat, rt.getElementType()));
    } else if (rt.hasStaticShape() && hasNoElements(rt)) {
      results.push_back(makeSplat(b, loc, rt, 0.0));
    } else {
      results.push_back(nullptr);
    }
  }
  return results;
}

/// Batch norm: in inference form y = x * scale + shift per channel (dim 1),
/// with scale = w / sqrt(var + eps) and shift = b - mean * scale; in
/// training mode on the batch's statistics where no running statistics are
/// given (PyTorch updates given ones in place, which a compiled model would
/// not do: refused). `alwaysTraining`: _batch_norm_with_update.
Results batchNorm(OperatorArgs &args, OpBuilder &b, bool alwaysTraining) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("input"), w = args.tensor("weight"), bias = args.tensor("bias");
  Value mean = args.tensor("running_mean"), var = args.tensor("running_var");
  if (!x)
    return operatorError(args) << "expects an 'input' tensor";
  auto xt = typeOf(x);
  OperatorOp op = args.getOp();
  // Nothing to normalize: every result is empty (the update of empty running
  // statistics changes nothing).
  bool allEmpty = xt.hasStaticShape() && hasNoElements(xt);
  for (unsigned i = 0; allEmpty && i < op.getNumResults(); ++i)
    allEmpty = args.resultType(i).hasStaticShape() && hasNoElements(args.resultType(i));
  if (allEmpty && (!mean || hasNoElements(typeOf(mean)))) {
    SmallVector<Value> results;
    for (unsigned i = 0; i < op.getNumResults(); ++i)
      results.push_back(makeSplat(b, loc, args.resultType(i), 0.0));
    return results;
  }
  if (xt.getRank() < 2)  // channels are dim 1 of (N, C, ...)
    return operatorError(args) << "expects an input of rank 2 or more, got " << xt;
  bool training = alwaysTraining || args.getBool("training").value_or(false) ||
                  (op.getName() == "torch.ops.aten._batch_norm_no_update.default" && !mean);
  if (training) {
    if (mean || var)
      return operatorError(args)
             << "in training mode PyTorch updates running_mean and running_var in place, which "
                "the compiled model would not do; export in eval mode (model.eval()) or without "
                "running statistics (track_running_stats=False)";
    if (!isa<FloatType>(xt.getElementType()))
      return operatorError(args) << "expects a floating-point input";
    return batchNormTraining(args, b, x, w, bias);
  }
  if (!mean || !var)
    return operatorError(args) << "in eval mode needs running_mean and running_var";
  Type elt = xt.getElementType();
  double eps = args.getFloat("eps").value_or(1e-5);
  Value scale = b.create<RsqrtOp>(loc, makeBinary<AddOp>(b, loc, var, makeScalar(b, loc, elt, eps)));
  if (w)
    scale = makeBinary<MulOp>(b, loc, scale, w);
  Value zero = makeScalar(b, loc, elt, 0.0);
  Value shift = makeBinary<SubOp>(b, loc, zero, makeBinary<MulOp>(b, loc, mean, scale));
  if (bias)
    shift = makeBinary<AddOp>(b, loc, shift, bias);
  // [C] -> [C, 1, ..., 1] so it broadcasts against [N, C, ...].
  SmallVector<int64_t> chShape{typeOf(scale).getShape()[0]};
  chShape.append(xt.getRank() - 2, 1);
  scale = makeReshape(b, loc, scale, chShape);
  shift = makeReshape(b, loc, shift, chShape);
  Value y = makeBinary<AddOp>(b, loc, makeBinary<MulOp>(b, loc, x, scale), shift);
  SmallVector<Value> results{y};
  // native_batch_norm's save_mean/save_invstd in eval mode are empty.
  for (unsigned i = 1; i < op.getNumResults(); ++i) {
    RankedTensorType rt = args.resultType(i);
    results.push_back(rt.hasStaticShape() && hasNoElements(rt) ? makeSplat(b, loc, rt, 0.0)
                                                               : Value());
  }
  return results;
}

Results legalizeBatchNorm(OperatorArgs &args, OpBuilder &b) {
  return batchNorm(args, b, false);
}

/// max_pool1d / avg_pool1d as 2-D pooling over a height of 1:
/// [N, C, L] -> [N, C, 1, L] with kernel, stride, padding and dilation (1, v).
template <typename PoolOp>
FailureOr<Value> pool1d(OperatorArgs &args, OpBuilder &b, bool isAvg, Value x,
                        RankedTensorType out) {
  Location loc = args.getOp().getLoc();
  auto one = [&](StringRef name, int64_t fallback) { return firstInt(args, name, fallback); };
  int64_t kernel = one("kernel_size", 1), stride = one("stride", 0);
  if (stride == 0)
    stride = kernel;
  bool ceilMode = args.getBool("ceil_mode").value_or(false);
  recordWindowChecks(args, "self", {kernel}, {stride}, {one("padding", 0)}, {one("dilation", 1)},
                     ceilMode);
  if (ceilModeByPadding(args)) {
    if (!typeOf(x).hasStaticShape() || !out.hasStaticShape())
      return operatorError(args) << "divisor_override with ceil_mode needs static shapes";
    x = padForCeilMode(b, loc, x, out.getShape().take_back(1), {kernel}, {stride},
                       {one("padding", 0)}, {one("dilation", 1)});
    ceilMode = false;
  }
  Value x4 = makeReshape(b, loc, x, withUnitHeight(typeOf(x).getShape()));
  auto pool = b.create<PoolOp>(
      loc, RankedTensorType::get(withUnitHeight(out.getShape()), out.getElementType()), x4,
      b.getDenseI64ArrayAttr({1, kernel}), b.getDenseI64ArrayAttr({1, stride}),
      b.getDenseI64ArrayAttr({0, one("padding", 0)}), b.getDenseI64ArrayAttr({1, one("dilation", 1)}),
      b.getBoolAttr(ceilMode),
      b.getBoolAttr(isAvg ? countIncludePad(args) : false));
  FailureOr<Value> scaled = applyDivisorOverride(args, b, pool, kernel);
  if (failed(scaled))
    return failure();
  return makeReshape(b, loc, *scaled, out.getShape());
}

/// max_pool2d / avg_pool2d over [N, C, H, W].
template <typename PoolOp>
FailureOr<Value> pool2d(OperatorArgs &args, OpBuilder &b, bool isAvg, Value x,
                        RankedTensorType out) {
  Location loc = args.getOp().getLoc();
  SmallVector<int64_t> kernel = pair(args.getInts("kernel_size"), 1);
  SmallVector<int64_t> stride = pair(args.getInts("stride"), 0);
  if (stride[0] == 0)
    stride = kernel;
  SmallVector<int64_t> padding = pair(args.getInts("padding"), 0);
  SmallVector<int64_t> dilation = pair(args.getInts("dilation"), 1);
  bool ceilMode = args.getBool("ceil_mode").value_or(false);
  recordWindowChecks(args, "self", kernel, stride, padding, dilation, ceilMode);
  if (ceilModeByPadding(args)) {
    if (!typeOf(x).hasStaticShape() || !out.hasStaticShape())
      return operatorError(args) << "divisor_override with ceil_mode needs static shapes";
    x = padForCeilMode(b, loc, x, out.getShape().take_back(2), kernel, stride, padding, dilation);
    ceilMode = false;
  }
  auto pool = b.create<PoolOp>(
      loc, out, x, b.getDenseI64ArrayAttr(kernel),
      b.getDenseI64ArrayAttr(stride),
      b.getDenseI64ArrayAttr(padding),
      b.getDenseI64ArrayAttr(dilation),
      b.getBoolAttr(ceilMode),
      b.getBoolAttr(isAvg ? countIncludePad(args) : false));
  return applyDivisorOverride(args, b, pool, kernel[0] * kernel[1]);
}

/// {max,avg}_pool{1,2}d over `spatial` trailing dims; an unbatched input
/// ([C, spatial..]) is pooled as a batch of one.
template <typename PoolOp>
Results legalizePool(OperatorArgs &args, OpBuilder &b, bool isAvg, int64_t spatial) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self");
  RankedTensorType out = args.resultType();
  int64_t rank = x ? typeOf(x).getRank() : 0;
  if (!x || (rank != spatial + 1 && rank != spatial + 2) || out.getRank() != rank)
    return args.getOp().emitError("only 1-D (NCL) and 2-D (NCHW) pooling is supported yet");
  bool unbatched = rank == spatial + 1;
  if (unbatched) {
    SmallVector<int64_t> shape{1};
    llvm::append_range(shape, typeOf(x).getShape());
    x = makeReshape(b, loc, x, shape);
    SmallVector<int64_t> outShape{1};
    llvm::append_range(outShape, out.getShape());
    out = RankedTensorType::get(outShape, out.getElementType());
  }
  FailureOr<Value> pooled = spatial == 1 ? pool1d<PoolOp>(args, b, isAvg, x, out)
                                         : pool2d<PoolOp>(args, b, isAvg, x, out);
  if (failed(pooled))
    return failure();
  Value result = *pooled;
  if (unbatched)
    result = makeReshape(b, loc, result, args.resultType().getShape());
  SmallVector<Value> results{result};
  results.resize(args.getOp().getNumResults(), nullptr);
  return results;
}

SmallVector<int64_t> reductionDims(OperatorArgs &args, int64_t rank) {
  std::optional<SmallVector<int64_t>> dims = args.getInts("dim");
  SmallVector<int64_t> out;
  if (rank == 0)  // a 0-d tensor's dim 0 / -1 is its one element: nothing to reduce
    return out;
  if (!dims || dims->empty()) {
    for (int64_t i = 0; i < rank; ++i)
      out.push_back(i);
    return out;
  }
  for (int64_t d : *dims)
    out.push_back(normalizeDim(d, rank));
  llvm::sort(out);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// The largest magnitude an integer (or bool) tensor `v` can hold, from its
/// type (bool, 8 to 32 bits) or from where it comes from (constants, and
/// casts, selects, reshapes and broadcasts of bounded values); none when
/// nothing bounds it (an int64 input).
std::optional<double> integerBound(Value v) {
  auto elt = dyn_cast<IntegerType>(typeOf(v).getElementType());
  if (!elt)
    return std::nullopt;
  if (elt.getWidth() <= 32)
    return std::ldexp(1.0, elt.getWidth());
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto c = dyn_cast<ConstantOp>(def)) {
    auto dense = dyn_cast<DenseIntElementsAttr>(c.getValue());
    if (!dense)
      return std::nullopt;
    double most = 0;
    for (const APInt &i : dense.getValues<APInt>())
      most = std::max(most, std::abs((double)i.getSExtValue()));
    return most;
  }
  if (isa<CastOp, ReshapeOp, BroadcastOp>(def))
    return integerBound(def->getOperand(0));
  if (auto select = dyn_cast<SelectOp>(def)) {
    std::optional<double> l = integerBound(select.getLhs()), r = integerBound(select.getRhs());
    if (l && r)
      return std::max(*l, *r);
  }
  return std::nullopt;
}

template <typename ReduceOp>
Results legalizeReduce(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self");
  if (!x)
    return args.getOp().emitError("expected a tensor operand 'self'");
  Type resultElt = args.resultType().getElementType();
  SmallVector<int64_t> dims = reductionDims(args, typeOf(x).getRank());
  bool keepdim = args.getBool("keepdim").value_or(false);
  // An integer sum runs in f64 where that is exact: every partial sum below
  // 2^53, from a bound on the elements (counts of bools, 8 to 32 bit
  // integers, constants). Otherwise it adds the integers themselves, in the
  // result's type (i64 wraps around as PyTorch's does), keepdim as a reshape.
  if (std::is_same_v<ReduceOp, ReduceSumOp> && isa<IntegerType>(resultElt)) {
    std::optional<double> bound = integerBound(x);
    double terms = 1;
    for (int64_t d : dims)
      terms *= ShapedType::isDynamic(typeOf(x).getShape()[d]) ? INFINITY : typeOf(x).getShape()[d];
    if (!bound || *bound * terms >= std::ldexp(1.0, 53)) {
      Value whole = makeCast(b, loc, x, resultElt);
      Value sum = makeReduce<ReduceOp>(b, loc, whole, dims, /*keepdim=*/false);
      return SmallVector<Value>{makeReshape(b, loc, sum, args.resultType().getShape())};
    }
    Value wide = makeCast(b, loc, x, b.getF64Type());
    Value sum = makeReduce<ReduceOp>(b, loc, wide, dims, keepdim);
    return SmallVector<Value>{makeCast(b, loc, sum, resultElt)};
  }
  // sum(x, dtype=...) converts x first, as PyTorch (the result type has it).
  if (args.has("dtype"))
    x = makeCast(b, loc, x, resultElt);
  return SmallVector<Value>{makeReduce<ReduceOp>(b, loc, x, dims, keepdim)};
}

/// logsumexp(x, dims, keepdim) = log(sum(exp(x - m))) + m with m the max
/// over dims, taken as 0 where it is infinite (all -inf, or an inf): PyTorch's
/// form, so all -inf (or no elements) gives -inf and an inf gives inf.
Results legalizeLogSumExp(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> self = requiredTensor(args, "self");
  if (failed(self))
    return failure();
  Location loc = args.getOp().getLoc();
  RankedTensorType resultType = args.resultType();
  Type elt = resultType.getElementType();
  if (!isa<FloatType>(elt))
    return args.getOp().emitError("logsumexp gives a non-float result");
  Value x = makeCast(b, loc, *self, elt);
  SmallVector<int64_t> dims = reductionDims(args, typeOf(x).getRank());
  Value r = makeLogSumExp(b, loc, x, dims);
  return SmallVector<Value>{makeReshape(b, loc, r, resultType.getShape())};
}

/// nansum / nanmean(self, dim, keepdim, dtype): the sum over dims with NaN
/// read as 0; nanmean divides by the count of the other elements (NaN where
/// there are none, as PyTorch).
Results legalizeNanReduce(OperatorArgs &args, OpBuilder &b, bool isMean) {
  FailureOr<Value> self = requiredTensor(args, "self");
  if (failed(self))
    return failure();
  Location loc = args.getOp().getLoc();
  Type elt = args.resultType().getElementType();
  if (isMean && !isa<FloatType>(elt))
    return args.getOp().emitError("nanmean expects a floating-point tensor");
  Value x = makeCast(b, loc, *self, elt);
  SmallVector<int64_t> dims = reductionDims(args, typeOf(x).getRank());
  bool keepdim = args.getBool("keepdim").value_or(false);
  Value kept = x;
  Value isNan, zero = makeScalar(b, loc, elt, 0.0);
  if (isa<FloatType>(elt)) {
    isNan = makeCompare(b, loc, "ne", x, x);
    kept = b.create<SelectOp>(loc, typeOf(x), isNan, zero, x);
  }
  Value sum = makeReduce<ReduceSumOp>(b, loc, kept, dims, keepdim);
  if (!isMean)
    return SmallVector<Value>{sum};
  Value one = makeScalar(b, loc, elt, 1.0);
  Value counted = b.create<SelectOp>(loc, typeOf(x), isNan, zero, one);
  Value count = makeReduce<ReduceSumOp>(b, loc, counted, dims, keepdim);
  return SmallVector<Value>{makeBinary<DivOp>(b, loc, sum, count)};
}

/// count_nonzero(self, dim): the number of nonzero elements over dim (all
/// dims without one), counted in f64 (exact to 2^53) and given as int64.
Results legalizeCountNonzero(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> self = requiredTensor(args, "self");
  if (failed(self))
    return failure();
  Location loc = args.getOp().getLoc();
  Value zero = makeScalar(b, loc, typeOf(*self).getElementType(), 0.0);
  Value nonzero = makeCast(b, loc, makeCompare(b, loc, "ne", *self, zero), b.getF64Type());
  SmallVector<int64_t> dims = reductionDims(args, typeOf(nonzero).getRank());
  Value count = makeReduce<ReduceSumOp>(b, loc, nonzero, dims, false);
  return SmallVector<Value>{makeCast(b, loc, count, args.resultType().getElementType())};
}

/// The spacing of sample points x along dim (x[1:] - x[:-1]), x 1-D (laid
/// along dim) or of y's rank or less (leading dims added), in `elt`.
FailureOr<Value> sampleSpacing(OperatorArgs &args, OpBuilder &b, Value x, Type elt, int64_t rank,
                               int64_t dim) {
  Location loc = args.getOp().getLoc();
  x = makeCast(b, loc, x, elt);
  auto xt = typeOf(x);
  if (xt.getRank() > rank)
    return args.getOp().emitError("operator '") << operatorName(args)
                                                << "': sample points of type " << xt;
  SmallVector<int64_t> shape(xt.getShape());
  if (xt.getRank() == 1) {
    shape.assign(rank, 1);
    shape[dim] = xt.getDimSize(0);
  } else {
    shape.insert(shape.begin(), rank - xt.getRank(), 1);
  }
  x = makeReshape(b, loc, x, shape);  // unit dims added: symbolic sizes kept
  Value xRight = cropDim(b, loc, x, dim, 1, 0);
  Value xLeft = cropDim(b, loc, x, dim, 0, 1);
  return makeBinary<SubOp>(b, loc, xRight, xLeft);
}

/// The samples y of trapezoid-like operators, in the (float) result type,
/// with their rank and the normalized `dim`.
struct Samples {
  Value y;
  int64_t rank, dim;
  Type elt;
};
FailureOr<Samples> samplesArgs(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> yArg = requiredTensor(args, "y");
  if (failed(yArg))
    return failure();
  Type elt = args.resultType().getElementType();
  Value y = makeCast(b, args.getOp().getLoc(), *yArg, elt);
  int64_t rank = typeOf(y).getRank(), raw = args.getInt("dim").value_or(-1);
  int64_t dim = normalizeDim(raw, rank);
  if (!isa<FloatType>(elt) || dim < 0 || dim >= rank)
    return args.getOp().emitError("operator '") << operatorName(args) << "': dim " << raw
                                                << " of a float tensor of rank " << rank;
  return Samples{y, rank, dim, elt};
}

/// trapezoid / trapz (.x with sample points, .dx with a spacing) along dim,
/// PyTorch's formulas: sum((x[1:] - x[:-1]) (y[1:] + y[:-1])) / 2, and
/// (sum(y) - (y[0] + y[-1]) / 2) dx; a 1-D x lies along dim, a lower-rank x
/// gets leading unit dims. No samples give zeros. Along a symbolic dim the
/// slices have symbolic sizes and y[-1] is taken at the size less one.
Results legalizeTrapezoid(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Samples> samples = samplesArgs(args, b);
  if (failed(samples))
    return failure();
  auto [y, rank, dim, elt] = *samples;
  Location loc = args.getOp().getLoc();
  RankedTensorType resultType = args.resultType();
  int64_t n = typeOf(y).getDimSize(dim);
  bool symbolic = ShapedType::isDynamic(n);
  if (n == 0) {
    if (!resultType.hasStaticShape())
      return args.getOp().emitError("operator '") << operatorName(args)
                                                  << "' of no samples with a symbolic shape";
    return SmallVector<Value>{makeSplat(b, loc, resultType, 0.0)};
  }
  Value x = args.tensor("x");
  if (!x) {
    double dx = args.getFloat("dx").value_or(1.0);
    Value sum = makeReduce<ReduceSumOp>(b, loc, y, {dim}, false);
    Value first, last;
    if (symbolic) {
      first = b.create<SliceOp>(loc, RankedTensorType::get(withDimSize(typeOf(y).getShape(), dim, 1), elt),
                                y, b.getI64IntegerAttr(dim), b.getI64IntegerAttr(0),
                                b.getI64IntegerAttr(1), b.getI64IntegerAttr(1));
      Type i64 = b.getI64Type();
      Value size = b.create<DimSizeOp>(loc, RankedTensorType::get({}, i64), y,
                                       b.getI64IntegerAttr(dim));
      Value lastAt = makeBinary<SubOp>(b, loc, size, makeScalar(b, loc, i64, 1.0));
      Value index = makeReshape(b, loc, lastAt, {1});
      last = b.create<TakeOp>(loc, typeOf(first), y, index, b.getI64IntegerAttr(dim));
    } else {
      first = makeSlice(b, loc, y, dim, 0, 1, 1);
      last = makeSlice(b, loc, y, dim, n - 1, n, 1);
    }
    Value ends = makeReshape(b, loc, makeBinary<AddOp>(b, loc, first, last),
                             typeOf(sum).getShape());
    Value inner = makeBinary<SubOp>(b, loc, sum,
                                    makeBinary<MulOp>(b, loc, ends, makeScalar(b, loc, elt, 0.5)));
    return SmallVector<Value>{makeBinary<MulOp>(b, loc, inner, makeScalar(b, loc, elt, dx))};
  }
  FailureOr<Value> dx = sampleSpacing(args, b, x, elt, rank, dim);
  if (failed(dx))
    return failure();
  Value yRight = cropDim(b, loc, y, dim, 1, 0);
  Value yLeft = cropDim(b, loc, y, dim, 0, 1);
  Value pairs = makeBinary<AddOp>(b, loc, yRight, yLeft);
  Value sum = makeReduce<ReduceSumOp>(b, loc, makeBinary<MulOp>(b, loc, *dx, pairs), {dim}, false);
  return SmallVector<Value>{makeBinary<DivOp>(b, loc, sum, makeScalar(b, loc, elt, 2.0))};
}

/// cumulative_trapezoid(y, x | dx, dim): PyTorch's ((dx (y[:-1] + y[1:])) / 2)
/// summed cumulatively along dim ((dx / 2) (y[:-1] + y[1:]) for a number dx).
Results legalizeCumulativeTrapezoid(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Samples> samples = samplesArgs(args, b);
  if (failed(samples))
    return failure();
  auto [y, rank, dim, elt] = *samples;
  Location loc = args.getOp().getLoc();
  RankedTensorType resultType = args.resultType();
  int64_t n = typeOf(y).getDimSize(dim);
  if (!ShapedType::isDynamic(n) && n <= 1) {
    if (!resultType.hasStaticShape())
      return operatorError(args) << "of at most one sample with a symbolic shape";
    return SmallVector<Value>{makeSplat(b, loc, resultType, 0.0)};
  }
  Value yLeft = cropDim(b, loc, y, dim, 0, 1);
  Value yRight = cropDim(b, loc, y, dim, 1, 0);
  Value pairs = makeBinary<AddOp>(b, loc, yLeft, yRight);
  Value terms;
  if (Value x = args.tensor("x")) {
    FailureOr<Value> dx = sampleSpacing(args, b, x, elt, rank, dim);
    if (failed(dx))
      return failure();
    Value weighted = makeBinary<MulOp>(b, loc, *dx, pairs);
    terms = makeBinary<DivOp>(b, loc, weighted, makeScalar(b, loc, elt, 2.0));
  } else {
    double dx = args.getFloat("dx").value_or(1.0);
    terms = makeBinary<MulOp>(b, loc, makeScalar(b, loc, elt, dx / 2.0), pairs);
  }
  if (typeOf(terms) != resultType) {
    FailureOr<SmallVector<Value>> sizes = symbolicSizes(args, b);  // none where static
    if (failed(sizes))
      return failure();
    terms = b.create<BroadcastOp>(loc, resultType, terms, *sizes);
  }
  return SmallVector<Value>{b.create<CumsumOp>(loc, terms, b.getI64IntegerAttr(dim))};
}

/// softmax / log_softmax(self, dim[, dtype]) and their _softmax(self, dim,
/// half_to_float) forms, kept whole for kernel formation; the result type
/// carries the dtype. PyTorch converts self to dtype first. The row kernels compute half inputs in f32, so a half input with an
/// f32 result stays as it is (the same numbers, one kernel); any other change of
/// type (f32 to f64: f64 precision was asked for) converts first. A 0-d self is
/// its own one-element row.
Results legalizeSoftmaxLike(OperatorArgs &args, OpBuilder &b, bool isLog) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self");
  if (!x || !isa<FloatType>(typeOf(x).getElementType()))
    return args.getOp().emitError(isLog ? "log_softmax" : "softmax")
           << " expects a floating-point tensor 'self'";
  RankedTensorType resultType = args.resultType();
  Type from = typeOf(x).getElementType(), to = resultType.getElementType();
  if (from != to && !(from.getIntOrFloatBitWidth() == 16 && to.isF32()))
    x = makeCast(b, loc, x, to);
  int64_t rank = typeOf(x).getRank();
  int64_t given = args.getInt("dim").value_or(-1);
  if (given < -std::max<int64_t>(rank, 1) || given >= std::max<int64_t>(rank, 1))
    return args.getOp().emitError("dim ") << given << " is out of range for a rank-" << rank
                                          << " tensor";
  Value row = rank == 0 ? makeReshape(b, loc, x, {1}) : x;
  Value y = b.create<SoftmaxOp>(loc, typeOf(row).clone(to), row,
                                b.getI64IntegerAttr(rank == 0 ? 0 : normalizeDim(given, rank)),
                                isLog ? b.getUnitAttr() : nullptr);
  return SmallVector<Value>{makeReshape(b, loc, y, resultType.getShape())};
}

/// _safe_softmax(self, dim, dtype): softmax, with 0 instead of NaN in rows
/// that are all -inf (their maximum is -inf).
Results legalizeSafeSoftmax(OperatorArgs &args, OpBuilder &b) {
  Results soft = legalizeSoftmaxLike(args, b, false);
  if (failed(soft))
    return failure();
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self");
  auto t = typeOf(x);
  Value rowMax = t.getRank() == 0
                     ? x
                     : makeReduce<ReduceMaxOp>(b, loc, x,
                                               {normalizeDim(args.getInt("dim").value_or(-1),
                                                             t.getRank())},
                                               true);
  Value masked = makeCompare(b, loc, "eq", rowMax, makeScalar(b, loc, t.getElementType(), -INFINITY));
  RankedTensorType type = args.resultType();
  Value zero = makeScalar(b, loc, type.getElementType(), 0.0);
  return SmallVector<Value>{b.create<SelectOp>(loc, type, masked, zero, (*soft)[0]).getResult()};
}

/// The trailing dims that normalized_shape names (layer_norm, rms_norm).
FailureOr<SmallVector<int64_t>> normalizedDims(OperatorArgs &args, int64_t rank) {
  std::optional<SmallVector<int64_t>> normalized = args.getInts("normalized_shape");
  if (!normalized)
    return args.getOp().emitError("expected the argument 'normalized_shape'");
  int64_t k = normalized->size();
  if (k < 1 || k > rank)
    return args.getOp().emitError("normalized_shape has ") << k << " dims for a rank-" << rank << " input";
  SmallVector<int64_t> dims;
  for (int64_t i = rank - k; i < rank; ++i)
    dims.push_back(i);
  return dims;
}

/// layer_norm over the trailing dims of normalized_shape, kept whole for
/// kernel formation (tcc-decompose-graph spells it out otherwise).
Results legalizeLayerNorm(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("input");
  if (!x || !isa<FloatType>(typeOf(x).getElementType()))
    return args.getOp().emitError("layer_norm expects a float 'input' and 'normalized_shape'");
  auto t = typeOf(x);
  FailureOr<SmallVector<int64_t>> dims = normalizedDims(args, t.getRank());
  if (failed(dims))
    return failure();
  double eps = args.getFloat("eps").value_or(1e-5);
  Value y = b.create<LayerNormOp>(loc, t, x, args.tensor("weight"), args.tensor("bias"),
                                  b.getI64IntegerAttr(dims->size()), b.getF64FloatAttr(eps));
  SmallVector<Value> results{y};
  if (args.getOp().getNumResults() == 3 &&
      (!args.getOp().getResult(1).use_empty() || !args.getOp().getResult(2).use_empty())) {
    // native_layer_norm's mean and rstd = 1 / sqrt(biased var + eps) over the
    // normalized dims (kept as 1s), in f32 for half inputs.
    Type elt = t.getElementType();
    Value xc = makeCast(b, loc, x, elt.isF16() || elt.isBF16() ? b.getF32Type() : elt);
    Type ct = typeOf(xc).getElementType();
    Value mean = makeReduce<ReduceMeanOp>(b, loc, xc, *dims, true);
    Value centered = makeBinary<SubOp>(b, loc, xc, mean);
    Value var = makeReduce<ReduceMeanOp>(b, loc, makeBinary<MulOp>(b, loc, centered, centered),
                                         *dims, true);
    Value rstd = b.create<RsqrtOp>(loc, makeBinary<AddOp>(b, loc, var, makeScalar(b, loc, ct, eps)));
    results.push_back(makeCast(b, loc, mean, args.resultType(1).getElementType()));
    results.push_back(makeCast(b, loc, rstd, args.resultType(2).getElementType()));
  }
  results.resize(args.getOp().getNumResults(), nullptr);
  return results;
}

/// amin(x) = -amax(-x); integer inputs reduce through f64 (exact to 2^53).
/// x itself if it is floating point, else x in f64 (exact for the integers
/// PyTorch's extrema see): the reductions are float ops.
Value floatOrF64(OpBuilder &b, Location loc, Value x) {
  if (isa<FloatType>(typeOf(x).getElementType()))
    return x;
  return makeCast(b, loc, x, b.getF64Type());
}

Results legalizeAmin(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self");
  if (!x)
    return args.getOp().emitError("expected a tensor operand 'self'");
  Type elt = typeOf(x).getElementType();
  x = floatOrF64(b, loc, x);
  SmallVector<int64_t> dims = reductionDims(args, typeOf(x).getRank());
  bool keepdim = args.getBool("keepdim").value_or(false);
  Value m = makeReduce<ReduceMaxOp>(b, loc, b.create<NegOp>(loc, x), dims, keepdim);
  return SmallVector<Value>{makeCast(b, loc, b.create<NegOp>(loc, m), elt)};
}

/// aminmax(self, dim, keepdim): amin and amax.
Results legalizeAminmax(OperatorArgs &args, OpBuilder &b) {
  Results low = legalizeAmin(args, b);
  if (failed(low))
    return failure();
  Value x = args.tensor("self");
  Location loc = args.getOp().getLoc();
  SmallVector<int64_t> dims = reductionDims(args, typeOf(x).getRank());
  Value high = makeReduce<ReduceMaxOp>(b, loc, floatOrF64(b, loc, x), dims,
                                       args.getBool("keepdim").value_or(false));
  return SmallVector<Value>{(*low)[0], makeCast(b, loc, high, typeOf(x).getElementType())};
}

/// argmax/argmin(x, dim, keepdim): the first position along `dim` holding the
/// extremum, as PyTorch (a NaN counts as the extremum). With dim=None
/// the input is flattened first. The positions are reduced as floats:
/// min(pos) = -max(-pos), exact in f32 below 2^24 elements (f64 beyond).
Results legalizeArgExtremum(OperatorArgs &args, OpBuilder &b, bool isMax) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self");
  if (!x)
    return args.getOp().emitError("expected a tensor operand 'self'");
  bool keepdim = args.getBool("keepdim").value_or(false);
  std::optional<int64_t> given = args.getInt("dim");
  auto t = typeOf(x);
  if (!isa<FloatType>(t.getElementType()))
    x = makeCast(b, loc, x, b.getF64Type());
  int64_t dim;
  if (!given || t.getRank() == 0) {
    // PyTorch takes dim 0 or -1 of a 0-d tensor as its one element.
    if (given && *given != 0 && *given != -1)
      return args.getOp().emitError("dim ") << *given << " is out of range for a 0-d tensor";
    x = makeReshape(b, loc, x, {t.hasStaticShape() ? t.getNumElements() : ShapedType::kDynamic});
    dim = 0;
  } else {
    dim = normalizeDim(*given, t.getRank());
  }
  auto xt = typeOf(x);
  int64_t n = xt.getShape()[dim];
  Type posType = (!ShapedType::isDynamic(n) && n <= (1 << 24)) ? Type(b.getF32Type())
                                                              : Type(b.getF64Type());
  // The extremum, and where x reaches it.
  Value v = isMax ? x : b.create<NegOp>(loc, x).getResult();
  Value m = makeReduce<ReduceMaxOp>(b, loc, v, {dim}, true);
  // PyTorch ranks NaN above everything (argmin too): where x holds a NaN the
  // maximum is NaN (reduce_max propagates it) and the first NaN is the answer.
  Value atMax = makeCompare(b, loc, "eq", v, m);
  Value isNan = makeCompare(b, loc, "ne", v, v);
  Value hit = makeBinary<BitwiseOrOp>(b, loc, atMax, isNan);
  // -position where hit, -n elsewhere; its max is -(first position).
  SmallVector<Value> length;
  if (ShapedType::isDynamic(n))
    length.push_back(b.create<tensor::DimOp>(loc, x, dim));
  Value pos = b.create<IotaOp>(loc, RankedTensorType::get({n}, posType), b.getF64FloatAttr(0),
                               b.getF64FloatAttr(-1), length);
  SmallVector<int64_t> posShape(xt.getRank(), 1);
  posShape[dim] = n;
  pos = makeReshape(b, loc, pos, posShape);
  Value far = makeScalar(b, loc, posType, -static_cast<double>(ShapedType::isDynamic(n) ? (1LL << 53) : n));
  SmallVector<int64_t> hitShape(typeOf(hit).getShape());
  Value negPos = b.create<SelectOp>(loc, RankedTensorType::get(hitShape, posType), hit, pos, far);
  Value first = b.create<NegOp>(loc, makeReduce<ReduceMaxOp>(b, loc, negPos, {dim}, keepdim && given));
  Value idx = makeCast(b, loc, first, b.getI64Type());
  if (t.getRank() == 0)  // a 0-d input gives a 0-d index, keepdim or not
    idx = makeReshape(b, loc, idx, {});
  else if (!given && keepdim)  // dim=None, keepdim: all dims of size 1
    idx = makeReshape(b, loc, idx, SmallVector<int64_t>(t.getRank(), 1));
  return SmallVector<Value>{idx};
}

/// max.dim / min.dim(x, dim, keepdim): the extremum along dim and its first
/// position (argmax / argmin's, NaN first); a 0-d x is its own value.
Results legalizeExtremumWithIndex(OperatorArgs &args, OpBuilder &b, bool isMax) {
  Results index = legalizeArgExtremum(args, b, isMax);
  if (failed(index))
    return failure();
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self");
  auto t = typeOf(x);
  Value values = x;
  if (t.getRank() > 0) {
    Type elt = t.getElementType();
    Value v = floatOrF64(b, loc, x);
    int64_t dim = normalizeDim(args.getInt("dim").value_or(0), t.getRank());
    bool keepdim = args.getBool("keepdim").value_or(false);
    if (!isMax)
      v = b.create<NegOp>(loc, v);
    values = makeReduce<ReduceMaxOp>(b, loc, v, {dim}, keepdim);
    if (!isMax)
      values = b.create<NegOp>(loc, values);
    values = makeCast(b, loc, values, elt);
  }
  return SmallVector<Value>{values, (*index)[0]};
}

/// var(x, dims, correction) = (sum(c^2) - sum(c)^2 / N) / max(N - correction, 0)
/// with c = x - mean and N the number of reduced elements: two
/// passes, the mean first, so values far from zero do not cancel as in
/// E[x^2] - E[x]^2; the sum(c)^2 / N term takes out the rounding error of
/// the mean itself (sum(c^2) exceeds the exact one by N (mean error)^2, which
/// matters where the spread is tiny beside the mean). Computed in `ct` (f32
/// for f16/bf16 inputs, as PyTorch's). Over symbolic dims N is read at run
/// time (their sizes times the static ones, in `ct`), and so is N -
/// correction. Also returns the mean (kept dims).
FailureOr<std::pair<Value, Value>> makeVarMean(OperatorArgs &args, OpBuilder &b, Value x,
                                               ArrayRef<int64_t> dims, double correction,
                                               bool keepdim, Type ct) {
  Location loc = args.getOp().getLoc();
  auto t = typeOf(x);
  int64_t count = 1;
  Value symbolicCount;  // the product of the symbolic reduced sizes, i64
  for (int64_t d : dims) {
    if (!ShapedType::isDynamic(t.getShape()[d])) {
      count *= t.getShape()[d];
      continue;
    }
    Value size = b.create<DimSizeOp>(loc, RankedTensorType::get({}, b.getI64Type()), x,
                                     b.getI64IntegerAttr(d));
    symbolicCount = symbolicCount ? makeBinary<MulOp>(b, loc, symbolicCount, size) : size;
  }
  x = makeCast(b, loc, x, ct);
  Value mean = makeReduce<ReduceMeanOp>(b, loc, x, dims, true);
  Value c = makeBinary<SubOp>(b, loc, x, mean);
  Value squares = makeReduce<ReduceSumOp>(b, loc, makeBinary<MulOp>(b, loc, c, c), dims, keepdim);
  Value drift = makeReduce<ReduceSumOp>(b, loc, c, dims, keepdim);
  Value drift2 = makeBinary<MulOp>(b, loc, drift, drift);
  Value n;
  if (symbolicCount) {
    Value known = makeScalar(b, loc, b.getI64Type(), static_cast<double>(count));
    Value all = makeBinary<MulOp>(b, loc, symbolicCount, known);
    n = makeCast(b, loc, all, ct);
  } else {
    n = makeScalar(b, loc, ct, static_cast<double>(count));
  }
  Value meanDrift = makeBinary<DivOp>(b, loc, drift2, n);
  Value spread = makeBinary<SubOp>(b, loc, squares, meanDrift);
  // Rounding may leave a spread of ~0 slightly negative: std would be NaN.
  Value zero = makeScalar(b, loc, ct, 0.0);
  Value s = makeBinary<MaximumOp>(b, loc, spread, zero);
  Value dof;
  if (symbolicCount) {
    Value corrected = makeBinary<SubOp>(b, loc, n, makeScalar(b, loc, ct, correction));
    dof = makeBinary<MaximumOp>(b, loc, corrected, zero);
  } else {
    dof = makeScalar(b, loc, ct, std::max(count - correction, 0.0));
  }
  Value var = makeBinary<DivOp>(b, loc, s, dof);
  if (!keepdim)
    mean = makeReshape(b, loc, mean, typeOf(var).getShape());
  return std::make_pair(var, mean);
}

/// var/std/var_mean/std_mean, .correction (correction=None is 1) and .dim
/// (unbiased).
Results legalizeVariance(OperatorArgs &args, OpBuilder &b, bool isStd) {
  Value x = args.tensor("self");
  if (!x || !isa<FloatType>(typeOf(x).getElementType()))
    return args.getOp().emitError("var/std expect a floating-point tensor 'self'");
  SmallVector<int64_t> dims = reductionDims(args, typeOf(x).getRank());
  double correction = args.has("unbiased") ? (args.getBool("unbiased").value_or(true) ? 1.0 : 0.0)
                                           : args.getFloat("correction").value_or(1.0);
  bool keepdim = args.getBool("keepdim").value_or(false);
  // f16/bf16: centred, squared, summed and rooted in f32, rounded once.
  Location loc = args.getOp().getLoc();
  Type elt = typeOf(x).getElementType();
  Type ct = elt.isF16() || elt.isBF16() ? b.getF32Type() : elt;
  auto vm = makeVarMean(args, b, x, dims, correction, keepdim, ct);
  if (failed(vm))
    return failure();
  Value v = vm->first;
  if (isStd)
    v = b.create<SqrtOp>(loc, v);
  SmallVector<Value> results{makeCast(b, loc, v, elt)};
  if (args.getOp().getNumResults() == 2)
    results.push_back(makeCast(b, loc, vm->second, elt));
  return results;
}

/// bilinear(input1 [..., I], input2 [..., J], weight [O, I, J], bias):
/// y[..., o] = sum_ij x1_i W_oij x2_j + b_o, as x1 @ W (W laid out [I, O*J])
/// multiplied by x2 and summed over J.
Results legalizeBilinear(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x1 = args.tensor("input1"), x2 = args.tensor("input2"), w = args.tensor("weight");
  RankedTensorType out = args.resultType();
  if (!x1 || !x2 || !w || typeOf(w).getRank() != 3 || !typeOf(w).hasStaticShape() ||
      !typeOf(x1).hasStaticShape() || !typeOf(x2).hasStaticShape() || !out.hasStaticShape() ||
      !isa<FloatType>(out.getElementType()))
    return operatorError(args) << "needs static float inputs and a [out, in1, in2] weight";
  ArrayRef<int64_t> ws = typeOf(w).getShape();
  int64_t o = ws[0], i = ws[1], j = ws[2];
  int64_t rows = typeOf(x1).getNumElements() / std::max<int64_t>(i, 1);
  Value a = makeReshape(b, loc, x1, {rows, i});
  Value c = makeReshape(b, loc, x2, {rows, 1, j});
  Value wt = b.create<TransposeOp>(loc, RankedTensorType::get({i, o, j}, typeOf(w).getElementType()), w,
                                   b.getDenseI64ArrayAttr({1, 0, 2}));
  Value wFlat = makeReshape(b, loc, wt, {i, o * j});
  Value t = makeReshape(b, loc, makeMatmul(b, loc, a, wFlat), {rows, o, j});
  Value y = makeReduce<ReduceSumOp>(b, loc, makeBinary<MulOp>(b, loc, t, c), {2}, false);
  if (Value bias = args.tensor("bias"))
    y = makeBinary<AddOp>(b, loc, y, bias);
  return SmallVector<Value>{makeReshape(b, loc, y, out.getShape())};
}

/// addbmm(self, b1, b2, beta, alpha): the batch of products summed.
Results legalizeAddbmm(OperatorArgs &args, OpBuilder &b) {
  Results prod = matmulLike(args, b, "batch1", "batch2",
                            scaledProductType(args, "batch1", /*always=*/true));
  if (failed(prod))
    return failure();
  Value sum = makeReduce<ReduceSumOp>(b, args.getOp().getLoc(), (*prod)[0], {0}, false);
  return addScaled(args, b, sum);
}

/// rms_norm(x, normalized_shape, weight, eps) = x * rsqrt(mean(x^2) + eps) * weight
/// over the trailing dims; eps=None is the dtype's machine epsilon.
Results legalizeRmsNorm(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("input");
  if (!x || !isa<FloatType>(typeOf(x).getElementType()))
    return args.getOp().emitError("rms_norm expects a float 'input' and 'normalized_shape'");
  auto t = typeOf(x);
  FailureOr<SmallVector<int64_t>> dims = normalizedDims(args, t.getRank());
  if (failed(dims))
    return failure();
  auto ft = cast<FloatType>(t.getElementType());
  double eps = args.getFloat("eps").value_or(
      std::ldexp(1.0, 1 - static_cast<int>(llvm::APFloat::semanticsPrecision(ft.getFloatSemantics()))));
  return SmallVector<Value>{b.create<RmsNormOp>(loc, t, x, args.tensor("weight"),
                                                b.getI64IntegerAttr(dims->size()),
                                                b.getF64FloatAttr(eps))};
}

/// group_norm / native_group_norm: x (N, C, *) viewed as (N, G, -1),
/// normalized with the biased variance, then weight/bias per channel.
/// native_group_norm also returns mean and rstd of shape (N, G).
Results groupNorm(OperatorArgs &args, OpBuilder &b, std::optional<int64_t> groups) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("input");
  if (!x || !groups || typeOf(x).getRank() < 2)
    return args.getOp().emitError("operator '") << operatorName(args)
                                                << "' expects an (N, C, ...) 'input' and the group count";
  auto t = typeOf(x);
  int64_t rank = t.getRank(), n = t.getShape()[0], c = t.getShape()[1], g = *groups;
  // A symbolic group count is instance norm's one group per channel of a
  // symbolic C; symbolic sizes are read at run time (the export guards that
  // the groups divide C).
  bool perChannel = ShapedType::isDynamic(g);
  if (!perChannel && (g < 1 || (!ShapedType::isDynamic(c) && c % g != 0)))
    return args.getOp().emitError("operator '") << operatorName(args) << "': " << c
                                                << " channels in " << g << " groups";
  Type elt = t.getElementType();
  int64_t per = 1;
  for (int64_t i = 1; i < rank; ++i)
    per = ShapedType::isDynamic(per) || t.isDynamicDim(i) ? ShapedType::kDynamic
                                                          : per * t.getShape()[i];
  int64_t groupSize = ShapedType::isDynamic(per) ? per : per / g;
  SmallVector<int64_t> groupedShape{n, g, groupSize};
  SmallVector<Value> groupedSizes;
  if (llvm::count_if(groupedShape, ShapedType::isDynamic) > 1) {
    Value size = perChannel ? dimProduct(b, loc, x, 2, rank) : Value();
    if (!perChannel) {
      Value all = dimProduct(b, loc, x, 1, rank);
      Value count = b.create<arith::ConstantIndexOp>(loc, g);
      size = b.create<arith::DivSIOp>(loc, all, count);
    }
    Value batch = t.isDynamicDim(0) ? dimIndex(b, loc, x, 0) : Value();
    Value channels = perChannel ? dimIndex(b, loc, x, 1) : Value();
    groupedSizes = {batch, channels, size};
  }
  // x's own symbolic sizes, where a reshape back needs them.
  SmallVector<Value> sizes;
  if (t.getNumDynamicDims() > 1)
    for (int64_t i = 0; i < rank; ++i)
      sizes.push_back(t.isDynamicDim(i) ? dimIndex(b, loc, x, i) : Value());
  Value grouped = makeReshape(b, loc, x, groupedShape, groupedSizes);
  Value mean = makeReduce<ReduceMeanOp>(b, loc, grouped, {2}, true);
  Value centered = makeBinary<SubOp>(b, loc, grouped, mean);
  Value var = makeReduce<ReduceMeanOp>(b, loc, makeBinary<MulOp>(b, loc, centered, centered), {2}, true);
  double eps = args.getFloat("eps").value_or(1e-5);
  Value rstd = b.create<RsqrtOp>(loc, makeBinary<AddOp>(b, loc, var, makeScalar(b, loc, elt, eps)));
  Value y = makeReshape(b, loc, makeBinary<MulOp>(b, loc, centered, rstd), t.getShape(), sizes);
  // weight/bias (C) broadcast as (C, 1, ..., 1) against (N, C, ...).
  SmallVector<int64_t> affine{c};
  affine.append(rank - 2, 1);
  if (Value w = args.tensor("weight"))
    y = makeBinary<MulOp>(b, loc, y, makeReshape(b, loc, w, affine));
  if (Value bias = args.tensor("bias"))
    y = makeBinary<AddOp>(b, loc, y, makeReshape(b, loc, bias, affine));
  SmallVector<Value> results{y};
  if (args.getOp().getNumResults() == 3) {
    SmallVector<Value> statSizes{groupedSizes.empty() ? Value() : groupedSizes[0],
                                 groupedSizes.empty() ? Value() : groupedSizes[1]};
    results.push_back(makeReshape(b, loc, mean, {n, g}, statSizes));
    results.push_back(makeReshape(b, loc, rstd, {n, g}, statSizes));
  }
  return results;
}

Results legalizeGroupNorm(OperatorArgs &args, OpBuilder &b) {
  return groupNorm(args, b, args.has("num_groups") ? args.getInt("num_groups")
                                                   : args.getInt("group"));
}

/// instance_norm: with use_input_stats, a group norm with one group per
/// channel (the update of running_mean/var that PyTorch then makes in place is
/// not part of the exported graph's values); without, batch norm's inference
/// form on the running statistics.
Results legalizeInstanceNorm(OperatorArgs &args, OpBuilder &b) {
  std::optional<bool> inputStats = args.getBool("use_input_stats");
  if (!inputStats)
    return args.getOp().emitError("instance_norm needs use_input_stats");
  if (!*inputStats)
    return legalizeBatchNorm(args, b);
  Value x = args.tensor("input");
  if (!x || typeOf(x).getRank() < 3)
    return args.getOp().emitError("instance_norm expects an (N, C, ...) input with spatial dims");
  return groupNorm(args, b, typeOf(x).getDimSize(1));
}
} // namespace

void tcc::graph::populateLinalgLikeLegalizers(LegalizerTable &t) {
  t["aten.linear.default"] = legalizeLinear;
  t["aten.addmm.default"] = addProduct("mat1", "mat2");
  t["aten.addmv.default"] = addProduct("mat", "vec");
  t["aten.baddbmm.default"] = addProduct("batch1", "batch2", /*wideSum=*/true);
  t["aten.addbmm.default"] = legalizeAddbmm;
  t["aten.bilinear.default"] = legalizeBilinear;
  t["aten.addr.default"] = [](OperatorArgs &a, OpBuilder &b) { return legalizeOuter(a, b, "vec1", "vec2", true); };
  t["aten.outer.default"] = [](OperatorArgs &a, OpBuilder &b) { return legalizeOuter(a, b, "self", "vec2", false); };
  t["aten.ger.default"] = t["aten.outer.default"];
  t["aten.mv.default"] = [](OperatorArgs &a, OpBuilder &b) { return matmulLike(a, b, "self", "vec"); };
  t["aten.dot.default"] = [](OperatorArgs &a, OpBuilder &b) { return matmulLike(a, b, "self", "tensor"); };
  t["aten.vdot.default"] = [](OperatorArgs &a, OpBuilder &b) { return matmulLike(a, b, "self", "other"); };
  t["aten.inner.default"] = legalizeInner;
  t["aten.linalg_vecdot.default"] = legalizeVecdot;
  t["aten.trace.default"] = legalizeTrace;
  t["aten.mm.default"] = [](OperatorArgs &a, OpBuilder &b) { return matmulLike(a, b, "self", "mat2"); };
  t["aten.bmm.default"] = [](OperatorArgs &a, OpBuilder &b) { return matmulLike(a, b, "self", "mat2"); };
  t["aten.matmul.default"] = [](OperatorArgs &a, OpBuilder &b) { return matmulLike(a, b, "self", "other"); };
  t["aten.batch_norm.default"] = legalizeBatchNorm;
  t["aten._native_batch_norm_legit_no_training.default"] = legalizeBatchNorm;
  t["aten.native_batch_norm.default"] = legalizeBatchNorm;
  t["aten._native_batch_norm_legit.default"] = legalizeBatchNorm;
  t["aten._native_batch_norm_legit.no_stats"] = legalizeBatchNorm;
  t["aten._batch_norm_no_update.default"] = legalizeBatchNorm;
  t["aten._batch_norm_with_update.default"] = [](OperatorArgs &a, OpBuilder &b) {
    return batchNorm(a, b, true);
  };
  t["aten.max_pool2d.default"] = [](OperatorArgs &a, OpBuilder &b) { return legalizePool<MaxPool2dOp>(a, b, false, 2); };
  t["aten.avg_pool2d.default"] = [](OperatorArgs &a, OpBuilder &b) { return legalizePool<AvgPool2dOp>(a, b, true, 2); };
  t["aten.max_pool1d.default"] = [](OperatorArgs &a, OpBuilder &b) { return legalizePool<MaxPool2dOp>(a, b, false, 1); };
  t["aten.avg_pool1d.default"] = [](OperatorArgs &a, OpBuilder &b) { return legalizePool<AvgPool2dOp>(a, b, true, 1); };
  t["aten.softmax.int"] = [](OperatorArgs &a, OpBuilder &b) { return legalizeSoftmaxLike(a, b, false); };
  t["aten.log_softmax.int"] = [](OperatorArgs &a, OpBuilder &b) { return legalizeSoftmaxLike(a, b, true); };
  t["aten._log_softmax.default"] = t["aten.log_softmax.int"];
  t["aten._softmax.default"] = t["aten.softmax.int"];
  t["aten.sum.default"] = legalizeReduce<ReduceSumOp>;
  t["aten.sum.dim_IntList"] = legalizeReduce<ReduceSumOp>;
  t["aten.mean.default"] = legalizeReduce<ReduceMeanOp>;
  t["aten.mean.dim"] = legalizeReduce<ReduceMeanOp>;
  t["aten.amax.default"] = legalizeReduce<ReduceMaxOp>;
  t["aten.prod.default"] = legalizeReduce<ReduceProdOp>;
  t["aten.logsumexp.default"] = legalizeLogSumExp;
  t["aten.prod.dim_int"] = legalizeReduce<ReduceProdOp>;
  t["aten.amin.default"] = legalizeAmin;
  t["aten.max.default"] = legalizeReduce<ReduceMaxOp>;
  t["aten.min.default"] = legalizeAmin;
  t["aten.aminmax.default"] = legalizeAminmax;
  t["aten.count_nonzero.default"] = legalizeCountNonzero;
  t["aten.count_nonzero.dim_IntList"] = legalizeCountNonzero;
  t["aten.argmax.default"] = [](OperatorArgs &a, OpBuilder &b) { return legalizeArgExtremum(a, b, true); };
  t["aten.argmin.default"] = [](OperatorArgs &a, OpBuilder &b) { return legalizeArgExtremum(a, b, false); };
  t["aten.max.dim"] = [](OperatorArgs &a, OpBuilder &b) { return legalizeExtremumWithIndex(a, b, true); };
  t["aten.min.dim"] = [](OperatorArgs &a, OpBuilder &b) { return legalizeExtremumWithIndex(a, b, false); };
  for (const char *v : {"var.correction", "var.dim", "var_mean.correction", "var_mean.dim", "var.default", "var_mean.default"})
    t[std::string("aten.") + v] = [](OperatorArgs &a, OpBuilder &b) { return legalizeVariance(a, b, false); };
  for (const char *v : {"std.correction", "std.dim", "std_mean.correction", "std_mean.dim", "std.default", "std_mean.default"})
    t[std::string("aten.") + v] = [](OperatorArgs &a, OpBuilder &b) { return legalizeVariance(a, b, true); };
  t["aten.rms_norm.default"] = legalizeRmsNorm;
  t["aten.group_norm.default"] = legalizeGroupNorm;
  t["aten.native_group_norm.default"] = legalizeGroupNorm;
  t["aten.instance_norm.default"] = legalizeInstanceNorm;
  t["aten._safe_softmax.default"] = legalizeSafeSoftmax;
  t["aten.nansum.default"] = [](OperatorArgs &a, OpBuilder &b) { return legalizeNanReduce(a, b, false); };
  t["aten.nanmean.default"] = [](OperatorArgs &a, OpBuilder &b) { return legalizeNanReduce(a, b, true); };
  for (const char *n : {"aten.trapz.x", "aten.trapz.dx", "aten.trapezoid.x", "aten.trapezoid.dx"})
    t[n] = legalizeTrapezoid;
  t["aten.cumulative_trapezoid.x"] = legalizeCumulativeTrapezoid;
  t["aten.cumulative_trapezoid.dx"] = legalizeCumulativeTrapezoid;
  t["aten.layer_norm.default"] = legalizeLayerNorm;
  t["aten.native_layer_norm.default"] = legalizeLayerNorm;
}
