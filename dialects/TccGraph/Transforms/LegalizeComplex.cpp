//===- LegalizeComplex.cpp - operators on complex tensors -----------------===//
//
// A complex tensor (complex64, complex128) is carried as a real tensor of its
// part type with a last dim of 2 holding (re, im): the bytes of PyTorch's
// storage, torch.view_as_real. The importer marks the operators that take or
// give one (dialects/TccGraph/IR/ComplexForm.h); tcc-legalize-graph
// legalizes those only from this table (and the torch.fft family's), so an
// operator that would misread the pairs as real numbers (a mul, a sum over
// the last dim) is refused at its Python line instead.
//
// Here: view_as_real/view_as_complex (the same bytes), complex(re, im),
// polar(abs, angle), real/imag, conj and its aliases, copies, conversions
// to and between complex dtypes (and back to real: the real part, as
// PyTorch), abs and angle, and +, -, * of complex tensors.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/ComplexLegalizers.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// The position of the operand named `name`, or -1.
int64_t operandPosition(OperatorArgs &args, StringRef name) {
  for (auto [i, n] : llvm::enumerate(args.getOp().getOperandNames()))
    if (cast<StringAttr>(n).getValue() == name)
      return static_cast<int64_t>(i);
  return -1;
}

bool listed(Operation *op, StringRef attr, int64_t position) {
  auto positions = op->getAttrOfType<DenseI64ArrayAttr>(attr);
  return positions && llvm::is_contained(positions.asArrayRef(), position);
}

/// The operand `name` as complex parts in the result's part type: a complex
/// operand split, a real one with a zero imaginary part.
FailureOr<ComplexParts> complexOperand(OperatorArgs &args, OpBuilder &b, StringRef name) {
  FailureOr<Value> v = requiredTensor(args, name);
  if (failed(v))
    return failure();
  Location loc = args.getOp().getLoc();
  Type elt = args.resultType().getElementType();
  if (!isComplexOperand(args, name))
    return ComplexParts{makeCast(b, loc, *v, elt), nullptr};
  ComplexParts z = splitComplex(b, loc, *v);
  Value re = makeCast(b, loc, z.re, elt);
  Value im = makeCast(b, loc, z.im, elt);
  return ComplexParts{re, im};
}

/// Refuses an operator whose result is not complex where the legalizer
/// builds one, or the other way round.
LogicalResult expectComplexResult(OperatorArgs &args, bool complex) {
  if (isComplexResult(args) == complex)
    return success();
  return operatorError(args) << (complex ? "expected a complex result"
                                         : "expected a real result");
}

/// The type of each part of the operator's complex result (static shapes
/// unless `symbolic`), after checking that the result is complex.
FailureOr<RankedTensorType> resultPartType(OperatorArgs &args, bool symbolic = false) {
  if (failed(expectComplexResult(args, true)))
    return failure();
  RankedTensorType result = args.resultType();
  auto partType = RankedTensorType::get(result.getShape().drop_back(), result.getElementType());
  if (!symbolic && !partType.hasStaticShape())
    return operatorError(args) << "complex tensors of symbolic shape are not supported";
  return partType;
}

/// The (re, im) form of two parts that broadcast to `partType`: each
/// converted to its element type, stretched to its shape (its symbolic
/// sizes `sizes`, the export's), and paired.
Value pairStretched(OpBuilder &b, Location loc, RankedTensorType partType, Value re, Value im,
                    ArrayRef<Value> sizes = {}) {
  auto stretch = [&](Value v) -> Value {
    v = makeCast(b, loc, v, partType.getElementType());
    if (typeOf(v).getShape() == partType.getShape())
      return v;
    return b.create<BroadcastOp>(loc, partType, v, sizes);
  };
  Value r = stretch(re);
  Value i = stretch(im);
  return joinComplex(b, loc, {r, i});
}

/// view_as_real, view_as_complex, copies and conj's lazy forms: the same
/// (re, im) bytes.
Results legalizeSameBytes(OperatorArgs &args, OpBuilder &) {
  FailureOr<Value> self = requiredTensor(args, "self");
  if (failed(self))
    return failure();
  if (typeOf(*self).getElementType() != args.resultType().getElementType())
    return operatorError(args) << "changes the element type";
  return SmallVector<Value>{*self};
}

/// The symbolic sizes of `partType`, each read from an operand that has it
/// (trailing dims aligned, as broadcasting does); failure where none does.
FailureOr<SmallVector<Value>> stretchedSizes(OperatorArgs &args, OpBuilder &b,
                                             RankedTensorType partType,
                                             ArrayRef<Value> operands) {
  SmallVector<Value> sizes;
  int64_t rank = partType.getRank();
  Location loc = args.getOp().getLoc();
  for (int64_t d = 0; d < rank; ++d) {
    if (!partType.isDynamicDim(d))
      continue;
    Value size;
    for (Value v : operands) {
      int64_t at = d - (rank - typeOf(v).getRank());
      if (!size && at >= 0 && typeOf(v).isDynamicDim(at))
        size = dimIndex(b, loc, v, at);
    }
    if (!size)
      return operatorError(args) << "result dim " << d << " is symbolic in no operand";
    sizes.push_back(size);
  }
  return sizes;
}

/// complex(real, imag): the two broadcast and paired.
Results legalizeComplexOf(OperatorArgs &args, OpBuilder &b) {
  FailureOr<RankedTensorType> partType = resultPartType(args, /*symbolic=*/true);
  if (failed(partType))
    return failure();
  FailureOr<Value> re = requiredTensor(args, "real");
  FailureOr<Value> im = requiredTensor(args, "imag");
  if (failed(re) || failed(im))
    return failure();
  FailureOr<SmallVector<Value>> sizes = stretchedSizes(args, b, *partType, {*re, *im});
  if (failed(sizes))
    return failure();
  return SmallVector<Value>{pairStretched(b, args.getOp().getLoc(), *partType, *re, *im, *sizes)};
}

/// polar(abs, angle) = abs·cos(angle) + i abs·sin(angle), as PyTorch.
Results legalizePolar(OperatorArgs &args, OpBuilder &b) {
  FailureOr<RankedTensorType> partType = resultPartType(args, /*symbolic=*/true);
  if (failed(partType))
    return failure();
  FailureOr<Value> abs = requiredTensor(args, "abs");
  FailureOr<Value> angle = requiredTensor(args, "angle");
  if (failed(abs) || failed(angle))
    return failure();
  FailureOr<SmallVector<Value>> sizes = stretchedSizes(args, b, *partType, {*abs, *angle});
  if (failed(sizes))
    return failure();
  Location loc = args.getOp().getLoc();
  Type elt = partType->getElementType();
  Value r = makeCast(b, loc, *abs, elt);
  Value theta = makeCast(b, loc, *angle, elt);
  Value cosine = b.create<CosOp>(loc, theta);
  Value sine = b.create<SinOp>(loc, theta);
  Value re = makeBinary<MulOp>(b, loc, r, cosine);
  Value im = makeBinary<MulOp>(b, loc, r, sine);
  // abs and angle may differ in shape: both stretched to the result's.
  return SmallVector<Value>{pairStretched(b, loc, *partType, re, im, *sizes)};
}

/// real / imag of a complex tensor.
LegalizeFn legalizePart(bool imaginary) {
  return [imaginary](OperatorArgs &args, OpBuilder &b) -> Results {
    if (!isComplexOperand(args, "self") || failed(expectComplexResult(args, false)))
      return operatorError(args) << "expected a complex input and a real result";
    ComplexParts z = splitComplex(b, args.getOp().getLoc(), args.tensor("self"));
    return SmallVector<Value>{imaginary ? z.im : z.re};
  };
}

/// conj_physical / conj / _conj of a complex tensor: the imaginary part negated.
Results legalizeConj(OperatorArgs &args, OpBuilder &b) {
  if (!isComplexOperand(args, "self") || failed(expectComplexResult(args, true)))
    return operatorError(args) << "expected a complex input and result";
  Location loc = args.getOp().getLoc();
  ComplexParts z = splitComplex(b, loc, args.tensor("self"));
  Value im = b.create<NegOp>(loc, z.im);
  return SmallVector<Value>{joinComplex(b, loc, {z.re, im})};
}

/// to / _to_copy / type_as: real to complex (a zero imaginary part), complex
/// to complex (the parts converted), complex to real (the real part, as
/// PyTorch, which warns that it drops the imaginary part).
Results legalizeConversion(OperatorArgs &args, OpBuilder &b) {
  Location loc = args.getOp().getLoc();
  Type elt = args.resultType().getElementType();
  if (isComplexResult(args)) {
    if (!isa<FloatType>(elt))
      return operatorError(args) << "converts to an unsupported complex type";
    FailureOr<ComplexParts> z = complexOperand(args, b, "self");
    if (failed(z))
      return failure();
    if (!z->im && !typeOf(z->re).hasStaticShape())
      return operatorError(args) << "complex tensors of symbolic shape are not supported";
    return SmallVector<Value>{joinComplex(b, loc, *z)};
  }
  if (!isComplexOperand(args, "self"))
    return operatorError(args) << "expected a complex input or result";
  ComplexParts z = splitComplex(b, loc, args.tensor("self"));
  if (elt.isInteger(1))
    return operatorError(args) << "converting complex tensors to bool is not supported";
  return SmallVector<Value>{makeCast(b, loc, z.re, elt)};
}

/// abs of a complex tensor: |z| = sqrt(re² + im²), computed in f64 (no
/// overflow or cancellation for float32 parts), rounded once.
Results legalizeAbs(OperatorArgs &args, OpBuilder &b) {
  if (!isComplexOperand(args, "self") || failed(expectComplexResult(args, false)))
    return operatorError(args) << "expected a complex input and a real result";
  Location loc = args.getOp().getLoc();
  ComplexParts z = splitComplex(b, loc, args.tensor("self"));
  if (typeOf(z.re).getElementType().isF64())
    return operatorError(args) << "abs of complex128 tensors is not supported";
  PointwiseBuilder d{b, loc, b.getF64Type()};
  Value re = makeCast(b, loc, z.re, d.elt);
  Value im = makeCast(b, loc, z.im, d.elt);
  Value re2 = d.bin<MulOp>(re, re);
  Value im2 = d.bin<MulOp>(im, im);
  Value sum = d.bin<AddOp>(re2, im2);
  Value r = d.un<SqrtOp>(sum);
  return SmallVector<Value>{makeCast(b, loc, r, args.resultType().getElementType())};
}

/// angle of a complex tensor: atan2(im, re).
Results legalizeAngle(OperatorArgs &args, OpBuilder &b) {
  if (!isComplexOperand(args, "self") || failed(expectComplexResult(args, false)))
    return operatorError(args) << "expected a complex input and a real result";
  Location loc = args.getOp().getLoc();
  ComplexParts z = splitComplex(b, loc, args.tensor("self"));
  Value angle = makeBinary<Atan2Op>(b, loc, z.im, z.re);
  return SmallVector<Value>{makeCast(b, loc, angle, args.resultType().getElementType())};
}

/// add / sub (alpha 1) and mul of complex tensors (a real operand has a zero
/// imaginary part); Python numbers are refused.
LegalizeFn legalizeArithmetic(StringRef kind) {
  return [kind](OperatorArgs &args, OpBuilder &b) -> Results {
    FailureOr<RankedTensorType> partType = resultPartType(args);
    if (failed(partType))
      return failure();
    if (args.getFloat("alpha").value_or(1.0) != 1.0)
      return operatorError(args) << "alpha other than 1 on complex tensors is not supported";
    if (!args.tensor("other"))
      return operatorError(args) << "complex tensors with Python numbers are not supported";
    FailureOr<ComplexParts> x = complexOperand(args, b, "self");
    FailureOr<ComplexParts> y = complexOperand(args, b, "other");
    if (failed(x) || failed(y))
      return failure();
    Location loc = args.getOp().getLoc();
    // A real operand's imaginary part: zeros, made before any product (one
    // op per statement: the IR must not depend on argument order).
    Value zero;
    if (!x->im || !y->im)
      zero = makeSplat(b, loc, *partType, 0.0);
    Value xIm = x->im ? x->im : zero;
    Value yIm = y->im ? y->im : zero;
    Value re, im;
    if (kind == "mul") {
      // (a + ib)(c + id) = (ac - bd) + i(ad + bc).
      Value ac = makeBinary<MulOp>(b, loc, x->re, y->re);
      Value bd = makeBinary<MulOp>(b, loc, xIm, yIm);
      Value ad = makeBinary<MulOp>(b, loc, x->re, yIm);
      Value bc = makeBinary<MulOp>(b, loc, xIm, y->re);
      re = makeBinary<SubOp>(b, loc, ac, bd);
      im = makeBinary<AddOp>(b, loc, ad, bc);
    } else if (kind == "add") {
      re = makeBinary<AddOp>(b, loc, x->re, y->re);
      im = makeBinary<AddOp>(b, loc, xIm, yIm);
    } else {
      re = makeBinary<SubOp>(b, loc, x->re, y->re);
      im = makeBinary<SubOp>(b, loc, xIm, yIm);
    }
    return SmallVector<Value>{pairStretched(b, loc, *partType, re, im)};
  };
}
} // namespace

//===----------------------------------------------------------------------===//
// Shared helpers (Legalizers.h)
//===----------------------------------------------------------------------===//

bool tcc::graph::isComplexOperand(OperatorArgs &args, StringRef name) {
  int64_t position = operandPosition(args, name);
  return position >= 0 && listed(args.getOp(), kComplexOperandsAttrName,
                                 position);
}

bool tcc::graph::isComplexResult(OperatorArgs &args, unsigned i) {
  return listed(args.getOp(), kComplexResultsAttrName, i);
}

ComplexParts tcc::graph::splitComplex(OpBuilder &b, Location loc, Value v) {
  RankedTensorType t = typeOf(v);
  int64_t last = t.getRank() - 1;
  SmallVector<int64_t> partShape(t.getShape().drop_back());
  Value re = makeSlice(b, loc, v, last, 0, 1, 1);
  Value im = makeSlice(b, loc, v, last, 1, 2, 1);
  Value reFlat = makeReshape(b, loc, re, partShape);
  Value imFlat = makeReshape(b, loc, im, partShape);
  return {reFlat, imFlat};
}

Value tcc::graph::joinComplex(OpBuilder &b, Location loc, ComplexParts z) {
  RankedTensorType t = typeOf(z.re);
  Value im = z.im ? z.im : makeSplat(b, loc, t, 0.0);
  SmallVector<int64_t> shape(t.getShape());
  shape.push_back(1);
  Value re1 = makeReshape(b, loc, z.re, shape);
  Value im1 = makeReshape(b, loc, im, shape);
  shape.back() = 2;
  return b.create<ConcatOp>(loc, RankedTensorType::get(shape, t.getElementType()),
                            ValueRange{re1, im1}, b.getI64IntegerAttr(t.getRank()));
}

void tcc::graph::populateComplexLegalizers(LegalizerTable &t) {
  for (const char *name :
       {"aten.view_as_real.default", "aten.view_as_complex.default", "aten.clone.default",
        "aten.contiguous.default", "aten.alias.default", "aten.detach.default",
        "aten.lift_fresh_copy.default", "aten.resolve_conj.default",
        "aten.resolve_neg.default", "aten.view_as_real_copy.default",
        "aten.view_as_complex_copy.default"})
    t[name] = legalizeSameBytes;
  // The export's check of a tensor's dtype and shape: tcc's guards check
  // the inputs, and the types are the export's.
  t["aten._assert_tensor_metadata.default"] = [](OperatorArgs &, OpBuilder &) -> Results {
    return SmallVector<Value>{};
  };
  t["aten.complex.default"] = legalizeComplexOf;
  t["aten.polar.default"] = legalizePolar;
  t["aten.real.default"] = legalizePart(false);
  t["aten.imag.default"] = legalizePart(true);
  for (const char *name : {"aten.conj_physical.default", "aten.conj.default", "aten._conj.default"})
    t[name] = legalizeConj;
  for (const char *name : {"aten.to.dtype", "aten.to.dtype_layout", "aten._to_copy.default",
                           "aten.type_as.default"})
    t[name] = legalizeConversion;
  t["aten.abs.default"] = legalizeAbs;
  t["aten.angle.default"] = legalizeAngle;
  t["aten.add.Tensor"] = legalizeArithmetic("add");
  t["aten.sub.Tensor"] = legalizeArithmetic("sub");
  t["aten.mul.Tensor"] = legalizeArithmetic("mul");
}
