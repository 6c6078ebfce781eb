//===- NpyTest.cpp - NumPy .npy reading and writing -----------------------===//
#include "tcc/Support/Npy.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <filesystem>

#include <unistd.h>

using namespace tcc;

namespace {

/// A .npy file with a hand-written header, as NumPy would write it.
std::vector<uint8_t> npyBytes(const std::string &header, const std::vector<uint8_t> &data,
                              int version = 1) {
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(version), 0};
  std::string h = header;
  size_t prefix = version == 1 ? 10 : 12;
  while ((prefix + h.size() + 1) % 64)
    h += ' ';
  h += '\n';
  out.push_back(h.size() & 0xff);
  out.push_back((h.size() >> 8) & 0xff);
  if (version != 1) {
    out.push_back(0);
    out.push_back(0);
  }
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::vector<uint8_t> floatBytes(std::initializer_list<float> values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.begin(), bytes.size());
  return bytes;
}

} // namespace

TEST_CASE("Npy round trips every supported dtype", "[support]") {
  std::vector<uint8_t> raw(48);
  for (size_t i = 0; i < raw.size(); ++i)
    raw[i] = static_cast<uint8_t>(i * 7 + 1);
  for (DType t : {DType::Float32, DType::Float64, DType::Float16, DType::Int64, DType::Int32,
                  DType::Int16, DType::Int8, DType::UInt8, DType::Bool, DType::Complex64,
                  DType::Complex128}) {
    INFO(dtypeName(t));
    std::vector<int64_t> shape = {int64_t(48 / dtypeSize(t))};
    std::vector<uint8_t> data = raw;
    if (t == DType::Bool)
      for (uint8_t &b : data)
        b &= 1;
    std::vector<uint8_t> file = serializeNpy(t, shape, data.data());
    CHECK((file.size() - data.size()) % 64 == 0); // data 64-byte aligned
    NpyArray a = parseNpy(file.data(), file.size(), "mem");
    CHECK(a.dtype == t);
    CHECK(a.shape == shape);
    CHECK(a.data == data);
  }
}

TEST_CASE("Npy writes and reads files, 0-d and 1-d shapes", "[support]") {
  auto path = std::filesystem::temp_directory_path() /
              ("tcc-npy-test-" + std::to_string(::getpid()) + ".npy");
  float values[6] = {1, 2, 3, 4, 5, 6};
  writeNpy(path.string(), DType::Float32, {2, 3}, values);
  NpyArray a = readNpy(path.string());
  CHECK(a.shape == std::vector<int64_t>{2, 3});
  CHECK(a.numElements() == 6);
  CHECK(a.elementAsDouble(5) == 6.0);
  std::filesystem::remove(path);

  std::vector<uint8_t> scalar = serializeNpy(DType::Int64, {}, "\x05\0\0\0\0\0\0\0");
  NpyArray s = parseNpy(scalar.data(), scalar.size(), "scalar");
  CHECK(s.shape.empty());
  CHECK(s.numElements() == 1);
  CHECK(s.elementAsDouble(0) == 5.0);

  std::vector<uint8_t> one = serializeNpy(DType::Float32, {3}, values);
  std::string header(one.begin() + 10, one.begin() + 64);
  CHECK(header.find("'shape': (3,)") != std::string::npos);
}

TEST_CASE("Npy reads headers as NumPy writes them, v1 and v2", "[support]") {
  auto v1 = npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                     floatBytes({1.5f, -2.0f}));
  NpyArray a = parseNpy(v1.data(), v1.size(), "v1");
  CHECK(a.dtype == DType::Float32);
  CHECK(a.elementAsDouble(1) == -2.0);

  auto v2 = npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }",
                     floatBytes({1.5f, -2.0f}), 2);
  CHECK(parseNpy(v2.data(), v2.size(), "v2").shape == std::vector<int64_t>{1, 2});

  auto half = npyBytes("{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }",
                       {0x00, 0x3c, 0x00, 0xc0, 0x01, 0x00});
  NpyArray h = parseNpy(half.data(), half.size(), "half");
  CHECK(h.elementAsDouble(0) == 1.0);
  CHECK(h.elementAsDouble(1) == -2.0);
  CHECK(h.elementAsDouble(2) == Approx(5.960464477539063e-08));
}

TEST_CASE("Npy rejects malformed and unsupported files", "[support]") {
  std::vector<uint8_t> f4 = floatBytes({1, 2, 3, 4});
  auto fortran = npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", f4);
  CHECK_THROWS_WITH(parseNpy(fortran.data(), fortran.size(), "f.npy"),
                    Catch::StartsWith("f.npy: Fortran-order arrays are not supported"));

  auto bigEndian = npyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", f4);
  CHECK_THROWS_WITH(parseNpy(bigEndian.data(), bigEndian.size(), "b.npy"),
                    "b.npy: unsupported dtype '>f4' (supported: <f4 <f8 <f2 <i8 <i4 <i2 "
                    "|i1 |u1 |b1 <c8 <c16)");
  auto complex = npyBytes("{'descr': '<c32', 'fortran_order': False, 'shape': (1,), }", f4);
  CHECK_THROWS_WITH(parseNpy(complex.data(), complex.size(), "c.npy"),
                    Catch::StartsWith("c.npy: unsupported dtype '<c32'"));

  auto truncated = npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", f4);
  CHECK_THROWS_WITH(parseNpy(truncated.data(), truncated.size(), "t.npy"),
                    "t.npy: truncated .npy file: expected 20 data bytes, found 16");
  CHECK_THROWS_WITH(parseNpy(truncated.data(), 30, "t.npy"),
                    "t.npy: truncated .npy file (header)");

  // Trailing bytes (issue 17): the header says 3 floats, the file holds 4.
  auto trailing = npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", f4);
  CHECK_THROWS_WITH(parseNpy(trailing.data(), trailing.size(), "x.npy"),
                    "x.npy: 4 bytes after the 12 data bytes its header describes");

  std::vector<uint8_t> garbage = {'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0};
  CHECK_THROWS_WITH(parseNpy(garbage.data(), garbage.size(), "g.npy"),
                    "g.npy: not a .npy file (bad magic)");

  auto noShape = npyBytes("{'descr': '<f4', 'fortran_order': False, }", f4);
  CHECK_THROWS_WITH(parseNpy(noShape.data(), noShape.size(), "s.npy"),
                    "s.npy: malformed .npy header: header lacks 'descr', 'fortran_order' or "
                    "'shape'");

  CHECK_THROWS_WITH(readNpy("/nonexistent/x.npy"), "/nonexistent/x.npy: cannot open file");
  uint16_t bf16 = 0x3f80;
  CHECK_THROWS_WITH(serializeNpy(DType::BFloat16, {1}, &bf16),
                    "dtype bfloat16 has no .npy representation");
}

TEST_CASE("Npy reads the committed sample fixtures", "[support]") {
  NpyArray x = readNpy(TCC_SOURCE_DIR "/samples/mymodule_dynamic_batch/input_b7.npy");
  CHECK(x.dtype == DType::Float32);
  CHECK(x.shape.size() == 2);
  CHECK(x.shape[0] == 7);
}

TEST_CASE("Npy rounds float32 to bfloat16 to nearest even", "[support]") {
  std::vector<float> values = {1.0f, 1.00390625f /* halfway: even stays */, 1.01171875f /* halfway: up */,
                               -2.5f, 3.0e38f, std::numeric_limits<float>::quiet_NaN(), -0.0f};
  NpyArray f32;
  f32.dtype = DType::Float32;
  f32.shape = {static_cast<int64_t>(values.size())};
  f32.data.resize(values.size() * 4);
  std::memcpy(f32.data.data(), values.data(), f32.data.size());
  NpyArray bf = roundToBFloat16(f32);
  REQUIRE(bf.dtype == DType::BFloat16);
  REQUIRE(bf.shape == f32.shape);
  CHECK(bf.elementAsDouble(0) == 1.0);
  CHECK(bf.elementAsDouble(1) == 1.0);        // 1 + 2^-8 lies halfway; 1.0 is even
  CHECK(bf.elementAsDouble(2) == 1.015625);   // 1 + 3·2^-8 lies halfway; rounds up to even
  CHECK(bf.elementAsDouble(3) == -2.5);
  CHECK(bf.elementAsDouble(4) == Approx(3.0e38).epsilon(0.01));
  CHECK(std::isnan(bf.elementAsDouble(5)));
  CHECK(std::signbit(bf.elementAsDouble(6)));
}
