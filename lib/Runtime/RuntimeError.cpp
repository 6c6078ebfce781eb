//===- RuntimeError.cpp - the thread-local last error of the C ABI --------===//
#include "tcc/Runtime/RuntimeError.h"

#include <new>

namespace tcc {

namespace {
thread_local std::string lastError;
} // namespace

void setLastError(const std::string &message) { lastError = message; }

tcc_status reportCurrentException() {
  try {
    throw;
  } catch (const RuntimeError &e) {
    setLastError(e.what());
    return e.status();
  } catch (const std::bad_alloc &) {
    setLastError("out of memory");
    return TCC_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception &e) {
    setLastError(std::string("internal error: ") + e.what());
    return TCC_ERROR_INTERNAL;
  } catch (...) {
    setLastError("internal error: unknown exception");
    return TCC_ERROR_INTERNAL;
  }
}

} // namespace tcc

extern "C" TCC_API const char *tcc_last_error(void) { return tcc::lastError.c_str(); }
