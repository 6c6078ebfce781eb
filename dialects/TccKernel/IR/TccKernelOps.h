//===- TccKernelOps.h - tcc_kernel operations -----------------------------===//
#ifndef TCC_DIALECTS_TCCKERNEL_IR_TCCKERNELOPS_H
#define TCC_DIALECTS_TCCKERNEL_IR_TCCKERNELOPS_H

#include "dialects/TccKernel/IR/TccKernelDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/TccKernel/IR/TccKernelEnums.h.inc"

#define GET_OP_CLASSES
#include "dialects/TccKernel/IR/TccKernelOps.h.inc"

#endif // TCC_DIALECTS_TCCKERNEL_IR_TCCKERNELOPS_H
