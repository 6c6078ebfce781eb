//===- WeightLoader.h - parameter, buffer and constant bytes of a .pt2 ----===//
//
// Internal to the frontend. torch.export.save writes, per model, a payload
// config (data/weights/<model>_weights_config.json, and the same under
// data/constants/) mapping each name to an entry and its TensorMeta, and the
// entries themselves: the raw little-endian bytes of the tensor's whole
// storage (torch's _get_raw_tensor_bytes), which a view may only partly use.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_FRONTEND_WEIGHTLOADER_H
#define TCC_LIB_FRONTEND_WEIGHTLOADER_H

#include "ExportArchiveReader.h"

#include "tcc/Frontend/ExportedProgram.h"

#include <map>
#include <string>

namespace tcc::frontend {

/// What a payload holds, for messages: "weight" or "constant".
enum class PayloadKind { Weight, Constant };

/// Reads the payload config entry `configEntry` and every entry it names
/// (relative to `dataFolder`, e.g. "model/data/weights/"). A missing config
/// entry yields an empty map (the caller reports what it needed from it).
/// Each result holds contiguous bytes (views are copied out). Throws
/// FrontendError naming the payload and entry for pickled payloads, missing
/// entries and byte sizes that do not fit the metadata.
std::map<std::string, TensorData>
loadPayloads(const ExportArchiveReader &archive, const std::string &configEntry,
             const std::string &dataFolder, PayloadKind kind);

} // namespace tcc::frontend

#endif // TCC_LIB_FRONTEND_WEIGHTLOADER_H
