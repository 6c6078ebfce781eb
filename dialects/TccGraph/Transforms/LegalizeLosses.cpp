//===- LegalizeLosses.cpp - loss functions with a reduction ---------------===//
//
// The ATen losses (l1, mse, smooth_l1, huber, soft_margin, hinge_embedding,
// margin_ranking, cosine_embedding, kl_div, poisson_nll, binary_cross_entropy
// and its logits form, nll_loss and cross_entropy) as PyTorch's own formulas
// (pointwise ops; a gather of the target classes), then the
// `reduction` argument: 0 none, 1 mean over every element (the default), 2
// sum. Any other value is refused.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include <cmath>

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// Builds one loss in the result's float type.
struct LossBuilder : PointwiseBuilder {
  OperatorArgs &args;
  Value where(Value cond, Value yes, Value no) {
    auto shape = broadcastShapes(typeOf(yes).getShape(), typeOf(no).getShape());
    auto full = broadcastShapes(typeOf(cond).getShape(), *shape);
    return b.create<SelectOp>(loc, RankedTensorType::get(*full, elt), cond, yes, no);
  }
  Value compare(StringRef predicate, Value x, Value y) { return makeCompare(b, loc, predicate, x, y); }
  /// The tensor operand `name` in the result type, or null with an error.
  Value operand(StringRef name) {
    FailureOr<Value> v = requiredTensor(args, name);
    return succeeded(v) ? makeCast(b, loc, *v, elt) : nullptr;
  }
  /// The optional tensor operand `name` in the result type (null if None).
  Value optional(StringRef name) {
    Value v = args.tensor(name);
    return v ? makeCast(b, loc, v, elt) : nullptr;
  }
};

/// The `reduction` argument (1, mean, when absent), or an error for values
/// other than 0 (none), 1 (mean) and 2 (sum).
FailureOr<int64_t> reductionOf(OperatorArgs &args) {
  int64_t reduction = args.getInt("reduction").value_or(1);
  if (reduction < 0 || reduction > 2)
    return args.getOp().emitError("operator '")
           << operatorName(args) << "': reduction " << reduction
           << " is unknown (0 none, 1 mean, 2 sum)";
  return reduction;
}

/// `v` reduced over every dim to a 0-d tensor.
template <typename ReduceOp> Value reduceAll(OpBuilder &b, Location loc, Value v) {
  return makeReduce<ReduceOp>(b, loc, v, llvm::to_vector(llvm::seq<int64_t>(0, typeOf(v).getRank())),
                              false);
}

/// A loss legalizer from the pointwise loss `fn` (null after an error) and
/// the `reduction` argument.
LegalizeFn loss(std::function<Value(LossBuilder &)> fn) {
  return [fn](OperatorArgs &args, OpBuilder &b) -> Results {
    Type elt = args.resultType().getElementType();
    if (!isa<FloatType>(elt))
      return args.getOp().emitError("operator '") << operatorName(args)
                                                  << "' gives a non-float result";
    FailureOr<int64_t> reduction = reductionOf(args);
    if (failed(reduction))
      return failure();
    LossBuilder lb{{b, args.getOp().getLoc(), elt}, args};
    Value pointwise = fn(lb);
    if (!pointwise)
      return failure();
    if (*reduction == 0)
      return SmallVector<Value>{pointwise};
    return SmallVector<Value>{*reduction == 1 ? reduceAll<ReduceMeanOp>(b, lb.loc, pointwise)
                                              : reduceAll<ReduceSumOp>(b, lb.loc, pointwise)};
  };
}

/// The class-index losses (nll_loss_nd, cross_entropy_loss with integer
/// targets) on log-probabilities `logp` (N, C, d...) or (C,): per element
/// -w[t] logp[t], 0 where t is ignore_index; `none` keeps them, `sum` sums,
/// `mean` divides the sum by the sum of the weights taken (PyTorch's
/// weighted mean; NaN when every target is ignored).
Results classIndexLoss(OperatorArgs &args, OpBuilder &b, Value logp, Value target,
                       int64_t reduction, Value *totalWeight = nullptr) {
  Location loc = args.getOp().getLoc();
  RankedTensorType xt = typeOf(logp), tt = typeOf(target);
  Type elt = xt.getElementType();
  int64_t classDim = xt.getRank() == 1 ? 0 : 1;
  if (tt.getRank() != xt.getRank() - 1 || !isa<IntegerType>(tt.getElementType()))
    return args.getOp().emitError("operator '")
           << operatorName(args) << "': class indices of type " << tt << " for input " << xt
           << " (one dim fewer) are not supported";
  Value t = makeCast(b, loc, target, b.getI64Type());
  Value ignore = makeScalar(b, loc, b.getI64Type(), args.getInt("ignore_index").value_or(-100));
  Value keep = makeCompare(b, loc, "ne", t, ignore);
  Value zeroIndex = makeScalar(b, loc, b.getI64Type(), 0.0);
  Value safe = b.create<SelectOp>(loc, typeOf(t), keep, t, zeroIndex);
  SmallVector<int64_t> indexShape(tt.getShape());
  indexShape.insert(indexShape.begin() + classDim, 1);
  // The targets' symbolic sizes (the batch's), where the reshapes need them.
  SmallVector<Value> targetSizes;
  for (int64_t d = 0; d < tt.getRank(); ++d)
    if (tt.isDynamicDim(d))
      targetSizes.push_back(dimIndex(b, loc, target, d));
  Value index = b.create<ReshapeOp>(loc, RankedTensorType::get(indexShape, b.getI64Type()), safe,
                                    targetSizes);
  Value picked = b.create<GatherOp>(loc, RankedTensorType::get(indexShape, elt), logp, index,
                                    b.getI64IntegerAttr(classDim));
  picked = b.create<ReshapeOp>(loc, RankedTensorType::get(tt.getShape(), elt), picked,
                               targetSizes);
  PointwiseBuilder p{b, loc, elt};
  Value w;
  if (Value weight = args.tensor("weight"))
    w = b.create<TakeOp>(loc, RankedTensorType::get(tt.getShape(), elt), makeCast(b, loc, weight, elt),
                         safe, b.getI64IntegerAttr(0));
  else
    w = p.c(1.0);
  Value taken = b.create<SelectOp>(loc, RankedTensorType::get(tt.getShape(), elt), keep, w, p.c(0.0));
  Value loss = p.un<NegOp>(p.bin<MulOp>(picked, taken));
  if (reduction == 0) {
    // PyTorch leaves the total weight 0 without a reduction.
    if (totalWeight)
      *totalWeight = p.c(0.0);
    return SmallVector<Value>{loss};
  }
  Value sum = reduceAll<ReduceSumOp>(b, loc, loss);
  Value weights = reduceAll<ReduceSumOp>(b, loc, taken);
  if (totalWeight)
    *totalWeight = weights;
  if (reduction == 2)
    return SmallVector<Value>{sum};
  return SmallVector<Value>{p.bin<DivOp>(sum, weights)};
}

/// nll_loss_nd(self, target, weight, reduction, ignore_index).
Results legalizeNllLoss(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self"), target = requiredTensor(args, "target");
  FailureOr<int64_t> reduction = reductionOf(args);
  if (failed(x) || failed(target) || failed(reduction))
    return failure();
  if (!isa<FloatType>(typeOf(*x).getElementType()))
    return args.getOp().emitError("nll_loss expects floating-point log-probabilities");
  return classIndexLoss(args, b, *x, *target, *reduction);
}

/// nll_loss_forward(self, target, weight, reduction, ignore_index): the
/// loss and the total weight of the targets taken (what the mean divides by).
Results legalizeNllLossForward(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self"), target = requiredTensor(args, "target");
  FailureOr<int64_t> reduction = reductionOf(args);
  if (failed(x) || failed(target) || failed(reduction))
    return failure();
  if (!isa<FloatType>(typeOf(*x).getElementType()) || typeOf(*x).getRank() > 2)
    return operatorError(args) << "expects floating-point log-probabilities of rank 1 or 2";
  Value totalWeight;
  Results loss = classIndexLoss(args, b, *x, *target, *reduction, &totalWeight);
  if (failed(loss))
    return failure();
  loss->push_back(totalWeight);
  return loss;
}

/// cross_entropy_loss(self, target, weight, reduction, ignore_index,
/// label_smoothing): log_softmax over the class dim, then nll_loss for class
/// indices; for class probabilities (a float target of self's shape)
/// -sum_c w_c target logp per element, `mean` dividing by the element count
/// without the class dim. label_smoothing is refused.
Results legalizeCrossEntropy(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = requiredTensor(args, "self"), target = requiredTensor(args, "target");
  FailureOr<int64_t> reduction = reductionOf(args);
  if (failed(x) || failed(target) || failed(reduction))
    return failure();
  RankedTensorType xt = typeOf(*x);
  if (!isa<FloatType>(xt.getElementType()) || xt.getRank() < 1)
    return args.getOp().emitError("cross_entropy expects floating-point logits");
  if (args.getFloat("label_smoothing").value_or(0.0) != 0.0)
    return args.getOp().emitError("cross_entropy with label_smoothing is not supported yet");
  Location loc = args.getOp().getLoc();
  int64_t classDim = xt.getRank() == 1 ? 0 : 1;
  Value logp = b.create<SoftmaxOp>(loc, xt, *x, b.getI64IntegerAttr(classDim), b.getUnitAttr());
  if (!isa<FloatType>(typeOf(*target).getElementType()))
    return classIndexLoss(args, b, logp, *target, *reduction);
  if (typeOf(*target).getShape() != xt.getShape())
    return args.getOp().emitError("cross_entropy: class probabilities of type ")
           << typeOf(*target) << " for logits " << xt;
  PointwiseBuilder p{b, loc, xt.getElementType()};
  Value v = p.bin<MulOp>(logp, makeCast(b, loc, *target, xt.getElementType()));
  if (Value weight = args.tensor("weight")) {
    SmallVector<int64_t> shape{elementCount(weight)};
    shape.append(xt.getRank() - classDim - 1, 1);
    v = p.bin<MulOp>(v, makeReshape(b, loc, makeCast(b, loc, weight, xt.getElementType()), shape));
  }
  Value perElement = p.un<NegOp>(makeReduce<ReduceSumOp>(b, loc, v, {classDim}, false));
  if (*reduction == 0)
    return SmallVector<Value>{perElement};
  return SmallVector<Value>{*reduction == 1 ? reduceAll<ReduceMeanOp>(b, loc, perElement)
                                            : reduceAll<ReduceSumOp>(b, loc, perElement)};
}

/// `whenOne` where (target <predicate> 1) plus `whenMinusOne` where
/// (target <predicate> -1), 0 elsewhere: the two-sided embedding losses.
Value byTarget(LossBuilder &l, Value target, StringRef predicate, Value whenOne,
               Value whenMinusOne) {
  Value zero = l.c(0.0);
  Value first = l.compare(predicate, target, l.c(1.0));
  Value second = l.compare(predicate, target, l.c(-1.0));
  Value a = l.where(first, whenOne, zero);
  Value c = l.where(second, whenMinusOne, zero);
  return l.bin<AddOp>(a, c);
}

/// |self - target|, the difference smooth_l1 and huber bend.
Value absoluteError(LossBuilder &l) {
  Value x = l.operand("self"), y = l.operand("target");
  return x && y ? l.un<AbsOp>(l.bin<SubOp>(x, y)) : nullptr;
}

/// multi_margin_loss(self [N, C] or [C], target, p, margin, weight,
/// reduction), PyTorch's form: per sample, the sum over classes i other than
/// the target y of (max(0, (margin - x[y]) + x[i]))^p (times weight[y]),
/// divided by C.
Results legalizeMultiMarginLoss(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self"), target = args.tensor("target");
  Type elt = args.resultType().getElementType();
  int64_t p = args.getInt("p").value_or(1);
  FailureOr<int64_t> reduction = reductionOf(args);
  if (failed(reduction))
    return failure();
  if (!x || !target || !isa<FloatType>(elt) || (p != 1 && p != 2) || typeOf(x).getRank() > 2 ||
      !typeOf(x).hasStaticShape() || !isa<IntegerType>(typeOf(target).getElementType()))
    return operatorError(args) << "needs a static float input of rank <= 2, class indices and p 1 or 2";
  RankedTensorType xt = typeOf(x);
  int64_t c = xt.getRank() == 0 ? 1 : xt.getShape().back();
  int64_t n = xt.getRank() == 2 ? xt.getShape()[0] : 1;
  PointwiseBuilder pb{b, loc, elt};
  Value rows = makeReshape(b, loc, makeCast(b, loc, x, elt), {n, c});
  Value t = makeReshape(b, loc, makeCast(b, loc, target, b.getI64Type()), {n, 1});
  Value picked = b.create<GatherOp>(loc, RankedTensorType::get({n, 1}, elt), rows, t, b.getI64IntegerAttr(1));
  Value base = pb.bin<SubOp>(pb.c(args.getFloat("margin").value_or(1.0)), picked);
  Value z = pb.bin<AddOp>(base, rows);
  Value h = pb.bin<MaximumOp>(z, pb.c(0.0));
  if (p == 2)
    h = pb.bin<MulOp>(h, h);
  if (Value weight = args.tensor("weight")) {
    Value w = b.create<TakeOp>(loc, RankedTensorType::get({n, 1}, elt), makeCast(b, loc, weight, elt), t,
                               b.getI64IntegerAttr(0));
    h = pb.bin<MulOp>(h, w);
  }
  Value classes = makeIotaAt(b, loc, c, b.getI64Type(), 2, 1);
  Value others = makeCompare(b, loc, "ne", classes, t);
  h = b.create<SelectOp>(loc, typeOf(h), others, h, pb.c(0.0));
  Value summed = makeReduce<ReduceSumOp>(b, loc, h, {1}, false);
  Value perSample = pb.bin<DivOp>(summed, pb.c(double(c)));
  if (*reduction == 0)
    return SmallVector<Value>{makeReshape(b, loc, perSample, args.resultType().getShape())};
  return SmallVector<Value>{*reduction == 1 ? reduceAll<ReduceMeanOp>(b, loc, perSample)
                                            : reduceAll<ReduceSumOp>(b, loc, perSample)};
}
/// multilabel_margin_loss(self, target, reduction) on [C] or [N, C] (a 0-d
/// input is one class): each
/// row's targets are its target entries before the first negative one; with
/// u_j = x[t_j] for those, the row's loss is sum over them and over the
/// non-target classes d of max(0, 1 - u_j + x_d), divided by C (ATen's CPU
/// kernel, its break at the first negative target included).
Results legalizeMultilabelMarginLoss(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Value x = args.tensor("self"), target = args.tensor("target");
  Type elt = args.resultType().getElementType();
  FailureOr<int64_t> reduction = reductionOf(args);
  if (failed(reduction))
    return failure();
  if (!x || !target || !isa<FloatType>(elt) || typeOf(x).getRank() > 2 ||
      !typeOf(x).hasStaticShape() ||
      typeOf(target).getShape() != typeOf(x).getShape() ||
      !isa<IntegerType>(typeOf(target).getElementType()))
    return operatorError(args) << "needs a static float input of rank <= 2 and class "
                                  "indices of its shape";
  RankedTensorType xt = typeOf(x);
  int64_t c = xt.getRank() == 0 ? 1 : xt.getShape().back();
  int64_t n = xt.getRank() == 2 ? xt.getShape()[0] : 1;
  if (c == 0 || n == 0)
    return operatorError(args) << "needs a non-empty input";
  Type i64 = b.getI64Type(), f32 = b.getF32Type();
  PointwiseBuilder pb{b, loc, elt};
  Value rows = makeReshape(b, loc, makeCast(b, loc, x, elt), {n, c});
  Value t = makeReshape(b, loc, makeCast(b, loc, target, i64), {n, c});
  // The first negative target ends the row's list: j is a target while no
  // earlier entry is negative (a running count of negatives stays 0).
  Value negative = makeCompare(b, loc, "lt", t, makeScalar(b, loc, i64, 0));
  Value negatives = makeCast(b, loc, negative, i64);
  Value seen = b.create<CumsumOp>(loc, typeOf(negatives), negatives, b.getI64IntegerAttr(1));
  Value listed = makeCompare(b, loc, "eq", seen, makeScalar(b, loc, i64, 0));
  Value safe = b.create<SelectOp>(loc, typeOf(t), listed, t, makeScalar(b, loc, i64, 0));
  Value u = b.create<GatherOp>(loc, RankedTensorType::get({n, c}, elt), rows, safe,
                               b.getI64IntegerAttr(1));
  // isTarget[n, d]: some listed j names class d.
  Value named = makeReshape(b, loc, safe, {n, c, 1});
  Value classes = makeIotaAt(b, loc, c, i64, 3, 2);
  Value names = makeCompare(b, loc, "eq", named, classes);
  Value listed3 = makeReshape(b, loc, listed, {n, c, 1});
  Value hits = makeBinary<BitwiseAndOp>(b, loc, names, listed3);
  Value hitCount = makeReduce<ReduceSumOp>(b, loc, makeCast(b, loc, hits, f32), {1}, false);
  Value isTarget = makeCompare(b, loc, "gt", hitCount, makeScalar(b, loc, f32, 0.0));
  // z[n, j, d] = (1 - u[n, j]) + x[n, d], counted where positive, j listed
  // and d not a target.
  Value base = pb.bin<SubOp>(pb.c(1.0), u);
  Value base3 = makeReshape(b, loc, base, {n, c, 1});
  Value rows3 = makeReshape(b, loc, rows, {n, 1, c});
  Value z = pb.bin<AddOp>(base3, rows3);
  Value positive = makeCompare(b, loc, "gt", z, pb.c(0.0));
  Value other = makeReshape(b, loc, makeCompare(b, loc, "eq", isTarget,
                                                makeScalar(b, loc, b.getI1Type(), 0.0)),
                            {n, 1, c});
  Value counted = makeBinary<BitwiseAndOp>(b, loc, positive, listed3);
  counted = makeBinary<BitwiseAndOp>(b, loc, counted, other);
  Value terms = b.create<SelectOp>(loc, typeOf(z), counted, z, pb.c(0.0));
  Value summed = makeReduce<ReduceSumOp>(b, loc, terms, {1, 2}, false);
  Value perSample = pb.bin<DivOp>(summed, pb.c(double(c)));
  if (*reduction == 0)
    return SmallVector<Value>{makeReshape(b, loc, perSample, args.resultType().getShape())};
  return SmallVector<Value>{*reduction == 1 ? reduceAll<ReduceMeanOp>(b, loc, perSample)
                                            : reduceAll<ReduceSumOp>(b, loc, perSample)};
}
} // namespace

void tcc::graph::populateLossLegalizers(LegalizerTable &t) {
  t["aten.multilabel_margin_loss.default"] = legalizeMultilabelMarginLoss;
  t["aten.multi_margin_loss.default"] = legalizeMultiMarginLoss;
  t["aten.nll_loss_nd.default"] = legalizeNllLoss;
  t["aten.nll_loss.default"] = legalizeNllLoss;
  t["aten.nll_loss_forward.default"] = legalizeNllLossForward;
  t["aten.cross_entropy_loss.default"] = legalizeCrossEntropy;
  // Values are made one per statement: the IR follows the formulas' order.
  t["aten.l1_loss.default"] = loss([](LossBuilder &l) { return absoluteError(l); });
  t["aten.mse_loss.default"] = loss([](LossBuilder &l) -> Value {
    Value x = l.operand("self"), y = l.operand("target");
    if (!x || !y)
      return nullptr;
    Value d = l.bin<SubOp>(x, y);
    return l.bin<MulOp>(d, d);
  });
  // smooth_l1: 0.5 z^2 / beta where z < beta, else z - 0.5 beta (l1 for beta 0).
  t["aten.smooth_l1_loss.default"] = loss([](LossBuilder &l) -> Value {
    Value z = absoluteError(l);
    double beta = l.args.getFloat("beta").value_or(1.0);
    if (!z || beta == 0.0)
      return z;
    Value half = l.bin<MulOp>(l.c(0.5), z);
    Value squared = l.bin<MulOp>(half, z);
    Value quadratic = l.bin<DivOp>(squared, l.c(beta));
    Value linear = l.bin<SubOp>(z, l.c(0.5 * beta));
    Value small = l.compare("lt", z, l.c(beta));
    return l.where(small, quadratic, linear);
  });
  // huber: 0.5 z^2 where z < delta, else delta (z - 0.5 delta).
  t["aten.huber_loss.default"] = loss([](LossBuilder &l) -> Value {
    Value z = absoluteError(l);
    double delta = l.args.getFloat("delta").value_or(1.0);
    if (!z)
      return nullptr;
    Value half = l.bin<MulOp>(l.c(0.5), z);
    Value quadratic = l.bin<MulOp>(half, z);
    Value shifted = l.bin<SubOp>(z, l.c(0.5 * delta));
    Value linear = l.bin<MulOp>(l.c(delta), shifted);
    Value small = l.compare("lt", z, l.c(delta));
    return l.where(small, quadratic, linear);
  });
  // soft_margin: log1p(exp(-target * self)).
  t["aten.soft_margin_loss.default"] = loss([](LossBuilder &l) -> Value {
    Value x = l.operand("self"), y = l.operand("target");
    if (!x || !y)
      return nullptr;
    return l.un<Log1pOp>(l.un<ExpOp>(l.un<NegOp>(l.bin<MulOp>(y, x))));
  });
  // hinge_embedding: max(margin - self, 0) where target != 1, plus self where
  // target != -1 (PyTorch's sum of both, for targets other than ±1 too).
  t["aten.hinge_embedding_loss.default"] = loss([](LossBuilder &l) -> Value {
    Value x = l.operand("self"), y = l.operand("target");
    if (!x || !y)
      return nullptr;
    Value gap = l.bin<SubOp>(l.c(l.args.getFloat("margin").value_or(1.0)), x);
    Value hinge = l.bin<MaximumOp>(gap, l.c(0.0));
    return byTarget(l, y, "ne", hinge, x);
  });
  // margin_ranking: max(-target * (input1 - input2) + margin, 0).
  t["aten.margin_ranking_loss.default"] = loss([](LossBuilder &l) -> Value {
    Value x1 = l.operand("input1"), x2 = l.operand("input2"), y = l.operand("target");
    if (!x1 || !x2 || !y)
      return nullptr;
    Value d = l.bin<SubOp>(x1, x2);
    Value v = l.bin<MulOp>(l.un<NegOp>(y), d);
    Value shifted = l.bin<AddOp>(v, l.c(l.args.getFloat("margin").value_or(0.0)));
    return l.bin<MaximumOp>(shifted, l.c(0.0));
  });
  // cosine_embedding: cos = sum(x1 x2) / sqrt((sum(x1^2) + 1e-12)(sum(x2^2) + 1e-12))
  // over the last dim; 1 - cos where target is 1, max(cos - margin, 0) where -1.
  t["aten.cosine_embedding_loss.default"] = loss([](LossBuilder &l) -> Value {
    Value x1 = l.operand("input1"), x2 = l.operand("input2"), y = l.operand("target");
    if (!x1 || !x2 || !y)
      return nullptr;
    int64_t dim = typeOf(y).getRank();
    if (typeOf(x1).getRank() != dim + 1 || typeOf(x2).getRank() != dim + 1) {
      l.args.getOp().emitError("cosine_embedding_loss expects inputs of one rank more than the target");
      return nullptr;
    }
    auto sum = [&](Value a, Value c) {
      return makeReduce<ReduceSumOp>(l.b, l.loc, l.bin<MulOp>(a, c), {dim}, false);
    };
    Value prod = sum(x1, x2);
    Value mag1 = l.bin<AddOp>(sum(x1, x1), l.c(1e-12));
    Value mag2 = l.bin<AddOp>(sum(x2, x2), l.c(1e-12));
    Value cos = l.bin<DivOp>(prod, l.un<SqrtOp>(l.bin<MulOp>(mag1, mag2)));
    Value pos = l.bin<SubOp>(l.c(1.0), cos);
    Value excess = l.bin<SubOp>(cos, l.c(l.args.getFloat("margin").value_or(0.0)));
    Value neg = l.bin<MaximumOp>(excess, l.c(0.0));
    return byTarget(l, y, "eq", pos, neg);
  });
  // triplet_margin: max(margin + d(anchor, positive) - d(anchor, negative), 0)
  // with pairwise distances; with swap, d(anchor, negative) is the smaller of
  // it and d(positive, negative).
  t["aten.triplet_margin_loss.default"] = loss([](LossBuilder &l) -> Value {
    Value a = l.operand("anchor"), pos = l.operand("positive"), neg = l.operand("negative");
    if (!a || !pos || !neg)
      return nullptr;
    double p = l.args.getFloat("p").value_or(2.0), eps = l.args.getFloat("eps").value_or(1e-6);
    Value dPos = makePairwiseDistance(l.b, l.loc, a, pos, p, eps, false);
    Value dNeg = makePairwiseDistance(l.b, l.loc, a, neg, p, eps, false);
    if (l.args.getBool("swap").value_or(false)) {
      Value dSwap = makePairwiseDistance(l.b, l.loc, pos, neg, p, eps, false);
      dNeg = l.bin<MinimumOp>(dNeg, dSwap);
    }
    Value gap = l.bin<SubOp>(l.bin<AddOp>(l.c(l.args.getFloat("margin").value_or(1.0)), dPos), dNeg);
    return l.bin<MaximumOp>(gap, l.c(0.0));
  });
  // kl_div: exp(target) (target - self) with log_target, else
  // xlogy(target, target) - target * self.
  t["aten.kl_div.default"] = loss([](LossBuilder &l) -> Value {
    Value x = l.operand("self"), y = l.operand("target");
    if (!x || !y)
      return nullptr;
    if (l.args.getBool("log_target").value_or(false)) {
      Value p = l.un<ExpOp>(y);
      return l.bin<MulOp>(p, l.bin<SubOp>(y, x));
    }
    Value entropy = makeXlogy(l.b, l.loc, y, y, /*log1p=*/false);
    return l.bin<SubOp>(entropy, l.bin<MulOp>(y, x));
  });
  // poisson_nll: exp(input) - target * input (log_input), else
  // input - target * log(input + eps); `full` adds Stirling's term
  // target log(target) - target + 0.5 log(2 pi target) where target > 1.
  t["aten.poisson_nll_loss.default"] = loss([](LossBuilder &l) -> Value {
    Value x = l.operand("input"), y = l.operand("target");
    std::optional<bool> logInput = l.args.getBool("log_input"), full = l.args.getBool("full");
    std::optional<double> eps = l.args.getFloat("eps");
    if (!x || !y)
      return nullptr;
    if (!logInput || !full || !eps) {
      l.args.getOp().emitError("poisson_nll_loss needs log_input, full and eps");
      return nullptr;
    }
    Value v;
    if (*logInput) {
      Value e = l.un<ExpOp>(x);
      v = l.bin<SubOp>(e, l.bin<MulOp>(y, x));
    } else {
      Value logX = l.un<LogOp>(l.bin<AddOp>(x, l.c(*eps)));
      v = l.bin<SubOp>(x, l.bin<MulOp>(y, logX));
    }
    if (!*full)
      return v;
    Value tLogT = l.bin<MulOp>(y, l.un<LogOp>(y));
    Value spread = l.un<LogOp>(l.bin<MulOp>(l.c(2 * M_PI), y));
    Value halfSpread = l.bin<MulOp>(l.c(0.5), spread);
    Value stirling = l.bin<AddOp>(l.bin<SubOp>(tLogT, y), halfSpread);
    Value small = l.compare("le", y, l.c(1.0));
    return l.bin<AddOp>(v, l.where(small, l.c(0.0), stirling));
  });
  // binary_cross_entropy: (target - 1) max(log1p(-self), -100)
  //   - target max(log(self), -100), times weight (PyTorch's CPU kernel).
  t["aten.binary_cross_entropy.default"] = loss([](LossBuilder &l) -> Value {
    Value x = l.operand("self"), y = l.operand("target"), w = l.optional("weight");
    if (!x || !y)
      return nullptr;
    Value floor = l.c(-100.0);
    Value logNot = l.bin<MaximumOp>(l.un<Log1pOp>(l.un<NegOp>(x)), floor);
    Value logX = l.bin<MaximumOp>(l.un<LogOp>(x), floor);
    Value negative = l.bin<MulOp>(l.bin<SubOp>(y, l.c(1.0)), logNot);
    Value v = l.bin<SubOp>(negative, l.bin<MulOp>(y, logX));
    return w ? l.bin<MulOp>(v, w) : v;
  });
  // binary_cross_entropy_with_logits: (1 - target) self - log_sigmoid(self)
  // ((pos_weight - 1) target + 1), times weight.
  t["aten.binary_cross_entropy_with_logits.default"] = loss([](LossBuilder &l) -> Value {
    Value x = l.operand("self"), y = l.operand("target");
    Value w = l.optional("weight"), pw = l.optional("pos_weight");
    if (!x || !y)
      return nullptr;
    Value one = l.c(1.0);
    Value ls = makeLogSigmoid(l.b, l.loc, x);
    if (pw) {
      Value scale = l.bin<MulOp>(l.bin<SubOp>(pw, one), y);
      ls = l.bin<MulOp>(ls, l.bin<AddOp>(scale, one));
    }
    Value v = l.bin<SubOp>(l.bin<MulOp>(l.bin<SubOp>(one, y), x), ls);
    return w ? l.bin<MulOp>(v, w) : v;
  });
}
