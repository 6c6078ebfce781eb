//===- BufferMetadata.h - a planned buffer as a library call sees it ------===//
//
// The GPU library-call passes (cuBLASLt, cuDNN) pass each memref as a raw
// pointer to its first element plus its sizes and strides, read at run time
// (planned views have dynamic offsets into the arena).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_TRANSFORMS_BUFFERMETADATA_H
#define TCC_TRANSFORMS_BUFFERMETADATA_H

#include "mlir/IR/Builders.h"

namespace tcc {

struct BufferMetadata {
  mlir::Value pointer; ///< !llvm.ptr to element [0, ..., 0]
  llvm::SmallVector<mlir::Value> sizes, strides;
};

/// Reads `memref`'s first-element pointer, sizes and strides (in elements).
BufferMetadata readBufferMetadata(mlir::OpBuilder &b, mlir::Location loc, mlir::Value memref);

} // namespace tcc

#endif // TCC_TRANSFORMS_BUFFERMETADATA_H
