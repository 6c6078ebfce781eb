//===- ExportArchiveReader.cpp - entries of a .pt2 zip archive ------------===//
#include "ExportArchiveReader.h"

#include "tcc/Frontend/FrontendError.h"

#include <zip.h>

#include <algorithm>

namespace tcc::frontend {

namespace {

std::string zipErrorText(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string text = zip_error_strerror(&error);
  zip_error_fini(&error);
  return text;
}

/// Closes a zip_file_t on every path out of readEntry.
struct OpenEntry {
  zip_file_t *file;
  ~OpenEntry() {
    if (file)
      zip_fclose(file);
  }
};

} // namespace

ExportArchiveReader::ExportArchiveReader(const std::string &path)
    : archivePath(path) {
  int code = 0;
  // ZIP_CHECKCONS cross-checks the central directory with the local headers,
  // which catches truncated and spliced archives at open time.
  archive = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
  if (!archive)
    throw FrontendError(path + ": cannot read the .pt2 (zip) archive "
                               "(truncated or corrupt?): " +
                        zipErrorText(code));
}

ExportArchiveReader::~ExportArchiveReader() {
  if (archive)
    zip_discard(archive);
}

bool ExportArchiveReader::hasEntry(const std::string &name) const {
  return zip_name_locate(archive, name.c_str(), 0) >= 0;
}

std::vector<uint8_t>
ExportArchiveReader::readEntry(const std::string &name) const {
  std::string where = archivePath + ": entry '" + name + "'";
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat(archive, name.c_str(), 0, &stat) != 0)
    throw FrontendError(archivePath + ": archive has no entry '" + name + "'");
  if (!(stat.valid & ZIP_STAT_SIZE))
    throw FrontendError(where + ": size is unknown");

  OpenEntry entry{zip_fopen(archive, name.c_str(), 0)};
  if (!entry.file)
    throw FrontendError(where + ": cannot open: " +
                        zip_strerror(archive));
  std::vector<uint8_t> bytes;
  // The declared size is untrusted: reserve a bounded amount and grow.
  bytes.reserve(static_cast<size_t>(
      std::min<zip_uint64_t>(stat.size, zip_uint64_t(64) << 20)));
  constexpr size_t kChunk = size_t(1) << 20;
  std::vector<uint8_t> chunk(kChunk);
  while (true) {
    zip_int64_t n = zip_fread(entry.file, chunk.data(), kChunk);
    if (n < 0)
      throw FrontendError(where + ": corrupt or truncated: " +
                          zip_file_strerror(entry.file));
    if (n == 0)
      break;
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + n);
    if (bytes.size() > stat.size)
      break;
  }
  if (bytes.size() != stat.size)
    throw FrontendError(where + ": holds " + std::to_string(bytes.size()) +
                        " bytes but its header says " +
                        std::to_string(stat.size) + " (truncated or corrupt)");
  return bytes;
}

std::string ExportArchiveReader::findModelJson() const {
  static const std::string suffix = "models/model.json";
  zip_int64_t count = zip_get_num_entries(archive, 0);
  for (zip_int64_t k = 0; k < count; ++k) {
    const char *raw = zip_get_name(archive, static_cast<zip_uint64_t>(k), 0);
    if (!raw)
      continue;
    std::string name = raw;
    if (name == suffix)
      return name;
    // "<top>/models/model.json" with a single top folder.
    if (name.size() > suffix.size() + 1 &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      std::string top = name.substr(0, name.size() - suffix.size());
      if (top.back() == '/' && top.find('/') == top.size() - 1)
        return name;
    }
  }
  throw FrontendError(archivePath +
                      ": archive has no entry 'models/model.json' (looked at "
                      "the root and under one top folder)");
}

} // namespace tcc::frontend
