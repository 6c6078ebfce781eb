//===- DerivedWeightArguments.cpp - entry arguments the runtime computes --===//
#include "dialects/TccGraph/Transforms/DerivedWeightArguments.h"
#include "dialects/TccGraph/IR/TccGraphDialect.h"

using namespace mlir;

namespace tcc::graph {

StringRef argumentString(func::FuncOp func, BlockArgument arg, StringRef attr) {
  auto s = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), attr);
  return s ? s.getValue() : StringRef();
}

DerivedWeightNames::DerivedWeightNames(func::FuncOp func) {
  for (BlockArgument arg : func.getArguments())
    if (StringRef name = argumentString(func, arg, TccGraphDialect::getPublicNameAttrName());
        !name.empty())
      names.insert(name);
}

std::string DerivedWeightNames::fresh(StringRef source) {
  for (int k = 0;; ++k) {
    std::string name = ("derived:" + source + ":" + std::to_string(k)).str();
    if (names.insert(name).second)
      return name;
  }
}

BlockArgument appendDerivedWeight(func::FuncOp func, RankedTensorType type, StringRef name,
                                  ArrayRef<std::string> program, Location loc) {
  Builder b(func.getContext());
  SmallVector<Attribute> tokens;
  for (const std::string &t : program)
    tokens.push_back(b.getStringAttr(t));
  auto attrs = b.getDictionaryAttr(
      {b.getNamedAttr(TccGraphDialect::getSizesAttrName(), b.getI64ArrayAttr(type.getShape())),
       b.getNamedAttr(TccGraphDialect::getRoleAttrName(), b.getStringAttr("weight")),
       b.getNamedAttr(TccGraphDialect::getPublicNameAttrName(), b.getStringAttr(name)),
       b.getNamedAttr(TccGraphDialect::getDerivedAttrName(), b.getArrayAttr(tokens))});
  unsigned index = func.getNumArguments();
  if (failed(func.insertArgument(index, type, attrs, loc)))
    return BlockArgument();
  return func.getArgument(index);
}

} // namespace tcc::graph
