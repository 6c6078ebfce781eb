//===- WidenSharedStateProducers.h - one output per written argument -*- C++ -*-===//
#ifndef TCC_CONVERSION_BUFFERIZE_WIDENSHAREDSTATEPRODUCERS_H
#define TCC_CONVERSION_BUFFERIZE_WIDENSHAREDSTATEPRODUCERS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tcc {

/// Where one value is the new value of several written arguments (states
/// or inputs, tcc.written_by) and an elementwise linalg.generic computes
/// it, that generic gets one more output per further argument, yielding
/// the same value: bufferized, it writes every argument in place, one
/// kernel. Copying the value from the first argument into the others
/// would be one more launch per argument (transformers' static cache
/// stores cache_position[0] into every layer's cumulative_length: 15
/// copies per decode step of a 16-layer model).
void widenSharedStateProducers(mlir::func::FuncOp func);

} // namespace tcc

#endif // TCC_CONVERSION_BUFFERIZE_WIDENSHAREDSTATEPRODUCERS_H
