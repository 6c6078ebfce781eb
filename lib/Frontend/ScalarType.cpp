//===- ScalarType.cpp - torch.export ScalarType codes ---------------------===//
//
// Codes from ScalarType in torch/_export/serde/schema.py (schema 8.17).
//
//===----------------------------------------------------------------------===//
#include "tcc/Frontend/ScalarType.h"

namespace tcc::frontend {

std::optional<DType> dtypeFromScalarType(int64_t code) {
  switch (code) {
  case 1: return DType::UInt8;
  case 2: return DType::Int8;
  case 3: return DType::Int16;
  case 4: return DType::Int32;
  case 5: return DType::Int64;
  case 6: return DType::Float16;
  case 7: return DType::Float32;
  case 8: return DType::Float64;
  case 10: return DType::Complex64;
  case 11: return DType::Complex128;
  case 12: return DType::Bool;
  case 13: return DType::BFloat16;
  default: return std::nullopt;
  }
}

const char *scalarTypeName(int64_t code) {
  switch (code) {
  case 0: return "UNKNOWN";
  case 1: return "BYTE";
  case 2: return "CHAR";
  case 3: return "SHORT";
  case 4: return "INT";
  case 5: return "LONG";
  case 6: return "HALF";
  case 7: return "FLOAT";
  case 8: return "DOUBLE";
  case 9: return "COMPLEXHALF";
  case 10: return "COMPLEXFLOAT";
  case 11: return "COMPLEXDOUBLE";
  case 12: return "BOOL";
  case 13: return "BFLOAT16";
  case 28: return "UINT16";
  case 29: return "FLOAT8E4M3FN";
  case 30: return "FLOAT8E5M2";
  case 31: return "FLOAT8E4M3FNUZ";
  case 32: return "FLOAT8E5M2FNUZ";
  default: return "undefined";
  }
}

} // namespace tcc::frontend
