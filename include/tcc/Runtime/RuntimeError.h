//===- RuntimeError.h - failures of the runtime, with their C status ------===//
//
// The runtime's C++ parts throw RuntimeError; the C ABI (CApi.cpp) catches it
// at the boundary, stores the message for tcc_last_error() and returns the
// status.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_RUNTIMEERROR_H
#define TCC_RUNTIME_RUNTIMEERROR_H

#include "tcc/runtime.h"

#include <stdexcept>
#include <string>

namespace tcc {

/// An error with the tcc_status the C ABI reports for it.
class RuntimeError : public std::runtime_error {
public:
  RuntimeError(tcc_status status, const std::string &message)
      : std::runtime_error(message), status_(status) {}

  tcc_status status() const { return status_; }

private:
  tcc_status status_;
};

/// Stores `message` as this thread's tcc_last_error() text.
void setLastError(const std::string &message);

/// Called inside a catch block: records the in-flight exception as the last
/// error and returns its status (TCC_ERROR_INTERNAL for foreign exceptions,
/// TCC_ERROR_OUT_OF_MEMORY for std::bad_alloc).
tcc_status reportCurrentException();

} // namespace tcc

#endif // TCC_RUNTIME_RUNTIMEERROR_H
