//===- KernelCost.cpp - what one kernel computes and moves ----------------===//
//
// Products count 2 operations per multiply-add of their definition
// (attention: both products, its causal triangle exact; a recurrence: every
// weight matrix once per step and sequence); generated loops count the
// floating-point arithmetic of their body once per iteration. Bytes are the
// operands' element counts times their element size, each operand once: a
// lower bound, which a kernel that re-reads (a convolution's windows, a
// split reduction) exceeds.
//
//===----------------------------------------------------------------------===//
#include "tcc/Pipelines/KernelCost.h"

#include "dialects/TccKernel/IR/TccKernelOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;
namespace kernel = tcc::kernel;

namespace {

constexpr int64_t kUnknown = -1;

/// The product of `sizes`, or kUnknown if one is dynamic.
int64_t product(ArrayRef<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    if (ShapedType::isDynamic(s) || s < 0)
      return kUnknown;
    n *= s;
  }
  return n;
}

int64_t elementsOf(Value v) {
  auto type = dyn_cast<ShapedType>(v.getType());
  return type && type.hasRank() ? product(type.getShape()) : kUnknown;
}

/// Bytes of an element of `v`'s type (sub-byte types round up).
int64_t elementBytes(Value v) {
  Type elt = cast<ShapedType>(v.getType()).getElementType();
  if (auto complex = dyn_cast<ComplexType>(elt))
    return 2 * std::max<int64_t>(1, (complex.getElementType().getIntOrFloatBitWidth() + 7) / 8);
  if (elt.isIntOrFloat())
    return std::max<int64_t>(1, (elt.getIntOrFloatBitWidth() + 7) / 8);
  return 8; // index
}

/// a · b, or kUnknown if either is.
int64_t times(int64_t a, int64_t b) { return a < 0 || b < 0 ? kUnknown : a * b; }

/// Every shaped operand once: its elements times their size.
int64_t operandBytes(Operation *op) {
  llvm::SetVector<Value> operands;
  for (Value v : op->getOperands())
    if (isa<ShapedType>(v.getType()))
      operands.insert(v);
  int64_t bytes = 0;
  for (Value v : operands) {
    int64_t b = times(elementsOf(v), elementBytes(v));
    if (b < 0)
      return kUnknown;
    bytes += b;
  }
  return bytes;
}

int64_t gemmFlops(kernel::GemmOp g) {
  auto a = cast<ShapedType>(g.getA().getType());
  if (a.getRank() < 2)
    return kUnknown;
  int64_t k = a.getDimSize(a.getRank() - (g.getTransposeA() ? 2 : 1));
  if (ShapedType::isDynamic(k))
    return kUnknown;
  return times(times(elementsOf(g.getInit()), k), 2);
}

/// 2 · outputs · (weights per filter), for tcc_kernel.conv and qconv (int8
/// operations counted as flops).
int64_t convFlops(Value weight, Value init) {
  auto w = cast<ShapedType>(weight.getType());
  int64_t filters = w.getRank() ? w.getDimSize(0) : 0;
  int64_t perOutput = elementsOf(weight);
  if (filters <= 0 || perOutput < 0)
    return kUnknown;
  return times(times(elementsOf(init), perOutput / filters), 2);
}

int64_t attentionFlops(kernel::AttentionOp a) {
  using Tensor = kernel::AttentionOp::Tensor;
  SmallVector<int64_t> q = a.getCanonicalShape(Tensor::QueryTensor);
  SmallVector<int64_t> k = a.getCanonicalShape(Tensor::KeyTensor);
  SmallVector<int64_t> v = a.getCanonicalShape(Tensor::ValueTensor);
  if (q.size() != 4 || k.size() != 4 || v.size() != 4 || product(q) < 0 || product(k) < 0 ||
      product(v) < 0)
    return kUnknown;
  int64_t lq = q[2], lk = k[2];
  // Query i sees keys 0..i under the causal flag (all of them otherwise).
  int64_t pairs = lq * lk;
  if (a.getCausal()) {
    int64_t full = std::min(lq, lk); // rows 0..full-1 see i + 1 keys
    pairs = full * (full + 1) / 2 + (lq - full) * lk;
  }
  return 2 * q[0] * q[1] * pairs * (q[3] + v[3]);
}

int64_t rnnFlops(kernel::RnnOp r) {
  auto x = cast<ShapedType>(r.getInput().getType());
  if (x.getRank() != 3 || !x.hasStaticShape())
    return kUnknown;
  int64_t steps = x.getDimSize(r.getBatchFirst() ? 1 : 0);
  int64_t batch = x.getDimSize(r.getBatchFirst() ? 0 : 1);
  int64_t perStep = 0;
  for (Value w : r.getWeights())
    if (cast<ShapedType>(w.getType()).getRank() == 2)
      perStep += 2 * elementsOf(w);
  return steps * batch * perStep;
}

/// Floating-point arithmetic in a generated kernel's body, once per
/// iteration of its loops.
int64_t loopFlops(linalg::LinalgOp l) {
  int64_t perIteration = 0;
  for (Operation &inner : l->getRegion(0).front().without_terminator()) {
    bool floating = llvm::any_of(inner.getResultTypes(),
                                 [](Type t) { return isa<FloatType>(getElementTypeOrSelf(t)); });
    Dialect *dialect = inner.getDialect();
    if (floating && dialect && isa<arith::ArithDialect, math::MathDialect>(dialect) &&
        !isa<arith::ConstantOp, arith::SelectOp, arith::BitcastOp>(inner))
      ++perIteration;
  }
  SmallVector<int64_t> ranges = l.getStaticLoopRanges();
  return times(product(ranges), perIteration);
}

} // namespace

tcc::KernelCost tcc::kernelCost(Operation *op) {
  KernelCost cost;
  cost.bytes = operandBytes(op);
  cost.flops = llvm::TypeSwitch<Operation *, int64_t>(op)
                   .Case([](kernel::GemmOp g) { return gemmFlops(g); })
                   .Case([](kernel::ConvOp c) { return convFlops(c.getWeight(), c.getInit()); })
                   .Case([](kernel::QConvOp c) { return convFlops(c.getWeight(), c.getInit()); })
                   .Case([](kernel::AttentionOp a) { return attentionFlops(a); })
                   .Case([](kernel::RnnOp r) { return rnnFlops(r); })
                   .Case<linalg::CopyOp, memref::CopyOp, linalg::FillOp, kernel::ScatterOp>(
                       [](Operation *) { return int64_t{0}; })
                   .Case([](linalg::LinalgOp l) {
                     return l->getNumRegions() == 1 && !l->getRegion(0).empty() ? loopFlops(l)
                                                                                : kUnknown;
                   })
                   .Default([](Operation *) { return kUnknown; });
  // Attention reads only the canonical tensors through its views, not the
  // whole base buffers its operands may be.
  if (auto a = dyn_cast<kernel::AttentionOp>(op)) {
    using Tensor = kernel::AttentionOp::Tensor;
    int64_t bytes = 0;
    for (auto [tensor, value] : {std::pair{Tensor::QueryTensor, a.getQuery()},
                                 std::pair{Tensor::KeyTensor, a.getKey()},
                                 std::pair{Tensor::ValueTensor, a.getValue()},
                                 std::pair{Tensor::ResultTensor, a.getInit()}}) {
      int64_t b = times(product(a.getCanonicalShape(tensor)), elementBytes(value));
      bytes = b < 0 || bytes < 0 ? kUnknown : bytes + b;
    }
    if (Value mask = a.getMask())
      bytes = bytes < 0 || elementsOf(mask) < 0 ? kUnknown
                                                : bytes + elementsOf(mask) * elementBytes(mask);
    cost.bytes = bytes;
  }
  // A scatter reads its slices and the index and writes the slices: the
  // rest of its init (a whole key/value cache) is not touched.
  if (auto s = dyn_cast<kernel::ScatterOp>(op)) {
    int64_t bytes = times(elementsOf(s.getIndex()), elementBytes(s.getIndex()));
    for (Value source : s.getSources()) {
      int64_t slices = times(elementsOf(source), elementBytes(source));
      bytes = slices < 0 || bytes < 0 ? kUnknown : bytes + 2 * slices;
    }
    cost.bytes = bytes;
  }
  return cost;
}
