//===- LegalizeBackward.cpp - gradients of forward ops as pointwise work --===//
//
// The backward operators an exported training step (or a user calling them
// directly) leaves in a graph, written with the forward ops' building blocks
// in the order ATen's CPU kernels compute them:
//
//   native_dropout_backward(g, mask, scale) = g * (mask * scale)
//   _softmax_backward_data(g, y, dim)       = y * (g - sum(g * y, dim))
//   _log_softmax_backward_data(g, y, dim)   = g - exp(y) * sum(g, dim)
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// native_dropout_backward(grad_output, mask, scale): the mask (bool or the
/// gradient's type) converted to the gradient's type and scaled first, as
/// ATen's decomposition and CPU kernel do.
Results legalizeDropoutBackward(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  FailureOr<Value> grad = requiredTensor(args, "grad_output"), mask = requiredTensor(args, "mask");
  if (failed(grad) || failed(mask))
    return failure();
  Type elt = typeOf(*grad).getElementType();
  if (!isa<FloatType>(elt))
    return operatorError(args) << "needs a floating-point gradient, not " << grad->getType();
  Value keep = makeCast(b, loc, *mask, elt);
  Value scale = makeScalar(b, loc, elt, args.getFloat("scale").value_or(1.0));
  Value scaled = makeBinary<MulOp>(b, loc, keep, scale);
  return SmallVector<Value>{makeBinary<MulOp>(b, loc, *grad, scaled)};
}

/// _softmax_backward_data / _log_softmax_backward_data(grad_output, output,
/// dim, input_dtype), in float (double for double) and converted to the
/// result's type.
LegalizeFn softmaxBackward(bool log) {
  return [log](OperatorArgs &args, OpBuilder &b) -> Results {
    Location loc = args.getOp().getLoc();
    FailureOr<Value> grad = floatComputeOperand(args, b, "grad_output");
    if (failed(grad))
      return failure();
    FailureOr<Value> output = floatComputeOperand(args, b, "output");
    if (failed(output))
      return failure();
    if (typeOf(*grad).getShape() != typeOf(*output).getShape())
      return operatorError(args) << "grad_output and output must have one shape";
    int64_t rank = std::max<int64_t>(typeOf(*grad).getRank(), 1);
    int64_t raw = args.getInt("dim").value_or(-1);
    int64_t dim = normalizeDim(raw, rank);
    if (dim < 0 || dim >= rank)
      return operatorError(args) << "dim " << raw << " out of range for rank "
                                 << typeOf(*grad).getRank();
    Value result;
    if (typeOf(*grad).getRank() == 0) {
      // One element per row: the sum is the element itself.
      if (log) {
        Value p = b.create<ExpOp>(loc, *output);
        Value term = makeBinary<MulOp>(b, loc, p, *grad);
        result = makeBinary<SubOp>(b, loc, *grad, term);
      } else {
        Value product = makeBinary<MulOp>(b, loc, *grad, *output);
        Value diff = makeBinary<SubOp>(b, loc, *grad, product);
        result = makeBinary<MulOp>(b, loc, *output, diff);
      }
    } else if (log) {
      Value total = makeReduce<ReduceSumOp>(b, loc, *grad, {dim}, /*keepdim=*/true);
      Value p = b.create<ExpOp>(loc, *output);
      Value term = makeBinary<MulOp>(b, loc, p, total);
      result = makeBinary<SubOp>(b, loc, *grad, term);
    } else {
      Value product = makeBinary<MulOp>(b, loc, *grad, *output);
      Value dot = makeReduce<ReduceSumOp>(b, loc, product, {dim}, /*keepdim=*/true);
      Value diff = makeBinary<SubOp>(b, loc, *grad, dot);
      result = makeBinary<MulOp>(b, loc, *output, diff);
    }
    return SmallVector<Value>{makeCast(b, loc, result, args.resultType().getElementType())};
  };
}
} // namespace

void tcc::graph::populateBackwardLegalizers(LegalizerTable &t) {
  t["aten.native_dropout_backward.default"] = legalizeDropoutBackward;
  t["aten._softmax_backward_data.default"] = softmaxBackward(false);
  t["aten._log_softmax_backward_data.default"] = softmaxBackward(true);
}
