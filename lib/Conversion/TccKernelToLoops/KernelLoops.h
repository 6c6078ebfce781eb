//===- KernelLoops.h - tcc_kernel ops as loops, by family -----------------===//
//
// Private to convert-tcc-kernel-to-loops (and lowerScatter to
// convert-tcc-kernel-to-cuda too): each function replaces one
// tcc_kernel op on memrefs with scf loops that compute it in f32 (rounding
// once to the output's type), and the helpers they share.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_CONVERSION_TCCKERNELTOLOOPS_KERNELLOOPS_H
#define TCC_LIB_CONVERSION_TCCKERNELTOLOOPS_KERNELLOOPS_H

#include "dialects/TccKernel/IR/TccKernelOps.h"

#include "mlir/IR/Builders.h"

namespace tcc::loops {

void lowerGemm(mlir::OpBuilder &b, kernel::GemmOp op);
void lowerAttention(mlir::OpBuilder &b, kernel::AttentionOp op);
void lowerRow(mlir::OpBuilder &b, kernel::RowOp op);
void lowerConv(mlir::OpBuilder &b, kernel::ConvOp op);
/// One scf.parallel over the source's elements; the CUDA path's lowering
/// uses it too (a loop nest becomes a kernel there).
void lowerScatter(mlir::OpBuilder &b, kernel::ScatterOp op);

/// Index and float arithmetic at one location.
struct Emitter {
  mlir::OpBuilder &b;
  mlir::Location loc;

  mlir::Value index(int64_t v);
  mlir::Value f32(double v);
  /// Size of dim `d` of a memref.
  mlir::Value dim(mlir::Value memref, int64_t d);
  /// `v` (a float) widened to f32 (itself if f32).
  mlir::Value widen(mlir::Value v);
  /// f32 `v` rounded to `type`.
  mlir::Value narrow(mlir::Value v, mlir::Type type);
  /// f32 `v` rounded to `type` and widened again (PyTorch's per-op rounding).
  mlir::Value roundTrip(mlir::Value v, mlir::Type type);
  mlir::Value load(mlir::Value memref, mlir::ValueRange indices);
  void store(mlir::Value value, mlir::Value memref, mlir::ValueRange indices);
};

} // namespace tcc::loops

#endif // TCC_LIB_CONVERSION_TCCKERNELTOLOOPS_KERNELLOOPS_H
