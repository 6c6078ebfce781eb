//===- TccGraphDialect.cpp - the tcc_graph dialect ------------------------===//
#include "dialects/TccGraph/IR/TccGraphDialect.h"
#include "dialects/TccGraph/IR/TccGraphOps.h"

using namespace mlir;
using namespace tcc::graph;

#include "dialects/TccGraph/IR/TccGraphDialect.cpp.inc"

void TccGraphDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/TccGraph/IR/TccGraphOps.cpp.inc"
      >();
}
