//===- TccKernelOps.cpp - tcc_kernel verifiers and memory effects ---------===//
#include "dialects/TccKernel/IR/TccKernelOps.h"
#include "tcc/Support/IndexCopyShapes.h"
#include "tcc/Support/RecurrentShapes.h"
#include "tcc/Runtime/DepthwiseKernel.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

#include <array>

using namespace mlir;
using namespace tcc::kernel;

#include "dialects/TccKernel/IR/TccKernelEnums.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/TccKernel/IR/TccKernelOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared by the verifiers
//===----------------------------------------------------------------------===//

static ShapedType shapedOf(Value v) { return cast<ShapedType>(v.getType()); }

/// Sizes agree unless one is dynamic.
static bool sameSize(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

static bool sameShape(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  return a.size() == b.size() &&
         llvm::all_of(llvm::zip(a, b), [](auto p) { return sameSize(std::get<0>(p), std::get<1>(p)); });
}

/// All shaped operands are tensors (then each init has a result of its type)
/// or all are memrefs (then there are no results).
static LogicalResult verifyDestinationStyle(Operation *op) {
  auto dps = cast<DestinationStyleOpInterface>(op);
  bool tensors = isa<RankedTensorType>(op->getOperand(0).getType());
  for (Value v : op->getOperands())
    if (isa<RankedTensorType>(v.getType()) != tensors || !isa<ShapedType>(v.getType()) ||
        (!tensors && !isa<MemRefType>(v.getType())))
      return op->emitOpError("operands must be all ranked tensors or all memrefs");
  if (!tensors) {
    if (op->getNumResults())
      return op->emitOpError("on memrefs has no results");
    return success();
  }
  if (op->getNumResults() != static_cast<unsigned>(dps.getNumDpsInits()))
    return op->emitOpError("on tensors has one result per init, got ")
           << op->getNumResults() << " for " << dps.getNumDpsInits();
  for (auto [init, result] : llvm::zip(dps.getDpsInits(), op->getResults()))
    if (init.getType() != result.getType())
      return op->emitOpError("result type ") << result.getType() << " differs from its init "
                                             << init.getType();
  return success();
}

/// Reads of the inputs, writes of the inits, on memrefs only (on tensors the
/// op is pure).
static void getDestinationStyleEffects(
    Operation *op, SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  auto dps = cast<DestinationStyleOpInterface>(op);
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    if (dps.isDpsInit(&operand))
      effects.emplace_back(MemoryEffects::Write::get(), &operand, SideEffects::DefaultResource::get());
    else
      effects.emplace_back(MemoryEffects::Read::get(), &operand, SideEffects::DefaultResource::get());
  }
}

static std::string shapeText(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
  return s + "]";
}

//===----------------------------------------------------------------------===//
// gemm
//===----------------------------------------------------------------------===//

LogicalResult GemmOp::verify() {
  if (failed(verifyDestinationStyle(*this)))
    return failure();
  ShapedType a = shapedOf(getA()), b = shapedOf(getB()), c = shapedOf(getInit());
  Type elt = c.getElementType();
  if (!isa<FloatType>(elt))
    return emitOpError("computes on floats, got ") << elt;
  for (Value v : {getA(), getB(), getBias(), getResidual()})
    if (v && shapedOf(v).getElementType() != elt)
      return emitOpError("operands must have the result's element type ") << elt;
  if (a.getRank() < 2 || b.getRank() < 2 || c.getRank() < 2)
    return emitOpError("operands and result must have rank >= 2");
  auto as = a.getShape(), bs = b.getShape(), cs = c.getShape();
  int64_t m = getTransposeA() ? as.back() : as[as.size() - 2];
  int64_t ka = getTransposeA() ? as[as.size() - 2] : as.back();
  int64_t kb = getTransposeB() ? bs.back() : bs[bs.size() - 2];
  int64_t n = getTransposeB() ? bs[bs.size() - 2] : bs.back();
  if (!sameSize(ka, kb))
    return emitOpError("contracts ") << ka << " with " << kb << " terms";
  if (!sameSize(m, cs[cs.size() - 2]) || !sameSize(n, cs.back()))
    return emitOpError("result ") << shapeText(cs) << " is not [..., " << m << ", " << n << "]";
  // Batch dims of a and b broadcast to the result's.
  auto batchOf = [](ArrayRef<int64_t> s) { return s.drop_back(2); };
  for (ArrayRef<int64_t> operand : {batchOf(as), batchOf(bs)}) {
    ArrayRef<int64_t> out = batchOf(cs);
    if (operand.size() > out.size())
      return emitOpError("operand batch ") << shapeText(operand) << " has more dims than the result's "
                                           << shapeText(out);
    for (auto [i, d] : llvm::enumerate(operand)) {
      int64_t o = out[out.size() - operand.size() + i];
      if (d != 1 && !sameSize(d, o))
        return emitOpError("operand batch ") << shapeText(operand) << " does not broadcast to "
                                             << shapeText(out);
    }
  }
  if (Value bias = getBias()) {
    auto bt = shapedOf(bias);
    if (bt.getRank() != 1 || !sameSize(bt.getDimSize(0), n))
      return emitOpError("bias must be [") << n << "], got " << shapeText(bt.getShape());
  }
  // gelu_erf: the CPU path's (oneDNN's post-op); cuBLASLt has the tanh form
  // only, and formation gives it to programs compiled for the CPU alone.
  if (getActivation() != Activation::none && getActivation() != Activation::relu &&
      getActivation() != Activation::gelu_tanh && getActivation() != Activation::gelu_erf)
    return emitOpError("takes relu, gelu_tanh or gelu_erf as its activation, got ")
           << stringifyActivation(getActivation());
  if (Value residual = getResidual()) {
    if (!sameShape(shapedOf(residual).getShape(), cs))
      return emitOpError("residual must have the result's shape ") << shapeText(cs);
    if (getActivation() != Activation::none)
      return emitOpError("a residual add cannot follow an activation in one epilogue");
  }
  return success();
}

void GemmOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  getDestinationStyleEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

DictionaryAttr AttentionOp::getView(Tensor tensor) {
  ArrayAttr views = getViewsAttr();
  if (!views || views.size() != 4)
    return nullptr;
  return dyn_cast<DictionaryAttr>(views[tensor]);
}

SmallVector<int64_t> AttentionOp::getCanonicalShape(Tensor tensor) {
  if (DictionaryAttr view = getView(tensor))
    if (auto sizes = view.getAs<DenseI64ArrayAttr>("sizes"))
      return SmallVector<int64_t>(sizes.asArrayRef());
  ::mlir::Value v = tensor == QueryTensor ? getQuery() : tensor == KeyTensor ? getKey()
                   : tensor == ValueTensor ? getValue() : getInit();
  SmallVector<int64_t> s(shapedOf(v).getShape());
  if (s.size() == 4 && getBshd().size() == 4 && getBshd()[tensor])
    std::swap(s[1], s[2]);
  return s;
}

LogicalResult AttentionOp::verify() {
  if (failed(verifyDestinationStyle(*this)))
    return failure();
  if (getBshd().size() != 4)
    return emitOpError("bshd needs one entry for each of query, key, value and result");
  if (ArrayAttr views = getViewsAttr()) {
    if (views.size() != 4)
      return emitOpError("views needs one entry for each of query, key, value and result");
    for (auto [i, entry] : llvm::enumerate(views)) {
      if (isa<UnitAttr>(entry))
        continue;
      auto view = dyn_cast<DictionaryAttr>(entry);
      auto sizes = view ? view.getAs<DenseI64ArrayAttr>("sizes") : nullptr;
      auto strides = view ? view.getAs<DenseI64ArrayAttr>("strides") : nullptr;
      auto offset = view ? view.getAs<IntegerAttr>("offset") : nullptr;
      if (!sizes || !strides || !offset || sizes.size() != 4 || strides.size() != 4)
        return emitOpError("a view is {sizes, strides, offset} with 4 sizes and strides");
      ::mlir::Value base = i == 0 ? getQuery() : i == 1 ? getKey() : i == 2 ? getValue() : getInit();
      auto bt = shapedOf(base);
      if (!bt.hasStaticShape())
        return emitOpError("a viewed tensor needs a static shape");
      if (getBshd()[i])
        return emitOpError("a tensor with a view is not bshd");
      if (strides[3] != 1 && sizes[3] != 1)
        return emitOpError("a view's head dim must be contiguous (stride 1)");
      int64_t last = offset.getInt();
      for (int64_t d = 0; d < 4; ++d) {
        if (sizes[d] < 1 || strides[d] < 0)
          return emitOpError("a view needs positive sizes and non-negative strides");
        last += (sizes[d] - 1) * strides[d];
      }
      if (offset.getInt() < 0 || last >= bt.getNumElements())
        return emitOpError("view reads element ") << last << " of a tensor of "
                                                  << bt.getNumElements();
    }
  }
  Type elt = shapedOf(getQuery()).getElementType();
  if (!isa<FloatType>(elt))
    return emitOpError("computes on floats, got ") << elt;
  for (auto [i, v] : llvm::enumerate(SmallVector<::mlir::Value>{getQuery(), getKey(), getValue(), getInit()})) {
    if (shapedOf(v).getRank() != 4 && !getView(static_cast<Tensor>(i)))
      return emitOpError("query, key, value and result must have rank 4");
    if (shapedOf(v).getElementType() != elt)
      return emitOpError("query, key, value and result must have one element type");
  }
  auto q = getCanonicalShape(QueryTensor), k = getCanonicalShape(KeyTensor),
       v = getCanonicalShape(ValueTensor), o = getCanonicalShape(ResultTensor);
  if (!sameSize(q[0], k[0]) || !sameSize(q[0], v[0]) || !sameSize(q[0], o[0]))
    return emitOpError("query, key, value and result must have one batch size");
  if (!sameSize(q[3], k[3]))
    return emitOpError("query and key head sizes differ: ") << q[3] << " and " << k[3];
  if (!sameSize(k[2], v[2]) || !sameSize(k[1], v[1]))
    return emitOpError("key ") << shapeText(k) << " and value " << shapeText(v)
                               << " must agree on heads and length";
  if (!sameSize(q[1], o[1]) || !sameSize(q[2], o[2]) || !sameSize(v[3], o[3]))
    return emitOpError("result ") << shapeText(o) << " must be [B, H, Lq, Dv] for query "
                                  << shapeText(q) << " and value " << shapeText(v);
  if (!ShapedType::isDynamic(q[1]) && !ShapedType::isDynamic(k[1]) && (k[1] == 0 || q[1] % k[1]))
    return emitOpError("key/value heads (") << k[1] << ") must divide query heads (" << q[1] << ")";
  if (::mlir::Value mask = getMask()) {
    ShapedType mt = shapedOf(mask);
    if (!mt.getElementType().isInteger(1) && mt.getElementType() != elt)
      return emitOpError("mask must be i1 or ") << elt << ", got " << mt.getElementType();
    SmallVector<int64_t> full = {q[0], q[1], q[2], k[2]};
    if (mt.getRank() > 5)
      return emitOpError("mask has more than 5 dims");
    if (mt.getRank() == 5) {
      // [B / P, P, H, Lq, Lk]: the batch split by P, the static dim 1.
      int64_t p = mt.getDimSize(1);
      if (ShapedType::isDynamic(p) || p < 2 || (!ShapedType::isDynamic(q[0]) && q[0] % p))
        return emitOpError("5-D mask ") << shapeText(mt.getShape())
                                         << " must split the batch (" << q[0]
                                         << ") by a static dim 1 above 1 that divides it";
      full = {ShapedType::isDynamic(q[0]) ? ShapedType::kDynamic : q[0] / p, p, q[1], q[2], k[2]};
    }
    for (auto [i, d] : llvm::enumerate(mt.getShape())) {
      int64_t f = full[full.size() - mt.getRank() + i];
      if (d != 1 && !sameSize(d, f))
        return emitOpError("mask ") << shapeText(mt.getShape()) << " does not broadcast to "
                                    << shapeText(full);
    }
  }
  return success();
}

void AttentionOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  getDestinationStyleEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// row
//===----------------------------------------------------------------------===//

LogicalResult RowOp::verify() {
  if (failed(verifyDestinationStyle(*this)))
    return failure();
  ShapedType in = shapedOf(getInput());
  if (!isa<FloatType>(in.getElementType()) || !isa<FloatType>(shapedOf(getInit()).getElementType()))
    return emitOpError("computes on floats");
  int64_t dims = getNumDims();
  if (dims < 1 || dims > in.getRank())
    return emitOpError("normalizes ") << dims << " trailing dims of a rank-" << in.getRank()
                                      << " input";
  if (getInits().size() > 2)
    return emitOpError("has at most two outputs (the result and the sum)");
  if (!sameShape(shapedOf(getInit()).getShape(), in.getShape()))
    return emitOpError("result must have the input's shape ") << shapeText(in.getShape());
  if (Value residual = getResidual())
    if (shapedOf(residual).getElementType() != in.getElementType() ||
        !sameShape(shapedOf(residual).getShape(), in.getShape()))
      return emitOpError("residual must have the input's shape and element type");
  if (Value sum = getSumInit()) {
    if (!getResidual())
      return emitOpError("a sum output needs a residual");
    if (shapedOf(sum).getElementType() != in.getElementType() ||
        !sameShape(shapedOf(sum).getShape(), in.getShape()))
      return emitOpError("sum output must have the input's shape and element type");
  }
  ArrayRef<int64_t> row = in.getShape().take_back(dims);
  for (Value param : {getWeight(), getBias()}) {
    if (!param)
      continue;
    if (!isNormalization())
      return emitOpError("only normalizations take a weight or bias");
    if (!isa<FloatType>(shapedOf(param).getElementType()) ||
        !sameShape(shapedOf(param).getShape(), row))
      return emitOpError("weight and bias must be floats of the row's shape ") << shapeText(row);
  }
  if (getBias() && getKind() != RowKind::layer_norm)
    return emitOpError("only layer_norm takes a bias");
  if (getWeight() && getBias() &&
      shapedOf(getWeight()).getElementType() != shapedOf(getBias()).getElementType())
    return emitOpError("weight and bias must have one element type");
  return success();
}

void RowOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  getDestinationStyleEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// scatter
//===----------------------------------------------------------------------===//

DictionaryAttr ScatterOp::getSourceView(unsigned t) {
  ArrayAttr views = getSourceViewsAttr();
  if (!views || t >= views.size())
    return nullptr;
  return dyn_cast<DictionaryAttr>(views[t]);
}

SmallVector<int64_t> ScatterOp::getSourceShape(unsigned t) {
  if (DictionaryAttr view = getSourceView(t))
    if (auto sizes = view.getAs<DenseI64ArrayAttr>("sizes"))
      return llvm::to_vector(sizes.asArrayRef());
  return llvm::to_vector(shapedOf(getSources()[t]).getShape());
}

/// Why `view` cannot be a view of `base` (empty if it can).
static std::string sourceViewError(DictionaryAttr view, ShapedType base) {
  auto sizes = view.getAs<DenseI64ArrayAttr>("sizes");
  auto strides = view.getAs<DenseI64ArrayAttr>("strides");
  auto offset = view.getAs<IntegerAttr>("offset");
  if (!sizes || !strides || !offset || sizes.size() != strides.size())
    return "a source view needs sizes and strides of one rank and an offset";
  if (!base.hasStaticShape())
    return "a source view needs a source of static shape";
  // The view stays inside the base's storage.
  int64_t first = offset.getInt(), last = offset.getInt();
  for (auto [size, stride] : llvm::zip(sizes.asArrayRef(), strides.asArrayRef())) {
    if (size < 0)
      return "source view sizes must be static";
    if (size == 0)
      return "";
    (stride < 0 ? first : last) += (size - 1) * stride;
  }
  if (first < 0 || last >= base.getNumElements())
    return "a source view reaches outside its base's " + std::to_string(base.getNumElements()) +
           " elements";
  return "";
}

LogicalResult ScatterOp::verify() {
  if (failed(verifyDestinationStyle(*this)))
    return failure();
  if (getSources().empty() || getSources().size() != getInits().size())
    return emitOpError("needs one init per source, and at least one source; got ")
           << getSources().size() << " sources and " << getInits().size() << " inits";
  ShapedType index = shapedOf(getIndex());
  if (!isa<IntegerType>(index.getElementType()))
    return emitOpError("the index must be integers, got ") << index.getElementType();
  ArrayAttr views = getSourceViewsAttr();
  if (views && views.size() != getSources().size())
    return emitOpError("source_views needs one entry per source");
  for (unsigned t = 0; t < getSources().size(); ++t) {
    ShapedType source = shapedOf(getSources()[t]), init = shapedOf(getInits()[t]);
    if (source.getElementType() != init.getElementType())
      return emitOpError("source and init ") << t << " must have one element type";
    if (DictionaryAttr view = getSourceView(t)) {
      std::string error = sourceViewError(view, source);
      if (!error.empty())
        return emitOpError(error);
    } else if (views && !isa<UnitAttr>(views[t])) {
      return emitOpError("a source_views entry is unit or {sizes, strides, offset}");
    }
    if (getSourceShape(t) != getSourceShape(0))
      return emitOpError("every source must have one shape");
    std::string error =
        tcc::indexCopyShapeError(init.getShape(), index.getShape(), getSourceShape(t), getDim());
    if (!error.empty())
      return emitOpError(error);
  }
  return success();
}

void ScatterOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  getDestinationStyleEffects(*this, effects);
  // What it does not write of its inits stays: the inits are read too.
  for (OpOperand &init : getInitsMutable())
    if (isa<MemRefType>(init.get().getType()))
      effects.emplace_back(MemoryEffects::Read::get(), &init, SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// conv
//===----------------------------------------------------------------------===//

/// A 2-D convolution's stride, padding and dilation: one value per spatial
/// dim, stride and dilation >= 1, padding >= 0 (conv and qconv).
static LogicalResult verifyWindow(Operation *op, ArrayRef<int64_t> stride,
                                  ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation) {
  for (ArrayRef<int64_t> pair : {stride, padding, dilation})
    if (pair.size() != 2)
      return op->emitOpError("stride, padding and dilation need one value per spatial dim");
  if (llvm::any_of(stride, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(dilation, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(padding, [](int64_t v) { return v < 0; }))
    return op->emitOpError("stride and dilation must be >= 1, padding >= 0");
  return success();
}

/// A convolution's result sizes against its input's: spatial dim i (at
/// position spatialDim(i) in input and result) is
/// (in + 2 pad - dilation (k - 1) - 1) / stride + 1 for the kernel size
/// `kernel[i]`, wherever all three sizes are static (conv and qconv).
static LogicalResult verifyConvolutionSizes(Operation *op, ArrayRef<int64_t> xs,
                                            ArrayRef<int64_t> ys, std::array<int64_t, 2> kernel,
                                            llvm::function_ref<int64_t(int)> spatialDim,
                                            ArrayRef<int64_t> padding, ArrayRef<int64_t> stride,
                                            ArrayRef<int64_t> dilation) {
  for (int i = 0; i < 2; ++i) {
    int64_t d = spatialDim(i);
    int64_t in = xs[d], k = kernel[i];
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(k) || ShapedType::isDynamic(ys[d]))
      continue;
    int64_t out = (in + 2 * padding[i] - dilation[i] * (k - 1) - 1) / stride[i] + 1;
    if (out != ys[d])
      return op->emitOpError("spatial dim ") << i << " of the result is " << ys[d]
                                             << ", expected " << out;
  }
  return success();
}

LogicalResult ConvOp::verify() {
  if (failed(verifyDestinationStyle(*this)))
    return failure();
  ShapedType x = shapedOf(getInput()), w = shapedOf(getWeight()), y = shapedOf(getInit());
  Type elt = y.getElementType();
  if (!isa<FloatType>(elt))
    return emitOpError("computes on floats, got ") << elt;
  for (Value v : {getInput(), getWeight(), getBias(), getResidual()})
    if (v && shapedOf(v).getElementType() != elt)
      return emitOpError("operands must have the result's element type ") << elt;
  if (x.getRank() != 4 || w.getRank() != 4 || y.getRank() != 4)
    return emitOpError("input, weight and result must be 4-D (NCHW, FCRS, NFHW; or NHWC, FRSC, NHWF)");
  if (failed(verifyWindow(*this, getStride(), getPadding(), getDilation())))
    return failure();
  int64_t groups = getGroups();
  auto xs = x.getShape(), ws = w.getShape(), ys = y.getShape();
  int64_t ch = getChannelDim();
  const char *resultLayout = getChannelsLast() ? "[N, OH, OW, F]" : "[N, F, OH, OW]";
  if (groups < 1 || (!ShapedType::isDynamic(xs[ch]) && xs[ch] % groups) ||
      (!ShapedType::isDynamic(ws[0]) && ws[0] % groups))
    return emitOpError("groups ") << groups << " must divide the input's channels " << xs[ch]
                                  << " and the filters " << ws[0];
  if (!sameSize(ys[0], xs[0]) || !sameSize(ys[ch], ws[0]))
    return emitOpError("result ") << shapeText(ys) << " must be " << resultLayout << " for input "
                                  << shapeText(xs) << " and weight " << shapeText(ws);
  if (!ShapedType::isDynamic(xs[ch]) && !sameSize(ws[ch], xs[ch] / groups))
    return emitOpError("weight ") << shapeText(ws) << " must have " << xs[ch] / groups
                                  << " input channels per group";
  if (failed(verifyConvolutionSizes(getOperation(), xs, ys, {ws[getSpatialDim(0)],
                                                           ws[getSpatialDim(1)]},
                                     [&](int i) { return getSpatialDim(i); }, getPadding(),
                                     getStride(), getDilation())))
    return failure();
  if (Value bias = getBias()) {
    auto bt = shapedOf(bias);
    if (bt.getRank() != 1 || !sameSize(bt.getDimSize(0), ws[0]))
      return emitOpError("bias must be [") << ws[0] << "], got " << shapeText(bt.getShape());
  }
  if (Value residual = getResidual())
    if (!sameShape(shapedOf(residual).getShape(), ys))
      return emitOpError("residual must have the result's shape ") << shapeText(ys);
  Activation act = getActivation(), in = getInputActivation();
  for (Activation gelu : {Activation::gelu_tanh, Activation::gelu_erf})
    if (act == gelu || in == gelu)
      return emitOpError("takes no ") << stringifyActivation(gelu) << " activation";
  // An activation on the input only where tcc's depthwise kernel computes the
  // convolution. relu6, silu and hardswish after any convolution: the CPU
  // path's oneDNN post-ops and tcc's depthwise kernel compute them; cuDNN
  // takes relu only, so formation gives them to the CUDA path's depthwise
  // kernel convolutions alone (tcc_conv2d refuses others, naming them).
  if (in != Activation::none && !isDepthwiseKernelConv())
    return emitOpError("takes ") << stringifyActivation(in)
                                 << " on its input only as a depthwise convolution tcc's kernel "
                                    "computes";
  return success();
}

bool ConvOp::isDepthwiseKernelConv() {
  ShapedType x = shapedOf(getInput()), w = shapedOf(getWeight());
  int64_t ch = getChannelDim();
  ArrayRef<int64_t> stride = getStride(), dilation = getDilation();
  if (x.getRank() != 4 || w.getRank() != 4 || x.isDynamicDim(ch) || stride.size() != 2 ||
      dilation.size() != 2)
    return false;
  return tcc::depthwiseKernelTakes(x.getDimSize(ch), w.getDimSize(0), getGroups(),
                                   w.getDimSize(getSpatialDim(0)), w.getDimSize(getSpatialDim(1)),
                                   stride[0], stride[1], dilation[0], dilation[1]);
}

void ConvOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  getDestinationStyleEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// qconv
//===----------------------------------------------------------------------===//

LogicalResult QConvOp::verify() {
  if (failed(verifyDestinationStyle(*this)))
    return failure();
  ShapedType x = shapedOf(getInput()), w = shapedOf(getWeight()), y = shapedOf(getInit());
  auto isInt = [](ShapedType t, unsigned width) { return t.getElementType().isInteger(width); };
  if (!isInt(x, 8) || !isInt(w, 8) || w.getElementType().isUnsignedInteger())
    return emitOpError("takes a u8 or s8 input and an s8 weight");
  if (x.getRank() != 4 || w.getRank() != 4 || y.getRank() != 4)
    return emitOpError("input, weight and result must be 4-D (NCHW or NHWC, FCRS, NFHW or NHWF)");
  bool requantized = getOutputScale() != nullptr;
  if (requantized != (getOutputZeroPoint() != nullptr))
    return emitOpError("requantizes with an output scale and zero point, or neither");
  if (requantized ? !isInt(y, 8) : !y.getElementType().isF32())
    return emitOpError(requantized ? "requantizes to u8 or s8" : "without requantization gives f32");
  if (failed(verifyWindow(*this, getStride(), getPadding(), getDilation())))
    return failure();
  int64_t groups = getGroups(), ch = getChannelDim();
  auto xs = x.getShape(), ws = w.getShape(), ys = y.getShape();
  if (groups < 1 || (!ShapedType::isDynamic(xs[ch]) && xs[ch] % groups) ||
      (!ShapedType::isDynamic(ws[0]) && ws[0] % groups))
    return emitOpError("groups ") << groups << " must divide the input's channels " << xs[ch]
                                  << " and the filters " << ws[0];
  if (!sameSize(ys[0], xs[0]) || !sameSize(ys[ch], ws[0]) ||
      (!ShapedType::isDynamic(xs[ch]) && !sameSize(ws[1], xs[ch] / groups)))
    return emitOpError("result ") << shapeText(ys) << " does not fit input " << shapeText(xs)
                                  << " and weight " << shapeText(ws);
  if (failed(verifyConvolutionSizes(getOperation(), xs, ys, {ws[2], ws[3]},
                                     [&](int i) { return getSpatialDim(i); }, getPadding(),
                                     getStride(), getDilation())))
    return failure();
  auto perFilter = [&](Value v, bool isFloat) {
    ShapedType t = shapedOf(v);
    return t.getRank() == 1 && sameSize(t.getDimSize(0), ws[0]) &&
           (isFloat ? t.getElementType().isF32() : t.getElementType().isInteger(64));
  };
  auto scalar = [](Value v, bool isFloat) {
    ShapedType t = shapedOf(v);
    return t.getRank() == 0 && (isFloat ? t.getElementType().isF32() : t.getElementType().isInteger(64));
  };
  if (!perFilter(getScales(), true) || !perFilter(getWeightZeroPoints(), false) ||
      (getBias() && !perFilter(getBias(), true)))
    return emitOpError("scales and bias must be f32 [") << ws[0] << "], weight zero points i64";
  if (Value residual = getResidual())
    if (!shapedOf(residual).getElementType().isF32() ||
        !sameShape(shapedOf(residual).getShape(), ys))
      return emitOpError("residual must be f32 of the result's shape ") << shapeText(ys);
  if (!scalar(getInputZeroPoint(), false) ||
      (requantized && (!scalar(getOutputScale(), true) || !scalar(getOutputZeroPoint(), false))))
    return emitOpError("input and output zero points must be rank-0 i64, the output scale f32");
  Activation act = getActivation();
  if (act != Activation::none && act != Activation::relu && act != Activation::gelu_erf)
    return emitOpError("takes no ") << stringifyActivation(act) << " activation";
  int64_t qmin = getQuantMinAttr().getInt(), qmax = getQuantMaxAttr().getInt();
  bool unsignedResult = y.getElementType().isUnsignedInteger();
  if (requantized && (qmin > qmax || qmin < (unsignedResult ? 0 : -128) ||
                      qmax > (unsignedResult ? 255 : 127)))
    return emitOpError("quant range [") << qmin << ", " << qmax << "] does not fit "
                                        << y.getElementType();
  return success();
}

void QConvOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  getDestinationStyleEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// rnn
//===----------------------------------------------------------------------===//

LogicalResult RnnOp::verify() {
  if (failed(verifyDestinationStyle(*this)))
    return failure();
  std::string error = tcc::recurrentOpError(
      stringifyRnnMode(getMode()), getNumLayers(), getBidirectional(), getBatchFirst(),
      getHasBiases(), getInput(), getH0(), getC0(), getWeights(), getInits());
  if (!error.empty())
    return emitOpError(error);
  for (Value v : getOperands())
    if (!shapedOf(v).getElementType().isF32())
      return emitOpError("computes f32 tensors only, got ") << shapedOf(v).getElementType();
  return success();
}

int64_t RnnOp::getHiddenSize() {
  auto sizes = tcc::recurrentHiddenSizes(tcc::recurrentGates(stringifyRnnMode(getMode())),
                                         shapedOf(getWeights()[1]).getShape());
  return sizes ? sizes->first : 0;
}

int64_t RnnOp::getStateSize() {
  auto sizes = tcc::recurrentHiddenSizes(tcc::recurrentGates(stringifyRnnMode(getMode())),
                                         shapedOf(getWeights()[1]).getShape());
  return sizes ? sizes->second : 0;
}

void RnnOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  getDestinationStyleEffects(*this, effects);
}
