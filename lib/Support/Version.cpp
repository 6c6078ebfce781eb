//===- Version.cpp - what this tcc is ---------------------------------===//
#include "tcc/Support/Version.h"

#include "tcc/Support/VersionInfo.h" // TCC_GIT_COMMIT, written at build time

#include "llvm/Config/llvm-config.h"

std::string tcc::versionLine() {
  return std::string("tcc ") + TCC_VERSION + " (commit " + TCC_GIT_COMMIT + ")";
}

std::string tcc::versionText() {
  return versionLine() + "\n" +
         "LLVM/MLIR " LLVM_VERSION_STRING "\n"
         "CUDA path: PTX for sm_80/sm_90; at run time libcuda.so.1, libcublasLt.so.13 "
         "(CUDA 13), libcudnn.so.9 (cuDNN 9), opened with dlopen";
}
