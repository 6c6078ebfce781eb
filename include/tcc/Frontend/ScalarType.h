//===- ScalarType.h - torch.export ScalarType codes -----------------------===//
//
// torch.export writes element types as the integer codes of ScalarType in
// torch/_export/serde/schema.py (7 = float32, 5 = int64, ...). This maps them
// onto tcc's DType, which has no complex or float8 types.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_FRONTEND_SCALARTYPE_H
#define TCC_FRONTEND_SCALARTYPE_H

#include "tcc/Support/DType.h"

#include <cstdint>
#include <optional>

namespace tcc::frontend {

/// The DType for a ScalarType code, or nullopt for codes tcc has no type for
/// (complex, float8, uint16) and codes the schema does not define.
std::optional<DType> dtypeFromScalarType(int64_t code);

/// Schema spelling of a ScalarType code ("FLOAT", "COMPLEXHALF"), or
/// "undefined" for a code the schema does not define. For error messages.
const char *scalarTypeName(int64_t code);

} // namespace tcc::frontend

#endif // TCC_FRONTEND_SCALARTYPE_H
