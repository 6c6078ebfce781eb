//===- BufferizableOpInterfaceImpl.cpp - tcc_kernel ops in one-shot bufferization ===//
//
// A tcc_kernel op on tensors becomes the same op on memrefs: inputs read in
// place, each init's buffer written (the results alias their inits, as
// linalg's do). Kernels overwrite their outputs entirely, so an init is never
// read: a tensor.empty init becomes a fresh allocation, with no copy. The
// exception is the scatter, which writes only some of its init.
//
// The libraries need each row contiguous (a GEMM operand's innermost dim, a
// row kernel's whole row, an NCHW convolution's whole image, an NHWC one's
// channels); other strides are free. A buffer that bufferization
// made a view without that property (a slice with a step) is copied into a
// fresh one first, or, for an output, written there and copied after.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccKernel/Transforms/BufferizableOpInterfaceImpl.h"

#include "dialects/TccKernel/IR/TccKernelDialect.h"
#include "dialects/TccKernel/IR/TccKernelOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SubsetOpInterface.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace tcc::kernel;

namespace {

/// The view an operand is read or written through: the `views` entry of an
/// attention operand (query, key, value or init), a scatter's
/// `source_view`; or null.
DictionaryAttr viewOf(Operation *op, OpOperand &operand) {
  if (auto scatter = dyn_cast<tcc::kernel::ScatterOp>(op)) {
    unsigned n = operand.getOperandNumber();
    return n < scatter.getSources().size() ? scatter.getSourceView(n) : nullptr;
  }
  auto attention = dyn_cast<tcc::kernel::AttentionOp>(op);
  if (!attention || !attention.getViewsAttr())
    return nullptr;
  unsigned n = operand.getOperandNumber();
  if (n < 3)
    return attention.getView(static_cast<tcc::kernel::AttentionOp::Tensor>(n));
  if (&operand == &attention.getInitMutable())
    return attention.getView(tcc::kernel::AttentionOp::ResultTensor);
  return nullptr;
}

/// `buffer` (identity layout) seen through `view`: an attention operand's
/// canonical [B, H, L, D] tensor, a scatter's source.
Value viewedBuffer(RewriterBase &rewriter, Location loc, Value buffer, DictionaryAttr view) {
  auto type = cast<MemRefType>(buffer.getType());
  ArrayRef<int64_t> sizes = view.getAs<DenseI64ArrayAttr>("sizes").asArrayRef();
  ArrayRef<int64_t> strides = view.getAs<DenseI64ArrayAttr>("strides").asArrayRef();
  int64_t offset = view.getAs<IntegerAttr>("offset").getInt();
  auto viewType = MemRefType::get(sizes, type.getElementType(),
                                  StridedLayoutAttr::get(type.getContext(), offset, strides),
                                  type.getMemorySpace());
  return memref::ReinterpretCastOp::create(rewriter, loc, viewType, buffer, offset, sizes, strides);
}

} // namespace

int64_t tcc::kernel::packedTrailingDims(Operation *op, OpOperand &operand) {
  return llvm::TypeSwitch<Operation *, int64_t>(op)
      .Case([&](tcc::kernel::AttentionOp a) { return operand.get() == a.getMask() ? 0 : 1; })
      .Case([&](tcc::kernel::RowOp r) {
        bool param = operand.get() == r.getWeight() || operand.get() == r.getBias();
        return param ? cast<ShapedType>(operand.get().getType()).getRank()
                     : static_cast<int64_t>(r.getNumDims());
      })
      // The weight whole. An NCHW image packed (tcc_cpu_conv2d's sgemm and
      // the depthwise kernel index it densely), any batch stride: a channel
      // slice of a larger buffer. An NHWC image packed too (cuDNN finds no
      // algorithm for channels-last views with strided pixels or rows),
      // except for a convolution tcc's depthwise kernel takes, which only
      // needs its channels packed: a channel slice is strided per pixel, a
      // padded buffer's interior per row too (the CPU path's loops take any).
      .Case([&](tcc::kernel::ConvOp c) {
        int64_t rank = cast<ShapedType>(operand.get().getType()).getRank();
        if (operand.get() == c.getWeight())
          return rank;
        return c.getChannelsLast() && c.isDepthwiseKernelConv() ? int64_t(1)
                                                                : std::min<int64_t>(rank, 3);
      })
      // tcc_cpu_rnn reads and writes every tensor whole, packed.
      .Case([&](tcc::kernel::RnnOp) {
        return cast<ShapedType>(operand.get().getType()).getRank();
      })
      // tcc_cpu_qconv2d reads its images through their strides (oneDNN
      // reorders them), its filter and parameters whole.
      .Case([&](tcc::kernel::QConvOp q) {
        int64_t rank = cast<ShapedType>(operand.get().getType()).getRank();
        return operand.get() == q.getInput() || operand.get() == q.getInit() ? int64_t(0) : rank;
      })
      // A scatter's loops index every operand through its strides.
      .Case([&](tcc::kernel::ScatterOp) { return int64_t(0); })
      .Default([](Operation *) { return 1; });
}

namespace {

/// Whether the trailing `dims` dims of `type` are packed row-major.
bool packed(MemRefType type, int64_t dims) {
  if (dims == 0 || type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t expected = 1;
  for (int64_t d = type.getRank() - 1; d >= type.getRank() - dims; --d) {
    if (strides[d] != expected)
      return false;
    if (d > type.getRank() - dims) {
      if (ShapedType::isDynamic(type.getDimSize(d)))
        return false;
      expected *= type.getDimSize(d);
    }
  }
  return true;
}

/// A fresh identity-layout buffer of `buffer`'s shape.
Value freshBuffer(RewriterBase &rewriter, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(memref::DimOp::create(rewriter, loc, buffer, d));
  auto fresh = MemRefType::get(type.getShape(), type.getElementType(), MemRefLayoutAttrInterface(),
                               type.getMemorySpace());
  return memref::AllocOp::create(rewriter, loc, fresh, sizes, rewriter.getI64IntegerAttr(64));
}

template <typename OpTy>
struct KernelOpInterface
    : public DstBufferizableOpInterfaceExternalModel<KernelOpInterface<OpTy>, OpTy> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand, const AnalysisState &) const {
    // A scatter keeps what it does not write of its init.
    return isa<tcc::kernel::ScatterOp>(op) ||
           !cast<DestinationStyleOpInterface>(op).isDpsInit(&operand);
  }

  /// A kernel that reads one slice of a buffer and writes another, disjoint
  /// one: a layer that appends to the concatenation it reads (its init a
  /// slice of the concatenation's buffer after empty-tensor elimination,
  /// its input a leading slice of the same buffer).
  bool isNotConflicting(Operation *op, OpOperand *uRead, OpOperand *uWrite,
                        const AnalysisState &state) const {
    if (uRead->getOwner() != op || uWrite->getOwner() != op)
      return false;
    auto read = uRead->get().getDefiningOp<SubsetOpInterface>();
    auto written = uWrite->get().getDefiningOp<SubsetOpInterface>();
    if (!read || !written || !isa<tensor::ExtractSliceOp>(read.getOperation()) ||
        !isa<tensor::ExtractSliceOp>(written.getOperation()))
      return false;
    return read.operatesOnDisjointSubset(written, [&](Value a, Value b) {
      return a == b || state.areEquivalentBufferizedValues(a, b);
    });
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter, const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto dps = cast<DestinationStyleOpInterface>(op);
    Location loc = op->getLoc();
    SmallVector<Value> operands, outputs;
    SmallVector<std::pair<Value, Value>> copyBack; // (written, destination)
    for (OpOperand &operand : op->getOpOperands()) {
      FailureOr<Value> buffer = getBuffer(rewriter, operand.get(), options, state);
      if (failed(buffer))
        return failure();
      Value used = *buffer;
      DictionaryAttr view = viewOf(op, operand);
      // A view is taken of the buffer's own storage: that needs an identity layout.
      bool usable = view ? cast<MemRefType>(used.getType()).getLayout().isIdentity()
                         : packed(cast<MemRefType>(used.getType()), packedTrailingDims(op, operand));
      if (!usable) {
        rewriter.setInsertionPoint(op);
        used = freshBuffer(rewriter, loc, *buffer);
        if (dps.isDpsInit(&operand))
          copyBack.push_back({used, *buffer});
        else
          linalg::CopyOp::create(rewriter, loc, *buffer, used);
      }
      if (view) {
        rewriter.setInsertionPoint(op);
        used = viewedBuffer(rewriter, loc, used, view);
      }
      operands.push_back(used);
      if (dps.isDpsInit(&operand))
        outputs.push_back(*buffer);
    }
    // The same op on buffers: same operand structure, so the properties
    // (attributes and operand segment sizes) carry over unchanged.
    rewriter.setInsertionPoint(op);
    OperationState bufferized(loc, op->getName());
    bufferized.addOperands(operands);
    bufferized.propertiesAttr = op->getPropertiesAsAttribute();
    bufferized.addAttributes(llvm::to_vector(op->getDiscardableAttrs()));
    Operation *result = rewriter.create(bufferized);
    // The views are now the operands themselves.
    if (auto attention = dyn_cast<tcc::kernel::AttentionOp>(result))
      attention.removeViewsAttr();
    if (auto scatter = dyn_cast<tcc::kernel::ScatterOp>(result))
      scatter.removeSourceViewsAttr();
    for (auto [written, destination] : copyBack)
      linalg::CopyOp::create(rewriter, loc, written, destination);
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
    ConvOp::attachInterface<KernelOpInterface<ConvOp>>(*ctx);
    ScatterOp::attachInterface<KernelOpInterface<ScatterOp>>(*ctx);
    RnnOp::attachInterface<KernelOpInterface<RnnOp>>(*ctx);
    QConvOp::attachInterface<KernelOpInterface<QConvOp>>(*ctx);
  });
}
