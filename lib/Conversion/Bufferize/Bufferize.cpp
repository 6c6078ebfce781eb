//===- Bufferize.cpp - the tcc-bufferize pass -----------------------------===//
#include "tcc/Conversion/Passes.h"

#include "SplitSharedInits.h"
#include "WidenSharedStateProducers.h"

#include "dialects/TccGraph/IR/TccGraphDialect.h"
#include "dialects/TccKernel/IR/TccKernelDialect.h"
#include "dialects/TccKernel/IR/TccKernelOps.h"
#include "dialects/TccKernel/Transforms/BufferizableOpInterfaceImpl.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallBitVector.h"

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

/// Whether `insert`'s slice of a packed destination keeps its trailing `dims`
/// dims packed: every dim after the first of them is whole, and the steps are
/// 1 (the slice's strides are the destination's).
bool keepsTrailingDimsPacked(tensor::InsertSliceOp insert, int64_t dims) {
  RankedTensorType source = insert.getSourceType(), dest = insert.getDestType();
  if (!source.hasStaticShape() || !dest.hasStaticShape() || !insert.hasUnitStride())
    return false;
  for (int64_t i = std::max<int64_t>(dest.getRank() - dims + 1, 0); i < dest.getRank(); ++i)
    if (source.getDimSize(i) != dest.getDimSize(i))
      return false;
  return true;
}

/// Empty-tensor elimination's choice of producers: a value computed into a
/// tensor.empty and then inserted into a larger tensor (a concatenation's
/// buffer, or a padded one) is computed in place, in the slice, by producers
/// that read their output's strides: linalg ops (any), and convolutions where
/// the slice keeps what tcc_conv2d and the loops need packed (an image, any
/// batch stride: an NCHW channel slice; for tcc's depthwise kernel, NHWC
/// channels, any other stride: a channel slice, or a padded interior; see
/// tcc::kernel::packedTrailingDims). Other library calls keep their own
/// buffer and the copy.
Value sliceForProducer(RewriterBase &rewriter, SubsetInsertionOpInterface op,
                       tensor::EmptyOp empty, Operation *user) {
  // A written argument's new value (materializeWrittenArguments): any
  // producer writes the whole argument in place, packed as it is.
  if (isa<bufferization::MaterializeInDestinationOp>(op.getOperation()))
    return isa<linalg::LinalgOp>(user) || isa<tcc::kernel::TccKernelDialect>(user->getDialect())
               ? bufferization::buildSubsetExtraction(rewriter, op, empty, user)
               : nullptr;
  auto insert = dyn_cast<tensor::InsertSliceOp>(op.getOperation());
  if (!insert)
    return nullptr;
  if (auto conv = dyn_cast<tcc::kernel::ConvOp>(user)) {
    if (!keepsTrailingDimsPacked(insert,
                                 tcc::kernel::packedTrailingDims(conv, conv.getInitMutable())))
      return nullptr;
  } else if (!isa<linalg::LinalgOp>(user) || !keepsTrailingDimsPacked(insert, 0)) {
    return nullptr;
  }
  return bufferization::buildSubsetExtraction(rewriter, op, empty, user);
}

/// Each static tensor.pad with a constant value as a fill of a new tensor and
/// an insert_slice of the source into its interior (what bufferizing the pad
/// would do anyway), so that empty-tensor elimination can have the source's
/// producer write straight into the interior: a channels-last convolution
/// before a padded pooling (DenseNet's stem) leaves no copy.
LogicalResult decomposeStaticPads(ModuleOp module) {
  SmallVector<Operation *> pads;
  module.walk([&](tensor::PadOp pad) {
    if (pad.getResultType().hasStaticShape() && pad.getConstantPaddingValue())
      pads.push_back(pad);
  });
  if (pads.empty())
    return success();
  RewritePatternSet patterns(module.getContext());
  patterns.add<linalg::DecomposePadOpPattern>(module.getContext());
  return applyOpPatternsGreedily(pads, std::move(patterns));
}

/// Whether `a` and `b` are the same memory: one value, or equal subviews of one.
bool isSameView(Value a, Value b) {
  if (a == b)
    return true;
  auto x = a.getDefiningOp<memref::SubViewOp>(), y = b.getDefiningOp<memref::SubViewOp>();
  return x && y && x.getSource() == y.getSource() && x.getType() == y.getType() &&
         x.getStaticOffsets() == y.getStaticOffsets() && x.getStaticSizes() == y.getStaticSizes() &&
         x.getStaticStrides() == y.getStaticStrides() && x.getOffsets() == y.getOffsets() &&
         x.getSizes() == y.getSizes() && x.getStrides() == y.getStrides();
}

/// The arguments a call writes (tcc.written_by, from the importer): each
/// may be written in place, the others never are (by default one-shot
/// bufferization would write into any argument). Each written argument's
/// result becomes its value materialized in the argument's memory, so that
/// the producer of the new value can write there directly.
void materializeWrittenArguments(ModuleOp module) {
  StringRef writtenBy = tcc::graph::TccGraphDialect::getWrittenByAttrName();
  module.walk([&](func::FuncOp func) {
    if (func.isExternal())
      return;
    tcc::widenSharedStateProducers(func);
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    OpBuilder b(ret);
    // A value that is the new value of two arguments (and whose producer
    // could not be widened) is computed into the first and copied from
    // there into the second.
    llvm::DenseMap<Value, Value> materialized;
    llvm::SmallBitVector writtenResult(ret->getNumOperands());
    for (BlockArgument arg : func.getArguments())
      if (auto result = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), writtenBy))
        writtenResult.set(static_cast<unsigned>(result.getInt()));
    for (BlockArgument arg : func.getArguments()) {
      if (!isa<TensorType>(arg.getType()))
        continue;
      auto result = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), writtenBy);
      func.setArgAttr(arg.getArgNumber(), bufferization::BufferizationDialect::kWritableAttrName,
                      b.getBoolAttr(static_cast<bool>(result)));
      if (!result)
        continue;
      OpOperand &operand = ret->getOpOperand(static_cast<unsigned>(result.getInt()));
      if (operand.get() == arg)
        continue;
      Value value = operand.get();
      Value source = materialized.lookup(value);
      auto m = b.create<bufferization::MaterializeInDestinationOp>(
          ret.getLoc(), source ? source : value, arg);
      if (!source)
        materialized[value] = m.getResult();
      // The same value returned as an output too is read from the argument
      // (read after the write into it, the value itself would conflict).
      // Another argument's new value stays the value: it is copied from the
      // first argument, not from each argument before it.
      for (OpOperand &other : ret->getOpOperands())
        if (other.get() == value && !writtenResult.test(other.getOperandNumber()))
          other.set(source ? source : m.getResult());
      operand.set(m.getResult());
    }
  });
}

/// After bufferization: each written argument holds its new value (a copy
/// into it where the value was computed elsewhere), and its result goes;
/// the arguments' writability marks go too.
void dropWrittenResults(ModuleOp module) {
  StringRef writtenBy = tcc::graph::TccGraphDialect::getWrittenByAttrName();
  module.walk([&](func::FuncOp func) {
    if (func.isExternal())
      return;
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    llvm::BitVector dropped(func.getNumResults());
    OpBuilder b(ret);
    for (BlockArgument arg : func.getArguments()) {
      auto result = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), writtenBy);
      if (!result)
        continue;
      func.removeArgAttr(arg.getArgNumber(), writtenBy);
      unsigned r = static_cast<unsigned>(result.getInt());
      dropped.set(r);
      Value v = ret.getOperand(r);
      while (auto cast = v.getDefiningOp<memref::CastOp>())
        v = cast.getSource();
      if (v != arg)
        (void)copyAsLinalg(b, ret.getLoc(), ret.getOperand(r), arg);
    }
    for (BlockArgument arg : func.getArguments())
      func.removeArgAttr(arg.getArgNumber(), bufferization::BufferizationDialect::kWritableAttrName);
    if (dropped.none())
      return;
    ret->eraseOperands(dropped);
    (void)func.eraseResults(dropped);
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
    if (failed(decomposeStaticPads(module))) {
      signalPassFailure();
      return;
    }
    // Each writer its own fresh init: no copies of a shared fill, and an
    // analysis linear in the number of writers.
    tcc::splitSharedInits(module);
    materializeWrittenArguments(module);
    {
      // Producers write straight into the slice a concatenation inserts them
      // at (tcc-share-concat-buffers built DenseNet's in one buffer), or a
      // padded tensor its source.
      bufferization::OneShotAnalysisState analysis(module, options);
      IRRewriter rewriter(module.getContext());
      if (failed(bufferization::analyzeModuleOp(module, analysis)) ||
          failed(bufferization::eliminateEmptyTensors(rewriter, module, analysis,
                                                      sliceForProducer))) {
        signalPassFailure();
        return;
      }
    }
    bufferization::BufferizationState state;
    if (failed(bufferization::runOneShotModuleBufferize(module, options, state))) {
      signalPassFailure();
      return;
    }
    // A value computed in place in its slice is "inserted" by a copy of the
    // slice onto itself: nothing to move.
    module.walk([](linalg::CopyOp copy) {
      if (isSameView(copy.getInputs()[0], copy.getOutputs()[0]))
        copy.erase();
    });
    dropWrittenResults(module);
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
        o.sizes.push_back(func.getResultAttr(i, tcc::graph::TccGraphDialect::getSizesAttrName()));
      outputs.push_back(o);
    });
    if (failed(bufferization::promoteBufferResultsToOutParams(module, outParams))) {
      signalPassFailure();
      return;
    }
    for (Outputs &o : outputs)
      for (auto [i, sizes] : llvm::enumerate(o.sizes))
        if (sizes && o.firstOutArg + i < o.func.getNumArguments())
          o.func.setArgAttr(o.firstOutArg + i, tcc::graph::TccGraphDialect::getSizesAttrName(), sizes);
  }
};
} // namespace
