//===- RowCalls.cpp - tcc_kernel.row as a tcc_row call --------------------===//
//
// tcc_row takes rows with one stride: the last leading dim's. Leading dims
// that collapse into one (every tensor's layout proves it, as for planned
// buffers) are collapsed, so one call takes all rows; those that do not
// become host loops around the call. Bufferization made each row contiguous.
//
//===----------------------------------------------------------------------===//
#include "KernelCalls.h"

#include "tcc/Runtime/RowKernels.h"
#include "tcc/Transforms/BufferMetadata.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tcc::kernelcalls;
namespace kernel = tcc::kernel;

namespace {

int32_t rowKind(kernel::RowKind kind) {
  switch (kind) {
  case kernel::RowKind::softmax: return tcc::kRowSoftmax;
  case kernel::RowKind::log_softmax: return tcc::kRowLogSoftmax;
  case kernel::RowKind::layer_norm: return tcc::kRowLayerNorm;
  case kernel::RowKind::rms_norm: return tcc::kRowRmsNorm;
  }
  return tcc::kRowSoftmax;
}

Type elementType(Value v) { return cast<MemRefType>(v.getType()).getElementType(); }

} // namespace

void tcc::kernelcalls::lowerRow(OpBuilder &b, kernel::RowOp op, const CallContext &ctx) {
  Location loc = op.getLoc();
  auto type = cast<MemRefType>(op.getInput().getType());
  int64_t rank = type.getRank(), lead = rank - static_cast<int64_t>(op.getNumDims());
  // x, residual, sum, out: the row-strided tensors.
  SmallVector<Value> tensors = {op.getInput(), op.getResidual(), op.getSumInit(), op.getInit()};
  // The leading dims as one, when every tensor's layout allows it.
  if (lead > 1) {
    SmallVector<ReassociationIndices> groups = {llvm::to_vector(llvm::seq<int64_t>(0, lead))};
    for (int64_t d = lead; d < rank; ++d)
      groups.push_back({d});
    bool collapsible = llvm::all_of(tensors, [&](Value t) {
      return !t || memref::CollapseShapeOp::isGuaranteedCollapsible(cast<MemRefType>(t.getType()),
                                                                    groups);
    });
    if (collapsible) {
      for (Value &t : tensors)
        if (t)
          t = memref::CollapseShapeOp::create(b, loc, t, groups);
      rank -= lead - 1;
      lead = 1;
    }
  }
  SmallVector<BufferMetadata> meta;
  for (Value t : tensors)
    meta.push_back(t ? readBufferMetadata(b, loc, t) : BufferMetadata{});
  CallBuilder top{b, loc, {}};
  Value n = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t d = lead; d < rank; ++d)
    n = arith::MulIOp::create(b, loc, n, meta[0].sizes[d]);
  Value weight = op.getWeight() ? readBufferMetadata(b, loc, op.getWeight()).pointer : top.null();
  Value bias = op.getBias() ? readBufferMetadata(b, loc, op.getBias()).pointer : top.null();
  Type paramType = op.getWeight() ? elementType(op.getWeight())
                   : op.getBias() ? elementType(op.getBias())
                                  : elementType(op.getInput());

  std::function<void(OpBuilder &, int64_t, SmallVector<Value>)> emit =
      [&](OpBuilder &ob, int64_t d, SmallVector<Value> ptrs) {
        CallBuilder cb{ob, loc, {}};
        if (d < lead - 1) {
          Value zero = arith::ConstantIndexOp::create(ob, loc, 0);
          Value one = arith::ConstantIndexOp::create(ob, loc, 1);
          scf::ForOp::create(ob, loc, zero, meta[0].sizes[d], one, ValueRange{},
                             [&](OpBuilder &fb, Location, Value i, ValueRange) {
                               CallBuilder f{fb, loc, {}};
                               SmallVector<Value> next;
                               for (auto [t, p] : llvm::enumerate(ptrs)) {
                                 Value x = tensors[t];
                                 int64_t bytes = x ? (cast<MemRefType>(x.getType()).getElementTypeBitWidth() + 7) / 8 : 0;
                                 next.push_back(x ? f.advance(p, arith::MulIOp::create(fb, loc, i, meta[t].strides[d]), bytes) : p);
                               }
                               emit(fb, d + 1, next);
                               scf::YieldOp::create(fb, loc);
                             });
          return;
        }
        Value rows = lead > 0 ? cb.i64(meta[0].sizes[lead - 1]) : cb.i64(1);
        auto rowStride = [&](int t) {
          return tensors[t] ? (lead > 0 ? cb.i64(meta[t].strides[lead - 1]) : cb.i64(n)) : cb.i64(0);
        };
        cb.add({cb.i32(rowKind(op.getKind())), cb.i32(dtypeCode(elementType(op.getInput()))),
                cb.i32(dtypeCode(elementType(op.getInit()))), cb.i32(dtypeCode(paramType)), rows,
                cb.i64(n)});
        cb.add({ptrs[0], rowStride(0), ptrs[1], rowStride(1), ptrs[2], rowStride(2), weight, bias,
                cb.f32(op.getEps().convertToDouble()), ptrs[3], rowStride(3), ctx.stream});
        cb.call(ctx.module, abi::EntryId::tcc_row);
      };
  SmallVector<Value> ptrs;
  for (auto [t, x] : llvm::enumerate(tensors))
    ptrs.push_back(x ? meta[t].pointer : top.null());
  emit(b, 0, ptrs);
}
