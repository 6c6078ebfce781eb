//===- NarrowF64ToBF16ThroughF32.cpp - f64 to bf16 as PyTorch rounds it ---===//
//
// PyTorch builds a bfloat16 from a float, so a double becomes bfloat16 by two
// roundings (f64 to f32, then f32 to bf16). Each direct truncf from f64 to
// bf16 is split the same way: the answers match PyTorch's, and the CPU path
// never calls __truncdfbf2, which libgcc 12 lacks.
//
//===----------------------------------------------------------------------===//
#include "tcc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

namespace tcc {
#define GEN_PASS_DEF_NARROWF64TOBF16THROUGHF32PASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

struct NarrowF64ToBF16ThroughF32Pass
    : tcc::impl::NarrowF64ToBF16ThroughF32PassBase<NarrowF64ToBF16ThroughF32Pass> {
  void runOnOperation() override {
    SmallVector<arith::TruncFOp> direct;
    getOperation()->walk([&](arith::TruncFOp op) {
      if (getElementTypeOrSelf(op.getIn().getType()).isF64() &&
          getElementTypeOrSelf(op.getType()).isBF16())
        direct.push_back(op);
    });
    for (arith::TruncFOp op : direct) {
      OpBuilder b(op);
      Type f32 = b.getF32Type();
      Type mid = f32;
      if (auto shaped = dyn_cast<ShapedType>(op.getIn().getType()))
        mid = shaped.clone(f32);
      Value single = arith::TruncFOp::create(b, op.getLoc(), mid, op.getIn());
      op.getInMutable().assign(single);
    }
  }
};

} // namespace
