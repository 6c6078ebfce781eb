//===- DerivedWeightArguments.cpp - entry arguments the runtime computes --===//
#include "dialects/TccGraph/Transforms/DerivedWeightArguments.h"
#include "dialects/TccGraph/IR/TccGraphDialect.h"

using namespace mlir;

namespace tcc::graph {

DerivedWeightNames::DerivedWeightNames(func::FuncOp func) {
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (auto name = func.getArgAttrOfType<StringAttr>(i, TccGraphDialect::getPublicNameAttrName()))
      names.insert(name.getValue());
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
