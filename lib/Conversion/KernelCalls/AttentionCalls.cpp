//===- AttentionCalls.cpp - tcc_kernel.attention as a tcc_attention call --===//
//
// Each tensor's strides are read in the canonical [B, H, L, D] order (dims 1
// and 2 swapped for a `bshd` tensor); the mask's align right with
// [B, H, Lq, Lk], a missing or size-1 dim broadcasting with stride 0 (a 5-D
// mask's last four with [P, H, Lq, Lk], its dim 0 the batch period's outer
// stride).
//
//===----------------------------------------------------------------------===//
#include "KernelCalls.h"

#include "tcc/Runtime/AttentionKernels.h"
#include "tcc/Transforms/BufferMetadata.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace tcc::kernelcalls;
namespace kernel = tcc::kernel;

namespace {

/// Dim of a memref holding canonical dim `d` of [B, H, L, D].
int64_t storedDim(bool bshd, int64_t d) { return bshd && (d == 1 || d == 2) ? 3 - d : d; }

} // namespace

void tcc::kernelcalls::lowerAttention(OpBuilder &b, kernel::AttentionOp op,
                                    const CallContext &ctx, abi::EntryId entry) {
  Location loc = op.getLoc();
  CallBuilder cb{b, loc, {}};
  ArrayRef<bool> bshd = op.getBshd();
  SmallVector<Value> tensors = {op.getQuery(), op.getKey(), op.getValue(), op.getInit()};
  SmallVector<BufferMetadata> meta;
  for (Value t : tensors)
    meta.push_back(readBufferMetadata(b, loc, t));
  auto size = [&](int t, int64_t d) { return cb.i64(meta[t].sizes[storedDim(bshd[t], d)]); };
  auto stride = [&](int t, int64_t d) { return cb.i64(meta[t].strides[storedDim(bshd[t], d)]); };
  Type elt = cast<MemRefType>(op.getQuery().getType()).getElementType();
  bool tensorCoreF32 = ctx.tf32 || ctx.bf16;
  cb.add({cb.i32(dtypeCode(elt)),
          cb.i32(tensorCoreF32 ? tcc::kAttentionMathTf32 : tcc::kAttentionMathF32),
          size(0, 0), size(0, 1), size(1, 1), size(0, 2), size(1, 2), size(0, 3), size(2, 3)});
  for (int t = 0; t < 4; ++t)
    cb.add({meta[t].pointer, stride(t, 0), stride(t, 1), stride(t, 2)});
  if (Value mask = op.getMask()) {
    auto mt = cast<MemRefType>(mask.getType());
    BufferMetadata m = readBufferMetadata(b, loc, mask);
    cb.add({m.pointer, cb.i32(mt.getElementType().isInteger(1) ? tcc::kAttentionMaskBool
                                                               : tcc::kAttentionMaskAdditive)});
    // A 5-D mask, [B / P, P, H, Lq, Lk] (TccKernelOps.td): its dim 1 is the
    // batch's, split by period P, its dim 0 the outer stride.
    int64_t rank = mt.getRank(), split = rank == 5 ? 1 : 0;
    auto maskStride = [&](int64_t md) {
      return md < 0 || mt.getDimSize(md) == 1 ? cb.i64(0) : cb.i64(m.strides[md]);
    };
    for (int64_t d = 0; d < 4; ++d)
      cb.add({maskStride(d - (4 - (rank - split)) + split)});
    if (split)
      cb.add({cb.i64(mt.getDimSize(1)), maskStride(0)});
    else
      cb.add({cb.i64(0), cb.i64(0)});
  } else {
    cb.add({cb.null(), cb.i32(tcc::kAttentionMaskNone), cb.i64(0), cb.i64(0), cb.i64(0),
            cb.i64(0), cb.i64(0), cb.i64(0)});
  }
  cb.add({cb.i32(op.getCausal()), cb.f32(op.getScale().convertToDouble()),
          ctx.stream ? ctx.stream : cb.null()});
  cb.call(ctx.module, entry);
}
