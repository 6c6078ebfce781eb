//===- BufferizableOpInterfaceImpl.h - tcc_kernel ops in one-shot bufferization ===//
#ifndef TCC_DIALECTS_TCCKERNEL_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
#define TCC_DIALECTS_TCCKERNEL_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tcc::kernel {
/// Every tcc_kernel op bufferizes to itself on memrefs, writing into the
/// buffers of its inits (which it never reads).
void registerBufferizableOpInterfaceExternalModels(mlir::DialectRegistry &registry);
} // namespace tcc::kernel

#endif // TCC_DIALECTS_TCCKERNEL_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
