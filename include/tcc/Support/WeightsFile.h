//===- WeightsFile.h - the layout of <name>.weights.bin -------------------===//
//
// `tcc compile --external-weights` writes the weights image behind a header
// that says what it is, and the manifest records the image's hash: the
// runtime (tcc_model_load_weights) refuses another model's file of the same
// size, a damaged one, or one with bytes appended, instead of running with
// wrong numbers. One definition for the writer and the reader.
//
//   0   8  magic "TCCWEIGH"
//   8   4  format version (1), little-endian
//   12  4  header bytes (64)
//   16  8  image bytes
//   24  32 SHA-256 of the image
//   56  8  zero
//   64     the image: weight i at its manifest offset, as embedded
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_WEIGHTSFILE_H
#define TCC_SUPPORT_WEIGHTSFILE_H

#include "tcc/Support/Sha256.h"

#include <cstdint>
#include <cstring>
#include <string>

namespace tcc::weightsfile {

constexpr char kMagic[8] = {'T', 'C', 'C', 'W', 'E', 'I', 'G', 'H'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = 64;

struct Header {
  uint32_t version = 0;
  uint64_t imageBytes = 0;
  std::string sha256; ///< 64 lowercase hex digits
};

/// The header of an image of `imageBytes` bytes whose SHA-256 is `digest`.
inline std::string encode(uint64_t imageBytes, const std::array<uint8_t, 32> &digest) {
  std::string h(kHeaderBytes, '\0');
  std::memcpy(h.data(), kMagic, 8);
  for (int i = 0; i < 4; ++i) {
    h[8 + i] = static_cast<char>(kVersion >> (8 * i));
    h[12 + i] = static_cast<char>(kHeaderBytes >> (8 * i));
  }
  for (int i = 0; i < 8; ++i)
    h[16 + i] = static_cast<char>(imageBytes >> (8 * i));
  std::memcpy(h.data() + 24, digest.data(), 32);
  return h;
}

/// The header read from the first kHeaderBytes bytes of a file; "" or why
/// they are not one.
inline std::string decode(const unsigned char *bytes, Header &out) {
  if (std::memcmp(bytes, kMagic, 8) != 0)
    return "not a tcc weights file (no TCCWEIGH header: written by an older tcc, or not "
           "weights at all)";
  uint32_t version = 0, headerBytes = 0;
  for (int i = 3; i >= 0; --i) {
    version = version << 8 | bytes[8 + i];
    headerBytes = headerBytes << 8 | bytes[12 + i];
  }
  if (version != kVersion || headerBytes != kHeaderBytes)
    return "a tcc weights file of format " + std::to_string(version) + ", this runtime reads " +
           std::to_string(kVersion);
  out.version = version;
  out.imageBytes = 0;
  for (int i = 7; i >= 0; --i)
    out.imageBytes = out.imageBytes << 8 | bytes[16 + i];
  std::array<uint8_t, 32> digest;
  std::memcpy(digest.data(), bytes + 24, 32);
  out.sha256 = Sha256::toHex(digest);
  return "";
}

} // namespace tcc::weightsfile

#endif // TCC_SUPPORT_WEIGHTSFILE_H
