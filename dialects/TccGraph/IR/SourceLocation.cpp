//===- SourceLocation.cpp - an op's Python source, as users read it -------===//
#include "dialects/TccGraph/IR/SourceLocation.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

std::string tcc::graph::formatSourceLocation(Location loc) {
  if (auto f = dyn_cast<FileLineColLoc>(loc)) {
    std::string s = f.getFilename().str();
    if (f.getLine())
      s += ":" + std::to_string(f.getLine());
    return s;
  }
  if (auto n = dyn_cast<NameLoc>(loc))
    return "node '" + n.getName().str() + "'";
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      return formatSourceLocation(fused.getLocations().front());
  return "";
}
