//===- LegalizeEinsum.cpp - two-operand einsum as one batched matmul ------===//
//
// "bhqd,bhkd->bhqk": letters in both operands and the output are batch dims,
// in both operands only are contracted, in one operand and the output are
// that operand's free dims. Each operand is permuted to [batch, free,
// contracted] (or [batch, contracted, free]) and reshaped to rank 3, one
// matmul multiplies them, and the result is reshaped and permuted to the
// output's letter order. Core-ATen exports already arrive in this form.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// Product of static sizes, or kDynamic.
int64_t product(ArrayRef<int64_t> sizes) {
  int64_t p = 1;
  for (int64_t s : sizes) {
    if (ShapedType::isDynamic(s))
      return ShapedType::kDynamic;
    p *= s;
  }
  return p;
}

/// `v` with its dims reordered as `letters` name them (from `have`).
Value permuted(OpBuilder &b, Location loc, Value v, StringRef have, StringRef want) {
  SmallVector<int64_t> perm, shape;
  for (char c : want) {
    int64_t d = have.find(c);
    perm.push_back(d);
    shape.push_back(typeOf(v).getShape()[d]);
  }
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return v;
  return b.create<TransposeOp>(loc, RankedTensorType::get(shape, typeOf(v).getElementType()), v,
                               b.getDenseI64ArrayAttr(perm));
}

Results legalizeEinsum(OperatorArgs &args, OpBuilder &b) {
  OperatorOp op = args.getOp();
  Location loc = op.getLoc();
  auto equation = dyn_cast_or_null<StringAttr>(op.getArgs().get("equation"));
  SmallVector<Value> operands = args.tensorList("tensors");
  if (!equation || operands.size() != 2)
    return op.emitError("einsum with ") << operands.size()
                                        << " operands is not supported yet (two are)";
  std::string eq = equation.getValue().str();
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  size_t arrow = eq.find("->"), comma = eq.find(',');
  if (arrow == std::string::npos || comma == std::string::npos || comma > arrow ||
      eq.find("...") != std::string::npos)
    return op.emitError("einsum equation '") << equation.getValue()
                                             << "' needs an explicit '->' and no '...'";
  std::string a = eq.substr(0, comma), c = eq.substr(comma + 1, arrow - comma - 1);
  std::string out = eq.substr(arrow + 2);
  auto unique = [](const std::string &s) {
    return llvm::all_of(s, [&](char ch) { return llvm::count(s, ch) == 1; });
  };
  if (!unique(a) || !unique(c) || !unique(out) || (int64_t)a.size() != typeOf(operands[0]).getRank() ||
      (int64_t)c.size() != typeOf(operands[1]).getRank())
    return op.emitError("einsum equation '")
           << equation.getValue() << "' repeats a letter within an operand or does not "
           << "match the operands' ranks (not supported yet)";
  std::string batch, freeA, freeB, contracted;
  for (char ch : a) {
    bool inC = c.find(ch) != std::string::npos, inOut = out.find(ch) != std::string::npos;
    (inC ? (inOut ? batch : contracted) : (inOut ? freeA : contracted)) += ch;
  }
  for (char ch : c)
    if (a.find(ch) == std::string::npos)
      (out.find(ch) != std::string::npos ? freeB : contracted) += ch;
  for (char ch : contracted)
    if (a.find(ch) == std::string::npos || c.find(ch) == std::string::npos)
      return op.emitError("einsum equation '")
             << equation.getValue() << "' sums a letter of one operand (not supported yet)";

  Value x = permuted(b, loc, operands[0], a, batch + freeA + contracted);
  Value y = permuted(b, loc, operands[1], c, batch + contracted + freeB);
  auto sizes = [](Value v, size_t from, size_t n) {
    return typeOf(v).getShape().slice(from, n);
  };
  size_t nb = batch.size();
  int64_t bs = product(sizes(x, 0, nb)), m = product(sizes(x, nb, freeA.size()));
  int64_t k = product(sizes(x, nb + freeA.size(), contracted.size()));
  int64_t n = product(sizes(y, nb + contracted.size(), freeB.size()));
  if (llvm::count(SmallVector<int64_t>{bs, m, k, n}, ShapedType::kDynamic) > 1 ||
      ShapedType::isDynamic(k))
    return op.emitError("einsum over symbolic sizes is not supported yet");
  Value prod = makeMatmul(b, loc, makeReshape(b, loc, x, {bs, m, k}),
                          makeReshape(b, loc, y, {bs, k, n}));
  SmallVector<int64_t> shape(sizes(x, 0, nb + freeA.size()));
  llvm::append_range(shape, sizes(y, nb + contracted.size(), freeB.size()));
  Value result = makeReshape(b, loc, prod, shape);
  return SmallVector<Value>{permuted(b, loc, result, batch + freeA + freeB, out)};
}
} // namespace

void tcc::graph::populateEinsumLegalizers(LegalizerTable &t) {
  t["aten.einsum.default"] = legalizeEinsum;
}
