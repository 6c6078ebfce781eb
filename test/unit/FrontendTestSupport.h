//===- FrontendTestSupport.h - fixtures for the frontend unit tests -------===//
//
// Temporary directories, and zip archives written with libzip, so each error
// test builds its broken input itself from a real sample.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_TEST_UNIT_FRONTENDTESTSUPPORT_H
#define TCC_TEST_UNIT_FRONTENDTESTSUPPORT_H

#include "tcc/Frontend/ExportedProgramReader.h"
#include "tcc/Frontend/FrontendError.h"

#include <nlohmann/json.hpp>
#include <zip.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tcc::frontend::test {

/// A sample shipped with the repository, e.g. samplePath("mymodule/model.pt2").
inline std::string samplePath(const std::string &relative) {
  return std::string(TCC_SOURCE_DIR) + "/samples/" + relative;
}

/// A seed sample from /work/shared (or TCC_SEED_SAMPLES), "" if absent.
inline std::string seedSamplePath(const std::string &relative) {
  const char *dir = std::getenv("TCC_SEED_SAMPLES");
  std::string path =
      std::string(dir ? dir : "/work/shared/seed-samples") + "/" + relative;
  return std::filesystem::exists(path) ? path : "";
}

/// A directory removed with everything in it when the object goes away.
class TempDir {
public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "tcc-frontend-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
      throw std::runtime_error("mkdtemp failed");
    root = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(root, ignored);
  }
  std::string file(const std::string &name) const { return (root / name).string(); }

private:
  std::filesystem::path root;
};

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

inline void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// Archive entries in order: (name, bytes).
using ZipEntries = std::vector<std::pair<std::string, std::string>>;

inline ZipEntries readZip(const std::string &path) {
  int error = 0;
  zip_t *archive = zip_open(path.c_str(), ZIP_RDONLY, &error);
  if (!archive)
    throw std::runtime_error("cannot open " + path);
  ZipEntries entries;
  for (zip_int64_t k = 0; k < zip_get_num_entries(archive, 0); ++k) {
    zip_stat_t stat;
    zip_stat_index(archive, static_cast<zip_uint64_t>(k), 0, &stat);
    std::string bytes(stat.size, '\0');
    zip_file_t *file = zip_fopen_index(archive, static_cast<zip_uint64_t>(k), 0);
    zip_fread(file, bytes.data(), stat.size);
    zip_fclose(file);
    entries.emplace_back(stat.name, std::move(bytes));
  }
  zip_discard(archive);
  return entries;
}

inline void writeZip(const std::string &path, const ZipEntries &entries) {
  int error = 0;
  zip_t *archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  if (!archive)
    throw std::runtime_error("cannot create " + path);
  for (const auto &[name, bytes] : entries) {
    // libzip reads the buffer at zip_close; the entries outlive that.
    zip_source_t *source =
        zip_source_buffer(archive, bytes.data(), bytes.size(), 0);
    zip_file_add(archive, name.c_str(), source, ZIP_FL_OVERWRITE);
  }
  if (zip_close(archive) != 0)
    throw std::runtime_error("cannot write " + path);
}

/// The entry `name` of `entries` (which must exist).
inline std::string &entry(ZipEntries &entries, const std::string &name) {
  for (auto &[n, bytes] : entries)
    if (n == name)
      return bytes;
  throw std::runtime_error("no entry " + name);
}

inline void removeEntry(ZipEntries &entries, const std::string &name) {
  for (auto it = entries.begin(); it != entries.end(); ++it)
    if (it->first == name) {
      entries.erase(it);
      return;
    }
  throw std::runtime_error("no entry " + name);
}

/// The message of the FrontendError that reading `path` throws, or
/// "<no error>". Any other exception escapes and fails the test.
inline std::string readError(const std::string &path) {
  try {
    readExportedProgram(path);
  } catch (const FrontendError &e) {
    return e.what();
  }
  return "<no error>";
}

/// mymodule's archive (or `sample`'s) with `edit` applied to its entries,
/// written into `dir`; returns the new archive's path.
inline std::string
editedArchive(const TempDir &dir, const std::function<void(ZipEntries &)> &edit,
              const std::string &sample = "mymodule/model.pt2") {
  ZipEntries entries = readZip(samplePath(sample));
  edit(entries);
  std::string path = dir.file("edited.pt2");
  writeZip(path, entries);
  return path;
}

/// Applies `edit` to the JSON text of entry `name`.
inline void editJsonEntry(ZipEntries &entries, const std::string &name,
                          const std::function<void(nlohmann::json &)> &edit) {
  std::string &text = entry(entries, name);
  nlohmann::json doc = nlohmann::json::parse(text);
  edit(doc);
  text = doc.dump();
}

} // namespace tcc::frontend::test

#endif // TCC_TEST_UNIT_FRONTENDTESTSUPPORT_H
