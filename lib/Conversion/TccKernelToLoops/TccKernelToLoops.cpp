//===- TccKernelToLoops.cpp - the convert-tcc-kernel-to-loops pass --------===//
//
// The CPU path's lowering of the kernel layer: every tcc_kernel op on
// memrefs becomes an scf loop nest (GemmLoops.cpp, ConvLoops.cpp,
// AttentionLoops.cpp, RowLoops.cpp) that computes in f32 and rounds once, as the CUDA path's
// library calls do, or a runtime call (f32 products and convolutions with
// library-calls; a recurrence always: tcc_cpu_rnn).
//
//===----------------------------------------------------------------------===//
#include "KernelLoops.h"
#include "lib/Conversion/KernelCalls/KernelCalls.h"

#include "tcc/Conversion/Passes.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/TypeSwitch.h"

#define DEBUG_TYPE "convert-tcc-kernel-to-loops"

namespace tcc {
#define GEN_PASS_DEF_CONVERTTCCKERNELTOLOOPSPASS
#include "tcc/Conversion/Passes.h.inc"
} // namespace tcc

using namespace mlir;
using namespace tcc::loops;

Value Emitter::index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

Value Emitter::f32(double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(static_cast<float>(v)));
}

Value Emitter::dim(Value memref, int64_t d) { return memref::DimOp::create(b, loc, memref, d); }

Value Emitter::widen(Value v) {
  return v.getType().isF32() ? v : arith::ExtFOp::create(b, loc, b.getF32Type(), v).getResult();
}

Value Emitter::narrow(Value v, Type type) {
  return type.isF32() ? v : arith::TruncFOp::create(b, loc, type, v).getResult();
}

Value Emitter::roundTrip(Value v, Type type) { return widen(narrow(v, type)); }

Value Emitter::load(Value memref, ValueRange indices) {
  return memref::LoadOp::create(b, loc, memref, indices);
}

void Emitter::store(Value value, Value memref, ValueRange indices) {
  memref::StoreOp::create(b, loc, value, memref, indices);
}

namespace {
/// Whether every operand of `op` is f32 (what tcc_cpu_gemm and
/// tcc_cpu_conv2d multiply).
bool isF32(Operation *op) {
  return llvm::all_of(op->getOperands(), [](Value v) {
    return cast<MemRefType>(v.getType()).getElementType().isF32();
  });
}

/// An attention on f32 tensors (its mask may be bool or f32).
bool isF32Attention(tcc::kernel::AttentionOp op) {
  auto f32 = [](Value v) { return cast<MemRefType>(v.getType()).getElementType().isF32(); };
  Value mask = op.getMask();
  return f32(op.getQuery()) && f32(op.getKey()) && f32(op.getValue()) && f32(op.getInit()) &&
         (!mask || f32(mask) ||
          cast<MemRefType>(mask.getType()).getElementType().isInteger(1));
}

struct ConvertTccKernelToLoopsPass
    : tcc::impl::ConvertTccKernelToLoopsPassBase<ConvertTccKernelToLoopsPass> {
  using ConvertTccKernelToLoopsPassBase::ConvertTccKernelToLoopsPassBase;
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      // The CPU path's functions only (tcc-split-targets).
      auto func = op->getParentOfType<func::FuncOp>();
      if (isa<tcc::kernel::GemmOp, tcc::kernel::AttentionOp, tcc::kernel::RowOp,
              tcc::kernel::ConvOp, tcc::kernel::ScatterOp, tcc::kernel::RnnOp,
              tcc::kernel::QConvOp>(op) &&
          (!func || tcc::isCpuFunction(func)))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      if (op->getNumResults()) {
        op->emitOpError("must be bufferized before it is lowered to loops");
        return signalPassFailure();
      }
      OpBuilder b(op);
      llvm::TypeSwitch<Operation *>(op)
          .Case([&](tcc::kernel::GemmOp o) {
            if (libraryCalls && isF32(o))
              tcc::kernelcalls::lowerGemm(b, o, {getOperation(), nullptr}, tcc::abi::EntryId::tcc_cpu_gemm);
            else
              lowerGemm(b, o);
          })
          .Case([&](tcc::kernel::AttentionOp o) {
            if (libraryCalls && isF32Attention(o))
              tcc::kernelcalls::lowerAttention(b, o, {getOperation(), nullptr},
                                             tcc::abi::EntryId::tcc_cpu_attention);
            else
              lowerAttention(b, o);
          })
          .Case([&](tcc::kernel::RowOp o) { lowerRow(b, o); })
          .Case([&](tcc::kernel::ScatterOp o) { lowerScatter(b, o); })
          .Case([&](tcc::kernel::ConvOp o) {
            // Any layout and strides: oneDNN reads them (OneDnnConv.h).
            if (libraryCalls && isF32(o))
              tcc::kernelcalls::lowerConv(b, o, {getOperation(), nullptr}, tcc::abi::EntryId::tcc_cpu_conv2d);
            else
              lowerConv(b, o);
          })
          // Always the runtime's: a recurrence has no loop nest of its own
          // (the verifier takes f32 only).
          .Case([&](tcc::kernel::RnnOp o) {
            tcc::kernelcalls::lowerRnn(b, o, {getOperation(), nullptr});
          })
          // Always the runtime's: it has loops of its own where oneDNN is
          // missing (QuantizedConv.h).
          .Case([&](tcc::kernel::QConvOp o) { tcc::kernelcalls::lowerQConv(b, o, {getOperation(), nullptr}); });
      op->erase();
    }
  }
};
} // namespace
