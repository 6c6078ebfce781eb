//===- RowLoops.cpp - tcc_kernel.row as a loop nest -----------------------===//
//
// One parallel loop over the rows; per row, up to three sequential passes in
// f32 (statistic, second statistic, write), each recomputing h = input
// (+ residual, rounded to the input's type) from memory.
//
//===----------------------------------------------------------------------===//
#include "KernelLoops.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace tcc::loops;
namespace kernel = tcc::kernel;

namespace {

struct RowLowering {
  kernel::RowOp op;
  Location loc;
  int64_t rank, numDims, lead;
  Type inType, outType;
  SmallVector<Value> rowSizes; ///< the trailing dims' sizes
  Value n;                     ///< elements per row

  /// Indices of row element `j` of the row at leading indices `row`.
  SmallVector<Value> indices(OpBuilder &b, ValueRange row, Value j) {
    SmallVector<Value> idx(row.begin(), row.end());
    if (numDims == 1) {
      idx.push_back(j);
      return idx;
    }
    auto split = affine::AffineDelinearizeIndexOp::create(b, loc, j, rowSizes);
    idx.append(split.getResults().begin(), split.getResults().end());
    return idx;
  }

  /// Index of row element `j` in the weight/bias (the row's shape).
  SmallVector<Value> paramIndices(OpBuilder &b, Value j) {
    return indices(b, ValueRange{}, j);
  }

  /// h = input (+ residual, rounded to the input's type), in f32.
  Value h(Emitter &e, ArrayRef<Value> idx) {
    Value x = e.widen(e.load(op.getInput(), idx));
    if (Value r = op.getResidual())
      x = e.roundTrip(arith::AddFOp::create(e.b, loc, x, e.widen(e.load(r, idx))), inType);
    return x;
  }

  /// for j in [0, n): body(j, acc) -> acc', starting from `init`. The
  /// accumulation (the op yielded) may be reassociated: that lets LLVM
  /// vectorize the loop (partial sums or maxima per lane, combined at the
  /// end), as PyTorch's own vectorized row kernels sum.
  Value reduce(OpBuilder &b, Value init,
               llvm::function_ref<Value(OpBuilder &, Value, Value)> body) {
    Emitter e{b, loc};
    Value zero = e.index(0);
    Value one = e.index(1);
    auto loop = scf::ForOp::create(b, loc, zero, n, one, ValueRange{init},
                                   [&](OpBuilder &fb, Location, Value j, ValueRange acc) {
                                     Value next = body(fb, j, acc[0]);
                                     if (auto fm = next.getDefiningOp<arith::ArithFastMathInterface>())
                                       fm->setAttr(fm.getFastMathAttrName(),
                                                   arith::FastMathFlagsAttr::get(
                                                       fb.getContext(), arith::FastMathFlags::reassoc));
                                     scf::YieldOp::create(fb, loc, ValueRange{next});
                                   });
    return loop.getResult(0);
  }

  void forEach(OpBuilder &b, llvm::function_ref<void(OpBuilder &, Value)> body) {
    Emitter e{b, loc};
    Value zero = e.index(0);
    Value one = e.index(1);
    scf::ForOp::create(b, loc, zero, n, one, ValueRange{},
                       [&](OpBuilder &fb, Location, Value j, ValueRange) {
                         body(fb, j);
                         scf::YieldOp::create(fb, loc);
                       });
  }

  void emitRow(OpBuilder &b, ValueRange row) {
    Emitter e{b, loc};
    Value count = arith::UIToFPOp::create(
        b, loc, b.getF32Type(), arith::IndexCastOp::create(b, loc, b.getI64Type(), n));
    kernel::RowKind kind = op.getKind();
    bool softmax = kind == kernel::RowKind::softmax || kind == kernel::RowKind::log_softmax;
    Value sumOut = op.getSumInit();
    // Pass 1: the max (softmax) or the sum of h (layer_norm) or of h² (rms_norm),
    // writing the residual sum on the way.
    Value init = softmax ? e.f32(-std::numeric_limits<float>::infinity()) : e.f32(0.0);
    Value first = reduce(b, init, [&](OpBuilder &fb, Value j, Value acc) -> Value {
      Emitter f{fb, loc};
      SmallVector<Value> idx = indices(fb, row, j);
      Value x = h(f, idx);
      if (sumOut)
        f.store(f.narrow(x, inType), sumOut, idx);
      if (softmax)
        return arith::MaximumFOp::create(fb, loc, acc, x);
      if (kind == kernel::RowKind::rms_norm)
        x = arith::MulFOp::create(fb, loc, x, x);
      return arith::AddFOp::create(fb, loc, acc, x);
    });
    Value center, scale; // out = (h - center) · scale, before the weight
    if (softmax) {
      center = first;
      Value total = reduce(b, e.f32(0.0), [&](OpBuilder &fb, Value j, Value acc) -> Value {
        Emitter f{fb, loc};
        Value x = h(f, indices(fb, row, j));
        return arith::AddFOp::create(fb, loc, acc,
                                     math::ExpOp::create(fb, loc, arith::SubFOp::create(fb, loc, x, center)));
      });
      scale = total;
    } else if (kind == kernel::RowKind::layer_norm) {
      center = arith::DivFOp::create(b, loc, first, count);
      Value squares = reduce(b, e.f32(0.0), [&](OpBuilder &fb, Value j, Value acc) -> Value {
        Emitter f{fb, loc};
        Value d = arith::SubFOp::create(fb, loc, h(f, indices(fb, row, j)), center);
        return arith::AddFOp::create(fb, loc, acc, arith::MulFOp::create(fb, loc, d, d));
      });
      Value var = arith::DivFOp::create(b, loc, squares, count);
      scale = math::RsqrtOp::create(
          b, loc, arith::AddFOp::create(b, loc, var, e.f32(op.getEps().convertToDouble())));
    } else {
      Value meanSquare = arith::DivFOp::create(b, loc, first, count);
      scale = math::RsqrtOp::create(
          b, loc, arith::AddFOp::create(b, loc, meanSquare, e.f32(op.getEps().convertToDouble())));
    }
    Value logTotal = kind == kernel::RowKind::log_softmax ? math::LogOp::create(b, loc, scale).getResult()
                                                          : Value();
    forEach(b, [&](OpBuilder &fb, Value j) {
      Emitter f{fb, loc};
      SmallVector<Value> idx = indices(fb, row, j);
      Value x = h(f, idx), y;
      switch (kind) {
      case kernel::RowKind::softmax:
        y = arith::DivFOp::create(fb, loc, math::ExpOp::create(fb, loc, arith::SubFOp::create(fb, loc, x, center)),
                                  scale);
        break;
      case kernel::RowKind::log_softmax:
        y = arith::SubFOp::create(fb, loc, arith::SubFOp::create(fb, loc, x, center), logTotal);
        break;
      case kernel::RowKind::layer_norm:
        y = arith::MulFOp::create(fb, loc, arith::SubFOp::create(fb, loc, x, center), scale);
        break;
      case kernel::RowKind::rms_norm:
        // Rounded to the input's type before the weight, as PyTorch.
        y = f.roundTrip(arith::MulFOp::create(fb, loc, x, scale), inType);
        break;
      }
      if (Value w = op.getWeight())
        y = arith::MulFOp::create(fb, loc, y, f.widen(f.load(w, paramIndices(fb, j))));
      if (Value bias = op.getBias())
        y = arith::AddFOp::create(fb, loc, y, f.widen(f.load(bias, paramIndices(fb, j))));
      f.store(f.narrow(y, outType), op.getInit(), idx);
    });
  }
};

} // namespace

void tcc::loops::lowerRow(OpBuilder &b, kernel::RowOp op) {
  Location loc = op.getLoc();
  Emitter e{b, loc};
  auto type = cast<MemRefType>(op.getInput().getType());
  RowLowering row{op, loc, type.getRank(), static_cast<int64_t>(op.getNumDims()), 0,
                  type.getElementType(), cast<MemRefType>(op.getInit().getType()).getElementType(),
                  {}, nullptr};
  row.lead = row.rank - row.numDims;
  row.n = e.index(1);
  for (int64_t d = row.lead; d < row.rank; ++d) {
    row.rowSizes.push_back(e.dim(op.getInput(), d));
    row.n = arith::MulIOp::create(b, loc, row.n, row.rowSizes.back());
  }
  if (row.lead == 0) {
    row.emitRow(b, ValueRange{});
    return;
  }
  SmallVector<Value> lbs(row.lead, e.index(0)), steps(row.lead, e.index(1)), ubs;
  for (int64_t d = 0; d < row.lead; ++d)
    ubs.push_back(e.dim(op.getInput(), d));
  scf::ParallelOp::create(b, loc, lbs, ubs, steps,
                          [&](OpBuilder &pb, Location, ValueRange ivs) { row.emitRow(pb, ivs); });
}
