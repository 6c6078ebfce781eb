//===- LazyCudaModule.cpp - a kernel image loaded per context on first use ===//
#include "tcc/Runtime/LazyCudaModule.h"

#include "tcc/Runtime/RuntimeError.h"

#include <cstdint>

using namespace tcc;
using namespace tcc::cuda;

LazyCudaModule::Loaded &LazyCudaModule::forCurrentContext(const Driver &d) {
  CUcontext ctx = ensureContext();
  for (Loaded &l : loaded_)
    if (l.context == ctx)
      return l;
  // The JIT's error log names the PTX line when the image is rejected.
  char log[4096] = {0};
  constexpr int kErrorLogBuffer = 5, kErrorLogBufferSize = 6; // CUjit_option
  int options[] = {kErrorLogBuffer, kErrorLogBufferSize};
  void *values[] = {log, reinterpret_cast<void *>(static_cast<uintptr_t>(sizeof log))};
  CUmodule module = nullptr;
  CUresult r = d.cuModuleLoadDataEx(&module, image_, 2, options, values);
  if (r != 0)
    throw RuntimeError(TCC_ERROR_INTERNAL, "cuda: loading " + what_ +
                                               " (cuModuleLoadDataEx) failed: " + d.errorText(r) +
                                               (log[0] ? std::string("\n") + log : ""));
  loaded_.push_back({ctx, module, {}});
  return loaded_.back();
}

CUfunction LazyCudaModule::function(const char *name) {
  const Driver &d = Driver::get();
  std::lock_guard<std::mutex> lock(mutex_);
  Loaded &l = forCurrentContext(d);
  for (auto &[n, fn] : l.functions)
    if (n == name)
      return fn;
  CUfunction fn = nullptr;
  d.check(d.cuModuleGetFunction(&fn, l.module, name),
          "cuModuleGetFunction('" + std::string(name) + "') in " + what_);
  l.functions.emplace_back(name, fn);
  return fn;
}

LazyCudaModule::~LazyCudaModule() {
  // Runs from a global destructor (dlclose or exit): unload what was loaded,
  // ignoring errors of a driver that is shutting down.
  if (loaded_.empty())
    return;
  try {
    const Driver &d = Driver::get();
    for (Loaded &l : loaded_)
      (void)d.cuModuleUnload(l.module);
  } catch (...) {
  }
}
