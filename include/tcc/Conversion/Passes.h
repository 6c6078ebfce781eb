//===- Passes.h - tcc's dialect conversions -------------------------------===//
#ifndef TCC_CONVERSION_PASSES_H
#define TCC_CONVERSION_PASSES_H

#include "dialects/TccGraph/IR/TccGraphDialect.h"
#include "dialects/TccKernel/IR/TccKernelDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tcc {
#define GEN_PASS_DECL
#include "tcc/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tcc/Conversion/Passes.h.inc"
} // namespace tcc

#endif // TCC_CONVERSION_PASSES_H
