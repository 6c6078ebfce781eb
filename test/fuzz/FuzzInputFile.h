//===- FuzzInputFile.h - a fuzzer's input as a file path ------------------===//
//
// The archive readers take a path (libzip opens it), so a harness hands them
// its bytes as an in-memory file: a memfd, named by /proc/self/fd/N, rewritten
// for every input. Nothing touches the disk and nothing is left behind.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_TEST_FUZZ_FUZZINPUTFILE_H
#define TCC_TEST_FUZZ_FUZZINPUTFILE_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

namespace tcc::fuzz {

/// One reusable in-memory file.
class FuzzInputFile {
public:
  FuzzInputFile() {
    fd = ::memfd_create("tcc-fuzz-input", 0);
    if (fd < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    filePath = "/proc/self/fd/" + std::to_string(fd);
  }
  ~FuzzInputFile() { ::close(fd); }
  FuzzInputFile(const FuzzInputFile &) = delete;
  FuzzInputFile &operator=(const FuzzInputFile &) = delete;

  /// Replaces the file's content with `size` bytes at `data`; returns its path.
  const std::string &write(const uint8_t *data, size_t size) {
    if (::ftruncate(fd, 0) != 0) {
      std::perror("ftruncate");
      std::abort();
    }
    size_t done = 0;
    while (done < size) {
      ssize_t n = ::pwrite(fd, data + done, size - done, static_cast<off_t>(done));
      if (n <= 0) {
        std::perror("pwrite");
        std::abort();
      }
      done += static_cast<size_t>(n);
    }
    return filePath;
  }

private:
  int fd = -1;
  std::string filePath;
};

} // namespace tcc::fuzz

#endif // TCC_TEST_FUZZ_FUZZINPUTFILE_H
