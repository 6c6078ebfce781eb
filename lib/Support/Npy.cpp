//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// Format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
// magic "\x93NUMPY", version, header length (2 bytes in 1.0, 4 in 2.0/3.0),
// a Python dict literal padded so the data starts 64-byte aligned, the data.
//
//===----------------------------------------------------------------------===//
#include "tcc/Support/Npy.h"

#include "tcc/Support/HalfFloat.h"

#include <cctype>
#include <cstring>
#include <fstream>

#include <sys/stat.h>
#include <iterator>
#include <optional>

namespace tcc {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

/// NumPy's descr for each dtype; bfloat16 has none.
const char *npyDescr(DType dtype) {
  switch (dtype) {
  case DType::Float32: return "<f4";
  case DType::Float64: return "<f8";
  case DType::Float16: return "<f2";
  case DType::Int64: return "<i8";
  case DType::Int32: return "<i4";
  case DType::Int16: return "<i2";
  case DType::Int8: return "|i1";
  case DType::UInt8: return "|u1";
  case DType::Bool: return "|b1";
  case DType::Complex64: return "<c8";
  case DType::Complex128: return "<c16";
  case DType::BFloat16: return nullptr;
  }
  return nullptr;
}

std::optional<DType> dtypeFromDescr(const std::string &descr) {
  if (descr.size() != 3 && descr != "<c16" && descr != "=c16")
    return std::nullopt;
  char order = descr[0];
  std::string kind = descr.substr(1);
  bool oneByte = kind == "i1" || kind == "u1" || kind == "b1";
  // '=' is native order, little-endian on every host tcc supports.
  if (!(order == '<' || order == '=' || (oneByte && order == '|')))
    return std::nullopt;
  for (int i = 0; i <= static_cast<int>(kLastDType); ++i) {
    auto t = static_cast<DType>(i);
    if (const char *d = npyDescr(t); d && kind == d + 1)
      return t;
  }
  return std::nullopt;
}

/// Parses the header's Python dict literal, e.g.
/// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class NpyHeaderParser {
public:
  NpyHeaderParser(const std::string &text, const std::string &what)
      : text_(text), what_(what) {}

  std::string descr;
  std::optional<bool> fortranOrder;
  std::optional<std::vector<int64_t>> shape;

  void parse() {
    expect('{');
    while (!peek('}')) {
      std::string key = parseString();
      expect(':');
      if (key == "descr") {
        if (peek('['))
          fail("structured dtypes are not supported");
        descr = parseString();
      } else if (key == "fortran_order") {
        fortranOrder = parseBool();
      } else if (key == "shape") {
        shape = parseTuple();
      } else {
        fail("unexpected key '" + key + "'");
      }
      if (!peek('}'))
        expect(',');
    }
    expect('}');
    if (descr.empty() || !fortranOrder || !shape)
      fail("header lacks 'descr', 'fortran_order' or 'shape'");
  }

private:
  [[noreturn]] void fail(const std::string &why) const {
    throw NpyError(what_ + ": malformed .npy header: " + why);
  }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool peek(char c) {
    skipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  void expect(char c) {
    if (!peek(c))
      fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string parseString() {
    skipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      fail("expected a string");
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string::npos)
      fail("unterminated string");
    std::string s = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return s;
  }
  bool parseBool() {
    skipSpace();
    if (text_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (text_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    fail("expected True or False");
  }
  std::vector<int64_t> parseTuple() {
    std::vector<int64_t> dims;
    expect('(');
    while (!peek(')')) {
      skipSpace();
      if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_])))
        fail("expected a dimension");
      int64_t v = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        if (v > (INT64_MAX - 9) / 10)
          fail("dimension out of range");
        v = v * 10 + (text_[pos_++] - '0');
      }
      // Python writes 1-tuples as "(n,)" and longs as "3L" in old files.
      if (pos_ < text_.size() && text_[pos_] == 'L')
        ++pos_;
      dims.push_back(v);
      if (!peek(')'))
        expect(',');
    }
    expect(')');
    return dims;
  }

  const std::string &text_;
  const std::string &what_;
  size_t pos_ = 0;
};

int64_t product(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n))
      throw NpyError("array shape overflows int64");
  return n;
}

template <typename T> T load(const void *data, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const uint8_t *>(data) + i * sizeof(T), sizeof(T));
  return v;
}

} // namespace

double elementAsDouble(DType dtype, const void *data, int64_t i) {
  switch (dtype) {
  case DType::Float32: return load<float>(data, i);
  case DType::Float64: return load<double>(data, i);
  case DType::Float16: return halfToFloat(load<uint16_t>(data, i));
  case DType::BFloat16: return bfloat16ToFloat(load<uint16_t>(data, i));
  case DType::Int64: return static_cast<double>(load<int64_t>(data, i));
  case DType::Int32: return load<int32_t>(data, i);
  case DType::Int16: return load<int16_t>(data, i);
  case DType::Int8: return load<int8_t>(data, i);
  case DType::UInt8: return load<uint8_t>(data, i);
  case DType::Bool: return load<uint8_t>(data, i) ? 1.0 : 0.0;
  // The parts: the real part of element k at 2k, its imaginary part at 2k+1.
  case DType::Complex64: return load<float>(data, i);
  case DType::Complex128: return load<double>(data, i);
  }
  return 0.0;
}

int64_t NpyArray::numElements() const { return product(shape); }

NpyArray roundToBFloat16(const NpyArray &array) {
  NpyArray out;
  out.dtype = DType::BFloat16;
  out.shape = array.shape;
  int64_t n = array.numElements();
  out.data.resize(static_cast<size_t>(n) * 2);
  for (int64_t i = 0; i < n; ++i) {
    uint16_t half = floatToBFloat16(load<float>(array.data.data(), i));
    std::memcpy(out.data.data() + 2 * i, &half, 2);
  }
  return out;
}

double NpyArray::elementAsDouble(int64_t i) const {
  return tcc::elementAsDouble(dtype, data.data(), i);
}

NpyArray parseNpy(const uint8_t *bytes, size_t size, const std::string &what) {
  if (size < kMagicSize + 2 || std::memcmp(bytes, kMagic, kMagicSize) != 0)
    throw NpyError(what + ": not a .npy file (bad magic)");
  uint8_t major = bytes[6];
  size_t headerLen, headerStart;
  if (major == 1) {
    if (size < 10)
      throw NpyError(what + ": truncated .npy file (header)");
    headerLen = bytes[8] | (bytes[9] << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12)
      throw NpyError(what + ": truncated .npy file (header)");
    headerLen = static_cast<size_t>(bytes[8]) | (static_cast<size_t>(bytes[9]) << 8) |
                (static_cast<size_t>(bytes[10]) << 16) |
                (static_cast<size_t>(bytes[11]) << 24);
    headerStart = 12;
  } else {
    throw NpyError(what + ": unsupported .npy version " + std::to_string(major));
  }
  if (size < headerStart + headerLen)
    throw NpyError(what + ": truncated .npy file (header)");
  std::string header(reinterpret_cast<const char *>(bytes) + headerStart, headerLen);

  NpyHeaderParser parser(header, what);
  parser.parse();
  if (*parser.fortranOrder)
    throw NpyError(what + ": Fortran-order arrays are not supported; save a "
                          "C-contiguous array (numpy.ascontiguousarray)");
  std::optional<DType> dtype = dtypeFromDescr(parser.descr);
  if (!dtype)
    throw NpyError(what + ": unsupported dtype '" + parser.descr +
                   "' (supported: <f4 <f8 <f2 <i8 <i4 <i2 |i1 |u1 |b1 <c8 <c16)");

  NpyArray array;
  array.dtype = *dtype;
  array.shape = *parser.shape;
  int64_t count = product(array.shape);
  uint64_t dataBytes;
  if (__builtin_mul_overflow(static_cast<uint64_t>(count), dtypeSize(*dtype), &dataBytes))
    throw NpyError(what + ": array too large");
  size_t dataStart = headerStart + headerLen;
  if (size - dataStart < dataBytes)
    throw NpyError(what + ": truncated .npy file: expected " +
                   std::to_string(dataBytes) + " data bytes, found " +
                   std::to_string(size - dataStart));
  // Bytes past the data mean the header and the data disagree (a shape
  // edited by hand, two arrays written into one file): refused, not ignored.
  if (size - dataStart > dataBytes)
    throw NpyError(what + ": " + std::to_string(size - dataStart - dataBytes) +
                   " bytes after the " + std::to_string(dataBytes) +
                   " data bytes its header describes");
  array.data.assign(bytes + dataStart, bytes + dataStart + dataBytes);
  return array;
}

NpyArray readNpy(const std::string &path) {
  // A directory, FIFO or device is no .npy: refused before it is read (a
  // FIFO would block forever).
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    throw NpyError(path + ": cannot open file");
  if (!S_ISREG(info.st_mode))
    throw NpyError(path + (S_ISDIR(info.st_mode) ? ": a directory, not a .npy file"
                                                  : ": not a regular file"));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw NpyError(path + ": cannot open file");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad())
    throw NpyError(path + ": read error");
  return parseNpy(bytes.data(), bytes.size(), path);
}

std::vector<uint8_t> serializeNpy(DType dtype, const std::vector<int64_t> &shape,
                                  const void *data) {
  const char *descr = npyDescr(dtype);
  if (!descr)
    throw NpyError(std::string("dtype ") + dtypeName(dtype) +
                   " has no .npy representation");
  std::string shapeText = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    shapeText += (i ? ", " : "") + std::to_string(shape[i]);
  shapeText += shape.size() == 1 ? ",)" : ")"; // Python's 1-tuple
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + shapeText + ", }";
  // Pad with spaces and a final newline so the data starts 64-byte aligned.
  bool v2 = header.size() + 1 + 10 > 65535;
  size_t prefix = v2 ? 12 : 10;
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');

  uint64_t dataBytes = static_cast<uint64_t>(product(shape)) * dtypeSize(dtype);
  std::vector<uint8_t> out(kMagic, kMagic + kMagicSize);
  out.push_back(v2 ? 2 : 1);
  out.push_back(0);
  size_t len = header.size();
  out.push_back(len & 0xff);
  out.push_back((len >> 8) & 0xff);
  if (v2) {
    out.push_back((len >> 16) & 0xff);
    out.push_back((len >> 24) & 0xff);
  }
  out.insert(out.end(), header.begin(), header.end());
  const auto *p = static_cast<const uint8_t *>(data);
  out.insert(out.end(), p, p + dataBytes);
  return out;
}

void writeNpy(const std::string &path, DType dtype,
              const std::vector<int64_t> &shape, const void *data) {
  std::vector<uint8_t> bytes = serializeNpy(dtype, shape, data);
  std::ofstream out(path, std::ios::binary);
  if (!out)
    throw NpyError(path + ": cannot create file");
  out.write(reinterpret_cast<const char *>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out)
    throw NpyError(path + ": write error");
}

} // namespace tcc
