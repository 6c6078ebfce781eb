//===- GemmLoops.cpp - tcc_kernel.gemm as a loop nest ---------------------===//
//
// One parallel loop over the result's elements, a sequential dot product
// over k in f32, then the epilogue (alpha, bias, activation, residual) and one
// rounding to the result's type.
//
//===----------------------------------------------------------------------===//
#include "KernelLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tcc::loops;
namespace kernel = tcc::kernel;

namespace {

/// Indices into an operand of rank `rank` whose batch dims align right with
/// the result's (`batch`); a static size-1 dim is broadcast.
SmallVector<Value> batchIndices(Emitter &e, Value operand, ValueRange batch) {
  auto type = cast<MemRefType>(operand.getType());
  int64_t own = type.getRank() - 2, offset = static_cast<int64_t>(batch.size()) - own;
  SmallVector<Value> indices;
  for (int64_t j = 0; j < own; ++j)
    indices.push_back(type.getDimSize(j) == 1 ? e.index(0) : batch[offset + j]);
  return indices;
}

/// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), cuBLASLt's GELU.
Value geluTanh(Emitter &e, Value x) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Value cube = arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, x, x), x);
  Value inner = arith::AddFOp::create(b, loc, x, arith::MulFOp::create(b, loc, e.f32(0.044715), cube));
  Value t = math::TanhOp::create(b, loc, arith::MulFOp::create(b, loc, e.f32(0.7978845608028654), inner));
  Value half = arith::MulFOp::create(b, loc, e.f32(0.5), x);
  return arith::MulFOp::create(b, loc, half, arith::AddFOp::create(b, loc, e.f32(1.0), t));
}

} // namespace

void tcc::loops::lowerGemm(OpBuilder &b, kernel::GemmOp op) {
  Location loc = op.getLoc();
  Emitter e{b, loc};
  Value a = op.getA(), bm = op.getB(), c = op.getInit();
  auto ct = cast<MemRefType>(c.getType());
  int64_t rank = ct.getRank(), numBatch = rank - 2;
  Type elt = ct.getElementType();
  int64_t ra = cast<MemRefType>(a.getType()).getRank();
  Value k = e.dim(a, op.getTransposeA() ? ra - 2 : ra - 1);
  SmallVector<Value> lbs(rank, e.index(0)), steps(rank, e.index(1)), ubs;
  for (int64_t d = 0; d < rank; ++d)
    ubs.push_back(e.dim(c, d));
  scf::ParallelOp::create(b, loc, lbs, ubs, steps, [&](OpBuilder &pb, Location, ValueRange ivs) {
    Emitter p{pb, loc};
    ValueRange batch = ivs.take_front(numBatch);
    Value m = ivs[numBatch], n = ivs[numBatch + 1];
    Value zero = p.index(0), one = p.index(1);
    auto dot = scf::ForOp::create(
        pb, loc, zero, k, one, ValueRange{p.f32(0.0)},
        [&](OpBuilder &fb, Location, Value kk, ValueRange acc) {
          Emitter f{fb, loc};
          SmallVector<Value> ia = batchIndices(f, a, batch), ib = batchIndices(f, bm, batch);
          ia.append(op.getTransposeA() ? SmallVector<Value>{kk, m} : SmallVector<Value>{m, kk});
          ib.append(op.getTransposeB() ? SmallVector<Value>{n, kk} : SmallVector<Value>{kk, n});
          Value av = f.widen(f.load(a, ia));
          Value bv = f.widen(f.load(bm, ib));
          Value prod = arith::MulFOp::create(fb, loc, av, bv);
          scf::YieldOp::create(fb, loc, ValueRange{arith::AddFOp::create(fb, loc, acc[0], prod)});
        });
    Value y = dot.getResult(0);
    if (op.getAlpha().convertToDouble() != 1.0)
      y = arith::MulFOp::create(pb, loc, y, p.f32(op.getAlpha().convertToDouble()));
    if (Value bias = op.getBias())
      y = arith::AddFOp::create(pb, loc, y, p.widen(p.load(bias, n)));
    switch (op.getActivation()) {
    case kernel::Activation::none:
      break;
    case kernel::Activation::relu:
      y = arith::MaximumFOp::create(pb, loc, y, p.f32(0.0));
      break;
    case kernel::Activation::gelu_tanh:
      y = geluTanh(p, y);
      break;
    case kernel::Activation::gelu_erf: { // 0.5·y·(1 + erf(y/√2)), as aten.gelu
      Value scaled = arith::MulFOp::create(pb, loc, y, p.f32(0.7071067811865476));
      Value erf = math::ErfOp::create(pb, loc, scaled);
      Value gate = arith::AddFOp::create(pb, loc, p.f32(1.0), erf);
      Value half = arith::MulFOp::create(pb, loc, p.f32(0.5), y);
      y = arith::MulFOp::create(pb, loc, half, gate);
      break;
    }
    default: // the verifier allows no other
      llvm_unreachable("a GEMM epilogue takes relu, gelu_tanh or gelu_erf");
    }
    if (Value residual = op.getResidual())
      y = arith::AddFOp::create(pb, loc, y, p.widen(p.load(residual, ivs)));
    p.store(p.narrow(y, elt), c, ivs);
  });
}
