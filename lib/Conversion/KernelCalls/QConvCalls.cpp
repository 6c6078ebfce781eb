//===- QConvCalls.cpp - tcc_kernel.qconv as a tcc_cpu_qconv2d call --------===//
//
// One call per int8 convolution (QuantizedConv.h): sizes, padding, stride,
// dilation, groups, the image and residual strides read from the planned
// memrefs at run time, the pointers, the flags and the quant range.
//
//===----------------------------------------------------------------------===//
#include "KernelCalls.h"

#include "tcc/Runtime/QuantizedConv.h"
#include "tcc/Transforms/BufferMetadata.h"
#include "tcc/Transforms/PlannedEntry.h"

using namespace mlir;
using namespace tcc::kernelcalls;
namespace kernel = tcc::kernel;

void tcc::kernelcalls::lowerQConv(OpBuilder &b, kernel::QConvOp op, const CallContext &ctx) {
  Location loc = op.getLoc();
  CallBuilder cb{b, loc, {}};
  BufferMetadata x = readBufferMetadata(b, loc, op.getInput());
  BufferMetadata w = readBufferMetadata(b, loc, op.getWeight());
  BufferMetadata y = readBufferMetadata(b, loc, op.getInit());
  auto pointerOf = [&](Value v) {
    return v ? readBufferMetadata(b, loc, v).pointer : cb.null();
  };
  Value scales = pointerOf(op.getScales());
  Value weightZp = pointerOf(op.getWeightZeroPoints());
  Value inputZp = pointerOf(op.getInputZeroPoint());
  Value bias = pointerOf(op.getBias());
  Value outScale = pointerOf(op.getOutputScale());
  Value outZp = pointerOf(op.getOutputZeroPoint());
  ArrayRef<int64_t> pad = op.getPadding(), stride = op.getStride(), dilation = op.getDilation();
  // Sizes and strides in N, C, H, W order whatever the layout (channels-last:
  // dims 0, 3, 1, 2); the weight is FCRS in both.
  int64_t cd = op.getChannelDim(), hd = op.getSpatialDim(0), wd = op.getSpatialDim(1);
  cb.add({cb.i64(x.sizes[0]), cb.i64(x.sizes[cd]), cb.i64(x.sizes[hd]), cb.i64(x.sizes[wd]),
          cb.i64(w.sizes[0]), cb.i64(w.sizes[2]), cb.i64(w.sizes[3]), cb.i64(y.sizes[hd]),
          cb.i64(y.sizes[wd])});
  cb.add({cb.i64(pad[0]), cb.i64(pad[1]), cb.i64(stride[0]), cb.i64(stride[1]),
          cb.i64(dilation[0]), cb.i64(dilation[1]), cb.i64(op.getGroups())});
  std::optional<BufferMetadata> z;
  if (op.getResidual())
    z = readBufferMetadata(b, loc, op.getResidual());
  for (const BufferMetadata *t : {&x, &y, z ? &*z : nullptr})
    for (int64_t d : {int64_t(0), cd, hd, wd})
      cb.add({t ? cb.i64(t->strides[d]) : cb.i64(0)});
  cb.add({x.pointer, w.pointer, scales, weightZp, inputZp, bias, z ? z->pointer : cb.null(),
          outScale, outZp, y.pointer});
  auto elementOf = [](Value v) { return cast<MemRefType>(v.getType()).getElementType(); };
  int32_t flags = 0;
  if (!elementOf(op.getInput()).isUnsignedInteger())
    flags |= tcc::kQConvInputSigned;
  if (op.getOutputScale()) {
    flags |= tcc::kQConvRequantize;
    if (!elementOf(op.getInit()).isUnsignedInteger())
      flags |= tcc::kQConvOutputSigned;
  }
  if (op.getActivation() == kernel::Activation::relu)
    flags |= tcc::kQConvRelu;
  if (op.getActivation() == kernel::Activation::gelu_erf)
    flags |= tcc::kQConvGeluErf;
  if (tcc::isBoundWeight(op.getWeight()))
    flags |= tcc::kQConvFilterIsBoundWeight;
  cb.add({cb.i32(flags), cb.i64(op.getQuantMinAttr().getInt()),
          cb.i64(op.getQuantMaxAttr().getInt())});
  cb.call(ctx.module, tcc::abi::EntryId::tcc_cpu_qconv2d);
}
