//===- Bufferize.cpp - the tcc-bufferize pass -----------------------------===//
#include "tcc/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

#define DEBUG_TYPE "tcc-bufferize"

namespace tcc {
#define GEN_PASS_DEF_BUFFERIZEPASS
#include "tcc/Conversion/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {
LogicalResult copyAsLinalg(OpBuilder &b, Location loc, Value from, Value to) {
  b.create<linalg::CopyOp>(loc, from, to);
  return success();
}

struct BufferizePass : public tcc::impl::BufferizePassBase<BufferizePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bufferization::OneShotBufferizationOptions options;
    options.bufferizeFunctionBoundaries = true;
    options.setFunctionBoundaryTypeConversion(
        bufferization::LayoutMapOption::IdentityLayoutMap);
    options.unknownTypeConverterFn =
        [](TensorType type, Attribute memorySpace,
           const bufferization::BufferizationOptions &) -> BaseMemRefType {
      return bufferization::getMemRefTypeWithStaticIdentityLayout(type, memorySpace);
    };
    options.memCpyFn = copyAsLinalg;
    options.bufferAlignment = 64;
    bufferization::BufferizationState state;
    if (failed(bufferization::runOneShotModuleBufferize(module, options, state))) {
      signalPassFailure();
      return;
    }
    bufferization::BufferResultsToOutParamsOpts outParams;
    outParams.memCpyFn = copyAsLinalg;
    outParams.hoistStaticAllocs = true;
    outParams.hoistDynamicAllocs = true;
    outParams.modifyPublicFunctions = true;
    if (failed(bufferization::promoteBufferResultsToOutParams(module, outParams)))
      signalPassFailure();
  }
};
} // namespace
