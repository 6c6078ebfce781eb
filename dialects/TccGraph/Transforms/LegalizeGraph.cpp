//===- LegalizeGraph.cpp - imported ATen operators to typed tcc_graph ops -===//
//
// Drives the per-family legalizer tables. Unsupported operators are collected
// first and reported together, each at its Python source line, so a user sees
// the whole list of what is missing in one run.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/ComplexLegalizers.h"
#include "dialects/TccGraph/Transforms/Legalizers.h"
#include "dialects/TccGraph/Transforms/SpecialFormula.h"
#include "dialects/TccGraph/Transforms/Passes.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSet.h"

#define DEBUG_TYPE "tcc-legalize-graph"

namespace tcc::graph {
#define GEN_PASS_DEF_LEGALIZEGRAPHPASS
#include "dialects/TccGraph/Transforms/Passes.h.inc"
} // namespace tcc::graph

using namespace mlir;
using namespace tcc::graph;

//===----------------------------------------------------------------------===//
// OperatorArgs
//===----------------------------------------------------------------------===//

Value OperatorArgs::tensor(StringRef name) const {
  for (auto [v, n] : llvm::zip(op.getOperands(), op.getOperandNames()))
    if (cast<StringAttr>(n).getValue() == name)
      return v;
  return nullptr;
}

SmallVector<Value> OperatorArgs::tensorList(StringRef name) const {
  SmallVector<Value> out;
  std::string prefix = (name + ".").str();
  for (auto [v, n] : llvm::zip(op.getOperands(), op.getOperandNames()))
    if (cast<StringAttr>(n).getValue().starts_with(prefix))
      out.push_back(v);
  return out;
}

bool OperatorArgs::has(StringRef name) const {
  return tensor(name) || op.getArgs().get(name);
}

// A BoolAttr is an IntegerAttr of type i1, whose getInt() sign-extends true to
// -1: bools are read as 0/1 before the integer case (fill(x, True) gave -1).
std::optional<int64_t> OperatorArgs::getInt(StringRef name) const {
  Attribute a = op.getArgs().get(name);
  if (auto b = dyn_cast_or_null<BoolAttr>(a))
    return b.getValue() ? 1 : 0;
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return i.getInt();
  return std::nullopt;
}

std::optional<double> OperatorArgs::getFloat(StringRef name) const {
  Attribute a = op.getArgs().get(name);
  if (auto f = dyn_cast_or_null<FloatAttr>(a))
    return f.getValueAsDouble();
  if (auto b = dyn_cast_or_null<BoolAttr>(a))
    return b.getValue() ? 1.0 : 0.0;
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return static_cast<double>(i.getInt());
  return std::nullopt;
}

std::optional<bool> OperatorArgs::getBool(StringRef name) const {
  if (auto a = dyn_cast_or_null<BoolAttr>(op.getArgs().get(name)))
    return a.getValue();
  return std::nullopt;
}

std::optional<SmallVector<int64_t>> OperatorArgs::getInts(StringRef name) const {
  Attribute a = op.getArgs().get(name);
  if (auto arr = dyn_cast_or_null<DenseI64ArrayAttr>(a))
    return SmallVector<int64_t>(arr.asArrayRef());
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return SmallVector<int64_t>{i.getInt()};
  return std::nullopt;
}

RankedTensorType OperatorArgs::resultType(unsigned i) const {
  return cast<RankedTensorType>(op.getResult(i).getType());
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

Value tcc::graph::makeSplat(OpBuilder &b, Location loc, RankedTensorType type, double value) {
  Type elementType = type.getElementType();
  Attribute attr;
  if (isa<FloatType>(elementType))
    attr = DenseElementsAttr::get(type, b.getFloatAttr(elementType, value));
  else
    attr = DenseElementsAttr::get(
        type, b.getIntegerAttr(elementType, static_cast<int64_t>(value)));
  return b.create<ConstantOp>(loc, type, cast<ElementsAttr>(attr));
}

Value tcc::graph::makeScalar(OpBuilder &b, Location loc, Type elementType,
                             double value) {
  return makeSplat(b, loc, RankedTensorType::get({}, elementType), value);
}

StringRef tcc::graph::operatorName(OperatorArgs &args) {
  StringRef name = args.getOp().getName();
  name.consume_front("torch.ops.");
  return name;
}

InFlightDiagnostic tcc::graph::operatorError(OperatorArgs &args) {
  return args.getOp().emitError("operator '") << operatorName(args) << "': ";
}

FailureOr<Value> tcc::graph::requiredTensor(OperatorArgs &args, StringRef name) {
  if (Value v = args.tensor(name))
    return v;
  return args.getOp().emitError("operator '") << operatorName(args) << "' needs tensor '"
                                              << name << "'";
}

FailureOr<Value> tcc::graph::tensorOrScalar(OperatorArgs &args, OpBuilder &b,
                                            StringRef name, Value like) {
  if (Value v = args.tensor(name))
    return v;
  std::optional<double> s = args.getFloat(name);
  if (!s)
    return args.getOp().emitError("operator '")
           << args.getOp().getName() << "' needs argument '" << name << "'";
  Type elt = cast<RankedTensorType>(like.getType()).getElementType();
  return makeScalar(b, args.getOp().getLoc(), elt, *s);
}

FailureOr<Value> tcc::graph::floatComputeOperand(OperatorArgs &args, OpBuilder &b,
                                                StringRef name) {
  FailureOr<Value> v = requiredTensor(args, name);
  if (failed(v))
    return failure();
  Type elt = args.resultType().getElementType();
  if (!isa<FloatType>(elt))
    return operatorError(args) << "needs a floating-point result";
  Type compute = elt.isF64() ? elt : Type(b.getF32Type());
  return makeCast(b, args.getOp().getLoc(), *v, compute);
}

Value tcc::graph::makeCast(OpBuilder &b, Location loc, Value v, Type elt) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getElementType() == elt)
    return v;
  return b.create<CastOp>(loc, RankedTensorType::get(t.getShape(), elt), v);
}

Value tcc::graph::makeIotaAt(OpBuilder &b, Location loc, int64_t n, Type elt, int64_t rank,
                             int64_t at, Value length) {
  SmallVector<Value> lengths;
  if (ShapedType::isDynamic(n))
    lengths.push_back(length);
  Value iota = b.create<IotaOp>(loc, RankedTensorType::get({n}, elt), b.getF64FloatAttr(0),
                                b.getF64FloatAttr(1), lengths);
  SmallVector<int64_t> shape(rank, 1);
  shape[at] = n;
  return makeReshape(b, loc, iota, shape);
}

int64_t tcc::graph::normalizeDim(int64_t dim, int64_t rank) {
  return dim < 0 ? dim + rank : dim;
}

Value tcc::graph::makeReshape(OpBuilder &b, Location loc, Value v,
                              ArrayRef<int64_t> shape) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getShape() == shape)
    return v;
  auto type = RankedTensorType::get(shape, t.getElementType());
  if (llvm::count_if(shape, ShapedType::isDynamic) > 1) {
    // Unit dims inserted or dropped (a keepdim, a select, a pairwise view):
    // the symbolic sizes are the input's own, in order.
    SmallVector<int64_t> kept;
    for (auto [d, size] : llvm::enumerate(t.getShape()))
      if (size != 1)
        kept.push_back(d);
    SmallVector<Value> sizes;
    size_t k = 0;
    for (int64_t size : shape) {
      if (size == 1)
        continue;
      if (k == kept.size())
        break;
      int64_t from = t.getShape()[kept[k]];
      if (ShapedType::isDynamic(size) != ShapedType::isDynamic(from) ||
          (!ShapedType::isDynamic(size) && size != from))
        break;
      if (ShapedType::isDynamic(size))
        sizes.push_back(b.create<tensor::DimOp>(loc, v, kept[k]));
      ++k;
    }
    if (k == kept.size() && (int64_t)sizes.size() == type.getNumDynamicDims())
      return b.create<ReshapeOp>(loc, type, v, sizes);
  }
  return b.create<ReshapeOp>(loc, type, v);
}

Value tcc::graph::dimIndex(OpBuilder &b, Location loc, Value v, int64_t d) {
  int64_t size = typeOf(v).getShape()[d];
  if (!ShapedType::isDynamic(size))
    return b.create<arith::ConstantIndexOp>(loc, size);
  return b.create<tensor::DimOp>(loc, v, d);
}

ArrayAttr tcc::graph::exportSizes(OperatorArgs &args, Value operand) {
  if (auto arg = dyn_cast<BlockArgument>(operand))
    if (auto fn = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()))
      return fn.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(),
                                            TccGraphDialect::getSizesAttrName());
  OperatorOp op = args.getOp();
  auto operands = op->getAttrOfType<ArrayAttr>(kOperandSizesAttrName);
  for (auto [i, v] : llvm::enumerate(op.getOperands()))
    if (v == operand && operands && i < operands.size())
      return dyn_cast<ArrayAttr>(operands[i]);
  auto results = op->getAttrOfType<ArrayAttr>(TccGraphDialect::getSizesAttrName());
  for (auto [i, v] : llvm::enumerate(op->getResults()))
    if (v == operand && results && i < results.size())
      return dyn_cast<ArrayAttr>(results[i]);
  return nullptr;
}

std::optional<int64_t> tcc::graph::largestSize(OperatorArgs &args, Value operand, int64_t dim) {
  OperatorOp op = args.getOp();
  ArrayAttr sizes = exportSizes(args, operand);
  if (!sizes || dim >= (int64_t)sizes.size())
    return std::nullopt;
  if (auto v = dyn_cast<IntegerAttr>(sizes[dim]))
    return v.getInt();
  auto symbol = dyn_cast<StringAttr>(sizes[dim]);
  auto module = op->getParentOfType<ModuleOp>();
  auto ranges = module ? module->getAttrOfType<DictionaryAttr>(TccGraphDialect::getSymbolsAttrName()) : nullptr;
  auto range = symbol && ranges ? ranges.getAs<ArrayAttr>(symbol.getValue()) : nullptr;
  if (!range || range.size() != 2)
    return std::nullopt;
  return cast<IntegerAttr>(range[1]).getInt();
}

bool tcc::graph::sameSize(OperatorArgs &args, Value a, int64_t da, Value b, int64_t db) {
  int64_t x = typeOf(a).getDimSize(da), y = typeOf(b).getDimSize(db);
  if (!ShapedType::isDynamic(x) || !ShapedType::isDynamic(y))
    return x == y;
  ArrayAttr sa = exportSizes(args, a), sb = exportSizes(args, b);
  if (!sa || !sb || da >= (int64_t)sa.size() || db >= (int64_t)sb.size())
    return false;
  auto ea = dyn_cast<StringAttr>(sa[da]), eb = dyn_cast<StringAttr>(sb[db]);
  return ea && ea == eb;
}

Value tcc::graph::sizeTensor(OpBuilder &b, Location loc, Value x, int64_t d) {
  int64_t size = typeOf(x).getShape()[d];
  if (!ShapedType::isDynamic(size))
    return makeScalar(b, loc, b.getI64Type(), size);
  return b.create<DimSizeOp>(loc, RankedTensorType::get({}, b.getI64Type()), x,
                             b.getI64IntegerAttr(d));
}

Value tcc::graph::dimProduct(OpBuilder &b, Location loc, Value v, int64_t from, int64_t to) {
  int64_t known = 1;
  Value symbolic;
  for (int64_t d = from; d < to; ++d) {
    int64_t size = typeOf(v).getShape()[d];
    if (!ShapedType::isDynamic(size)) {
      known *= size;
      continue;
    }
    Value dim = dimIndex(b, loc, v, d);
    symbolic = symbolic ? b.create<arith::MulIOp>(loc, symbolic, dim).getResult() : dim;
  }
  Value constant = b.create<arith::ConstantIndexOp>(loc, known);
  if (!symbolic)
    return constant;
  return known == 1 ? symbolic : b.create<arith::MulIOp>(loc, symbolic, constant).getResult();
}

Value tcc::graph::makeReshape(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape,
                              ArrayRef<Value> sizes) {
  auto t = typeOf(v);
  if (t.getShape() == shape || llvm::count_if(shape, ShapedType::isDynamic) <= 1)
    return makeReshape(b, loc, v, shape);
  SmallVector<Value> dynamic;
  for (auto [size, value] : llvm::zip_equal(shape, sizes))
    if (ShapedType::isDynamic(size))
      dynamic.push_back(value);
  return b.create<ReshapeOp>(loc, RankedTensorType::get(shape, t.getElementType()), v, dynamic);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
/// Elementwise arithmetic whose scalar operand may be a symbolic size.
bool takesSymbolicScalars(StringRef name) {
  static const llvm::StringSet<> names = {
      "aten.add.Tensor", "aten.add.Scalar", "aten.sub.Tensor", "aten.sub.Scalar",
      "aten.mul.Tensor", "aten.mul.Scalar", "aten.rsub.Scalar", "aten.rsub.Tensor",
      "aten.div.Tensor", "aten.div.Scalar", "aten.floor_divide.default",
      "aten.remainder.Scalar", "aten.remainder.Tensor", "aten.eq.Scalar", "aten.ne.Scalar",
      "aten.lt.Scalar", "aten.le.Scalar", "aten.gt.Scalar", "aten.ge.Scalar",
      "aten.minimum.default", "aten.maximum.default", "aten.clamp.default"};
  return names.contains(name);
}

/// Turns each symbolic scalar argument of `op` that is a bare symbol (a
/// dimension of an input: s11) into a rank-0 i64 tensor operand of the same
/// name, read with tcc_graph.dim_size; the argument leaves tcc.symbolic_args.
/// Compound expressions stay (and are refused by name).
LogicalResult materializeSymbolicScalars(OperatorOp op) {
  auto symbolic = op->getAttrOfType<ArrayAttr>(TccGraphDialect::getSymbolicArgsAttrName());
  auto fn = op->getParentOfType<mlir::func::FuncOp>();
  if (!symbolic || !fn)
    return success();
  OpBuilder b(op);
  SmallVector<Value> operands(op.getOperands());
  SmallVector<Attribute> names(op.getOperandNames().getValue());
  NamedAttrList args(op.getArgs());
  SmallVector<Attribute> left;
  for (Attribute a : symbolic) {
    StringRef arg = cast<StringAttr>(a).getValue();
    auto expr = dyn_cast_or_null<StringAttr>(args.get(arg));
    Value size;
    for (BlockArgument in : expr ? fn.getArguments() : ArrayRef<BlockArgument>{}) {
      auto sizes = fn.getArgAttrOfType<ArrayAttr>(in.getArgNumber(), TccGraphDialect::getSizesAttrName());
      for (auto [d, s] : llvm::enumerate(sizes ? sizes.getValue() : ArrayRef<Attribute>{}))
        if (auto e = dyn_cast<StringAttr>(s); e && e == expr && !size)
          size = DimSizeOp::create(b, op.getLoc(), RankedTensorType::get({}, b.getI64Type()),
                                   in, b.getI64IntegerAttr(static_cast<int64_t>(d)));
    }
    if (!size) {
      left.push_back(a);
      continue;
    }
    operands.push_back(size);
    names.push_back(b.getStringAttr(arg));
    args.erase(arg);
  }
  if (left.size() == symbolic.size())
    return success();
  op->setOperands(operands);
  op.setOperandNamesAttr(b.getArrayAttr(names));
  op.setArgsAttr(args.getDictionary(op.getContext()));
  if (left.empty())
    op->removeAttr(TccGraphDialect::getSymbolicArgsAttrName());
  else
    op->setAttr(TccGraphDialect::getSymbolicArgsAttrName(), b.getArrayAttr(left));
  return success();
}
} // namespace

namespace {
/// Replaces the operator's results, casting where the legalized type is more
/// or less static than the export's; a result a legalizer leaves null (an
/// unneeded extra output such as batch_norm's saved statistics) must be unused.
LogicalResult replaceResults(OperatorOp op, ArrayRef<Value> values, OpBuilder &b) {
  for (auto [result, original] : llvm::zip(op.getResults(), values)) {
    Value value = original;
    if (!value) {
      if (!result.use_empty())
        return op.emitError("result #")
               << result.getResultNumber() << " of '" << op.getName()
               << "' is not supported";
      continue;
    }
    if (value.getType() != result.getType())
      value = b.create<tensor::CastOp>(op.getLoc(), result.getType(), value);
    result.replaceAllUsesWith(value);
  }
  return success();
}

/// Whether `op` can go unexecuted when nobody reads its results: it has
/// results, and it is not an in-place operator (`aten.add_`, `aten.copy_`:
/// the name ends in `_`) or a check (`aten._assert_*`, `aten.sym_constrain_*`).
bool removableWhenUnused(OperatorOp op) {
  if (op->getNumResults() == 0 || !op->use_empty())
    return false;
  StringRef name = op.getName();
  name.consume_front("torch.ops.");
  SmallVector<StringRef, 3> parts;
  name.split(parts, '.');
  StringRef base = parts.size() > 1 ? parts[1] : parts[0];
  return !base.ends_with("_") && !base.starts_with("_assert") && !base.starts_with("sym_constrain");
}

/// Whether `op` may take or give unsigned integers (torch.uint8 is `ui8`):
/// data movement, conversions, comparisons and the arithmetic whose integer
/// form ignores signedness (+, -, *, negation, bitwise and/or). Others
/// (maximum, division, reductions, ...) would need unsigned forms tcc does not
/// build yet, and are refused at the operator. Quantize and dequantize take
/// uint8 as their quantized side.
bool takesUnsigned(Operation *op) {
  return isa<ConstantOp, NegOp, AddOp, SubOp, MulOp, BitwiseAndOp, BitwiseOrOp, CompareOp,
             SelectOp, CastOp, IotaOp, DimSizeOp, TransposeOp, ReshapeOp, SliceOp, ConcatOp,
             BroadcastOp, TakeOp, GatherOp, AsStridedOp, QuantizeOp, DequantizeOp>(op);
}

bool hasUnsignedElements(Operation *op) {
  auto isUnsigned = [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return (tensor ? tensor.getElementType() : t).isUnsignedInteger();
  };
  return llvm::any_of(op->getOperandTypes(), isUnsigned) ||
         llvm::any_of(op->getResultTypes(), isUnsigned);
}

struct LegalizeGraphPass
    : public tcc::graph::impl::LegalizeGraphPassBase<LegalizeGraphPass> {
  using LegalizeGraphPassBase::LegalizeGraphPassBase;
  void runOnOperation() override {
    LegalizerTable table;
    populateElementwiseLegalizers(table);
    populateLinalgLikeLegalizers(table);
    populateShapeLegalizers(table);
    populateLogicLegalizers(table);
    populateCreationLegalizers(table);
    populateRuntimeAssertionLegalizers(table);
    populateRandomLegalizers(table);
    populateAttentionLegalizers(table);
    populateEinsumLegalizers(table);
    populateConvTransposeLegalizers(table);
    populateConvolutionLegalizers(table);
    populateIndexingLegalizers(table);
    populateRearrangeLegalizers(table);
    populatePoolingLegalizers(table);
    populateVectorNormLegalizers(table);
    populateLossLegalizers(table);
    populateScatterLegalizers(table);
    populateOrderingLegalizers(table);
    populateBesselLegalizers(table);
    populateSpecialPolynomialLegalizers(table);
    populateGammaLegalizers(table);
    populateAiryLegalizers(table);
    populateBesselJYLegalizers(table);
    populateIncompleteGammaLegalizers(table);
    populateErrorFunctionLegalizers(table);
    populateLinearAlgebraLegalizers(table);
    populateBackwardLegalizers(table);
    populateCombinatoricsLegalizers(table);
    populateMaskedIndexingLegalizers(table);
    populateSegmentReduceLegalizers(table);
    populateResamplingLegalizers(table);
    populateRecurrentLegalizers(table);
    populateQuantizationLegalizers(table);
    // Operators taking or giving complex tensors: from this table alone.
    LegalizerTable complexTable;
    populateComplexLegalizers(complexTable);
    populateFFTLegalizers(table, complexTable);
    populatePoolingIndexLegalizers(table);

    // Operators whose legalizers read symbolic arguments (sizes given as
    // expressions of the inputs' sizes) from the export's result types and
    // tcc.sizes rather than from the arguments.
    static const llvm::StringSet<> symbolAware = {
        "aten.view.default", "aten.reshape.default", "aten._unsafe_view.default",
        "aten.expand.default", "aten.slice.Tensor", "aten.arange.default",
        "aten.arange.start", "aten.arange.start_step", "aten.full.default", "aten.zeros.default", "aten.ones.default",
        "aten.new_ones.default", "aten.new_zeros.default", "aten.new_full.default",
        "aten.empty.memory_format", "aten.new_empty.default", "aten._assert_scalar.default",
        "aten.rand.default", "aten.randn.default", "aten.randint.default", "aten.randint.low",
        "aten.sym_constrain_range_for_size.default", "aten.unflatten.int",
        // interpolate(size=(2 * h, 2 * w)): the result's sizes
        "aten.upsample_nearest1d.vec", "aten.upsample_nearest2d.vec",
        "aten.upsample_nearest3d.vec", "aten._upsample_nearest_exact1d.vec",
        "aten._upsample_nearest_exact2d.vec", "aten._upsample_nearest_exact3d.vec",
        "aten.upsample_linear1d.vec", "aten.upsample_bilinear2d.vec",
        "aten.upsample_trilinear3d.vec", "aten.upsample_nearest1d.default",
        "aten.upsample_nearest2d.default", "aten.upsample_nearest3d.default",
        "aten._upsample_nearest_exact1d.default", "aten._upsample_nearest_exact2d.default",
        "aten._upsample_nearest_exact3d.default", "aten.upsample_linear1d.default",
        "aten.upsample_bilinear2d.default", "aten.upsample_trilinear3d.default",
        "aten.upsample_bicubic2d.vec", "aten.upsample_bicubic2d.default",
        // The output size is the result's (the export's expressions).
        "aten.max_unpool2d.default", "aten.max_unpool3d.default"};
    // Report every unsupported operator name once, at its first occurrence.
    llvm::StringSet<> reported;
    bool failedAny = false;
    SmallVector<OperatorOp> ops;
    getOperation().walk([&](OperatorOp op) { ops.push_back(op); });
    // Nodes nobody reads are dropped, not refused: wav2vec2's LayerDrop draws
    // an unused random number even in eval mode. In reverse, so that a dead
    // chain goes whole.
    for (OperatorOp &op : llvm::reverse(ops))
      if (removableWhenUnused(op)) {
        op.erase();
        op = nullptr;
      }
    llvm::erase(ops, nullptr);
    // The export's sizes of each operand, kept on its reader while the
    // producers still carry them (recordWindowChecks).
    for (OperatorOp op : ops) {
      if (llvm::all_of(op->getResultTypes(), [](Type t) {
            auto r = dyn_cast<RankedTensorType>(t);
            return !r || r.hasStaticShape();
          }))
        continue;
      SmallVector<Attribute> sizes;
      for (Value v : op.getOperands()) {
        Attribute s;
        if (auto arg = dyn_cast<BlockArgument>(v)) {
          if (auto fn = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()))
            s = fn.getArgAttr(arg.getArgNumber(), TccGraphDialect::getSizesAttrName());
        } else if (auto all = v.getDefiningOp()->getAttrOfType<ArrayAttr>(TccGraphDialect::getSizesAttrName())) {
          unsigned i = cast<OpResult>(v).getResultNumber();
          s = i < all.size() ? all[i] : Attribute();
        }
        sizes.push_back(s ? s : UnitAttr::get(op.getContext()));
      }
      op->setAttr(kOperandSizesAttrName, ArrayAttr::get(op.getContext(), sizes));
    }
    // Legalizes one operator; false when it is refused (its diagnostics say why).
    auto legalize = [&](OperatorOp op) -> bool {
      StringRef name = op.getName();
      name.consume_front("torch.ops.");
      // An operator on complex tensors ((re, im) pairs in a last dim of 2)
      // only through a legalizer that knows the form: any other would read
      // the pairs as real numbers.
      bool complex = op->hasAttr(kComplexOperandsAttrName) ||
                     op->hasAttr(kComplexResultsAttrName);
      const LegalizerTable &from = complex ? complexTable : table;
      auto it = from.find(name);
      if (complex && it == from.end()) {
        op.emitError("operator '")
            << name << "' on complex tensors is not supported (tcc computes complex "
            << "tensors in the torch.fft transforms, stft, view_as_real/view_as_complex, complex, "
            << "polar, real/imag, conj, abs/angle, +, -, * and conversions)";
        return false;
      }
      if (it == from.end()) {
        if (reported.insert(name).second)
          op.emitError("unsupported operator '") << name << "'";
        return false;
      }
      // A size used as a number (cache_length.add_(seq_len)): the operand
      // read from an input's dimension, for the arithmetic operators.
      if (op->hasAttr(TccGraphDialect::getSymbolicArgsAttrName()) && takesSymbolicScalars(name) &&
          failed(materializeSymbolicScalars(op)))
        return false;
      if (auto symbolic = op->getAttrOfType<ArrayAttr>(TccGraphDialect::getSymbolicArgsAttrName());
          symbolic && !symbolAware.contains(name)) {
        // Its legalizer would read a symbolic argument as absent: refuse
        // rather than compute with a default.
        op.emitError("operator '")
            << name << "': argument '" << cast<StringAttr>(symbolic[0]).getValue()
            << "' depends on an input's size, which this operator does not support yet";
        return false;
      }
      OpBuilder b(op);
      OperatorArgs args(op);
      Operation *before = op->getPrevNode(); // the legalizer's ops follow it
      int errors = 0;
      FailureOr<SmallVector<Value>> results = [&] {
        // Counts what the legalizer reports, passing every diagnostic on.
        ScopedDiagnosticHandler counter(op.getContext(), [&](Diagnostic &d) {
          errors += d.getSeverity() == DiagnosticSeverity::Error;
          return failure();
        });
        return it->second(args, b);
      }();
      if (succeeded(results)) {
        // An op the legalizer built for inputs it does not take (a sum of
        // integers, a matmul of int32) is refused here, at the operator's
        // Python line, not left for the verifier to report after a later
        // pass as if the IR were the user's.
        std::string why;
        for (Operation *made = before ? before->getNextNode() : &op->getBlock()->front();
             made && made != op.getOperation() && why.empty(); made = made->getNextNode()) {
          ScopedDiagnosticHandler capture(op.getContext(), [&](Diagnostic &d) {
            if (d.getSeverity() == DiagnosticSeverity::Error && why.empty())
              why = d.str();
            return success();
          });
          (void)verify(made, /*verifyRecursively=*/false);
          if (why.empty() && hasUnsignedElements(made) && !takesUnsigned(made))
            why = "on uint8 tensors tcc computes +, -, *, negation, bitwise and/or, "
                  "comparisons and conversions ('" +
                  made->getName().getStringRef().str() +
                  "' is none of them); convert first, e.g. x.int() or x.float()";
        }
        if (!why.empty()) {
          op.emitError("operator '") << name << "' is not supported for these inputs: " << why;
          return false;
        }
      }
      if (failed(results)) {
        if (errors == 0)
          op.emitError("cannot legalize '") << name << "' with these arguments";
        return false;
      }
      if (results->size() != op.getNumResults()) {
        op.emitError("internal: legalizer for '")
            << name << "' produced " << results->size() << " values for "
            << op.getNumResults() << " results";
        return false;
      }
      if (failed(replaceResults(op, *results, b)))
        return false;
      op.erase();
      return true;
    };
    for (OperatorOp op : ops) {
      // The first error reported for this operator, passed on unchanged.
      std::string refusal;
      ScopedDiagnosticHandler firstError(op.getContext(), [&](Diagnostic &d) {
        if (d.getSeverity() == DiagnosticSeverity::Error && refusal.empty())
          refusal = d.str();
        return failure();
      });
      if (legalize(op))
        continue;
      failedAny = true;
      if (!recordRefusals)
        continue;
      // A name already reported once is refused again without a message.
      StringRef name = op.getName();
      name.consume_front("torch.ops.");
      if (refusal.empty())
        refusal = ("unsupported operator '" + name + "'").str();
      op->setAttr(TccGraphDialect::getRefusalAttrName(),
                  StringAttr::get(op.getContext(), refusal));
    }
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
