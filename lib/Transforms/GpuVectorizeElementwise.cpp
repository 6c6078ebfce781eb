//===- GpuVectorizeElementwise.cpp - 16-byte accesses for pointwise ops ---===//
//
// A pointwise linalg.generic over contiguous buffers becomes one loop over
// 16-byte chunks: each iteration loads a vector per input, runs the body once
// per lane and stores a vector per output, so a thread issues one ld.v4/st.v4
// where it issued four scalar accesses. Broadcast inputs qualify too: a bias
// row is loaded as a vector at the chunk's column, a per-row value (softmax's
// max) once per chunk. The chunk at the end of the buffer,
// and every chunk when some buffer is not 16-byte aligned (a view into a
// tensor can start anywhere), takes a scalar loop instead; alignment is
// checked once, on the host, from the buffers' addresses.
//
//===----------------------------------------------------------------------===//
#include "tcc/Transforms/Passes.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tcc-gpu-vectorize-elementwise"

namespace tcc {
#define GEN_PASS_DEF_GPUVECTORIZEELEMENTWISEPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

/// Bytes of one vector access: the widest the hardware loads in one instruction.
constexpr int64_t kVectorBytes = 16;

/// How one operand of a vectorized op is read per chunk.
enum class Access {
  /// Identity map, contiguous buffer: one vector at the chunk's linear index.
  Contiguous,
  /// The innermost loop dim is the operand's innermost, contiguous dim (a
  /// bias row (d0, d1) -> (d1)): one vector at the chunk's first indices.
  InnerContiguous,
  /// The map ignores the innermost loop dim (a per-row value (d0, d1) ->
  /// (d0)): one scalar for the whole chunk.
  Broadcast,
  /// Anything else read (a strided view, a transpose, a row broadcast whose
  /// chunks straddle rows): one scalar load per lane at the lane's own
  /// indices. The stores stay vectors and a thread has a chunk's loads in
  /// flight at once, where the scalar loop has one.
  Gathered,
};

struct VectorPlan {
  /// Elements per vector access.
  int64_t width;
  /// Per operand, inputs then outputs.
  SmallVector<Access> access;
  /// Some operand is not Contiguous: chunks need their multi-dim indices.
  bool needsIndices = false;
  /// Chunks may straddle rows (the innermost size is dynamic or not a
  /// multiple of the width): a lane's indices are delinearized on their own.
  bool straddles = false;
};

/// How to vectorize `op`, or nothing when it does not qualify: all loops
/// parallel, no linalg.index, byte-sized scalar elements, contiguous outputs
/// with identity maps, and inputs read as in Access. Where chunks may
/// straddle rows, every input that is not Contiguous is Gathered. An input
/// that is also an output buffer is read in place only through the output's
/// own map (Contiguous): gathering it would race the stores.
std::optional<VectorPlan> planVectorization(linalg::GenericOp op) {
  unsigned numLoops = op.getNumLoops();
  if (numLoops == 0 || numLoops != op.getNumParallelLoops())
    return std::nullopt;
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() == 0)
    return std::nullopt;
  if (!op.getBody()->getOps<linalg::IndexOp>().empty())
    return std::nullopt;
  VectorPlan plan;
  int64_t widest = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      return std::nullopt;
    Type element = type.getElementType();
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
      return std::nullopt;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    bool contiguous = type.getLayout().isIdentity();
    Access access;
    if (map.isIdentity() && contiguous)
      access = Access::Contiguous;
    else if (op.isDpsInit(&operand) || llvm::is_contained(op.getDpsInits(), operand.get()))
      return std::nullopt;
    else if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      access = Access::Gathered;
    else if (!map.isFunctionOfDim(numLoops - 1))
      access = Access::Broadcast;
    else if (contiguous && map.getResults().back() == getAffineDimExpr(numLoops - 1, op.getContext()))
      access = Access::InnerContiguous;
    else
      access = Access::Gathered;
    plan.access.push_back(access);
    plan.needsIndices |= access != Access::Contiguous;
    if (access == Access::Contiguous || access == Access::InnerContiguous)
      widest = std::max<int64_t>(widest, element.getIntOrFloatBitWidth() / 8);
  }
  plan.width = widest ? kVectorBytes / widest : 0;
  if (plan.width < 2)
    return std::nullopt;
  auto shape = cast<MemRefType>(op.getDpsInitOperand(0)->get().getType()).getShape();
  // A static buffer smaller than one vector gains nothing.
  if (!ShapedType::isDynamicShape(shape) && ShapedType::getNumElements(shape) < plan.width)
    return std::nullopt;
  plan.straddles = ShapedType::isDynamic(shape.back()) || shape.back() % plan.width;
  if (plan.needsIndices && plan.straddles)
    for (Access &access : plan.access)
      if (access != Access::Contiguous)
        access = Access::Gathered;
  return plan;
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

/// True when the first element of `m` (identity layout: offset 0) sits on a
/// multiple of `bytes`.
Value isAligned(OpBuilder &b, Location loc, Value m, int64_t bytes) {
  Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, m);
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

/// The indices into `operand` of the loop nest's point `indices`.
SmallVector<Value> elementIndices(OpBuilder &b, Location loc, linalg::GenericOp op,
                                  ValueRange indices, OpOperand &operand) {
  SmallVector<OpFoldResult> at = affine::makeComposedFoldedMultiResultAffineApply(
      b, loc, op.getMatchingIndexingMap(&operand), getAsOpFoldResult(indices));
  return getValueOrCreateConstantIndexOp(b, loc, at);
}

void vectorize(linalg::GenericOp op, const VectorPlan &plan) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  int64_t width = plan.width;
  SmallVector<Value> flat;
  for (auto [operand, access] : llvm::zip_equal(op->getOpOperands(), plan.access))
    flat.push_back(access == Access::Contiguous ? flatten(b, loc, operand.get()) : Value());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value vw = arith::ConstantIndexOp::create(b, loc, width);
  Value output = op.getDpsInitOperand(0)->get();
  SmallVector<OpFoldResult> loopSizes = memref::getMixedSizes(b, loc, output);
  Value n = getValueOrCreateConstantIndexOp(
      b, loc,
      affine::makeComposedFoldedAffineApply(
          b, loc,
          [&] {
            AffineExpr product = b.getAffineConstantExpr(1);
            for (unsigned i = 0; i < loopSizes.size(); ++i)
              product = product * b.getAffineSymbolExpr(i);
            return product;
          }(),
          loopSizes));
  Value chunks = b.createOrFold<arith::CeilDivUIOp>(loc, n, vw);
  // Every buffer read or written by vector must start on a vector boundary:
  // the host decides once.
  Value aligned;
  for (auto [operand, access] : llvm::zip_equal(op->getOpOperands(), plan.access)) {
    if (access == Access::Broadcast || access == Access::Gathered)
      continue;
    auto type = cast<MemRefType>(operand.get().getType());
    int64_t bytes = width * type.getElementTypeBitWidth() / 8;
    Value a = isAligned(b, loc, operand.get(), bytes);
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
  auto delinearize = [&](Value linear) -> ValueRange {
    if (!plan.needsIndices)
      return {};
    return affine::AffineDelinearizeIndexOp::create(b, loc, linear, loopSizes).getResults();
  };

  // Vector path: one access per buffer whose value the body reads.
  b.setInsertionPointToStart(branch.thenBlock());
  SmallVector<Value> first = llvm::to_vector(delinearize(base));
  // The loop indices of each lane, for gathered inputs: the chunk's first
  // ones stepped along the innermost dim, or where chunks straddle rows,
  // each lane's linear index delinearized.
  SmallVector<SmallVector<Value>> laneIndices;
  if (llvm::is_contained(plan.access, Access::Gathered)) {
    laneIndices.push_back(first);
    for (int64_t lane = 1; lane < width; ++lane) {
      Value step = arith::ConstantIndexOp::create(b, loc, lane);
      if (plan.straddles) {
        laneIndices.push_back(
            llvm::to_vector(delinearize(arith::AddIOp::create(b, loc, base, step))));
        continue;
      }
      SmallVector<Value> at = first;
      at.back() = arith::AddIOp::create(b, loc, at.back(), step);
      laneIndices.push_back(at);
    }
  }
  SmallVector<Value> vectors(flat.size()), scalars(flat.size());
  SmallVector<SmallVector<Value>> gathered(flat.size());
  for (auto [i, operand] : llvm::enumerate(op->getOpOperands())) {
    if (body->getArgument(i).use_empty())
      continue;
    auto type = cast<MemRefType>(operand.get().getType());
    auto vt = VectorType::get({width}, type.getElementType());
    llvm::MaybeAlign align(width * type.getElementTypeBitWidth() / 8);
    switch (plan.access[i]) {
    case Access::Contiguous:
      vectors[i] = vector::LoadOp::create(b, loc, vt, flat[i], ValueRange{base},
                                          /*nontemporal=*/false, align);
      break;
    case Access::InnerContiguous:
      vectors[i] = vector::LoadOp::create(b, loc, vt, operand.get(),
                                          elementIndices(b, loc, op, first, operand),
                                          /*nontemporal=*/false, align);
      break;
    case Access::Broadcast:
      scalars[i] = memref::LoadOp::create(b, loc, operand.get(),
                                          elementIndices(b, loc, op, first, operand));
      break;
    case Access::Gathered:
      for (ArrayRef<Value> at : laneIndices)
        gathered[i].push_back(memref::LoadOp::create(b, loc, operand.get(),
                                                     elementIndices(b, loc, op, at, operand)));
      break;
    }
  }
  SmallVector<SmallVector<Value>> lanes(op.getNumDpsInits());
  for (int64_t lane = 0; lane < width; ++lane) {
    SmallVector<Value> args;
    for (auto [v, s, g] : llvm::zip_equal(vectors, scalars, gathered))
      args.push_back(v ? vector::ExtractOp::create(b, loc, v, lane).getResult()
                       : !g.empty() ? g[lane] : s);
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
  ValueRange at = delinearize(i);
  SmallVector<Value> args;
  for (auto [k, operand] : llvm::enumerate(op->getOpOperands())) {
    if (body->getArgument(k).use_empty())
      args.push_back(Value());
    else if (plan.access[k] == Access::Contiguous)
      args.push_back(memref::LoadOp::create(b, loc, flat[k], ValueRange{i}));
    else
      args.push_back(memref::LoadOp::create(b, loc, operand.get(),
                                            elementIndices(b, loc, op, at, operand)));
  }
  for (auto [j, y] : llvm::enumerate(cloneBody(b, op, args)))
    memref::StoreOp::create(b, loc, y, flat[numInputs + j], ValueRange{i});
  op.erase();
}

struct GpuVectorizeElementwisePass
    : tcc::impl::GpuVectorizeElementwisePassBase<GpuVectorizeElementwisePass> {
  void runOnOperation() override {
    // Only the CUDA path's functions (tcc-split-targets).
    if (!tcc::isCudaFunction(getOperation()))
      return;
    // A copy (an output filled from a view, a slice written out) is the
    // pointwise op that yields its input.
    SmallVector<linalg::CopyOp> copies;
    getOperation().walk([&](linalg::CopyOp op) {
      if (op.hasPureBufferSemantics() && !op->getParentOfType<scf::ParallelOp>())
        copies.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      (void)linalg::generalizeNamedOp(rewriter, copy);
    }
    SmallVector<std::pair<linalg::GenericOp, VectorPlan>> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op->getParentOfType<scf::ParallelOp>())
        return;
      if (std::optional<VectorPlan> plan = planVectorization(op))
        candidates.push_back({op, std::move(*plan)});
    });
    for (auto &[op, plan] : candidates)
      vectorize(op, plan);
  }
};

} // namespace
