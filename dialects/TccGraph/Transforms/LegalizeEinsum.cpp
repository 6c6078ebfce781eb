//===- LegalizeEinsum.cpp - einsum as sums and batched matmuls ------------===//
//
// Letters that only one operand has and the output lacks are summed first.
// Then operands are contracted left to right, two at a time: with "kept"
// the letters the output or a later operand still needs, "bhqd,bhkd->bhqk"
// has batch dims (in both, kept), contracted dims (in both, not kept) and
// each operand's free dims. Each operand is permuted to [batch, free,
// contracted] (or [batch, contracted, free]) and reshaped to rank 3, one
// matmul multiplies them, and the result is reshaped. The last operand is
// permuted to the output's letter order. Core-ATen exports already arrive
// decomposed.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

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

/// One operand, or an intermediate product, and the letters of its dims.
struct Labeled {
  Value value;
  std::string letters;
};

/// `x` summed over its letters that are not in `keep`.
Labeled sumOut(OpBuilder &b, Location loc, Labeled x, StringRef keep) {
  SmallVector<int64_t> dims;
  std::string left;
  for (auto [d, ch] : llvm::enumerate(x.letters)) {
    if (keep.contains(ch))
      left += ch;
    else
      dims.push_back(d);
  }
  if (dims.empty())
    return x;
  return {makeReduce<ReduceSumOp>(b, loc, x.value, dims, /*keepdim=*/false), left};
}

/// x · y over their shared letters that are not in `keep`, as one batched
/// matmul; the product's letters are batch + free(x) + free(y).
FailureOr<Labeled> contract(OpBuilder &b, Location loc, OperatorOp op, const Labeled &x,
                            const Labeled &y, StringRef keep) {
  std::string batch, freeA, freeB, contracted;
  for (char ch : x.letters)
    (StringRef(y.letters).contains(ch) ? (keep.contains(ch) ? batch : contracted) : freeA) += ch;
  for (char ch : y.letters)
    if (!StringRef(x.letters).contains(ch))
      freeB += ch;
  Value a = permuted(b, loc, x.value, x.letters, batch + freeA + contracted);
  Value c = permuted(b, loc, y.value, y.letters, batch + contracted + freeB);
  auto sizes = [](Value v, size_t from, size_t n) {
    return typeOf(v).getShape().slice(from, n);
  };
  size_t nb = batch.size(), na = freeA.size(), nk = contracted.size();
  int64_t bs = product(sizes(a, 0, nb)), m = product(sizes(a, nb, na));
  int64_t k = product(sizes(a, nb + na, nk));
  int64_t n = product(sizes(c, nb + nk, freeB.size()));
  // Symbolic sizes: each merged group's size is the product of its dims'
  // run-time sizes, and the product is split back by the same sizes.
  Value bsSize = dimProduct(b, loc, a, 0, nb);
  Value mSize = dimProduct(b, loc, a, nb, nb + na);
  Value kSize = dimProduct(b, loc, a, nb + na, nb + na + nk);
  Value nSize = dimProduct(b, loc, c, nb + nk, nb + nk + freeB.size());
  // One op per statement: argument order is the compiler's (issue 17).
  Value lhs = makeReshape(b, loc, a, {bs, m, k}, {bsSize, mSize, kSize});
  Value rhs = makeReshape(b, loc, c, {bs, k, n}, {bsSize, kSize, nSize});
  Value prod = makeMatmul(b, loc, lhs, rhs);
  SmallVector<int64_t> shape(sizes(a, 0, nb + na));
  llvm::append_range(shape, sizes(c, nb + nk, freeB.size()));
  SmallVector<Value> shapeSizes;
  for (int64_t d = 0; d < int64_t(nb + na); ++d)
    shapeSizes.push_back(dimIndex(b, loc, a, d));
  for (int64_t d = nb + nk; d < int64_t(nb + nk + freeB.size()); ++d)
    shapeSizes.push_back(dimIndex(b, loc, c, d));
  return Labeled{makeReshape(b, loc, prod, shape, shapeSizes), batch + freeA + freeB};
}

Results legalizeEinsum(OperatorArgs &args, OpBuilder &b) {
  OperatorOp op = args.getOp();
  Location loc = op.getLoc();
  auto equation = dyn_cast_or_null<StringAttr>(op.getArgs().get("equation"));
  SmallVector<Value> operands = args.tensorList("tensors");
  if (!equation || operands.empty())
    return op.emitError("einsum needs an equation and at least one operand");
  std::string eq = equation.getValue().str();
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  if (eq.find("...") != std::string::npos)
    return op.emitError("einsum equation '") << equation.getValue()
                                             << "': '...' is not supported yet";
  size_t arrow = eq.find("->");
  SmallVector<StringRef> inputs;
  StringRef(eq).substr(0, arrow).split(inputs, ',');
  std::string out;
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
  } else { // implicit output: the letters used once, in alphabetical order
    for (char ch : llvm::concat<const char>(llvm::seq_inclusive('A', 'Z'),
                                            llvm::seq_inclusive('a', 'z')))
      if (llvm::count(eq, ch) == 1)
        out += ch;
  }
  auto unique = [](StringRef s) {
    return llvm::all_of(s, [&](char ch) { return llvm::count(s, ch) == 1; });
  };
  if (inputs.size() != operands.size())
    return op.emitError("einsum equation '")
           << equation.getValue() << "' names " << inputs.size() << " operands, got "
           << operands.size();
  SmallVector<Labeled> terms;
  for (auto [i, letters] : llvm::enumerate(inputs)) {
    if (!unique(letters))
      return op.emitError("einsum equation '")
             << equation.getValue() << "': operand " << i << " ('" << letters
             << "') repeats a letter (a diagonal; not supported yet)";
    if ((int64_t)letters.size() != typeOf(operands[i]).getRank())
      return op.emitError("einsum equation '")
             << equation.getValue() << "': operand " << i << " ('" << letters << "') has rank "
             << typeOf(operands[i]).getRank();
    terms.push_back({operands[i], letters.str()});
  }
  if (!unique(out) || llvm::any_of(out, [&](char ch) {
        return llvm::none_of(inputs, [&](StringRef s) { return s.contains(ch); });
      }))
    return op.emitError("einsum equation '")
           << equation.getValue() << "': output '" << out
           << "' repeats a letter or names one no operand has";

  // Letters one operand alone has and the output lacks: summed up front.
  for (size_t i = 0; i < terms.size(); ++i) {
    std::string keep = out;
    for (size_t j = 0; j < terms.size(); ++j)
      if (j != i)
        keep += terms[j].letters;
    terms[i] = sumOut(b, loc, terms[i], keep);
  }
  Labeled acc = terms.front();
  for (size_t i = 1; i < terms.size(); ++i) {
    std::string keep = out;
    for (size_t j = i + 1; j < terms.size(); ++j)
      keep += terms[j].letters;
    FailureOr<Labeled> next = contract(b, loc, op, acc, terms[i], keep);
    if (failed(next))
      return failure();
    acc = *next;
  }
  return SmallVector<Value>{permuted(b, loc, acc.value, acc.letters, out)};
}
} // namespace

void tcc::graph::populateEinsumLegalizers(LegalizerTable &t) {
  t["aten.einsum.default"] = legalizeEinsum;
}
