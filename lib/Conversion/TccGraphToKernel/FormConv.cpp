//===- FormConv.cpp - convolutions and their epilogues into tcc_kernel.conv ===//
//
// Each 2-D tcc_graph.conv2d (f32, f16 or bf16; only the batch dim may be
// symbolic) becomes one tcc_kernel.conv with its padding, and with what
// follows it through single-use chains as its epilogue: a residual add of a
// tensor of the result's shape, then ReLU — a residual block's end, which is
// the order cuDNN's fused epilogue computes (activation last). A batch norm
// after the convolution was folded into its weight and bias before
// (tcc-fold-conv-affine). Other activations (ReLU6, SiLU, hardswish) stay
// tcc_graph ops and become one pointwise kernel after the call, except
// around a depthwise convolution tcc's own kernel computes: it applies them
// to its result and to its input (MatchActivation.cpp).
//
// Where tensor cores compute the convolution (f16/bf16 tensors, or f32 with
// TF32 in a model without grouped convolutions other than depthwise ones
// tcc's kernel takes), or the model permutes between the layouts itself
// (ConvNeXt), it is formed channels-last:
// NHWC is what their kernels read, and cuDNN would otherwise transpose
// around each call. For the CPU path alone (--target cpu) every f32
// convolution is channels-last, oneDNN's fastest layout, and takes any
// activation after it (oneDNN's post-ops). The layout changes are
// tcc_graph transposes around the kernel, which ChannelsLast.cpp then moves
// through the neighbouring ops until they cancel or reach the model's edges.
//
//===----------------------------------------------------------------------===//
#include "FormKernels.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccKernel/IR/TccKernelOps.h"

#include "tcc/Runtime/DepthwiseKernel.h"

#include "tcc/Conversion/WindowCount.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tcc-form-kernels"

using namespace mlir;
using namespace tcc::formation;
namespace graph = tcc::graph;
namespace kernel = tcc::kernel;

namespace {

struct ConvEpilogue {
  Value residual;
  kernel::Activation activation = kernel::Activation::none;
  SmallVector<Operation *> absorbed;
  Value replaced; ///< the value the kernel's result replaces
};

ConvEpilogue followEpilogue(graph::Conv2dOp conv) {
  ConvEpilogue e;
  e.replaced = conv.getResult();
  RankedTensorType type = typeOf(conv.getResult());
  while (e.replaced.hasOneUse()) {
    Operation *user = *e.replaced.getUsers().begin();
    if (auto add = dyn_cast<graph::AddOp>(user)) {
      Value other = add.getLhs() == e.replaced ? add.getRhs() : add.getLhs();
      if (e.residual || e.activation != kernel::Activation::none || other == e.replaced ||
          typeOf(other) != type || typeOf(add.getResult()) != type)
        break;
      e.residual = other;
    } else if (isa<graph::ReluOp>(user) && e.activation == kernel::Activation::none) {
      e.activation = kernel::Activation::relu;
    } else {
      break;
    }
    e.absorbed.push_back(user);
    e.replaced = user->getResult(0);
  }
  return e;
}

/// Whether the kernel takes `conv`: 2-D, a kernel element type, a static
/// weight and static channels (batch and spatial sizes may be symbolic: the
/// call reads them from the buffers at run time).
bool formable(graph::Conv2dOp conv) {
  auto xt = typeOf(conv.getInput()), wt = typeOf(conv.getWeight()), yt = typeOf(conv.getResult());
  if (xt.getRank() != 4 || wt.getRank() != 4 || !wt.hasStaticShape() ||
      !kernelElementType(yt.getElementType()))
    return false;
  return !xt.isDynamicDim(1) && !yt.isDynamicDim(1);
}

/// Whether tcc's own depthwise kernel computes `conv` (in either layout).
bool ownDepthwiseKernelTakes(graph::Conv2dOp conv) {
  auto wt = typeOf(conv.getWeight());
  ArrayRef<int64_t> stride = conv.getStride(), dilation = conv.getDilation();
  return tcc::depthwiseKernelTakes(typeOf(conv.getInput()).getDimSize(1), wt.getDimSize(0),
                                   conv.getGroups(), wt.getDimSize(2), wt.getDimSize(3),
                                   stride[0], stride[1], dilation[0], dilation[1]);
}

/// Whether the activations around `conv` go into its call: where tcc's
/// depthwise kernel computes it, which channels-last it always does. In NCHW
/// cuDNN competes (tcc_conv2d times both), and on H100 its kernels were 3-10x
/// faster than tcc's (whose blocks are 32x32 tiles of one plane) for outputs
/// under 28x28 and for strided windows (MobileNetV2 b32: 7x7 planes 16.6 us
/// against 108; 56x56 from 112x112 107 against 151; 56x56 stride 1 tcc's
/// 110 against 142): the activations stay pointwise kernels there.
bool takesActivations(graph::Conv2dOp conv, bool channelsLast) {
  if (!ownDepthwiseKernelTakes(conv))
    return false;
  if (channelsLast)
    return true;
  auto yt = typeOf(conv.getResult());
  return llvm::all_of(conv.getStride(), [](int64_t s) { return s == 1; }) &&
         !yt.isDynamicDim(2) && !yt.isDynamicDim(3) &&
         yt.getDimSize(2) * yt.getDimSize(3) >= 28 * 28;
}

/// Whether `v` is the input of an activation that a depthwise convolution
/// (formed later) will apply to its input: the activation's kernel goes
/// away, so a bias of v's convolution stays in that convolution's call.
bool feedsDepthwiseInput(Value v, bool channelsLast) {
  std::optional<ActivationMatch> m = matchActivationOf(v);
  if (!m || !m->result.hasOneUse())
    return false;
  auto next = dyn_cast<graph::Conv2dOp>(*m->result.getUsers().begin());
  return next && next.getInput() == m->result && formable(next) &&
         takesActivations(next, channelsLast);
}

/// How one convolution is formed: its layout, and which activations its
/// call computes.
struct ConvForm {
  bool channelsLast = false;
  /// The CPU path alone (oneDNN): any activation after the convolution goes
  /// into its epilogue, none into its input, and the bias stays in the call.
  bool cpuOnly = false;
};

void formConv(graph::Conv2dOp conv, ConvForm form) {
  const bool channelsLast = form.channelsLast;
  ConvEpilogue e = followEpilogue(conv);
  // tcc's depthwise kernel applies relu6, silu and hardswish too: after the
  // epilogue, and to its input (then the activation before a MobileNet or
  // EfficientNet depthwise layer is no kernel of its own). oneDNN's post-ops
  // apply them after any convolution.
  bool depthwise = !form.cpuOnly && takesActivations(conv, channelsLast);
  if ((depthwise || form.cpuOnly) && e.activation == kernel::Activation::none) {
    if (std::optional<ActivationMatch> m = matchActivationOf(e.replaced)) {
      e.activation = m->kind;
      e.absorbed.append(m->ops.begin(), m->ops.end());
      e.replaced = m->result;
    }
  }
  kernel::Activation inputActivation = kernel::Activation::none;
  SmallVector<Operation *> prologue;
  Value x = conv.getInput();
  if (depthwise) {
    std::optional<ActivationMatch> m = matchActivation(x);
    if (m && m->result.hasOneUse()) {
      inputActivation = m->kind;
      prologue = m->ops;
      x = m->input;
    }
  }
  Operation *last = e.absorbed.empty() ? conv.getOperation() : e.absorbed.back();
  OpBuilder b(last);
  SmallVector<Operation *> fused = prologue;
  fused.push_back(conv.getOperation());
  fused.append(e.absorbed.begin(), e.absorbed.end());
  Location loc = kernelLocation(fused);
  RankedTensorType type = typeOf(conv.getResult());
  Value weight = conv.getWeight(), residual = e.residual;
  // A bias alone (no residual, no ReLU) does not fuse into cuDNN's call with
  // most algorithms (a separate cudnnAddTensor pass over the output); when a
  // pointwise op reads the result next (MobileNet's ReLU6, EfficientNet's
  // SiLU), the bias is added in that op's kernel instead, for free. Only in
  // f32: a half result would be rounded before the bias is added, where
  // PyTorch rounds the sum once (one bf16 ulp apart).
  Value bias = conv.getBias(), laterBias;
  if (!form.cpuOnly && bias && !residual && e.activation == kernel::Activation::none &&
      type.getElementType().isF32() &&
      e.replaced.hasOneUse() && isPointwise(*e.replaced.getUsers().begin()) &&
      !feedsDepthwiseInput(e.replaced, channelsLast)) {
    laterBias = bias;
    bias = nullptr;
  }
  if (channelsLast) {
    x = toChannelsLast(b, loc, x);
    weight = toChannelsLast(b, loc, weight);
    if (residual)
      residual = toChannelsLast(b, loc, residual);
    type = RankedTensorType::get(channelsLastShape(type.getShape()), type.getElementType());
  }
  // A symbolic output size: the batch is the input's; a spatial size is
  // the number of windows over the input's size at run time (a stride-2
  // stem halves a symbolic length).
  auto wt = typeOf(conv.getWeight());
  Value init = emptyTensor(b, loc, type, [&](int64_t d) -> Value {
    Value in = tensor::DimOp::create(b, loc, x, d);
    int64_t spatial = channelsLast ? d - 1 : d - 2;
    if (spatial < 0 || spatial > 1)
      return in;
    return tcc::windowCount(b, loc, in, wt.getDimSize(2 + spatial), conv.getPadding()[spatial],
                            conv.getStride()[spatial], conv.getDilation()[spatial]);
  });
  auto op = kernel::ConvOp::create(
      b, loc, TypeRange{type}, x, weight, bias, residual, init, conv.getStrideAttr(),
      conv.getPaddingAttr(), conv.getDilationAttr(), conv.getGroupsAttr(),
      kernel::ActivationAttr::get(b.getContext(), e.activation),
      kernel::ActivationAttr::get(b.getContext(), inputActivation),
      channelsLast ? b.getUnitAttr() : nullptr);
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] conv at " << loc << ": " << e.absorbed.size()
                          << " epilogue ops" << (channelsLast ? ", channels-last" : "") << "\n");
  Value result = op.getResult(0);
  if (channelsLast)
    result = toChannelsFirst(b, loc, result);
  if (laterBias) {
    int64_t f = typeOf(laterBias).getDimSize(0);
    Value perChannel = reshapeTo(b, loc, laterBias, {f, 1, 1});
    result = graph::AddOp::create(b, loc, typeOf(result), result, perChannel);
  }
  e.replaced.replaceAllUsesWith(result);
  eraseDead(fused);
}

} // namespace

void tcc::formation::formConvKernels(func::FuncOp func, bool f32TensorCores, bool cpuOnly) {
  SmallVector<graph::Conv2dOp> convs;
  func.walk([&](graph::Conv2dOp op) {
    if (formable(op))
      convs.push_back(op);
  });
  // f32 grouped convolutions gain nothing from TF32, and cuDNN's channels-last
  // f32 grouped kernels are slow (238 us per depthwise layer of MobileNetV2
  // b32 on an H100 against 41 us NCHW). Depthwise ones run on tcc's own
  // kernel in either layout; a model with any other keeps NCHW throughout
  // (one layout change per such layer would cost more).
  bool groupedF32 = llvm::any_of(convs, [](graph::Conv2dOp c) {
    return c.getGroups() > 1 && typeOf(c.getResult()).getElementType().isF32() &&
           !ownDepthwiseKernelTakes(c);
  });
  // Without tensor cores NCHW is cuDNN's faster f32 layout, except in a model
  // that itself permutes between the layouts (ConvNeXt computes its LayerNorm
  // and MLP channels-last): there channels-last convolutions cancel its
  // permutes, which would otherwise each be a copy of a whole activation.
  bool permutesLayouts = false;
  func.walk([&](graph::TransposeOp t) {
    ArrayRef<int64_t> p = t.getPermutation();
    permutesLayouts |= p == ArrayRef<int64_t>{0, 2, 3, 1} || p == ArrayRef<int64_t>{0, 3, 1, 2};
  });
  bool f32ChannelsLast = (f32TensorCores || permutesLayouts) && !groupedF32;
  // On the CPU alone, oneDNN's channels-last kernels (brgconv) are 1.3-1.5x
  // faster than its NCHW ones (an im2col GEMM), and 2-19x for depthwise
  // layers (ResNet-18 and MobileNetV2 layers, one core of the build machine).
  if (cpuOnly)
    f32ChannelsLast = true;
  for (graph::Conv2dOp conv : convs) {
    Type elt = typeOf(conv.getResult()).getElementType();
    formConv(conv, {!elt.isF32() || f32ChannelsLast, cpuOnly && elt.isF32()});
  }
}
