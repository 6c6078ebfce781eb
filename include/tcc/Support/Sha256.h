//===- Sha256.h - SHA-256 (FIPS 180-4), streamed ---------------------------===//
//
// What a weights file and the manifest that names it agree on (WeightsFile.h):
// the runtime hashes the file while it reads it, without a library.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_SHA256_H
#define TCC_SUPPORT_SHA256_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace tcc {

class Sha256 {
public:
  Sha256();
  void update(const void *data, size_t bytes);
  /// The digest; the object is spent after it.
  std::array<uint8_t, 32> finish();
  /// The digest of `bytes` bytes at `data`, as 64 lowercase hex digits.
  static std::string hex(const void *data, size_t bytes);
  static std::string toHex(const std::array<uint8_t, 32> &digest);

private:
  void block(const uint8_t *p);
  uint32_t h_[8];
  uint8_t buffer_[64];
  size_t buffered_ = 0;
  uint64_t length_ = 0;
};

} // namespace tcc

#endif // TCC_SUPPORT_SHA256_H
