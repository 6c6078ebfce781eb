//===- PlanMemory.cpp - Place every buffer in one liveness-planned arena --===//
//
// Implements `tcc-plan-memory`: sizes every top-level memref.alloc of a
// function (dynamic sizes at their upper bound), computes its live interval
// in program order, places the buffers with tcc::planMemoryGreedyBySize and
// rewrites each alloc into a memref.view of a new `%arena` argument.
//
//===----------------------------------------------------------------------===//

#include "tcc/Transforms/Passes.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "tcc/Support/MemoryPlanner.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <optional>
#include <string>

#define DEBUG_TYPE "tcc-plan-memory"

namespace tcc {
#define GEN_PASS_DEF_PLANMEMORYPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kSizesAttr = "tcc.sizes";
constexpr llvm::StringLiteral kSymbolsAttr = "tcc.symbols";
constexpr llvm::StringLiteral kArenaSizeAttr = "tcc.arena_size";
constexpr llvm::StringLiteral kMemoryPlanAttr = "tcc.memory_plan";

//===----------------------------------------------------------------------===//
// Bounding dynamic sizes
//===----------------------------------------------------------------------===//

/// A closed interval [lo, hi] that an integer SSA value is known to lie in.
struct Range {
  int64_t lo;
  int64_t hi;
};

/// Why a size could not be bounded: where, and a sentence naming the culprit.
struct BoundFailure {
  Location loc;
  std::string reason;
};

/// Interval arithmetic over integer/index values of one function. Leaves are
/// constants, static dims, and dims of function arguments bounded by their
/// `tcc.sizes` attribute and the module's `tcc.symbols` ranges.
class SizeBounder {
public:
  SizeBounder(func::FuncOp func, DictionaryAttr symbols)
      : func(func), symbols(symbols) {}

  /// The range of `value`; on failure, `getFailure()` says why.
  FailureOr<Range> rangeOf(Value value);
  const BoundFailure &getFailure() const { return *failure; }

private:
  FailureOr<Range> computeRange(Value value);
  FailureOr<Range> dimRange(Value source, int64_t dim, Operation *user);
  FailureOr<Range> argumentDimRange(BlockArgument arg, int64_t dim);
  FailureOr<Range> affineRange(AffineExpr expr, ArrayRef<Range> operands,
                               unsigned numDims, Operation *op);
  FailureOr<Range> fail(Location loc, const llvm::Twine &reason) {
    failure = BoundFailure{loc, reason.str()};
    return mlir::failure();
  }

  func::FuncOp func;
  DictionaryAttr symbols;
  llvm::DenseMap<Value, Range> known;
  llvm::DenseMap<Value, BoundFailure> unknown;
  std::optional<BoundFailure> failure;
};

static std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  return llvm::checkedAdd(a, b);
}
static std::optional<int64_t> checkedSub(int64_t a, int64_t b) {
  return llvm::checkedSub(a, b);
}

/// Smallest interval holding f(x, y) for the four corners of a x b; exact
/// for + - * and for division by a positive divisor (each is monotone in each
/// argument on such boxes). nullopt on overflow.
template <typename Fn>
static std::optional<Range> cornerRange(Range a, Range b, Fn fn) {
  int64_t lo = std::numeric_limits<int64_t>::max();
  int64_t hi = std::numeric_limits<int64_t>::min();
  for (int64_t x : {a.lo, a.hi})
    for (int64_t y : {b.lo, b.hi}) {
      std::optional<int64_t> v = fn(x, y);
      if (!v)
        return std::nullopt;
      lo = std::min(lo, *v);
      hi = std::max(hi, *v);
    }
  return Range{lo, hi};
}

static std::optional<int64_t> mulOrNone(int64_t a, int64_t b) {
  return llvm::checkedMul(a, b);
}

enum class DivKind { Trunc, Floor, Ceil };

static std::optional<int64_t> divide(int64_t a, int64_t b, DivKind kind) {
  switch (kind) {
  case DivKind::Trunc:
    return a / b;
  case DivKind::Floor:
    return llvm::divideFloorSigned(a, b);
  case DivKind::Ceil:
    return llvm::divideCeilSigned(a, b);
  }
  return std::nullopt;
}

FailureOr<Range> SizeBounder::rangeOf(Value value) {
  if (auto it = known.find(value); it != known.end())
    return it->second;
  if (auto it = unknown.find(value); it != unknown.end()) {
    failure = it->second;
    return mlir::failure();
  }
  FailureOr<Range> range = computeRange(value);
  if (succeeded(range))
    known[value] = *range;
  else
    unknown.try_emplace(value, *failure);
  return range;
}

FailureOr<Range> SizeBounder::argumentDimRange(BlockArgument arg,
                                               int64_t dim) {
  unsigned argNo = arg.getArgNumber();
  auto sizes = func.getArgAttrOfType<ArrayAttr>(argNo, kSizesAttr);
  if (!sizes)
    return fail(arg.getLoc(), "function argument #" + llvm::Twine(argNo) +
                                  " has no '" + kSizesAttr +
                                  "' attribute to bound its dimension " +
                                  llvm::Twine(dim));
  if (dim >= static_cast<int64_t>(sizes.size()))
    return fail(arg.getLoc(), "'" + kSizesAttr + "' of function argument #" +
                                  llvm::Twine(argNo) + " has no entry for " +
                                  "dimension " + llvm::Twine(dim));
  Attribute entry = sizes[dim];
  if (auto integer = dyn_cast<IntegerAttr>(entry)) {
    int64_t v = integer.getValue().getSExtValue();
    return Range{v, v};
  }
  auto symbol = dyn_cast<StringAttr>(entry);
  if (!symbol)
    return fail(arg.getLoc(), "'" + kSizesAttr + "' of function argument #" +
                                  llvm::Twine(argNo) +
                                  " must hold integers and symbol names");
  llvm::StringRef name = symbol.getValue().trim();
  int64_t literal;
  if (!name.getAsInteger(10, literal))
    return Range{literal, literal};
  bool bareSymbol = !name.empty() && !llvm::isDigit(name.front()) &&
                    llvm::all_of(name, [](char c) {
                      return llvm::isAlnum(c) || c == '_';
                    });
  if (!bareSymbol)
    return fail(arg.getLoc(), "size '" + name + "' of function argument #" +
                                  llvm::Twine(argNo) +
                                  " is an expression; only bare symbols and "
                                  "integers can be bounded");
  if (!symbols)
    return fail(arg.getLoc(), "symbol '" + name + "' of function argument #" +
                                  llvm::Twine(argNo) + " has no range: the " +
                                  "module has no '" + kSymbolsAttr +
                                  "' attribute");
  auto bounds = symbols.getAs<ArrayAttr>(name);
  if (!bounds)
    return fail(arg.getLoc(), "symbol '" + name + "' has no range in the "
                                  "module's '" + kSymbolsAttr + "'");
  auto min = bounds.size() == 2 ? dyn_cast<IntegerAttr>(bounds[0]) : nullptr;
  auto max = bounds.size() == 2 ? dyn_cast<IntegerAttr>(bounds[1]) : nullptr;
  if (!min || !max ||
      min.getValue().getSExtValue() > max.getValue().getSExtValue())
    return fail(arg.getLoc(), "range of symbol '" + name + "' in '" +
                                  kSymbolsAttr + "' must be [min, max]");
  return Range{min.getValue().getSExtValue(), max.getValue().getSExtValue()};
}

FailureOr<Range> SizeBounder::dimRange(Value source, int64_t dim,
                                       Operation *user) {
  auto type = dyn_cast<ShapedType>(source.getType());
  if (!type || !type.hasRank() || dim < 0 || dim >= type.getRank())
  {
    std::string typeText;
    llvm::raw_string_ostream os(typeText);
    os << source.getType();
    return fail(user->getLoc(), "'" + user->getName().getStringRef() + "' of dimension " +
                                    llvm::Twine(dim) + " of a value of type " + typeText +
                                    " cannot be bounded");
  }
  if (!type.isDynamicDim(dim))
    return Range{type.getDimSize(dim), type.getDimSize(dim)};

  if (auto arg = dyn_cast<BlockArgument>(source)) {
    if (arg.getOwner() == &func.getBody().front())
      return argumentDimRange(arg, dim);
    return fail(arg.getLoc(), "cannot bound a dimension of a block argument "
                              "of a nested region");
  }
  Operation *def = source.getDefiningOp();
  auto allocSize = [&](ValueRange dynamicSizes) -> FailureOr<Range> {
    FailureOr<Range> range =
        rangeOf(dynamicSizes[type.getDynamicDimIndex(dim)]);
    if (failed(range))
      return range;
    return Range{std::max<int64_t>(range->lo, 0),
                 std::max<int64_t>(range->hi, 0)};
  };
  if (auto alloc = dyn_cast<memref::AllocOp>(def))
    return allocSize(alloc.getDynamicSizes());
  if (auto alloca = dyn_cast<memref::AllocaOp>(def))
    return allocSize(alloca.getDynamicSizes());
  if (auto cast = dyn_cast<memref::CastOp>(def))
    return dimRange(cast.getSource(), dim, user);
  // Views: a collapsed dim is the product of its group; expanded and
  // subview sizes are index values with bounds of their own.
  if (auto collapse = dyn_cast<memref::CollapseShapeOp>(def)) {
    Range product{1, 1};
    SmallVector<ReassociationIndices> groups = collapse.getReassociationIndices();
    for (int64_t d : groups[dim]) {
      FailureOr<Range> r = dimRange(collapse.getSrc(), d, user);
      if (failed(r))
        return r;
      std::optional<Range> next = cornerRange(product, *r, mulOrNone);
      if (!next)
        return fail(def->getLoc(), "integer overflow while bounding a collapsed dimension");
      product = *next;
    }
    return product;
  }
  auto sizeRange = [&](OpFoldResult size) -> FailureOr<Range> {
    if (std::optional<int64_t> c = getConstantIntValue(size))
      return Range{*c, *c};
    return rangeOf(cast<Value>(size));
  };
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(def))
    return sizeRange(expand.getMixedOutputShape()[dim]);
  if (auto subview = dyn_cast<memref::SubViewOp>(def)) {
    // A rank-reducing subview drops unit dims; only same-rank ones here.
    if (subview.getSourceType().getRank() == type.getRank())
      return sizeRange(subview.getMixedSizes()[dim]);
  }
  return fail(def->getLoc(), "cannot bound dimension " + llvm::Twine(dim) +
                                 " of a value produced by '" +
                                 def->getName().getStringRef() + "'");
}

FailureOr<Range> SizeBounder::affineRange(AffineExpr expr,
                                          ArrayRef<Range> operands,
                                          unsigned numDims, Operation *op) {
  auto overflow = [&]() {
    return fail(op->getLoc(), "integer overflow while bounding '" +
                                  op->getName().getStringRef() + "'");
  };
  switch (expr.getKind()) {
  case AffineExprKind::Constant: {
    int64_t c = cast<AffineConstantExpr>(expr).getValue();
    return Range{c, c};
  }
  case AffineExprKind::DimId:
    return operands[cast<AffineDimExpr>(expr).getPosition()];
  case AffineExprKind::SymbolId:
    return operands[numDims + cast<AffineSymbolExpr>(expr).getPosition()];
  default:
    break;
  }
  auto binary = cast<AffineBinaryOpExpr>(expr);
  FailureOr<Range> lhs = affineRange(binary.getLHS(), operands, numDims, op);
  if (failed(lhs))
    return lhs;
  FailureOr<Range> rhs = affineRange(binary.getRHS(), operands, numDims, op);
  if (failed(rhs))
    return rhs;
  std::optional<Range> result;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    result = cornerRange(*lhs, *rhs, checkedAdd);
    break;
  case AffineExprKind::Mul:
    result = cornerRange(*lhs, *rhs, mulOrNone);
    break;
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv: {
    if (rhs->lo <= 0)
      return fail(op->getLoc(), "divisor in '" + op->getName().getStringRef() +
                                    "' may be zero or negative");
    DivKind kind = expr.getKind() == AffineExprKind::FloorDiv ? DivKind::Floor
                                                              : DivKind::Ceil;
    result = cornerRange(*lhs, *rhs, [&](int64_t a, int64_t b) {
      return divide(a, b, kind);
    });
    break;
  }
  case AffineExprKind::Mod:
    if (rhs->lo <= 0)
      return fail(op->getLoc(), "modulus in '" + op->getName().getStringRef() +
                                    "' may be zero or negative");
    result = Range{0, lhs->lo >= 0 ? std::min(lhs->hi, rhs->hi - 1)
                                   : rhs->hi - 1};
    break;
  default:
    break;
  }
  if (!result)
    return overflow();
  return *result;
}

FailureOr<Range> SizeBounder::computeRange(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return fail(arg.getLoc(), "the size is block argument #" +
                                  llvm::Twine(arg.getArgNumber()) +
                                  ", which has no known bound");
  Operation *op = value.getDefiningOp();
  auto culprit = [&](const llvm::Twine &what) {
    return fail(op->getLoc(), "'" + op->getName().getStringRef() + "' " +
                                  what);
  };
  auto overflow = [&]() { return culprit("overflows while being bounded"); };

  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    if (auto integer = dyn_cast<IntegerAttr>(constant.getValue())) {
      int64_t v = integer.getValue().getSExtValue();
      return Range{v, v};
    }
    return culprit("is not an integer constant");
  }
  if (auto dim = dyn_cast<memref::DimOp>(op)) {
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!index)
      return culprit("has a non-constant dimension index");
    return dimRange(dim.getSource(), *index, op);
  }
  if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!index)
      return culprit("has a non-constant dimension index");
    return dimRange(dim.getSource(), *index, op);
  }

  // Casts that keep the value.
  if (isa<arith::IndexCastOp, arith::ExtSIOp>(op))
    return rangeOf(op->getOperand(0));
  if (isa<arith::IndexCastUIOp, arith::ExtUIOp>(op)) {
    FailureOr<Range> in = rangeOf(op->getOperand(0));
    if (succeeded(in) && in->lo < 0)
      return culprit("reinterprets a possibly negative value as unsigned");
    return in;
  }
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    FailureOr<Range> a = rangeOf(select.getTrueValue());
    if (failed(a))
      return a;
    FailureOr<Range> b = rangeOf(select.getFalseValue());
    if (failed(b))
      return b;
    return Range{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
  }

  // Affine ops: evaluate the map with interval arithmetic.
  auto affineResults = [&](AffineMap map,
                           ValueRange mapOperands) -> FailureOr<SmallVector<Range>> {
    SmallVector<Range> operands;
    for (Value operand : mapOperands) {
      FailureOr<Range> range = rangeOf(operand);
      if (failed(range))
        return mlir::failure();
      operands.push_back(*range);
    }
    SmallVector<Range> results;
    for (AffineExpr expr : map.getResults()) {
      FailureOr<Range> range =
          affineRange(expr, operands, map.getNumDims(), op);
      if (failed(range))
        return mlir::failure();
      results.push_back(*range);
    }
    if (results.empty()) {
      (void)culprit("has an empty map");
      return mlir::failure();
    }
    return results;
  };
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    FailureOr<SmallVector<Range>> results =
        affineResults(apply.getAffineMap(), apply.getMapOperands());
    if (failed(results))
      return mlir::failure();
    return results->front();
  }
  if (isa<affine::AffineMinOp, affine::AffineMaxOp>(op)) {
    bool isMin = isa<affine::AffineMinOp>(op);
    AffineMap map = isMin ? cast<affine::AffineMinOp>(op).getMap()
                          : cast<affine::AffineMaxOp>(op).getMap();
    FailureOr<SmallVector<Range>> results =
        affineResults(map, op->getOperands());
    if (failed(results))
      return mlir::failure();
    Range range = results->front();
    for (Range r : llvm::drop_begin(*results)) {
      range.lo = isMin ? std::min(range.lo, r.lo) : std::max(range.lo, r.lo);
      range.hi = isMin ? std::min(range.hi, r.hi) : std::max(range.hi, r.hi);
    }
    return range;
  }

  // Binary integer arithmetic.
  if (op->getNumOperands() != 2 ||
      !isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivUIOp,
           arith::DivSIOp, arith::CeilDivSIOp, arith::CeilDivUIOp,
           arith::FloorDivSIOp, arith::RemUIOp, arith::RemSIOp,
           arith::MaxSIOp, arith::MaxUIOp, arith::MinSIOp, arith::MinUIOp>(
          op))
    return culprit("produces a size that cannot be bounded");
  FailureOr<Range> lhs = rangeOf(op->getOperand(0));
  if (failed(lhs))
    return lhs;
  FailureOr<Range> rhs = rangeOf(op->getOperand(1));
  if (failed(rhs))
    return rhs;
  bool isUnsigned = isa<arith::DivUIOp, arith::CeilDivUIOp, arith::RemUIOp,
                        arith::MaxUIOp, arith::MinUIOp>(op);
  if (isUnsigned && (lhs->lo < 0 || rhs->lo < 0))
    return culprit("reinterprets a possibly negative value as unsigned");

  std::optional<Range> result;
  if (isa<arith::AddIOp>(op)) {
    result = cornerRange(*lhs, *rhs, checkedAdd);
  } else if (isa<arith::SubIOp>(op)) {
    result = cornerRange(*lhs, *rhs, checkedSub);
  } else if (isa<arith::MulIOp>(op)) {
    result = cornerRange(*lhs, *rhs, mulOrNone);
  } else if (isa<arith::MaxSIOp, arith::MaxUIOp>(op)) {
    result = Range{std::max(lhs->lo, rhs->lo), std::max(lhs->hi, rhs->hi)};
  } else if (isa<arith::MinSIOp, arith::MinUIOp>(op)) {
    result = Range{std::min(lhs->lo, rhs->lo), std::min(lhs->hi, rhs->hi)};
  } else {
    if (rhs->lo <= 0)
      return culprit("divides by a value that may be zero or negative");
    if (isa<arith::RemUIOp, arith::RemSIOp>(op)) {
      if (lhs->lo < 0)
        return culprit("takes the remainder of a possibly negative value");
      result = Range{0, std::min(lhs->hi, rhs->hi - 1)};
    } else {
      DivKind kind = isa<arith::DivUIOp, arith::DivSIOp>(op) ? DivKind::Trunc
                     : isa<arith::FloorDivSIOp>(op)           ? DivKind::Floor
                                                              : DivKind::Ceil;
      result = cornerRange(*lhs, *rhs, [&](int64_t a, int64_t b) {
        return divide(a, b, kind);
      });
    }
  }
  if (!result)
    return overflow();
  return *result;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// One alloc with its size and live interval.
struct PlannedBuffer {
  memref::AllocOp alloc;
  tcc::BufferLifetime lifetime;
  SmallVector<memref::DeallocOp> deallocs;
};

class PlanMemoryPass : public tcc::impl::PlanMemoryPassBase<PlanMemoryPass> {
public:
  using Base::Base;

  void runOnOperation() override;

private:
  /// Plans `func`; returns its arena size, or failure after emitting errors.
  FailureOr<uint64_t> planFunction(func::FuncOp func, DictionaryAttr symbols);
  LogicalResult checkAlloc(memref::AllocOp alloc, Block &body);
  FailureOr<uint64_t> bufferBytes(memref::AllocOp alloc,
                                  SizeBounder &bounder,
                                  const DataLayout &layout);
  LogicalResult computeLifetime(PlannedBuffer &buffer, Block &body,
                                const llvm::DenseMap<Operation *, int64_t>
                                    &positions);
};

LogicalResult PlanMemoryPass::checkAlloc(memref::AllocOp alloc, Block &body) {
  MemRefType type = alloc.getType();
  if (alloc->getBlock() != &body)
    return alloc.emitOpError(
        "is inside a nested region; memory planning only places allocs at "
        "the top level of the function body");
  if (!type.getLayout().isIdentity())
    return alloc.emitOpError("has a non-identity layout ")
           << type.getLayout()
           << "; only identity-layout buffers can become views of the arena";
  if (type.getMemorySpace())
    return alloc.emitOpError("is in memory space ")
           << type.getMemorySpace()
           << "; the arena is in the default memory space";
  if (std::optional<uint64_t> align = alloc.getAlignment();
      align && *align > alignment)
    return alloc.emitOpError("requests alignment ")
           << *align << ", more than the arena's " << alignment.getValue();
  if (!isa<IntegerType, FloatType, IndexType, ComplexType, VectorType>(
          type.getElementType()))
    return alloc.emitOpError("has element type ")
           << type.getElementType() << " whose size is unknown";
  return success();
}

FailureOr<uint64_t> PlanMemoryPass::bufferBytes(memref::AllocOp alloc,
                                                SizeBounder &bounder,
                                                const DataLayout &layout) {
  MemRefType type = alloc.getType();
  Type elementType = type.getElementType();
  int64_t elementBytes = llvm::alignTo(
      layout.getTypeSize(elementType).getFixedValue(),
      layout.getTypeABIAlignment(elementType));
  std::optional<int64_t> bytes = elementBytes;
  unsigned dynamicIndex = 0;
  for (int64_t dim : type.getShape()) {
    int64_t extent = dim;
    if (ShapedType::isDynamic(dim)) {
      Value size = alloc.getDynamicSizes()[dynamicIndex++];
      FailureOr<Range> range = bounder.rangeOf(size);
      if (failed(range)) {
        const BoundFailure &why = bounder.getFailure();
        InFlightDiagnostic diag =
            alloc.emitOpError("cannot bound the size of this buffer for "
                              "memory planning: ")
            << why.reason;
        diag.attachNote(why.loc) << "the unbounded size comes from here";
        return diag;
      }
      extent = std::max<int64_t>(range->hi, 0);
      LLVM_DEBUG(llvm::dbgs() << "bounded dynamic size " << size << " to ["
                              << range->lo << ", " << range->hi << "]\n");
    }
    bytes = bytes ? llvm::checkedMul(*bytes, extent) : std::nullopt;
  }
  if (!bytes)
    return alloc.emitError("the intermediates cannot be planned: a buffer's size at the "
                           "largest sizes the export allows overflows 64 bits (a dynamic "
                           "dimension without a maximum?); give the dynamic dimensions a "
                           "maximum when exporting (torch.export.Dim(..., max=...))");
  return static_cast<uint64_t>(*bytes);
}

LogicalResult PlanMemoryPass::computeLifetime(
    PlannedBuffer &buffer, Block &body,
    const llvm::DenseMap<Operation *, int64_t> &positions) {
  memref::AllocOp alloc = buffer.alloc;
  int64_t first = positions.lookup(alloc);
  int64_t last = first;

  // Follow the buffer through everything that may alias it: results of the
  // ops using it (views, casts, reshapes, and conservatively any other op
  // with a memref or tensor result), and results of the top-level op that
  // encloses a nested use (a value yielded out of a region).
  llvm::SetVector<Value> aliases;
  aliases.insert(alloc.getResult());
  auto addAliases = [&](Operation *op) {
    for (Value result : op->getResults())
      if (isa<BaseMemRefType, TensorType>(result.getType()))
        aliases.insert(result);
  };
  for (size_t i = 0; i < aliases.size(); ++i) {
    Value alias = aliases[i];
    for (OpOperand &use : alias.getUses()) {
      Operation *user = use.getOwner();
      if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
        buffer.deallocs.push_back(dealloc);
        continue;
      }
      if (user->getName().getStringRef() == "bufferization.dealloc")
        return alloc.emitOpError("is released by 'bufferization.dealloc'; "
                                 "plan memory before buffer deallocation")
                   .attachNote(user->getLoc())
               << "released here";
      if (user->getBlock() == &body &&
          user->hasTrait<OpTrait::ReturnLike>()) {
        InFlightDiagnostic diag = alloc.emitOpError(
            "escapes the function, so it cannot live in the arena; "
            "bufferize with caller-provided outputs instead");
        diag.attachNote(user->getLoc()) << "returned here";
        return diag;
      }
      if (auto store = dyn_cast<memref::StoreOp>(user);
          store && store.getValueToStore() == alias) {
        InFlightDiagnostic diag = alloc.emitOpError(
            "escapes the function, so it cannot live in the arena");
        diag.attachNote(user->getLoc()) << "stored here";
        return diag;
      }
      Operation *top = body.findAncestorOpInBlock(*user);
      assert(top && "use outside of the function body");
      last = std::max(last, positions.lookup(top));
      addAliases(user);
      if (top != user)
        addAliases(top);
    }
  }
  buffer.lifetime.first = first;
  buffer.lifetime.last = last;
  return success();
}

FailureOr<uint64_t> PlanMemoryPass::planFunction(func::FuncOp func,
                                                 DictionaryAttr symbols) {
  SmallVector<memref::AllocOp> allocs;
  func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });

  ModuleOp module = getOperation();
  if (!SymbolTable::symbolKnownUseEmpty(func, module)) {
    if (allocs.empty())
      return 0;
    InFlightDiagnostic diag = func.emitOpError(
        "has callers in the module; inline it before memory planning, since "
        "its signature gains an arena argument");
    diag.attachNote(allocs.front().getLoc()) << "buffer allocated here";
    return diag;
  }
  if (!allocs.empty() && !func.getBody().hasOneBlock())
    return func.emitOpError("has more than one block; memory planning needs "
                            "a single-block body");

  // Check every alloc first so that all offenders are reported at once.
  Block &body = func.getBody().front();
  bool ok = true;
  for (memref::AllocOp alloc : allocs)
    ok &= succeeded(checkAlloc(alloc, body));
  if (!ok)
    return failure();

  llvm::DenseMap<Operation *, int64_t> positions;
  for (auto [index, op] : llvm::enumerate(body))
    positions[&op] = index;

  SizeBounder bounder(func, symbols);
  DataLayout layout = DataLayout::closest(func);
  SmallVector<PlannedBuffer> buffers;
  for (memref::AllocOp alloc : allocs) {
    PlannedBuffer buffer{alloc, {}, {}};
    FailureOr<uint64_t> bytes = bufferBytes(alloc, bounder, layout);
    if (failed(bytes))
      return failure(); // the first says why; the others would repeat it
    if (failed(computeLifetime(buffer, body, positions))) {
      ok = false;
      continue;
    }
    buffer.lifetime.bytes = *bytes;
    buffers.push_back(std::move(buffer));
  }
  if (!ok)
    return failure();

  std::vector<tcc::BufferLifetime> lifetimes;
  for (const PlannedBuffer &buffer : buffers)
    lifetimes.push_back(buffer.lifetime);
  tcc::MemoryPlan plan = tcc::planMemoryGreedyBySize(lifetimes, alignment);

  // Append the arena and turn every alloc into a view of it.
  OpBuilder builder(func.getContext());
  auto arenaType = MemRefType::get({ShapedType::kDynamic}, builder.getI8Type());
  DictionaryAttr arenaAttrs = builder.getDictionaryAttr(
      builder.getNamedAttr(tcc::kArenaAttrName, builder.getUnitAttr()));
  if (failed(func.insertArgument(func.getNumArguments(), arenaType, arenaAttrs,
                                 func.getLoc())))
    return func.emitOpError("cannot append the arena argument");
  Value arena = func.getArguments().back();

  SmallVector<Attribute> planAttrs;
  for (auto [buffer, offset] : llvm::zip_equal(buffers, plan.offsets)) {
    memref::AllocOp alloc = buffer.alloc;
    LLVM_DEBUG(llvm::dbgs() << "placing " << alloc << ": " << buffer.lifetime.bytes
                            << " bytes, live [" << buffer.lifetime.first << ", "
                            << buffer.lifetime.last << "] at " << offset
                            << "\n");
    planAttrs.push_back(builder.getDictionaryAttr({
        builder.getNamedAttr("offset", builder.getI64IntegerAttr(offset)),
        builder.getNamedAttr("bytes",
                             builder.getI64IntegerAttr(buffer.lifetime.bytes)),
        builder.getNamedAttr("first",
                             builder.getI64IntegerAttr(buffer.lifetime.first)),
        builder.getNamedAttr("last",
                             builder.getI64IntegerAttr(buffer.lifetime.last)),
    }));
    for (memref::DeallocOp dealloc : buffer.deallocs)
      dealloc.erase();
    builder.setInsertionPoint(alloc);
    Value byteShift =
        arith::ConstantIndexOp::create(builder, alloc.getLoc(), offset);
    auto view = memref::ViewOp::create(builder, alloc.getLoc(), alloc.getType(),
                                       arena, byteShift,
                                       alloc.getDynamicSizes());
    alloc.replaceAllUsesWith(view.getResult());
    alloc.erase();
  }
  func->setAttr(kMemoryPlanAttr, builder.getArrayAttr(planAttrs));
  func->setAttr(kArenaSizeAttr, builder.getI64IntegerAttr(plan.arenaBytes));
  return plan.arenaBytes;
}

void PlanMemoryPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (alignment == 0 || !llvm::isPowerOf2_64(alignment)) {
    module.emitError("tcc-plan-memory: alignment must be a power of two, got ")
        << alignment.getValue();
    return signalPassFailure();
  }
  auto symbols = module->getAttrOfType<DictionaryAttr>(kSymbolsAttr);
  if (!symbols && module->hasAttr(kSymbolsAttr)) {
    module.emitError("'") << kSymbolsAttr << "' must be a dictionary";
    return signalPassFailure();
  }

  uint64_t arenaBytes = 0;
  bool ok = true;
  for (func::FuncOp func : module.getOps<func::FuncOp>()) {
    if (func.isDeclaration())
      continue;
    // Already planned (the pass ran before): leave it alone.
    bool hasArena = llvm::any_of(
        llvm::seq<unsigned>(0, func.getNumArguments()),
        [&](unsigned i) { return func.getArgAttr(i, tcc::kArenaAttrName) != nullptr; });
    if (hasArena) {
      if (auto size = func->getAttrOfType<IntegerAttr>(kArenaSizeAttr))
        arenaBytes = std::max<uint64_t>(arenaBytes, size.getInt());
      continue;
    }
    FailureOr<uint64_t> bytes = planFunction(func, symbols);
    if (failed(bytes)) {
      ok = false;
      continue;
    }
    arenaBytes = std::max(arenaBytes, *bytes);
  }
  if (!ok)
    return signalPassFailure();
  module->setAttr(kArenaSizeAttr,
                  IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                   arenaBytes));
}

} // namespace
