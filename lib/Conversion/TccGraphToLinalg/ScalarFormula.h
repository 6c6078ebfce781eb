//===- ScalarFormula.h - scalar ATen code inside linalg bodies ----*- C++ -*-===//
//
// Private to the TccGraph-to-linalg conversion: a builder of the scalar ops
// (arith, math) that the special functions' generic bodies are made of, and
// the scalar functions that live in files of their own.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_CONVERSION_TCCGRAPHTOLINALG_SCALARFORMULA_H
#define TCC_LIB_CONVERSION_TCCGRAPHTOLINALG_SCALARFORMULA_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"

namespace tcc {

/// Creates one scalar op per call: floats of type `t`, degrees and loop
/// counters as i64, conditions as i1. (Callers pass at most one
/// IR-creating call as an argument: the order of ops is the caller's.)
struct Scalar {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type t;

  mlir::Value c(double v) { return b.create<mlir::arith::ConstantOp>(loc, b.getFloatAttr(t, v)); }
  mlir::Value ci(int64_t v) { return b.create<mlir::arith::ConstantOp>(loc, b.getI64IntegerAttr(v)); }
  mlir::Value add(mlir::Value x, mlir::Value y) { return b.create<mlir::arith::AddFOp>(loc, x, y); }
  mlir::Value sub(mlir::Value x, mlir::Value y) { return b.create<mlir::arith::SubFOp>(loc, x, y); }
  mlir::Value mul(mlir::Value x, mlir::Value y) { return b.create<mlir::arith::MulFOp>(loc, x, y); }
  mlir::Value div(mlir::Value x, mlir::Value y) { return b.create<mlir::arith::DivFOp>(loc, x, y); }
  mlir::Value addi(mlir::Value x, mlir::Value y) { return b.create<mlir::arith::AddIOp>(loc, x, y); }
  mlir::Value subi(mlir::Value x, mlir::Value y) { return b.create<mlir::arith::SubIOp>(loc, x, y); }
  mlir::Value negi(mlir::Value x) {
    mlir::Value zero = ci(0);
    return subi(zero, x);
  }
  mlir::Value cmp(mlir::arith::CmpFPredicate p, mlir::Value x, mlir::Value y) { return b.create<mlir::arith::CmpFOp>(loc, p, x, y); }
  mlir::Value cmpi(mlir::arith::CmpIPredicate p, mlir::Value x, mlir::Value y) { return b.create<mlir::arith::CmpIOp>(loc, p, x, y); }
  mlir::Value both(mlir::Value x, mlir::Value y) { return b.create<mlir::arith::AndIOp>(loc, x, y); }
  mlir::Value either(mlir::Value x, mlir::Value y) { return b.create<mlir::arith::OrIOp>(loc, x, y); }
  mlir::Value sel(mlir::Value cond, mlir::Value x, mlir::Value y) { return b.create<mlir::arith::SelectOp>(loc, cond, x, y); }
  mlir::Value toFloat(mlir::Value i) { return b.create<mlir::arith::SIToFPOp>(loc, t, i); }
  mlir::Value abs(mlir::Value x) { return b.create<mlir::math::AbsFOp>(loc, x); }
  mlir::Value acos(mlir::Value x) { return b.create<mlir::math::AcosOp>(loc, x); }
  mlir::Value cos(mlir::Value x) { return b.create<mlir::math::CosOp>(loc, x); }
  mlir::Value sin(mlir::Value x) { return b.create<mlir::math::SinOp>(loc, x); }
  mlir::Value floor(mlir::Value x) { return b.create<mlir::math::FloorOp>(loc, x); }
  mlir::Value pow(mlir::Value x, mlir::Value y) { return b.create<mlir::math::PowFOp>(loc, x, y); }
  mlir::Value exp(mlir::Value x) { return b.create<mlir::math::ExpOp>(loc, x); }
  mlir::Value expm1(mlir::Value x) { return b.create<mlir::math::ExpM1Op>(loc, x); }
  mlir::Value log(mlir::Value x) { return b.create<mlir::math::LogOp>(loc, x); }
  mlir::Value log1p(mlir::Value x) { return b.create<mlir::math::Log1pOp>(loc, x); }
  mlir::Value sqrt(mlir::Value x) { return b.create<mlir::math::SqrtOp>(loc, x); }
  mlir::Value erfc(mlir::Value x) { return b.create<mlir::math::ErfcOp>(loc, x); }
  mlir::Value neg(mlir::Value x) { return b.create<mlir::arith::NegFOp>(loc, x); }
  mlir::Value no(mlir::Value x) {
    mlir::Value yes = b.create<mlir::arith::ConstantIntOp>(loc, 1, 1);
    return b.create<mlir::arith::XOrIOp>(loc, x, yes);
  }
  /// a * b - c rounded once: the fused multiply-subtract that ATen's loops
  /// compile to (GCC's default contraction in its AVX2 kernels, nvcc's on
  /// the GPU), which decides results where the recurrences cancel or
  /// approach the overflow threshold.
  mlir::Value mulSub(mlir::Value a, mlir::Value x, mlir::Value c) {
    mlir::Value negC = b.create<mlir::arith::NegFOp>(loc, c);
    return b.create<mlir::math::FmaOp>(loc, a, x, negC);
  }
  /// float(v) for an integer constant, as C++ converts int64 results to T.
  mlir::Value fromInt(int64_t v) { return c(static_cast<double>(v)); }
  /// n % 2 == 0 (n >= 0 where it is used).
  mlir::Value even(mlir::Value n) {
    mlir::Value one = ci(1);
    mlir::Value bit = b.create<mlir::arith::AndIOp>(loc, n, one);
    mlir::Value zero = ci(0);
    return cmpi(mlir::arith::CmpIPredicate::eq, bit, zero);
  }
};

/// ATen's calc_igamma (or calc_igammac, `upper`) of (a, x) in the type of
/// `s`, given lgamma(a) and lgamma(1 + a) in it (IncompleteGamma.cpp).
mlir::Value buildIncompleteGamma(Scalar &s, bool upper, mlir::Value a, mlir::Value x,
                                 mlir::Value lgammaA, mlir::Value lgamma1pA);

} // namespace tcc

#endif // TCC_LIB_CONVERSION_TCCGRAPHTOLINALG_SCALARFORMULA_H
