//===- GemmCalls.cpp - tcc_kernel.gemm as a tcc_gemm call (cuBLASLt) ------===//
//
// The last two batch dims of the result go to tcc_gemm's two strided batch
// dims (the runtime makes them one cuBLASLt batch when the strides allow);
// any batch dims before those become host loops around the call. Operand
// batch dims align right with the result's; a missing or size-1 dim has
// stride 0 (a matrix shared by the batch).
//
//===----------------------------------------------------------------------===//
#include "KernelCalls.h"

#include "tcc/Runtime/CublasLtGemm.h"
#include "tcc/Transforms/BufferMetadata.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tcc::kernelcalls;
namespace kernel = tcc::kernel;

namespace {

struct Operand {
  Value memref;
  tcc::BufferMetadata meta;
  int64_t elementBytes = 0;

  int64_t rank() const { return cast<MemRefType>(memref.getType()).getRank(); }
  /// Stride along the result's batch dim `d` (of `numBatch`), 0 if broadcast.
  Value batchStride(OpBuilder &b, Location loc, int64_t d, int64_t numBatch) const {
    int64_t j = d - (numBatch - (rank() - 2));
    if (j < 0 || cast<MemRefType>(memref.getType()).getDimSize(j) == 1)
      return arith::ConstantIndexOp::create(b, loc, 0);
    return meta.strides[j];
  }
};

Operand operand(OpBuilder &b, Location loc, Value memref) {
  if (!memref)
    return {};
  auto type = cast<MemRefType>(memref.getType());
  return {memref, tcc::readBufferMetadata(b, loc, memref),
          (type.getElementTypeBitWidth() + 7) / 8};
}

} // namespace

void tcc::kernelcalls::lowerGemm(OpBuilder &b, kernel::GemmOp op, const CallContext &ctx,
                               abi::EntryId entry) {
  Location loc = op.getLoc();
  Operand a = operand(b, loc, op.getA()), bm = operand(b, loc, op.getB()),
          c = operand(b, loc, op.getInit()), r = operand(b, loc, op.getResidual()),
          bias = operand(b, loc, op.getBias());
  int64_t numBatch = c.rank() - 2;
  int32_t epilogue = op.getBias() ? tcc::kGemmEpilogueBias : tcc::kGemmEpilogueNone;
  if (op.getActivation() == kernel::Activation::relu)
    epilogue |= tcc::kGemmEpilogueRelu;
  else if (op.getActivation() == kernel::Activation::gelu_tanh)
    epilogue |= tcc::kGemmEpilogueGelu;
  else if (op.getActivation() == kernel::Activation::gelu_erf)
    epilogue |= tcc::kGemmEpilogueGeluErf;
  if (tcc::isBoundWeight(op.getB()))
    epilogue |= tcc::kGemmBIsBoundWeight;
  int32_t compute = ctx.bf16 ? tcc::kGemmComputeBf16 : ctx.tf32 ? tcc::kGemmComputeTf32
                                                                 : tcc::kGemmComputeF32;
  Type elt = cast<MemRefType>(op.getInit().getType()).getElementType();
  int64_t outerDims = std::max<int64_t>(numBatch - 2, 0);

  // Host loops over the batch dims before the last two; `ptrs` holds the
  // current a, b, c, residual pointers.
  std::function<void(OpBuilder &, int64_t, SmallVector<Value>)> emit =
      [&](OpBuilder &ob, int64_t d, SmallVector<Value> ptrs) {
        CallBuilder cb{ob, loc, {}};
        if (d < outerDims) {
          Value zero = arith::ConstantIndexOp::create(ob, loc, 0);
          Value one = arith::ConstantIndexOp::create(ob, loc, 1);
          scf::ForOp::create(ob, loc, zero, c.meta.sizes[d], one, ValueRange{},
                             [&](OpBuilder &fb, Location, Value i, ValueRange) {
                               CallBuilder f{fb, loc, {}};
                               SmallVector<Value> next;
                               for (auto [x, p] : llvm::zip(SmallVector<const Operand *>{&a, &bm, &c, &r}, ptrs))
                                 next.push_back(x->memref ? f.advance(p, arith::MulIOp::create(fb, loc, i, x->batchStride(fb, loc, d, numBatch)),
                                                                      x->elementBytes)
                                                          : p);
                               emit(fb, d + 1, next);
                               scf::YieldOp::create(fb, loc);
                             });
          return;
        }
        auto batchSize = [&](int64_t bd) { return bd >= 0 ? cb.i64(c.meta.sizes[bd]) : cb.i64(1); };
        auto stride = [&](const Operand &x, int64_t bd) {
          return bd >= 0 && x.memref ? cb.i64(x.batchStride(ob, loc, bd, numBatch)) : cb.i64(0);
        };
        int64_t d0 = numBatch - 2, d1 = numBatch - 1; // may be negative: no such dim
        int64_t ra = a.rank(), rb = bm.rank();
        Value k = a.meta.sizes[op.getTransposeA() ? ra - 2 : ra - 1];
        cb.add({cb.i32(dtypeCode(elt)), cb.i32(compute), batchSize(d0), batchSize(d1),
                cb.i64(c.meta.sizes[numBatch]), cb.i64(c.meta.sizes[numBatch + 1]), cb.i64(k)});
        cb.add({ptrs[0], cb.i64(a.meta.strides[ra - 2]), stride(a, d0), stride(a, d1),
                cb.i32(op.getTransposeA())});
        cb.add({ptrs[1], cb.i64(bm.meta.strides[rb - 2]), stride(bm, d0), stride(bm, d1),
                cb.i32(op.getTransposeB())});
        cb.add({ptrs[2], cb.i64(c.meta.strides[numBatch]), stride(c, d0), stride(c, d1)});
        if (r.memref)
          cb.add({ptrs[3], cb.i64(r.meta.strides[numBatch]), stride(r, d0), stride(r, d1)});
        else
          cb.add({cb.null(), cb.i64(0), cb.i64(0), cb.i64(0)});
        cb.add({bias.memref ? bias.meta.pointer : cb.null(), cb.i32(epilogue),
                cb.f32(op.getAlpha().convertToDouble()), ctx.stream ? ctx.stream : cb.null()});
        cb.call(ctx.module, entry);
      };
  CallBuilder cb{b, loc, {}};
  emit(b, 0, {a.meta.pointer, bm.meta.pointer, c.meta.pointer,
              r.memref ? r.meta.pointer : cb.null()});
}
