//===- KernelCheckApi.cpp - error access for libtcc_kernel_check.so -------===//
//
// The kernel entry points record failures per thread instead of returning
// them (KernelLibrary.h); scripts/kernel_checks/common.py reads them here.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/MlirGpuRuntime.h"

#include <cstring>
#include <string>

/// Copies this thread's pending kernel error into `buffer` (at most `size`
/// bytes with the NUL) and clears it; returns its length, 0 if none.
extern "C" int tcc_check_take_error(char *buffer, int size) {
  std::string error = tcc::takeKernelLaunchError();
  if (size > 0) {
    std::strncpy(buffer, error.c_str(), static_cast<size_t>(size) - 1);
    buffer[size - 1] = '\0';
  }
  return static_cast<int>(error.size());
}
