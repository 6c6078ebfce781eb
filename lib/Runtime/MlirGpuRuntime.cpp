//===- MlirGpuRuntime.cpp - the mgpu* calls of MLIR's gpu-to-llvm code ----===//
//
// The host code that MLIR 22 emits for `gpu.binary` + `gpu.launch_func`
// (mlir/lib/Target/LLVMIR/Dialect/GPU/SelectObjectAttr.cpp) calls:
//
//   global ctor:  ptr  mgpuModuleLoadJIT(ptr ptx, i32 optLevel)   (format=isa)
//                 ptr  mgpuModuleLoad(ptr blob, i64 size)         (cubin/fatbin)
//   global dtor:  void mgpuModuleUnload(ptr module)
//   each launch:  ptr  mgpuModuleGetFunction(ptr module, ptr name)
//                 void mgpuLaunchKernel(ptr fn, i64 gx, gy, gz, bx, by, bz,
//                                       i32 smem, ptr stream, ptr params,
//                                       ptr extra, i64 paramCount)
//   (launches without a stream operand also create, synchronize and destroy
//    one: mgpuStreamCreate / mgpuStreamSynchronize / mgpuStreamDestroy.)
//
// Every kernel tcc generates strides over its grid (tcc-gpu-map-parallel-
// loops), so it is correct for any grid of at least one block: a launch gets
// at most the blocks the device holds at once (the kernel's occupancy times
// the multiprocessor count), however large the tensor.
//
// The constructors run when model.so is loaded, on machines without a GPU
// too, so loading is lazy (LazyCudaModule.h): mgpuModuleLoad* only records
// the image; the first mgpuModuleGetFunction in a context JITs it there.
// Each launch asks for its function by name: the KernelTable of the running
// instance (ScopedKernelTable) answers without a lock after the first run;
// only a miss takes the module's mutex.
//
// None of these functions can return an error to the generated code, so a
// failure is recorded in a per-thread slot, every later call on the thread
// becomes a no-op, and the runtime turns the slot into a RuntimeError once the
// entry function returns (takeKernelLaunchError). Nothing aborts.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/MlirGpuRuntime.h"

#include "tcc/Runtime/CudaDriver.h"
#include "tcc/Runtime/KernelLaunch.h"
#include "tcc/Runtime/LazyCudaModule.h"
#include "tcc/Runtime/RuntimeError.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

using namespace tcc;
using namespace tcc::cuda;

namespace {

thread_local std::string launchError;
thread_local KernelTable *currentTable = nullptr;

void recordError(const std::string &message) {
  if (launchError.empty())
    launchError = message;
}

/// Blocks of `fn` (at `blockSize` threads) the current device runs at once,
/// asked once per function and thread; 0 when the driver cannot say.
unsigned residentBlocks(const Driver &d, CUfunction fn, unsigned blockSize) {
  thread_local std::unordered_map<CUfunction, unsigned> cache;
  if (auto it = cache.find(fn); it != cache.end())
    return it->second;
  CUdevice device = 0;
  int sms = 0, perSm = 0;
  unsigned blocks = 0;
  if (d.cuOccupancyMaxActiveBlocksPerMultiprocessor && d.cuCtxGetDevice(&device) == 0 &&
      d.cuDeviceGetAttribute(&sms, kAttrMultiprocessorCount, device) == 0 &&
      d.cuOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, fn, static_cast<int>(blockSize), 0) ==
          0 &&
      sms > 0 && perSm > 0)
    blocks = static_cast<unsigned>(sms) * static_cast<unsigned>(perSm);
  cache.emplace(fn, blocks);
  return blocks;
}

} // namespace

std::string tcc::takeKernelLaunchError() { return std::exchange(launchError, std::string()); }

void tcc::recordKernelLaunchError(const std::string &message) { recordError(message); }

bool tcc::hasKernelLaunchError() { return !launchError.empty(); }

ScopedKernelTable::ScopedKernelTable(KernelTable *table)
    : previous_(std::exchange(currentTable, table)) {}

ScopedKernelTable::~ScopedKernelTable() { currentTable = previous_; }

extern "C" {

void *mgpuModuleLoad(void *data, size_t size) {
  return new (std::nothrow) LazyCudaModule(data, size, "the model's kernels");
}

void *mgpuModuleLoadJIT(void *data, int /*optLevel*/) {
  return new (std::nothrow) LazyCudaModule(data, 0, "the model's kernels");
}

void mgpuModuleUnload(void *module) { delete static_cast<LazyCudaModule *>(module); }

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!launchError.empty())
    return nullptr;
  if (!module) {
    recordError("cuda: the model's kernel module was not registered (out of memory at load)");
    return nullptr;
  }
  KernelTable *table = currentTable;
  if (table)
    if (void *fn = table->find(module, name))
      return fn;
  try {
    CUfunction fn = static_cast<LazyCudaModule *>(module)->function(name);
    if (table)
      table->add(module, name, fn);
    return fn;
  } catch (const std::exception &e) {
    recordError(e.what());
    return nullptr;
  }
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                      intptr_t blockX, intptr_t blockY, intptr_t blockZ, int32_t smem,
                      void *stream, void **params, void ** /*extra*/, size_t /*paramCount*/) {
  if (!launchError.empty() || !function)
    return;
  // An empty tensor gives an empty grid: nothing to do (cuLaunchKernel
  // would reject it).
  if (gridX <= 0 || gridY <= 0 || gridZ <= 0)
    return;
  try {
    const Driver &d = Driver::get();
    // The kernel strides over whatever grid it gets: one device-full is enough.
    if (gridY == 1 && gridZ == 1 && blockY == 1 && blockZ == 1 && smem == 0)
      if (unsigned resident = residentBlocks(d, static_cast<CUfunction>(function),
                                             static_cast<unsigned>(blockX)))
        gridX = std::min<intptr_t>(gridX, resident);
    LaunchShape shape;
    shape.gridX = static_cast<unsigned>(gridX);
    shape.gridY = static_cast<unsigned>(gridY);
    shape.gridZ = static_cast<unsigned>(gridZ);
    shape.blockX = static_cast<unsigned>(blockX);
    shape.blockY = static_cast<unsigned>(blockY);
    shape.blockZ = static_cast<unsigned>(blockZ);
    shape.sharedBytes = static_cast<unsigned>(smem);
    CUresult r = launchKernel(d, static_cast<CUfunction>(function), shape,
                              static_cast<CUstream>(stream), params);
    if (r != 0) // the message is built only on failure: this is the hot path
      d.check(r, "cuLaunchKernel(grid " + std::to_string(gridX) + "x" + std::to_string(gridY) +
                     "x" + std::to_string(gridZ) + ", block " + std::to_string(blockX) + "x" +
                     std::to_string(blockY) + "x" + std::to_string(blockZ) + ")");
  } catch (const std::exception &e) {
    recordError(e.what());
  }
}

void *mgpuStreamCreate() {
  if (!launchError.empty())
    return nullptr;
  try {
    const Driver &d = Driver::get();
    ensureContext();
    CUstream stream = nullptr;
    d.check(d.cuStreamCreate(&stream, /*CU_STREAM_NON_BLOCKING=*/1), "cuStreamCreate");
    return stream;
  } catch (const std::exception &e) {
    recordError(e.what());
    return nullptr;
  }
}

void mgpuStreamSynchronize(void *stream) {
  if (!launchError.empty() || !stream)
    return;
  try {
    const Driver &d = Driver::get();
    d.check(d.cuStreamSynchronize(static_cast<CUstream>(stream)), "cuStreamSynchronize");
  } catch (const std::exception &e) {
    recordError(e.what());
  }
}

void mgpuStreamDestroy(void *stream) {
  if (!stream)
    return;
  try {
    const Driver &d = Driver::get();
    (void)d.cuStreamDestroy(static_cast<CUstream>(stream));
  } catch (...) {
  }
}

} // extern "C"
