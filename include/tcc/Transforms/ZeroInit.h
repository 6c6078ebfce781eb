//===- ZeroInit.h - does a library call's output start as zeros? ----------===//
//
// The cuBLASLt and cuDNN passes both replace a linalg op whose output buffer
// was initialized before it; when that init is a zero fill (or a copy of a
// zero-filled buffer) the library call can overwrite (beta = 0) and the fill
// can go. Planned buffers do not overlap while live, so only ops using the
// buffer itself are looked at.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_TRANSFORMS_ZEROINIT_H
#define TCC_TRANSFORMS_ZEROINIT_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace tcc {

/// Whether `buffer` has a view (other than a metadata read) through which it
/// could be written unseen.
bool hasAliases(mlir::Value buffer);

/// The op that last wrote `buffer` before `from` in its block (null if none or
/// unknown); linalg ops that only read it are skipped and, if `readers` is
/// given, collected. With `metadataReadsMayWrite`, a pointer/metadata read
/// counts as a write (it may feed an earlier library call that writes the
/// buffer); without, it is skipped.
mlir::Operation *lastWriter(mlir::Value buffer, mlir::Operation *from,
                            llvm::SmallVectorImpl<mlir::Operation *> *readers,
                            bool metadataReadsMayWrite);

/// Whether `op` is a linalg.fill of `buffer` with 0.0.
bool isZeroFillOf(mlir::Operation *op, mlir::Value buffer);

struct ZeroInit {
  bool zero = false;
  mlir::Operation *erasable = nullptr; ///< the fill or copy, when nothing else reads the buffer
  mlir::linalg::FillOp sharedFill;     ///< the copy's source fill (erased once unused)
};

/// Whether `buffer` holds zeros when `op` starts: its last writer is a zero
/// fill, or a copy of a buffer whose last writer is a zero fill (CSE merges
/// identical fills, and bufferization then copies the one filled buffer into
/// each accumulator).
ZeroInit zeroInitOf(mlir::Value buffer, mlir::Operation *op, bool metadataReadsMayWrite);

} // namespace tcc

#endif // TCC_TRANSFORMS_ZEROINIT_H
