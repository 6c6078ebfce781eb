//===- ParallelizeCpuLoops.cpp - CPU parallel loops on the thread pool ----===//
//
// Implements `tcc-parallelize-cpu-loops`: the outer iterations of each
// top-level scf.parallel of the CPU path become a function that
// tcc_parallel_for (CpuParallel.h) runs on libgomp's team, the pool oneDNN's
// products use. The body reads what the loop captured from a struct of
// LLVM values (memref descriptors as the memref lowering lays them out),
// joined back to memrefs with unrealized casts that the LLVM conversion
// folds away. Why not MLIR's OpenMP dialect: CpuParallel.h.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/CpuParallel.h"
#include "tcc/Transforms/Passes.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

#include <cmath>
#include <optional>

#define DEBUG_TYPE "tcc-parallelize-cpu-loops"

namespace tcc {
#define GEN_PASS_DEF_PARALLELIZECPULOOPSPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

/// A trip count assumed where one is not known at compile time.
constexpr double kUnknownTrips = 64;

/// Fewest iterations of a loop's leading dims for them alone to be shared
/// among threads (a few chunks for each of a few cores).
constexpr double kMinLeadingIterations = 16;

/// `v`'s value when it is known at compile time: constants, dims of static
/// shapes, and index arithmetic on those.
std::optional<int64_t> staticValue(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto c = dyn_cast<arith::ConstantIndexOp>(def))
    return c.value();
  if (auto c = dyn_cast<arith::ConstantIntOp>(def))
    return c.value();
  if (auto dim = dyn_cast<memref::DimOp>(def)) {
    auto type = dyn_cast<MemRefType>(dim.getSource().getType());
    std::optional<int64_t> d = staticValue(dim.getIndex());
    if (type && d && *d >= 0 && *d < type.getRank() && !type.isDynamicDim(*d))
      return type.getDimSize(*d);
    return std::nullopt;
  }
  auto binary = [&](auto fn) -> std::optional<int64_t> {
    std::optional<int64_t> a = staticValue(def->getOperand(0)),
                           b = staticValue(def->getOperand(1));
    if (a && b)
      return fn(*a, *b);
    return std::nullopt;
  };
  if (isa<arith::MulIOp>(def))
    return binary([](int64_t a, int64_t b) { return a * b; });
  if (isa<arith::AddIOp>(def))
    return binary([](int64_t a, int64_t b) { return a + b; });
  if (isa<arith::SubIOp>(def))
    return binary([](int64_t a, int64_t b) { return a - b; });
  return std::nullopt;
}

double tripCount(Value lb, Value ub, Value step) {
  std::optional<int64_t> l = staticValue(lb), u = staticValue(ub), s = staticValue(step);
  if (l && u && s && *s > 0)
    return *u > *l ? static_cast<double>((*u - *l + *s - 1) / *s) : 0.0;
  return kUnknownTrips;
}

/// Estimated operations one execution of `block` performs.
double blockWork(Block &block) {
  double work = 0;
  for (Operation &op : block) {
    work += 1;
    if (auto loop = dyn_cast<scf::ForOp>(op))
      work += tripCount(loop.getLowerBound(), loop.getUpperBound(), loop.getStep()) *
              blockWork(*loop.getBody());
    else if (auto par = dyn_cast<scf::ParallelOp>(op)) {
      double trips = 1;
      for (auto [l, u, s] : llvm::zip(par.getLowerBound(), par.getUpperBound(), par.getStep()))
        trips *= tripCount(l, u, s);
      work += trips * blockWork(*par.getBody());
    } else
      for (Region &r : op.getRegions())
        for (Block &b : r)
          work += blockWork(b);
  }
  return work;
}

/// Why `loop` stays serial, or null when it can run on the pool.
const char *reasonToStaySerial(scf::ParallelOp loop) {
  if (loop.getNumResults())
    return "it carries reductions";
  for (Operation *p = loop->getParentOp(); p && !isa<func::FuncOp>(p); p = p->getParentOp())
    if (isa<LoopLikeOpInterface>(p))
      return "it is nested in a loop";
  WalkResult walk = loop.getBody()->walk([](Operation *op) {
    return isa<func::CallOp, cf::AssertOp>(op) ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return "its body calls a function or checks a value";
  return nullptr;
}

struct Outliner {
  ModuleOp module;
  SymbolTable &symbols;
  LLVMTypeConverter converter;
  int64_t minWork;
  func::FuncOp runtimeEntry;

  Outliner(ModuleOp module, SymbolTable &symbols, int64_t minWork)
      : module(module), symbols(symbols), converter(module.getContext()), minWork(minWork) {}

  func::FuncOp entry() {
    if (runtimeEntry)
      return runtimeEntry;
    MLIRContext *ctx = module.getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    OpBuilder b(ctx);
    b.setInsertionPointToStart(module.getBody());
    runtimeEntry = func::FuncOp::create(b, module.getLoc(), tcc::kParallelForFunction,
                                        b.getFunctionType({ptr, ptr, i64, i64, i64}, {}));
    runtimeEntry.setPrivate();
    return runtimeEntry;
  }

  /// Replaces `loop` (in `parent`) with a tcc_parallel_for call; false
  /// (and `loop` left alone) when the loop is too small to split or
  /// captures a value of a type the context cannot carry.
  bool run(scf::ParallelOp loop, func::FuncOp parent, unsigned index);
};

bool Outliner::run(scf::ParallelOp loop, func::FuncOp parent, unsigned index) {
  MLIRContext *ctx = module.getContext();
  Location loc = loop.getLoc();
  const unsigned dims = loop.getNumLoops();
  bool bodyLoops = loop.getBody()
                       ->walk([](LoopLikeOpInterface) { return WalkResult::interrupt(); })
                       .wasInterrupted();
  // The iterations split among threads: all but the innermost dim, which
  // stays whole for the vectorizer (a pointwise nest's row; the channels of
  // a channels-last pooling window, whose loops LLVM unrolls around it);
  // all dims of a 1-d loop, and of a row kernel (its body loops over the
  // row) whose outer dims are too few to share (b1 s128: [1, 128] rows).
  unsigned outer = dims == 1 ? 1 : dims - 1;
  if (bodyLoops && dims > 1) {
    double leading = 1;
    for (unsigned d = 0; d + 1 < dims; ++d)
      leading *= tripCount(loop.getLowerBound()[d], loop.getUpperBound()[d], loop.getStep()[d]);
    if (leading < kMinLeadingIterations)
      outer = dims;
  }
  double iterationWork = blockWork(*loop.getBody());
  std::optional<double> outerTrips = 1.0; // unset when not known statically
  for (unsigned d = 0; d < dims; ++d) {
    double trips =
        tripCount(loop.getLowerBound()[d], loop.getUpperBound()[d], loop.getStep()[d]);
    bool known = staticValue(loop.getLowerBound()[d]) && staticValue(loop.getUpperBound()[d]) &&
                 staticValue(loop.getStep()[d]);
    if (d >= outer)
      iterationWork *= trips;
    else if (!known)
      outerTrips.reset();
    else if (outerTrips)
      *outerTrips *= trips;
  }
  // A loop known to be small stays as it is; one of unknown size is split
  // at run time only when it has more than a grain of iterations.
  if (outerTrips &&
      (*outerTrips < 2 || *outerTrips * iterationWork < 2.0 * static_cast<double>(minWork)))
    return false;
  int64_t grain = std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(static_cast<double>(minWork) / iterationWork)));

  // What the loop reads from above: bounds, and values its body captures.
  llvm::SetVector<Value> captured;
  for (Value v : loop->getOperands())
    captured.insert(v);
  getUsedValuesDefinedAbove(loop.getRegion(), captured);
  SmallVector<Value> packed;
  SmallVector<Operation *> constants;
  SmallVector<Type> fields;
  for (Value v : captured) {
    Operation *def = v.getDefiningOp();
    if (def && def->hasTrait<OpTrait::ConstantLike>() && def->getNumOperands() == 0) {
      constants.push_back(def);
      continue;
    }
    Type type = v.getType();
    auto memref = dyn_cast<MemRefType>(type);
    if (!(memref || type.isIntOrIndexOrFloat()))
      return false;
    if (memref && !memref.isStrided())
      return false;
    Type field = converter.convertType(type);
    if (!field)
      return false;
    packed.push_back(v);
    fields.push_back(field);
  }
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto i64 = IntegerType::get(ctx, 64);
  auto contextType = LLVM::LLVMStructType::getLiteral(ctx, fields);

  // The outlined body: iterations [begin, end) of the outer dims.
  OpBuilder b(parent);
  b.setInsertionPointAfter(parent);
  auto bodyType = b.getFunctionType({ptr, i64, i64}, {});
  auto body = func::FuncOp::create(
      b, loc, (parent.getName() + "_parallel_" + Twine(index)).str(), bodyType);
  body.setPrivate();
  if (Attribute target = parent->getAttr(tcc::kTargetAttrName))
    body->setAttr(tcc::kTargetAttrName, target);
  symbols.insert(body);
  Block *entryBlock = body.addEntryBlock();
  b.setInsertionPointToStart(entryBlock);
  IRMapping map;
  for (Operation *c : constants)
    b.clone(*c, map);
  Value contextValue = LLVM::LoadOp::create(b, loc, contextType, entryBlock->getArgument(0));
  for (auto [i, v] : llvm::enumerate(packed)) {
    Value field = LLVM::ExtractValueOp::create(b, loc, contextValue,
                                                ArrayRef<int64_t>{static_cast<int64_t>(i)});
    Value local = field;
    if (v.getType().isIndex())
      local = arith::IndexCastOp::create(b, loc, v.getType(), field);
    else if (isa<MemRefType>(v.getType()))
      local = UnrealizedConversionCastOp::create(b, loc, v.getType(), field).getResult(0);
    map.map(v, local);
  }
  SmallVector<Value> lbs, steps, counts;
  for (unsigned d = 0; d < dims; ++d) {
    lbs.push_back(map.lookup(loop.getLowerBound()[d]));
    steps.push_back(map.lookup(loop.getStep()[d]));
  }
  for (unsigned d = 0; d < outer; ++d) {
    Value span = arith::SubIOp::create(b, loc, map.lookup(loop.getUpperBound()[d]), lbs[d]);
    counts.push_back(arith::CeilDivSIOp::create(b, loc, span, steps[d]));
  }
  Value begin = arith::IndexCastOp::create(b, loc, b.getIndexType(), entryBlock->getArgument(1));
  Value end = arith::IndexCastOp::create(b, loc, b.getIndexType(), entryBlock->getArgument(2));
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto cloneBody = [&](OpBuilder &ib, ValueRange ivs) {
    for (auto [arg, iv] : llvm::zip(loop.getBody()->getArguments(), ivs))
      map.map(arg, iv);
    for (Operation &op : loop.getBody()->without_terminator())
      ib.clone(op, map);
  };
  scf::ForOp::create(b, loc, begin, end, one, ValueRange{},
                     [&](OpBuilder &fb, Location, Value linear, ValueRange) {
    SmallVector<Value> ivs;
    SmallVector<Value> ks;
    if (outer == 1)
      ks.push_back(linear);
    else {
      auto split = affine::AffineDelinearizeIndexOp::create(fb, loc, linear, counts);
      ks.append(split.getResults().begin(), split.getResults().end());
    }
    for (unsigned d = 0; d < outer; ++d) {
      Value scaled = arith::MulIOp::create(fb, loc, ks[d], steps[d]);
      ivs.push_back(arith::AddIOp::create(fb, loc, lbs[d], scaled));
    }
    if (outer == dims) {
      cloneBody(fb, ivs);
    } else {
      SmallVector<Value> innerLbs(lbs.begin() + outer, lbs.end()),
          innerSteps(steps.begin() + outer, steps.end()), innerUbs;
      for (unsigned d = outer; d < dims; ++d)
        innerUbs.push_back(map.lookup(loop.getUpperBound()[d]));
      scf::ParallelOp::create(fb, loc, innerLbs, innerUbs, innerSteps,
                              [&](OpBuilder &pb, Location, ValueRange inner) {
                                SmallVector<Value> all(ivs);
                                all.append(inner.begin(), inner.end());
                                cloneBody(pb, all);
                              });
    }
    scf::YieldOp::create(fb, loc);
  });
  func::ReturnOp::create(b, loc);

  // The call: the context on the caller's stack, the iteration count.
  b.setInsertionPoint(loop);
  Value context = LLVM::PoisonOp::create(b, loc, contextType);
  for (auto [i, v] : llvm::enumerate(packed)) {
    Value field = v;
    if (v.getType().isIndex())
      field = arith::IndexCastOp::create(b, loc, i64, v);
    else if (isa<MemRefType>(v.getType()))
      field = UnrealizedConversionCastOp::create(b, loc, fields[i], v).getResult(0);
    context = LLVM::InsertValueOp::create(b, loc, context, field,
                                          ArrayRef<int64_t>{static_cast<int64_t>(i)});
  }
  Value oneI64 = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1));
  Value slot = LLVM::AllocaOp::create(b, loc, ptr, contextType, oneI64);
  LLVM::StoreOp::create(b, loc, context, slot);
  Value count = arith::ConstantIndexOp::create(b, loc, 1);
  for (unsigned d = 0; d < outer; ++d) {
    Value span = arith::SubIOp::create(b, loc, loop.getUpperBound()[d], loop.getLowerBound()[d]);
    Value trips = arith::CeilDivSIOp::create(b, loc, span, loop.getStep()[d]);
    count = arith::MulIOp::create(b, loc, count, trips);
  }
  Value countI64 = arith::IndexCastOp::create(b, loc, i64, count);
  Value zero = arith::ConstantIntOp::create(b, loc, i64, int64_t{0});
  Value grainValue = arith::ConstantIntOp::create(b, loc, i64, int64_t{grain});
  Value function =
      func::ConstantOp::create(b, loc, bodyType, FlatSymbolRefAttr::get(ctx, body.getName()));
  Value functionPtr = UnrealizedConversionCastOp::create(b, loc, ptr, function).getResult(0);
  func::CallOp::create(b, loc, entry(), ValueRange{functionPtr, slot, zero, countI64, grainValue});
  loop.erase();
  return true;
}

struct ParallelizeCpuLoopsPass
    : tcc::impl::ParallelizeCpuLoopsPassBase<ParallelizeCpuLoopsPass> {
  using ParallelizeCpuLoopsPassBase::ParallelizeCpuLoopsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    Outliner outliner(module, symbols, minWork);
    SmallVector<func::FuncOp> functions;
    for (auto f : module.getOps<func::FuncOp>())
      if (!f.isExternal() && tcc::isCpuFunction(f))
        functions.push_back(f);
    for (func::FuncOp f : functions) {
      SmallVector<scf::ParallelOp> loops;
      f.walk([&](scf::ParallelOp loop) {
        const char *why = reasonToStaySerial(loop);
        LLVM_DEBUG(if (why) llvm::dbgs() << "serial (" << why << "): " << loop.getLoc() << "\n");
        if (!why)
          loops.push_back(loop);
      });
      unsigned index = 0;
      for (scf::ParallelOp loop : loops)
        if (outliner.run(loop, f, index))
          ++index;
    }
  }
};

} // namespace
