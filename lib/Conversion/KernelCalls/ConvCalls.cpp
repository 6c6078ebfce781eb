//===- ConvCalls.cpp - tcc_kernel.conv as a tcc_conv2d call (cuDNN) -------===//
//
// One call per convolution with its padding, epilogue (bias, residual, an
// activation) and input activation. Input, output and residual may be views of larger buffers (channel
// slices of a concatenation's buffer, the interior of a padded one): their
// strides are passed, in batch, channel, row, column order whatever the
// layout, read from the planned memrefs at run time.
//
//===----------------------------------------------------------------------===//
#include "KernelCalls.h"

#include "tcc/Runtime/CudnnConv.h"
#include "tcc/Transforms/BufferMetadata.h"
#include "tcc/Transforms/PlannedEntry.h"

using namespace mlir;
using namespace tcc::kernelcalls;
namespace kernel = tcc::kernel;

namespace {

/// The runtime's code for a convolution's activation (the verifier allows no
/// gelu_tanh).
int32_t activationCode(kernel::Activation a) {
  switch (a) {
  case kernel::Activation::relu:
    return tcc::kConvActivationRelu;
  case kernel::Activation::relu6:
    return tcc::kConvActivationRelu6;
  case kernel::Activation::silu:
    return tcc::kConvActivationSilu;
  case kernel::Activation::hardswish:
    return tcc::kConvActivationHardswish;
  default:
    return tcc::kConvActivationNone;
  }
}

} // namespace

void tcc::kernelcalls::lowerConv(OpBuilder &b, kernel::ConvOp op, const CallContext &ctx,
                               abi::EntryId entry) {
  Location loc = op.getLoc();
  CallBuilder cb{b, loc, {}};
  BufferMetadata x = readBufferMetadata(b, loc, op.getInput());
  BufferMetadata w = readBufferMetadata(b, loc, op.getWeight());
  BufferMetadata y = readBufferMetadata(b, loc, op.getInit());
  std::optional<BufferMetadata> z;
  if (op.getResidual())
    z = readBufferMetadata(b, loc, op.getResidual());
  Value bias = op.getBias() ? readBufferMetadata(b, loc, op.getBias()).pointer : cb.null();
  ArrayRef<int64_t> pad = op.getPadding(), stride = op.getStride(), dilation = op.getDilation();
  int64_t cd = op.getChannelDim(), hd = op.getSpatialDim(0), wd = op.getSpatialDim(1);
  cb.add({cb.i64(x.sizes[0]), cb.i64(x.sizes[cd]), cb.i64(x.sizes[hd]), cb.i64(x.sizes[wd]),
          cb.i64(w.sizes[0]), cb.i64(w.sizes[hd]), cb.i64(w.sizes[wd]), cb.i64(y.sizes[hd]),
          cb.i64(y.sizes[wd])});
  cb.add({cb.i64(pad[0]), cb.i64(pad[1]), cb.i64(stride[0]), cb.i64(stride[1]),
          cb.i64(dilation[0]), cb.i64(dilation[1]), cb.i64(op.getGroups())});
  for (const BufferMetadata *t : {&x, &y, z ? &*z : nullptr})
    for (int64_t d : {int64_t(0), cd, hd, wd})
      cb.add({t ? cb.i64(t->strides[d]) : cb.i64(0)});
  cb.add({x.pointer, w.pointer, bias, z ? z->pointer : cb.null(), y.pointer});
  Type elt = cast<MemRefType>(op.getInit().getType()).getElementType();
  // --precision bf16 keeps f32 convolutions on TF32 (bf16 is for products).
  bool tensorCores = ctx.tf32 || ctx.bf16;
  cb.add({cb.i32(dtypeCode(elt)), cb.i32(tensorCores ? tcc::kConvComputeTf32 : tcc::kConvComputeF32),
          cb.i32(tcc::convActivations(activationCode(op.getActivation()),
                                      activationCode(op.getInputActivation())) |
                 (tcc::isBoundWeight(op.getWeight()) ? tcc::kConvFilterIsBoundWeight : 0)),
          cb.i32(op.getChannelsLast() ? tcc::kConvLayoutNhwc : tcc::kConvLayoutNchw),
          ctx.stream ? ctx.stream : cb.null()});
  cb.call(ctx.module, entry);
}
