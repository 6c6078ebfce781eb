//===- LazyCudaModule.h - a kernel image loaded per context on first use --===//
//
// Both kinds of kernels model.so launches come as images in the binary: the
// PTX tcc generated for the model (registered by MLIR's gpu-to-llvm
// constructors, MlirGpuRuntime.cpp) and tcc's own kernel library
// (lib/Runtime/Kernels, KernelLibrary.h). Neither may touch the GPU while
// model.so loads, on a machine without one too, so an image is only recorded
// and loaded into a CUDA context (cuModuleLoadDataEx) by the first lookup of a
// function in that context.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_LAZYCUDAMODULE_H
#define TCC_RUNTIME_LAZYCUDAMODULE_H

#include "tcc/Runtime/CudaDriver.h"

#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace tcc::cuda {

class LazyCudaModule {
public:
  /// `image`: PTX text (NUL-terminated, `size` 0), a cubin or a fatbin; it
  /// must outlive this object. `what` names it in errors ("the model's
  /// kernels").
  LazyCudaModule(const void *image, size_t size, std::string what)
      : image_(image), size_(size), what_(std::move(what)) {}
  ~LazyCudaModule();
  LazyCudaModule(const LazyCudaModule &) = delete;
  LazyCudaModule &operator=(const LazyCudaModule &) = delete;

  /// The function `name` in the current context (made current if there is
  /// none), loading the image there first. Throws RuntimeError with the
  /// JIT's log when the image is rejected.
  CUfunction function(const char *name);

private:
  struct Loaded {
    CUcontext context;
    CUmodule module;
    std::vector<std::pair<std::string, CUfunction>> functions;
  };
  Loaded &forCurrentContext(const Driver &d);

  const void *image_;
  size_t size_;
  std::string what_;
  std::mutex mutex_;
  std::vector<Loaded> loaded_;
};

} // namespace tcc::cuda

#endif // TCC_RUNTIME_LAZYCUDAMODULE_H
