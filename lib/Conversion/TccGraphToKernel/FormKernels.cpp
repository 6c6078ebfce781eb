//===- FormKernels.cpp - the tcc-form-kernels pass ------------------------===//
//
// Kernel formation decides, while every op's meaning is known, what will be
// one kernel or library call: attentions first (their products must not
// become GEMMs), then GEMMs and convolutions with their epilogues (a residual
// add is cheapest there), then row kernels, which take the residual adds left. Whatever whole
// op a family cannot take is decomposed at once (tcc-decompose-graph's
// functions), so that its matrix products still become GEMMs. Recurrent
// layers become one call each, scatters into caches one kernel each. PT2E's
// quantize and dequantize ops go before all of them (FormQuantized.cpp).
//
//===----------------------------------------------------------------------===//
#include "FormKernels.h"
#include "StridedViews.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccKernel/IR/TccKernelOps.h"
#include "tcc/Conversion/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#define DEBUG_TYPE "tcc-form-kernels"

namespace tcc {
#define GEN_PASS_DEF_FORMKERNELSPASS
#include "tcc/Conversion/Passes.h.inc"
} // namespace tcc

using namespace mlir;

std::optional<double> tcc::formation::splatConstant(Value v) {
  auto c = v.getDefiningOp<graph::ConstantOp>();
  if (!c)
    return std::nullopt;
  auto type = cast<RankedTensorType>(c.getType());
  if (!isa<FloatType>(type.getElementType()) || !type.hasStaticShape() ||
      type.getNumElements() != 1)
    return std::nullopt;
  auto values = dyn_cast<DenseElementsAttr>(c.getValue());
  if (!values)
    return std::nullopt;
  return (*values.getValues<APFloat>().begin()).convertToDouble();
}

Value tcc::formation::emptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                                  llvm::function_ref<Value(int64_t)> dynamicSize) {
  SmallVector<Value> sizes;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      sizes.push_back(dynamicSize(i));
  return tensor::EmptyOp::create(b, loc, type, sizes);
}

Value tcc::formation::reshapeTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getShape() == shape)
    return v;
  return graph::ReshapeOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()), v);
}

Value tcc::formation::transposeInput(Value v, ArrayRef<int64_t> permutation) {
  auto t = v.getDefiningOp<graph::TransposeOp>();
  return t && t.getPermutation() == permutation ? t.getInput() : Value();
}

Location tcc::formation::kernelLocation(ArrayRef<Operation *> ops) {
  MLIRContext *ctx = ops.front()->getContext();
  SmallVector<Location> locs;
  SmallVector<Attribute> names;
  for (Operation *op : ops) {
    locs.push_back(op->getLoc());
    names.push_back(StringAttr::get(ctx, op->getName().stripDialect()));
  }
  return FusedLoc::get(ctx, locs, ArrayAttr::get(ctx, names));
}

void tcc::formation::eraseDead(ArrayRef<Operation *> ops) {
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty())
      op->erase();
}

namespace {
struct FormKernelsPass : tcc::impl::FormKernelsPassBase<FormKernelsPass> {
  using FormKernelsPassBase::FormKernelsPassBase;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      tcc::formation::foldContiguousViews(func);
      // QDQ patterns first (int8 kernels on the CPU path); what they leave
      // is float arithmetic the GEMM and convolution families then see as
      // ordinary operands.
      tcc::formation::formQuantizedKernels(func, cpuOnly);
      tcc::formation::formAttentionKernels(func);
      tcc::formation::formGemmKernels(func, f32TensorCores, cpuOnly);
      tcc::formation::formConvKernels(func, f32TensorCores, cpuOnly);
      // Convolutions that became GEMMs leave NHWC ↔ NCHW round trips.
      tcc::formation::foldContiguousViews(func);
      tcc::formation::formRowKernels(func);
      tcc::formation::formScatterKernels(func);
      tcc::formation::formRecurrentKernels(func);
      tcc::formation::sinkLayoutTransposes(func);
    }
  }
};
} // namespace
