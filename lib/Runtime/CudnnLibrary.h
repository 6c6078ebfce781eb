//===- CudnnLibrary.h - cuDNN 9, opened once, a handle per context -------===//
//
// What every cuDNN user of the runtime shares (CudnnConv.cpp's
// convolutions, CudnnRecurrent.cpp's recurrent layers): libcudnn.so.9 opened
// with dlopen once per process (the search of CudaLibraryLoader.h), its
// version checked, and per (thread, CUDA context) one ContextState: a cuDNN
// handle, one workspace that grows only outside stream capture (a replaced
// one is kept until the thread ends, since graphs captured earlier still
// use it), and each user's own part (its plans) created on first use.
// libcudnn.so.9 is the shim that exports the whole API and loads the
// sub-libraries (ops, cnn, adv) on demand; each user resolves the
// functions it needs with `resolve`.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_RUNTIME_CUDNNLIBRARY_H
#define TCC_LIB_RUNTIME_CUDNNLIBRARY_H

#include "tcc/Runtime/CudaDriver.h"

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace tcc::cudnn {

using cudnnStatus_t = int;
using cudnnHandle_t = struct cudnnContext *;

constexpr cudnnStatus_t CUDNN_STATUS_SUCCESS = 0;

/// The library: the handle of the open shim and the functions every user
/// needs.
struct Library {
  void *so = nullptr; ///< dlopen handle (or RTLD_DEFAULT)
  size_t (*getVersion)() = nullptr;
  const char *(*getErrorString)(cudnnStatus_t) = nullptr;
  cudnnStatus_t (*create)(cudnnHandle_t *) = nullptr;
  cudnnStatus_t (*destroy)(cudnnHandle_t) = nullptr;
  cudnnStatus_t (*setStream)(cudnnHandle_t, void *) = nullptr;

  /// The loaded library. Throws RuntimeError (TCC_ERROR_UNSUPPORTED) where
  /// cuDNN 9 cannot be opened, saying what needed it (`neededFor`, e.g.
  /// "the model's convolutions on the GPU") and every place tried.
  static const Library &get(const std::string &neededFor);

  /// Resolves `name` into `fn`; false (and `error` set) when it is missing.
  template <typename Fn> bool resolve(const char *name, Fn &fn, std::string &error) const {
    fn = reinterpret_cast<Fn>(symbol(name));
    if (!fn)
      error = std::string("cuDNN found, but it lacks '") + name + "' (not cuDNN 9?)";
    return fn != nullptr;
  }

  std::string statusText(cudnnStatus_t s) const;
  /// Throws RuntimeError "cudnn: <what> failed: <status>" unless `s` is success
  /// (allocation failures as TCC_ERROR_OUT_OF_MEMORY).
  void check(cudnnStatus_t s, const std::string &what) const;

private:
  void *symbol(const char *name) const;
};

/// The workspace a call may take at most.
constexpr size_t kMaxWorkspaceBytes = size_t(256) << 20;

/// One user's state within a ContextState (its plans), destroyed before the
/// handle.
struct StatePart {
  virtual ~StatePart() = default;
};

/// The users of a ContextState, one part each.
enum class Part { Convolution, Recurrence, Count };

/// Per (thread, CUDA context): a handle, a workspace and the users' parts.
struct ContextState {
  const Library *lib = nullptr;
  cuda::CUcontext context = nullptr;
  cudnnHandle_t handle = nullptr;
  cuda::DeviceBuffer workspace;
  std::vector<cuda::DeviceBuffer> retired; // earlier workspaces, maybe in graphs

  ContextState(const Library &l, cuda::CUcontext ctx);
  ContextState(const ContextState &) = delete;
  ContextState &operator=(const ContextState &) = delete;
  ~ContextState();

  /// Grows the workspace to at least `bytes` (never during stream capture:
  /// graphs captured earlier keep the old one alive).
  void reserveWorkspace(size_t bytes);

  /// The part of `which` user, made (as T(*this)) on first use.
  template <typename T> T &part(Part which) {
    std::unique_ptr<StatePart> &slot = parts[static_cast<size_t>(which)];
    if (!slot)
      slot = std::make_unique<T>(*this);
    return static_cast<T &>(*slot);
  }

private:
  std::array<std::unique_ptr<StatePart>, static_cast<size_t>(Part::Count)> parts;
};

/// This thread's state for the current CUDA context (made on first use).
ContextState &stateForCurrentContext(const Library &lib);

/// Whether work enqueued on `stream` is being captured into a graph (false
/// when the driver cannot tell).
bool isCapturing(void *stream);

} // namespace tcc::cudnn

#endif // TCC_LIB_RUNTIME_CUDNNLIBRARY_H
