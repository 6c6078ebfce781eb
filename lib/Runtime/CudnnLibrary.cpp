//===- CudnnLibrary.cpp - cuDNN 9, opened once, a handle per context -----===//
#include "CudnnLibrary.h"

#include "tcc/Runtime/CudaLibraryLoader.h"
#include "tcc/Runtime/RuntimeError.h"

#include <dlfcn.h>

#include <algorithm>

using namespace tcc;
using namespace tcc::cudnn;

namespace {

/// The initial workspace.
constexpr size_t kMinWorkspaceBytes = size_t(8) << 20;

struct LoadedLibrary {
  Library lib{};
  std::string error; // empty when usable

  LoadedLibrary() {
    // Search order: see CudaLibraryLoader.h.
    std::string tried;
    lib.so = openCudaLibrary("libcudnn.so.9", "cudnnCreate", tried);
    if (!lib.so) {
      error = "cuDNN not found (libcudnn.so.9; install cuDNN 9, add its lib directory to "
              "LD_LIBRARY_PATH, or import torch first). Tried:" +
              tried;
      return;
    }
    bool ok = lib.resolve("cudnnGetVersion", lib.getVersion, error) &&
              lib.resolve("cudnnGetErrorString", lib.getErrorString, error) &&
              lib.resolve("cudnnCreate", lib.create, error) &&
              lib.resolve("cudnnDestroy", lib.destroy, error) &&
              lib.resolve("cudnnSetStream", lib.setStream, error);
    if (!ok)
      return;
    size_t version = lib.getVersion();
    if (version < 90000 || version >= 100000)
      error = "cuDNN found, but it is version " + std::to_string(version) +
              " (tcc needs cuDNN 9)";
  }
};

thread_local std::vector<std::unique_ptr<ContextState>> threadStates;

} // namespace

const Library &Library::get(const std::string &neededFor) {
  static LoadedLibrary loaded; // thread-safe, once per process
  if (!loaded.error.empty())
    throw RuntimeError(TCC_ERROR_UNSUPPORTED, neededFor + " needs cuDNN: " + loaded.error);
  return loaded.lib;
}

void *Library::symbol(const char *name) const { return so ? dlsym(so, name) : nullptr; }

std::string Library::statusText(cudnnStatus_t s) const {
  const char *name = getErrorString ? getErrorString(s) : nullptr;
  return name ? std::string(name) : "cuDNN status " + std::to_string(s);
}

void Library::check(cudnnStatus_t s, const std::string &what) const {
  if (s == CUDNN_STATUS_SUCCESS)
    return;
  // 4003/4004: host/device allocation failed.
  throw RuntimeError(s == 4003 || s == 4004 ? TCC_ERROR_OUT_OF_MEMORY : TCC_ERROR_INTERNAL,
                     "cudnn: " + what + " failed: " + statusText(s));
}

ContextState::ContextState(const Library &l, cuda::CUcontext ctx) : lib(&l), context(ctx) {
  lib->check(lib->create(&handle), "cudnnCreate");
}

ContextState::~ContextState() {
  for (std::unique_ptr<StatePart> &p : parts)
    p.reset(); // their descriptors before the handle
  if (handle)
    (void)lib->destroy(handle);
}

void ContextState::reserveWorkspace(size_t bytes) {
  if (bytes <= workspace.bytes())
    return;
  size_t grown = std::max(bytes, std::max(kMinWorkspaceBytes, 2 * workspace.bytes()));
  grown = std::max(bytes, std::min(grown, kMaxWorkspaceBytes));
  cuda::DeviceBuffer next(grown);
  if (workspace.bytes())
    retired.push_back(std::move(workspace));
  workspace = std::move(next);
}

ContextState &tcc::cudnn::stateForCurrentContext(const Library &lib) {
  cuda::CUcontext ctx = cuda::ensureContext();
  for (auto &s : threadStates)
    if (s->context == ctx)
      return *s;
  threadStates.push_back(std::make_unique<ContextState>(lib, ctx));
  return *threadStates.back();
}

bool tcc::cudnn::isCapturing(void *stream) {
  const cuda::Driver &d = cuda::Driver::get();
  if (!d.cuStreamIsCapturing)
    return false;
  int status = 0;
  if (d.cuStreamIsCapturing(static_cast<cuda::CUstream>(stream), &status) != 0)
    return false;
  return status != 0; // CU_STREAM_CAPTURE_STATUS_NONE
}
