//===- TccGraphOps.cpp - tcc_graph operation verifiers --------------------===//
#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "tcc/Support/IndexCopyShapes.h"
#include "tcc/Support/RecurrentShapes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace tcc::graph;

#define GET_OP_CLASSES
#include "dialects/TccGraph/IR/TccGraphOps.cpp.inc"

FailureOr<SmallVector<int64_t>>
tcc::graph::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x == 1) out[i] = y;
    else if (y == 1) out[i] = x;
    else if (ShapedType::isDynamic(x)) out[i] = y;
    else if (ShapedType::isDynamic(y) || x == y) out[i] = x;
    else return failure();
  }
  return out;
}

static RankedTensorType rankedType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Static sizes must agree; a dynamic size on either side is accepted (the
/// export's symbolic shapes were checked by PyTorch).
static bool compatibleShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size()) return false;
  for (auto [x, y] : llvm::zip(a, b))
    if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
      return false;
  return true;
}

LogicalResult OperatorOp::verify() {
  if (getOperandNames().size() != getOperands().size())
    return emitOpError("has ") << getOperands().size() << " operands but "
                               << getOperandNames().size() << " operand names";
  return success();
}

/// Operands broadcast (NumPy rules) to the result's shape.
static LogicalResult verifyBroadcastShapes(Operation *op, ValueRange operands) {
  SmallVector<int64_t> shape;
  for (Value v : operands) {
    auto next = broadcastShapes(shape, rankedType(v).getShape());
    if (failed(next)) {
      InFlightDiagnostic d = op->emitOpError("operand shapes ");
      llvm::interleave(operands.getTypes(), [&](Type t) { d << t; }, [&] { d << " and "; });
      return d << " do not broadcast";
    }
    shape = *next;
  }
  auto res = rankedType(op->getResult(0));
  if (!compatibleShapes(shape, res.getShape()))
    return op->emitOpError("result type ") << res << " is not the broadcast shape";
  return success();
}

#define TCC_BINARY_VERIFIER(OP)                                                \
  LogicalResult OP::verify() {                                                 \
    auto l = rankedType(getLhs()), r = rankedType(getRhs());                   \
    auto res = rankedType(getResult());                                        \
    if (l.getElementType() != r.getElementType() ||                            \
        l.getElementType() != res.getElementType())                            \
      return emitOpError("operand and result element types must match");      \
    return verifyBroadcastShapes(*this, getOperands());                        \
  }
TCC_BINARY_VERIFIER(AddOp)
TCC_BINARY_VERIFIER(SubOp)
TCC_BINARY_VERIFIER(MulOp)
TCC_BINARY_VERIFIER(DivOp)
TCC_BINARY_VERIFIER(MaximumOp)
TCC_BINARY_VERIFIER(MinimumOp)
TCC_BINARY_VERIFIER(PowOp)
TCC_BINARY_VERIFIER(BitwiseAndOp)
TCC_BINARY_VERIFIER(BitwiseOrOp)
TCC_BINARY_VERIFIER(FmodOp)
TCC_BINARY_VERIFIER(Atan2Op)
TCC_BINARY_VERIFIER(CopysignOp)
#undef TCC_BINARY_VERIFIER

LogicalResult TruncDivOp::verify() {
  auto l = rankedType(getLhs()), r = rankedType(getRhs());
  auto res = rankedType(getResult());
  if (l.getElementType() != r.getElementType() || l.getElementType() != res.getElementType())
    return emitOpError("operand and result element types must match");
  if (!l.getElementType().isSignlessInteger() || l.getElementType().isInteger(1))
    return emitOpError("operands must be signed integers, not ") << l.getElementType();
  return verifyBroadcastShapes(*this, getOperands());
}

LogicalResult CompareOp::verify() {
  StringRef p = getPredicate();
  if (p != "eq" && p != "ne" && p != "lt" && p != "le" && p != "gt" && p != "ge")
    return emitOpError("unknown predicate '") << p << "' (eq, ne, lt, le, gt, ge)";
  if (rankedType(getLhs()).getElementType() != rankedType(getRhs()).getElementType())
    return emitOpError("operands must have one element type");
  if (!rankedType(getResult()).getElementType().isInteger(1))
    return emitOpError("result must be i1");
  return verifyBroadcastShapes(*this, getOperands());
}

LogicalResult SelectOp::verify() {
  if (!rankedType(getCondition()).getElementType().isInteger(1))
    return emitOpError("condition must be i1");
  Type elt = rankedType(getResult()).getElementType();
  if (rankedType(getLhs()).getElementType() != elt || rankedType(getRhs()).getElementType() != elt)
    return emitOpError("lhs and rhs must have the result's element type");
  return verifyBroadcastShapes(*this, getOperands());
}

LogicalResult CheckOp::verify() {
  if (!rankedType(getCondition()).getElementType().isInteger(1))
    return emitOpError("condition must be i1");
  if (getInput().getType() != getResult().getType())
    return emitOpError("result type must be the input's");
  return verifyBroadcastShapes(*this, getOperands());
}

LogicalResult CastOp::verify() {
  if (!compatibleShapes(rankedType(getInput()).getShape(), rankedType(getResult()).getShape()))
    return emitOpError("input and result shapes differ");
  return success();
}

LogicalResult IotaOp::verify() {
  auto t = rankedType(getResult());
  if (t.getRank() != 1)
    return emitOpError("result must be a 1-D tensor");
  if (getDynamicSizes().size() != (size_t)t.getNumDynamicDims())
    return emitOpError("needs one dynamic size for a symbolic length");
  return success();
}

LogicalResult RandomOp::verify() {
  auto state = rankedType(getState());
  if (state.getShape() != ArrayRef<int64_t>{1} || !state.getElementType().isInteger(64))
    return emitOpError("state must be tensor<1xi64>");
  auto t = rankedType(getResult());
  Type elt = t.getElementType();
  if (!isa<FloatType>(elt) && !elt.isInteger(64))
    return emitOpError("result must hold floats or i64, not ") << elt;
  if (getDynamicSizes().size() != (size_t)t.getNumDynamicDims())
    return emitOpError("needs one dynamic size per symbolic dim");
  return success();
}

LogicalResult DimSizeOp::verify() {
  if (getDim() < 0 || getDim() >= rankedType(getInput()).getRank())
    return emitOpError("dim ") << getDim() << " out of range";
  auto res = rankedType(getResult());
  if (res.getRank() != 0 || !res.getElementType().isInteger(64))
    return emitOpError("result must be tensor<i64>");
  return success();
}

LogicalResult CumsumOp::verify() {
  int64_t rank = rankedType(getInput()).getRank();
  if (getDim() < 0 || getDim() >= std::max<int64_t>(rank, 1))
    return emitOpError("dim ") << getDim() << " out of range for rank " << rank;
  return success();
}

LogicalResult MatmulOp::verify() {
  auto l = rankedType(getLhs()), r = rankedType(getRhs());
  auto res = rankedType(getResult());
  if (l.getRank() < 2 || r.getRank() < 2)
    return emitOpError("operands must have rank >= 2");
  int64_t k1 = l.getShape()[l.getRank() - 1], k2 = r.getShape()[r.getRank() - 2];
  if (!ShapedType::isDynamic(k1) && !ShapedType::isDynamic(k2) && k1 != k2)
    return emitOpError("contraction sizes differ: ") << k1 << " vs " << k2;
  auto batch = broadcastShapes(l.getShape().drop_back(2), r.getShape().drop_back(2));
  if (failed(batch))
    return emitOpError("batch dimensions do not broadcast");
  SmallVector<int64_t> expected(*batch);
  expected.push_back(l.getShape()[l.getRank() - 2]);
  expected.push_back(r.getShape()[r.getRank() - 1]);
  if (!compatibleShapes(expected, res.getShape()))
    return emitOpError("result type ") << res << " does not match the product shape";
  return success();
}

LogicalResult Conv2dOp::verify() {
  auto in = rankedType(getInput()), w = rankedType(getWeight());
  if (in.getRank() != 4 || w.getRank() != 4 || rankedType(getResult()).getRank() != 4)
    return emitOpError("expects rank-4 input, weight and result (NCHW, FCHW)");
  if (getStride().size() != 2 || getPadding().size() != 2 || getDilation().size() != 2)
    return emitOpError("stride, padding and dilation need 2 values each");
  if (getGroups() < 1)
    return emitOpError("groups must be >= 1");
  int64_t c = in.getShape()[1], wc = w.getShape()[1];
  if (!ShapedType::isDynamic(c) && c != wc * getGroups())
    return emitOpError("input channels ") << c << " != weight channels " << wc
                                          << " x groups " << getGroups();
  if (getBias() && rankedType(getBias()).getRank() != 1)
    return emitOpError("bias must be rank 1");
  return success();
}

LogicalResult RnnOp::verify() {
  std::string error =
      tcc::recurrentOpError(getMode(), getNumLayers(), getBidirectional(), getBatchFirst(),
                            getHasBiases(), getInput(), getH0(), getC0(), getWeights(), getResults());
  if (!error.empty())
    return emitOpError(error);
  Type elt = rankedType(getInput()).getElementType();
  for (Value v : getOperation()->getOperands())
    if (rankedType(v).getElementType() != elt)
      return emitOpError("operands must have one element type");
  for (Value v : getResults())
    if (rankedType(v).getElementType() != elt)
      return emitOpError("results must have the input's element type");
  return success();
}

template <typename PoolOp>
static LogicalResult verifyPool(PoolOp op) {
  if (rankedType(op.getInput()).getRank() != 4)
    return op.emitOpError(op.getChannelsLast() ? "expects an NHWC input" : "expects an NCHW input");
  if (op.getKernel().size() != 2 || op.getStride().size() != 2 ||
      op.getPadding().size() != 2 || op.getDilation().size() != 2)
    return op.emitOpError("kernel, stride, padding and dilation need 2 values each");
  for (int i = 0; i < 2; ++i)
    if (op.getPadding()[i] * 2 > op.getKernel()[i])
      return op.emitOpError("padding must be at most half the kernel size");
  return success();
}
LogicalResult MaxPool2dOp::verify() { return verifyPool(*this); }
LogicalResult AvgPool2dOp::verify() { return verifyPool(*this); }

template <typename ReduceOp>
static LogicalResult verifyReduce(ReduceOp op) {
  auto in = rankedType(op.getInput()), res = rankedType(op.getResult());
  int64_t prev = -1;
  for (int64_t d : op.getDims()) {
    if (d <= prev || d >= in.getRank())
      return op.emitOpError("dims must be sorted, unique and in [0, rank)");
    prev = d;
  }
  int64_t expectedRank =
      op.getKeepdim() ? in.getRank() : in.getRank() - (int64_t)op.getDims().size();
  if (res.getRank() != expectedRank)
    return op.emitOpError("result rank ") << res.getRank() << " should be " << expectedRank;
  return success();
}
LogicalResult ReduceSumOp::verify() { return verifyReduce(*this); }
LogicalResult ReduceMaxOp::verify() { return verifyReduce(*this); }
LogicalResult ReduceProdOp::verify() { return verifyReduce(*this); }
LogicalResult ReduceMeanOp::verify() { return verifyReduce(*this); }

LogicalResult TransposeOp::verify() {
  auto in = rankedType(getInput()), res = rankedType(getResult());
  auto perm = getPermutation();
  if ((int64_t)perm.size() != in.getRank() || res.getRank() != in.getRank())
    return emitOpError("permutation size must equal the rank");
  SmallVector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= (int64_t)perm.size() || seen[p])
      return emitOpError("permutation is not a permutation of [0, rank)");
    seen[p] = true;
  }
  for (auto [i, p] : llvm::enumerate(perm)) {
    int64_t a = in.getShape()[p], b = res.getShape()[i];
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
      return emitOpError("result dim ") << i << " should be " << a;
  }
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto in = rankedType(getInput()), res = rankedType(getResult());
  if (!getDynamicSizes().empty() && getDynamicSizes().size() != (size_t)res.getNumDynamicDims())
    return emitOpError("dynamic_sizes must hold every symbolic result size");
  if (res.getNumDynamicDims() > 1 && getDynamicSizes().empty())
    return emitOpError("a result with several dynamic dimensions needs dynamic_sizes");
  if (in.hasStaticShape() && res.hasStaticShape() &&
      in.getNumElements() != res.getNumElements())
    return emitOpError("element counts differ: ") << in.getNumElements() << " vs "
                                                  << res.getNumElements();
  return success();
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  auto res = rankedType(getResult());
  int64_t dim = getDim();
  if (dim < 0 || dim >= res.getRank())
    return emitOpError("dim ") << dim << " out of range";
  for (Value v : getInputs()) {
    auto t = rankedType(v);
    if (t.getRank() != res.getRank())
      return emitOpError("all inputs need the result's rank");
    for (int64_t i = 0; i < t.getRank(); ++i) {
      if (i == dim) continue;
      int64_t a = t.getShape()[i], b = res.getShape()[i];
      if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
        return emitOpError("input dim ") << i << " is " << a << ", expected " << b;
    }
  }
  return success();
}

LogicalResult SliceOp::verify() {
  auto in = rankedType(getInput()), res = rankedType(getResult());
  int64_t dim = getDim();
  if (in.getRank() != res.getRank() || dim < 0 || dim >= in.getRank())
    return emitOpError("dim ") << dim << " out of range for rank " << in.getRank();
  if (getStart() < 0 || getEnd() < getStart() || getStep() < 1)
    return emitOpError("needs 0 <= start <= end and step >= 1");
  bool symbolicResult = ShapedType::isDynamic(res.getShape()[dim]);
  if (getDynamicSizes().size() != (symbolicResult ? 1u : 0u))
    return emitOpError("needs one dynamic size exactly when the result's dim is symbolic");
  int64_t size = in.getShape()[dim];
  if (symbolicResult)
    return success();
  if (ShapedType::isDynamic(size))
    return success();  // a static part of a symbolic dim: the guards bound it
  if (getEnd() > size)
    return emitOpError("end ") << getEnd() << " exceeds the dim size " << size;
  int64_t expected = (getEnd() - getStart() + getStep() - 1) / getStep();
  if (res.getShape()[dim] != expected)
    return emitOpError("result dim ") << dim << " should be " << expected;
  return success();
}

/// Static sizes `a` and `b` disagree (a dynamic one matches anything).
static bool sizesDiffer(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

LogicalResult BroadcastOp::verify() {
  auto in = rankedType(getInput()), res = rankedType(getResult());
  if (!getDynamicSizes().empty() && getDynamicSizes().size() != (size_t)res.getNumDynamicDims())
    return emitOpError("dynamic_sizes must hold every symbolic result size");
  if (in.getElementType() != res.getElementType())
    return emitOpError("element types differ");
  if (in.getRank() > res.getRank())
    return emitOpError("input rank ") << in.getRank() << " exceeds the result rank "
                                      << res.getRank();
  int64_t offset = res.getRank() - in.getRank();
  for (int64_t i = 0; i < in.getRank(); ++i) {
    int64_t s = in.getShape()[i], r = res.getShape()[offset + i];
    if (s != 1 && sizesDiffer(s, r))
      return emitOpError("input dim ") << i << " of size " << s
                                       << " cannot broadcast to " << r;
  }
  return success();
}

/// The shared checks of take and gather: element types, an in-range `dim`.
template <typename IndexOp>
static LogicalResult verifyIndexed(IndexOp op) {
  auto in = rankedType(op.getInput()), res = rankedType(op.getResult());
  if (in.getElementType() != res.getElementType())
    return op.emitOpError("element types differ");
  if (op.getDim() < 0 || op.getDim() >= in.getRank())
    return op.emitOpError("dim ") << op.getDim() << " out of range for rank "
                                  << in.getRank();
  return success();
}

LogicalResult TakeOp::verify() {
  if (failed(verifyIndexed(*this)))
    return failure();
  auto in = rankedType(getInput()), idx = rankedType(getIndex());
  auto res = rankedType(getResult());
  int64_t dim = getDim();
  SmallVector<int64_t> expected(in.getShape().take_front(dim));
  llvm::append_range(expected, idx.getShape());
  llvm::append_range(expected, in.getShape().drop_front(dim + 1));
  if (!compatibleShapes(expected, res.getShape()))
    return emitOpError("result shape should be input.shape[:dim] + index.shape + "
                       "input.shape[dim+1:]");
  return success();
}

LogicalResult GatherOp::verify() {
  if (failed(verifyIndexed(*this)))
    return failure();
  auto in = rankedType(getInput()), idx = rankedType(getIndex());
  if (idx.getRank() != in.getRank())
    return emitOpError("index rank ") << idx.getRank() << " differs from the input rank "
                                      << in.getRank();
  if (!compatibleShapes(idx.getShape(), rankedType(getResult()).getShape()))
    return emitOpError("result shape should be the index shape");
  for (int64_t i = 0; i < in.getRank(); ++i)
    if (i != getDim() && !ShapedType::isDynamic(in.getShape()[i]) &&
        !ShapedType::isDynamic(idx.getShape()[i]) && idx.getShape()[i] > in.getShape()[i])
      return emitOpError("index dim ") << i << " is larger than the input's";
  return success();
}

LogicalResult IndexCopyOp::verify() {
  auto self = rankedType(getSelf());
  if (rankedType(getResult()) != self)
    return emitOpError("result type must be self's");
  if (rankedType(getSource()).getElementType() != self.getElementType())
    return emitOpError("source and self must have one element type");
  std::string error = tcc::indexCopyShapeError(self.getShape(), rankedType(getIndex()).getShape(),
                                               rankedType(getSource()).getShape(), getDim());
  if (!error.empty())
    return emitOpError(error);
  return success();
}

LogicalResult AsStridedOp::verify() {
  auto in = rankedType(getInput()), res = rankedType(getResult());
  if (in.getElementType() != res.getElementType())
    return emitOpError("element types differ");
  if (!res.hasStaticShape())
    return emitOpError("needs a static result shape");
  ArrayRef<int64_t> strides = getStrides();
  if ((int64_t)strides.size() != res.getRank())
    return emitOpError("has ") << strides.size() << " strides for a rank-" << res.getRank()
                               << " result";
  if (getStorageOffset() < 0 || llvm::any_of(strides, [](int64_t s) { return s < 0; }))
    return emitOpError("needs a non-negative storage offset and strides");
  if (!in.hasStaticShape() || res.getNumElements() == 0)
    return success();
  int64_t last = getStorageOffset();
  for (auto [size, stride] : llvm::zip(res.getShape(), strides))
    last += (size - 1) * stride;
  if (last >= in.getNumElements())
    return emitOpError("reads element ") << last << " of an input with "
                                         << in.getNumElements() << " elements";
  return success();
}

//===----------------------------------------------------------------------===//
// Operators kept whole for kernel formation
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  auto in = rankedType(getInput()), res = rankedType(getResult());
  if (getDim() < 0 || getDim() >= in.getRank())
    return emitOpError("dim ") << getDim() << " is out of range for rank " << in.getRank();
  if (!compatibleShapes(in.getShape(), res.getShape()))
    return emitOpError("result must have the input's shape");
  return success();
}

/// Shared by layer_norm and rms_norm: the row is the trailing `numDims` dims;
/// parameters have its shape.
static LogicalResult verifyNormalization(Operation *op, Value input, ValueRange params,
                                         int64_t numDims, Value result) {
  auto in = rankedType(input);
  if (numDims < 1 || numDims > in.getRank())
    return op->emitOpError("normalizes ") << numDims << " trailing dims of a rank-"
                                          << in.getRank() << " input";
  if (rankedType(result) != in &&
      (rankedType(result).getElementType() != in.getElementType() ||
       !compatibleShapes(in.getShape(), rankedType(result).getShape())))
    return op->emitOpError("result must have the input's type");
  ArrayRef<int64_t> row = in.getShape().take_back(numDims);
  for (Value p : params)
    if (p && !compatibleShapes(rankedType(p).getShape(), row))
      return op->emitOpError("weight and bias must have the normalized shape");
  return success();
}

LogicalResult LayerNormOp::verify() {
  return verifyNormalization(*this, getInput(), {getWeight(), getBias()}, getNumDims(),
                             getResult());
}

LogicalResult RmsNormOp::verify() {
  return verifyNormalization(*this, getInput(), {getWeight()}, getNumDims(), getResult());
}

LogicalResult AttentionOp::verify() {
  auto q = rankedType(getQuery()), k = rankedType(getKey()), v = rankedType(getValue()),
       res = rankedType(getResult());
  int64_t r = q.getRank();
  if (r < 2 || k.getRank() != r || v.getRank() != r || res.getRank() != r)
    return emitOpError("query, key, value and result must have one rank >= 2");
  Type elt = q.getElementType();
  if (k.getElementType() != elt || v.getElementType() != elt || res.getElementType() != elt)
    return emitOpError("query, key, value and result must have one element type");
  auto qs = q.getShape(), ks = k.getShape(), vs = v.getShape(), os = res.getShape();
  if (!compatibleShapes({qs[r - 1]}, {ks[r - 1]}) || !compatibleShapes({ks[r - 2]}, {vs[r - 2]}))
    return emitOpError("query/key head sizes or key/value lengths differ");
  if (!compatibleShapes({os[r - 2], os[r - 1]}, {qs[r - 2], vs[r - 1]}))
    return emitOpError("result must be [..., Lq, Dv]");
  for (int64_t i = 0; i < r - 2; ++i) {
    bool heads = r == 4 && i == 1;
    int64_t qd = qs[i], kd = ks[i];
    if (heads && !ShapedType::isDynamic(qd) && !ShapedType::isDynamic(kd)) {
      if (kd == 0 || qd % kd)
        return emitOpError("key/value heads (") << kd << ") must divide query heads (" << qd << ")";
      continue;
    }
    if (!compatibleShapes({qd}, {kd}) || !compatibleShapes({kd}, {vs[i]}) ||
        !compatibleShapes({qd}, {os[i]}))
      return emitOpError("batch dims of query, key, value and result differ");
  }
  if (Value mask = getMask()) {
    Type m = rankedType(mask).getElementType();
    if (!m.isInteger(1) && m != elt)
      return emitOpError("mask must be i1 or the query's element type");
    if (rankedType(mask).getRank() > r)
      return emitOpError("mask has more dims than the scores");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  // reshape(reshape(x)) = reshape(x) when this one needs no size operands.
  if (auto inner = getInput().getDefiningOp<ReshapeOp>(); inner && getDynamicSizes().empty() &&
      llvm::count_if(rankedType(getResult()).getShape(), ShapedType::isDynamic) <= 1) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

LogicalResult SpecialFunctionOp::verify() {
  static constexpr llvm::StringLiteral kFunctions[] = {
      "chebyshev_polynomial_t",         "chebyshev_polynomial_u",
      "chebyshev_polynomial_v",         "chebyshev_polynomial_w",
      "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
      "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
      "hermite_polynomial_h",           "hermite_polynomial_he",
      "laguerre_polynomial_l",          "legendre_polynomial_p",
      "zeta",                           "igamma",
      "igammac"};
  if (!llvm::is_contained(kFunctions, getFunction()))
    return emitOpError("unknown function '") << getFunction() << "'";
  size_t arity = getFunction().starts_with("igamma") ? 4 : 2;
  if (getInputs().size() != arity)
    return emitOpError("'") << getFunction() << "' takes " << arity << " operands, not "
                            << getInputs().size();
  Type elt = rankedType(getResult()).getElementType();
  for (Value v : getInputs())
    if (rankedType(v).getElementType() != elt)
      return emitOpError("operand and result element types must match");
  return verifyBroadcastShapes(*this, getInputs());
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

/// What quantize and dequantize share: the quantized side `quantized` is an
/// integer tensor whose type holds [quant_min, quant_max], the other side a
/// float tensor of the same shape, and the scale and zero point are rank 0
/// (per tensor) or 1-D along `axis` (per channel).
static LogicalResult verifyQuantization(Operation *op, Value quantized, Value real,
                                        Value scale, Value zeroPoint,
                                        std::optional<int64_t> axis, int64_t qmin,
                                        int64_t qmax) {
  auto q = rankedType(quantized), r = rankedType(real);
  auto intType = dyn_cast<IntegerType>(q.getElementType());
  if (!intType || intType.getWidth() < 2 || intType.getWidth() > 32)
    return op->emitOpError("quantized type must be an integer of 2 to 32 bits, not ")
           << q.getElementType();
  if (!isa<FloatType>(r.getElementType()))
    return op->emitOpError("real-valued side must be a float tensor");
  if (!compatibleShapes(q.getShape(), r.getShape()))
    return op->emitOpError("input and result shapes differ");
  if (!isa<IntegerType>(rankedType(zeroPoint).getElementType()))
    return op->emitOpError("zero point must be an integer tensor");
  unsigned width = intType.getWidth();
  int64_t lo = intType.isUnsigned() ? 0 : -(int64_t(1) << (width - 1));
  int64_t hi = intType.isUnsigned() ? (int64_t(1) << width) - 1 : (int64_t(1) << (width - 1)) - 1;
  if (qmin > qmax || qmin < lo || qmax > hi)
    return op->emitOpError("quant range [") << qmin << ", " << qmax << "] does not fit "
                                            << q.getElementType();
  int64_t paramRank = axis ? 1 : 0;
  if (rankedType(scale).getRank() != paramRank || rankedType(zeroPoint).getRank() != paramRank)
    return op->emitOpError(axis ? "per-channel scale and zero point must be 1-D"
                                : "per-tensor scale and zero point must be rank 0");
  if (!axis)
    return success();
  if (*axis < 0 || *axis >= q.getRank())
    return op->emitOpError("axis ") << *axis << " out of range for rank " << q.getRank();
  int64_t channels = q.getShape()[*axis];
  for (Value v : {scale, zeroPoint}) {
    int64_t n = rankedType(v).getShape()[0];
    if (!ShapedType::isDynamic(n) && !ShapedType::isDynamic(channels) && n != channels)
      return op->emitOpError("has ") << n << " scales or zero points for " << channels
                                     << " channels";
  }
  return success();
}

LogicalResult QuantizeOp::verify() {
  return verifyQuantization(*this, getResult(), getInput(), getScale(), getZeroPoint(),
                            getAxis(), getQuantMinAttr().getInt(), getQuantMaxAttr().getInt());
}

LogicalResult DequantizeOp::verify() {
  return verifyQuantization(*this, getInput(), getResult(), getScale(), getZeroPoint(),
                            getAxis(), getQuantMinAttr().getInt(), getQuantMaxAttr().getInt());
}
