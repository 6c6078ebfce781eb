//===- ModelLinker.h - model object + runtime into model.so ---------------===//
#ifndef TCC_TARGET_MODELLINKER_H
#define TCC_TARGET_MODELLINKER_H

#include "llvm/Support/Error.h"

#include <string>

namespace tcc {

struct LinkOptions {
  std::string cxx;            ///< C++ driver; "" = $TCC_CXX, then c++, g++, clang++-22
  std::string runtimeLibrary; ///< libtcc_runtime.a; "" = next to the tcc executable
  std::string argv0;          ///< tcc's own path, to find the runtime
};

/// Links `object` with the runtime into a shared object at `output`.
llvm::Error linkSharedObject(const std::string &object, const std::string &output,
                             const LinkOptions &options);

} // namespace tcc

#endif // TCC_TARGET_MODELLINKER_H
