//===- EnvironmentSwitch.h - a runtime path turned on or off by a variable ===//
//
// The runtime's optional kernel paths (tcc's GEMV, the decode attention
// kernels) can be turned off for a process, to compare against the library
// or kernel they replace, by NAME=0 in the environment (NAME=1 turns them
// on). Read once per call site, by the caller's static.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_ENVIRONMENTSWITCH_H
#define TCC_RUNTIME_ENVIRONMENTSWITCH_H

#include <cstdlib>

namespace tcc {

/// `byDefault`, unless the variable `name` is exactly "0" (off) or "1" (on).
inline bool environmentSwitch(const char *name, bool byDefault) {
  const char *env = std::getenv(name);
  if (env && env[0] != '\0' && env[1] == '\0' && (env[0] == '0' || env[0] == '1'))
    return env[0] == '1';
  return byDefault;
}

} // namespace tcc

#endif // TCC_RUNTIME_ENVIRONMENTSWITCH_H
