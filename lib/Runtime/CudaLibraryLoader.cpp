//===- CudaLibraryLoader.cpp - find a CUDA library at run time ------------===//
#include "tcc/Runtime/CudaLibraryLoader.h"

#include <dlfcn.h>

#include <cstdlib>

void *tcc::openCudaLibrary(const char *soname, const char *probeSymbol, std::string &tried) {
  void *handle = nullptr;
  auto attempt = [&](const std::string &name, int flags) {
    if (handle)
      return;
    handle = dlopen(name.c_str(), flags);
    if (!handle) {
      const char *why = dlerror();
      tried += "\n  " + name + ((flags & RTLD_NOLOAD) ? " (already loaded)" : "") + ": " +
               (why ? why : "not found");
    }
  };
  std::string so(soname);
  attempt(so, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  attempt(so, RTLD_NOW | RTLD_LOCAL);
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(var); root && *root)
      attempt(std::string(root) + "/lib64/" + so, RTLD_NOW | RTLD_LOCAL);
  attempt("/usr/local/cuda/lib64/" + so, RTLD_NOW | RTLD_LOCAL);
  attempt("/usr/local/cuda-13/lib64/" + so, RTLD_NOW | RTLD_LOCAL);
  // Linked into the process some other way (static, or another soname).
  if (!handle && dlsym(RTLD_DEFAULT, probeSymbol))
    handle = RTLD_DEFAULT;
  return handle;
}
