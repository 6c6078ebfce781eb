//===- CudaLibraryLoader.h - find a CUDA library at run time --------------===//
//
// cuBLASLt and cuDNN are opened with dlopen so that model.so loads without
// them. Both are searched the same way: a copy the process already has (PyTorch
// loads its own from site-packages/nvidia/...) first, then the soname through
// the loader's path, then $CUDA_ROOT/$CUDA_HOME/$CUDA_PATH and the toolkit's
// lib64, then symbols already in the global scope.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_CUDALIBRARYLOADER_H
#define TCC_RUNTIME_CUDALIBRARYLOADER_H

#include <string>

namespace tcc {

/// A dlopen handle for `soname` (or RTLD_DEFAULT when `probeSymbol` is
/// already in the global scope), or null with every attempt and its reason
/// appended to `tried`, one per line.
void *openCudaLibrary(const char *soname, const char *probeSymbol, std::string &tried);

} // namespace tcc

#endif // TCC_RUNTIME_CUDALIBRARYLOADER_H
