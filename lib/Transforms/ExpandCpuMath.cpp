//===- ExpandCpuMath.cpp - the CPU path's math in vectorizable forms -------===//
//
// LLVM's loop vectorizer takes a loop only when each of its operations has a
// vector form. On the CPU path three had none (remarks of
// `opt -O2 -pass-remarks-missed=loop-vectorize` on a softmax and a GELU, and
// the calls in their objects):
//   - `math.erf` became a call to libm's `erff`: "call instruction cannot be
//     vectorized", the whole GELU loop scalar;
//   - `math.exp` became `llvm.exp.f32`, which the vectorizer widens but the
//     x86 backend splits back into one `expf` call per lane (a softmax row's
//     exponentials: 14 `expf` call sites, no vector exp);
//   - `arith-expand` rewrote a softmax row's `arith.maximumf` into compares
//     and selects that LLVM does not recognise as a max reduction ("value
//     that could not be identified as reduction is used outside the loop"),
//     while `llvm.maximum` reductions vectorize (LLVM 22).
// So the hot transcendental functions become MLIR's polynomial
// approximations (plain arithmetic, which vectorizes at the target's full
// width), and float min/max stay intrinsics; selects of bf16 values become
// selects of their bits, which x86 lowers without libgcc. Vectorizing in
// MLIR (the vector dialect) instead would redo what LLVM already does for
// these loops (unit strides, runtime alias checks, remainders); what it
// lacked was the math.
//
//===----------------------------------------------------------------------===//
#include "tcc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>

#define DEBUG_TYPE "tcc-expand-cpu-math"

namespace tcc {
#define GEN_PASS_DEF_EXPANDCPUMATHPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

/// The functions approximated: those of softmax, log_softmax, GELU (erf and
/// tanh forms), SiLU/sigmoid, ELU and the log-likelihoods. Within a few ulp
/// of libm (MLIR's `math-polynomial-approximation` tests); inf, nan and the
/// overflow and underflow ranges are handled by the approximations. Not
/// sin/cos/atan: their argument reduction loses accuracy far from zero.
constexpr llvm::StringLiteral kApproximated[] = {"exp",  "expm1", "log", "log1p",
                                                 "log2", "tanh",  "erf"};

bool approximated(StringRef name) {
  name.consume_front("math.");
  return llvm::is_contained(kApproximated, name);
}

bool isBF16To(Type from, Type to, bool extend) {
  Type in = getElementTypeOrSelf(from), out = getElementTypeOrSelf(to);
  return extend ? in.isBF16() && out.isF32() : in.isF32() && out.isBF16();
}

/// A splat constant of `type` (f32 or a vector of f32).
Value splat(OpBuilder &b, Location loc, Type type, double value) {
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(vector, b.getFloatAttr(vector.getElementType(), value)));
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

/// MLIR's log and log2 approximations read the exponent from the bits and
/// take a subnormal input for 2^-126 times its mantissa: log(1e-40) came out
/// -87.3 instead of -92.1 (special.ndtri of a probability that small was
/// off by 0.36). A subnormal scaled by 2^23 is normal; the logarithm then
/// subtracts 23·ln 2 (23 for log2). Zero and negative inputs keep their
/// -inf and NaN.
void scaleSubnormalLogs(ArrayRef<Operation *> ops) {
  for (Operation *op : ops) {
    if (!isa<math::LogOp, math::Log2Op>(op) || !getElementTypeOrSelf(op->getResult(0).getType()).isF32())
      continue;
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value x = op->getOperand(0);
    Type type = x.getType();
    Value smallest = splat(b, loc, type, std::numeric_limits<float>::min());
    Value tiny = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, smallest);
    Value up = arith::MulFOp::create(b, loc, x, splat(b, loc, type, 8388608.0)); // 2^23
    op->setOperand(0, arith::SelectOp::create(b, loc, tiny, up, x));
    b.setInsertionPointAfter(op);
    Value log = op->getResult(0);
    double shift = isa<math::LogOp>(op) ? 23.0 * std::log(2.0) : 23.0;
    Value down = arith::SubFOp::create(b, loc, log, splat(b, loc, type, shift));
    Value result = arith::SelectOp::create(b, loc, tiny, down, log);
    log.replaceAllUsesExcept(result, llvm::SmallPtrSet<Operation *, 2>{down.getDefiningOp(),
                                                                       result.getDefiningOp()});
  }
}

/// A select of bf16 values as a select of their bits: the x86 backend has
/// no bf16 registers and promotes a `select bfloat` through f32, rounding
/// back with libgcc's __truncsfbf2, which libgcc 12 lacks (the model then
/// fails to load: index_select, scatter, masked_scatter, ... in bf16). The
/// bits are the value, so choosing them is the same select.
void selectBF16AsBits(Operation *root) {
  SmallVector<arith::SelectOp> selects;
  root->walk([&](arith::SelectOp op) {
    if (getElementTypeOrSelf(op.getType()).isBF16())
      selects.push_back(op);
  });
  for (arith::SelectOp op : selects) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Type type = op.getType(), i16 = b.getI16Type();
    Type bits = isa<ShapedType>(type) ? cast<ShapedType>(type).clone(i16) : i16;
    Value onTrue = arith::BitcastOp::create(b, loc, bits, op.getTrueValue());
    Value onFalse = arith::BitcastOp::create(b, loc, bits, op.getFalseValue());
    Value chosen = arith::SelectOp::create(b, loc, op.getCondition(), onTrue, onFalse);
    Value back = arith::BitcastOp::create(b, loc, type, chosen);
    op.replaceAllUsesWith(back);
    op.erase();
  }
}

struct ExpandCpuMathPass : tcc::impl::ExpandCpuMathPassBase<ExpandCpuMathPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    MLIRContext *ctx = &getContext();
    if (failed(approximate(root)))
      return signalPassFailure();

    // What arith-expand did, but for float min/max (llvm.maximum, llvm.minnum,
    // ... are reductions the loop vectorizer takes; compares and selects are
    // not) and integer min/max (llvm.smax, ...: the same).
    RewritePatternSet patterns(ctx);
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateExpandBFloat16Patterns(patterns);
    arith::populateExpandScalingExtTruncPatterns(patterns);
    ConversionTarget target(*ctx);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addIllegalOp<arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp,
                        arith::ScalingExtFOp, arith::ScalingTruncFOp>();
    target.addDynamicallyLegalOp<arith::ExtFOp>([](arith::ExtFOp op) {
      return !isBF16To(op.getIn().getType(), op.getType(), /*extend=*/true);
    });
    target.addDynamicallyLegalOp<arith::TruncFOp>([](arith::TruncFOp op) {
      return !isBF16To(op.getIn().getType(), op.getType(), /*extend=*/false);
    });
    if (failed(applyPartialConversion(root, target, std::move(patterns))))
      return signalPassFailure();
    selectBF16AsBits(root);
  }

  LogicalResult approximate(Operation *root) {
    SmallVector<Operation *> ops;
    llvm::DenseSet<Operation *> fmasBefore;
    root->walk([&](Operation *op) {
      if (isa<math::FmaOp>(op))
        fmasBefore.insert(op);
      else if (op->getDialect() && isa<math::MathDialect>(op->getDialect()) &&
               approximated(op->getName().getStringRef()))
        ops.push_back(op);
    });
    if (ops.empty())
      return success();
    scaleSubnormalLogs(ops);
    // Only these ops and what their rewrites create: a greedy rewrite of the
    // whole module would fold and simplify every kernel, work for nobody.
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, approximated);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    config.enableFolding(false);
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      return root->emitError("tcc-expand-cpu-math: the polynomial approximations did not converge");
    if (fma)
      return success();
    // Without FMA hardware llvm.fma is a call to fmaf, one lane at a time:
    // the approximations' multiply-adds as two roundings instead (their
    // error bounds hold either way). A model's own fma keeps its semantics.
    SmallVector<math::FmaOp> split;
    root->walk([&](math::FmaOp op) {
      if (!fmasBefore.contains(op))
        split.push_back(op);
    });
    for (math::FmaOp op : split) {
      OpBuilder b(op);
      Value product = arith::MulFOp::create(b, op.getLoc(), op.getA(), op.getB());
      Value sum = arith::AddFOp::create(b, op.getLoc(), product, op.getC());
      op.replaceAllUsesWith(sum);
      op.erase();
    }
    return success();
  }
};

} // namespace
