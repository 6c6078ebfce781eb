//===- ElfSection.h - one section of an ELF file, read without loading it --===//
//
// `tcc inspect model.so` reads the guard manifest from the file's
// .tcc.manifest section (EntrySymbols.h): loading the library to ask it
// would run its constructors, and an inspector reads, never runs. The file
// is untrusted: every offset and size is checked against the file's size
// and against `maxBytes` before anything is read, and only the headers, the
// section names and the one section are read.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_ELFSECTION_H
#define TCC_SUPPORT_ELFSECTION_H

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tcc {

/// Why a file is not an ELF file holding the section, for messages.
class ElfError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The bytes of section `name` of the 64-bit little-endian ELF file at
/// `path`. Throws ElfError (naming the path) on a file that is not one, a
/// header or section that lies outside the file, a missing section or one
/// larger than `maxBytes`.
std::string readElfSection(const std::string &path, const std::string &name, uint64_t maxBytes);

} // namespace tcc

#endif // TCC_SUPPORT_ELFSECTION_H
