//===- Registration.h - dialects and passes of tcc, registered once -------===//
//
// tcc and tcc-opt call the same two functions, so tcc-opt can run exactly what
// tcc runs (Triton's RegisterTritonDialects.h).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_PIPELINES_REGISTRATION_H
#define TCC_PIPELINES_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tcc {
/// tcc_graph and the upstream dialects (with their bufferization and
/// LLVM-translation interfaces) that tcc's pipelines use.
void registerTccDialects(mlir::DialectRegistry &registry);
/// tcc's passes and pipelines, plus the upstream passes they build on.
void registerTccPasses();
} // namespace tcc

#endif // TCC_PIPELINES_REGISTRATION_H
