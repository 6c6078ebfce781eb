//===- KernelCalls.h - tcc_kernel ops as calls of the runtime --------------===//
//
// Shared by convert-tcc-kernel-to-cuda and convert-tcc-kernel-to-loops: one
// function per kernel family that replaces a bufferized tcc_kernel op with a
// call of its runtime entry point (tcc_gemm, tcc_attention, tcc_row,
// tcc_conv2d, tcc_cuda_rnn; the CPU path's tcc_cpu_gemm, tcc_cpu_attention,
// tcc_cpu_conv2d take the same arguments, tcc_cpu_rnn all but the last three
// of tcc_cuda_rnn's; tcc_cpu_qconv2d the CPU path's int8 convolutions), and
// the helpers they share. Entries and their
// arguments are the contract's (include/tcc/Runtime/RuntimeEntries.def):
// every call is checked against it as it is built.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_CONVERSION_KERNELCALLS_KERNELCALLS_H
#define TCC_LIB_CONVERSION_KERNELCALLS_KERNELCALLS_H

#include "dialects/TccKernel/IR/TccKernelOps.h"
#include "tcc/Runtime/RuntimeEntries.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Builders.h"

namespace tcc::kernelcalls {

/// What the calls are emitted with.
struct CallContext {
  mlir::ModuleOp module; ///< where the runtime functions are declared
  mlir::Value stream;    ///< the entry's CUstream argument (null on the CPU path)
  bool tf32 = false;     ///< --precision tf32: f32 products on TF32 tensor cores
  bool bf16 = false;     ///< --precision bf16: f32 GEMMs with bf16 inputs
};

/// `entry`: tcc_gemm (cuBLASLt), or tcc_cpu_gemm (the CPU path's, same ABI,
/// with a null `ctx.stream`).
void lowerGemm(mlir::OpBuilder &b, kernel::GemmOp op, const CallContext &ctx,
               abi::EntryId entry = abi::EntryId::tcc_gemm);
/// `entry`: tcc_attention, or tcc_cpu_attention (same ABI, null stream).
void lowerAttention(mlir::OpBuilder &b, kernel::AttentionOp op, const CallContext &ctx,
                    abi::EntryId entry = abi::EntryId::tcc_attention);
void lowerRow(mlir::OpBuilder &b, kernel::RowOp op, const CallContext &ctx);
/// `entry`: tcc_conv2d (cuDNN), or tcc_cpu_conv2d (same ABI, null stream).
void lowerConv(mlir::OpBuilder &b, kernel::ConvOp op, const CallContext &ctx,
               abi::EntryId entry = abi::EntryId::tcc_conv2d);
/// `entry`: tcc_cpu_rnn (CpuRecurrent.h) with a null `ctx.stream`, or
/// tcc_cuda_rnn (CudnnRecurrent.h: the same arguments, then the arithmetic,
/// the layer's name and the stream).
void lowerRnn(mlir::OpBuilder &b, kernel::RnnOp op, const CallContext &ctx,
              abi::EntryId entry = abi::EntryId::tcc_cpu_rnn);

/// tcc_cpu_qconv2d (QuantizedConv.h): the CPU path's int8 convolutions.
void lowerQConv(mlir::OpBuilder &b, kernel::QConvOp op, const CallContext &ctx);

/// Builds the arguments of one runtime call, in ABI order.
struct CallBuilder {
  mlir::OpBuilder &b;
  mlir::Location loc;
  llvm::SmallVector<mlir::Value> args;

  mlir::Value i64(mlir::Value index);
  mlir::Value i64(int64_t v);
  mlir::Value i32(int64_t v);
  mlir::Value f32(double v);
  mlir::Value null();
  /// Appends each value in order.
  CallBuilder &add(std::initializer_list<mlir::Value> values);
  /// `pointer` advanced by `elements` (an index) of `elementBytes` each.
  mlir::Value advance(mlir::Value pointer, mlir::Value elements, int64_t elementBytes);
  /// Declares `entry` (private, its contract's argument types) once in
  /// `module` and calls it with the collected arguments. Arguments that
  /// differ from the contract in number or type are a compiler bug: a fatal
  /// error naming the entry and the argument.
  void call(mlir::ModuleOp module, abi::EntryId entry);
};

/// The KernelDType code of an element type (f32, f16, bf16).
int32_t dtypeCode(mlir::Type type);

} // namespace tcc::kernelcalls

#endif // TCC_LIB_CONVERSION_KERNELCALLS_KERNELCALLS_H
