//===- SizeBounds.cpp - upper bounds of a function's dynamic sizes --------===//
#include "SizeBounds.h"

#include "dialects/TccGraph/IR/TccGraphDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using tcc::BoundFailure;
using tcc::SizeBounder;
using tcc::SizeRange;

namespace {

constexpr llvm::StringLiteral kSizesAttr = tcc::graph::TccGraphDialect::getSizesAttrName();
constexpr llvm::StringLiteral kSymbolsAttr = tcc::graph::TccGraphDialect::getSymbolsAttrName();

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
static std::optional<SizeRange> cornerRange(SizeRange a, SizeRange b, Fn fn) {
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
  return SizeRange{lo, hi};
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

} // namespace

FailureOr<SizeRange> SizeBounder::rangeOf(Value value) {
  if (auto it = known.find(value); it != known.end())
    return it->second;
  if (auto it = unknown.find(value); it != unknown.end()) {
    failure = it->second;
    return mlir::failure();
  }
  FailureOr<SizeRange> range = computeRange(value);
  if (succeeded(range))
    known[value] = *range;
  else
    unknown.try_emplace(value, *failure);
  return range;
}

FailureOr<SizeRange> SizeBounder::argumentDimRange(BlockArgument arg,
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
    return SizeRange{v, v};
  }
  auto symbol = dyn_cast<StringAttr>(entry);
  if (!symbol)
    return fail(arg.getLoc(), "'" + kSizesAttr + "' of function argument #" +
                                  llvm::Twine(argNo) +
                                  " must hold integers and symbol names");
  llvm::StringRef name = symbol.getValue().trim();
  int64_t literal;
  if (!name.getAsInteger(10, literal))
    return SizeRange{literal, literal};
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
  return SizeRange{min.getValue().getSExtValue(), max.getValue().getSExtValue()};
}

FailureOr<SizeRange> SizeBounder::dimRange(Value source, int64_t dim,
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
    return SizeRange{type.getDimSize(dim), type.getDimSize(dim)};

  if (auto arg = dyn_cast<BlockArgument>(source)) {
    if (arg.getOwner() == &func.getBody().front())
      return argumentDimRange(arg, dim);
    return fail(arg.getLoc(), "cannot bound a dimension of a block argument "
                              "of a nested region");
  }
  Operation *def = source.getDefiningOp();
  auto allocSize = [&](ValueRange dynamicSizes) -> FailureOr<SizeRange> {
    FailureOr<SizeRange> range =
        rangeOf(dynamicSizes[type.getDynamicDimIndex(dim)]);
    if (failed(range))
      return range;
    return SizeRange{std::max<int64_t>(range->lo, 0),
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
    SizeRange product{1, 1};
    SmallVector<ReassociationIndices> groups = collapse.getReassociationIndices();
    for (int64_t d : groups[dim]) {
      FailureOr<SizeRange> r = dimRange(collapse.getSrc(), d, user);
      if (failed(r))
        return r;
      std::optional<SizeRange> next = cornerRange(product, *r, mulOrNone);
      if (!next)
        return fail(def->getLoc(), "integer overflow while bounding a collapsed dimension");
      product = *next;
    }
    return product;
  }
  auto sizeRange = [&](OpFoldResult size) -> FailureOr<SizeRange> {
    if (std::optional<int64_t> c = getConstantIntValue(size))
      return SizeRange{*c, *c};
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

FailureOr<SizeRange> SizeBounder::affineRange(AffineExpr expr,
                                          ArrayRef<SizeRange> operands,
                                          unsigned numDims, Operation *op) {
  auto overflow = [&]() {
    return fail(op->getLoc(), "integer overflow while bounding '" +
                                  op->getName().getStringRef() + "'");
  };
  switch (expr.getKind()) {
  case AffineExprKind::Constant: {
    int64_t c = cast<AffineConstantExpr>(expr).getValue();
    return SizeRange{c, c};
  }
  case AffineExprKind::DimId:
    return operands[cast<AffineDimExpr>(expr).getPosition()];
  case AffineExprKind::SymbolId:
    return operands[numDims + cast<AffineSymbolExpr>(expr).getPosition()];
  default:
    break;
  }
  auto binary = cast<AffineBinaryOpExpr>(expr);
  FailureOr<SizeRange> lhs = affineRange(binary.getLHS(), operands, numDims, op);
  if (failed(lhs))
    return lhs;
  FailureOr<SizeRange> rhs = affineRange(binary.getRHS(), operands, numDims, op);
  if (failed(rhs))
    return rhs;
  std::optional<SizeRange> result;
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
    result = SizeRange{0, lhs->lo >= 0 ? std::min(lhs->hi, rhs->hi - 1)
                                   : rhs->hi - 1};
    break;
  default:
    break;
  }
  if (!result)
    return overflow();
  return *result;
}

FailureOr<SizeRange> SizeBounder::computeRange(Value value) {
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
      return SizeRange{v, v};
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
    FailureOr<SizeRange> in = rangeOf(op->getOperand(0));
    if (succeeded(in) && in->lo < 0)
      return culprit("reinterprets a possibly negative value as unsigned");
    return in;
  }
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    FailureOr<SizeRange> a = rangeOf(select.getTrueValue());
    if (failed(a))
      return a;
    FailureOr<SizeRange> b = rangeOf(select.getFalseValue());
    if (failed(b))
      return b;
    return SizeRange{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
  }

  // Affine ops: evaluate the map with interval arithmetic.
  auto affineResults = [&](AffineMap map,
                           ValueRange mapOperands) -> FailureOr<SmallVector<SizeRange>> {
    SmallVector<SizeRange> operands;
    for (Value operand : mapOperands) {
      FailureOr<SizeRange> range = rangeOf(operand);
      if (failed(range))
        return mlir::failure();
      operands.push_back(*range);
    }
    SmallVector<SizeRange> results;
    for (AffineExpr expr : map.getResults()) {
      FailureOr<SizeRange> range =
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
    FailureOr<SmallVector<SizeRange>> results =
        affineResults(apply.getAffineMap(), apply.getMapOperands());
    if (failed(results))
      return mlir::failure();
    return results->front();
  }
  if (isa<affine::AffineMinOp, affine::AffineMaxOp>(op)) {
    bool isMin = isa<affine::AffineMinOp>(op);
    AffineMap map = isMin ? cast<affine::AffineMinOp>(op).getMap()
                          : cast<affine::AffineMaxOp>(op).getMap();
    FailureOr<SmallVector<SizeRange>> results =
        affineResults(map, op->getOperands());
    if (failed(results))
      return mlir::failure();
    SizeRange range = results->front();
    for (SizeRange r : llvm::drop_begin(*results)) {
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
  FailureOr<SizeRange> lhs = rangeOf(op->getOperand(0));
  if (failed(lhs))
    return lhs;
  FailureOr<SizeRange> rhs = rangeOf(op->getOperand(1));
  if (failed(rhs))
    return rhs;
  bool isUnsigned = isa<arith::DivUIOp, arith::CeilDivUIOp, arith::RemUIOp,
                        arith::MaxUIOp, arith::MinUIOp>(op);
  if (isUnsigned && (lhs->lo < 0 || rhs->lo < 0))
    return culprit("reinterprets a possibly negative value as unsigned");

  std::optional<SizeRange> result;
  if (isa<arith::AddIOp>(op)) {
    result = cornerRange(*lhs, *rhs, checkedAdd);
  } else if (isa<arith::SubIOp>(op)) {
    result = cornerRange(*lhs, *rhs, checkedSub);
  } else if (isa<arith::MulIOp>(op)) {
    result = cornerRange(*lhs, *rhs, mulOrNone);
  } else if (isa<arith::MaxSIOp, arith::MaxUIOp>(op)) {
    result = SizeRange{std::max(lhs->lo, rhs->lo), std::max(lhs->hi, rhs->hi)};
  } else if (isa<arith::MinSIOp, arith::MinUIOp>(op)) {
    result = SizeRange{std::min(lhs->lo, rhs->lo), std::min(lhs->hi, rhs->hi)};
  } else {
    if (rhs->lo <= 0)
      return culprit("divides by a value that may be zero or negative");
    if (isa<arith::RemUIOp, arith::RemSIOp>(op)) {
      if (lhs->lo < 0)
        return culprit("takes the remainder of a possibly negative value");
      result = SizeRange{0, std::min(lhs->hi, rhs->hi - 1)};
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

