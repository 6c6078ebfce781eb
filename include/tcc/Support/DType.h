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
};

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
  }
  return "unknown";
}

inline std::optional<DType> parseDType(std::string_view s) {
  for (int i = 0; i <= static_cast<int>(DType::Bool); ++i)
    if (s == dtypeName(static_cast<DType>(i)))
      return static_cast<DType>(i);
  return std::nullopt;
}

/// Bytes per element.
inline size_t dtypeSize(DType t) {
  switch (t) {
  case DType::Float64: case DType::Int64: return 8;
  case DType::Float32: case DType::Int32: return 4;
  case DType::Float16: case DType::BFloat16: case DType::Int16: return 2;
  case DType::Int8: case DType::UInt8: case DType::Bool: return 1;
  }
  return 0;
}

} // namespace tcc

#endif // TCC_SUPPORT_DTYPE_H
