//===- TccGraphToLinalg.cpp - the convert-tcc-graph-to-linalg pass --------===//
#include "lib/Conversion/TccGraphToLinalg/Patterns.h"
#include "tcc/Conversion/Passes.h"

#include "dialects/TccGraph/IR/TccGraphDialect.h"
#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#define DEBUG_TYPE "convert-tcc-graph-to-linalg"

namespace tcc {
#define GEN_PASS_DEF_CONVERTTCCGRAPHTOLINALGPASS
#include "tcc/Conversion/Passes.h.inc"
} // namespace tcc

using namespace mlir;

FailureOr<SmallVector<OpFoldResult>>
tcc::mixedSizes(OpBuilder &b, Location loc, RankedTensorType type,
                ArrayRef<std::pair<Value, int64_t>> dynamicFrom) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    int64_t s = type.getShape()[i];
    if (!ShapedType::isDynamic(s)) {
      sizes.push_back(b.getIndexAttr(s));
      continue;
    }
    if (i >= (int64_t)dynamicFrom.size() || !dynamicFrom[i].first)
      return failure();
    auto [v, d] = dynamicFrom[i];
    sizes.push_back(b.create<tensor::DimOp>(loc, v, d).getResult());
  }
  return sizes;
}

Value tcc::makeFilled(OpBuilder &b, Location loc, RankedTensorType type,
                      ArrayRef<OpFoldResult> sizes, TypedAttr value) {
  Value empty = b.create<tensor::EmptyOp>(loc, sizes, type.getElementType());
  Value scalar = b.create<arith::ConstantOp>(loc, value);
  return b.create<linalg::FillOp>(loc, scalar, empty).getResult(0);
}

Value tcc::flatten(OpBuilder &b, Location loc, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getRank() == 1)
    return v;
  int64_t n = t.hasStaticShape() ? t.getNumElements() : ShapedType::kDynamic;
  ReassociationIndices all = llvm::to_vector(llvm::seq<int64_t>(0, t.getRank()));
  return b.create<tensor::CollapseShapeOp>(loc, RankedTensorType::get({n}, t.getElementType()),
                                           v, ArrayRef<ReassociationIndices>{all});
}

TypedAttr tcc::floatAttr(OpBuilder &b, Type elementType, double v) {
  return b.getFloatAttr(elementType, v);
}

namespace {
struct ConvertTccGraphToLinalgPass
    : public tcc::impl::ConvertTccGraphToLinalgPassBase<ConvertTccGraphToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<tcc::graph::TccGraphDialect>();
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect,
                           func::FuncDialect, scf::SCFDialect>();
    // Run-time checks where PyTorch raises (an index out of range).
    target.addLegalOp<cf::AssertOp>();
    // torch.uint8 elements are converted through signless integers (Elementwise.cpp).
    target.addLegalOp<UnrealizedConversionCastOp>();
    RewritePatternSet patterns(ctx);
    tcc::populateElementwiseToLinalgPatterns(patterns);
    tcc::populateMatmulToLinalgPatterns(patterns);
    tcc::populateConvPoolToLinalgPatterns(patterns);
    tcc::populateReductionToLinalgPatterns(patterns);
    tcc::populateDataMovementToLinalgPatterns(patterns);
    tcc::populateConcatRotationToLinalgPatterns(patterns);
    tcc::populateConcatGatherToLinalgPatterns(patterns);
    tcc::populateSequenceToLinalgPatterns(patterns);
    tcc::populateIndexingToLinalgPatterns(patterns);
    tcc::populateSpecialFunctionToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
