//===- ConvLoops.cpp - tcc_kernel.conv as a loop nest ---------------------===//
//
// One parallel loop over the result's elements, a sequential sum over the
// group's input channels and the window in f32 (each input element through
// the input activation first), then the epilogue (bias, residual, the
// activation) and one rounding to the result's type. Padding is read as
// zeros: a window position outside the input loads a clamped element and
// selects 0, which keeps the inner loop free of branches.
//
//===----------------------------------------------------------------------===//
#include "KernelLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tcc::loops;
namespace kernel = tcc::kernel;

namespace {

/// `a`(x) in f32, as PyTorch computes relu, relu6, silu and hardswish.
Value activate(Emitter &e, kernel::Activation a, Value x) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  auto clamp = [&](Value v, double hi) {
    Value low = arith::MaximumFOp::create(b, loc, v, e.f32(0.0));
    return arith::MinimumFOp::create(b, loc, low, e.f32(hi));
  };
  switch (a) {
  case kernel::Activation::relu:
    return arith::MaximumFOp::create(b, loc, x, e.f32(0.0));
  case kernel::Activation::relu6:
    return clamp(x, 6.0);
  case kernel::Activation::silu: {
    Value e1 = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
    return arith::DivFOp::create(b, loc, x, arith::AddFOp::create(b, loc, e.f32(1.0), e1));
  }
  case kernel::Activation::hardswish: {
    Value gate = clamp(arith::AddFOp::create(b, loc, x, e.f32(3.0)), 6.0);
    Value product = arith::MulFOp::create(b, loc, x, gate);
    return arith::DivFOp::create(b, loc, product, e.f32(6.0));
  }
  default: // none (the verifier allows no gelu_tanh on a convolution)
    return x;
  }
}

} // namespace

void tcc::loops::lowerConv(OpBuilder &b, kernel::ConvOp op) {
  Location loc = op.getLoc();
  Emitter e{b, loc};
  Value x = op.getInput(), w = op.getWeight(), y = op.getInit();
  Type elt = cast<MemRefType>(y.getType()).getElementType();
  ArrayRef<int64_t> pad = op.getPadding(), stride = op.getStride(), dilation = op.getDilation();
  // NCHW: channel dim 1, spatial 2 and 3; NHWC: channel 3, spatial 1 and 2.
  int64_t cd = op.getChannelDim(), hd = op.getSpatialDim(0), wdim = op.getSpatialDim(1);
  Value h = e.dim(x, hd), wd = e.dim(x, wdim);
  Value perGroupIn = e.dim(w, cd), r = e.dim(w, hd), s = e.dim(w, wdim);
  Value filters = e.dim(w, 0);
  Value perGroupOut = arith::DivUIOp::create(b, loc, filters, e.index(op.getGroups()));
  SmallVector<Value> lbs(4, e.index(0)), steps(4, e.index(1)), ubs;
  for (int64_t d = 0; d < 4; ++d)
    ubs.push_back(e.dim(y, d));
  scf::ParallelOp::create(b, loc, lbs, ubs, steps, [&](OpBuilder &pb, Location, ValueRange ivs) {
    Emitter p{pb, loc};
    Value n = ivs[0], f = ivs[cd], oh = ivs[hd], ow = ivs[wdim];
    // An element of an NCHW (or NHWC) tensor by batch, channel, row, column.
    auto at = [&](Value b0, Value c0, Value h0, Value w0) {
      SmallVector<Value> idx(4);
      idx[0] = b0;
      idx[cd] = c0;
      idx[hd] = h0;
      idx[wdim] = w0;
      return idx;
    };
    Value zero = p.index(0), one = p.index(1);
    Value firstIn = arith::MulIOp::create(pb, loc, arith::DivUIOp::create(pb, loc, f, perGroupOut),
                                          perGroupIn);
    // Input row/column of window position (i, j): o·stride − pad + i·dilation.
    auto origin = [&](OpBuilder &ob, Value o, int64_t dim) {
      Value scaled = arith::MulIOp::create(ob, loc, o, Emitter{ob, loc}.index(stride[dim]));
      Value padding = Emitter{ob, loc}.index(pad[dim]);
      return arith::SubIOp::create(ob, loc, scaled, padding);
    };
    Value oh0 = origin(pb, oh, 0), ow0 = origin(pb, ow, 1);
    auto sum = scf::ForOp::create(
        pb, loc, zero, perGroupIn, one, ValueRange{p.f32(0.0)},
        [&](OpBuilder &cb, Location, Value ci, ValueRange cAcc) {
          Value channel = arith::AddIOp::create(cb, loc, firstIn, ci);
          auto rows = scf::ForOp::create(
              cb, loc, zero, r, one, cAcc, [&](OpBuilder &rb, Location, Value i, ValueRange rAcc) {
                Emitter re{rb, loc};
                Value ih = arith::AddIOp::create(
                    rb, loc, oh0, arith::MulIOp::create(rb, loc, i, re.index(dilation[0])));
                auto cols = scf::ForOp::create(
                    rb, loc, zero, s, one, rAcc, [&](OpBuilder &sb, Location, Value j, ValueRange sAcc) {
                      Emitter se{sb, loc};
                      Value iw = arith::AddIOp::create(
                          sb, loc, ow0, arith::MulIOp::create(sb, loc, j, se.index(dilation[1])));
                      auto inside = [&](Value v, Value size) {
                        Value ge = arith::CmpIOp::create(sb, loc, arith::CmpIPredicate::sge, v, zero);
                        Value lt = arith::CmpIOp::create(sb, loc, arith::CmpIPredicate::slt, v, size);
                        return arith::AndIOp::create(sb, loc, ge, lt).getResult();
                      };
                      Value rowInside = inside(ih, h);
                      Value colInside = inside(iw, wd);
                      Value ok = arith::AndIOp::create(sb, loc, rowInside, colInside);
                      auto clamp = [&](Value v, Value size) {
                        Value last = arith::SubIOp::create(sb, loc, size, one);
                        return arith::MinSIOp::create(sb, loc, arith::MaxSIOp::create(sb, loc, v, zero), last)
                            .getResult();
                      };
                      Value row = clamp(ih, h);
                      Value col = clamp(iw, wd);
                      Value xv = activate(se, op.getInputActivation(),
                                          se.widen(se.load(x, at(n, channel, row, col))));
                      Value wv = se.widen(se.load(w, at(f, ci, i, j)));
                      Value prod = arith::MulFOp::create(sb, loc, xv, wv);
                      prod = arith::SelectOp::create(sb, loc, ok, prod, se.f32(0.0));
                      scf::YieldOp::create(sb, loc, ValueRange{arith::AddFOp::create(sb, loc, sAcc[0], prod)});
                    });
                scf::YieldOp::create(rb, loc, cols.getResults());
              });
          scf::YieldOp::create(cb, loc, rows.getResults());
        });
    Value v = sum.getResult(0);
    if (Value bias = op.getBias())
      v = arith::AddFOp::create(pb, loc, v, p.widen(p.load(bias, f)));
    if (Value residual = op.getResidual())
      v = arith::AddFOp::create(pb, loc, v, p.widen(p.load(residual, ivs)));
    v = activate(p, op.getActivation(), v);
    p.store(p.narrow(v, elt), y, ivs);
  });
}
