//===- SinglePixelConvToMatmul.cpp - a convolution of 1x1 images as a GEMM -===//
//
// Implements `tcc-single-pixel-conv-to-matmul`. Squeeze-and-excitation
// blocks (EfficientNet, MobileNetV3, RegNet) run two 1×1 convolutions on the
// globally pooled [N, C, 1, 1] activation. As convolutions they go to
// cuDNN, whose heuristics pick a generic implicit-GEMM kernel for these
// shapes: 26.6 µs each in a bf16 EfficientNet-B0 on an H100, where the same
// product as a GEMM takes cuBLASLt about 5 µs. With one input pixel per
// image, a convolution with a 1×1 filter, no padding and one group is
// exactly `x[N, C] · W[F, C]ᵀ + b`, and [N, C, 1, 1] is [N, C] in memory.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccGraph/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tcc::graph {
#define GEN_PASS_DEF_SINGLEPIXELCONVTOMATMULPASS
#include "dialects/TccGraph/Transforms/Passes.h.inc"
} // namespace tcc::graph

using namespace mlir;
using namespace tcc::graph;

namespace {

/// Whether `conv` reads one pixel per image through a 1×1 filter.
bool isSinglePixelProduct(Conv2dOp conv) {
  auto input = cast<RankedTensorType>(conv.getInput().getType());
  auto weight = cast<RankedTensorType>(conv.getWeight().getType());
  auto result = cast<RankedTensorType>(conv.getType());
  auto zero = [](ArrayRef<int64_t> v) { return llvm::all_of(v, [](int64_t x) { return x == 0; }); };
  return input.hasStaticShape() && weight.hasStaticShape() && result.hasStaticShape() &&
         input.getDimSize(2) == 1 && input.getDimSize(3) == 1 && weight.getDimSize(2) == 1 &&
         weight.getDimSize(3) == 1 && conv.getGroups() == 1 && zero(conv.getPadding());
}

void rewrite(Conv2dOp conv) {
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  auto input = cast<RankedTensorType>(conv.getInput().getType());
  auto weight = cast<RankedTensorType>(conv.getWeight().getType());
  auto result = cast<RankedTensorType>(conv.getType());
  int64_t n = input.getDimSize(0), c = input.getDimSize(1), f = weight.getDimSize(0);
  Type inElement = input.getElementType(), wElement = weight.getElementType();
  Value rows = ReshapeOp::create(b, loc, RankedTensorType::get({n, c}, inElement),
                                 conv.getInput(), ValueRange{});
  Value filters = ReshapeOp::create(b, loc, RankedTensorType::get({f, c}, wElement),
                                    conv.getWeight(), ValueRange{});
  Value transposed = TransposeOp::create(b, loc, RankedTensorType::get({c, f}, wElement),
                                         filters, b.getDenseI64ArrayAttr({1, 0}));
  auto productType = RankedTensorType::get({n, f}, result.getElementType());
  Value product = MatmulOp::create(b, loc, productType, rows, transposed);
  if (Value bias = conv.getBias())
    product = AddOp::create(b, loc, productType, product, bias);
  Value image = ReshapeOp::create(b, loc, result, product, ValueRange{});
  conv.getResult().replaceAllUsesWith(image);
  conv.erase();
}

struct SinglePixelConvToMatmulPass
    : tcc::graph::impl::SinglePixelConvToMatmulPassBase<SinglePixelConvToMatmulPass> {
  void runOnOperation() override {
    SmallVector<Conv2dOp> convs;
    getOperation().walk([&](Conv2dOp conv) {
      if (isSinglePixelProduct(conv))
        convs.push_back(conv);
    });
    for (Conv2dOp conv : convs)
      rewrite(conv);
  }
};

} // namespace
