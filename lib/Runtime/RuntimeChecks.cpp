//===- RuntimeChecks.cpp - a failed check of the CPU path -----------------===//
#include "tcc/Runtime/RuntimeChecks.h"

#include "tcc/Runtime/MlirGpuRuntime.h"

#include <string>

// The first failure of a run is kept (in the thread's error slot, which
// Model::run turns into the run's error); the rest of the run goes on.
extern "C" void tcc_assert_failed(const char *message) {
  tcc::recordKernelLaunchError(message ? std::string(message) : std::string("a run-time check failed"));
}
