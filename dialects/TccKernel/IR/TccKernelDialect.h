//===- TccKernelDialect.h - the tcc_kernel dialect ------------------------===//
#ifndef TCC_DIALECTS_TCCKERNEL_IR_TCCKERNELDIALECT_H
#define TCC_DIALECTS_TCCKERNEL_IR_TCCKERNELDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/TccKernel/IR/TccKernelDialect.h.inc"

#endif // TCC_DIALECTS_TCCKERNEL_IR_TCCKERNELDIALECT_H
