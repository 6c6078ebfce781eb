//===- SymbolicSizes.cpp - symbolic sizes as index values ------------------===//
//
// The importer records each result's sizes, symbolic ones as expressions
// over the export's symbols ("s70", "2*s70 + 1", "s70//2"). A legalizer that
// creates a tensor of symbolic shape (arange(seq), expand to seq, a slice
// ending at seq) turns those expressions into index arithmetic on the
// function's arguments: each symbol is read with tensor.dim from an input
// that has it as a dimension.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include "dialects/TccGraph/IR/SourceLocation.h"
#include "tcc/Support/SizeChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"

#include <cctype>

using namespace mlir;
using namespace tcc::graph;

namespace {
/// expr := term (('+' | '-') term)*; term := factor (('*' | '//' | '%')
/// factor)*; factor := integer | symbol | '(' expr ')' | '-' factor
/// | ('min' | 'max') '(' expr (',' expr)+ ')'.
class SizeExprBuilder {
public:
  SizeExprBuilder(OpBuilder &b, Operation *anchor, StringRef text)
      : b(b), anchor(anchor), loc(anchor->getLoc()), text(text) {}

  FailureOr<Value> build() {
    Value v = expr();
    skipSpaces();
    if (!v || pos != text.size())
      return anchor->emitError("cannot compute the symbolic size '") << text << "'"
             << (missing.empty() ? "" : ": no input has symbol '" + missing + "' as a dimension");
    return v;
  }

private:
  void skipSpaces() {
    while (pos < text.size() && text[pos] == ' ')
      ++pos;
  }
  bool eat(StringRef token) {
    skipSpaces();
    if (!text.substr(pos).starts_with(token))
      return false;
    pos += token.size();
    return true;
  }
  Value constant(int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); }

  Value expr() {
    Value v = term();
    while (v) {
      if (eat("+"))
        v = combine<arith::AddIOp>(v, term());
      else if (eat("-"))
        v = combine<arith::SubIOp>(v, term());
      else
        break;
    }
    return v;
  }
  Value term() {
    Value v = factor();
    while (v) {
      if (eat("*"))
        v = combine<arith::MulIOp>(v, factor());
      else if (eat("//"))
        v = combine<arith::FloorDivSIOp>(v, factor());
      else if (eat("%"))
        v = combine<arith::RemSIOp>(v, factor());
      else
        break;
    }
    return v;
  }
  template <typename OpTy>
  Value combine(Value l, Value r) {
    return r ? b.create<OpTy>(loc, l, r).getResult() : Value();
  }
  Value factor() {
    skipSpaces();
    if (eat("(")) {
      Value v = expr();
      return eat(")") ? v : Value();
    }
    if (eat("-"))
      return combine<arith::SubIOp>(constant(0), factor());
    size_t start = pos;
    if (pos < text.size() && std::isdigit((unsigned char)text[pos])) {
      while (pos < text.size() && std::isdigit((unsigned char)text[pos]))
        ++pos;
      return constant(std::stoll(text.substr(start, pos - start).str()));
    }
    while (pos < text.size() && (std::isalnum((unsigned char)text[pos]) || text[pos] == '_'))
      ++pos;
    StringRef name = text.substr(start, pos - start);
    if (name == "min" && eat("("))
      return extremum<arith::MinSIOp>();
    if (name == "max" && eat("("))
      return extremum<arith::MaxSIOp>();
    return pos > start ? symbol(name) : Value();
  }
  /// The arguments of min( or max( after its '(', folded left.
  template <typename OpTy>
  Value extremum() {
    Value v = expr();
    if (!v || !eat(","))
      return Value();
    do
      v = combine<OpTy>(v, expr());
    while (v && eat(","));
    return v && eat(")") ? v : Value();
  }
  /// tensor.dim of the first function argument with `name` as a dimension.
  Value symbol(StringRef name) {
    auto func = anchor->getParentOfType<func::FuncOp>();
    for (BlockArgument arg : func ? func.getArguments() : ArrayRef<BlockArgument>{}) {
      auto sizes = func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), TccGraphDialect::getSizesAttrName());
      for (auto [d, size] : llvm::enumerate(sizes ? sizes.getValue() : ArrayRef<Attribute>{}))
        if (auto s = dyn_cast<StringAttr>(size); s && s.getValue() == name)
          return b.create<tensor::DimOp>(loc, arg, d);
    }
    missing = name.str();
    return nullptr;
  }

  OpBuilder &b;
  Operation *anchor;
  Location loc;
  StringRef text;
  size_t pos = 0;
  std::string missing;
};
} // namespace

FailureOr<SmallVector<Value>> tcc::graph::symbolicSizes(OperatorArgs &args, OpBuilder &b,
                                                        unsigned result) {
  SmallVector<Value> sizes;
  RankedTensorType type = args.resultType(result);
  if (type.hasStaticShape())
    return sizes;
  auto all = args.getOp()->getAttrOfType<ArrayAttr>(TccGraphDialect::getSizesAttrName());
  auto mine = all && result < all.size() ? dyn_cast<ArrayAttr>(all[result]) : nullptr;
  if (!mine || (int64_t)mine.size() != type.getRank())
    return args.getOp().emitError("the export gives no symbolic sizes for this result");
  for (auto [d, size] : llvm::enumerate(mine.getValue())) {
    if (!ShapedType::isDynamic(type.getShape()[d]))
      continue;
    auto expr = dyn_cast<StringAttr>(size);
    if (!expr)
      return args.getOp().emitError("result dim ") << d << " is symbolic without an expression";
    FailureOr<Value> v = SizeExprBuilder(b, args.getOp(), expr.getValue()).build();
    if (failed(v))
      return failure();
    sizes.push_back(*v);
  }
  return sizes;
}

void tcc::graph::recordWindowChecks(OperatorArgs &args, StringRef input, ArrayRef<int64_t> kernel,
                                    ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                                    ArrayRef<int64_t> dilation, bool ceilMode) {
  OperatorOp op = args.getOp();
  auto results = op->getAttrOfType<ArrayAttr>(TccGraphDialect::getSizesAttrName());
  auto out = results && !results.empty() ? dyn_cast<ArrayAttr>(results[0]) : nullptr;
  auto operands = op->getAttrOfType<ArrayAttr>(kOperandSizesAttrName);
  ArrayAttr in;
  for (auto [i, name] : llvm::enumerate(op.getOperandNames()))
    if (operands && i < operands.size() && cast<StringAttr>(name).getValue() == input)
      in = dyn_cast<ArrayAttr>(operands[i]);
  auto module = op->getParentOfType<ModuleOp>();
  size_t spatial = kernel.size();
  if (!out || !in || !module || out.size() < spatial || in.size() < spatial)
    return;
  MLIRContext *ctx = op.getContext();
  Builder b(ctx);
  SmallVector<Attribute> checks;
  if (auto old = module->getAttrOfType<ArrayAttr>(kSizeChecksAttrName))
    llvm::append_range(checks, old.getValue());
  StringRef name = op.getName();
  name.consume_front("torch.ops.");
  for (size_t i = 0; i < spatial; ++i) {
    size_t od = out.size() - spatial + i, id = in.size() - spatial + i;
    auto size = dyn_cast<StringAttr>(out[od]);
    if (!size) // a static size: the kernel's own, checked by its type
      continue;
    std::string inText;
    if (auto s = dyn_cast<StringAttr>(in[id]))
      inText = s.str();
    else if (auto v = dyn_cast<IntegerAttr>(in[id]))
      inText = std::to_string(v.getInt());
    else
      continue;
    checks.push_back(b.getDictionaryAttr({
        b.getNamedAttr("operator", b.getStringAttr(name)),
        b.getNamedAttr("where", b.getStringAttr(formatSourceLocation(op.getLoc()))),
        b.getNamedAttr("dim", b.getI64IntegerAttr(od)),
        b.getNamedAttr("size", size),
        b.getNamedAttr("input", b.getStringAttr(inText)),
        b.getNamedAttr("kernel", b.getI64IntegerAttr(kernel[i])),
        b.getNamedAttr("stride", b.getI64IntegerAttr(stride[i])),
        b.getNamedAttr("padding", b.getI64IntegerAttr(padding[i])),
        b.getNamedAttr("dilation", b.getI64IntegerAttr(dilation[i])),
        b.getNamedAttr("ceil_mode", b.getBoolAttr(ceilMode)),
    }));
  }
  module->setAttr(kSizeChecksAttrName, b.getArrayAttr(checks));
}
