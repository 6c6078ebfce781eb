//===- ExportArchiveReader.h - entries of a .pt2 zip archive --------------===//
//
// Internal to the frontend. A .pt2 archive is a zip whose entries sit under a
// top folder named after the archive ("model/models/model.json") or at the
// root. This wraps libzip with bounds-checked, CRC-checked reads and one-line
// errors that name the archive and the entry.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_FRONTEND_EXPORTARCHIVEREADER_H
#define TCC_LIB_FRONTEND_EXPORTARCHIVEREADER_H

#include <cstdint>
#include <string>
#include <vector>

struct zip;

namespace tcc::frontend {

class ExportArchiveReader {
public:
  /// Opens the archive; throws FrontendError if it is unreadable, not a zip
  /// or inconsistent (e.g. truncated).
  explicit ExportArchiveReader(const std::string &path);
  ~ExportArchiveReader();
  ExportArchiveReader(const ExportArchiveReader &) = delete;
  ExportArchiveReader &operator=(const ExportArchiveReader &) = delete;

  const std::string &path() const { return archivePath; }
  bool hasEntry(const std::string &name) const;

  /// The whole entry, decompressed and CRC-checked; throws FrontendError
  /// naming the entry if it is missing, corrupt or truncated.
  std::vector<uint8_t> readEntry(const std::string &name) const;

  /// The "models/model.json" entry, at the root or under one top folder;
  /// throws FrontendError if there is none.
  std::string findModelJson() const;

private:
  std::string archivePath;
  struct zip *archive = nullptr;
};

} // namespace tcc::frontend

#endif // TCC_LIB_FRONTEND_EXPORTARCHIVEREADER_H
