//===- KernelLaunch.cpp - launches that may overlap the previous kernel ---===//
#include "tcc/Runtime/KernelLaunch.h"

#include "tcc/Runtime/EnvironmentSwitch.h"
#include "tcc/Runtime/GridDependency.h"

#include <unordered_map>

using namespace tcc;
using namespace tcc::cuda;

namespace {

/// On: on an H100 (2026-12-08, BENCHMARKS.md) a decode step took 10-13%
/// less time with it at batch 1 (~1B LLaMA 1.250-1.310 -> 1.136-1.139 ms,
/// h1024 0.368-0.382 -> 0.337-0.338) and within 2% either way at batch 8,
/// with the GPU state check passing (graphs, direct, alternating paths).
/// TCC_OVERLAP_LAUNCHES=0 turns it off.
constexpr bool kOverlapLaunchesOnByDefault = true;

/// Whether `function`'s image defines the GridDependency.h global (only
/// sm_90+ code does), asked once per function and thread.
bool awaitsPreviousGrid(const Driver &d, CUfunction function) {
  thread_local std::unordered_map<CUfunction, bool> cache;
  if (auto it = cache.find(function); it != cache.end())
    return it->second;
  CUmodule module = nullptr;
  CUdeviceptr address = 0;
  size_t bytes = 0;
  const bool awaits = d.cuFuncGetModule(&module, function) == 0 &&
                      d.cuModuleGetGlobal(&address, &bytes, module, kAwaitsPreviousGridSymbol) == 0;
  cache.emplace(function, awaits);
  return awaits;
}

/// Whether launches may overlap the previous kernel in this process
/// (TCC_OVERLAP_LAUNCHES, else the default), and the driver can.
bool overlappingLaunchesEnabled(const Driver &d) {
  static const bool on = environmentSwitch("TCC_OVERLAP_LAUNCHES", kOverlapLaunchesOnByDefault);
  return on && d.cuLaunchKernelEx != nullptr;
}

} // namespace

CUresult tcc::cuda::launchKernel(const Driver &d, CUfunction function, const LaunchShape &shape,
                                 CUstream stream, void **params) {
  if (!overlappingLaunchesEnabled(d) || !awaitsPreviousGrid(d, function))
    return d.cuLaunchKernel(function, shape.gridX, shape.gridY, shape.gridZ, shape.blockX,
                            shape.blockY, shape.blockZ, shape.sharedBytes, stream, params,
                            nullptr);
  LaunchAttribute overlap{};
  overlap.id = kLaunchAttrProgrammaticStreamSerialization;
  overlap.value.programmaticStreamSerializationAllowed = 1;
  LaunchConfig config{};
  config.gridDimX = shape.gridX;
  config.gridDimY = shape.gridY;
  config.gridDimZ = shape.gridZ;
  config.blockDimX = shape.blockX;
  config.blockDimY = shape.blockY;
  config.blockDimZ = shape.blockZ;
  config.sharedMemBytes = shape.sharedBytes;
  config.stream = stream;
  config.attrs = &overlap;
  config.numAttrs = 1;
  return d.cuLaunchKernelEx(&config, function, params, nullptr);
}
