//===- Version.h - what this tcc is -----------------------------------===//
//
// `tcc --version` prints it; CI pipelines log it and key their caches on it.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_VERSION_H
#define TCC_SUPPORT_VERSION_H

#include <string>

namespace tcc {

/// "tcc 0.1.0 (commit 1a2b3c4d5e6f)".
std::string versionLine();

/// versionLine() followed by what tcc was built with and what its artifacts
/// load at run time, one item per line.
std::string versionText();

} // namespace tcc

#endif // TCC_SUPPORT_VERSION_H
