//===- BufferizableOpInterfaceImpl.h - tcc_kernel ops in one-shot bufferization ===//
#ifndef TCC_DIALECTS_TCCKERNEL_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
#define TCC_DIALECTS_TCCKERNEL_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H

#include <cstdint>

namespace mlir {
class DialectRegistry;
class Operation;
class OpOperand;
} // namespace mlir

namespace tcc::kernel {
/// How many trailing dims of `operand`'s buffer the tcc_kernel op `op` (on
/// tensors or on buffers) needs packed row-major (0: any strides): what its
/// library call or loop nest indexes densely. Bufferization gives a buffer without that property a
/// packed copy; tcc-bufferize writes a producer into its slice of a
/// concatenation only where the slice keeps it.
int64_t packedTrailingDims(mlir::Operation *op, mlir::OpOperand &operand);

/// Every tcc_kernel op bufferizes to itself on memrefs, writing into the
/// buffers of its inits (which it never reads).
void registerBufferizableOpInterfaceExternalModels(mlir::DialectRegistry &registry);
} // namespace tcc::kernel

#endif // TCC_DIALECTS_TCCKERNEL_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
