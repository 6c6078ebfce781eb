//===- tcc-opt.cpp - mlir-opt with tcc's dialects and passes --------------===//
#include "tcc/Pipelines/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tcc::registerTccDialects(registry);
  tcc::registerTccPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tcc optimizer driver\n", registry));
}
