//===- Npy.h - NumPy .npy files -------------------------------------------===//
//
// Reading and writing the NumPy array format (versions 1.0 and 2.0): the
// test fixtures and `tcc run` inputs/outputs. Only little-endian, C-order
// arrays of the dtypes tcc knows: <f4 <f8 <f2 <i8 <i4 <i2 |i1 |u1 |b1.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_NPY_H
#define TCC_SUPPORT_NPY_H

#include "tcc/Support/DType.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tcc {

/// A malformed, truncated or unsupported .npy file, or an I/O failure.
class NpyError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A dense, row-major array with its bytes.
struct NpyArray {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  /// Product of the shape (1 for a 0-d array).
  int64_t numElements() const;
  /// Element `i` (flat index) converted to double.
  double elementAsDouble(int64_t i) const;
};

/// `array` (Float32) rounded to BFloat16, to nearest even (NaN stays NaN):
/// NumPy has no bfloat16, so bf16 inputs and weights are given as float32.
NpyArray roundToBFloat16(const NpyArray &array);

/// Parses the bytes of a .npy file; `what` names it in error messages.
NpyArray parseNpy(const uint8_t *bytes, size_t size, const std::string &what);

/// Reads a .npy file.
NpyArray readNpy(const std::string &path);

/// Serializes `data` (numElements(shape) * dtypeSize(dtype) bytes) as .npy
/// version 1.0 (2.0 when the header needs it). BFloat16 has no NumPy dtype and
/// is refused.
std::vector<uint8_t> serializeNpy(DType dtype, const std::vector<int64_t> &shape,
                                  const void *data);

/// Writes a .npy file.
void writeNpy(const std::string &path, DType dtype,
              const std::vector<int64_t> &shape, const void *data);

/// Reads element `i` of a buffer of `dtype` as double (float16 and bfloat16
/// included; of a complex dtype, part `i`: element i/2's real part for even
/// i, its imaginary part for odd i).
double elementAsDouble(DType dtype, const void *data, int64_t i);

} // namespace tcc

#endif // TCC_SUPPORT_NPY_H
