//===- MlirGpuRuntime.h - errors of the mgpu* calls in generated code -----===//
//
// lib/Runtime/MlirGpuRuntime.cpp implements the `mgpu*` C functions that
// MLIR's gpu-to-llvm host code calls. They cannot return errors to the
// generated code, so they record the first one per thread; the runtime reads
// it after each call of the CUDA entry.
//
// A KernelTable, made current for the duration of one run, caches the
// CUfunction of every (module, kernel name) the generated code asks for, so
// that after the first run a launch costs no lock and no lookup beyond a few
// pointer compares.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_MLIRGPURUNTIME_H
#define TCC_RUNTIME_MLIRGPURUNTIME_H

#include <string>
#include <vector>

namespace tcc {

/// The first failure of a kernel load or launch on this thread since the last
/// call ("" if none), and clears it.
std::string takeKernelLaunchError();

/// Records `message` as this thread's failure unless one is already pending;
/// for the other runtime functions generated code calls (tcc_gemm, ...).
void recordKernelLaunchError(const std::string &message);

/// Whether a failure is pending on this thread (later work is skipped).
bool hasKernelLaunchError();

/// The kernels one model instance resolved in its CUDA context, keyed by the
/// (module handle, name pointer) pair the generated host code passes to
/// mgpuModuleGetFunction: both are addresses of globals of model.so, stable
/// for its lifetime. Filled on a miss through the module's locked
/// per-context cache; read without locks, since only the thread running the
/// instance (under the instance's mutex) touches it.
class KernelTable {
public:
  /// The function for (module, name), or null if not resolved yet.
  void *find(const void *module, const char *name) const {
    for (const Entry &e : entries_)
      if (e.module == module && e.name == name)
        return e.function;
    return nullptr;
  }
  void add(const void *module, const char *name, void *function) {
    entries_.push_back({module, name, function});
  }
  size_t size() const { return entries_.size(); }

private:
  struct Entry {
    const void *module;
    const char *name;
    void *function;
  };
  std::vector<Entry> entries_;
};

/// Makes `table` the one mgpuModuleGetFunction consults and fills on this
/// thread while this object lives (restoring the previous one after).
class ScopedKernelTable {
public:
  explicit ScopedKernelTable(KernelTable *table);
  ~ScopedKernelTable();
  ScopedKernelTable(const ScopedKernelTable &) = delete;
  ScopedKernelTable &operator=(const ScopedKernelTable &) = delete;

private:
  KernelTable *previous_;
};

} // namespace tcc

#endif // TCC_RUNTIME_MLIRGPURUNTIME_H
