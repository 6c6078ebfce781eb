//===- BufferizableOpInterfaceImpl.cpp - tcc_kernel ops in one-shot bufferization ===//
//
// A tcc_kernel op on tensors becomes the same op on memrefs: inputs read in
// place, each init's buffer written (the results alias their inits, as
// linalg's do). Kernels overwrite their outputs entirely, so an init is never
// read: a tensor.empty init becomes a fresh allocation, with no copy.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccKernel/Transforms/BufferizableOpInterfaceImpl.h"

#include "dialects/TccKernel/IR/TccKernelDialect.h"
#include "dialects/TccKernel/IR/TccKernelOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace tcc::kernel;

namespace {

template <typename OpTy>
struct KernelOpInterface
    : public DstBufferizableOpInterfaceExternalModel<KernelOpInterface<OpTy>, OpTy> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand, const AnalysisState &) const {
    return !cast<DestinationStyleOpInterface>(op).isDpsInit(&operand);
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter, const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto dps = cast<DestinationStyleOpInterface>(op);
    SmallVector<Value> operands, outputs;
    for (OpOperand &operand : op->getOpOperands()) {
      FailureOr<Value> buffer = getBuffer(rewriter, operand.get(), options, state);
      if (failed(buffer))
        return failure();
      operands.push_back(*buffer);
      if (dps.isDpsInit(&operand))
        outputs.push_back(*buffer);
    }
    // The same op on buffers: same operand structure, so the properties
    // (attributes and operand segment sizes) carry over unchanged.
    rewriter.setInsertionPoint(op);
    OperationState bufferized(op->getLoc(), op->getName());
    bufferized.addOperands(operands);
    bufferized.propertiesAttr = op->getPropertiesAsAttribute();
    bufferized.addAttributes(llvm::to_vector(op->getDiscardableAttrs()));
    rewriter.create(bufferized);
    replaceOpWithBufferizedValues(rewriter, op, outputs);
    return success();
  }
};

} // namespace

void tcc::kernel::registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, TccKernelDialect *) {
    GemmOp::attachInterface<KernelOpInterface<GemmOp>>(*ctx);
    AttentionOp::attachInterface<KernelOpInterface<AttentionOp>>(*ctx);
    RowOp::attachInterface<KernelOpInterface<RowOp>>(*ctx);
  });
}
