//===- FormKernels.h - kernel formation, by family ------------------------===//
//
// Private to tcc-form-kernels: one function per kernel family, each turning
// the tcc_graph ops of one kind (with the neighbours it fuses) into
// tcc_kernel ops, and the small helpers they share.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_CONVERSION_TCCGRAPHTOKERNEL_FORMKERNELS_H
#define TCC_LIB_CONVERSION_TCCGRAPHTOKERNEL_FORMKERNELS_H

#include "dialects/TccKernel/IR/TccKernelOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>

namespace tcc::formation {

/// scaled_dot_product_attention (tcc_graph.attention) → tcc_kernel.attention,
/// with the transposes and the repeat of key/value heads around it folded in;
/// attention the kernel cannot take is decomposed on the spot.
void formAttentionKernels(mlir::func::FuncOp func);

/// PT2E's QDQ patterns around conv2d and linear → tcc_kernel.qconv with
/// `cpuOnly` (oneDNN's int8 primitives; the CUDA path has none yet); every
/// tcc_graph.quantize/dequantize left is spelled out as PyTorch's float
/// arithmetic (FormQuantized.cpp).
void formQuantizedKernels(mlir::func::FuncOp func, bool cpuOnly);

/// Every tcc_graph.matmul → tcc_kernel.gemm, with operand transposes and its
/// epilogue (scale, bias, ReLU/GELU-tanh, residual add) folded in. With
/// `f32TensorCores`, f32 products get the alignment care of half ones.
/// With `cpuOnly` (no CUDA path), an exact (erf) GELU after an f32 product is
/// its epilogue too (oneDNN's post-op; cuBLASLt has only the tanh form).
void formGemmKernels(mlir::func::FuncOp func, bool f32TensorCores, bool cpuOnly = false);

/// Every 2-D tcc_graph.conv2d → tcc_kernel.conv with its padding and its
/// epilogue (residual add, ReLU) folded in; channels-last (between
/// transposes) where tensor cores compute it: f16/bf16, or f32 with
/// `f32TensorCores`.
/// With `cpuOnly` (no CUDA path), every f32 convolution is channels-last and
/// takes any activation after it (oneDNN's post-ops, OneDnnConv.h).
void formConvKernels(mlir::func::FuncOp func, bool f32TensorCores, bool cpuOnly = false);

/// Whether `op` is an elementwise tcc_graph op (unary, binary, compare,
/// select, cast): what elementwise fusion makes one loop nest of.
bool isPointwise(mlir::Operation *op);

/// NCHW ↔ NHWC transposes (from channels-last convolutions) moved through
/// pointwise ops, concatenations and reductions, and cancelled in pairs, so
/// that the layout changes once at the model's edges.
void sinkLayoutTransposes(mlir::func::FuncOp func);

/// [N, C, H, W] → [N, H, W, C] as a transpose (a reshape when only size-1
/// dims move), and back.
mlir::Value toChannelsLast(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
mlir::Value toChannelsFirst(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
/// A shape in the other layout.
llvm::SmallVector<int64_t> channelsLastShape(llvm::ArrayRef<int64_t> nchw);
llvm::SmallVector<int64_t> channelsFirstShape(llvm::ArrayRef<int64_t> nhwc);

/// softmax/log_softmax over the last dim, layer_norm, rms_norm (also as the
/// usual hand-written RMSNorm) → tcc_kernel.row, with a residual add before
/// it folded in; the rest is decomposed.
void formRowKernels(mlir::func::FuncOp func);

/// Every tcc_graph.index_copy as a tcc_kernel.scatter into the tensor it
/// writes (FormScatters.cpp).
void formScatterKernels(mlir::func::FuncOp func);

/// Every tcc_graph.rnn as one tcc_kernel.rnn (FormRecurrences.cpp), for
/// either path (tcc_cpu_rnn, or cuDNN's through tcc_cuda_rnn).
void formRecurrentKernels(mlir::func::FuncOp func);

/// An activation tcc_graph ops compute, as one a kernel can apply (relu6,
/// silu, hardswish): its input, its result and its ops.
struct ActivationMatch {
  tcc::kernel::Activation kind;
  mlir::Value input, result;
  llvm::SmallVector<mlir::Operation *> ops;
};

/// The activation whose result is `result`, where nothing outside its ops
/// reads their values but `result` (MatchActivation.cpp).
std::optional<ActivationMatch> matchActivation(mlir::Value result);
/// The activation of `x` whose ops are all of x's users, likewise.
std::optional<ActivationMatch> matchActivationOf(mlir::Value x);

/// The exact GELU, 0.5·x·(1 + erf(x/√2)) as aten.gelu legalizes, of `x`
/// where its ops read only `x` and one another: its result, with its ops
/// appended to `patternOps`; else null (FormGemm.cpp).
mlir::Value findGeluErf(mlir::Value x, llvm::SmallVectorImpl<mlir::Operation *> &patternOps);

/// The ranked tensor type of a tcc_graph value.
inline mlir::RankedTensorType typeOf(mlir::Value v) {
  return llvm::cast<mlir::RankedTensorType>(v.getType());
}

/// Element types the kernels compute on (f32, f16, bf16).
inline bool kernelElementType(mlir::Type t) { return t.isF32() || t.isF16() || t.isBF16(); }

/// The value of a splat float tcc_graph.constant (rank 0 or all ones).
std::optional<double> splatConstant(mlir::Value v);

/// `tensor.empty` of `type`; dynamic dim i gets `dynamicSize(i)`.
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                        llvm::function_ref<mlir::Value(int64_t)> dynamicSize);

/// `v` reshaped to `shape` (itself if it already has it); at most one
/// dynamic dim, inferred from the element count.
mlir::Value reshapeTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                      llvm::ArrayRef<int64_t> shape);

/// The input of `v` when `v` is a tcc_graph.transpose with exactly this
/// permutation, else null.
mlir::Value transposeInput(mlir::Value v, llvm::ArrayRef<int64_t> permutation);

/// The location of a kernel made of `ops`: their locations fused, with the
/// ops' names (without the dialect) as metadata, which `tcc inspect` lists as
/// the kernel's source ops.
mlir::Location kernelLocation(llvm::ArrayRef<mlir::Operation *> ops);

/// Erases `ops` (in reverse order) that have no uses left.
void eraseDead(llvm::ArrayRef<mlir::Operation *> ops);

} // namespace tcc::formation

#endif // TCC_LIB_CONVERSION_TCCGRAPHTOKERNEL_FORMKERNELS_H
