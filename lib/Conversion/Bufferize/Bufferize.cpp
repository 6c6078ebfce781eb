//===- Bufferize.cpp - the tcc-bufferize pass -----------------------------===//
#include "tcc/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

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

/// Out-param promotion replaces a returned allocation by its output argument
/// and erases it, so an allocation returned twice (`return %e, %e`) would be
/// erased twice. Each repeat gets its own allocation, filled by a copy.
void separateRepeatedResults(ModuleOp module) {
  module.walk([](func::ReturnOp ret) {
    llvm::SmallPtrSet<Value, 4> seen;
    OpBuilder b(ret);
    Location loc = ret.getLoc();
    for (OpOperand &operand : ret->getOpOperands()) {
      Value v = operand.get();
      auto alloc = v.getDefiningOp<memref::AllocOp>();
      if (!alloc || seen.insert(v).second)
        continue;
      MemRefType type = alloc.getType();
      SmallVector<Value> dynamicSizes;
      for (int64_t i = 0; i < type.getRank(); ++i)
        if (type.isDynamicDim(i))
          dynamicSizes.push_back(b.create<memref::DimOp>(loc, v, i));
      Value repeat =
          b.create<memref::AllocOp>(loc, type, dynamicSizes, alloc.getAlignmentAttr());
      (void)copyAsLinalg(b, loc, v, repeat);
      operand.set(repeat);
    }
  });
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
    separateRepeatedResults(module);
    bufferization::BufferResultsToOutParamsOpts outParams;
    outParams.memCpyFn = copyAsLinalg;
    outParams.hoistStaticAllocs = true;
    outParams.hoistDynamicAllocs = true;
    outParams.modifyPublicFunctions = true;
    // The outputs' symbolic sizes (from the importer) move with them to the
    // appended out-params, where memory planning looks for them.
    struct Outputs {
      func::FuncOp func;
      unsigned firstOutArg;
      SmallVector<Attribute> sizes;
    };
    SmallVector<Outputs> outputs;
    module.walk([&](func::FuncOp func) {
      Outputs o{func, func.getNumArguments(), {}};
      for (unsigned i = 0; i < func.getNumResults(); ++i)
        o.sizes.push_back(func.getResultAttr(i, "tcc.sizes"));
      outputs.push_back(o);
    });
    if (failed(bufferization::promoteBufferResultsToOutParams(module, outParams))) {
      signalPassFailure();
      return;
    }
    for (Outputs &o : outputs)
      for (auto [i, sizes] : llvm::enumerate(o.sizes))
        if (sizes && o.firstOutArg + i < o.func.getNumArguments())
          o.func.setArgAttr(o.firstOutArg + i, "tcc.sizes", sizes);
  }
};
} // namespace
