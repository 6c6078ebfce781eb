//===- DType.h - tensor element types shared by compiler and runtime ------===//
//
// One enumeration of element types for the frontend, the manifest and the
// runtime. Names are the manifest's spellings; codes of torch.export's
// ScalarType (torch/_export/serde/schema.py) map onto it in the frontend.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_DTYPE_H
#define TCC_SUPPORT_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tcc {

enum class DType : int32_t {
  Float32 = 0,
  Float64 = 1,
  Float16 = 2,
  BFloat16 = 3,
  Int64 = 4,
  Int32 = 5,
  Int16 = 6,
  Int8 = 7,
  UInt8 = 8,
  Bool = 9,
  /// Complex tensors: PyTorch's storage, (re, im) pairs of float32/float64.
  /// The compiled code sees them as real tensors with a trailing dimension
  /// of 2 (torch.view_as_real), so the bytes are the same (entryRank).
  Complex64 = 10,
  Complex128 = 11,
};

/// The last enumerator: codes 0..kLastDType are valid.
constexpr DType kLastDType = DType::Complex128;

/// Manifest spelling: "float32", "int64", ...
inline const char *dtypeName(DType t) {
  switch (t) {
  case DType::Float32: return "float32";
  case DType::Float64: return "float64";
  case DType::Float16: return "float16";
  case DType::BFloat16: return "bfloat16";
  case DType::Int64: return "int64";
  case DType::Int32: return "int32";
  case DType::Int16: return "int16";
  case DType::Int8: return "int8";
  case DType::UInt8: return "uint8";
  case DType::Bool: return "bool";
  case DType::Complex64: return "complex64";
  case DType::Complex128: return "complex128";
  }
  return "unknown";
}

inline std::optional<DType> parseDType(std::string_view s) {
  for (int i = 0; i <= static_cast<int>(kLastDType); ++i)
    if (s == dtypeName(static_cast<DType>(i)))
      return static_cast<DType>(i);
  return std::nullopt;
}

/// Bytes per element.
inline size_t dtypeSize(DType t) {
  switch (t) {
  case DType::Complex128: return 16;
  case DType::Float64: case DType::Int64: case DType::Complex64: return 8;
  case DType::Float32: case DType::Int32: return 4;
  case DType::Float16: case DType::BFloat16: case DType::Int16: return 2;
  case DType::Int8: case DType::UInt8: case DType::Bool: return 1;
  }
  return 0;
}

/// Whether `t` holds complex numbers.
inline bool isComplex(DType t) { return t == DType::Complex64 || t == DType::Complex128; }

/// The real type of a complex dtype's parts (itself for the others).
inline DType complexPartType(DType t) {
  return t == DType::Complex64 ? DType::Float32 : t == DType::Complex128 ? DType::Float64 : t;
}

/// The rank the compiled code's argument has for a tensor of `rank` dims:
/// one more for a complex tensor, its (re, im) pairs as a last dim of 2.
inline int32_t entryRank(DType t, int32_t rank) { return rank + (isComplex(t) ? 1 : 0); }

} // namespace tcc

#endif // TCC_SUPPORT_DTYPE_H
