//===- LegalizeRandom.cpp - rand, randn, randint, bernoulli ---------------===//
//
// Each draws from tcc_graph.random with the state and stream the frontend
// gave the node (lib/Frontend/RandomState.h): rand is the uniform draw
// itself, randn a Box-Muller transform of two (streams 2k and 2k + 1, in
// f32, or f64 for a double result), randint low + bits mod (high - low)
// (the bias is below 2^-40 for any range up to 2^23), bernoulli a uniform
// draw below p. The numbers differ from PyTorch's generator; the
// distributions are the same.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include "tcc/Support/RandomState.h"

using namespace mlir;
using namespace tcc::graph;

namespace {

using Results = FailureOr<SmallVector<Value>>;

/// The state operand and stream number the frontend attached.
struct Draw {
  Value state;
  int64_t stream;
};

FailureOr<Draw> drawOf(OperatorArgs &args) {
  Value state = args.tensor(tcc::kRandomState);
  std::optional<int64_t> stream = args.getInt(tcc::kRandomStreamArgument);
  if (!state || !stream)
    return operatorError(args) << "draws random numbers, which tcc takes only from a .pt2 "
                                  "archive or model.json read by tcc compile";
  return Draw{state, *stream};
}

/// tcc_graph.random of `type` (its symbolic sizes those of the operator's
/// result, or of `like` where given) from substream `sub` of the node's.
FailureOr<Value> uniform(OperatorArgs &args, OpBuilder &b, const Draw &draw, int64_t sub,
                         RankedTensorType type, Value like = {}) {
  Location loc = args.getOp().getLoc();
  SmallVector<Value> sizes;
  if (!type.hasStaticShape()) {
    if (like) {
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          sizes.push_back(dimIndex(b, loc, like, d));
    } else {
      FailureOr<SmallVector<Value>> symbolic = symbolicSizes(args, b);
      if (failed(symbolic))
        return failure();
      sizes = *symbolic;
    }
  }
  return b.create<RandomOp>(loc, type, draw.state, b.getI64IntegerAttr(2 * draw.stream + sub), sizes)
      .getResult();
}

RankedTensorType withElement(RankedTensorType t, Type elt) {
  return RankedTensorType::get(t.getShape(), elt);
}

/// rand(size) and rand_like(self): uniform on [0, 1) in the result's type.
Results legalizeRand(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Draw> draw = drawOf(args);
  if (failed(draw))
    return failure();
  RankedTensorType type = args.resultType();
  if (!isa<FloatType>(type.getElementType()))
    return operatorError(args) << "draws floats; PyTorch has no uniform draw of "
                               << type.getElementType();
  FailureOr<Value> u = uniform(args, b, *draw, 0, type, args.tensor("self"));
  if (failed(u))
    return failure();
  return SmallVector<Value>{*u};
}

/// randn(size) and randn_like(self): sqrt(-2 ln(1 - u1)) cos(2 pi u2).
Results legalizeRandn(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Draw> draw = drawOf(args);
  if (failed(draw))
    return failure();
  RankedTensorType type = args.resultType();
  Location loc = args.getOp().getLoc();
  if (!isa<FloatType>(type.getElementType()))
    return operatorError(args) << "draws floats; PyTorch has no normal draw of "
                               << type.getElementType();
  Type compute = type.getElementType().isF64() ? Type(b.getF64Type()) : Type(b.getF32Type());
  RankedTensorType computeType = withElement(type, compute);
  Value like = args.tensor("self");
  FailureOr<Value> u1 = uniform(args, b, *draw, 0, computeType, like);
  if (failed(u1))
    return failure();
  FailureOr<Value> u2 = uniform(args, b, *draw, 1, computeType, like);
  if (failed(u2))
    return failure();
  // 1 - u1 is in (0, 1]: its logarithm is finite.
  Value one = makeScalar(b, loc, compute, 1.0);
  Value logTerm = b.create<LogOp>(loc, makeBinary<SubOp>(b, loc, one, *u1));
  Value radius = b.create<SqrtOp>(loc, makeBinary<MulOp>(b, loc, logTerm,
                                                         makeScalar(b, loc, compute, -2.0)));
  Value angle = makeBinary<MulOp>(b, loc, *u2, makeScalar(b, loc, compute, 6.283185307179586));
  Value z = makeBinary<MulOp>(b, loc, radius, b.create<CosOp>(loc, angle));
  return SmallVector<Value>{makeCast(b, loc, z, type.getElementType())};
}

/// randint(high, size), randint(low, high, size), randint_like(self, high),
/// randint_like(self, low, high): low + bits mod (high - low).
Results legalizeRandint(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Draw> draw = drawOf(args);
  if (failed(draw))
    return failure();
  RankedTensorType type = args.resultType();
  Location loc = args.getOp().getLoc();
  std::optional<int64_t> high = args.getInt("high");
  int64_t low = args.getInt("low").value_or(0);
  if (!high)
    return operatorError(args) << "needs 'high' as a number known when compiling";
  if (*high <= low)
    return operatorError(args) << "draws from [" << low << ", " << *high
                               << "), which is empty (PyTorch raises)";
  Type elt = type.getElementType();
  if (isa<FloatType>(elt) && *high - low > (int64_t(1) << 24))
    return operatorError(args) << "draws " << elt << " values from a range of more than 2^24 "
                                  "integers, not supported";
  Type i64 = b.getI64Type();
  FailureOr<Value> bits = uniform(args, b, *draw, 0, withElement(type, i64), args.tensor("self"));
  if (failed(bits))
    return failure();
  Value offset = makeBinary<FmodOp>(b, loc, *bits, makeScalar(b, loc, i64, double(*high - low)));
  Value value = makeBinary<AddOp>(b, loc, offset, makeScalar(b, loc, i64, double(low)));
  return SmallVector<Value>{makeCast(b, loc, value, elt)};
}

/// bernoulli(self) with self the probabilities, bernoulli(self, p) with a
/// number p: 1 where a uniform draw is below p, in self's type.
Results legalizeBernoulli(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Draw> draw = drawOf(args);
  if (failed(draw))
    return failure();
  FailureOr<Value> self = requiredTensor(args, "self");
  if (failed(self))
    return failure();
  RankedTensorType type = args.resultType();
  Location loc = args.getOp().getLoc();
  Type elt = type.getElementType();
  Type compute = elt.isF64() ? Type(b.getF64Type()) : Type(b.getF32Type());
  FailureOr<Value> u = uniform(args, b, *draw, 0, withElement(type, compute), *self);
  if (failed(u))
    return failure();
  Value p;
  if (std::optional<double> number = args.getFloat("p")) {
    if (*number < 0.0 || *number > 1.0)
      return operatorError(args) << "p = " << *number << " is not a probability (PyTorch raises)";
    p = makeScalar(b, loc, compute, *number);
  } else {
    if (!isa<FloatType>(cast<RankedTensorType>(self->getType()).getElementType()))
      return operatorError(args) << "needs probabilities of a float type";
    p = makeCast(b, loc, *self, compute);
  }
  Value below = makeCompare(b, loc, "lt", *u, p);
  return SmallVector<Value>{makeCast(b, loc, below, elt)};
}

} // namespace

void tcc::graph::populateRandomLegalizers(LegalizerTable &t) {
  t["aten.rand.default"] = legalizeRand;
  t["aten.rand_like.default"] = legalizeRand;
  t["aten.randn.default"] = legalizeRandn;
  t["aten.randn_like.default"] = legalizeRandn;
  t["aten.randint.default"] = legalizeRandint;
  t["aten.randint.low"] = legalizeRandint;
  t["aten.randint_like.default"] = legalizeRandint;
  t["aten.randint_like.low_dtype"] = legalizeRandint;
  t["aten.bernoulli.default"] = legalizeBernoulli;
  t["aten.bernoulli.p"] = legalizeBernoulli;
}
