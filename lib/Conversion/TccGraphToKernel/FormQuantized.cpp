//===- FormQuantized.cpp - PT2E QDQ patterns into tcc_kernel.qconv --------===//
//
// tcc_graph.quantize and tcc_graph.dequantize (PT2E's QDQ pairs) stay whole
// through legalization. This family runs first in tcc-form-kernels. On the
// CPU path alone (oneDNN's int8 primitives), a convolution or linear layer
// whose input is a per-tensor dequantize of u8/s8 and whose weight a
// dequantize of s8 (per tensor, or per filter along axis 0), with its bias,
// an optional residual add, ReLU or GELU and per-tensor quantize after it,
// becomes one tcc_kernel.qconv computing on the integers (a linear layer as
// the 1x1 convolution of [M, K, 1, 1]):
//
//   %x = dequantize %xq ; %w = dequantize %wq {axis = 0}
//   %y = conv2d %x, %w, %b ; %s = add %y, %identity ; %r = relu %s ; %q = quantize %r
//     → %q = tcc_kernel.qconv ins(%xq, %wq) scales(sx · sw) ... activation(relu)
//
// The scales (sx · sw per filter), zero points and the output's inverse
// scale are tcc_graph arithmetic on weights and constants, which
// tcc-hoist-weight-expressions computes once per binding. Every quantize and
// dequantize left becomes PyTorch's float arithmetic on the spot
// (Decompositions.h), before the GEMM and convolution families, so that a
// dequantized weight is an expression on weights alone, hoisted likewise:
// whatever the pattern does not take stays exact.
//
//===----------------------------------------------------------------------===//
#include "FormKernels.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccGraph/Transforms/Decompositions.h"
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tcc-form-kernels"

using namespace mlir;
namespace graph = tcc::graph;
namespace kernel = tcc::kernel;
using tcc::formation::typeOf;

namespace {

/// Whether at most the leading dim of `t` is symbolic (a dynamic batch).
bool onlyLeadingDynamic(RankedTensorType t) {
  return t.getRank() >= 1 && llvm::all_of(t.getShape().drop_front(), [](int64_t d) {
           return !ShapedType::isDynamic(d);
         });
}

/// A per-tensor dequantize of 8-bit integers feeding `v`, or null.
graph::DequantizeOp activationDequantize(Value v) {
  auto dq = v.getDefiningOp<graph::DequantizeOp>();
  if (!dq || dq.isPerChannel() || !typeOf(dq.getInput()).getElementType().isInteger(8))
    return nullptr;
  return dq;
}

/// A dequantize of s8 weights, per tensor or per filter (axis 0), or null.
graph::DequantizeOp weightDequantize(Value v) {
  auto dq = v.getDefiningOp<graph::DequantizeOp>();
  if (!dq)
    return nullptr;
  Type elt = typeOf(dq.getInput()).getElementType();
  if (!elt.isInteger(8) || elt.isUnsignedInteger() || (dq.isPerChannel() && *dq.getAxis() != 0))
    return nullptr;
  return dq;
}

/// What follows a product: an optional bias (given, or an add of a [F]
/// tensor), a residual (an add of an f32 tensor of the product's shape), ReLU
/// or the exact GELU, and a per-tensor quantize to 8 bits, each the only
/// reader of what comes before it.
struct Epilogue {
  Value bias, residual;
  kernel::Activation activation = kernel::Activation::none;
  graph::QuantizeOp quantize;
  Value replaced; ///< the last value taken
  SmallVector<Operation *> ops;
};

Operation *soleUser(Value v) {
  return v.hasOneUse() ? *v.getUsers().begin() : nullptr;
}

Epilogue matchEpilogue(Value product, Value bias, int64_t filters, bool biasAdd) {
  Epilogue e;
  e.bias = bias;
  e.replaced = product;
  if (biasAdd && !e.bias)
    if (auto add = dyn_cast_or_null<graph::AddOp>(soleUser(e.replaced))) {
      Value other = add.getLhs() == e.replaced ? add.getRhs() : add.getLhs();
      auto t = typeOf(other);
      if (add.getLhs() != add.getRhs() && t.getRank() == 1 && t.getDimSize(0) == filters &&
          t.getElementType().isF32() && typeOf(add.getResult()) == typeOf(e.replaced)) {
        e.bias = other;
        e.replaced = add.getResult();
        e.ops.push_back(add);
      }
    }
  if (auto add = dyn_cast_or_null<graph::AddOp>(soleUser(e.replaced))) {
    Value other = add.getLhs() == e.replaced ? add.getRhs() : add.getLhs();
    if (add.getLhs() != add.getRhs() && typeOf(other) == typeOf(e.replaced) &&
        typeOf(add.getResult()) == typeOf(e.replaced)) {
      e.residual = other;
      e.replaced = add.getResult();
      e.ops.push_back(add);
    }
  }
  SmallVector<Operation *> geluOps;
  if (auto relu = dyn_cast_or_null<graph::ReluOp>(soleUser(e.replaced))) {
    e.activation = kernel::Activation::relu;
    e.replaced = relu.getResult();
    e.ops.push_back(relu);
  } else if (Value gelu = tcc::formation::findGeluErf(e.replaced, geluOps)) {
    // BERT's feed-forward: oneDNN's gelu_erf post-op.
    e.activation = kernel::Activation::gelu_erf;
    e.replaced = gelu;
    e.ops.append(geluOps.begin(), geluOps.end());
  }
  if (auto q = dyn_cast_or_null<graph::QuantizeOp>(soleUser(e.replaced)))
    if (!q.isPerChannel() && typeOf(q.getResult()).getElementType().isInteger(8)) {
      e.quantize = q;
      e.replaced = q.getResult();
      e.ops.push_back(q);
    }
  return e;
}

/// `v` (rank 0 or [n]) as a [n] tensor of `elt`.
Value perFilter(OpBuilder &b, Location loc, Value v, Type elt, int64_t n) {
  Value cast = graph::makeCast(b, loc, v, elt);
  if (typeOf(cast).getRank() == 1)
    return cast;
  Value zeros = graph::makeSplat(b, loc, RankedTensorType::get({n}, elt), 0.0);
  return graph::makeBinary<graph::AddOp>(b, loc, zeros, cast);
}

/// The kernel for an NCHW (or [M, K, 1, 1]) int8 image `xq` and an s8
/// filter `wq` [F, C / groups, R, S], replacing `e.replaced`; `shape` is the
/// result's shape before any reshape back (`resultShape`).
void formQConv(graph::DequantizeOp xdq, graph::DequantizeOp wdq, Value xq, Value wq,
               ArrayRef<int64_t> stride, ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
               int64_t groups, ArrayRef<int64_t> shape, ArrayRef<int64_t> resultShape,
               bool channelsLast, Epilogue &e, ArrayRef<Operation *> fused) {
  Operation *anchor = e.replaced.getDefiningOp();
  OpBuilder b(anchor);
  SmallVector<Operation *> all(fused);
  all.append(e.ops.begin(), e.ops.end());
  Location loc = tcc::formation::kernelLocation(all);
  int64_t filters = typeOf(wq).getDimSize(0);
  Type f32 = b.getF32Type(), i64 = b.getI64Type();
  // PyTorch dequantizes with f32 scales (a Python float or a tensor's).
  Value sx = graph::makeCast(b, loc, xdq.getScale(), f32);
  Value sw = perFilter(b, loc, wdq.getScale(), f32, filters);
  Value scales = graph::makeBinary<graph::MulOp>(b, loc, sw, sx);
  Value wZp = perFilter(b, loc, wdq.getZeroPoint(), i64, filters);
  Value xZp = graph::makeCast(b, loc, xdq.getZeroPoint(), i64);
  Value outScale, outZp;
  Type resultElt = f32;
  IntegerAttr qmin = b.getI64IntegerAttr(0), qmax = b.getI64IntegerAttr(0);
  if (e.quantize) {
    // C(1 / f64(scale)), as quantize computes its multiplier.
    outScale = graph::quantizeMultiplier(b, loc, e.quantize.getScale(), f32);
    outZp = graph::makeCast(b, loc, e.quantize.getZeroPoint(), i64);
    resultElt = typeOf(e.quantize.getResult()).getElementType();
    qmin = e.quantize.getQuantMinAttr();
    qmax = e.quantize.getQuantMaxAttr();
  }
  // A linear layer's residual [..., N] as its [M, N, 1, 1] result.
  Value residual = e.residual ? tcc::formation::reshapeTo(b, loc, e.residual, shape) : Value();
  // Channels-last images: oneDNN's int8 layout, so the call reorders
  // nothing; sinkLayoutTransposes cancels the transposes between kernels.
  SmallVector<int64_t> kernelShape(shape);
  if (channelsLast) {
    xq = tcc::formation::toChannelsLast(b, loc, xq);
    if (residual)
      residual = tcc::formation::toChannelsLast(b, loc, residual);
    kernelShape = tcc::formation::channelsLastShape(shape);
  }
  auto type = RankedTensorType::get(kernelShape, resultElt);
  // Only the batch (or a linear layer's rows) may be symbolic: the input's.
  Value init = tcc::formation::emptyTensor(
      b, loc, type, [&](int64_t d) -> Value { return tensor::DimOp::create(b, loc, xq, d); });
  auto op = kernel::QConvOp::create(
      b, loc, TypeRange{type}, xq, wq, scales, wZp, xZp, e.bias, residual, outScale, outZp, init,
      b.getDenseI64ArrayAttr(stride), b.getDenseI64ArrayAttr(padding),
      b.getDenseI64ArrayAttr(dilation), b.getI64IntegerAttr(groups),
      kernel::ActivationAttr::get(b.getContext(), e.activation),
      qmin, qmax, channelsLast ? b.getUnitAttr() : nullptr);
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] qconv at " << loc << "\n");
  Value result = op.getResult(0);
  if (channelsLast)
    result = tcc::formation::toChannelsFirst(b, loc, result);
  result = tcc::formation::reshapeTo(b, loc, result, resultShape);
  e.replaced.replaceAllUsesWith(result);
  SmallVector<Operation *> dead(fused);
  dead.append(e.ops.begin(), e.ops.end());
  tcc::formation::eraseDead(dead);
}

/// conv2d(dequantize(x), dequantize(w), bias) [relu] [quantize].
void formConv(graph::Conv2dOp conv) {
  graph::DequantizeOp xdq = activationDequantize(conv.getInput());
  graph::DequantizeOp wdq = weightDequantize(conv.getWeight());
  auto resultType = typeOf(conv.getResult());
  if (!xdq || !wdq || resultType.getRank() != 4 || typeOf(wdq.getInput()).getRank() != 4 ||
      !onlyLeadingDynamic(resultType) || !onlyLeadingDynamic(typeOf(conv.getInput())))
    return;
  int64_t filters = typeOf(wdq.getInput()).getDimSize(0);
  Epilogue e = matchEpilogue(conv.getResult(), conv.getBias(), filters, /*biasAdd=*/false);
  auto shape = typeOf(conv.getResult()).getShape();
  formQConv(xdq, wdq, xdq.getInput(), wdq.getInput(), conv.getStride(), conv.getPadding(),
            conv.getDilation(), conv.getGroups(), shape, shape, /*channelsLast=*/true, e,
            {conv});
}

/// matmul(dequantize(x) [..., K], transpose(dequantize(w) [N, K])) [+ bias]
/// [relu] [quantize]: linear, as the 1x1 convolution of [M, K, 1, 1].
void formLinear(graph::MatmulOp matmul) {
  graph::DequantizeOp xdq = activationDequantize(matmul.getLhs());
  Value wt = tcc::formation::transposeInput(matmul.getRhs(), {1, 0});
  graph::DequantizeOp wdq = wt ? weightDequantize(wt) : nullptr;
  auto resultType = typeOf(matmul.getResult());
  if (!xdq || !wdq || typeOf(wt).getRank() != 2 || !typeOf(wt).hasStaticShape() ||
      !onlyLeadingDynamic(resultType))
    return;
  int64_t n = typeOf(wt).getDimSize(0), k = typeOf(wt).getDimSize(1);
  // The rows: a symbolic leading dim makes them symbolic (one dynamic dim,
  // which the reshapes infer from the element count).
  int64_t m = resultType.hasStaticShape() ? resultType.getNumElements() / n : ShapedType::kDynamic;
  Epilogue e = matchEpilogue(matmul.getResult(), Value(), n, /*biasAdd=*/true);
  OpBuilder b(matmul);
  Location loc = matmul.getLoc();
  Value xq = tcc::formation::reshapeTo(b, loc, xdq.getInput(), {m, k, 1, 1});
  Value wq = tcc::formation::reshapeTo(b, loc, wdq.getInput(), {n, k, 1, 1});
  // [M, K, 1, 1] is channels-last already: no layout change.
  formQConv(xdq, wdq, xq, wq, {1, 1}, {0, 0}, {1, 1}, 1, {m, n, 1, 1},
            typeOf(e.replaced).getShape(), /*channelsLast=*/false, e,
            {matmul, matmul.getRhs().getDefiningOp()});
}

} // namespace

void tcc::formation::formQuantizedKernels(func::FuncOp func, bool cpuOnly) {
  if (cpuOnly) {
    SmallVector<Operation *> products;
    func.walk([&](Operation *op) {
      if (isa<graph::Conv2dOp, graph::MatmulOp>(op))
        products.push_back(op);
    });
    for (Operation *op : products) {
      if (auto conv = dyn_cast<graph::Conv2dOp>(op))
        formConv(conv);
      else
        formLinear(cast<graph::MatmulOp>(op));
    }
  }
  SmallVector<Operation *> left;
  func.walk([&](Operation *op) {
    if (isa<graph::QuantizeOp, graph::DequantizeOp>(op))
      left.push_back(op);
  });
  for (Operation *op : left)
    graph::decomposeWholeOp(op);
}
