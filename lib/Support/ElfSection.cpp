//===- ElfSection.cpp - one section of an ELF file, read without loading ---===//
#include "tcc/Support/ElfSection.h"

#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <vector>

namespace tcc {

namespace {

// The ELF64 layout (the System V gABI): the fields read here, at their
// offsets, little-endian.
constexpr size_t kEhdrSize = 64, kShdrSize = 64;

uint64_t read64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}
uint32_t read32(const unsigned char *p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}
uint16_t read16(const unsigned char *p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

} // namespace

std::string readElfSection(const std::string &path, const std::string &name, uint64_t maxBytes) {
  auto fail = [&](const std::string &why) -> ElfError { return ElfError(path + ": " + why); };
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    throw fail(std::string("cannot open it: ") + std::strerror(errno));
  // A FIFO or a device would block or never end: regular files only.
  if (!S_ISREG(st.st_mode))
    throw fail("not a regular file");
  uint64_t size = static_cast<uint64_t>(st.st_size);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw fail(std::string("cannot open it: ") + std::strerror(errno));
  auto readAt = [&](uint64_t offset, uint64_t bytes, void *into) {
    if (offset > size || bytes > size - offset)
      throw fail("truncated or damaged: a header points past the end of the file");
    in.seekg(static_cast<std::streamoff>(offset));
    if (!in.read(static_cast<char *>(into), static_cast<std::streamsize>(bytes)))
      throw fail("read error");
  };
  unsigned char ehdr[kEhdrSize];
  if (size < kEhdrSize)
    throw fail("not an ELF file (too short)");
  readAt(0, kEhdrSize, ehdr);
  if (std::memcmp(ehdr, "\x7f" "ELF", 4) != 0)
    throw fail("not an ELF file");
  if (ehdr[4] != 2 || ehdr[5] != 1)
    throw fail("not a 64-bit little-endian ELF file");
  uint64_t shoff = read64(ehdr + 0x28);
  uint16_t shentsize = read16(ehdr + 0x3a), shnum = read16(ehdr + 0x3c),
           shstrndx = read16(ehdr + 0x3e);
  if (shentsize != kShdrSize || shnum == 0 || shstrndx >= shnum)
    throw fail("damaged ELF file: no usable section header table");
  std::vector<unsigned char> headers(static_cast<size_t>(shnum) * kShdrSize);
  readAt(shoff, headers.size(), headers.data());
  auto section = [&](size_t i) { return headers.data() + i * kShdrSize; };
  // The section names (bounded: names are short; a huge table is damage).
  uint64_t namesOffset = read64(section(shstrndx) + 0x18),
           namesSize = read64(section(shstrndx) + 0x20);
  if (namesSize > (16u << 20))
    throw fail("damaged ELF file: a section name table of " + std::to_string(namesSize) +
               " bytes");
  std::vector<char> names(static_cast<size_t>(namesSize));
  readAt(namesOffset, namesSize, names.data());
  for (size_t i = 0; i < shnum; ++i) {
    uint32_t at = read32(section(i));
    if (at >= names.size())
      continue;
    const char *begin = names.data() + at;
    size_t room = names.size() - at;
    if (strnlen(begin, room) == room || name != begin)
      continue;
    uint32_t type = read32(section(i) + 0x04);
    uint64_t offset = read64(section(i) + 0x18), bytes = read64(section(i) + 0x20);
    if (type == 8 /* SHT_NOBITS */)
      throw fail("section " + name + " holds no bytes in the file");
    if (bytes > maxBytes)
      throw fail("section " + name + " is " + std::to_string(bytes) + " bytes, more than the " +
                 std::to_string(maxBytes) + " allowed");
    std::string data(static_cast<size_t>(bytes), '\0');
    readAt(offset, bytes, data.data());
    return data;
  }
  throw fail("no " + name + " section");
}

} // namespace tcc
