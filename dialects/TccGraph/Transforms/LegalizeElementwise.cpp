//===- LegalizeElementwise.cpp - pointwise ATen operators -----------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

template <typename OpTy>
LegalizeFn unary() {
  return [](OperatorArgs &args, OpBuilder &b) -> Results {
    Value x = args.tensor("self");
    if (!x)
      x = args.tensor("input");
    if (!x)
      return args.getOp().emitError("expected a tensor operand 'self'");
    return SmallVector<Value>{b.create<OpTy>(args.getOp().getLoc(), x)};
  };
}

/// x <op> other (tensor or scalar), with `alpha` scaling `other` for add/sub.
template <typename OpTy>
LegalizeFn binary(bool hasAlpha) {
  return [hasAlpha](OperatorArgs &args, OpBuilder &b) -> Results {
    Location loc = args.getOp().getLoc();
    Value x = args.tensor("self");
    if (!x)
      return args.getOp().emitError("expected a tensor operand 'self'");
    FailureOr<Value> other = tensorOrScalar(args, b, "other", x);
    if (failed(other))
      return failure();
    Value y = *other;
    if (hasAlpha) {
      double alpha = args.getFloat("alpha").value_or(1.0);
      if (alpha != 1.0) {
        Type elt = cast<RankedTensorType>(y.getType()).getElementType();
        y = makeBinary<MulOp>(b, loc, y, makeScalar(b, loc, elt, alpha));
      }
    }
    if (cast<RankedTensorType>(x.getType()).getElementType() !=
        cast<RankedTensorType>(y.getType()).getElementType())
      return args.getOp().emitError("mixed element types ")
             << x.getType() << " and " << y.getType() << " are not supported yet";
    return SmallVector<Value>{makeBinary<OpTy>(b, loc, x, y)};
  };
}

Results legalizeDiv(OperatorArgs &args, OpBuilder &b) {
  if (args.has("rounding_mode"))
    return args.getOp().emitError("div with a rounding_mode is not supported yet");
  return binary<DivOp>(false)(args, b);
}

/// In-place variants (relu_, add_) are treated as functional only when the
/// mutated value has no later reader; otherwise the answer would be wrong.
LegalizeFn inPlace(LegalizeFn functional) {
  return [functional](OperatorArgs &args, OpBuilder &b) -> Results {
    Value self = args.tensor("self");
    if (self) {
      for (Operation *user : self.getUsers())
        if (user != args.getOp() &&
            args.getOp()->isBeforeInBlock(user))
          return args.getOp().emitError("in-place operator '")
                 << args.getOp().getName()
                 << "' mutates a value that is read later; this is not supported";
      if (isa<BlockArgument>(self))
        return args.getOp().emitError("in-place operator '")
               << args.getOp().getName() << "' mutates a graph input";
    }
    return functional(args, b);
  };
}

/// dropout in eval mode, clone, contiguous, alias, detach: the value itself.
Results identity(OperatorArgs &args, OpBuilder &) {
  if (auto train = args.getBool("train"); train && *train)
    return args.getOp().emitError("dropout in training mode is not supported");
  Value x = args.tensor("self");
  if (!x)
    x = args.tensor("input");
  if (!x)
    return args.getOp().emitError("expected a tensor operand");
  return SmallVector<Value>{x};
}
} // namespace

void tcc::graph::populateElementwiseLegalizers(LegalizerTable &t) {
  t["aten.sin.default"] = unary<SinOp>();
  t["aten.cos.default"] = unary<CosOp>();
  t["aten.exp.default"] = unary<ExpOp>();
  t["aten.sqrt.default"] = unary<SqrtOp>();
  t["aten.rsqrt.default"] = unary<RsqrtOp>();
  t["aten.neg.default"] = unary<NegOp>();
  t["aten.relu.default"] = unary<ReluOp>();
  t["aten.relu_.default"] = inPlace(unary<ReluOp>());

  for (const char *suffix : {"Tensor", "Scalar"}) {
    std::string s(suffix);
    t["aten.add." + s] = binary<AddOp>(true);
    t["aten.sub." + s] = binary<SubOp>(true);
    t["aten.mul." + s] = binary<MulOp>(false);
    t["aten.div." + s] = legalizeDiv;
    t["aten.div." + s + "_mode"] = legalizeDiv;
    t["aten.add_." + s] = inPlace(binary<AddOp>(true));
    t["aten.mul_." + s] = inPlace(binary<MulOp>(false));
  }
  t["aten.maximum.default"] = [](OperatorArgs &args, OpBuilder &b) -> FailureOr<SmallVector<Value>> {
    Value x = args.tensor("self"), y = args.tensor("other");
    if (!x || !y)
      return args.getOp().emitError("maximum expects two tensors");
    return SmallVector<Value>{makeBinary<MaximumOp>(b, args.getOp().getLoc(), x, y)};
  };
  for (const char *name : {"aten.dropout.default", "aten.clone.default",
                           "aten.contiguous.default", "aten.alias.default",
                           "aten.detach.default"})
    t[name] = identity;
}
