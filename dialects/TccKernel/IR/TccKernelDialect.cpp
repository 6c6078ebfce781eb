//===- TccKernelDialect.cpp - the tcc_kernel dialect ----------------------===//
#include "dialects/TccKernel/IR/TccKernelDialect.h"
#include "dialects/TccKernel/IR/TccKernelOps.h"

using namespace mlir;
using namespace tcc::kernel;

#include "dialects/TccKernel/IR/TccKernelDialect.cpp.inc"

void TccKernelDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/TccKernel/IR/TccKernelOps.cpp.inc"
      >();
}
