//===- GpuLibraryConv.cpp - 2-D convolutions to cuDNN calls ---------------===//
//
// On the CUDA path a convolution lowered to loops is one thread per output
// element walking c·kh·kw: far from cuDNN. This pass recognizes the planned
// program's convolutions (TccGraphToLinalg/ConvPool.cpp:
// linalg.conv_2d_nchw_fchw, or linalg.conv_2d_ngchw_gfchw for groups, on an
// input padded by a separate copy) and calls tcc_conv2d_f32
// (include/tcc/Runtime/CudnnConv.h) instead. The output holds the bias
// broadcast or zeros when the convolution starts: cuDNN accumulates into it
// (beta = 1), or, when its last writer is a zero fill, the fill is dropped
// and cuDNN overwrites it (beta = 0).
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/CudnnConv.h"
#include "tcc/Transforms/Passes.h"
#include "tcc/Transforms/BufferMetadata.h"
#include "tcc/Transforms/PlannedEntry.h"
#include "tcc/Transforms/ZeroInit.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/Support/Debug.h"

#include <optional>

#define DEBUG_TYPE "tcc-gpu-library-conv"

namespace tcc {
#define GEN_PASS_DEF_GPULIBRARYCONVPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

constexpr const char *kConvFunction = "tcc_conv2d_f32";

struct Convolution {
  linalg::LinalgOp op;
  bool grouped = false; ///< ngchw_gfchw: rank-5 operands
  Value x, w, y;
  int64_t strides[2], dilations[2];
};

bool isContiguousF32(Value v, int64_t rank) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.getElementType().isF32() && type.getRank() == rank &&
         type.getLayout().isIdentity();
}

template <typename ConvOp> std::optional<Convolution> matchConv(ConvOp op, bool grouped) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return std::nullopt;
  int64_t rank = grouped ? 5 : 4;
  Convolution conv;
  conv.op = cast<linalg::LinalgOp>(op.getOperation());
  conv.grouped = grouped;
  conv.x = op.getDpsInputOperand(0)->get();
  conv.w = op.getDpsInputOperand(1)->get();
  conv.y = op.getDpsInitOperand(0)->get();
  if (!isContiguousF32(conv.x, rank) || !isContiguousF32(conv.w, rank) ||
      !isContiguousF32(conv.y, rank))
    return std::nullopt;
  // The body must be the named op's own (mulf + addf of f32, no casts).
  Block &body = op->getRegion(0).front();
  if (!llvm::hasNItems(body.without_terminator(), 2))
    return std::nullopt;
  auto values = [](DenseIntElementsAttr attr, int64_t out[2]) {
    if (!attr || attr.getNumElements() != 2)
      return false;
    int i = 0;
    for (APInt v : attr.getValues<APInt>())
      out[i++] = v.getSExtValue();
    return out[0] > 0 && out[1] > 0;
  };
  if (!values(op.getStrides(), conv.strides) || !values(op.getDilations(), conv.dilations))
    return std::nullopt;
  return conv;
}

//===----------------------------------------------------------------------===//
// The call
//===----------------------------------------------------------------------===//


func::FuncOp declareConvFunction(ModuleOp module) {
  if (auto f = module.lookupSymbol<func::FuncOp>(kConvFunction))
    return f;
  MLIRContext *ctx = module.getContext();
  Builder b(ctx);
  Type i64 = b.getI64Type(), i32 = b.getI32Type(), ptr = LLVM::LLVMPointerType::get(ctx);
  // n, c, h, w, f, kh, kw, oh, ow, strideH, strideW, dilationH, dilationW,
  // groups, x, weight, y, accumulate, compute, stream
  SmallVector<Type> args(14, i64);
  args.append({ptr, ptr, ptr, i32, i32, ptr});
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto f = func::FuncOp::create(builder, module.getLoc(), kConvFunction,
                                b.getFunctionType(args, {}));
  f.setPrivate();
  return f;
}



struct GpuLibraryConvPass : tcc::impl::GpuLibraryConvPassBase<GpuLibraryConvPass> {
  using GpuLibraryConvPassBase::GpuLibraryConvPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (func::FuncOp func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (!tcc::isPlannedEntry(func) || !tcc::isCudaFunction(func))
        continue;
      SmallVector<Convolution> matches;
      for (Operation &op : func.getBody().front()) {
        std::optional<Convolution> m;
        if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op))
          m = matchConv(conv, false);
        else if (auto conv = dyn_cast<linalg::Conv2DNgchwGfchwOp>(op))
          m = matchConv(conv, true);
        if (m)
          matches.push_back(*m);
      }
      if (matches.empty())
        continue;
      FailureOr<Value> stream = tcc::streamArgument(func);
      if (failed(stream))
        return signalPassFailure();
      func::FuncOp callee = declareConvFunction(module);
      for (Convolution &conv : matches)
        rewrite(conv, callee, *stream);
    }
  }

  void rewrite(Convolution conv, func::FuncOp callee, Value stream) {
    tcc::ZeroInit fill = tcc::zeroInitOf(conv.y, conv.op, /*metadataReadsMayWrite=*/true);
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] conv at " << conv.op.getLoc() << ": zero fill "
                            << (fill.zero ? "yes" : "no") << "\n");
    OpBuilder b(conv.op);
    Location loc = conv.op.getLoc();
    auto i64 = [&](Value index) {
      return arith::IndexCastOp::create(b, loc, b.getI64Type(), index).getResult();
    };
    auto c64 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 64).getResult(); };
    auto c32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 32).getResult(); };
    tcc::BufferMetadata x = tcc::readBufferMetadata(b, loc, conv.x);
    tcc::BufferMetadata w = tcc::readBufferMetadata(b, loc, conv.w);
    tcc::BufferMetadata y = tcc::readBufferMetadata(b, loc, conv.y);
    Value n, c, h, wd, f, kh, kw, oh, ow, groups;
    if (conv.grouped) {
      // x [N, G, C, H, W], w [G, F, C, KH, KW], y [N, G, F, OH, OW]: in memory
      // [N, G·C, H, W], [G·F, C, KH, KW], [N, G·F, OH, OW].
      n = x.sizes[0];
      groups = x.sizes[1];
      c = arith::MulIOp::create(b, loc, x.sizes[1], x.sizes[2]);
      h = x.sizes[3];
      wd = x.sizes[4];
      f = arith::MulIOp::create(b, loc, w.sizes[0], w.sizes[1]);
      kh = w.sizes[3];
      kw = w.sizes[4];
      oh = y.sizes[3];
      ow = y.sizes[4];
    } else {
      n = x.sizes[0];
      c = x.sizes[1];
      h = x.sizes[2];
      wd = x.sizes[3];
      f = w.sizes[0];
      kh = w.sizes[2];
      kw = w.sizes[3];
      oh = y.sizes[2];
      ow = y.sizes[3];
    }
    SmallVector<Value> args = {i64(n),
                               i64(c),
                               i64(h),
                               i64(wd),
                               i64(f),
                               i64(kh),
                               i64(kw),
                               i64(oh),
                               i64(ow),
                               c64(conv.strides[0]),
                               c64(conv.strides[1]),
                               c64(conv.dilations[0]),
                               c64(conv.dilations[1]),
                               groups ? i64(groups) : c64(1),
                               x.pointer,
                               w.pointer,
                               y.pointer,
                               c32(fill.zero ? 0 : 1),
                               c32(tf32 ? tcc::kConvComputeTf32 : tcc::kConvComputeF32),
                               stream};
    func::CallOp::create(b, loc, callee, args);
    conv.op->erase();
    if (fill.erasable)
      fill.erasable->erase();
    if (fill.sharedFill && fill.sharedFill.getOutputs()[0].hasOneUse())
      fill.sharedFill.erase();
  }
};

} // namespace
