//===- TccKernelToCuda.cpp - the convert-tcc-kernel-to-cuda pass ----------===//
//
// The CUDA path's lowering of the kernel layer: every bufferized tcc_kernel
// op of a planned entry becomes one call of the runtime on the entry's stream
// (lib/Conversion/KernelCalls: GemmCalls.cpp: cuBLASLt; ConvCalls.cpp and
// RnnCalls.cpp: cuDNN; AttentionCalls.cpp and RowCalls.cpp: tcc's kernel
// library). The calls enqueue work and return; nothing synchronizes.
// A scatter becomes the loop nest of the CPU path (ScatterLoops.cpp), which
// the CUDA path's loop mapping makes a kernel of.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/KernelCalls/KernelCalls.h"
#include "lib/Conversion/TccKernelToLoops/KernelLoops.h"

#include "tcc/Conversion/Passes.h"
#include "tcc/Runtime/KernelTypes.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/TypeSwitch.h"

#define DEBUG_TYPE "convert-tcc-kernel-to-cuda"

namespace tcc {
#define GEN_PASS_DEF_CONVERTTCCKERNELTOCUDAPASS
#include "tcc/Conversion/Passes.h.inc"
} // namespace tcc

using namespace mlir;
using namespace tcc::kernelcalls;

namespace {
struct ConvertTccKernelToCudaPass
    : tcc::impl::ConvertTccKernelToCudaPassBase<ConvertTccKernelToCudaPass> {
  using ConvertTccKernelToCudaPassBase::ConvertTccKernelToCudaPassBase;

  void runOnOperation() override {
    for (auto func : llvm::to_vector(getOperation().getOps<func::FuncOp>())) {
      if (!tcc::isPlannedEntry(func) || !tcc::isCudaFunction(func))
        continue;
      SmallVector<Operation *> ops;
      func.walk([&](Operation *op) {
        if (isa<tcc::kernel::GemmOp, tcc::kernel::AttentionOp, tcc::kernel::RowOp,
                tcc::kernel::ConvOp, tcc::kernel::ScatterOp, tcc::kernel::RnnOp>(op))
          ops.push_back(op);
      });
      if (ops.empty())
        continue;
      FailureOr<Value> stream = tcc::streamArgument(func);
      if (failed(stream))
        return signalPassFailure();
      CallContext ctx{getOperation(), *stream, tf32, bf16};
      for (Operation *op : ops) {
        if (op->getNumResults()) {
          op->emitOpError("must be bufferized before it becomes a runtime call");
          return signalPassFailure();
        }
        OpBuilder b(op);
        llvm::TypeSwitch<Operation *>(op)
            .Case([&](tcc::kernel::GemmOp o) { lowerGemm(b, o, ctx); })
            .Case([&](tcc::kernel::AttentionOp o) { lowerAttention(b, o, ctx); })
            .Case([&](tcc::kernel::RowOp o) { lowerRow(b, o, ctx); })
            .Case([&](tcc::kernel::ConvOp o) { lowerConv(b, o, ctx); })
            .Case([&](tcc::kernel::RnnOp o) { lowerRnn(b, o, ctx, tcc::abi::EntryId::tcc_cuda_rnn); })
            // A loop nest, which the CUDA path makes a kernel of.
            .Case([&](tcc::kernel::ScatterOp o) { tcc::loops::lowerScatter(b, o); });
        op->erase();
      }
    }
  }
};
} // namespace
