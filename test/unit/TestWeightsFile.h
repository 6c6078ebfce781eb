//===- TestWeightsFile.h - weights files for the runtime's tests ----------===//
#ifndef TCC_TEST_UNIT_TESTWEIGHTSFILE_H
#define TCC_TEST_UNIT_TESTWEIGHTSFILE_H

#include "tcc/Support/Sha256.h"
#include "tcc/Support/WeightsFile.h"

#include <filesystem>
#include <fstream>

/// A weights file as tcc compile --external-weights writes it: the header
/// (with the image's hash), then `bytes` bytes of `image`.
inline void writeWeightsFile(const std::filesystem::path &path, const void *image, size_t bytes) {
  tcc::Sha256 hash;
  hash.update(image, bytes);
  std::string header = tcc::weightsfile::encode(bytes, hash.finish());
  std::ofstream out(path, std::ios::binary);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(static_cast<const char *>(image), static_cast<std::streamsize>(bytes));
}

#endif // TCC_TEST_UNIT_TESTWEIGHTSFILE_H
