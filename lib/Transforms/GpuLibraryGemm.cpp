//===- GpuLibraryGemm.cpp - matmul-shaped generics to cuBLASLt calls ------===//
//
// On the CUDA path a contraction lowered to loops is one thread per output
// element walking k: far from cuBLAS. This pass recognizes the planned
// program's matmuls (TccGraphToLinalg/Matmul.cpp: loops batch..., m, n, k;
// transposes folded into the operands' maps) and calls tcc_gemm_f32
// (include/tcc/Runtime/CublasLtGemm.h) instead, folding the zero fill before
// and the bias/activation generic after into cuBLASLt's beta and epilogue.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/CublasLtGemm.h"
#include "tcc/Transforms/Passes.h"
#include "tcc/Transforms/BufferMetadata.h"
#include "tcc/Transforms/PlannedEntry.h"
#include "tcc/Transforms/ZeroInit.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/Support/Debug.h"

#include <cmath>
#include <optional>

#define DEBUG_TYPE "tcc-gpu-library-gemm"

namespace tcc {
#define GEN_PASS_DEF_GPULIBRARYGEMMPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

constexpr const char *kGemmFunction = "tcc_gemm_f32";

//===----------------------------------------------------------------------===//
// Matching the contraction
//===----------------------------------------------------------------------===//

/// One operand of the GEMM as the runtime sees it.
struct GemmOperand {
  Value memref;
  bool transposed = false; ///< A stored (k, m) / B stored (n, k)
  bool batched = false;    ///< false: one matrix shared by every batch
};

struct Contraction {
  linalg::GenericOp op;
  GemmOperand a, b;
  Value c;
  unsigned numBatch = 0;
};

bool isF32(Type t) { return t.isF32(); }

/// f32, innermost dim contiguous; more than one batch dim only with an
/// identity layout (so they collapse into one batch stride).
bool hasGemmLayout(Value v, bool collapsesBatches) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type || !isF32(type.getElementType()) || type.getRank() < 1)
    return false;
  if (type.getLayout().isIdentity())
    return true;
  if (collapsesBatches)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return strides.back() == 1;
}

/// yield(addf(out, mulf(in0, in1))), operands of either op in either order.
bool isMulAddBody(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  if (body.getNumArguments() != 3 || !llvm::hasNItems(body.without_terminator(), 2))
    return false;
  for (BlockArgument arg : body.getArguments())
    if (!isF32(arg.getType()))
      return false;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value out = body.getArgument(2);
  Value product = add.getLhs() == out ? add.getRhs() : add.getRhs() == out ? add.getLhs() : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : arith::MulFOp();
  if (!mul)
    return false;
  Value in0 = body.getArgument(0), in1 = body.getArgument(1);
  return (mul.getLhs() == in0 && mul.getRhs() == in1) ||
         (mul.getLhs() == in1 && mul.getRhs() == in0);
}

std::optional<Contraction> matchContraction(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return std::nullopt;
  unsigned numLoops = op.getNumLoops();
  if (numLoops < 3)
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned i = 0; i < numLoops; ++i)
    if ((iterators[i] == utils::IteratorType::reduction) != (i == numLoops - 1))
      return std::nullopt;
  if (!isMulAddBody(op))
    return std::nullopt;

  Contraction match;
  match.op = op;
  match.numBatch = numLoops - 3;
  unsigned mDim = match.numBatch, nDim = mDim + 1, kDim = mDim + 2;
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap outMap = op.getMatchingIndexingMap(init);
  if (outMap.getNumResults() != numLoops - 1)
    return std::nullopt;
  for (unsigned i = 0; i < numLoops - 1; ++i)
    if (outMap.getResult(i) != getAffineDimExpr(i, op.getContext()))
      return std::nullopt;
  match.c = init->get();
  if (!hasGemmLayout(match.c, match.numBatch > 1))
    return std::nullopt;

  bool haveA = false, haveB = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    unsigned rank = map.getNumResults();
    if (rank < 2)
      return std::nullopt;
    auto row = dyn_cast<AffineDimExpr>(map.getResult(rank - 2));
    auto col = dyn_cast<AffineDimExpr>(map.getResult(rank - 1));
    if (!row || !col)
      return std::nullopt;
    GemmOperand operand;
    operand.memref = input->get();
    bool isA;
    unsigned r = row.getPosition(), c = col.getPosition();
    if ((r == mDim && c == kDim) || (r == kDim && c == mDim)) {
      isA = true;
      operand.transposed = r == kDim;
    } else if ((r == kDim && c == nDim) || (r == nDim && c == kDim)) {
      isA = false;
      operand.transposed = r == nDim;
    } else {
      return std::nullopt;
    }
    // Leading dims: all the batch dims in order, or none / constant 0.
    unsigned leading = rank - 2;
    bool allBatch = leading == match.numBatch && leading > 0, allZero = true;
    for (unsigned i = 0; i < leading; ++i) {
      AffineExpr e = map.getResult(i);
      auto d = dyn_cast<AffineDimExpr>(e);
      auto k = dyn_cast<AffineConstantExpr>(e);
      allBatch &= d && d.getPosition() == i;
      allZero &= k && k.getValue() == 0;
    }
    if (!allBatch && !allZero)
      return std::nullopt;
    operand.batched = allBatch;
    if (!hasGemmLayout(operand.memref, operand.batched && match.numBatch > 1))
      return std::nullopt;
    if (isA ? haveA : haveB)
      return std::nullopt;
    (isA ? haveA : haveB) = true;
    (isA ? match.a : match.b) = operand;
  }
  if (!haveA || !haveB)
    return std::nullopt;
  return match;
}

//===----------------------------------------------------------------------===//
// Matching the zero fill before and the epilogue after
//===----------------------------------------------------------------------===//

/// The nearest op before/after `op` in its block that touches memory.
Operation *neighbourWithEffects(Operation *op, bool forward) {
  for (Operation *p = forward ? op->getNextNode() : op->getPrevNode(); p;
       p = forward ? p->getNextNode() : p->getPrevNode())
    if (!isMemoryEffectFree(p))
      return p;
  return nullptr;
}


/// Whether an op after `op` in its block uses `buffer`.
bool usedAfter(Value buffer, Operation *op) {
  for (Operation *p = op->getNextNode(); p; p = p->getNextNode())
    if (llvm::is_contained(p->getOperands(), buffer))
      return true;
  return false;
}

bool isConstant(Value v, double expected) {
  FloatAttr attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return false;
  double value = attr.getValueAsDouble();
  return std::abs(value - expected) <= 1e-6 * std::abs(expected);
}

/// `v` is OpTy(x, y) or OpTy(y, x) with pred(x, y) true.
template <typename OpTy>
bool matchCommutative(Value v, llvm::function_ref<bool(Value, Value)> pred) {
  auto op = v.getDefiningOp<OpTy>();
  return op && (pred(op.getLhs(), op.getRhs()) || pred(op.getRhs(), op.getLhs()));
}

/// y = max(x, 0).
bool isRelu(Value y, Value x) {
  auto isZero = [](Value v) { return matchPattern(v, m_AnyZeroFloat()); };
  auto pred = [&](Value l, Value r) { return l == x && isZero(r); };
  return matchCommutative<arith::MaximumFOp>(y, pred) ||
         matchCommutative<arith::MaxNumFOp>(y, pred);
}

/// y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), as
/// LegalizeElementwise.cpp builds it, up to operand order.
bool isGeluTanh(Value y, Value x) {
  auto cube = [&](Value v) {
    return matchCommutative<arith::MulFOp>(v, [&](Value sq, Value x1) {
      return x1 == x && matchCommutative<arith::MulFOp>(
                            sq, [&](Value p, Value q) { return p == x && q == x; });
    });
  };
  auto inner = [&](Value v) { // x + 0.044715 x^3
    return matchCommutative<arith::AddFOp>(v, [&](Value x1, Value t) {
      return x1 == x && matchCommutative<arith::MulFOp>(t, [&](Value c3, Value k) {
               return cube(c3) && isConstant(k, 0.044715);
             });
    });
  };
  auto onePlusTanh = [&](Value v) {
    return matchCommutative<arith::AddFOp>(v, [&](Value t, Value one) {
      auto tanh = t.getDefiningOp<math::TanhOp>();
      return isConstant(one, 1.0) && tanh &&
             matchCommutative<arith::MulFOp>(tanh.getOperand(), [&](Value s, Value k) {
               return inner(s) && isConstant(k, 0.7978845608028654);
             });
    });
  };
  auto halfX = [&](Value v) {
    return matchCommutative<arith::MulFOp>(
        v, [&](Value x1, Value k) { return x1 == x && isConstant(k, 0.5); });
  };
  return matchCommutative<arith::MulFOp>(
      y, [&](Value h, Value t) { return halfX(h) && onePlusTanh(t); });
}

/// The elementwise generic after a GEMM that adds bias[n] to its result
/// and/or applies an activation.
struct Epilogue {
  linalg::GenericOp op;
  Value bias;            ///< null: no bias
  Value output;          ///< the generic's init (may be C itself)
  int32_t activation = 0; ///< kGemmEpilogueRelu / kGemmEpilogueGelu, 0: none
  bool fullyFused = false; ///< false: the body does more after the bias add
  arith::AddFOp biasAdd;
  BlockArgument biasArg;
};

std::optional<Epilogue> matchEpilogue(const Contraction &match) {
  auto op = dyn_cast_or_null<linalg::GenericOp>(neighbourWithEffects(match.op, true));
  if (!op || !op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumDpsInputs() < 1 || op.getNumDpsInputs() > 2 ||
      op.getNumLoops() != op.getNumParallelLoops())
    return std::nullopt;
  unsigned rank = cast<MemRefType>(match.c.getType()).getRank();
  if (op.getNumLoops() != rank)
    return std::nullopt;
  Epilogue epilogue;
  epilogue.op = op;
  OpOperand *init = op.getDpsInitOperand(0);
  if (!op.getMatchingIndexingMap(init).isIdentity())
    return std::nullopt;
  epilogue.output = init->get();
  Block &body = op.getRegion().front();
  if (!body.getArgument(body.getNumArguments() - 1).use_empty())
    return std::nullopt;
  Value cArg, biasArg;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    BlockArgument arg = op.getMatchingBlockArgument(input);
    if (!isF32(arg.getType()))
      return std::nullopt;
    if (input->get() == match.c && map.isIdentity() && !cArg) {
      cArg = arg;
      continue;
    }
    // bias[n]: rank 1, read along the last loop, contiguous.
    auto type = dyn_cast<MemRefType>(input->get().getType());
    if (biasArg || !type || type.getRank() != 1 || !hasGemmLayout(input->get(), false) ||
        map.getNumResults() != 1 || map.getResult(0) != getAffineDimExpr(rank - 1, op.getContext()))
      return std::nullopt;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) || strides[0] != 1)
      return std::nullopt;
    biasArg = arg;
    epilogue.bias = input->get();
  }
  if (!cArg)
    return std::nullopt;

  // The value the activation (if any) is applied to.
  Value x = cArg;
  if (biasArg) {
    // c + bias first; the rest must not see c or bias again.
    if (!cArg.hasOneUse() || !biasArg.hasOneUse())
      return std::nullopt;
    auto add = dyn_cast<arith::AddFOp>(*cArg.getUsers().begin());
    if (!add || !((add.getLhs() == cArg && add.getRhs() == biasArg) ||
                  (add.getLhs() == biasArg && add.getRhs() == cArg)))
      return std::nullopt;
    epilogue.biasAdd = add;
    epilogue.biasArg = cast<BlockArgument>(biasArg);
    x = add.getResult();
  }
  Value result = cast<linalg::YieldOp>(body.getTerminator()).getValues()[0];
  unsigned computeOps = 0;
  for (Operation &inner : body.without_terminator())
    if (!inner.hasTrait<OpTrait::ConstantLike>())
      ++computeOps;
  unsigned biasOps = biasArg ? 1 : 0;
  if (result == x && computeOps == biasOps) {
    epilogue.fullyFused = biasArg != nullptr;
  } else if (computeOps == biasOps + 1 && isRelu(result, x)) {
    epilogue.activation = tcc::kGemmEpilogueRelu;
    epilogue.fullyFused = true;
  } else if (computeOps == biasOps + 9 && isGeluTanh(result, x)) {
    epilogue.activation = tcc::kGemmEpilogueGelu;
    epilogue.fullyFused = true;
  }
  // Without a bias, only a whole activation is worth taking.
  if (!biasArg && !epilogue.fullyFused)
    return std::nullopt;
  return epilogue;
}

//===----------------------------------------------------------------------===//
// Aliasing of planned buffers
//===----------------------------------------------------------------------===//

/// The bytes a buffer can touch: a function argument (inputs, outputs and
/// weights are distinct tensors), or a range of the arena (unknown if
/// dynamic).
struct Extent {
  Value root;
  std::optional<std::pair<int64_t, int64_t>> bytes; // [begin, end) in root
};

std::optional<Extent> extentOf(Value v) {
  while (true) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return Extent{arg, std::nullopt};
    Operation *def = v.getDefiningOp();
    if (auto view = dyn_cast_or_null<memref::ViewOp>(def)) {
      Extent extent{view.getSource(), std::nullopt};
      APInt shift;
      auto type = view.getType();
      if (view.getSizes().empty() && type.hasStaticShape() &&
          matchPattern(view.getByteShift(), m_ConstantInt(&shift))) {
        int64_t begin = shift.getSExtValue();
        int64_t size = type.getNumElements() * (type.getElementTypeBitWidth() / 8);
        extent.bytes = {begin, begin + size};
      }
      return extent;
    }
    // Same bytes (reshapes, casts) or a part of them (subviews).
    if (auto viewLike = dyn_cast_or_null<ViewLikeOpInterface>(def)) {
      v = viewLike.getViewSource();
      continue;
    }
    return std::nullopt;
  }
}

bool provablyDisjoint(Value x, Value y) {
  if (x == y)
    return false;
  std::optional<Extent> ex = extentOf(x), ey = extentOf(y);
  if (!ex || !ey)
    return false;
  if (ex->root != ey->root)
    return true; // distinct tensors, or the arena and a tensor
  if (!ex->bytes || !ey->bytes)
    return false;
  return ex->bytes->second <= ey->bytes->first || ey->bytes->second <= ex->bytes->first;
}

//===----------------------------------------------------------------------===//
// The call
//===----------------------------------------------------------------------===//


func::FuncOp declareGemmFunction(ModuleOp module) {
  if (auto f = module.lookupSymbol<func::FuncOp>(kGemmFunction))
    return f;
  MLIRContext *ctx = module.getContext();
  Builder b(ctx);
  Type i64 = b.getI64Type(), i32 = b.getI32Type(), ptr = LLVM::LLVMPointerType::get(ctx);
  // batch, m, n, k, a, lda, strideA, transA, b, ldb, strideB, transB,
  // c, ldc, strideC, accumulate, bias, epilogue, compute, stream
  SmallVector<Type> args = {i64, i64, i64, i64, ptr, i64, i64, i32, ptr, i64,
                            i64, i32, ptr, i64, i64, i32, ptr, i32, i32, ptr};
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto f = func::FuncOp::create(builder, module.getLoc(), kGemmFunction,
                                b.getFunctionType(args, {}));
  f.setPrivate();
  return f;
}



struct GpuLibraryGemmPass : tcc::impl::GpuLibraryGemmPassBase<GpuLibraryGemmPass> {
  using GpuLibraryGemmPassBase::GpuLibraryGemmPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (func::FuncOp func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (!tcc::isPlannedEntry(func))
        continue;
      SmallVector<Contraction> matches;
      for (auto op : func.getBody().front().getOps<linalg::GenericOp>())
        if (std::optional<Contraction> m = matchContraction(op))
          matches.push_back(*m);
      if (matches.empty())
        continue;
      FailureOr<Value> stream = tcc::streamArgument(func);
      if (failed(stream))
        return signalPassFailure();
      func::FuncOp callee = declareGemmFunction(module);
      for (Contraction &match : matches)
        rewrite(match, callee, *stream);
    }
  }

  void rewrite(Contraction match, func::FuncOp callee, Value stream) {
    tcc::ZeroInit fill = tcc::zeroInitOf(match.c, match.op, /*metadataReadsMayWrite=*/false);
    std::optional<Epilogue> epilogue = matchEpilogue(match);
    Value target = match.c; // what the GEMM writes
    int32_t code = tcc::kGemmEpilogueNone;
    bool eraseEpilogue = false;
    if (epilogue && epilogue->output != match.c) {
      // The epilogue writes elsewhere: C must be a temporary nothing reads
      // after it, and the GEMM must not read C (beta = 0) if it writes there.
      bool cIsTemporary = fill.zero && !isa<BlockArgument>(match.c) &&
                          !tcc::hasAliases(match.c) && !usedAfter(match.c, epilogue->op);
      if (!cIsTemporary)
        epilogue.reset();
    }
    if (epilogue) {
      bool redirect = epilogue->output != match.c;
      bool canWriteOutput = !redirect || (provablyDisjoint(epilogue->output, match.a.memref) &&
                                          provablyDisjoint(epilogue->output, match.b.memref) &&
                                          hasGemmLayout(epilogue->output, match.numBatch > 1));
      if (epilogue->fullyFused && canWriteOutput) {
        code = epilogue->activation | (epilogue->bias ? tcc::kGemmEpilogueBias : 0);
        target = epilogue->output;
        eraseEpilogue = true;
      } else if (epilogue->bias) {
        code = tcc::kGemmEpilogueBias; // the rest stays a kernel over C
      } else {
        epilogue.reset();
      }
    }
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] GEMM at " << match.op.getLoc() << ": zero fill "
                            << (fill.zero ? "yes" : "no") << ", epilogue " << code << "\n");

    // The call replaces the contraction and, when fused, the epilogue; the
    // buffers it reads metadata from are the contraction's operands and the
    // epilogue's output and bias, which may be defined (e.g. a memref.view of
    // the arena) between the two. Only memory-effect-free ops lie there
    // (matchEpilogue), so the call goes after the last of those definitions.
    Operation *insertAfter = match.op;
    SmallVector<Value> used = {match.a.memref, match.b.memref, target};
    if (epilogue && epilogue->bias)
      used.push_back(epilogue->bias);
    for (Value v : used) {
      Operation *def = v.getDefiningOp();
      if (def && def->getBlock() == match.op->getBlock() && insertAfter->isBeforeInBlock(def))
        insertAfter = def;
    }
    assert((!epilogue || insertAfter->isBeforeInBlock(epilogue->op)) &&
           "the call must precede the epilogue it leaves in place");
    OpBuilder b(match.op->getContext());
    b.setInsertionPointAfter(insertAfter);
    Location loc = match.op.getLoc();
    auto i64 = [&](Value index) {
      return arith::IndexCastOp::create(b, loc, b.getI64Type(), index).getResult();
    };
    auto c64 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 64).getResult(); };
    auto c32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 32).getResult(); };
    tcc::BufferMetadata a = tcc::readBufferMetadata(b, loc, match.a.memref);
    tcc::BufferMetadata bm = tcc::readBufferMetadata(b, loc, match.b.memref);
    tcc::BufferMetadata c = tcc::readBufferMetadata(b, loc, target);
    unsigned nb = match.numBatch;
    Value batch = arith::ConstantIndexOp::create(b, loc, 1);
    for (unsigned i = 0; i < nb; ++i)
      batch = arith::MulIOp::create(b, loc, batch, c.sizes[i]);
    unsigned ra = a.sizes.size(), rb = bm.sizes.size();
    Value k = match.a.transposed ? a.sizes[ra - 2] : a.sizes[ra - 1];
    auto batchStride = [&](const GemmOperand &o, const tcc::BufferMetadata &m) {
      return o.batched ? i64(m.strides[m.strides.size() - 3]) : c64(0);
    };
    Value bias = epilogue && epilogue->bias
                     ? tcc::readBufferMetadata(b, loc, epilogue->bias).pointer
                     : LLVM::ZeroOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()))
                           .getResult();
    SmallVector<Value> args = {
        i64(batch),
        i64(c.sizes[nb]),
        i64(c.sizes[nb + 1]),
        i64(k),
        a.pointer,
        i64(a.strides[ra - 2]),
        batchStride(match.a, a),
        c32(match.a.transposed),
        bm.pointer,
        i64(bm.strides[rb - 2]),
        batchStride(match.b, bm),
        c32(match.b.transposed),
        c.pointer,
        i64(c.strides[nb]),
        nb ? i64(c.strides[nb - 1]) : c64(0),
        c32(fill.zero ? 0 : 1),
        bias,
        c32(code),
        c32(bf16 ? tcc::kGemmComputeBf16 : tf32 ? tcc::kGemmComputeTf32 : tcc::kGemmComputeF32),
        stream};
    func::CallOp::create(b, loc, callee, args);

    if (epilogue && !eraseEpilogue)
      dropBias(*epilogue);
    if (eraseEpilogue)
      epilogue->op.erase();
    match.op.erase();
    if (fill.erasable)
      fill.erasable->erase();
    if (fill.sharedFill && fill.sharedFill.getOutputs()[0].hasOneUse())
      fill.sharedFill.erase();
  }

  /// The epilogue without its bias operand: the GEMM added it already.
  void dropBias(Epilogue &epilogue) {
    linalg::GenericOp op = epilogue.op;
    arith::AddFOp add = epilogue.biasAdd;
    add.getResult().replaceAllUsesWith(add.getLhs() == epilogue.biasArg ? add.getRhs()
                                                                        : add.getLhs());
    add.erase();
    // Inputs come first, so the bias's block argument number is its index.
    unsigned biasIndex = epilogue.biasArg.getArgNumber();
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : op.getDpsInputOperands()) {
      if (input->getOperandNumber() == biasIndex)
        continue;
      inputs.push_back(input->get());
      maps.push_back(op.getMatchingIndexingMap(input));
    }
    maps.push_back(op.getMatchingIndexingMap(op.getDpsInitOperand(0)));
    OpBuilder b(op);
    auto replacement = linalg::GenericOp::create(
        b, op.getLoc(), TypeRange{}, inputs, ValueRange{epilogue.output}, maps,
        op.getIteratorTypesArray());
    replacement.getRegion().takeBody(op.getRegion());
    replacement.getRegion().front().eraseArgument(biasIndex);
    op.erase();
  }
};

} // namespace
