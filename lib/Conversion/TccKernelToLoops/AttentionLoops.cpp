//===- AttentionLoops.cpp - tcc_kernel.attention as a loop nest -----------===//
//
// Loops over (batch, head, query); for each query an online softmax over the
// keys it sees (a running maximum and sum, the value rows accumulated in a
// stack buffer of Dv floats), then one division and one rounding. No Lq x Lk
// matrix is stored, on the CPU either. The loops are sequential: the one
// accumulator is allocated once, before them (a parallel CPU path needs one
// per thread).
//
//===----------------------------------------------------------------------===//
#include "KernelLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace tcc::loops;
namespace kernel = tcc::kernel;

namespace {

/// Indices of (b, h, l, d) in a tensor stored [B, H, L, D], or [B, L, H, D]
/// when `bshd`.
SmallVector<Value> at(bool bshd, Value b, Value h, Value l, Value d) {
  return bshd ? SmallVector<Value>{b, l, h, d} : SmallVector<Value>{b, h, l, d};
}

} // namespace

void tcc::loops::lowerAttention(OpBuilder &b, kernel::AttentionOp op) {
  Location loc = op.getLoc();
  Emitter e{b, loc};
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue(), out = op.getInit();
  Value mask = op.getMask();
  ArrayRef<bool> bshd = op.getBshd();
  Type elt = cast<MemRefType>(out.getType()).getElementType();
  auto canonicalDim = [&](Value x, bool swapped, int64_t d) {
    return e.dim(x, swapped && (d == 1 || d == 2) ? 3 - d : d);
  };
  Value batch = canonicalDim(q, bshd[0], 0), heads = canonicalDim(q, bshd[0], 1);
  Value lq = canonicalDim(q, bshd[0], 2), depth = canonicalDim(q, bshd[0], 3);
  Value kvHeads = canonicalDim(k, bshd[1], 1), lk = canonicalDim(k, bshd[1], 2);
  Value dv = canonicalDim(v, bshd[2], 3);
  Value group = arith::DivUIOp::create(b, loc, heads, kvHeads);
  float negInf = -std::numeric_limits<float>::infinity();

  Value acc = memref::AllocaOp::create(
      b, loc, MemRefType::get({ShapedType::kDynamic}, b.getF32Type()), ValueRange{dv});
  SmallVector<Value> lbs(3, e.index(0)), steps(3, e.index(1));
  scf::buildLoopNest(b, loc, lbs, ValueRange{batch, heads, lq}, steps,
                     [&](OpBuilder &sb, Location, ValueRange ivs) {
    Value bi = ivs[0], h = ivs[1], i = ivs[2];
    {
      Emitter s{sb, loc};
      Value zero = s.index(0), one = s.index(1);
      Value kvh = arith::DivUIOp::create(sb, loc, h, group);
      scf::ForOp::create(sb, loc, zero, dv, one, ValueRange{},
                         [&](OpBuilder &fb, Location, Value d, ValueRange) {
                           Emitter f{fb, loc};
                           f.store(f.f32(0.0), acc, d);
                           scf::YieldOp::create(fb, loc);
                         });
      // Keys j <= i when causal.
      Value end = lk;
      if (op.getCausal())
        end = arith::MinUIOp::create(sb, loc, lk, arith::AddIOp::create(sb, loc, i, one));
      auto keys = scf::ForOp::create(
          sb, loc, zero, end, one, ValueRange{s.f32(negInf), s.f32(0.0)},
          [&](OpBuilder &fb, Location, Value j, ValueRange state) {
            Emitter f{fb, loc};
            auto dot = scf::ForOp::create(
                fb, loc, zero, depth, one, ValueRange{f.f32(0.0)},
                [&](OpBuilder &db, Location, Value d, ValueRange acc) {
                  Emitter g{db, loc};
                  Value qv = g.widen(g.load(q, at(bshd[0], bi, h, i, d)));
                  Value kv = g.widen(g.load(k, at(bshd[1], bi, kvh, j, d)));
                  scf::YieldOp::create(db, loc, ValueRange{arith::AddFOp::create(
                                                    db, loc, acc[0], arith::MulFOp::create(db, loc, qv, kv))});
                });
            Value score = arith::MulFOp::create(fb, loc, dot.getResult(0),
                                                f.f32(op.getScale().convertToDouble()));
            if (mask) {
              auto mt = cast<MemRefType>(mask.getType());
              SmallVector<Value> full = {bi, h, i, j}, indices;
              if (mt.getRank() == 5) { // [B / P, P, H, Lq, Lk]: the batch split by P
                Value period = f.index(mt.getDimSize(1));
                full = {arith::DivUIOp::create(fb, loc, bi, period),
                        arith::RemUIOp::create(fb, loc, bi, period), h, i, j};
              }
              for (int64_t md = 0; md < mt.getRank(); ++md)
                indices.push_back(mt.getDimSize(md) == 1 ? f.index(0)
                                                         : full[full.size() - mt.getRank() + md]);
              Value m = f.load(mask, indices);
              if (mt.getElementType().isInteger(1))
                score = arith::SelectOp::create(fb, loc, m, score, f.f32(negInf));
              else
                score = arith::AddFOp::create(fb, loc, score, f.widen(m));
            }
            // Online softmax; a key at -inf changes nothing, and while every
            // key so far is -inf the state stays (-inf, 0) instead of NaN.
            Value runMax = state[0], runSum = state[1];
            Value newMax = arith::MaximumFOp::create(fb, loc, runMax, score);
            Value none = arith::CmpFOp::create(fb, loc, arith::CmpFPredicate::OEQ, newMax,
                                               f.f32(negInf));
            Value safeMax = arith::SelectOp::create(fb, loc, none, f.f32(0.0), newMax);
            Value correction = math::ExpOp::create(
                fb, loc, arith::SubFOp::create(fb, loc, runMax, safeMax));
            Value p = math::ExpOp::create(fb, loc, arith::SubFOp::create(fb, loc, score, safeMax));
            Value sum = arith::AddFOp::create(
                fb, loc, arith::MulFOp::create(fb, loc, runSum, correction), p);
            scf::ForOp::create(fb, loc, zero, dv, one, ValueRange{},
                               [&](OpBuilder &ab, Location, Value d, ValueRange) {
                                 Emitter g{ab, loc};
                                 Value vv = g.widen(g.load(v, at(bshd[2], bi, kvh, j, d)));
                                 Value scaled = arith::MulFOp::create(ab, loc, g.load(acc, d), correction);
                                 g.store(arith::AddFOp::create(ab, loc, scaled,
                                                               arith::MulFOp::create(ab, loc, p, vv)),
                                         acc, d);
                                 scf::YieldOp::create(ab, loc);
                               });
            scf::YieldOp::create(fb, loc, ValueRange{newMax, sum});
          });
      // A query that saw no key gets 0.
      Value total = keys.getResult(1);
      Value seen = arith::CmpFOp::create(sb, loc, arith::CmpFPredicate::OGT, total, s.f32(0.0));
      Value reciprocal = arith::DivFOp::create(sb, loc, s.f32(1.0), total);
      Value inv = arith::SelectOp::create(sb, loc, seen, reciprocal, s.f32(0.0));
      scf::ForOp::create(sb, loc, zero, dv, one, ValueRange{},
                         [&](OpBuilder &fb, Location, Value d, ValueRange) {
                           Emitter f{fb, loc};
                           Value y = arith::MulFOp::create(fb, loc, f.load(acc, d), inv);
                           f.store(f.narrow(y, elt), out, at(bshd[3], bi, h, i, d));
                           scf::YieldOp::create(fb, loc);
                         });
    }
  });
}
