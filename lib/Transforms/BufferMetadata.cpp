//===- BufferMetadata.cpp - a planned buffer as a library call sees it ----===//
#include "tcc/Transforms/BufferMetadata.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

tcc::BufferMetadata tcc::readBufferMetadata(OpBuilder &b, Location loc, Value memref) {
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value aligned = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  // i1 (a bool mask) is stored one byte per element, like PyTorch's bool.
  int64_t elementBytes =
      (cast<MemRefType>(memref.getType()).getElementTypeBitWidth() + 7) / 8;
  Value bytes = arith::MulIOp::create(b, loc, meta.getOffset(),
                                      arith::ConstantIndexOp::create(b, loc, elementBytes));
  Value address = arith::AddIOp::create(b, loc, aligned, bytes);
  Value address64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
  BufferMetadata m;
  m.pointer = LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                                       address64);
  m.sizes.assign(meta.getSizes().begin(), meta.getSizes().end());
  m.strides.assign(meta.getStrides().begin(), meta.getStrides().end());
  return m;
}
