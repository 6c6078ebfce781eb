//===- GpuVectorizeElementwise.cpp - 16-byte accesses for pointwise ops ---===//
//
// A pointwise linalg.generic over contiguous buffers becomes one loop over
// 16-byte chunks: each iteration loads a vector per input, runs the body once
// per lane and stores a vector per output, so a thread issues one ld.v4/st.v4
// where it issued four scalar accesses. The chunk at the end of the buffer,
// and every chunk when some buffer is not 16-byte aligned (a view into a
// tensor can start anywhere), takes a scalar loop instead; alignment is
// checked once, on the host, from the buffers' addresses.
//
//===----------------------------------------------------------------------===//
#include "tcc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

#define DEBUG_TYPE "tcc-gpu-vectorize-elementwise"

namespace tcc {
#define GEN_PASS_DEF_GPUVECTORIZEELEMENTWISEPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

/// Bytes of one vector access: the widest the hardware loads in one instruction.
constexpr int64_t kVectorBytes = 16;

/// Elements per vector access for `op`, or 0 when it does not qualify: all
/// loops parallel, identity maps, contiguous (identity-layout) buffers of
/// byte-sized scalar elements, no linalg.index.
int64_t vectorWidth(linalg::GenericOp op) {
  if (op.getNumLoops() == 0 || op.getNumLoops() != op.getNumParallelLoops())
    return 0;
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() == 0)
    return 0;
  if (!llvm::all_of(op.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); }))
    return 0;
  if (!op.getBody()->getOps<linalg::IndexOp>().empty())
    return 0;
  int64_t widest = 0;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || !type.getLayout().isIdentity())
      return 0;
    Type element = type.getElementType();
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
      return 0;
    widest = std::max<int64_t>(widest, element.getIntOrFloatBitWidth() / 8);
  }
  int64_t width = kVectorBytes / widest;
  // A static buffer smaller than one vector gains nothing.
  auto shape = cast<MemRefType>(op->getOperand(0).getType()).getShape();
  if (!ShapedType::isDynamicShape(shape) && ShapedType::getNumElements(shape) < width)
    return 0;
  return width >= 2 ? width : 0;
}

/// `m` as a 1-D buffer (a view; identity layout makes it contiguous).
Value flatten(OpBuilder &b, Location loc, Value m) {
  auto type = cast<MemRefType>(m.getType());
  if (type.getRank() == 1)
    return m;
  ReassociationIndices all;
  for (int64_t i = 0; i < type.getRank(); ++i)
    all.push_back(i);
  return memref::CollapseShapeOp::create(b, loc, m, ArrayRef<ReassociationIndices>{all});
}

/// True when the first element of `flat` sits on a multiple of `bytes`.
Value isAligned(OpBuilder &b, Location loc, Value flat, int64_t bytes) {
  Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, flat);
  Value rem = arith::RemUIOp::create(b, loc, address, arith::ConstantIndexOp::create(b, loc, bytes));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem,
                               arith::ConstantIndexOp::create(b, loc, 0));
}

/// Clones the body of `op` with its block arguments bound to `args` (null
/// for an argument the body does not read); returns the yielded values.
SmallVector<Value> cloneBody(OpBuilder &b, linalg::GenericOp op, ArrayRef<Value> args) {
  IRMapping mapping;
  for (auto [arg, value] : llvm::zip_equal(op.getBody()->getArguments(), args))
    if (value)
      mapping.map(arg, value);
  for (Operation &inner : op.getBody()->without_terminator())
    b.clone(inner, mapping);
  SmallVector<Value> results;
  for (Value v : op.getBody()->getTerminator()->getOperands())
    results.push_back(mapping.lookupOrDefault(v));
  return results;
}

void vectorize(linalg::GenericOp op, int64_t width) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> flat;
  for (Value operand : op->getOperands())
    flat.push_back(flatten(b, loc, operand));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value vw = arith::ConstantIndexOp::create(b, loc, width);
  Value n = b.createOrFold<memref::DimOp>(loc, flat.front(), zero);
  Value chunks = b.createOrFold<arith::CeilDivUIOp>(loc, n, vw);
  // Every buffer must start on a vector boundary: the host decides once.
  Value aligned;
  for (Value m : flat) {
    auto type = cast<MemRefType>(m.getType());
    int64_t bytes = width * type.getElementTypeBitWidth() / 8;
    Value a = isAligned(b, loc, m, bytes);
    aligned = aligned ? arith::AndIOp::create(b, loc, aligned, a) : a;
  }

  auto loop = scf::ParallelOp::create(b, loc, ValueRange{zero}, ValueRange{chunks},
                                      ValueRange{one});
  b.setInsertionPoint(loop.getBody()->getTerminator());
  Value base = arith::MulIOp::create(b, loc, loop.getInductionVars()[0], vw);
  Value end = arith::AddIOp::create(b, loc, base, vw);
  Value whole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, end, n);
  Value fast = arith::AndIOp::create(b, loc, whole, aligned);
  auto branch = scf::IfOp::create(b, loc, fast, /*withElseRegion=*/true);
  unsigned numInputs = op.getNumDpsInputs();
  Block *body = op.getBody();

  // Vector path: one access per buffer whose value the body reads.
  b.setInsertionPointToStart(branch.thenBlock());
  SmallVector<Value> vectors(flat.size());
  for (auto [i, m] : llvm::enumerate(flat)) {
    if (body->getArgument(i).use_empty())
      continue;
    auto type = cast<MemRefType>(m.getType());
    auto vt = VectorType::get({width}, type.getElementType());
    vectors[i] = vector::LoadOp::create(b, loc, vt, m, ValueRange{base}, /*nontemporal=*/false,
                                        llvm::MaybeAlign(width * type.getElementTypeBitWidth() / 8));
  }
  SmallVector<SmallVector<Value>> lanes(op.getNumDpsInits());
  for (int64_t lane = 0; lane < width; ++lane) {
    SmallVector<Value> args;
    for (Value v : vectors)
      args.push_back(v ? vector::ExtractOp::create(b, loc, v, lane).getResult() : Value());
    for (auto [j, y] : llvm::enumerate(cloneBody(b, op, args)))
      lanes[j].push_back(y);
  }
  for (unsigned j = 0; j < op.getNumDpsInits(); ++j) {
    Value m = flat[numInputs + j];
    auto type = cast<MemRefType>(m.getType());
    auto vt = VectorType::get({width}, type.getElementType());
    Value v = vector::FromElementsOp::create(b, loc, vt, lanes[j]);
    vector::StoreOp::create(b, loc, v, m, ValueRange{base}, /*nontemporal=*/false,
                            llvm::MaybeAlign(width * type.getElementTypeBitWidth() / 8));
  }

  // Scalar path: the tail, or a misaligned buffer.
  b.setInsertionPointToStart(branch.elseBlock());
  Value last = arith::MinUIOp::create(b, loc, end, n);
  auto tail = scf::ForOp::create(b, loc, base, last, one);
  b.setInsertionPoint(tail.getBody()->getTerminator());
  Value i = tail.getInductionVar();
  SmallVector<Value> args;
  for (auto [k, m] : llvm::enumerate(flat))
    args.push_back(body->getArgument(k).use_empty()
                       ? Value()
                       : memref::LoadOp::create(b, loc, m, ValueRange{i}).getResult());
  for (auto [j, y] : llvm::enumerate(cloneBody(b, op, args)))
    memref::StoreOp::create(b, loc, y, flat[numInputs + j], ValueRange{i});
  op.erase();
}

struct GpuVectorizeElementwisePass
    : tcc::impl::GpuVectorizeElementwisePassBase<GpuVectorizeElementwisePass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, int64_t>> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op->getParentOfType<scf::ParallelOp>())
        return;
      if (int64_t width = vectorWidth(op))
        candidates.push_back({op, width});
    });
    for (auto [op, width] : candidates)
      vectorize(op, width);
  }
};

} // namespace
