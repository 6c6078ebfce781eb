//===- LegalizeQuantization.cpp - PT2E's quantize/dequantize operators ----===//
//
// The operators PyTorch 2 export quantization (prepare_pt2e/convert_pt2e)
// leaves around convolutions and linears, as tcc_graph.quantize and
// tcc_graph.dequantize (whose descriptions give PyTorch's arithmetic):
//
//   quantized_decomposed.quantize_per_tensor.{default,tensor}
//   quantized_decomposed.dequantize_per_tensor.{default,tensor}
//   quantized_decomposed.quantize_per_channel.default
//   quantized_decomposed.dequantize_per_channel.default
//
// Per-tensor scales and zero points are rank 0 (Python numbers become
// constants: the scale as f64, as PyTorch reads it); per-channel ones are
// the export's 1-D tensors. Kernel formation makes int8 kernels of the ones
// it recognises and spells out the others (Decompositions.h).
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// A one-element scale or zero point operand as a rank-0 tensor.
FailureOr<Value> scalarOperand(OperatorArgs &args, OpBuilder &b, StringRef name) {
  FailureOr<Value> v = requiredTensor(args, name);
  if (failed(v))
    return failure();
  auto t = typeOf(*v);
  if (t.getRank() == 0)
    return *v;
  if (!t.hasStaticShape() || t.getNumElements() != 1)
    return operatorError(args) << "expects a one-element " << name << ", not " << t;
  return makeReshape(b, args.getOp().getLoc(), *v, {});
}

/// The scale and zero point of a per-tensor operator: Python numbers
/// (`.default`) or one-element tensors (`.tensor`).
FailureOr<std::pair<Value, Value>> perTensorParams(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  if (args.tensor("scale") || args.tensor("zero_point")) {
    FailureOr<Value> scale = scalarOperand(args, b, "scale");
    if (failed(scale))
      return failure();
    FailureOr<Value> zp = scalarOperand(args, b, "zero_point");
    if (failed(zp))
      return failure();
    if (!isa<FloatType>(typeOf(*scale).getElementType()) ||
        !isa<IntegerType>(typeOf(*zp).getElementType()))
      return operatorError(args) << "expects a float scale and an integer zero point";
    return std::make_pair(*scale, *zp);
  }
  std::optional<double> scale = args.getFloat("scale");
  std::optional<int64_t> zp = args.getInt("zero_point");
  if (!scale || !zp)
    return operatorError(args) << "needs a scale and a zero point";
  Value s = makeScalar(b, loc, b.getF64Type(), *scale);
  Value z = makeScalar(b, loc, b.getI64Type(), (double)*zp);
  return std::make_pair(s, z);
}

/// The per-channel scales and zero points (zeros where `zero_points` is
/// None) and the normalized axis.
FailureOr<std::tuple<Value, Value, int64_t>> perChannelParams(OperatorArgs &args, OpBuilder &b,
                                                              int64_t rank) {
  FailureOr<Value> scales = requiredTensor(args, "scales");
  if (failed(scales))
    return failure();
  auto st = typeOf(*scales);
  if (st.getRank() != 1 || !isa<FloatType>(st.getElementType()))
    return operatorError(args) << "expects 1-D float scales, not " << st;
  int64_t raw = args.getInt("axis").value_or(0);
  int64_t axis = normalizeDim(raw, rank);
  if (axis < 0 || axis >= rank)
    return operatorError(args) << "axis " << raw << " out of range for rank " << rank;
  Value zp = args.tensor("zero_points");
  if (!zp) {
    if (st.isDynamicDim(0))
      return operatorError(args) << "needs zero points where the channel count is symbolic";
    zp = makeSplat(b, args.getOp().getLoc(), RankedTensorType::get(st.getShape(), b.getI64Type()),
                   0.0);
  }
  if (typeOf(zp).getRank() != 1 || !isa<IntegerType>(typeOf(zp).getElementType()))
    return operatorError(args) << "expects 1-D integer zero points, not " << zp.getType();
  return std::make_tuple(*scales, zp, axis);
}

/// The scale, zero point and (per channel) axis attribute of an operator.
struct QuantParams {
  Value scale, zeroPoint;
  IntegerAttr axis;
};
FailureOr<QuantParams> quantParams(OperatorArgs &args, OpBuilder &b, bool perChannel,
                                   int64_t rank) {
  if (!perChannel) {
    auto params = perTensorParams(args, b);
    if (failed(params))
      return failure();
    return QuantParams{params->first, params->second, IntegerAttr()};
  }
  auto params = perChannelParams(args, b, rank);
  if (failed(params))
    return failure();
  auto [scale, zp, axis] = *params;
  return QuantParams{scale, zp, b.getI64IntegerAttr(axis)};
}

/// The quant range, which must fit the quantized type (PyTorch asserts it).
FailureOr<std::pair<int64_t, int64_t>> quantRange(OperatorArgs &args, Type quantized) {
  std::optional<int64_t> qmin = args.getInt("quant_min"), qmax = args.getInt("quant_max");
  auto intType = dyn_cast<IntegerType>(quantized);
  if (!qmin || !qmax)
    return operatorError(args) << "needs quant_min and quant_max";
  if (!intType || intType.getWidth() > 32)
    return operatorError(args) << "quantizes to " << quantized
                               << ", which tcc does not support (8, 16 and 32-bit integers)";
  return std::make_pair(*qmin, *qmax);
}

/// quantize_per_tensor / quantize_per_channel.
LegalizeFn quantize(bool perChannel) {
  return [perChannel](OperatorArgs &args, OpBuilder &b) -> Results {
    Location loc = args.getOp().getLoc();
    FailureOr<Value> input = requiredTensor(args, "input");
    if (failed(input))
      return failure();
    Type elt = typeOf(*input).getElementType();
    if (!elt.isF32() && !elt.isF16() && !elt.isBF16())
      return operatorError(args) << "expects a float32 (or f16/bf16) input, not " << elt;
    RankedTensorType resultType = args.resultType();
    FailureOr<std::pair<int64_t, int64_t>> range =
        quantRange(args, resultType.getElementType());
    if (failed(range))
      return failure();
    // PyTorch widens f16/bf16 to f32 first.
    Value x = makeCast(b, loc, *input, b.getF32Type());
    FailureOr<QuantParams> params = quantParams(args, b, perChannel, typeOf(x).getRank());
    if (failed(params))
      return failure();
    Value q = QuantizeOp::create(b, loc, resultType, x, params->scale, params->zeroPoint,
                                 params->axis, b.getI64IntegerAttr(range->first),
                                 b.getI64IntegerAttr(range->second));
    return SmallVector<Value>{q};
  };
}

/// dequantize_per_tensor / dequantize_per_channel, to float32 (the default
/// out_dtype; others are refused).
LegalizeFn dequantize(bool perChannel) {
  return [perChannel](OperatorArgs &args, OpBuilder &b) -> Results {
    Location loc = args.getOp().getLoc();
    FailureOr<Value> input = requiredTensor(args, "input");
    if (failed(input))
      return failure();
    RankedTensorType resultType = args.resultType();
    if (!resultType.getElementType().isF32())
      return operatorError(args) << "dequantizes to " << resultType.getElementType()
                                 << "; tcc supports out_dtype float32 only";
    FailureOr<std::pair<int64_t, int64_t>> range =
        quantRange(args, typeOf(*input).getElementType());
    if (failed(range))
      return failure();
    FailureOr<QuantParams> params = quantParams(args, b, perChannel, typeOf(*input).getRank());
    if (failed(params))
      return failure();
    Value r = DequantizeOp::create(b, loc, resultType, *input, params->scale, params->zeroPoint,
                                   params->axis, b.getI64IntegerAttr(range->first),
                                   b.getI64IntegerAttr(range->second));
    return SmallVector<Value>{r};
  };
}
} // namespace

void tcc::graph::populateQuantizationLegalizers(LegalizerTable &t) {
  t["quantized_decomposed.quantize_per_tensor.default"] = quantize(false);
  t["quantized_decomposed.quantize_per_tensor.tensor"] = quantize(false);
  t["quantized_decomposed.quantize_per_channel.default"] = quantize(true);
  t["quantized_decomposed.dequantize_per_tensor.default"] = dequantize(false);
  t["quantized_decomposed.dequantize_per_tensor.tensor"] = dequantize(false);
  t["quantized_decomposed.dequantize_per_channel.default"] = dequantize(true);
}
