//===- RnnCalls.cpp - tcc_kernel.rnn as a tcc_cpu_rnn / tcc_cuda_rnn call -===//
//
// One call per recurrent layer stack. Every operand is packed (bufferization
// copies a view that is not: packedTrailingDims), so the call takes
// first-element pointers and sizes; the weights, as many as the layers and
// directions need, go as an array of pointers on the caller's stack. The
// CUDA path's call (tcc_cuda_rnn, cuDNN) takes three more: the arithmetic,
// the layer's name for errors (its operator, Python line and shape, a
// constant string) and the stream.
//
//===----------------------------------------------------------------------===//
#include "KernelCalls.h"

#include "dialects/TccGraph/IR/SourceLocation.h"
#include "tcc/Runtime/CpuRecurrent.h"
#include "tcc/Runtime/CudnnRecurrent.h"
#include "tcc/Support/RecurrentShapes.h"
#include "tcc/Transforms/BufferMetadata.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace tcc::kernelcalls;
namespace kernel = tcc::kernel;

namespace {

int32_t modeCode(kernel::RnnMode mode) {
  switch (mode) {
  case kernel::RnnMode::lstm:
    return tcc::kRnnModeLstm;
  case kernel::RnnMode::gru:
    return tcc::kRnnModeGru;
  case kernel::RnnMode::rnn_tanh:
    return tcc::kRnnModeTanh;
  case kernel::RnnMode::rnn_relu:
    return tcc::kRnnModeRelu;
  }
  llvm_unreachable("unknown recurrent mode");
}

/// An array of the weights' pointers on the stack, in order.
Value pointerArray(OpBuilder &b, Location loc, ArrayRef<Value> pointers) {
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  auto arrayType = LLVM::LLVMArrayType::get(ptr, pointers.size());
  Value one = LLVM::ConstantOp::create(b, loc, b.getI64Type(), b.getI64IntegerAttr(1));
  Value array = LLVM::AllocaOp::create(b, loc, ptr, arrayType, one);
  for (auto [i, p] : llvm::enumerate(pointers)) {
    Value slot = LLVM::GEPOp::create(b, loc, ptr, arrayType, array,
                                     ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
    LLVM::StoreOp::create(b, loc, p, slot);
  }
  return array;
}

/// How errors name the layer: "aten.lstm.input (2 layers, bidirectional,
/// hidden 256) at model.py:12".
std::string layerName(kernel::RnnOp op) {
  std::string name = tcc::recurrentOperatorName(kernel::stringifyRnnMode(op.getMode())) + " (" +
                     std::to_string(op.getNumLayers()) +
                     (op.getNumLayers() == 1 ? " layer" : " layers") +
                     (op.getBidirectional() ? ", bidirectional" : "") + ", hidden " +
                     std::to_string(op.getHiddenSize()) + ")";
  std::string where = tcc::graph::formatSourceLocation(op.getLoc());
  return where.empty() ? name : name + " at " + where;
}

/// A pointer to a NUL-terminated constant holding `text` (one global per
/// distinct text in `module`).
Value constantString(OpBuilder &b, Location loc, ModuleOp module, StringRef text) {
  MLIRContext *ctx = b.getContext();
  std::string bytes = text.str();
  bytes.push_back('\0');
  LLVM::GlobalOp global;
  unsigned n = 0;
  std::string name;
  for (;; ++n) {
    name = "tcc_rnn_layer_name_" + std::to_string(n);
    global = module.lookupSymbol<LLVM::GlobalOp>(name);
    if (!global)
      break;
    if (auto value = dyn_cast_or_null<StringAttr>(global.getValueOrNull());
        value && value.getValue() == bytes)
      return LLVM::AddressOfOp::create(b, loc, global);
  }
  OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
  auto type = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), bytes.size());
  global = LLVM::GlobalOp::create(top, loc, type, /*isConstant=*/true, LLVM::Linkage::Internal,
                                  name, b.getStringAttr(bytes));
  return LLVM::AddressOfOp::create(b, loc, global);
}

} // namespace

void tcc::kernelcalls::lowerRnn(OpBuilder &b, kernel::RnnOp op, const CallContext &ctx,
                                abi::EntryId entry) {
  Location loc = op.getLoc();
  CallBuilder cb{b, loc, {}};
  BufferMetadata x = readBufferMetadata(b, loc, op.getInput());
  Value h0 = op.getH0() ? readBufferMetadata(b, loc, op.getH0()).pointer : cb.null();
  Value c0 = op.getC0() ? readBufferMetadata(b, loc, op.getC0()).pointer : cb.null();
  SmallVector<Value> weights;
  bool allBound = true;
  for (Value w : op.getWeights()) {
    weights.push_back(readBufferMetadata(b, loc, w).pointer);
    allBound &= tcc::isBoundWeight(w);
  }
  SmallVector<Value> outputs;
  for (Value init : op.getInits())
    outputs.push_back(readBufferMetadata(b, loc, init).pointer);
  Value weightArray = pointerArray(b, loc, weights);
  int32_t flags = (op.getBidirectional() ? tcc::kRnnBidirectional : 0) |
                  (op.getBatchFirst() ? tcc::kRnnBatchFirst : 0) |
                  (op.getHasBiases() ? tcc::kRnnHasBiases : 0) |
                  (allBound ? tcc::kRnnWeightsAreBound : 0);
  int64_t seqDim = op.getBatchFirst() ? 1 : 0, batchDim = op.getBatchFirst() ? 0 : 1;
  cb.add({cb.i32(modeCode(op.getMode())), cb.i32(flags), cb.i64(op.getNumLayers()),
          cb.i64(x.sizes[seqDim]), cb.i64(x.sizes[batchDim]), cb.i64(x.sizes[2]),
          cb.i64(op.getHiddenSize()), cb.i64(op.getStateSize())});
  cb.add({x.pointer, h0, c0, weightArray, cb.i64(static_cast<int64_t>(weights.size())),
          outputs[0], outputs[1], outputs.size() > 2 ? outputs[2] : cb.null()});
  if (ctx.stream) {
    // --precision bf16 keeps f32 recurrences on TF32, as convolutions.
    bool tensorCores = ctx.tf32 || ctx.bf16;
    Value compute = cb.i32(tensorCores ? tcc::kRnnComputeTf32 : tcc::kRnnComputeF32);
    Value name = constantString(b, loc, ctx.module, layerName(op));
    cb.add({compute, name, ctx.stream});
  }
  cb.call(ctx.module, entry);
}
