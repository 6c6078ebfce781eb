//===- TccGraphDialect.cpp - the tcc_graph dialect ------------------------===//
#include "dialects/TccGraph/IR/TccGraphDialect.h"
#include "dialects/TccGraph/IR/TccGraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace tcc::graph;

#include "dialects/TccGraph/IR/TccGraphDialect.cpp.inc"

void TccGraphDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/TccGraph/IR/TccGraphOps.cpp.inc"
      >();
}

bool tcc::graph::TccGraphDialect::isWeightArgument(mlir::Value v) {
  auto arg = mlir::dyn_cast<mlir::BlockArgument>(v);
  if (!arg)
    return false;
  auto func = mlir::dyn_cast<mlir::func::FuncOp>(arg.getOwner()->getParentOp());
  auto role = func ? func.getArgAttrOfType<mlir::StringAttr>(arg.getArgNumber(), getRoleAttrName())
                   : mlir::StringAttr();
  return role && role.getValue() == "weight";
}
